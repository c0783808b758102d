//! `web_fetch`: the tool as a host builds it and a model calls it.
//!
//! This file is the façade: [`FetcherBuilder`] and [`Fetcher`], the call
//! from JSON arguments (`call`, `call_audited`), the typed API (`fetch`
//! and its audited forms) and the record of a call refused before the
//! network. It decides nothing about a request. The one IO loop of a call
//! is split by what each part does, read in this order:
//!
//! - `hops`: admit, then hop by hop (robots.txt when the policy asks, one
//!   exchange, the hop rule) to the response that is read.
//! - `robots`: the robots.txt read of one origin, its own hops.
//! - `exchange`: one request: resolve, vet every address, dial only
//!   vetted ones (or take a kept connection this lookup allows), TLS,
//!   send, and the head.
//! - `read`: the response after the head: the head judged, the body
//!   pulled under the cap, decoded and extracted, the text cut.
//!
//! Every decision is the pure modules' (`policy`, `body`, `net::http`'s
//! header rules, `extract`); these files only move bytes and keep time.

use std::sync::Arc;

use serde_json::Value;
use tokio::time::Instant;
use tracing::Instrument;

use crate::args::parse_fetch_args;
use crate::audit::{ms, AuditSettings, FetchAudit, Record};
use crate::extract;
use crate::messages::text::FetchOk;
use crate::messages::{Extraction, FetchError, SetupError};
use crate::net::pool::{Limits, Pool};
use crate::net::{Dial, Resolve, TcpDial, TlsSettings};
use crate::policy::robots::RobotsMemo;
use crate::policy::Policy;
use crate::tool::Outcome;

mod exchange;
mod hops;
mod read;
mod robots;

/// A successful fetch, before it is rendered as text.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fetched {
    /// The final URL: query kept, fragment dropped.
    pub url: String,
    /// Whether `max_chars` or the flat-text byte cap cut the text.
    pub truncated: bool,
    /// How the text was made.
    pub extraction: Extraction,
    /// The text.
    pub text: String,
    /// The HTML `<title>`, when the page is HTML and has one.
    pub title: Option<String>,
    /// Why extraction stopped before the end of the page, when it did.
    pub cut: Option<extract::Cut>,
}

impl Fetched {
    /// The text without its title line (contract §13): what the page
    /// itself says.
    pub(crate) fn body(&self) -> &str {
        let Some(title) = &self.title else {
            return &self.text;
        };
        let rest = self.text.strip_prefix("# ").unwrap_or(&self.text);
        match rest.strip_prefix(title.as_str()) {
            Some(r) if r.is_empty() || r.starts_with('\n') => r.trim_start_matches('\n'),
            _ => &self.text,
        }
    }

    /// The contract's exact result text: header, blank line, text.
    pub fn render(&self) -> String {
        FetchOk {
            url: &self.url,
            truncated: self.truncated,
            extraction: self.extraction,
            text: &self.text,
        }
        .to_string()
    }
}

/// What refused a call before anything was sent (see
/// [`Fetcher::refused_record`]).
#[cfg(feature = "agent")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Its arguments.
    Arguments,
    /// Its URL, by the admission rules.
    Admission,
    /// A rule of the agent layer (a budget).
    Other,
}

/// Options of one typed fetch (the model's `max_chars` and `raw`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FetchOptions {
    /// At most this many characters (lowered to the policy's limit).
    pub max_chars: Option<usize>,
    /// Render the whole document instead of the main article.
    pub raw: bool,
    /// Return the whole text, not cut at `max_chars` (the caller pages or
    /// cuts it itself; the body cap still applies).
    pub whole: bool,
}

/// Builds a [`Fetcher`]: the policy, and the Resolve and Dial seams.
#[derive(Default)]
pub struct FetcherBuilder {
    policy: Policy,
    resolver: Option<Arc<dyn Resolve>>,
    dialer: Option<Arc<dyn Dial>>,
    tls: TlsSettings,
    audit: AuditSettings,
}

