//! Loading vectors, running one on the simulated network, and comparing
//! the outcome with its expectation, letter for letter.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use webgate::agent::{AgentOptions, Toolbox};
use webgate::fetch::Fetcher;
use webgate::internals::messages::{FETCH_DESCRIPTION, SEARCH_DESCRIPTION};
use webgate::internals::search::Client;
use webgate::internals::search::Gateway;
use webgate::messages::Class;
use webgate::net::TlsSettings;
use webgate::policy::{DomainRules, Policy};
use webgate::search::Searcher;
use webgate::tool::Outcome;

use crate::ca::TestCa;
use crate::sim::{SimDial, SimResolve};
use crate::vector::{File, Vector};

/// Files that may sit in a vector directory without being vector files.
const DATA_FILES: &[&str] = &[
    "messages.tsv",
    "option-messages.tsv",
    "README.md",
    "expected_failures.txt",
    "robots.tsv",
];

/// A vector with the file it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// `{file stem}/{name}`: unique across the suite.
    pub full_name: String,
    /// The vector.
    pub vector: Vector,
}

/// Loads every `*.toml` file of `dir`. Any other file that is not a known
/// data file, a file that does not parse, or a name used twice is an error:
/// a vector file that is not loaded must never pass silently.
pub fn load_dir(dir: &Path) -> Result<Vec<Loaded>, Vec<String>> {
    let mut errors = Vec::new();
    let mut out = Vec::new();
    let mut names = BTreeSet::new();
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(e) => e.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
        Err(e) => return Err(vec![format!("{}: {e}", dir.display())]),
    };
    entries.sort();
    for path in entries {
        if path.is_dir() {
            continue; // data folders (iana/, extraction fixtures)
        }
        let file_name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            if !DATA_FILES.contains(&file_name.as_str()) {
                errors.push(format!("{}: not a vector file (.toml) and not a known data file; it would not be loaded", path.display()));
            }
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                errors.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let file: File = match toml::from_str(&text) {
            Ok(f) => f,
            Err(e) => {
                errors.push(format!("{}: does not parse: {e}", path.display()));
                continue;
            }
        };
        if file.test.is_empty() {
            errors.push(format!("{}: holds no vector", path.display()));
        }
        for v in file.test {
            let full_name = format!("{stem}/{}", v.name);
            if !names.insert(full_name.clone()) {
                errors.push(format!("{full_name}: two vectors share this name"));
            }
            out.push(Loaded {
                full_name,
                vector: v,
            });
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The message ids of a messages.tsv text.
pub fn message_ids(tsv: &str) -> Vec<String> {
    // Header lines (`id\t…`) are skipped, so two files may be concatenated.
    tsv.lines()
        .filter(|l| !l.starts_with("id\t"))
        .filter_map(|l| l.split('\t').next())
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Ids of `ids` that no vector pins.
pub fn uncovered(ids: &[String], vectors: &[Loaded]) -> Vec<String> {
    let pinned: BTreeSet<&str> = vectors.iter().map(|l| l.vector.id.as_str()).collect();
    ids.iter()
        .filter(|i| !pinned.contains(i.as_str()))
        .cloned()
        .collect()
}

/// What a vector produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actual {
    /// ok / soft / hard.
    pub class: String,
    /// The tool error kind, for hard failures.
    pub kind: Option<String>,
    /// The message ids this outcome pins (its own, and the reason or value
    /// inside it).
    pub ids: Vec<String>,
    /// The whole text.
    pub text: String,
    /// Every dial, in order.
    pub dials: Vec<String>,
    /// The request heads servers received.
    pub requests: Vec<Vec<(String, String)>>,
    /// The call's audit record as JSON (tools that keep one).
    pub audit: Option<serde_json::Value>,
}

/// The ids an outcome pins beyond its own: the redirect reason inside a
/// refusal, the extraction value of a success.
fn derived_ids(o: &Outcome) -> Vec<String> {
    let mut ids = vec![o.id.to_string()];
    if o.id == "fetch.redirect.refused" {
        let reason = o
            .text
            .rsplit_once(" refused: ")
            .map(|(_, r)| r)
            .unwrap_or("");
        let id = if reason.starts_with("redirect limit of ") {
            "fetch.redirect.reason.limit"
        } else if reason == "refusing https to http downgrade" {
            "fetch.redirect.reason.downgrade"
        } else if reason.starts_with("scheme not allowed: ") {
            "fetch.redirect.reason.scheme"
        } else if reason == "url must not contain userinfo" {
            "fetch.redirect.reason.userinfo"
        } else if reason.starts_with("port not allowed: ") {
            "fetch.redirect.reason.port"
        } else if reason.starts_with("ip literal host not allowed: ") {
            "fetch.redirect.reason.ip_literal"
        } else {
            ""
        };
        ids.push(id.to_string());
    }
    if o.id == "option.fetch.robots_unreachable" {
        for (reason, id) in [
            ("(HTTP ", "option.robots.reason.status"),
            ("(timed out)", "option.robots.reason.timeout"),
            ("(network error)", "option.robots.reason.network"),
        ] {
            if o.text.contains(reason) {
                ids.push(id.to_string());
            }
        }
    }
    if o.id == "fetch.ok" {
        for (line, id) in [
            (
                "\nextraction: readability\n",
                "fetch.ok.extraction.readability",
            ),
            ("\nextraction: raw-html\n", "fetch.ok.extraction.raw_html"),
            ("\nextraction: plain\n", "fetch.ok.extraction.plain"),
        ] {
            if o.text.contains(line) {
                ids.push(id.to_string());
            }
        }
    }
    ids
}

/// Runs one vector on a fresh simulated network with tokio's paused clock.
pub fn run(v: &Vector, ca: &TestCa) -> Result<Actual, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        match v.tool.as_str() {
            "catalog" => {
                let text = match v.args.as_str() {
                    "web_fetch" => (FETCH_DESCRIPTION, "fetch.description"),
                    "web_search" => (SEARCH_DESCRIPTION, "search.description"),
                    other => return Err(format!("catalog of unknown tool {other:?}")),
                };
                return Ok(Actual {
                    class: "ok".into(),
                    kind: None,
                    ids: vec![text.1.into()],
                    text: text.0.into(),
                    dials: vec![],
                    requests: vec![],
                    audit: None,
                });
            }
            "web_fetch" | "caller:web_fetch" => {}
            "web_search" => return run_search(v, ca).await,
            "agent:web_fetch" | "agent:web_search" => return run_agent(v, ca).await,
            other => return Err(format!("unknown tool {other:?}")),
        }
        let (fetcher, dial) = sim_fetcher(v, ca)?;
        let args: serde_json::Value =
            serde_json::from_str(&v.args).map_err(|e| format!("args are not JSON: {e}"))?;
        let (o, record) = fetcher.call_audited(&args).await;
        if v.tool == "web_fetch" {
            // The agent layer with every option off must be the contract,
            // text for text: replay the vector through it on a fresh network.
            let (again, _) = sim_fetcher(v, ca)?;
            let toolbox = Arc::new(Toolbox::new(again, None, AgentOptions::default()));
            let reply = toolbox.start_run().fetch(&args).await;
            if reply.outcome != o || reply.model_text != o.text {
                return Err(format!(
                    "the agent layer with default options differs from the tool:\n  tool:  {o:?}\n  agent: {:?}",
                    reply.outcome
                ));
            }
        }
        let mut ids = derived_ids(&o);
        let mut text = o.text.clone();
        if v.tool == "caller:web_fetch" {
            match o.tool_failure() {
                Some(t) => {
                    text = t;
                    ids = vec!["tool.failure".into()];
                }
                None => return Err("caller rendering asked of an outcome that is not hard".into()),
            }
        }
        let dials = dial.dials.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Ok(Actual {
            class: class_name(o.class).into(),
            kind: o.kind.map(|k| k.to_string()),
            ids,
            text,
            dials,
            requests: dial.requests(),
            audit: serde_json::to_value(&record).ok(),
        })
    })
}

