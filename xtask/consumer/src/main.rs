//! The consumer compile test: vendors `webgate` with `--no-default-features`
//! plus `agent`, brings its own Resolve (there is no hickory), its own
//! search Provider (there are no built-in providers) and its own TLS crypto
//! provider (there is no `ring` feature), uses `?` on every error into
//! `Box<dyn Error>`, and reads an audit record through Toolbox.
//! Exits 0 when everything a vendor needs worked.

#![forbid(unsafe_code)]

use std::error::Error;
use std::net::IpAddr;
use std::sync::Arc;

use webgate::agent::{AgentOptions, Toolbox};
use webgate::args::SearchArgs;
use webgate::fetch::Fetcher;
use webgate::messages::{SearchError, SearchRow, SetupError};
use webgate::net::{BoxFuture, LookupFailed, Resolve, TlsSettings};
use webgate::policy::{DomainRules, Policy};
use webgate::search::{Provider, Report, Searcher};

/// The host's own search backend; it reports its backend's answer
/// through the seam, as an HTTP provider would.
struct Canned;

impl Provider for Canned {
    fn name(&self) -> &'static str {
        "canned"
    }
    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
        report: &'a Report,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>> {
        report.exchange(200, 42);
        let row = SearchRow {
            title: format!("About {}", args.query),
            url: "https://example.com/".into(),
            ..Default::default()
        };
        Box::pin(async move { Ok(vec![row]) })
    }
}

/// The host's own resolver: every name has no address (an answer, not a
/// failure), so a call goes as far as the lookup and no further.
struct NoAddresses;

impl Resolve for NoAddresses {
    fn resolve<'a>(&'a self, _host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, LookupFailed>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(run())
}

async fn run() -> Result<(), Box<dyn Error>> {
    // Without the hickory feature a resolver is required, and its absence
    // is a typed error.
    let missing = Fetcher::builder().build();
    if !matches!(missing, Err(SetupError::NoResolver)) {
        return Err(format!("expected NoResolver, got {missing:?}").into());
    }

    let mut policy = Policy::default();
    policy.domains = DomainRules::new(["example.com"], Vec::<String>::new())?;
    policy.validate()?;
    let mut tls = TlsSettings::default();
    if tls.add_pem_roots(b"not a certificate").is_ok() {
        return Err("a PEM file without a certificate was accepted".into());
    }
    let _: Box<dyn Error> = Box::new(tls.add_pem_roots(b"").unwrap_err());
    let no_provider = Fetcher::builder()
        .resolver(Arc::new(NoAddresses))
        .build();
    if !matches!(no_provider, Err(SetupError::NoCryptoProvider)) {
        return Err(format!("expected NoCryptoProvider, got {no_provider:?}").into());
    }
    tls.crypto_provider(Arc::new(rustls::crypto::ring::default_provider()));

    // A name with no address: the call goes as far as the lookup.
    let fetcher = Fetcher::builder()
        .policy(policy)
        .resolver(Arc::new(NoAddresses))
        .tls(tls)
        .build()?;
    let typed = fetcher
        .fetch("https://example.com/", Default::default())
        .await;
    let e: Box<dyn Error + Send + Sync> = Box::new(typed.unwrap_err());
    println!("typed fetch error: {e}");

    let toolbox = Arc::new(Toolbox::new(
        fetcher,
        Some(Searcher::new(Arc::new(Canned))),
        AgentOptions::default(),
    ));
    let run = toolbox.start_run();
    let reply = run
        .call(
            "web_fetch",
            &serde_json::json!({"url": "https://example.com/"}),
        )
        .await?;
    let Some(record) = &reply.audit else {
        return Err("no audit record for the fetch".into());
    };
    if record.to_json()["tool"] != "web_fetch" {
        return Err("the fetch's record is not a fetch's".into());
    }
    println!("fetch record: {}", record.to_json_line());
    let reply = run
        .call("web_search", &serde_json::json!({"query": "vendoring"}))
        .await?;
    let Some(record) = &reply.audit else {
        return Err("no audit record for the search".into());
    };
    println!("search record: {}", record.to_json_line());
    let r = record.to_json();
    if (&r["status"], &r["bytes"]) != (&serde_json::json!(200), &serde_json::json!(42)) {
        return Err("the provider's report did not reach the record".into());
    }
    if run
        .call("no_such_tool", &serde_json::json!({}))
        .await
        .is_ok()
    {
        return Err("an unknown tool was called".into());
    }
    println!("ok");
    Ok(())
}
