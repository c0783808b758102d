//! robots.txt matching against `vectors/robots.tsv`: Google's published
//! test cases for RFC 9309, one row per robots.txt, product token and path.

#![forbid(unsafe_code)]

use webgate::internals::robots::{RobotsTxt, Verdict};

/// `\n`, `\r`, `\t`, `\\` and `\xNN` (a raw byte, for byte order marks).
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'\\' => out.push(b'\\'),
                b'x' => {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).expect("hex");
                    out.push(u8::from_str_radix(hex, 16).expect("hex byte"));
                    i += 4;
                    continue;
                }
                other => panic!("unknown escape \\{}", other as char),
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn google_cases() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/vectors/robots.tsv");
    let text = std::fs::read_to_string(path).expect("vectors/robots.tsv");
    let mut failures = Vec::new();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 5, "row {line:?}");
        let (name, robots, agent, path, verdict) = (cols[0], cols[1], cols[2], cols[3], cols[4]);
        let path = String::from_utf8(unescape(path)).expect("path is UTF-8");
        let want = match verdict {
            "allow" => Verdict::Allowed,
            "disallow" => Verdict::Disallowed,
            other => panic!("verdict {other:?}"),
        };
        let got = RobotsTxt::parse(&unescape(robots)).verdict(agent, &path);
        if got != want {
            failures.push(format!(
                "{name}: {agent} {path}: {got:?}, expected {want:?}"
            ));
        }
        n += 1;
    }
    assert!(n > 100, "only {n} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Content past the first 500 KiB is not read: a rule there does not count.
#[test]
fn past_the_size_limit_is_not_read() {
    let mut body = b"User-agent: *\nDisallow: /a\n".to_vec();
    body.resize(webgate::internals::robots::MAX_BYTES as usize, b'#');
    body.extend_from_slice(b"\nDisallow: /b\n");
    let file = RobotsTxt::parse(&body);
    assert_eq!(file.verdict("x", "/a"), Verdict::Disallowed);
    assert_eq!(file.verdict("x", "/b"), Verdict::Allowed);
}
