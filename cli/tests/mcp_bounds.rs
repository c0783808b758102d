//! `webgate mcp` under a client that sends faster than it reads, and a
//! cancel followed at once by the next call: raw JSON-RPC lines on the
//! server's stdin, as a hostile or careless client writes them.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use webgate_conformance::ca::{CertKind, TestCa};
use webgate_conformance::hostile::{HostileServer, Script, Step};

const PUBLIC: &str = "93.184.216.34";

const INIT: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

/// The peak resident memory of process `pid` so far (`VmHWM`), bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    kb * 1024
}

/// 20,000 pipelined `tools/list` requests, written before a single reply
/// is read: the server stops reading once its requests in flight are at
/// the bound (`--max-concurrent-calls`), answers every one once the
/// client reads, and its peak memory stays under 64 MiB (it was 316 MiB
/// with nothing bounding the replies queued).
#[test]
fn pipelined_requests_make_the_server_wait_not_grow() {
    const N: usize = 20_000;
    let mut child = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .arg("mcp")
        .env_remove("WEBGATE_SEARCH_PROVIDER")
        .env_remove("WEBGATE_SEARCH_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(INIT.as_bytes()).unwrap();
        let mut batch = String::new();
        for i in 0..N {
            batch.push_str(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/list\"}}\n"
            ));
        }
        // Blocks while the server is at its bound and nobody reads.
        stdin.write_all(batch.as_bytes()).unwrap();
        stdin
    });
    // Let the server reach its bound with nobody reading its replies.
    std::thread::sleep(Duration::from_millis(500));
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut answered = 0;
    let mut line = String::new();
    while answered < N {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "the server ended");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"].is_number() {
            assert!(v["result"]["tools"].is_array(), "{line}");
            answered += 1;
        }
    }
    let peak = peak_rss(pid);
    drop(writer.join().unwrap());
    let _ = child.wait();
    eprintln!("{N} pipelined requests: peak {} MiB", peak >> 20);
    assert!(peak < 64 << 20, "peak {} MiB", peak >> 20);
}

/// A call cancelled and followed at once by the next one: the cancel is
/// carried out (the call's budget unit given back) before the next line
/// is read, so with `--fetch-budget 1` the next call is never refused as
/// over budget. 24 rounds in one session, every line written at once.
#[test]
fn a_cancelled_calls_budget_is_back_before_the_next_call() {
    let ca = TestCa::new();
    // a.example answers slowly (the calls are cancelled mid-way);
    // b.example answers at once.
    let server = HostileServer::start(
        &ca,
        &["a.example", "b.example"],
        Script::Http(
            CertKind::Valid,
            Arc::new(|req: &str| {
                if req.to_ascii_lowercase().contains("host: a.example") {
                    vec![Step::Sleep(Duration::from_secs(30))]
                } else {
                    let body = "<html><body><p>The page that answers at once.</p></body></html>";
                    vec![Step::Write(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        )
                        .into_bytes(),
                    )]
                }
            }),
        ),
    );
    let pem = std::env::temp_dir().join(format!("webgate-mcp-bounds-{}.pem", std::process::id()));
    std::fs::write(&pem, ca.root_pem()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .args(["mcp", "--fetch-budget", "1", "--resolve"])
        .arg(format!("a.example={PUBLIC}"))
        .arg("--resolve")
        .arg(format!("b.example={PUBLIC}"))
        .arg("--connect-to")
        .arg(format!("{PUBLIC}:443=127.0.0.1:{}", server.port))
        .arg("--ca-file")
        .arg(&pem)
        .env_remove("WEBGATE_SEARCH_PROVIDER")
        .env_remove("WEBGATE_SEARCH_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = String::from(INIT);
    let call = |id: usize, url: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "web_fetch", "arguments": {"url": url}}})
        .to_string()
    };
    for id in 1..=24 {
        lines.push_str(&call(id, "https://a.example/"));
        lines.push('\n');
        lines.push_str(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": id}})
            .to_string(),
        );
        lines.push('\n');
    }
    lines.push_str(&call(100, "https://b.example/"));
    lines.push('\n');
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(lines.as_bytes()).unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let last = loop {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "the server ended");
        let v: Value = serde_json::from_str(&line).unwrap();
        assert!(
            !line.contains("is spent"),
            "a cancelled call kept its unit: {line}"
        );
        if v["id"] == 100 {
            break v;
        }
    };
    drop(stdin);
    let _ = child.wait();
    let _ = std::fs::remove_file(&pem);
    assert_eq!(last["result"]["isError"], false, "{last}");
    let text = last["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("The page that answers at once."), "{text}");
}
