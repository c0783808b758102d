//! The two host opt-ins end to end through the CLI, over real TLS on
//! loopback (`--resolve`, `--connect-to`, `--ca-file`; the policy stays
//! on): `--robots-txt` reads the origin's robots.txt before each URL and
//! refuses what it disallows; `--reader` fetches a page that gave nothing
//! usable through the reader service, and says so. Servers stop by
//! themselves.

use std::process::Command;

use webgate_conformance::ca::TestCa;
use webgate_conformance::loopback::{LoopbackServer, Route};

const A: &str = "93.184.216.34";
const R: &str = "93.184.216.35";

fn route(path: &str, status: u16, content_type: &str, body: &str) -> Route {
    Route {
        path: path.into(),
        status,
        head_fields: format!("Content-Type: {content_type}\r\n"),
        body: body.as_bytes().to_vec(),
    }
}

struct TempFile(std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn ca_file(ca: &TestCa, tag: &str) -> TempFile {
    let p = std::env::temp_dir().join(format!("webgate-opt-in-{tag}-{}.pem", std::process::id()));
    std::fs::write(&p, ca.root_pem()).expect("write the CA file");
    TempFile(p)
}

fn webgate(args: &[String]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .args(args)
        .output()
        .expect("run webgate");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn paths(server: &LoopbackServer) -> Vec<String> {
    server.paths.lock().expect("paths").clone()
}

#[test]
fn robots_txt_refuses_what_it_disallows_and_allows_the_rest() {
    let ca = TestCa::new();
    let site = LoopbackServer::routed(
        &ca,
        &["a.example"],
        vec![
            route(
                "/robots.txt",
                200,
                "text/plain",
                "User-agent: *\nAllow: /\n\nUser-agent: harness-webfetch\nDisallow: /private\n",
            ),
            route("/public", 200, "text/plain", "a public page"),
            route("/private/report", 200, "text/plain", "never to be read"),
        ],
    );
    let pem = ca_file(&ca, "robots");
    let host = |url: &str, extra: &[&str]| {
        let mut a = args(&["fetch", url, "--robots-txt"]);
        a.extend(args(extra));
        a.extend([
            "--resolve".into(),
            format!("a.example={A}"),
            "--connect-to".into(),
            format!("{A}:443=127.0.0.1:{}", site.port),
            "--ca-file".into(),
            pem.0.display().to_string(),
        ]);
        a
    };

    let (code, out, err) = webgate(&host("https://a.example/private/report", &[]));
    assert_eq!(code, 1, "a soft failure: {err}");
    assert_eq!(
        out,
        "https://a.example/private/report is disallowed for this agent by the site's \
         robots.txt; try a different URL\n"
    );
    assert_eq!(
        paths(&site),
        ["/robots.txt"],
        "the page was never requested"
    );

    let (code, out, err) = webgate(&host("https://a.example/public", &["--audit"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "url: https://a.example/public\ntruncated: false\nextraction: plain\n\na public page\n"
    );
    assert!(
        err.contains("\"robots\":[{"),
        "the audit shows the verdict: {err}"
    );
    assert!(err.contains("\"verdict\":\"allowed\""), "{err}");
    // A new process is a new run: the file is read again.
    assert_eq!(paths(&site), ["/robots.txt", "/robots.txt", "/public"]);

    // Off, nothing is read: the same page comes back without a robots.txt request.
    let mut off = host("https://a.example/private/report", &[]);
    off.retain(|a| a != "--robots-txt");
    let (code, out, err) = webgate(&off);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("never to be read\n"), "{out}");
    assert_eq!(
        paths(&site).last().map(String::as_str),
        Some("/private/report")
    );
}

#[test]
fn the_reader_reads_a_block_page_and_says_so() {
    let ca = TestCa::new();
    let block = "<html><head><title>Just a moment…</title></head><body>\
                 <p>Checking your browser before accessing a.example.</p></body></html>";
    let article = "The article as the reader service rendered it, scripts and all. ".repeat(4);
    let site = LoopbackServer::routed(
        &ca,
        &["a.example"],
        vec![
            route("/story", 200, "text/html", block),
            route("/gone", 404, "text/html", "<p>no such story</p>"),
        ],
    );
    let reader = LoopbackServer::routed(
        &ca,
        &["r.example"],
        vec![route(
            "/https://a.example/story",
            200,
            "text/plain; charset=utf-8",
            &article,
        )],
    );
    let pem = ca_file(&ca, "reader");
    let host = |tool_args: &[&str]| {
        let mut a = args(tool_args);
        a.extend([
            "--reader".into(),
            "https://r.example/".into(),
            "--resolve".into(),
            format!("a.example={A}"),
            "--resolve".into(),
            format!("r.example={R}"),
            "--connect-to".into(),
            format!("{A}:443=127.0.0.1:{}", site.port),
            "--connect-to".into(),
            format!("{R}:443=127.0.0.1:{}", reader.port),
            "--ca-file".into(),
            pem.0.display().to_string(),
        ]);
        a
    };

    let (code, out, err) = webgate(&host(&["fetch", "https://a.example/story", "--audit"]));
    assert_eq!(code, 0, "{err}");
    let note = "Note: the direct fetch of https://a.example/story gave nothing usable (a \
                verification or block page), so this text was read through https://r.example/, \
                a third-party reader service that was sent the URL; the page as the site serves \
                it was not seen.";
    assert_eq!(
        out,
        format!(
            "{note}\n\nurl: https://r.example/https://a.example/story\ntruncated: false\n\
             extraction: plain\n\n{article}\n"
        )
    );
    assert!(
        err.contains("\"reader\":{"),
        "the reader's record is in the call's: {err}"
    );
    assert_eq!(paths(&reader), ["/https://a.example/story"]);

    // The same through `call`, as a model's arguments.
    let (code, out, err) = webgate(&host(&[
        "call",
        "web_fetch",
        r#"{"url": "https://a.example/story"}"#,
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(note), "{out}");

    // A 404 is final: the reader is not asked.
    let (code, out, err) = webgate(&host(&["fetch", "https://a.example/gone"]));
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        out,
        "https://a.example/gone answered HTTP 404; try a different URL\n"
    );
    assert_eq!(paths(&reader).len(), 2, "no request for the 404");

    // A prefix the policy would refuse is a usage error at start-up.
    let mut bad = host(&["fetch", "https://a.example/story"]);
    let i = bad
        .iter()
        .position(|a| a == "https://r.example/")
        .expect("prefix");
    bad[i] = "http://r.example/".into();
    let (code, _, err) = webgate(&bad);
    assert_eq!(code, 64, "{err}");
    assert!(err.contains("--reader"), "{err}");
}
