//! The default seams over real sockets on loopback: a real TLS server with
//! a test CA, a real DNS server whose answer changes between queries, and
//! the CLI driven as a user would with `--resolve`, `--connect-to`,
//! `--dns-server` and `--ca-file`. The policy stays on: the public address
//! a name resolves to is vetted, and only then is the socket sent to the
//! loopback server. Servers stop by themselves.

use std::net::{SocketAddr, UdpSocket};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use webgate_conformance::ca::TestCa;
use webgate_conformance::loopback::LoopbackServer;

const PUBLIC: &str = "93.184.216.34";

/// A TLS server on 127.0.0.1 answering every request with `body` as
/// text/plain; it stops when dropped.
fn tls_server(ca: &TestCa, names: &[&str], body: &str) -> LoopbackServer {
    LoopbackServer::start(
        ca,
        names,
        "Content-Type: text/plain\r\n",
        body.as_bytes().to_vec(),
    )
}

fn ca_file(ca: &TestCa) -> tempfile_path::Path {
    tempfile_path::write(&ca.root_pem())
}

/// A tiny temporary-file helper (no extra crate for one file).
mod tempfile_path {
    pub struct Path(pub std::path::PathBuf);
    impl Drop for Path {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    pub fn write(text: &str) -> Path {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "webgate-ca-{}-{}.pem",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::write(&p, text).unwrap();
        Path(p)
    }
}

fn webgate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .args(args)
        // Proxy variables are ignored: prove it by setting them.
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("https_proxy", "http://127.0.0.1:9")
        .env("ALL_PROXY", "http://127.0.0.1:9")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn fetch_through_resolve_and_connect_to() {
    let ca = TestCa::new();
    let server = tls_server(&ca, &["a.example"], "hello over real TLS\n");
    let pem = ca_file(&ca);
    let resolve = format!("a.example={PUBLIC}");
    let connect = format!("{PUBLIC}:443=127.0.0.1:{}", server.port);
    let (code, out, err) = webgate(&[
        "fetch",
        "https://a.example/page?q=1#frag",
        "--resolve",
        &resolve,
        "--connect-to",
        &connect,
        "--ca-file",
        pem.0.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "url: https://a.example/page?q=1\ntruncated: false\nextraction: plain\n\nhello over real TLS\n\n");
}

#[test]
fn call_json_output() {
    let ca = TestCa::new();
    let server = tls_server(&ca, &["a.example"], "json");
    let pem = ca_file(&ca);
    let resolve = format!("a.example={PUBLIC}");
    let connect = format!("{PUBLIC}:443=127.0.0.1:{}", server.port);
    let (code, out, _) = webgate(&[
        "call",
        "web_fetch",
        r#"{"url":"https://a.example/","max_chars":2}"#,
        "--json",
        "--resolve",
        &resolve,
        "--connect-to",
        &connect,
        "--ca-file",
        pem.0.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out.trim_end(),
        r#"{"class":"ok","kind":null,"text":"url: https://a.example/\ntruncated: true\nextraction: plain\n\njs"}"#
    );
}

#[test]
fn a_blocked_answer_is_never_dialled_even_with_a_mapping() {
    let ca = TestCa::new();
    let server = tls_server(&ca, &["a.example"], "must not be read");
    let pem = ca_file(&ca);
    // The mapping's source is blocked: accepted, and never used.
    let connect = format!("127.0.0.1:443=127.0.0.1:{}", server.port);
    let (code, out, err) = webgate(&[
        "fetch",
        "https://a.example/",
        "--resolve",
        "a.example=127.0.0.1,::1,10.0.0.1",
        "--connect-to",
        &connect,
        "--ca-file",
        pem.0.to_str().unwrap(),
    ]);
    assert_eq!(
        (code, out.as_str(), err.trim_end()),
        (
            2,
            "",
            "InvalidArguments: host a.example has no allowed address"
        )
    );
    assert_eq!(server.connections.load(Ordering::SeqCst), 0);
}

#[test]
fn an_empty_resolve_list_is_an_answer_with_no_address() {
    let (code, _, err) = webgate(&["fetch", "https://a.example/", "--resolve", "a.example="]);
    assert_eq!(
        (code, err.trim_end()),
        (2, "InvalidArguments: host a.example has no allowed address")
    );
}

#[test]
fn an_untrusted_certificate_is_a_network_error() {
    let ca = TestCa::new();
    let server = tls_server(&ca, &["a.example"], "x");
    let resolve = format!("a.example={PUBLIC}");
    let connect = format!("{PUBLIC}:443=127.0.0.1:{}", server.port);
    // No --ca-file: the test CA is not trusted.
    let (code, out, _) = webgate(&[
        "fetch",
        "https://a.example/",
        "--resolve",
        &resolve,
        "--connect-to",
        &connect,
    ]);
    assert_eq!(
        (code, out.trim_end()),
        (
            1,
            "fetch failed for https://a.example/: network error; try a different URL"
        )
    );
}

#[test]
fn bad_network_options_are_usage_errors() {
    for args in [
        vec!["fetch", "https://a.example/", "--resolve", "a.example"],
        vec![
            "fetch",
            "https://a.example/",
            "--resolve",
            "a.example=not-an-ip",
        ],
        vec!["fetch", "https://a.example/", "--connect-to", "1.2.3.4:443"],
        vec![
            "fetch",
            "https://a.example/",
            "--connect-to",
            "1.2.3.4=127.0.0.1:1",
        ],
        vec![
            "fetch",
            "https://a.example/",
            "--ca-file",
            "/nonexistent/ca.pem",
        ],
        vec!["call", "web_fetch", "{not json"],
        vec!["call", "web_nothing", "{}"],
    ] {
        assert_eq!(webgate(&args).0, 64, "{args:?}");
    }
}

/// An authoritative DNS responder on 127.0.0.1 for one name: A queries
/// get the next address of `answers` (the last repeats), AAAA queries an
/// empty NOERROR answer. Stops after 20 s.
fn dns_server(name: &'static str, answers: Vec<[u8; 4]>) -> (SocketAddr, Arc<AtomicUsize>) {
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let addr = sock.local_addr().unwrap();
    let a_queries = Arc::new(AtomicUsize::new(0));
    let count = a_queries.clone();
    std::thread::spawn(move || {
        let start = std::time::Instant::now();
        let mut buf = [0u8; 512];
        while start.elapsed() < Duration::from_secs(20) {
            let Ok((n, from)) = sock.recv_from(&mut buf) else {
                continue;
            };
            let q = &buf[..n];
            if n < 12 {
                continue;
            }
            // Question: labels, then qtype and qclass.
            let mut i = 12;
            let mut labels = Vec::new();
            while i < n && q[i] != 0 {
                let l = q[i] as usize;
                labels.push(
                    String::from_utf8_lossy(&q[i + 1..(i + 1 + l).min(n)]).to_ascii_lowercase(),
                );
                i += 1 + l;
            }
            if i + 5 > n {
                continue;
            }
            let qtype = u16::from_be_bytes([q[i + 1], q[i + 2]]);
            let question_end = i + 5;
            let ours = labels.join(".") == name;
            let mut resp = Vec::new();
            resp.extend_from_slice(&q[..2]); // id
            let rcode = if ours { 0 } else { 3 }; // NOERROR or NXDOMAIN
            resp.extend_from_slice(&[0x84, rcode]); // QR AA; rcode in the low bits
            let answer = ours && qtype == 1;
            resp.extend_from_slice(&[0, 1, 0, answer as u8, 0, 0, 0, 0]);
            resp.extend_from_slice(&q[12..question_end]);
            if answer {
                let k = count.fetch_add(1, Ordering::SeqCst);
                let ip = answers[k.min(answers.len() - 1)];
                resp.extend_from_slice(&[0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4]);
                resp.extend_from_slice(&ip);
            }
            let _ = sock.send_to(&resp, from);
        }
    });
    (addr, a_queries)
}

#[test]
fn a_real_dns_server_that_rebinds_between_requests() {
    let ca = TestCa::new();
    let server = tls_server(&ca, &["rebind.example"], "first answer was public");
    let pem = ca_file(&ca);
    let (dns, queries) = dns_server("rebind.example", vec![[93, 184, 216, 34], [127, 0, 0, 1]]);
    let dns = dns.to_string();
    let connect = format!("{PUBLIC}:443=127.0.0.1:{}", server.port);
    let args = [
        "fetch",
        "https://rebind.example/",
        "--dns-server",
        &dns,
        "--connect-to",
        &connect,
        "--ca-file",
        pem.0.to_str().unwrap(),
    ];
    let (code, out, err) = webgate(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("\n\nfirst answer was public\n"), "{out}");
    // The same name now answers 127.0.0.1: refused, whatever the TTL said.
    let (code, _, err) = webgate(&args);
    assert_eq!(
        (code, err.trim_end()),
        (
            2,
            "InvalidArguments: host rebind.example has no allowed address"
        )
    );
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
    assert!(queries.load(Ordering::SeqCst) >= 2);
    // A name the server does not know is NXDOMAIN: a soft failure.
    let (code, out, _) = webgate(&["fetch", "https://other.example/", "--dns-server", &dns]);
    assert_eq!(
        (code, out.trim_end()),
        (1, "dns resolution failed for other.example")
    );
}

#[test]
fn one_fetcher_re_resolves_every_request() {
    use webgate::fetch::Fetcher;
    use webgate::internals::net::{RemappedDial, TcpDial};
    use webgate::net::{HickoryResolve, TlsSettings};
    let ca = TestCa::new();
    let server = tls_server(&ca, &["again.example"], "public");
    let (dns, _) = dns_server("again.example", vec![[93, 184, 216, 34], [10, 0, 0, 7]]);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut tls = TlsSettings::default();
        tls.add_root(ca.root());
        let to: SocketAddr = format!("127.0.0.1:{}", server.port).parse().unwrap();
        let fetcher = Fetcher::builder()
            .resolver(Arc::new(HickoryResolve::server(dns).unwrap()))
            .dialer(Arc::new(RemappedDial::new(
                vec![(format!("{PUBLIC}:443").parse().unwrap(), to)],
                TcpDial,
            )))
            .tls(tls)
            .build()
            .unwrap();
        let args = serde_json::json!({"url": "https://again.example/"});
        let first = fetcher.call(&args).await;
        assert_eq!(
            first.text,
            "url: https://again.example/\ntruncated: false\nextraction: plain\n\npublic"
        );
        let second = fetcher.call(&args).await;
        assert_eq!(second.text, "host again.example has no allowed address");
    });
}

#[test]
fn audit_writes_one_json_line_and_leaves_the_output_alone() {
    let ca = TestCa::new();
    let server = tls_server(&ca, &["a.example"], "audited");
    let pem = ca_file(&ca);
    let resolve = format!("a.example=127.0.0.1,{PUBLIC}");
    let connect = format!("{PUBLIC}:443=127.0.0.1:{}", server.port);
    let base = [
        "--resolve",
        &resolve,
        "--connect-to",
        &connect,
        "--ca-file",
        pem.0.to_str().unwrap(),
    ];
    let url = "https://a.example/p?secret=1";
    let plain = webgate(&[&["fetch", url][..], &base].concat());
    let audited = webgate(&[&["fetch", url, "--audit"][..], &base].concat());
    assert_eq!(plain.0, 0, "{}", plain.2);
    assert_eq!((plain.0, &plain.1), (audited.0, &audited.1));
    assert_eq!(plain.2, "");
    let lines: Vec<&str> = audited.2.lines().collect();
    assert_eq!(lines.len(), 1, "{}", audited.2);
    let record: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(record["requested_url"], "https://a.example/p?REDACTED");
    assert_eq!(record["hops"][0]["addresses"][0]["range"], "127.0.0.0/8");
    assert_eq!(record["hops"][0]["addresses"][1]["allowed"], true);
    assert_eq!(
        record["hops"][0]["dials"][0]["addr"],
        format!("{PUBLIC}:443")
    );
    assert_eq!(record["class"], "ok");
    assert!(!audited.2.contains("secret"));

    // A hard failure writes its record too, after the tool error.
    let (code, _, err) = webgate(&[
        "fetch",
        "https://a.example/",
        "--resolve",
        "a.example=10.0.0.1",
        "--audit",
    ]);
    assert_eq!(code, 2);
    let record: serde_json::Value = serde_json::from_str(err.lines().next().unwrap()).unwrap();
    assert_eq!(
        record["hops"][0]["addresses"][0]["range_name"],
        "Private-Use"
    );
    assert_eq!(record["hops"][0]["failed_at"], "vet");
    assert!(err.ends_with("InvalidArguments: host a.example has no allowed address\n"));

    // --reveal-queries is the host's opt-in.
    let revealed = webgate(&[&["fetch", url, "--audit", "--reveal-queries"][..], &base].concat());
    assert!(revealed
        .2
        .contains("\"requested_url\":\"https://a.example/p?secret=1\""));
}

#[test]
fn log_writes_tracing_events_to_stderr_and_redacts() {
    let ca = TestCa::new();
    let server = tls_server(&ca, &["a.example"], "logged");
    let pem = ca_file(&ca);
    let resolve = format!("a.example=192.168.0.9,{PUBLIC}");
    let connect = format!("{PUBLIC}:443=127.0.0.1:{}", server.port);
    let (code, out, err) = webgate(&[
        "fetch",
        "https://a.example/q?password=hunter2",
        "--log",
        "webgate=info",
        "--resolve",
        &resolve,
        "--connect-to",
        &connect,
        "--ca-file",
        pem.0.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("\n\nlogged\n"));
    for needle in [
        "address blocked",
        "range=192.168.0.0/16",
        "address allowed",
        "dial",
        "tls established",
        "response head",
        "body read",
        "web_fetch done",
    ] {
        assert!(err.contains(needle), "no {needle:?} in the log:\n{err}");
    }
    assert!(!err.contains("hunter2"), "{err}");
    let (code, _, err) = webgate(&["fetch", "https://a.example/", "--log", "webgate=[bad"]);
    assert_eq!(code, 64, "{err}");
}
