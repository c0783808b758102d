//! `webgate mcp` as a host relies on it, driven by the official Rust MCP
//! client (rmcp, not written by this project): titles and annotations,
//! `outputSchema` and `structuredContent`, progress notifications at each
//! phase, cancellation that closes the origin's connection and gives the
//! budget back, budgets that refusals do not spend, and the bounds of the
//! kept connections as host options.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest,
    ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};
use webgate_conformance::ca::{CertKind, TestCa};
use webgate_conformance::hostile::{HostileServer, Script, Step};

const PUBLIC: &str = "93.184.216.34";

/// A client that keeps every progress notification it is sent.
#[derive(Clone, Default)]
struct Recorder {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The host options that reach `server` for `a.example` and `b.example`.
struct Host {
    args: Vec<String>,
    pem: std::path::PathBuf,
}

impl Host {
    fn new(ca: &TestCa, server: &HostileServer, extra: &[&str]) -> Host {
        let pem = std::env::temp_dir().join(format!(
            "webgate-mcp-host-{}-{}.pem",
            std::process::id(),
            server.port
        ));
        std::fs::write(&pem, ca.root_pem()).unwrap();
        let mut args: Vec<String> = vec![
            "--resolve".into(),
            format!("a.example={PUBLIC}"),
            "--resolve".into(),
            format!("b.example={PUBLIC}"),
            "--connect-to".into(),
            format!("{PUBLIC}:443=127.0.0.1:{}", server.port),
            "--ca-file".into(),
            pem.display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        Host { args, pem }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.pem);
    }
}

async fn spawn(host: &Host, recorder: Recorder) -> RunningService<RoleClient, Recorder> {
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_webgate")).configure(|cmd| {
            cmd.arg("mcp")
                .args(&host.args)
                .env_remove("WEBGATE_SEARCH_PROVIDER")
                .env_remove("WEBGATE_SEARCH_KEY");
        }),
    )
    .unwrap();
    recorder.serve(transport).await.unwrap()
}

async fn call(client: &RunningService<RoleClient, Recorder>, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new("web_fetch").with_arguments(args))
        .await
        .unwrap()
}

fn page(body: &str) -> Vec<Step> {
    vec![Step::Write(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )]
}

/// A redirect from a.example to b.example, then an HTML page.
fn redirecting() -> Script {
    Script::Http(
        CertKind::Valid,
        Arc::new(|req: &str| {
            if req.to_ascii_lowercase().contains("host: a.example") {
                vec![Step::Write(
                    b"HTTP/1.1 302 Found\r\nLocation: https://b.example/page\r\nContent-Length: 0\r\n\r\n"
                        .to_vec(),
                )]
            } else {
                page("<html><head><title>The page</title></head><body><article><p>Hello from the page, a paragraph long enough to read.</p></article></body></html>")
            }
        }),
    )
}

#[test]
fn tools_carry_titles_annotations_and_output_schemas() {
    let ca = TestCa::new();
    let server = HostileServer::start(&ca, &["a.example", "b.example"], redirecting());
    let host = Host::new(&ca, &server, &[]);
    runtime().block_on(async {
        let client = spawn(&host, Recorder::default()).await;
        let tools = client.list_all_tools().await.unwrap();
        let fetch = &tools[0];
        assert_eq!(fetch.name, "web_fetch");
        assert_eq!(fetch.title.as_deref(), Some("Fetch a web page"));
        let a = fetch.annotations.as_ref().expect("annotations");
        assert_eq!(a.read_only_hint, Some(true));
        assert_eq!(a.destructive_hint, Some(false));
        assert_eq!(a.open_world_hint, Some(true));
        let input = Value::Object((*fetch.input_schema).clone());
        assert_eq!(input["additionalProperties"], json!(true));
        // Every argument says what it is for.
        for t in &tools {
            let schema = Value::Object((*t.input_schema).clone());
            for (name, p) in schema["properties"].as_object().unwrap() {
                assert!(
                    p["description"].is_string(),
                    "{}: {name} has no description",
                    t.name
                );
            }
        }
        let output = Value::Object((**fetch.output_schema.as_ref().expect("outputSchema")).clone());
        assert_eq!(output["required"], json!(["outcome", "id"]));

        // ok: the structured result is the metadata; the text is unchanged.
        let r = call(&client, json!({"url": "https://a.example/"})).await;
        let s = r.structured_content.clone().expect("structuredContent");
        assert_eq!(s["outcome"], "ok");
        assert_eq!(s["id"], "fetch.ok");
        assert_eq!(s["url"], "https://a.example/");
        // What the server and the page wrote sits under `untrusted` only.
        assert_eq!(s["untrusted"]["resolved_url"], "https://b.example/page");
        assert_eq!(s["untrusted"]["title"], "The page");
        assert_eq!(s.get("title"), None);
        assert_eq!(s["truncated"], false);
        assert_eq!(s["offset"], 0);
        let text: String = r
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        let (_, body) = webgate::internals::agent::unwrap(&text).expect("an envelope");
        assert!(body.starts_with("url: https://b.example/page\n"), "{text}");
        assert_eq!(
            s["total_length"].as_u64().unwrap() as usize,
            s["returned_length"].as_u64().unwrap() as usize
        );
        // Every key is one the schema names.
        let props = output["properties"].as_object().unwrap();
        for k in s.as_object().unwrap().keys() {
            assert!(props.contains_key(k), "{k} is not in the output schema");
        }

        // soft: outcome and id only.
        let r = call(&client, json!({"url": "http://a.example/"})).await;
        assert_eq!(r.is_error, Some(false));
        assert_eq!(
            r.structured_content,
            Some(json!({"outcome": "soft", "id": "fetch.url.scheme"}))
        );
        // hard: a tool error, no structured result.
        let r = call(&client, json!({"url": "https://1.2.3.4/"})).await;
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.structured_content, None);
        client.cancel().await.unwrap();
    });
}