/// A fetcher on a fresh simulated network for `v`, with its policy.
fn sim_fetcher(v: &Vector, ca: &TestCa) -> Result<(Fetcher, Arc<SimDial>), String> {
    let resolve = Arc::new(SimResolve::new(&v.dns));
    let dial = Arc::new(SimDial::new(&v.server, &v.dns, ca)?);
    let mut tls = TlsSettings::default();
    tls.add_root(ca.root());
    let mut policy = Policy::default();
    if let Some(m) = v.policy.max_chars {
        policy.max_chars = m;
    }
    if let Some(ms) = v.policy.connect_timeout_ms {
        policy.connect_timeout = std::time::Duration::from_millis(ms);
    }
    if let Some(ms) = v.policy.request_timeout_ms {
        policy.request_timeout = std::time::Duration::from_millis(ms);
    }
    if let Some(c) = v.policy.body_cap {
        policy.body_cap = c;
    }
    if let Some(ns) = v.policy.extract_timeout_ns {
        policy.extract_timeout = std::time::Duration::from_nanos(ns);
    }
    if let Some(ms) = v.policy.call_timeout_ms {
        policy.call_timeout = Some(std::time::Duration::from_millis(ms));
    }
    policy.domains = DomainRules::new(&v.policy.allow_domains, &v.policy.deny_domains)
        .map_err(|e| e.to_string())?;
    policy.robots_txt = v.policy.robots_txt;
    policy.connection_reuse = !v.policy.no_reuse;
    if let Some(n) = v.policy.idle_per_host {
        policy.idle_per_host = n;
    }
    let fetcher = Fetcher::builder()
        .policy(policy)
        .resolver(resolve)
        .dialer(dial.clone())
        .tls(tls)
        .build()
        .map_err(|e| e.to_string())?;
    Ok((fetcher, dial))
}

