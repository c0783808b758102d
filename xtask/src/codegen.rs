//! `cargo xtask codegen`: compiles the blocked-address table
//! (`core/src/policy/table.rs`) from the IANA registry copies in
//! `vectors/iana/`.
//!
//! The rule (contract §4, `iana-table.md`): every registry row whose
//! *Globally Reachable* cell is not `True`, plus the rows of
//! `additions.csv`; then every block inside another block of the list is
//! folded into it, unless `additions.csv` marks it `keep`.

use std::fmt::Write as _;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::Path;

/// One block of the table before it is written out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub net: Net,
    pub name: String,
    pub keep: bool,
}

/// An address block of either family, normalised (host bits zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Net {
    V4(u32, u8),
    V6(u128, u8),
}

impl Net {
    fn contains(self, other: Net) -> bool {
        match (self, other) {
            (Net::V4(a, p), Net::V4(b, q)) => p <= q && mask4(p) & b == a,
            (Net::V6(a, p), Net::V6(b, q)) => p <= q && mask6(p) & b == a,
            _ => false,
        }
    }
}

fn mask4(p: u8) -> u32 {
    if p == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(p))
    }
}

fn mask6(p: u8) -> u128 {
    if p == 0 {
        0
    } else {
        u128::MAX << (128 - u32::from(p))
    }
}

/// Parses `a.b.c.d/n` or `x::y/n`; a block with host bits set is an error,
/// because a registry copy that says so has been damaged.
pub fn parse_net(s: &str) -> Result<Net, String> {
    let (addr, len) = s
        .split_once('/')
        .ok_or_else(|| format!("no prefix length in {s:?}"))?;
    let len: u8 = len
        .parse()
        .map_err(|_| format!("bad prefix length in {s:?}"))?;
    if let Ok(a) = addr.parse::<Ipv4Addr>() {
        if len > 32 {
            return Err(format!("prefix too long in {s:?}"));
        }
        let a = u32::from(a);
        if a & !mask4(len) != 0 {
            return Err(format!("host bits set in {s:?}"));
        }
        return Ok(Net::V4(a, len));
    }
    if let Ok(a) = addr.parse::<Ipv6Addr>() {
        if len > 128 {
            return Err(format!("prefix too long in {s:?}"));
        }
        let a = u128::from(a);
        if a & !mask6(len) != 0 {
            return Err(format!("host bits set in {s:?}"));
        }
        return Ok(Net::V6(a, len));
    }
    Err(format!("not an address block: {s:?}"))
}

/// A minimal RFC 4180 reader: quoted cells may hold commas, doubled quotes
/// and line breaks (the IANA copies use all three).
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    cell.push('"');
                }
                '"' => quoted = false,
                _ => cell.push(c),
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            ',' => row.push(std::mem::take(&mut cell)),
            '\r' => {}
            '\n' => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            _ => cell.push(c),
        }
    }
    if quoted {
        return Err("unterminated quoted cell".into());
    }
    if !cell.is_empty() || !row.is_empty() {
        row.push(cell);
        rows.push(row);
    }
    Ok(rows)
}

/// Removes footnote markers such as ` [2]` and surrounding space.
fn strip_footnote(cell: &str) -> String {
    let mut out = cell.trim().to_string();
    while let Some(open) = out.rfind(" [") {
        let tail = &out[open + 2..];
        if tail.ends_with(']') && tail[..tail.len() - 1].chars().all(|c| c.is_ascii_digit()) {
            out.truncate(open);
            out = out.trim_end().to_string();
        } else {
            break;
        }
    }
    out
}

fn column(header: &[String], name: &str) -> Result<usize, String> {
    header
        .iter()
        .position(|h| h.trim() == name)
        .ok_or_else(|| format!("no column {name:?}"))
}

/// Reads one registry copy: the rows that are not globally reachable.
fn registry_blocks(text: &str) -> Result<Vec<Block>, String> {
    let rows = parse_csv(text)?;
    let (header, rows) = rows.split_first().ok_or("empty registry")?;
    let c_block = column(header, "Address Block")?;
    let c_name = column(header, "Name")?;
    let c_reach = column(header, "Globally Reachable")?;
    let mut out = Vec::new();
    for row in rows {
        let cell = |i: usize| row.get(i).map(String::as_str).unwrap_or("");
        if strip_footnote(cell(c_reach)) == "True" {
            continue;
        }
        let name = strip_footnote(cell(c_name)).trim_matches('"').to_string();
        // One registry cell may list several blocks ("a/32, b/32").
        for part in strip_footnote(cell(c_block)).split(',') {
            let net = parse_net(&strip_footnote(part))?;
            out.push(Block {
                net,
                name: name.clone(),
                keep: false,
            });
        }
    }
    Ok(out)
}

fn addition_blocks(text: &str) -> Result<Vec<Block>, String> {
    let rows = parse_csv(text)?;
    let (header, rows) = rows.split_first().ok_or("empty additions")?;
    let c_block = column(header, "Address Block")?;
    let c_name = column(header, "Name")?;
    let c_fold = column(header, "Fold")?;
    rows.iter()
        .map(|row| {
            let cell = |i: usize| row.get(i).map(|s| s.trim()).unwrap_or("");
            let keep = match cell(c_fold) {
                "" => false,
                "keep" => true,
                other => return Err(format!("unknown Fold value {other:?}")),
            };
            Ok(Block {
                net: parse_net(cell(c_block))?,
                name: cell(c_name).to_string(),
                keep,
            })
        })
        .collect()
}