#[test]
fn progress_is_reported_at_every_phase() {
    let ca = TestCa::new();
    let server = HostileServer::start(&ca, &["a.example", "b.example"], redirecting());
    let host = Host::new(&ca, &server, &[]);
    let recorder = Recorder::default();
    let seen = recorder.progress.clone();
    runtime().block_on(async {
        let client = spawn(&host, recorder).await;
        let r = call(&client, json!({"url": "https://a.example/"})).await;
        assert_eq!(r.is_error, Some(false));
        // Notifications may trail the response by a moment.
        tokio::time::sleep(Duration::from_millis(200)).await;
        client.cancel().await.unwrap();
    });
    // The client may handle notifications concurrently: their progress
    // numbers, not their arrival, give the order.
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_by(|a, b| a.progress.total_cmp(&b.progress));
    let messages: Vec<String> = seen
        .iter()
        .map(|p| p.message.clone().unwrap_or_default())
        .collect();
    let want = [
        "looking up a.example",
        "connecting to a.example",
        "requesting https://a.example/",
        "response head: HTTP 302",
        "following redirect 1 to https://b.example/page",
        "looking up b.example",
        "connecting to b.example",
        "requesting https://b.example/page",
        "response head: HTTP 200",
    ];
    assert_eq!(&messages[..want.len()], want, "{messages:?}");
    let rest = &messages[want.len()..];
    assert!(
        rest.iter()
            .any(|m| m.starts_with("received ") && m.ends_with(" bytes")),
        "{messages:?}"
    );
    assert_eq!(
        rest.last().map(String::as_str),
        Some("extracting the text"),
        "{messages:?}"
    );
    // Numbered from 1, rising by one, none lost.
    for (i, p) in seen.iter().enumerate() {
        assert_eq!(p.progress, (i + 1) as f64);
    }
    eprintln!("progress events: {}: {messages:?}", seen.len());
}

/// A call that waits on the network (a server silent for 11 s before its
/// head) keeps reporting: its last phase again, at least every 5 s, so a
/// client whose timeout resets on progress keeps waiting.
#[test]
fn a_waiting_call_keeps_reporting_progress() {
    let ca = TestCa::new();
    let body = "<html><body><p>An answer that took its time to come.</p></body></html>";
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let server = HostileServer::start(
        &ca,
        &["a.example"],
        Script::Http(
            CertKind::Valid,
            Arc::new(move |_| {
                vec![
                    Step::Sleep(Duration::from_secs(11)),
                    Step::Write(head.clone().into_bytes()),
                ]
            }),
        ),
    );
    let host = Host::new(&ca, &server, &["--request-timeout-ms", "30000"]);
    let recorder = Recorder::default();
    let seen = recorder.progress.clone();
    runtime().block_on(async {
        let client = spawn(&host, recorder).await;
        let r = call(&client, json!({"url": "https://a.example/"})).await;
        assert_eq!(r.is_error, Some(false));
        tokio::time::sleep(Duration::from_millis(200)).await;
        client.cancel().await.unwrap();
    });
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_by(|a, b| a.progress.total_cmp(&b.progress));
    let waiting: Vec<String> = seen
        .iter()
        .filter_map(|p| p.message.clone())
        .filter(|m| m == "requesting https://a.example/ (still waiting)")
        .collect();
    assert!(waiting.len() >= 2, "{seen:?}");
    for (i, p) in seen.iter().enumerate() {
        assert_eq!(p.progress, (i + 1) as f64);
    }
}

