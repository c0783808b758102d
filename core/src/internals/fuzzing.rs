//! Property checks shared by the fuzz targets and the regression tests.
//! Each takes arbitrary bytes and panics only when a property breaks.
//! Not part of the supported API.

use serde_json::Value;
use url::{Host, Url};

use crate::args::{parse_fetch_args, parse_search_args};
use crate::messages::Refusal;
use crate::policy::addr::{check, Verdict};
use crate::policy::{admit, display_form, Policy};

/// URL admission never panics, and its verdict is stable under
/// re-serialization of the parsed URL.
pub fn admission(data: &[u8]) {
    let input = String::from_utf8_lossy(data);
    let policy = Policy::default();
    let first = admit(&input, &policy);
    match &first {
        Ok(u) => {
            let again = admit(u.as_str(), &policy);
            assert_eq!(
                again.as_ref().map(|a| a.as_str()),
                Ok(u.as_str()),
                "{input:?}"
            );
            let _ = u.display();
        }
        Err(Refusal::Invalid) => {}
        Err(r) => {
            // OK because every refusal other than Invalid comes after a parse.
            let url = Url::parse(&input).expect("refusal after parse");
            let _ = display_form(&url);
            assert_eq!(
                admit(url.as_str(), &policy).as_ref().err(),
                Some(r),
                "{input:?}"
            );
        }
    }
}

/// IP-literal hosts: whatever admission reports as an IP literal is the
/// address WHATWG host parsing gives, its canonical text parses back to the
/// same address, and the table judges it without panicking.
pub fn ip_literal(data: &[u8]) {
    let host = String::from_utf8_lossy(data);
    let _ = Host::parse(&host);
    let input = format!("https://{host}/");
    if let Err(Refusal::IpLiteral { address }) = admit(&input, &Policy::default()) {
        let text = address.to_string();
        assert_eq!(text.parse::<std::net::IpAddr>().ok(), Some(address));
        let back = if address.is_ipv6() {
            format!("[{text}]")
        } else {
            text
        };
        match Host::parse(&back) {
            Ok(Host::Ipv4(a)) => assert_eq!(std::net::IpAddr::from(a), address),
            Ok(Host::Ipv6(a)) => assert_eq!(std::net::IpAddr::from(a), address),
            other => panic!("{back:?} parsed to {other:?}"),
        }
        let _ = check(address);
    }
}

/// Both argument parsers take any JSON without panicking, and what they
/// accept respects the policy and the contract's ranges.
pub fn arguments(data: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let policy = Policy::default();
    if let Ok(a) = parse_fetch_args(&v, &policy) {
        assert!(a.max_chars >= 1 && a.max_chars <= policy.max_chars);
    }
    if let Ok(a) = parse_search_args(&v) {
        assert!(a.count.is_none_or(|c| (1..=20).contains(&c)));
        assert!(a.query.chars().count() <= 400);
        assert!(!a.query.trim().is_empty());
    }
}

/// The range text the table gives for an address, or `None` when allowed.
pub fn table_range(ip: std::net::IpAddr) -> Option<String> {
    match check(ip) {
        Verdict::Allow => None,
        Verdict::Deny { range, .. } => Some(range.to_string()),
    }
}

/// The table property (fuzz target `table_diff`): bytes as an address
/// (4 bytes IPv4, 16 bytes IPv6, other lengths ignored), judged by the
/// compiled table and by [`reference_range`]; both name the same range or
/// both allow the address.
pub fn table_diff(data: &[u8]) {
    let ip = match data.len() {
        4 => std::net::IpAddr::from(<[u8; 4]>::try_from(data).unwrap()),
        16 => std::net::IpAddr::from(<[u8; 16]>::try_from(data).unwrap()),
        _ => return,
    };
    let ours = table_range(ip).map(|r| cidr(&r).unwrap_or_else(|| panic!("{r}: not a range")));
    assert_eq!(ours, reference_range(ip), "{ip}");
}

/// The obviously correct reference for the blocked table: a linear scan
/// of the contract's table as data (`vectors/iana/expected-table.txt`)
/// for the longest range holding `ip`, as (network, prefix length).
pub fn reference_range(ip: std::net::IpAddr) -> Option<(std::net::IpAddr, u8)> {
    const TABLE: &str = include_str!("../../vectors/iana/expected-table.txt");
    TABLE
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| cidr(l).unwrap_or_else(|| panic!("{l}: not a range")))
        .filter(|&(net, len)| holds(net, len, ip))
        .max_by_key(|&(_, len)| len)
}