impl std::fmt::Debug for FetcherBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetcherBuilder")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl FetcherBuilder {
    /// The host's policy (default: the contract's).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// The Resolve seam (default: hickory with the system configuration).
    pub fn resolver(mut self, r: Arc<dyn Resolve>) -> Self {
        self.resolver = Some(r);
        self
    }

    /// The Dial seam (default: TCP).
    pub fn dialer(mut self, d: Arc<dyn Dial>) -> Self {
        self.dialer = Some(d);
        self
    }

    /// The TLS settings (extra roots).
    pub fn tls(mut self, tls: TlsSettings) -> Self {
        self.tls = tls;
        self
    }

    /// What audit records and events may show (default: redacted).
    pub fn audit(mut self, audit: AuditSettings) -> Self {
        self.audit = audit;
        self
    }

    /// The fetcher. Fails when the policy does not
    /// [validate](Policy::validate), when no resolver was given and the
    /// default (hickory, the system configuration) is not compiled in or
    /// cannot be loaded, when the TLS settings are refused, or when it is
    /// built on a Tokio runtime without the time driver.
    ///
    /// Calls run on a Tokio runtime with IO and time enabled
    /// (`Builder::enable_all`); a call without one is a failed call,
    /// reported as a network failure and an error event, not a panic.
    pub fn build(self) -> Result<Fetcher, SetupError> {
        self.policy.validate()?;
        if tokio::runtime::Handle::try_current().is_ok() && !crate::net::timer_available() {
            return Err(SetupError::NoTimer);
        }
        let resolver = match self.resolver {
            Some(r) => r,
            #[cfg(feature = "hickory")]
            None => Arc::new(crate::net::HickoryResolve::system()?),
            #[cfg(not(feature = "hickory"))]
            None => return Err(SetupError::NoResolver),
        };
        Ok(Fetcher {
            inner: Arc::new(Inner {
                resolver,
                dialer: self.dialer.unwrap_or_else(|| Arc::new(TcpDial)),
                tls: tokio_rustls::TlsConnector::from(self.tls.client_config()?),
                audit: self.audit,
                pool: Pool::new(Limits {
                    per_host: self.policy.idle_per_host,
                    total: self.policy.idle_total,
                    idle_timeout: self.policy.idle_timeout,
                }),
                policy: self.policy,
            }),
        })
    }
}

/// The `web_fetch` tool. Cheap to clone; safe to share between tasks.
#[derive(Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("policy", &self.inner.policy)
            .finish_non_exhaustive()
    }
}

struct Inner {
    policy: Policy,
    resolver: Arc<dyn Resolve>,
    dialer: Arc<dyn Dial>,
    tls: tokio_rustls::TlsConnector,
    audit: AuditSettings,
    /// Kept connections: idle HTTP/1.1 ones and shared h2 ones
    /// (`Policy::connection_reuse`).
    pool: Arc<Pool>,
}

impl Fetcher {
    /// A builder with the contract's policy and the default seams.
    pub fn builder() -> FetcherBuilder {
        FetcherBuilder::default()
    }

    /// The policy in force.
    pub fn policy(&self) -> &Policy {
        &self.inner.policy
    }

    /// The tool as a model calls it: JSON arguments in, one outcome out.
    pub async fn call(&self, args: &Value) -> Outcome {
        self.call_audited(args).await.0
    }

    /// [`Fetcher::call`], with the audit record of the call beside the
    /// outcome (the outcome is the same either way).
    pub async fn call_audited(&self, args: &Value) -> (Outcome, Record) {
        let started = Instant::now();
        let policy = &self.inner.policy;
        let mut audit = FetchAudit::new();
        audit.requested_url = args
            .get("url")
            .and_then(Value::as_str)
            .map(|u| self.inner.audit.url(u));
        let span = tracing::info_span!(target: "webgate", "web_fetch", url = ?audit.requested_url);
        let result = async {
            match parse_fetch_args(args, policy) {
                Ok(a) => {
                    self.fetch_into(
                        &a.url,
                        FetchOptions {
                            max_chars: Some(a.max_chars),
                            raw: a.raw,
                            whole: false,
                        },
                        &mut audit,
                        &RobotsMemo::new(),
                    )
                    .await
                }
                Err(e) => {
                    let e = FetchError::from(e);
                    audit.args_refused = Some(e.id());
                    tracing::info!(target: "webgate", id = e.id(), "arguments refused");
                    Err(e)
                }
            }
        }
        .instrument(span.clone())
        .await;
        let _in = span.enter();
        let outcome = match result {
            Ok(f) => Outcome::ok("fetch.ok", f.render()),
            Err(e) => e.into(),
        };
        audit.class = outcome.class.as_str();
        audit.id = outcome.id;
        audit.total_ms = ms(started.elapsed());
        tracing::info!(
            target: "webgate",
            class = audit.class,
            id = audit.id,
            total_ms = audit.total_ms,
            "web_fetch done"
        );
        (outcome, Record::fetch(audit))
    }