/// The gateway searcher of `v` over `dial`.
fn sim_searcher(v: &Vector, ca: &TestCa, dial: Arc<SimDial>) -> Result<Searcher, String> {
    let mut tls = TlsSettings::default();
    tls.add_root(ca.root());
    let endpoint = v
        .gateway
        .clone()
        .unwrap_or_else(|| "https://gw.example/search".into());
    let client = Client::new(Policy::default(), &tls)
        .map_err(|e| e.to_string())?
        .with_connect(dial);
    let gateway = Gateway::new(&endpoint, v.key.clone(), client).map_err(|e| e.to_string())?;
    Ok(Searcher::new(Arc::new(gateway)))
}

async fn run_search(v: &Vector, ca: &TestCa) -> Result<Actual, String> {
    let dial = Arc::new(SimDial::new(&v.server, &v.dns, ca)?);
    let searcher = sim_searcher(v, ca, dial.clone())?;
    let args: serde_json::Value =
        serde_json::from_str(&v.args).map_err(|e| format!("args are not JSON: {e}"))?;
    let (o, record) = searcher.call_audited(&args).await;
    let dials = dial.dials.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(Actual {
        class: class_name(o.class).into(),
        kind: o.kind.map(|k| k.to_string()),
        ids: vec![o.id.to_string()],
        text: o.text,
        dials,
        requests: dial.requests(),
        audit: serde_json::to_value(&record).ok(),
    })
}