#[test]
fn a_cancelled_fetch_closes_the_connection_and_spends_no_budget() {
    let ca = TestCa::new();
    // A body of 200 bytes dripped over 20 s: the fetch is mid-body when
    // the client cancels.
    let head =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 200\r\n\r\n".to_vec();
    let server = HostileServer::start(
        &ca,
        &["a.example"],
        Script::Http(
            CertKind::Valid,
            Arc::new(move |_| {
                vec![
                    Step::Write(head.clone()),
                    Step::Drip(vec![b'x'; 200], Duration::from_millis(100)),
                ]
            }),
        ),
    );
    let host = Host::new(
        &ca,
        &server,
        &["--fetch-budget", "1", "--request-timeout-ms", "30000"],
    );
    let recorder = Recorder::default();
    let seen = recorder.progress.clone();
    runtime().block_on(async {
        let client = spawn(&host, recorder).await;
        let Value::Object(args) = json!({"url": "https://a.example/"}) else {
            unreachable!()
        };
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new("web_fetch").with_arguments(args),
        ));
        let handle = client
            .peer()
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .unwrap();
        // Wait until the body is arriving.
        let started = Instant::now();
        while !seen
            .lock()
            .unwrap()
            .iter()
            .any(|p| p.message.as_deref() == Some("response head: HTTP 200"))
        {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "no response head"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(server.ended.load(Ordering::SeqCst), 0);
        let cancelled = Instant::now();
        handle
            .cancel(Some("the user stopped it".into()))
            .await
            .unwrap();
        while server.ended.load(Ordering::SeqCst) == 0 {
            assert!(
                cancelled.elapsed() < Duration::from_secs(3),
                "the origin's connection is still open after the cancel"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        eprintln!(
            "cancellation latency (cancel sent → origin saw the close): {} ms",
            cancelled.elapsed().as_millis()
        );
        // The budget of one was given back: the tool is still offered.
        let tools = client.list_all_tools().await.unwrap();
        assert!(
            tools.iter().any(|t| t.name == "web_fetch"),
            "the cancel spent the budget"
        );
        client.cancel().await.unwrap();
    });
}

#[test]
fn refusals_spend_no_budget_over_mcp() {
    let ca = TestCa::new();
    let server = HostileServer::start(&ca, &["a.example", "b.example"], redirecting());
    let host = Host::new(&ca, &server, &["--fetch-budget", "1"]);
    runtime().block_on(async {
        let client = spawn(&host, Recorder::default()).await;
        for url in [
            "http://a.example/",
            "https://a.example:81/",
            "https://[::1]/",
        ] {
            call(&client, json!({ "url": url })).await;
        }
        let tools = client.list_all_tools().await.unwrap();
        assert!(
            tools.iter().any(|t| t.name == "web_fetch"),
            "a refusal spent the budget"
        );
        let r = call(&client, json!({"url": "https://a.example/"})).await;
        assert_eq!(r.is_error, Some(false));
        let tools = client.list_all_tools().await.unwrap();
        assert!(!tools.iter().any(|t| t.name == "web_fetch"));
        client.cancel().await.unwrap();
    });
}

/// Protocol 2026-07-28: `tools/list_changed` arrives on the client's
/// `subscriptions/listen` stream when a budget withdraws a tool.
#[test]
fn a_listening_client_of_2026_07_28_hears_the_tool_list_change() {
    use rmcp::model::{
        ClientConfig, Implementation, ProtocolVersion, ServerNotification, SubscriptionFilter,
    };
    let ca = TestCa::new();
    let server = HostileServer::start(&ca, &["a.example", "b.example"], redirecting());
    let host = Host::new(&ca, &server, &["--fetch-budget", "1"]);
    runtime().block_on(async {
        let transport = TokioChildProcess::new(
            tokio::process::Command::new(env!("CARGO_BIN_EXE_webgate")).configure(|cmd| {
                cmd.arg("mcp")
                    .args(&host.args)
                    .env_remove("WEBGATE_SEARCH_PROVIDER");
            }),
        )
        .unwrap();
        let info = ClientConfig::new(Default::default(), Implementation::new("test", "1"));
        let client = rmcp::service::serve_client_with_lifecycle(
            info,
            transport,
            rmcp::service::ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
        let negotiated = client.peer_info().unwrap().protocol_version.clone();
        assert_eq!(negotiated, ProtocolVersion::V_2026_07_28);
        let mut sub = client
            .peer()
            .listen(SubscriptionFilter::builder().tools_list_changed().build())
            .await
            .unwrap();
        assert_eq!(sub.acknowledged().tools_list_changed, Some(true));
        let Value::Object(args) = json!({"url": "https://a.example/"}) else {
            unreachable!()
        };
        let r = client
            .call_tool(CallToolRequestParams::new("web_fetch").with_arguments(args))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(false));
        let n = tokio::time::timeout(Duration::from_secs(5), sub.next())
            .await
            .expect("a notification on the stream")
            .unwrap();
        assert!(
            matches!(n, Some(ServerNotification::ToolListChangedNotification(_))),
            "{n:?}"
        );
        client.cancel().await.unwrap();
    });
}

/// JSON-RPC errors as the specification has them, at the process's own
/// stdin and stdout: -32700 with `"id": null` for a line that is not
/// JSON, -32602 for `tools/call` without a name, -32600 for a second
/// `initialize` and for a line over 16 MiB (the next line still read).
#[test]
fn json_rpc_errors_come_back_as_the_specification_says() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .arg("mcp")
        .env_remove("WEBGATE_SEARCH_PROVIDER")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut stdin = child.stdin.take().unwrap();
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"ping\",\"pad\":\"{}\"}}",
        "x".repeat(17 << 20)
    );
    let writer = std::thread::spawn(move || {
        for line in [
            init,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "this is not json",
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}"#,
            &init.replace("\"id\":1", "\"id\":3"),
            &huge,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#,
        ] {
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        // Time for the answers before the end of input ends the session.
        std::thread::sleep(Duration::from_millis(500));
    });
    writer.join().unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let _ = child.wait();
    // Why search is missing, said once.
    assert!(
        err.starts_with("webgate mcp: web_search is not offered: "),
        "{err}"
    );
    assert_eq!(err.matches("not offered").count(), 1, "{err}");
    let replies: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_id = |id: Value| replies.iter().find(|r| r["id"] == id).cloned();
    let errors_with_null_id: Vec<i64> = replies
        .iter()
        .filter(|r| r.as_object().unwrap().contains_key("id") && r["id"].is_null())
        .map(|r| r["error"]["code"].as_i64().unwrap())
        .collect();
    assert_eq!(errors_with_null_id, [-32700, -32600], "{out}");
    assert_eq!(by_id(json!(2)).unwrap()["error"]["code"], -32602);
    assert_eq!(by_id(json!(3)).unwrap()["error"]["code"], -32600);
    assert!(by_id(json!(1)).unwrap()["result"].is_object());
    assert!(
        by_id(json!(4)).unwrap()["result"]["tools"].is_array(),
        "{out}"
    );
    assert!(by_id(json!(99)).is_none());
}

