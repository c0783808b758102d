//! `web_search` (contract §9): argument checks, a provider seam, the row
//! check every provider's answer goes through, and the compact JSON output.
//!
//! Providers (feature `search-providers`): [`configure`] builds one from
//! [`SearchSettings`]: the gateway (the default: one POST to the host's
//! endpoint), or an adapter for the Brave Search API, SearXNG or Tavily,
//! each over an HTTP client that vets every address as `web_fetch` does. A
//! host may implement [`Provider`] itself.

#[cfg(feature = "search-providers")]
pub(crate) mod client;
#[cfg(feature = "search-providers")]
pub(crate) mod gateway;
#[cfg(feature = "search-providers")]
pub(crate) mod providers;
#[cfg(feature = "search-providers")]
mod response;

use std::sync::{Arc, Mutex};

#[cfg(feature = "search-providers")]
pub use providers::{configure, SearchSettings};

use serde_json::Value;
use tracing::Instrument;

#[cfg(feature = "search-providers")]
pub(crate) use response::{escape_error_body, rows_from_results};

use crate::args::{parse_search_args, SearchArgs};
use crate::audit::{ms, AuditSettings, Record, SearchAudit};
use crate::messages::text::SearchOk;
use crate::messages::{SearchError, SearchRow};
use crate::net::BoxFuture;
use crate::tool::Outcome;

/// What a provider tells the audit record about its backend: the HTTP
/// status and body size of its last exchange. Handed to every
/// [`Provider::search`]; a provider that does not speak HTTP leaves it
/// empty, and the record says nothing rather than something invented.
#[derive(Debug, Default)]
pub struct Report {
    last: Mutex<Option<(u16, u64)>>,
}

impl Report {
    /// Notes one exchange: its status and the body bytes received (a later
    /// exchange in the same search replaces an earlier one).
    pub fn exchange(&self, status: u16, bytes: u64) {
        // A poisoned lock only means a provider panicked mid-note; the
        // pair is still whole.
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some((status, bytes));
    }

    /// The last exchange noted.
    pub fn last(&self) -> Option<(u16, u64)> {
        *self.last.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Where results come from. Receives accepted arguments only; returns rows
/// or a typed failure (Transport / Backend families), and notes what its
/// backend answered in `report`.
pub trait Provider: Send + Sync + 'static {
    /// A short name for logs (`gateway`, `brave`, …).
    fn name(&self) -> &'static str;
    /// Runs one search.
    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
        report: &'a Report,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>>;
}

/// The `web_search` tool over one provider.
#[derive(Clone)]
pub struct Searcher {
    provider: Arc<dyn Provider>,
    audit: AuditSettings,
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher")
            .field("provider", &self.provider.name())
            .finish()
    }
}

impl Searcher {
    /// The tool over `provider`.
    pub fn new(provider: Arc<dyn Provider>) -> Self {
        Searcher {
            provider,
            audit: AuditSettings::default(),
        }
    }

    /// What audit records and events may show (default: redacted).
    pub fn with_audit(mut self, audit: AuditSettings) -> Self {
        self.audit = audit;
        self
    }

    /// The tool as a model calls it.
    pub async fn call(&self, args: &Value) -> Outcome {
        self.call_audited(args).await.0
    }

    /// [`Searcher::call`], with the audit record of the call beside the
    /// outcome (the outcome is the same either way).
    pub async fn call_audited(&self, args: &Value) -> (Outcome, Record) {
        match parse_search_args(args) {
            Err(e) => {
                let started = tokio::time::Instant::now();
                let e = SearchError::from(e);
                let mut audit = self.new_audit();
                audit.args_refused = Some(e.id());
                let span = self.span(&audit);
                span.in_scope(
                    || tracing::info!(target: "webgate", id = e.id(), "arguments refused"),
                );
                let outcome: Outcome = e.into();
                self.finish_audit(&mut audit, &outcome, started, &span);
                (outcome, Record::search(audit))
            }
            Ok(accepted) => {
                let (result, audit) = self.search_recorded(&accepted).await;
                let outcome = match result {
                    Ok(rows) => Outcome::ok(
                        "search.ok",
                        SearchOk {
                            query: &accepted.query,
                            rows: &rows,
                        }
                        .to_string(),
                    ),
                    Err(e) => e.into(),
                };
                (outcome, Record::search(audit))
            }
        }
    }

    /// [`Searcher::search`], with the audit record of the call.
    pub async fn search_audited(
        &self,
        accepted: &SearchArgs,
    ) -> (Result<Vec<SearchRow>, SearchError>, Record) {
        let (result, audit) = self.search_recorded(accepted).await;
        (result, Record::search(audit))
    }