    /// The record of a call refused before anything was sent: its
    /// arguments (`args_refused` names the message), its URL (`admission`
    /// does), or the agent layer's own rules (the outcome's id says
    /// which). `url` is the `url` argument, redacted as every record's.
    #[cfg(feature = "agent")]
    pub(crate) fn refused_record(
        &self,
        url: Option<&str>,
        refused: Refused,
        outcome: &Outcome,
        started: Instant,
    ) -> FetchAudit {
        let mut audit = FetchAudit::new();
        audit.requested_url = url.map(|u| self.inner.audit.url(u));
        match refused {
            Refused::Arguments => audit.args_refused = Some(outcome.id),
            Refused::Admission => audit.admission = Some(outcome.id),
            Refused::Other => {}
        }
        audit.class = outcome.class.as_str();
        audit.id = outcome.id;
        audit.total_ms = ms(started.elapsed());
        tracing::info!(
            target: "webgate",
            class = audit.class,
            id = audit.id,
            "web_fetch refused before the network"
        );
        audit
    }

    /// The typed API: fetch one URL.
    pub async fn fetch(&self, url: &str, opts: FetchOptions) -> Result<Fetched, FetchError> {
        self.fetch_audited(url, opts).await.0
    }

    /// [`Fetcher::fetch`] with the audit record of the call.
    pub async fn fetch_audited(
        &self,
        url: &str,
        opts: FetchOptions,
    ) -> (Result<Fetched, FetchError>, Record) {
        let (r, audit) = self.fetch_audited_with(url, opts, &RobotsMemo::new()).await;
        (r, Record::fetch(audit))
    }

    /// [`Fetcher::fetch_audited`] as part of a run that keeps the
    /// robots.txt files it read in `memo` (used only when the policy
    /// reads robots.txt; `agent::Run` keeps one per run).
    pub(crate) async fn fetch_audited_with(
        &self,
        url: &str,
        opts: FetchOptions,
        memo: &RobotsMemo,
    ) -> (Result<Fetched, FetchError>, FetchAudit) {
        let started = Instant::now();
        let mut audit = FetchAudit::new();
        audit.requested_url = Some(self.inner.audit.url(url));
        let span = tracing::info_span!(target: "webgate", "web_fetch", url = ?audit.requested_url);
        let r = self
            .fetch_into(url, opts, &mut audit, memo)
            .instrument(span)
            .await;
        let (class, id) = match &r {
            Ok(_) => ("ok", "fetch.ok"),
            Err(e) => (e.class().as_str(), e.id()),
        };
        audit.class = class;
        audit.id = id;
        audit.total_ms = ms(started.elapsed());
        (r, audit)
    }
}

// Built with ring only: a build without it has no crypto provider here.
#[cfg(all(test, feature = "ring"))]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}

    /// Hosts spawn calls on multi-threaded runtimes: the futures must be Send.
    #[test]
    fn futures_are_send() {
        let f = Fetcher::builder()
            .resolver(Arc::new(crate::net::resolve::StaticResolve::new(
                Default::default(),
            )))
            .build()
            .expect("fetcher");
        let args = serde_json::json!({"url": "https://example.com/"});
        assert_send(&f.call(&args));
        assert_send(&f.call_audited(&args));
        assert_send(&f.fetch_audited("https://example.com/", FetchOptions::default()));
    }
}
