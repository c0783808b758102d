//! `webgate search` as a user runs it, against loopback stub servers that
//! replay each provider's documented JSON (and its documented errors).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::sync::{Arc, Mutex};

/// A one-shot HTTP stub on 127.0.0.1: answers one request with `status`
/// and `body`, records the request line, headers and body, and stops.
struct Stub {
    port: u16,
    seen: Arc<Mutex<String>>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Stub {
    fn start(status: &str, extra_headers: &str, body: &str) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(String::new()));
        let (status, extra, body) = (
            status.to_string(),
            extra_headers.to_string(),
            body.to_string(),
        );
        let record = seen.clone();
        let handle = std::thread::spawn(move || {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            stream
                .set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut req_body = vec![0u8; len];
            reader.read_exact(&mut req_body).unwrap();
            head.push_str("\r\n");
            head.push_str(&String::from_utf8_lossy(&req_body));
            *record.lock().unwrap() = head;
            let mut s = stream;
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        });
        Stub {
            port,
            seen,
            handle: Some(handle),
        }
    }

    fn request(&mut self) -> String {
        if let Some(h) = self.handle.take() {
            h.join().unwrap();
        }
        self.seen.lock().unwrap().clone()
    }
}

fn search(
    provider: &str,
    endpoint: &str,
    key: Option<&str>,
    args: &[&str],
) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_webgate"));
    c.arg("search")
        .args(args)
        .env("WEBGATE_SEARCH_PROVIDER", provider)
        .env("WEBGATE_SEARCH_ENDPOINT", endpoint);
    c.env_remove("WEBGATE_SEARCH_KEY");
    if let Some(k) = key {
        c.env("WEBGATE_SEARCH_KEY", k);
    }
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

const BRAVE_OK: &str = r#"{"type":"search","query":{"original":"rust"},"web":{"type":"search","results":[
 {"title":"The Rust Programming Language","url":"https://www.rust-lang.org/","description":"A language empowering everyone.","age":"August 1, 2024","profile":{"name":"Rust","url":"https://www.rust-lang.org/","long_name":"rust-lang.org"},"extra_snippets":["Fast.","Reliable."]},
 {"title":"Rust (video game)","url":"https://rust.facepunch.com/","description":"Survive."},
 {"title":"Docs","url":"https://doc.rust-lang.org/book/","description":"The book."}]}}"#;