/// A call through the agent layer: the reply's model text (tag written
/// `{tag}`), with the ids it pins and its parts as JSON for `reply` checks.
async fn run_agent(v: &Vector, ca: &TestCa) -> Result<Actual, String> {
    let (fetcher, dial) = sim_fetcher(v, ca)?;
    let searcher = sim_searcher(v, ca, dial.clone())?;
    let a = v.agent.clone().unwrap_or_default();
    let mut options = AgentOptions::default();
    options.envelope = a.envelope;
    options.paging = a.paging;
    options.result_notes = a.result_notes;
    options.block_detection = a.block_detection;
    options.failure_notes = a.failure_notes;
    options.search_budget = a.search_budget;
    options.fetch_budget = a.fetch_budget;
    options.search_aliases = a.search_aliases;
    options.numbered_search = a.numbered_search;
    options.reader_prefix = a.reader.clone();
    let searcher = (!a.no_provider).then_some(searcher);
    let toolbox = Arc::new(Toolbox::new(fetcher, searcher, options));
    let run = Arc::new(toolbox.start_run());
    let tool = v.tool.trim_start_matches("agent:");
    let args: serde_json::Value =
        serde_json::from_str(&v.args).map_err(|e| format!("args are not JSON: {e}"))?;
    // By kind, not by name: a toolbox without a provider does not list
    // web_search, and the vector is about what calling it anyway does.
    let call = |run: Arc<webgate::agent::Run>, args: serde_json::Value, fetch: bool| async move {
        if fetch {
            run.fetch(&args).await
        } else {
            run.search(&args).await
        }
    };
    let fetch = tool == "web_fetch";
    let mut reply = None;
    // The class of every call, in the order they started.
    let mut classes = Vec::new();
    if a.concurrent {
        let calls: Vec<_> = (0..a.calls.unwrap_or(1).max(1))
            .map(|i| {
                let (run, args) = (Arc::clone(&run), args.clone());
                let wait = std::time::Duration::from_millis(a.stagger_ms.saturating_mul(i as u64));
                tokio::spawn(async move {
                    tokio::time::sleep(wait).await;
                    call(run, args, fetch).await
                })
            })
            .collect();
        for c in calls {
            let r = c.await.map_err(|e| format!("a call panicked: {e}"))?;
            classes.push(class_name(r.outcome.class));
            reply = Some(r);
        }
    } else {
        for _ in 0..a.calls.unwrap_or(1).max(1) {
            let r = call(Arc::clone(&run), args.clone(), fetch).await;
            classes.push(class_name(r.outcome.class));
            reply = Some(r);
        }
    }
    // OK because the loop ran at least once.
    let reply = reply.expect("one call");
    let mut text = reply.model_text.clone();
    let mut ids = vec![reply.outcome.id.to_string()];
    ids.extend(reply.notes.iter().map(|n| n.id().to_string()));
    for n in &reply.notes {
        if let webgate::messages::Note::Empty { why } = n {
            ids.push(why.id().to_string());
        }
        if let webgate::messages::Note::ReadThrough { why, .. } = n {
            ids.push(why.id().to_string());
        }
    }
    ids.extend(derived_ids(&reply.outcome).into_iter().skip(1));
    if let Some(rest) = text.split_once("\n<<<quoted ").map(|(_, r)| r) {
        let tag = rest.split_once(">>>").map(|(t, _)| t).unwrap_or("");
        if tag.len() < 12 || !tag.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!("envelope tag {tag:?} is not 12+ hex characters"));
        }
        text = text.replace(tag, "{tag}");
        ids.extend(
            [
                "option.envelope.header",
                "option.envelope.open",
                "option.envelope.close",
            ]
            .map(String::from),
        );
        ids.push(
            if tool == "web_fetch" {
                "option.envelope.source.page"
            } else {
                "option.envelope.source.search"
            }
            .into(),
        );
    }
    if reply.model_text.contains("… [truncated ") {
        ids.push("option.paging.marker".into());
    }
    let summary_id = match reply.summary.as_str() {
        s if s.starts_with("searched for '") => "option.action.searched",
        "searched the web" => "option.action.searched_the_web",
        s if s.starts_with("opened ") => "option.action.opened",
        _ => "option.action.tried_to_open",
    };
    ids.push(summary_id.into());
    if reply.outcome.text.starts_with("No results found for '") {
        ids.push("option.search.no_results".into());
    }
    if reply
        .outcome
        .text
        .contains(" refused: host not allowed by domain policy: ")
    {
        ids.push("option.redirect.reason.domain".into());
    }
    let parts = serde_json::json!({
        "meta": webgate::internals::agent::meta_json(&reply),
        "notes": reply.notes.iter().map(|n| n.id()).collect::<Vec<_>>(),
        "summary": reply.summary,
        "rows": reply.rows.as_ref().map(Vec::len),
        "tools": run.tools().iter().map(|d| d.name.clone()).collect::<Vec<_>>(),
        "calls": classes,
        "audit": reply
            .audit
            .as_ref()
            .and_then(|a| serde_json::from_str::<serde_json::Value>(&a.to_json_line()).ok()),
    });
    let dials = dial.dials.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(Actual {
        class: class_name(reply.outcome.class).into(),
        kind: reply.outcome.kind.map(|k| k.to_string()),
        ids,
        text,
        dials,
        requests: dial.requests(),
        audit: Some(parts),
    })
}

fn class_name(c: Class) -> &'static str {
    match c {
        Class::Ok => "ok",
        Class::Soft => "soft",
        Class::Hard => "hard",
    }
}