/// `a.b.c.d/n` or `x:…/n` as (network, prefix length).
fn cidr(s: &str) -> Option<(std::net::IpAddr, u8)> {
    let (addr, len) = s.trim().split_once('/')?;
    Some((addr.parse().ok()?, len.parse().ok()?))
}

/// Whether `net/len` holds `ip` (same family, the first `len` bits equal).
fn holds(net: std::net::IpAddr, len: u8, ip: std::net::IpAddr) -> bool {
    use std::net::IpAddr::{V4, V6};
    let (net, ip, bits) = match (net, ip) {
        (V4(n), V4(i)) => (u128::from(u32::from(n)), u128::from(u32::from(i)), 32),
        (V6(n), V6(i)) => (u128::from(n), u128::from(i), 128),
        _ => return false,
    };
    let len = u32::from(len);
    len <= bits && (len == 0 || (net ^ ip) >> (bits - len) == 0)
}

/// The deepest element extraction's tree keeps.
pub const MAX_TREE_DEPTH: usize = crate::extract::MAX_TREE_DEPTH;

/// The depth of the tree extraction builds for `html` (for tests of the
/// depth cap).
pub fn tree_depth(html: &str) -> usize {
    crate::extract::tree_depth(html)
}

/// What parsing `html` spent against its budgets: (nodes made, work
/// units, the node budget, the work budget, whether a budget ran out).
pub fn parse_spent(html: &str) -> (usize, u64, usize, u64, bool) {
    crate::extract::parse_spent(html, false)
}

/// Parses `html` into extraction's flat view and nothing more (for the
/// benchmark's breakdown of where extraction time goes). Returns the
/// number of nodes.
pub fn parse_only(html: &str) -> usize {
    crate::extract::parse_only(html)
}

/// The body pipeline: arbitrary bytes under arbitrary codings, split into
/// arbitrary chunks, never panic and never keep more than the cap; real
/// compressed bodies decode to the same bytes however they are chunked;
/// the inflated count never passes the cap by more than one byte.
///
/// Layout: byte 0 picks the codings and the cap mode, byte 1 the cap,
/// bytes 2..4 seed the chunk sizes, the rest is the payload.
pub fn body(data: &[u8]) {
    use crate::body::{BodyDecoder, CapMode, Coding};
    use std::io::Write;
    if data.len() < 4 {
        return;
    }
    let codings: &[Coding] = match data[0] % 6 {
        0 => &[],
        1 => &[Coding::Gzip],
        2 => &[Coding::Deflate],
        3 => &[Coding::Brotli],
        4 => &[Coding::Zstd],
        _ => &[Coding::Gzip, Coding::Deflate],
    };
    let mode = if data[0] & 0x80 == 0 {
        CapMode::Refuse
    } else {
        CapMode::Truncate
    };
    let cap = 1 + u64::from(data[1]) * 37;
    let mut seed = u16::from_le_bytes([data[2], data[3]]) as usize | 1;
    let payload = &data[4..];
    let mut chunks = |bytes: &[u8]| -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            seed = seed.wrapping_mul(1103515245).wrapping_add(12345) % 65536;
            let n = 1 + seed % 97;
            let end = (at + n).min(bytes.len());
            out.push(bytes[at..end].to_vec());
            at = end;
        }
        out
    };
    let run = |pieces: &[Vec<u8>]| {
        let mut d = BodyDecoder::new(codings, cap, mode).expect("a pipeline");
        let mut pushed = Ok(crate::body::Flow::More);
        for p in pieces {
            pushed = d.push(p);
            if !matches!(pushed, Ok(crate::body::Flow::More)) {
                break;
            }
        }
        assert!(
            d.inflated() <= cap + 1,
            "inflated {} past cap {cap}",
            d.inflated()
        );
        pushed.and_then(|_| d.finish())
    };
    // Arbitrary bytes: anything but a panic or more than the cap.
    if let Ok(b) = run(&chunks(payload)) {
        assert!(b.bytes.len() as u64 <= cap);
    }
    // A real body in the chosen codings: the header lists them in the
    // order they were applied.
    let mut encoded = payload.to_vec();
    for c in codings {
        encoded = match c {
            Coding::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&encoded).expect("in memory");
                e.finish().expect("in memory")
            }
            Coding::Deflate => {
                let mut e =
                    flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(&encoded).expect("in memory");
                e.finish().expect("in memory")
            }
            // No encoder for these in the library: the garbage pass above
            // covers their decoders.
            Coding::Brotli | Coding::Zstd => return,
        };
    }
    let whole = run(&[encoded.clone()]);
    let split = run(&chunks(&encoded));
    assert_eq!(whole, split, "chunking changed the result");
    let fits = payload.len() as u64 <= cap;
    match (mode, whole) {
        (CapMode::Refuse, Ok(b)) => {
            assert!(fits);
            assert_eq!(b.bytes, payload);
        }
        (CapMode::Refuse, Err(crate::body::BodyFail::Cap)) => assert!(!fits),
        (CapMode::Truncate, Ok(b)) => {
            assert_eq!(b.bytes, &payload[..payload.len().min(cap as usize)]);
            assert_eq!(b.truncated, !fits);
        }
        (m, r) => panic!("{m:?}: unexpected {r:?}"),
    }
}