    /// [`Searcher::search_audited`] with the record still open to the
    /// agent layer.
    pub(crate) async fn search_recorded(
        &self,
        accepted: &SearchArgs,
    ) -> (Result<Vec<SearchRow>, SearchError>, SearchAudit) {
        let started = tokio::time::Instant::now();
        let mut audit = self.new_audit();
        let span = self.span(&audit);
        audit.query_chars = Some(accepted.query.chars().count());
        if self.audit.reveal_queries {
            audit.query = Some(accepted.query.clone());
        }
        let report = Report::default();
        let result = async {
            // Every limit needs Tokio's timer: without it the call fails
            // here rather than panic in the provider.
            if !crate::net::timer_available() {
                tracing::error!(
                    target: "webgate",
                    "no Tokio runtime with the time driver: the search is not made"
                );
                return Err(SearchError::Request);
            }
            self.search_reporting(accepted, &report).await
        }
        .instrument(span.clone())
        .await;
        if let Some((status, bytes)) = report.last() {
            audit.status = Some(status);
            audit.bytes = Some(bytes);
        }
        let outcome: Outcome = match &result {
            Ok(rows) => {
                audit.rows = Some(rows.len());
                Outcome::ok("search.ok", String::new())
            }
            Err(e) => {
                audit.failure = Some(e.kind().to_string());
                audit.retry_after_s = e.retry_after().map(|d| d.as_secs());
                e.clone().into()
            }
        };
        self.finish_audit(&mut audit, &outcome, started, &span);
        (result, audit)
    }

    /// The record of a call refused before anything was sent: by its
    /// arguments (`args_refused`), or by the agent layer's own rules (the
    /// outcome's id says which).
    #[cfg(feature = "agent")]
    pub(crate) fn refused_record(
        &self,
        outcome: &Outcome,
        args_refused: bool,
        started: tokio::time::Instant,
    ) -> SearchAudit {
        let mut audit = self.new_audit();
        if args_refused {
            audit.args_refused = Some(outcome.id);
        }
        let span = self.span(&audit);
        self.finish_audit(&mut audit, outcome, started, &span);
        audit
    }

    fn new_audit(&self) -> SearchAudit {
        SearchAudit {
            tool: "web_search",
            provider: self.provider.name(),
            ..Default::default()
        }
    }

    fn span(&self, audit: &SearchAudit) -> tracing::Span {
        tracing::info_span!(target: "webgate", "web_search", provider = audit.provider)
    }

    fn finish_audit(
        &self,
        audit: &mut SearchAudit,
        outcome: &Outcome,
        started: tokio::time::Instant,
        span: &tracing::Span,
    ) {
        audit.class = outcome.class.as_str();
        audit.id = outcome.id;
        audit.total_ms = ms(started.elapsed());
        span.in_scope(|| {
            tracing::info!(
                target: "webgate",
                status = audit.status,
                bytes = audit.bytes,
                rows = audit.rows,
                failure = audit.failure.as_deref(),
                retry_after_s = audit.retry_after_s,
                id = audit.id,
                "web_search done"
            )
        });
    }

    /// The typed API: checked rows, or the failure.
    pub async fn search(&self, args: &SearchArgs) -> Result<Vec<SearchRow>, SearchError> {
        self.search_reporting(args, &Report::default()).await
    }

    async fn search_reporting(
        &self,
        args: &SearchArgs,
        report: &Report,
    ) -> Result<Vec<SearchRow>, SearchError> {
        let rows = self.provider.search(args, report).await?;
        // Whatever the provider, a row must name where it points.
        if let Some(index) = rows.iter().position(|r| r.url.trim().is_empty()) {
            return Err(SearchError::EmptyUrl { index });
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host's provider: no HTTP client of ours, its own report.
    struct Own(Option<(u16, u64)>);

    impl Provider for Own {
        fn name(&self) -> &'static str {
            "own"
        }
        fn search<'a>(
            &'a self,
            _args: &'a SearchArgs,
            report: &'a Report,
        ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>> {
            if let Some((status, bytes)) = self.0 {
                report.exchange(status, bytes);
            }
            Box::pin(async { Ok(Vec::new()) })
        }
    }

    #[tokio::test]
    async fn a_custom_providers_report_reaches_the_record() {
        let args = serde_json::json!({"query": "q"});
        let (_, audit) = Searcher::new(Arc::new(Own(Some((203, 7)))))
            .call_audited(&args)
            .await;
        let a = audit.to_json();
        assert_eq!(
            (&a["status"], &a["bytes"]),
            (&serde_json::json!(203), &serde_json::json!(7))
        );
        // Nothing reported: nothing invented.
        let (_, audit) = Searcher::new(Arc::new(Own(None))).call_audited(&args).await;
        let a = audit.to_json();
        assert_eq!((&a["status"], &a["bytes"]), (&Value::Null, &Value::Null));
    }

    #[test]
    fn a_later_exchange_replaces_an_earlier_one() {
        let r = Report::default();
        assert_eq!(r.last(), None);
        r.exchange(500, 3);
        r.exchange(200, 9);
        assert_eq!(r.last(), Some((200, 9)));
    }
}