/// Compares an outcome with the vector's expectation; the error says what
/// differs, with the first differing place of long texts.
pub fn compare(v: &Vector, a: &Actual) -> Result<(), String> {
    let mut problems = Vec::new();
    if !a.ids.iter().any(|i| i == &v.id) {
        problems.push(format!(
            "pins id {:?}, but the outcome is {:?}",
            v.id, a.ids
        ));
    }
    if a.class != v.expect.class {
        problems.push(format!(
            "class: expected {}, got {}",
            v.expect.class, a.class
        ));
    }
    if a.kind != v.expect.kind {
        problems.push(format!(
            "kind: expected {:?}, got {:?}",
            v.expect.kind, a.kind
        ));
    }
    if a.text != v.expect.text {
        problems.push(text_diff(&v.expect.text, &a.text));
    }
    if let Some(d) = &v.expect.dials {
        if &a.dials != d {
            problems.push(format!("dials: expected {d:?}, got {:?}", a.dials));
        }
    }
    if let Some(h) = &v.expect.request_headers {
        let got: Vec<Vec<(String, String)>> = a
            .requests
            .iter()
            .map(|r| {
                r.iter()
                    .filter(|(k, _)| !k.starts_with(':'))
                    .cloned()
                    .collect()
            })
            .collect();
        if got.iter().any(|r| r != h) || got.is_empty() {
            problems.push(format!("request headers: expected {h:?}, got {got:?}"));
        }
    }
    if let Some(want) = &v.expect.requests {
        let got: Vec<String> = a
            .requests
            .iter()
            .filter_map(|r| r.iter().find(|(k, _)| k == ":request"))
            .map(|(_, line)| line.split(' ').nth(1).unwrap_or_default().to_string())
            .collect();
        if &got != want {
            problems.push(format!("requests: expected {want:?}, got {got:?}"));
        }
    }
    if let Some(want) = &v.expect.connections {
        let got: Vec<usize> = a
            .requests
            .iter()
            .filter_map(|r| r.iter().find(|(k, _)| k == ":conn"))
            .filter_map(|(_, n)| n.parse().ok())
            .collect();
        if &got != want {
            problems.push(format!("connections: expected {want:?}, got {got:?}"));
        }
    }
    if let Some(b) = &v.expect.request_body {
        let got = a
            .requests
            .first()
            .and_then(|r| r.iter().find(|(k, _)| k == ":body"))
            .map(|(_, v)| v.as_str());
        if got != Some(b.as_str()) {
            problems.push(format!("request body: expected {b:?}, got {got:?}"));
        }
    }
    if let Some(checks) = &v.expect.audit {
        problems.extend(audit_problems(checks, a.audit.as_ref()));
    }
    if let Some(checks) = &v.expect.reply {
        problems.extend(audit_problems(checks, a.audit.as_ref()));
    }
    if let Some(absent) = &v.expect.audit_absent {
        let line = a.audit.as_ref().map(|r| r.to_string()).unwrap_or_default();
        for word in absent {
            if line.contains(word.as_str()) {
                problems.push(format!("audit record shows {word:?}: {line}"));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Each `[JSON pointer, JSON value]` must hold in the audit record.
fn audit_problems(checks: &[(String, String)], record: Option<&serde_json::Value>) -> Vec<String> {
    let Some(record) = record else {
        return vec!["audit expected, but the tool kept no record".into()];
    };
    checks
        .iter()
        .filter_map(|(pointer, want)| {
            let want: serde_json::Value = match serde_json::from_str(want) {
                Ok(w) => w,
                Err(e) => return Some(format!("audit {pointer}: expectation is not JSON: {e}")),
            };
            let got = record.pointer(pointer);
            (got != Some(&want)).then(|| {
                format!(
                    "audit {pointer}: expected {want}, got {}",
                    got.map(|g| g.to_string())
                        .unwrap_or_else(|| "nothing".into())
                )
            })
        })
        .collect()
}

fn text_diff(expected: &str, actual: &str) -> String {
    if expected.len() + actual.len() < 400 {
        return format!("text:\n  expected: {expected:?}\n  actual:   {actual:?}");
    }
    let at = expected
        .chars()
        .zip(actual.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let window = |s: &str| -> String { s.chars().skip(at.saturating_sub(40)).take(120).collect() };
    format!(
        "text differs at character {at} (expected {} chars, actual {}):\n  expected: …{:?}…\n  actual:   …{:?}…",
        expected.chars().count(),
        actual.chars().count(),
        window(expected),
        window(actual)
    )
}

/// `expected_failures.txt`: `full name<TAB or spaces>reason` lines.
pub fn expected_failures(dir: &Path) -> Result<BTreeMap<String, String>, String> {
    let path = dir.join("expected_failures.txt");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(BTreeMap::new());
    };
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        if reason.trim().is_empty() {
            return Err(format!(
                "{}:{}: an expected failure needs a reason",
                path.display(),
                n + 1
            ));
        }
        out.insert(name.to_string(), reason.trim().to_string());
    }
    Ok(out)
}
