//! Toolbox calls are audited like the tools: one record per call that
//! reached the network, and the same spans and events as the tools' own
//! audited entry points (refused calls: `refused_audit.rs`). Alone in its test binary: tracing caches each
//! callsite's interest process-wide, and tests running beside it on other
//! threads made the counts flaky.

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
    let Some(record) = &reply.audit else {
        panic!("no fetch record: {:?}", reply.audit);
    };
    let r = record.to_json();
    assert_eq!(r["tool"], "web_fetch");
    assert_eq!(r["id"], "fetch.dns.failed");
    assert_eq!(r["hops"].as_array().map(Vec::len), Some(1));
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
    let Some(record) = &reply.audit else {
        panic!("no search record: {:?}", reply.audit);
    };
    let r = record.to_json();
    assert_eq!((&r["tool"], &r["rows"]), (&json!("web_search"), &json!(1)));
    let s = searcher();
    let (direct_spans, direct_events, _) = traced(&seen, &dispatch, || {
        let s = s.clone();
        let args = search_args.clone();
        async move { s.call_audited(&args).await }
    });
    assert_eq!(spans, direct_spans);
    assert_eq!(events, direct_events);
    assert!(spans.contains(&"web_search".to_string()), "{spans:?}");
}
