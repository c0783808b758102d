//! `webgate mcp --http` under hostile requests, raw HTTP/1.1 on loopback:
//! no token, a wrong one, a foreign `Origin`, a rebinding `Host`, an
//! oversized body, a path that is not `/mcp`, a thousand sessions and one
//! more, and the set-up refused on a non-loopback address without a
//! token. The official SDK's session over this transport is in
//! `tests/mcp.rs`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(args: &[&str]) -> Server {
    static SERVERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SERVERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let token_file =
        std::env::temp_dir().join(format!("webgate-mcp-http-{}-{n}.token", std::process::id()));
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .args(["mcp", "--http", "127.0.0.1:0", "--token-file"])
        .arg(&token_file)
        .args(args)
        .env_remove("WEBGATE_SEARCH_PROVIDER")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let port = loop {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "the server ended");
        if let Some(url) = line
            .trim()
            .strip_prefix("webgate mcp: serving MCP over Streamable HTTP at http://127.0.0.1:")
        {
            break url.trim_end_matches("/mcp").parse().unwrap();
        }
    };
    let _ = std::fs::remove_file(&token_file);
    // Keep reading stderr so that the server never blocks on it.
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    Server { child, port }
}

/// One request on its own connection: the status and the response.
fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    // A body the server refuses may be cut short: write what it takes.
    let _ = s.write_all(body.as_bytes());
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {out:?}"));
    (status, out)
}

fn bearer() -> String {
    format!("Bearer {TOKEN}")
}

fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    response.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap()
        * 1024
}

#[test]
fn hostile_requests_get_their_answers() {
    let s = start(&["--allow-origin", "http://localhost:6274"]);
    let auth = bearer();
    let ok = |h: &[(&str, &str)]| request(s.port, "POST", "/mcp", h, INIT);

    let (status, r) = ok(&[]);
    assert_eq!(status, 401, "no token: {r}");
    assert_eq!(header(&r, "www-authenticate"), Some("Bearer"));
    let wrong = format!("Bearer {}", TOKEN.replace('0', "1"));
    assert_eq!(ok(&[("Authorization", &wrong)]).0, 401, "a wrong token");
    assert_eq!(
        ok(&[("Authorization", TOKEN)]).0,
        401,
        "a token without its scheme"
    );

    let (status, r) = ok(&[("Authorization", &auth), ("Origin", "https://evil.example")]);
    assert_eq!(status, 403, "a foreign Origin: {r}");
    let (status, r) = ok(&[
        ("Authorization", &auth),
        ("Origin", "http://localhost:6274"),
    ]);
    assert_eq!(status, 200, "the allowed Origin: {r}");

    // DNS rebinding: a name that resolved to 127.0.0.1 for the attacker.
    let (status, r) = {
        let mut conn = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        write!(
            conn,
            "POST /mcp HTTP/1.1\r\nHost: rebind.attacker.example\r\nConnection: close\r\n\
             Authorization: {auth}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{INIT}",
            INIT.len()
        )
        .unwrap();
        let mut out = String::new();
        let _ = conn.read_to_string(&mut out);
        (out.split(' ').nth(1).unwrap().parse::<u16>().unwrap(), out)
    };
    assert_eq!(status, 403, "a foreign Host on loopback: {r}");

    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","pad":"{}"}}"#,
        "x".repeat(2 << 20)
    );
    let (status, r) = request(s.port, "POST", "/mcp", &[("Authorization", &auth)], &huge);
    assert_eq!(status, 413, "an oversized body: {}", &r[..r.len().min(200)]);

    assert_eq!(
        request(s.port, "POST", "/other", &[("Authorization", &auth)], INIT).0,
        404
    );
    // The server is still serving.
    assert_eq!(ok(&[("Authorization", &auth)]).0, 200);
}

/// A thousand sessions are served and the next one is told to wait;
/// closing one makes room. Prints the memory a session holds.
#[test]
fn sessions_are_bounded() {
    const N: usize = 1000;
    let s = start(&["--max-sessions", "1000"]);
    let auth = bearer();
    let before = rss(s.child.id());
    let mut ids = std::collections::HashSet::new();
    for _ in 0..N {
        let (status, r) = request(s.port, "POST", "/mcp", &[("Authorization", &auth)], INIT);
        assert_eq!(status, 200, "{r}");
        ids.insert(
            header(&r, "mcp-session-id")
                .expect("a session id")
                .to_string(),
        );
    }
    assert_eq!(ids.len(), N);
    let after = rss(s.child.id());
    eprintln!(
        "{N} sessions: {} KiB more resident memory, {} KiB a session",
        after.saturating_sub(before) / 1024,
        after.saturating_sub(before) / 1024 / N as u64
    );
    let (status, r) = request(s.port, "POST", "/mcp", &[("Authorization", &auth)], INIT);
    assert_eq!(status, 503, "one past the bound: {r}");
    assert!(header(&r, "retry-after").is_some());
    let one = ids.iter().next().unwrap().clone();
    let (status, _) = request(
        s.port,
        "DELETE",
        "/mcp",
        &[("Authorization", &auth), ("Mcp-Session-Id", &one)],
        "",
    );
    assert!(status == 200 || status == 202 || status == 204, "{status}");
    // The session table lets go of it in its own time.
    let mut opened = false;
    for _ in 0..50 {
        if request(s.port, "POST", "/mcp", &[("Authorization", &auth)], INIT).0 == 200 {
            opened = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(opened, "a closed session makes room for a new one");
}

/// `--stateless`: no session id, and a request without one is served.
#[test]
fn stateless_serves_each_request_on_its_own() {
    let s = start(&["--stateless"]);
    let auth = bearer();
    let (status, r) = request(s.port, "POST", "/mcp", &[("Authorization", &auth)], INIT);
    assert_eq!(status, 200, "{r}");
    assert!(header(&r, "mcp-session-id").is_none(), "{r}");
    let (status, r) = request(
        s.port,
        "POST",
        "/mcp",
        &[
            ("Authorization", &auth),
            ("MCP-Protocol-Version", "2025-06-18"),
        ],
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(status, 200, "{r}");
    assert!(r.contains("web_fetch"), "{r}");
}

#[test]
fn a_public_address_needs_a_token() {
    let out = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .args(["mcp", "--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs --token-file"), "{err}");
}
