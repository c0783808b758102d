//! Every call of a `Run` has its audit record, a call refused before the
//! network too: the record the tool's own audited entry point writes
//! (what `webgate call --audit` prints), time aside. Apart from
//! `toolbox_tracing.rs`, whose span counts a second test beside it would
//! disturb (tracing caches each callsite's interest process-wide).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::json;
use webgate::agent::{AgentOptions, Toolbox};
use webgate::args::SearchArgs;
use webgate::fetch::Fetcher;
use webgate::internals::net::StaticResolve;
use webgate::messages::{SearchError, SearchRow};
use webgate::net::BoxFuture;
use webgate::policy::Policy;
use webgate::search::{Provider, Report, Searcher};

/// A provider that answers one row.
struct Counting(AtomicUsize);

impl Provider for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
        _report: &'a Report,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        let row = SearchRow {
            title: args.query.clone(),
            url: "https://r.example/".into(),
            ..Default::default()
        };
        Box::pin(async move { Ok(vec![row]) })
    }
}

fn fetcher(policy: Policy) -> Fetcher {
    Fetcher::builder()
        .policy(policy)
        .resolver(Arc::new(StaticResolve::new(HashMap::new())))
        .build()
        .unwrap()
}

/// A reply's record as JSON, which must be `tool`'s (as the record of a
/// fetch is a fetch's, never a search's).
fn record_of(reply: webgate::agent::ToolReply, tool: &str) -> serde_json::Value {
    let Some(record) = reply.audit else {
        panic!("{tool}: no record ({})", reply.model_text);
    };
    let r = record.to_json();
    assert_eq!(r["tool"], tool, "{r}");
    r
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A call refused before the network has its record too, the one the
/// tool's own audited entry point (`webgate call --audit`) writes, time
/// aside: the SSRF attempts a host most wants to see are refused ones.
#[test]
fn refused_calls_have_the_tools_own_record() {
    let mut budget = AgentOptions::default();
    budget.fetch_budget = Some(1);
    budget.search_budget = Some(1);
    budget.paging = true;
    let searcher = || Searcher::new(Arc::new(Counting(AtomicUsize::new(0))));
    let tb = Arc::new(Toolbox::new(
        fetcher(Policy::default()),
        Some(searcher()),
        budget,
    ));
    let direct = fetcher(Policy::default());
    let rt = rt();
    // Two records of the same call, alike but for the time they took.
    let untimed = |mut v: serde_json::Value| {
        v["total_ms"] = json!(0.0);
        v
    };
    for (args, id) in [
        (json!({"url": "https://127.0.0.1/"}), "fetch.url.ip_literal"),
        (
            json!({"url": "https://169.254.169.254/latest/"}),
            "fetch.url.ip_literal",
        ),
        (json!({"url": "http://a.example/"}), "fetch.url.scheme"),
        (
            json!({"url": "https://u:p@a.example/"}),
            "fetch.url.userinfo",
        ),
        (json!({"url": "https://a.example:8443/"}), "fetch.url.port"),
        (
            json!({"url": "https://a.example/", "max_chars": 0}),
            "fetch.arg.max_chars",
        ),
        (json!({"nourl": 1}), "fetch.arg.url"),
    ] {
        let run = tb.start_run();
        let reply = rt.block_on(run.fetch(&args));
        let r = record_of(reply, "web_fetch");
        assert_eq!(r["id"], id, "{args}");
        let (_, own) = rt.block_on(direct.call_audited(&args));
        assert_eq!(untimed(r), untimed(own.to_json()));
        // Refused before the network: no budget spent.
        assert_eq!(run.tools().len(), 2, "{args}");
    }
    // The agent layer's own refusals are recorded with their ids.
    let run = tb.start_run();
    let reply = rt.block_on(run.fetch(&json!({"url": "https://a.example/", "offset": -1})));
    let r = record_of(reply, "web_fetch");
    assert_eq!(
        (&r["id"], &r["args_refused"]),
        (&json!("option.fetch.offset"), &json!("option.fetch.offset"))
    );
    let _ = rt.block_on(run.fetch(&json!({"url": "https://nowhere.example/"})));
    let reply = rt.block_on(run.fetch(&json!({"url": "https://nowhere.example/"})));
    let r = record_of(reply, "web_fetch");
    assert_eq!(
        (&r["id"], &r["class"]),
        (&json!("option.fetch.budget"), &json!("hard"))
    );
    // Search: arguments refused, as the searcher's own record says.
    let reply = rt.block_on(run.search(&json!({"query": " "})));
    let r = record_of(reply, "web_search");
    assert_eq!(r["id"], "search.arg.query_empty");
    let (_, own) = rt.block_on(searcher().call_audited(&json!({"query": " "})));
    assert_eq!(untimed(r), untimed(own.to_json()));
    let _ = rt.block_on(run.search(&json!({"query": "one"})));
    let reply = rt.block_on(run.search(&json!({"query": "two"})));
    assert_eq!(record_of(reply, "web_search")["id"], "option.search.budget");
    // No provider: the record says so.
    let none = Arc::new(Toolbox::new(
        fetcher(Policy::default()),
        None,
        AgentOptions::default(),
    ));
    let reply = rt.block_on(none.start_run().search(&json!({"query": "x"})));
    let r = record_of(reply, "web_search");
    assert_eq!(
        (&r["provider"], &r["id"]),
        (&json!("none"), &json!("option.search.unavailable"))
    );
}