#[test]
fn brave_rows_operators_and_post_filter() {
    let mut stub = Stub::start("200 OK", "", BRAVE_OK);
    let endpoint = format!("http://127.0.0.1:{}/res/v1/web/search", stub.port);
    let (code, out, err) = search(
        "brave",
        &endpoint,
        Some("tok"),
        &[
            "rust",
            "--count",
            "2",
            "--freshness",
            "pw",
            "--country",
            "DE",
            "--safesearch",
            "strict",
            "--include-domain",
            "rust-lang.org",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.trim_end(),
        r#"{"query":"rust","results":[{"title":"The Rust Programming Language","url":"https://www.rust-lang.org/","description":"A language empowering everyone.","age":"August 1, 2024","site_name":"Rust","extra_snippets":["Fast.","Reliable."]},{"title":"Docs","url":"https://doc.rust-lang.org/book/","description":"The book."}]}"#
    );
    let req = stub.request();
    assert!(req.starts_with("GET /res/v1/web/search?q=rust+%28site%3Arust-lang.org%29&count=2&freshness=pw&country=DE&safesearch=strict HTTP/1.1"), "{req}");
    assert!(
        req.to_ascii_lowercase()
            .contains("x-subscription-token: tok"),
        "{req}"
    );
}

#[test]
fn brave_without_web_is_no_results() {
    let mut stub = Stub::start(
        "200 OK",
        "",
        r#"{"type":"search","query":{"original":"zzqx"}}"#,
    );
    let (code, out, _) = search(
        "brave",
        &format!("http://127.0.0.1:{}/s", stub.port),
        Some("k"),
        &["zzqx"],
    );
    stub.request();
    assert_eq!(
        (code, out.trim_end()),
        (0, r#"{"query":"zzqx","results":[]}"#)
    );
}

#[test]
fn brave_422_and_429_map_to_backend_errors() {
    let body = r#"{"type":"ErrorResponse","error":{"status":422,"code":"VALIDATION","detail":"Unable to validate request parameter(s)"}}"#;
    let mut stub = Stub::start("422 Unprocessable Entity", "", body);
    let (code, _, err) = search(
        "brave",
        &format!("http://127.0.0.1:{}/s", stub.port),
        Some("k"),
        &["q"],
    );
    stub.request();
    assert_eq!(
        (code, err.trim_end().to_string()),
        (
            2,
            format!("Backend: web_search: backend returned 422: {body}")
        )
    );
    // The message is the contract's; the wait comes after it, for the host.
    let body = r#"{"type":"ErrorResponse","error":{"status":429,"code":"RATE_LIMITED","detail":"Request rate limit exceeded for plan"}}"#;
    let mut stub = Stub::start("429 Too Many Requests", "Retry-After: 1\r\n", body);
    let (code, _, err) = search(
        "brave",
        &format!("http://127.0.0.1:{}/s", stub.port),
        Some("k"),
        &["q"],
    );
    stub.request();
    assert_eq!(
        (code, err.trim_end().to_string()),
        (
            2,
            format!(
                "Backend: web_search: backend returned 429: {body}\n\
                 webgate: the provider asks to wait 1 s before the next request"
            )
        )
    );
    let mut stub = Stub::start("429 Too Many Requests", "Retry-After: 30\r\n", body);
    let (code, out, _) = search(
        "brave",
        &format!("http://127.0.0.1:{}/s", stub.port),
        Some("k"),
        &["q", "--json"],
    );
    stub.request();
    let text = serde_json::to_string(&format!("web_search: backend returned 429: {body}")).unwrap();
    assert_eq!(
        (code, out.trim_end().to_string()),
        (
            2,
            format!(r#"{{"class":"hard","kind":"Backend","text":{text},"retry_after_s":30}}"#)
        )
    );
}

#[test]
fn searxng_rows_and_parameters() {
    let body = r#"{"query":"rust","number_of_results":0,"results":[
      {"url":"https://www.rust-lang.org/","title":"Rust Programming Language","content":"A language empowering everyone.","engine":"duckduckgo","publishedDate":"2024-08-01T00:00:00"},
      {"url":"https://example.org/rust","title":"Other","content":"","engine":"bing","publishedDate":null}],"answers":[],"suggestions":[]}"#;
    let mut stub = Stub::start("200 OK", "", body);
    let (code, out, err) = search(
        "searxng",
        &format!("http://127.0.0.1:{}/", stub.port),
        None,
        &[
            "rust",
            "--freshness",
            "pm",
            "--search-lang",
            "de",
            "--safesearch",
            "moderate",
            "--exclude-domain",
            "example.org",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.trim_end(),
        r#"{"query":"rust","results":[{"title":"Rust Programming Language","url":"https://www.rust-lang.org/","description":"A language empowering everyone.","age":"2024-08-01T00:00:00"}]}"#
    );
    let req = stub.request();
    assert!(req.starts_with("GET /search?q=rust+-site%3Aexample.org&format=json&time_range=month&language=de&safesearch=1 HTTP/1.1"), "{req}");
}

#[test]
fn searxng_403_explains_the_json_format() {
    let mut stub = Stub::start("403 Forbidden", "", "<html>Forbidden</html>");
    let (code, _, err) = search(
        "searxng",
        &format!("http://127.0.0.1:{}", stub.port),
        None,
        &["q"],
    );
    stub.request();
    assert_eq!(code, 2);
    assert_eq!(
        err.trim_end(),
        "Backend: web_search: backend returned 403: the SearXNG instance refused format=json; allow it by adding json to search.formats in its settings.yml"
    );
    // The explanation replaces the body, not the provider's wait.
    let mut stub = Stub::start("403 Forbidden", "Retry-After: 5\r\n", "Forbidden");
    let (code, out, _) = search(
        "searxng",
        &format!("http://127.0.0.1:{}", stub.port),
        None,
        &["q", "--json"],
    );
    stub.request();
    assert_eq!(code, 2);
    assert!(out.trim_end().ends_with(r#","retry_after_s":5}"#), "{out}");
}

#[test]
fn tavily_rows_request_and_trim() {
    let body = r#"{"query":"rust","answer":null,"images":[],"results":[
      {"title":"Rust","url":"https://www.rust-lang.org/","content":"A language.","score":0.98,"raw_content":null},
      {"title":"Book","url":"https://doc.rust-lang.org/book/","content":"The book.","score":0.9,"raw_content":null,"published_date":"2024-01-02"},
      {"title":"Extra","url":"https://rust.example/","content":"x","score":0.1}],"response_time":1.1}"#;
    let mut stub = Stub::start("200 OK", "", body);
    let (code, out, err) = search(
        "tavily",
        &format!("http://127.0.0.1:{}/search", stub.port),
        Some("tvly-key"),
        &[
            "rust",
            "--count",
            "2",
            "--freshness",
            "py",
            "--include-domain",
            "rust-lang.org",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.trim_end(),
        r#"{"query":"rust","results":[{"title":"Rust","url":"https://www.rust-lang.org/","description":"A language."},{"title":"Book","url":"https://doc.rust-lang.org/book/","description":"The book.","age":"2024-01-02"}]}"#
    );
    let req = stub.request();
    assert!(req.starts_with("POST /search HTTP/1.1"), "{req}");
    assert!(
        req.to_ascii_lowercase()
            .contains("authorization: bearer tvly-key"),
        "{req}"
    );
    assert!(req.ends_with(r#"{"include_domains":["rust-lang.org"],"max_results":2,"query":"rust","time_range":"year"}"#), "{req}");
}

#[test]
fn tavily_401_maps_to_a_backend_error() {
    let body = r#"{"detail":{"error":"Unauthorized: missing or invalid API key."}}"#;
    let mut stub = Stub::start("401 Unauthorized", "", body);
    let (code, _, err) = search(
        "tavily",
        &format!("http://127.0.0.1:{}/search", stub.port),
        Some("bad"),
        &["q"],
    );
    stub.request();
    assert_eq!(
        (code, err.trim_end().to_string()),
        (
            2,
            format!("Backend: web_search: backend returned 401: {body}")
        )
    );
}

#[test]
fn gateway_through_call_with_json_output() {
    let mut stub = Stub::start(
        "200 OK",
        "",
        r#"{"results":[{"title":"T","url":"https://a.example/","description":"D"}]}"#,
    );
    let out = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .args([
            "call",
            "web_search",
            r#"{"query": "q", "count": 1}"#,
            "--json",
        ])
        .env(
            "WEBGATE_SEARCH_ENDPOINT",
            format!("http://127.0.0.1:{}/v1/search", stub.port),
        )
        .env("WEBGATE_SEARCH_KEY", "gk")
        .env_remove("WEBGATE_SEARCH_PROVIDER")
        .output()
        .unwrap();
    let req = stub.request();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim_end(),
        r#"{"class":"ok","kind":null,"text":"{\"query\":\"q\",\"results\":[{\"title\":\"T\",\"url\":\"https://a.example/\",\"description\":\"D\"}]}"}"#
    );
    assert!(req.starts_with("POST /v1/search HTTP/1.1"), "{req}");
    assert!(req.ends_with(r#"{"count":1,"query":"q"}"#), "{req}");
}

#[test]
fn argument_errors_are_hard_and_nothing_is_sent() {
    let (code, out, err) = search("gateway", "http://127.0.0.1:9/never", None, &["  "]);
    assert_eq!(
        (code, out.as_str(), err.trim_end()),
        (
            2,
            "",
            "InvalidArguments: web_search: query must not be empty"
        )
    );
}

#[test]
fn search_not_configured_says_why() {
    let out = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .args(["search", "q"])
        .env_remove("WEBGATE_SEARCH_ENDPOINT")
        .env_remove("WEBGATE_SEARCH_PROVIDER")
        .env_remove("WEBGATE_SEARCH_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("web_search is not offered"));
}