/// A session of `version` at the process's stdin and stdout: each of
/// `lines` is written once the reply before it is in (initialize first),
/// and the reply lines are returned, parsed. A line marked `false` must
/// get no answer: a ping after it must be answered first.
fn raw_session(version: &str, lines: &[(&str, bool)]) -> Vec<Value> {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_webgate"))
        .arg("mcp")
        .env_remove("WEBGATE_SEARCH_PROVIDER")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str::<Value>(&line).unwrap());
        }
    });
    let next = || rx.recv_timeout(Duration::from_secs(30)).ok();
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    writeln!(stdin, "{init}").unwrap();
    let ready = next().unwrap();
    assert_eq!(ready["result"]["protocolVersion"], version);
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    let mut replies = Vec::new();
    for (line, answered) in lines {
        writeln!(stdin, "{line}").unwrap();
        if *answered {
            replies.push(next().unwrap());
        } else {
            writeln!(stdin, r#"{{"jsonrpc":"2.0","id":"after","method":"ping"}}"#).unwrap();
            let r = next().unwrap();
            assert_eq!(
                r["id"], "after",
                "a batch of notifications got an answer: {r}"
            );
        }
    }
    drop(stdin);
    let _ = child.wait();
    replies
}

/// Protocol 2025-03-26 allows JSON-RPC batches: the replies to a batch's
/// requests come back as one array (errors for its bad members in place,
/// nothing for its notifications, nothing at all for a batch of
/// notifications); an empty batch is one error. 2025-06-18 refuses them.
#[test]
fn batches_are_answered_under_2025_03_26_and_refused_after() {
    let r = raw_session(
        "2025-03-26",
        &[
            (
                r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}},7,{"jsonrpc":"2.0","id":"p","method":"ping"},{"jsonrpc":"2.0","id":"p","method":"ping"},{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}]"#,
                true,
            ),
            (
                r#"[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]"#,
                false,
            ),
            ("[]", true),
            (r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, true),
        ],
    );
    let batch = r[0].as_array().expect("one array for the batch");
    let find = |id: Value| batch.iter().find(|m| m["id"] == id).unwrap();
    assert_eq!(batch.len(), 5, "{batch:?}");
    assert!(find(json!(1))["result"]["tools"].is_array());
    let pings: Vec<&Value> = batch.iter().filter(|m| m["id"] == "p").collect();
    assert!(pings.iter().any(|m| m["result"].is_object()));
    assert!(pings.iter().any(|m| m["error"]["code"] == -32600));
    assert_eq!(find(json!(9))["error"]["code"], -32600);
    assert_eq!(find(Value::Null)["error"]["code"], -32600);
    assert_eq!(
        (r[1]["id"].clone(), r[1]["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
    assert!(r[2]["result"].is_object());

    let r = raw_session(
        "2025-06-18",
        &[(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, true)],
    );
    assert_eq!(
        (r[0]["id"].clone(), r[0]["error"]["code"].clone()),
        (Value::Null, json!(-32600))
    );
    assert!(r[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("2025-03-26"));
}

/// `--log debug` shows webgate's events with query strings redacted, and
/// the MCP SDK's own events (which print whole messages, arguments
/// included) only from warnings up, unless `--reveal-queries`.
#[test]
fn debug_logs_do_not_leak_query_strings() {
    let ca = TestCa::new();
    let server = HostileServer::start(&ca, &["a.example", "b.example"], redirecting());
    for reveal in [false, true] {
        let mut extra = vec!["--log", "debug"];
        if reveal {
            extra.push("--reveal-queries");
        }
        let host = Host::new(&ca, &server, &extra);
        let log = std::env::temp_dir().join(format!(
            "webgate-mcp-log-{}-{reveal}.log",
            std::process::id()
        ));
        let file = std::fs::File::create(&log).unwrap();
        runtime().block_on(async {
            let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_webgate"));
            cmd.arg("mcp")
                .args(&host.args)
                .env_remove("WEBGATE_SEARCH_PROVIDER");
            let (transport, _) = TokioChildProcess::builder(cmd)
                .stderr(std::process::Stdio::from(file))
                .spawn()
                .unwrap();
            let client = Recorder::default().serve(transport).await.unwrap();
            let r = call(
                &client,
                json!({"url": "https://a.example/?token=s3cr3t-value"}),
            )
            .await;
            assert_eq!(r.is_error, Some(false));
            client.cancel().await.unwrap();
        });
        let text = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_file(&log);
        assert!(text.contains("webgate"), "no events were logged: {text}");
        assert_eq!(
            text.contains("s3cr3t-value"),
            reveal,
            "reveal={reveal}: {text}"
        );
    }
}

/// The pool's bounds are host options: an `mcp` session keeps the
/// connection of one fetch for the next to the same host (one connection
/// for two fetches), and with `--idle-per-host 0`, `--idle-total 0` or
/// `--idle-timeout-ms 0` keeps none (each fetch dials).
#[test]
fn the_kept_connections_are_a_host_option() {
    let plain = Script::Http(
        CertKind::Valid,
        Arc::new(|_: &str| {
            page("<html><head><title>Kept</title></head><body><p>A paragraph long enough to be read as the page's text.</p></body></html>")
        }),
    );
    for (extra, dials) in [
        (&[][..], 1),
        (&["--idle-per-host", "0"][..], 2),
        (&["--idle-total", "0"][..], 2),
        (&["--idle-timeout-ms", "0"][..], 2),
    ] {
        let ca = TestCa::new();
        let server = HostileServer::start(&ca, &["a.example"], plain.clone());
        let host = Host::new(&ca, &server, extra);
        runtime().block_on(async {
            let client = spawn(&host, Recorder::default()).await;
            for _ in 0..2 {
                let r = call(&client, json!({"url": "https://a.example/"})).await;
                assert_eq!(r.is_error, Some(false), "{extra:?}: {r:?}");
            }
            client.cancel().await.unwrap();
        });
        assert_eq!(
            server.connections.load(Ordering::SeqCst),
            dials,
            "{extra:?}"
        );
    }
}