/// Folds every block that lies inside another one into it, then sorts by
/// address. A block marked `keep` (or the same block listed twice with
/// `keep` once) is never folded away.
pub fn fold(mut blocks: Vec<Block>) -> Vec<Block> {
    // An addition that repeats a registry row decides its `keep` flag.
    for i in 0..blocks.len() {
        if blocks[i].keep {
            let net = blocks[i].net;
            for b in blocks.iter_mut() {
                if b.net == net {
                    b.keep = true;
                }
            }
        }
    }
    let mut out: Vec<Block> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let inside_other = blocks
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.net.contains(b.net) && (o.net != b.net || j < i));
        if b.keep {
            if !out.iter().any(|o| o.net == b.net) {
                out.push(b.clone());
            }
        } else if !inside_other {
            out.push(b.clone());
        }
    }
    out.sort_by_key(|b| b.net);
    out
}

/// Everything the generated file is made from.
pub fn table(dir: &Path) -> Result<Vec<Block>, String> {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    let mut blocks = registry_blocks(&read("iana-ipv4-special-registry.csv")?)?;
    blocks.extend(registry_blocks(&read("iana-ipv6-special-registry.csv")?)?);
    blocks.extend(addition_blocks(&read("additions.csv")?)?);
    Ok(fold(blocks))
}

/// Renders the Rust source of `core/src/policy/table.rs`.
pub fn render(blocks: &[Block]) -> String {
    let v4: Vec<_> = blocks
        .iter()
        .filter(|b| matches!(b.net, Net::V4(..)))
        .collect();
    let v6: Vec<_> = blocks
        .iter()
        .filter(|b| matches!(b.net, Net::V6(..)))
        .collect();
    let mut s = String::new();
    s.push_str(
        "//! The blocked-address table, generated by `cargo xtask codegen` from\n\
         //! `vectors/iana/`. Do not edit: `cargo xtask codegen --check` fails when\n\
         //! this file no longer matches its sources.\n\n\
         use super::range::{Range4, Range6};\n\n",
    );
    let _ = writeln!(s, "/// The IPv4 ranges, in address order.");
    let _ = writeln!(s, "pub(crate) static V4: [Range4; {}] = [", v4.len());
    for b in &v4 {
        if let Net::V4(a, p) = b.net {
            let ip = Ipv4Addr::from(a);
            let _ = writeln!(s, "    // {ip}/{p}");
            let _ = writeln!(s, "    Range4::new({:?}, {p}, {:?}),", ip.octets(), b.name);
        }
    }
    s.push_str("];\n\n");
    let _ = writeln!(s, "/// The IPv6 ranges, in address order.");
    let _ = writeln!(s, "pub(crate) static V6: [Range6; {}] = [", v6.len());
    for b in &v6 {
        if let Net::V6(a, p) = b.net {
            let ip = Ipv6Addr::from(a);
            let seg: Vec<String> = ip.segments().iter().map(|g| format!("{g:#x}")).collect();
            let _ = writeln!(s, "    // {ip}/{p}");
            let _ = writeln!(
                s,
                "    Range6::new([{}], {p}, {:?}),",
                seg.join(", "),
                b.name
            );
        }
    }
    s.push_str("];\n");
    s
}

/// The command: writes the file, or with `check` compares it.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let blocks = table(&root.join("vectors/iana"))?;
    let text = render(&blocks);
    let target = root.join("core/src/policy/table.rs");
    if check {
        let current = std::fs::read_to_string(&target).unwrap_or_default();
        if current != text {
            return Err(format!(
                "{} is stale: run `cargo xtask codegen` and commit the result",
                target.display()
            ));
        }
        println!("codegen: {} is up to date", target.display());
    } else {
        std::fs::write(&target, text).map_err(|e| format!("{}: {e}", target.display()))?;
        println!(
            "codegen: wrote {} ({} ranges)",
            target.display(),
            blocks.len()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_keeps_quoted_commas_quotes_and_newlines() {
        let rows = parse_csv("a,b\n\"x, y\",\"\"\"q\"\"\"\n\"l1\n  l2\",z\n").unwrap();
        assert_eq!(rows[1], vec!["x, y".to_string(), "\"q\"".to_string()]);
        assert_eq!(rows[2], vec!["l1\n  l2".to_string(), "z".to_string()]);
    }

    #[test]
    fn footnotes_are_stripped() {
        assert_eq!(strip_footnote("False [1]"), "False");
        assert_eq!(strip_footnote("192.0.0.0/24 [2]"), "192.0.0.0/24");
        assert_eq!(strip_footnote("[RFC791]"), "[RFC791]");
    }

    #[test]
    fn host_bits_are_refused() {
        assert!(parse_net("10.0.0.1/8").is_err());
        assert!(parse_net("10.0.0.0/8").is_ok());
    }

    #[test]
    fn the_table_has_the_contract_ranges() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let blocks = table(&root.join("vectors/iana")).unwrap();
        let text: Vec<String> = blocks
            .iter()
            .map(|b| match b.net {
                Net::V4(a, p) => format!("{}/{p}", Ipv4Addr::from(a)),
                Net::V6(a, p) => format!("{}/{p}", Ipv6Addr::from(a)),
            })
            .collect();
        // The contract's list, stated independently of the registries.
        let expected: Vec<String> =
            std::fs::read_to_string(root.join("vectors/iana/expected-table.txt"))
                .unwrap()
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(|l| {
                    let (a, p) = l.split_once('/').unwrap();
                    match a.parse::<std::net::IpAddr>().unwrap() {
                        std::net::IpAddr::V4(a) => format!("{a}/{p}"),
                        std::net::IpAddr::V6(a) => format!("{a}/{p}"),
                    }
                })
                .collect();
        assert_eq!(text, expected);
    }
}
