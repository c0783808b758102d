//! `web_search` (contract §9): argument checks, a provider seam, the row
//! check every provider's answer goes through, and the compact JSON output.
//!
//! Providers: [`gateway::Gateway`] (the default: one POST to the host's
//! endpoint), and adapters for the Brave Search API, SearXNG and Tavily in
//! [`providers`]. A host may implement [`Provider`] itself.

pub mod client;
pub mod gateway;
pub mod providers;
mod response;

use std::sync::Arc;

use serde_json::Value;

pub use response::{escape_error_body, rows_from_results};

use crate::args::{parse_search_args, SearchArgs};
use crate::messages::{SearchError, SearchOk, SearchRow};
use crate::net::BoxFuture;
use crate::tool::Outcome;

/// Where results come from. Receives accepted arguments only; returns rows
/// or a typed failure (Transport / Backend families).
pub trait Provider: Send + Sync + 'static {
    /// A short name for logs (`gateway`, `brave`, …).
    fn name(&self) -> &'static str;
    /// Runs one search.
    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>>;
}

/// The `web_search` tool over one provider.
#[derive(Clone)]
pub struct Searcher {
    provider: Arc<dyn Provider>,
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
        Searcher { provider }
    }

    /// The tool as a model calls it.
    pub async fn call(&self, args: &Value) -> Outcome {
        let accepted = match parse_search_args(args) {
            Ok(a) => a,
            Err(e) => return SearchError::from(e).into(),
        };
        match self.search(&accepted).await {
            Ok(rows) => Outcome::ok(
                "search.ok",
                SearchOk {
                    query: &accepted.query,
                    rows: &rows,
                }
                .to_string(),
            ),
            Err(e) => e.into(),
        }
    }

    /// The typed API: checked rows, or the failure.
    pub async fn search(&self, args: &SearchArgs) -> Result<Vec<SearchRow>, SearchError> {
        let rows = self.provider.search(args).await?;
        // Whatever the provider, a row must name where it points.
        if let Some(index) = rows.iter().position(|r| r.url.trim().is_empty()) {
            return Err(SearchError::EmptyUrl { index });
        }
        Ok(rows)
    }
}