/// Content-Type parsing and charset lookup never panic, and a type that
/// classifies keeps classifying the same way with its case changed.
pub fn content_type(data: &[u8]) {
    // Several header values, split at NUL bytes.
    let values: Vec<&[u8]> = data.split(|&b| b == 0).collect();
    let first = crate::body::classify(&values);
    if let Ok(ct) = &first {
        let _ = crate::body::charset::encoding_for(ct.charset.as_deref());
        let upper: Vec<Vec<u8>> = values.iter().map(|v| v.to_ascii_uppercase()).collect();
        let upper: Vec<&[u8]> = upper.iter().map(Vec::as_slice).collect();
        let again = crate::body::classify(&upper);
        assert_eq!(again.as_ref().map(|c| c.class), Ok(ct.class), "{values:?}");
    }
    // Serializing a parsed MIME type and parsing it again gives it back.
    if let Some(m) = crate::body::content_type::MimeType::parse(&String::from_utf8_lossy(data)) {
        assert_eq!(
            crate::body::content_type::MimeType::parse(&m.serialize()).as_ref(),
            Some(&m)
        );
    }
}

/// Extraction: any bytes give text without a panic, the output is a
/// bounded multiple of the input, the tree stays within the depth cap,
/// skipping unread script and style text leaves the tree as it is, and
/// the parse's work stays within its budget scaled to the input.
pub fn extraction(data: &[u8]) {
    let html = String::from_utf8_lossy(data);
    let base = Url::parse("https://a.example/").expect("a URL");
    for raw in [false, true] {
        let options = crate::extract::Options::new(raw, crate::extract::Style::Markdown);
        let text = crate::extract::extract(&html, &base, &options).text;
        // Output is a bounded multiple of the input (the rendering's
        // budget is 4x plus 64 KiB; at fuzzing sizes far less is needed).
        assert!(
            text.len() <= 4 * html.len() + 1024,
            "{} bytes rendered from {}",
            text.len(),
            html.len()
        );
    }
    assert!(tree_depth(&html) <= MAX_TREE_DEPTH + 8);
    // The text of scripts and style sheets, skipped by a scan, leaves the
    // tree the tokenizer makes reading it (with the production budgets,
    // and with small ones, where the rest of the page becomes the tail).
    for small in [false, true] {
        if let Some(d) = crate::extract::skip_differs(&html, small) {
            panic!("skipped raw text changed the tree: {d}");
        }
    }
    // Work, not just crashes: with the budgets scaled to the input, the
    // parse never makes more nodes or charges more work than the budget
    // plus what one token can add (a token makes at most a node per
    // formatting element it reconstructs, each at most the depth cap deep).
    let (nodes, work, max_nodes, max_work, _) = crate::extract::parse_spent(&html, true);
    let one_token = html.len() + 16;
    assert!(
        nodes <= max_nodes + one_token,
        "{nodes} nodes, budget {max_nodes}"
    );
    assert!(
        work <= max_work + (MAX_TREE_DEPTH as u64 + 1) * (one_token as u64 + 1),
        "{work} work units, budget {max_work}"
    );
    // And after the parse: every unit the rendering and the repeat filter
    // spend (nodes visited, bytes read and copied) stays a fixed multiple
    // of the page, so a loop that rescans is a crash the fuzzer finds.
    for raw in [false, true] {
        let (_, spent) = extraction_work(&html, raw);
        assert!(
            spent <= WORK_PER_BYTE * html.len() as u64 + WORK_ALLOWANCE,
            "{spent} units of work after the parse, for {} bytes",
            html.len()
        );
    }
}

