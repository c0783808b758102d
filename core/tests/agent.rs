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
use webgate::messages::{SearchError, SearchRow};
use webgate::net::{BoxFuture, StaticResolve};
use webgate::policy::Policy;
use webgate::search::{Provider, Searcher};

/// A provider that counts calls and answers one row.
struct Counting(AtomicUsize);

impl Provider for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
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

/// Counts the spans (by name) and events a call makes.
#[derive(Default)]
struct Seen {
    spans: std::sync::Mutex<Vec<String>>,
    events: AtomicUsize,
    next: AtomicUsize,
}

/// The subscriber over a shared [`Seen`].
struct SeenBy(Arc<Seen>);

impl tracing::Subscriber for SeenBy {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::always()
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        self.0
            .spans
            .lock()
            .unwrap()
            .push(span.metadata().name().to_string());
        tracing::span::Id::from_u64(self.0.next.fetch_add(1, Ordering::SeqCst) as u64 + 1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {
        self.0.events.fetch_add(1, Ordering::SeqCst);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// What a call traces: the span names and the number of events, beside
/// its output. One subscriber for the whole test, set up once (tracing
/// caches each callsite's interest process-wide), its counts cleared for
/// each call.
fn traced<F: std::future::Future>(
    seen: &Arc<Seen>,
    dispatch: &tracing::Dispatch,
    f: impl FnOnce() -> F,
) -> (Vec<String>, usize, F::Output) {
    seen.spans.lock().unwrap().clear();
    seen.events.store(0, Ordering::SeqCst);
    let out = tracing::dispatcher::with_default(dispatch, || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(f())
    });
    let spans = seen.spans.lock().unwrap().clone();
    (spans, seen.events.load(Ordering::SeqCst), out)
}

/// Every `Toolbox` call that reaches the network gives one audit record,
/// and the same span and events as the tool's own audited entry point.
#[test]
fn toolbox_calls_are_audited_like_the_tools() {
    let seen = Arc::new(Seen::default());
    let dispatch = tracing::Dispatch::new(SeenBy(seen.clone()));
    let searcher = || Searcher::new(Arc::new(Counting(AtomicUsize::new(0))));
    let tb = Arc::new(Toolbox::new(
        fetcher(Policy::default()),
        Some(searcher()),
        AgentOptions::default(),
    ));
    let fetch_args = json!({"url": "https://nowhere.example/"});
    let (spans, events, reply) = traced(&seen, &dispatch, || {
        let tb = tb.clone();
        let args = fetch_args.clone();
        async move { tb.start_run().fetch(&args).await }
    });
    let Some(webgate::agent::CallAudit::Fetch(record)) = &reply.audit else {
        panic!("no fetch record: {:?}", reply.audit);
    };
    assert_eq!(record.id, "fetch.dns.failed");
    assert_eq!(record.hops.len(), 1);
    let f = fetcher(Policy::default());
    let (direct_spans, direct_events, _) = traced(&seen, &dispatch, || {
        let f = f.clone();
        async move {
            f.fetch_audited("https://nowhere.example/", Default::default())
                .await
        }
    });
    assert_eq!(spans, direct_spans);
    assert_eq!(events, direct_events);
    assert!(spans.contains(&"web_fetch".to_string()), "{spans:?}");

    let search_args = json!({"query": "rust"});
    let (spans, events, reply) = traced(&seen, &dispatch, || {
        let tb = tb.clone();
        let args = search_args.clone();
        async move { tb.start_run().search(&args).await }
    });
    let Some(webgate::agent::CallAudit::Search(record)) = &reply.audit else {
        panic!("no search record: {:?}", reply.audit);
    };
    assert_eq!(record.rows, Some(1));
    let s = searcher();
    let (direct_spans, direct_events, _) = traced(&seen, &dispatch, || {
        let s = s.clone();
        let args = search_args.clone();
        async move { s.call_audited(&args).await }
    });
    assert_eq!(spans, direct_spans);
    assert_eq!(events, direct_events);
    assert!(spans.contains(&"web_search".to_string()), "{spans:?}");

    // Refused before the network: no record, and no budget spent.
    let reply = rt().block_on(tb.start_run().fetch(&json!({"url": "http://a.example/"})));
    assert!(reply.audit.is_none());
}
