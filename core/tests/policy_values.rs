//! No value a host can put in a `Policy` panics: every one either fails
//! `Policy::validate` (and then every builder refuses it with the typed
//! error) or runs, durations up to `Duration::MAX` and counts up to their
//! type's maximum included. A runtime without the timer is an error too.

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use webgate::fetch::Fetcher;
use webgate::internals::net::StaticResolve;
use webgate::messages::SetupError;
use webgate::net::TlsSettings;
use webgate::policy::Policy;

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        Just(Duration::ZERO),
        Just(Duration::from_nanos(1)),
        Just(Duration::from_millis(1)),
        Just(Duration::MAX),
        (0u64..=u64::MAX, 0u32..1_000_000_000).prop_map(|(s, n)| Duration::new(s, n)),
    ]
}

fn count<T: Arbitrary + Copy + 'static>(edges: Vec<T>) -> impl Strategy<Value = T> {
    prop_oneof![proptest::sample::select(edges), any::<T>()]
}

fn user_agent() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("harness-webfetch/0.0".to_string()),
        Just(String::new()),
        Just("bad\r\nInjected: yes".to_string()),
        Just("caf\u{e9}".to_string()),
        any::<String>(),
        "[ -~]{1,40}",
    ]
}

prop_compose! {
    fn policy()(
        ports in proptest::collection::vec(any::<u16>(), 0..3),
        max_chars in count(vec![0usize, 1, usize::MAX]),
        body_cap in count(vec![0u64, 1, u64::MAX]),
        connect in duration(),
        request in duration(),
        extract in duration(),
        search in duration(),
        redirects in count(vec![0u32, 1, u32::MAX]),
        search_cap in count(vec![0u64, 1, u64::MAX]),
        cut in count(vec![0usize, usize::MAX]),
        ua in user_agent(),
        robots in any::<bool>(),
        reuse in any::<bool>(),
        per_host in count(vec![0usize, 1, usize::MAX]),
        idle_total in count(vec![0usize, 1, usize::MAX]),
        idle in duration(),
    ) -> Policy {
        let mut p = Policy::default();
        p.ports = ports;
        p.max_chars = max_chars;
        p.body_cap = body_cap;
        p.connect_timeout = connect;
        p.request_timeout = request;
        p.extract_timeout = extract;
        p.search_deadline = search;
        p.max_redirects = redirects;
        p.search_body_cap = search_cap;
        p.search_error_cut = cut;
        p.user_agent = ua;
        p.robots_txt = robots;
        p.connection_reuse = reuse;
        p.idle_per_host = per_host;
        p.idle_total = idle_total;
        p.idle_timeout = idle;
        p
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn no_policy_value_panics(p in policy()) {
        let valid = p.validate();
        let _ = p.worst_case_duration();
        let built = Fetcher::builder()
            .policy(p.clone())
            .resolver(Arc::new(StaticResolve::new(HashMap::new())))
            .build();
        let client = webgate::internals::search::Client::new(p.clone(), &TlsSettings::default());
        match valid {
            Err(e) => {
                // The builder and the search client refuse it with the same
                // error (SetupError is not PartialEq: some variants hold causes).
                prop_assert_eq!(built.map(|_| ()).unwrap_err().to_string(), e.to_string());
                prop_assert_eq!(client.map(|_| ()).unwrap_err().to_string(), e.to_string());
            }
            Ok(()) => {
                let f = built.expect("a valid policy builds");
                prop_assert!(client.is_ok());
                // A name with no answer: the whole call path runs, no network.
                let out = rt().block_on(f.call(&serde_json::json!({"url": "https://nowhere.example/"})));
                prop_assert!(out.id == "fetch.dns.failed" || out.id == "fetch.url.port", "{out:?}");
            }
        }
    }
}

#[test]
fn the_validation_names_the_field() {
    let mut p = Policy::default();
    p.request_timeout = Duration::ZERO;
    assert!(matches!(
        p.validate(),
        Err(SetupError::PolicyZeroDuration("request_timeout"))
    ));
    let mut p = Policy::default();
    p.user_agent = "a\nb".into();
    assert!(matches!(p.validate(), Err(SetupError::PolicyUserAgent)));
    let e = Fetcher::builder().policy(p).build().unwrap_err();
    assert_eq!(
        e.to_string(),
        "policy: user_agent must be a valid HTTP header value (visible ASCII and spaces)"
    );
    assert!(matches!(e, SetupError::PolicyUserAgent), "{e:?}");
}

#[test]
fn a_runtime_without_the_timer_is_an_error_not_a_panic() {
    let no_timer = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("runtime");
    let built = no_timer.block_on(async {
        Fetcher::builder()
            .resolver(Arc::new(StaticResolve::new(HashMap::new())))
            .build()
    });
    assert!(matches!(built, Err(SetupError::NoTimer)), "{built:?}");
    // Built elsewhere, called there: a failed call.
    let f = Fetcher::builder()
        .resolver(Arc::new(StaticResolve::new(HashMap::new())))
        .build()
        .expect("fetcher");
    let out = no_timer.block_on(f.call(&serde_json::json!({"url": "https://a.example/"})));
    assert_eq!(out.id, "fetch.net.failed", "{out:?}");
    // The search path too: a failed call, not a panic in the provider.
    let client =
        webgate::internals::search::Client::new(Policy::default(), &TlsSettings::default())
            .expect("client");
    let gateway =
        webgate::internals::search::Gateway::new("https://gw.example/search", None, client)
            .expect("gateway");
    let searcher = webgate::search::Searcher::new(Arc::new(gateway));
    let (out, _) = no_timer.block_on(searcher.call_audited(&serde_json::json!({"query": "q"})));
    assert_eq!(out.id, "search.net.request", "{out:?}");
}