/// The units of work extracting `html` spends (markdown; the article, or
/// the whole document with `raw`): in the parse, and after it.
pub fn extraction_work(html: &str, raw: bool) -> (u64, u64) {
    crate::extract::work_spent(html, raw)
}

/// The most units of work extraction may spend after the parse per byte
/// of the page: text is read once per open frame (at most 16), folded,
/// rendered up to three times (the article, the page without its boxes,
/// the whole page) and read once more by the repeat filter.
pub const WORK_PER_BYTE: u64 = 64;

/// What a page of any size may spend beyond [`WORK_PER_BYTE`].
pub const WORK_ALLOWANCE: u64 = 4096;

/// The rows the extraction's selection models are trained on, for
/// `core/examples/extract_training.rs`: per candidate root (features,
/// plain text), per unit of the chosen root (features, text), and the
/// page's features.
#[allow(clippy::type_complexity)]
pub fn extraction_training_rows(
    html: &str,
    base: &url::Url,
) -> (Vec<(Vec<f64>, String)>, Vec<(Vec<f64>, String)>, Vec<f64>) {
    let r = crate::extract::training_rows(html, base);
    (r.candidates, r.units, r.page)
}

/// A provider's answer: any bytes give rows or a typed failure; rows are
/// rendered as valid JSON with the contract's key order, every url
/// non-blank.
#[cfg(feature = "search-providers")]
pub fn search_response(data: &[u8]) {
    let Ok(v) = crate::search::client::json_body(data) else {
        return;
    };
    let Some(results) = v.get("results").and_then(Value::as_array) else {
        return;
    };
    let Ok(rows) = crate::search::rows_from_results(results) else {
        return;
    };
    let text = crate::messages::text::SearchOk {
        query: "q",
        rows: &rows,
    }
    .to_string();
    let back: Value = serde_json::from_str(&text).expect("the output is JSON");
    assert_eq!(
        back["results"].as_array().map(Vec::len),
        Some(rows.len()),
        "{text}"
    );
    assert!(text.starts_with("{\"query\":\"q\",\"results\":["));
}

/// robots.txt: any bytes parse and judge without a panic, and the linear
/// pattern matcher agrees with a plain dynamic-programming one (the data's
/// first line is a pattern, its second a path, each cut to 64 bytes).
pub fn robots(data: &[u8]) {
    use crate::policy::robots::{matches, RobotsTxt};
    let file = RobotsTxt::parse(data);
    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines();
    let pattern: String = lines.next().unwrap_or_default().chars().take(64).collect();
    let path: String = lines.next().unwrap_or_default().chars().take(64).collect();
    for p in ["/", "/a", path.as_str()] {
        let _ = file.verdict("harness-webfetch", p);
        let _ = file.verdict("", p);
    }
    if !pattern.is_empty() {
        assert_eq!(
            matches(&pattern, &path),
            glob_reference(pattern.as_bytes(), path.as_bytes()),
            "pattern {pattern:?} path {path:?}"
        );
    }
}

/// `pattern` (with `*` for any run, a final `$` for the end) matches a
/// prefix of `path`, by the textbook table: quadratic, obviously right.
fn glob_reference(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.split_last() {
        Some((b'$', rest)) => (rest, true),
        _ => (pattern, false),
    };
    // ok[j]: the pattern so far matches path[..j].
    let mut ok = vec![false; path.len() + 1];
    ok[0] = true;
    for &c in pattern {
        let mut next = vec![false; path.len() + 1];
        for j in 0..=path.len() {
            next[j] = if c == b'*' {
                ok[j] || (j > 0 && next[j - 1])
            } else {
                j > 0 && ok[j - 1] && path[j - 1] == c
            };
        }
        ok = next;
    }
    if anchored {
        ok[path.len()]
    } else {
        ok.iter().any(|&b| b)
    }
}

/// The names of those rows' features (candidates, units, page).
pub const EXTRACTION_FEATURE_NAMES: [&[&str]; 3] = crate::extract::FEATURE_NAMES;
