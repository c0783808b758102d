//! The agent layer without a network: aliases keep the tools' own message
//! prefixes, budgets hold under concurrent calls, descriptors follow the
//! policy and the options.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::json;
use webgate::agent::{AgentOptions, ToolKind, Toolbox};
use webgate::args::SearchArgs;
use webgate::fetch::Fetcher;
use webgate::internals::net::StaticResolve;
use webgate::messages::{SearchError, SearchRow};
use webgate::net::BoxFuture;
use webgate::policy::Policy;
use webgate::search::{Provider, Report, Searcher};

/// A provider that counts calls and answers one row.
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
        Box::pin(async move {
            tokio::task::yield_now().await;
            Ok(vec![row])
        })
    }
}

fn fetcher(policy: Policy) -> Fetcher {
    Fetcher::builder()
        .policy(policy)
        .resolver(Arc::new(StaticResolve::new(HashMap::new())))
        .build()
        .unwrap()
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn aliases_rename_the_tools_but_not_their_messages() {
    let mut o = AgentOptions::default();
    o.fetch_name = Some("read_page".into());
    o.fetch_description = Some("Read a page.".into());
    o.search_name = Some("find".into());
    let provider = Arc::new(Counting(AtomicUsize::new(0)));
    let tb = Arc::new(Toolbox::new(
        fetcher(Policy::default()),
        Some(Searcher::new(provider)),
        o,
    ));
    let names: Vec<_> = tb
        .descriptors()
        .into_iter()
        .map(|d| (d.name, d.kind))
        .collect();
    assert_eq!(
        names,
        [
            ("read_page".to_string(), ToolKind::Fetch),
            ("find".to_string(), ToolKind::Search)
        ]
    );
    assert_eq!(tb.descriptors()[0].description, "Read a page.");
    rt().block_on(async {
        let run = tb.start_run();
        let r = run.call("read_page", &json!({})).await.unwrap();
        assert!(r.is_error());
        assert_eq!(r.model_text, "web_fetch: missing url argument");
        let r = run.call("find", &json!({"query": ""})).await.unwrap();
        assert_eq!(r.model_text, "web_search: query must not be empty");
        assert!(run.call("web_fetch", &json!({})).await.is_err());
    });
}

#[test]
fn the_search_budget_holds_under_concurrent_calls() {
    let mut o = AgentOptions::default();
    o.search_budget = Some(8);
    let provider = Arc::new(Counting(AtomicUsize::new(0)));
    let tb = Arc::new(Toolbox::new(
        fetcher(Policy::default()),
        Some(Searcher::new(provider.clone())),
        o,
    ));
    let run = Arc::new(tb.start_run());
    let replies = rt().block_on(async {
        let tasks: Vec<_> = (0..32)
            .map(|i| {
                let run = run.clone();
                tokio::spawn(async move { run.search(&json!({ "query": format!("q{i}") })).await })
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    });
    let ok = replies.iter().filter(|r| !r.is_error()).count();
    assert_eq!(ok, 8);
    assert_eq!(provider.0.load(Ordering::SeqCst), 8);
    assert_eq!(
        replies.iter().filter(|r| !r.notes.is_empty()).count(),
        1,
        "exactly one reply says the budget is now spent"
    );
    assert!(replies
        .iter()
        .filter(|r| r.is_error())
        .all(|r| r.model_text == "web_search: this run's search budget (8) is spent"));
    assert_eq!(run.tools().len(), 1);
    // A new run has a new budget.
    assert_eq!(tb.start_run().tools().len(), 2);
}

#[test]
fn descriptors_follow_the_policy_and_the_options() {
    let mut p = Policy::default();
    p.max_chars = 1234;
    let tb = Toolbox::new(fetcher(p), None, AgentOptions::all());
    let d = tb.descriptors();
    assert_eq!(d.len(), 1, "no provider, no search tool");
    assert_eq!(d[0].schema["properties"]["max_chars"]["maximum"], 1234);
    assert_eq!(d[0].schema["properties"]["offset"]["minimum"], 0);
    let tb = Toolbox::new(fetcher(Policy::default()), None, AgentOptions::default());
    assert!(tb.descriptors()[0].schema["properties"]
        .get("offset")
        .is_none());
}

/// A host's "no limit" (`Duration::MAX`) is a deadline that never comes,
/// not a panic in the deadline arithmetic; the error types compose with
/// `Box<dyn Error>`.
#[test]
fn unbounded_limits_do_not_panic_and_errors_compose() {
    let mut p = Policy::default();
    p.request_timeout = std::time::Duration::MAX;
    p.connect_timeout = std::time::Duration::MAX;
    let f = fetcher(p);
    let r = rt().block_on(f.fetch("https://nowhere.example/", Default::default()));
    let e = r.unwrap_err();
    assert_eq!(e.id(), "fetch.dns.failed");
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(e);
    assert_eq!(
        boxed.to_string(),
        "dns resolution failed for nowhere.example"
    );
    let _: Box<dyn std::error::Error> = Box::new(webgate::messages::SearchError::Request);
}
