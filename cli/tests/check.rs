//! The CLI driven as a user would: `webgate check` on every admission case
//! of the contract, `webgate check-ip` on every row of the boundary file
//! and the contract's must-be-allowed list, exit codes and `--json`.

use std::process::Command;

fn webgate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// (url, exit code, text) for every admission case the contract names.
const CASES: &[(&str, i32, &str)] = &[
    ("https://example.com/", 0, "admit"),
    ("https://example.com:443/a?b#c", 0, "admit"),
    ("https://example.com:80/", 0, "admit"),
    ("not a url", 2, "invalid url"),
    ("https://", 2, "invalid url"),
    ("https://1.2.3.4.5/", 2, "invalid url"),
    ("https://exa mple.com/", 2, "invalid url"),
    ("http://example.com/", 1, "scheme not allowed: http"),
    ("file:///etc/passwd", 1, "scheme not allowed: file"),
    ("ftp://example.com/", 1, "scheme not allowed: ftp"),
    ("data:text/html,hi", 1, "scheme not allowed: data"),
    ("mailto:a@example.com", 1, "scheme not allowed: mailto"),
    ("javascript:alert(1)", 1, "scheme not allowed: javascript"),
    (
        "https://user@example.com/",
        2,
        "url must not contain userinfo",
    ),
    (
        "https://user:pw@example.com/",
        2,
        "url must not contain userinfo",
    ),
    (
        "https://:pw@example.com/",
        2,
        "url must not contain userinfo",
    ),
    ("https://example.com:8080/", 2, "port not allowed: 8080"),
    ("https://example.com:22/", 2, "port not allowed: 22"),
    (
        "https://127.0.0.1/",
        2,
        "ip literal host not allowed: 127.0.0.1",
    ),
    (
        "https://0177.0.0.1/",
        2,
        "ip literal host not allowed: 127.0.0.1",
    ),
    (
        "https://0x7f.1/",
        2,
        "ip literal host not allowed: 127.0.0.1",
    ),
    (
        "https://2130706433/",
        2,
        "ip literal host not allowed: 127.0.0.1",
    ),
    (
        "https://127.1/",
        2,
        "ip literal host not allowed: 127.0.0.1",
    ),
    (
        "https://１２７．０．０．１/",
        2,
        "ip literal host not allowed: 127.0.0.1",
    ),
    (
        "https://①②⑦.0.0.1/",
        2,
        "ip literal host not allowed: 127.0.0.1",
    ),
    ("https://[::1]/", 2, "ip literal host not allowed: ::1"),
    (
        "https://[::ffff:127.0.0.1]/",
        2,
        "ip literal host not allowed: ::ffff:127.0.0.1",
    ),
    (
        "https://[::127.0.0.1]/",
        2,
        "ip literal host not allowed: ::7f00:1",
    ),
    (
        "https://169.254.169.254/latest/meta-data/",
        2,
        "ip literal host not allowed: 169.254.169.254",
    ),
    (
        "https://8.8.8.8/",
        2,
        "ip literal host not allowed: 8.8.8.8",
    ),
];

#[test]
fn check_gives_the_contract_answer() {
    for (url, code, text) in CASES {
        let (c, out, _) = webgate(&["check", url]);
        assert_eq!((c, out.trim_end()), (*code, *text), "{url}");
    }
}

#[test]
fn check_json() {
    let (c, out, _) = webgate(&["check", "--json", "http://example.com/"]);
    assert_eq!(c, 1);
    assert_eq!(
        out.trim_end(),
        r#"{"class":"soft","kind":null,"text":"scheme not allowed: http"}"#
    );
    let (c, out, _) = webgate(&["check", "--json", "https://u@example.com/"]);
    assert_eq!(c, 2);
    assert_eq!(
        out.trim_end(),
        r#"{"class":"hard","kind":"InvalidArguments","text":"url must not contain userinfo"}"#
    );
    let (c, out, _) = webgate(&["check", "--json", "https://example.com/"]);
    assert_eq!(c, 0);
    assert_eq!(
        out.trim_end(),
        r#"{"class":"admit","kind":null,"text":"admit"}"#
    );
}

#[test]
fn check_ip_on_every_boundary_row() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../vectors/iana/boundaries.csv"
    ))
    .unwrap();
    let mut n = 0;
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = line.split(',').collect();
        let (c, out, _) = webgate(&["check-ip", cols[0]]);
        match cols[1] {
            "blocked" => assert_eq!(
                (c, out.trim_end().to_string()),
                (2, format!("blocked {}", cols[2])),
                "{line}"
            ),
            _ => assert_eq!((c, out.trim_end()), (0, "allowed"), "{line}"),
        }
        n += 1;
    }
    assert_eq!(n, 109);
}

#[test]
fn check_ip_must_be_allowed_and_json() {
    for a in [
        "1.1.1.1",
        "192.31.196.1",
        "2620:4f:8000::1",
        "[2001:db9::1]",
        "::ffff:0:7f00:1",
        "fec0::1",
    ] {
        assert_eq!(webgate(&["check-ip", a]).0, 0, "{a}");
    }
    let (c, out, _) = webgate(&["check-ip", "--json", "[::ffff:127.0.0.1]"]);
    assert_eq!(
        (c, out.trim_end()),
        (2, r#"{"verdict":"blocked","range":"::ffff:0:0/96"}"#)
    );
    let (c, out, _) = webgate(&["check-ip", "--json", "8.8.8.8"]);
    assert_eq!(
        (c, out.trim_end()),
        (0, r#"{"verdict":"allowed","range":null}"#)
    );
}

#[test]
fn bad_usage_exits_64_and_help_exits_0() {
    assert_eq!(webgate(&["check-ip", "0x7f.1"]).0, 64);
    assert_eq!(webgate(&["frobnicate"]).0, 64);
    assert_eq!(webgate(&[]).0, 64);
    let (c, out, _) = webgate(&["--help"]);
    assert_eq!(c, 0);
    assert!(out.contains("check-ip"));
}
