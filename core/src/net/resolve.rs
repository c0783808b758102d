//! A static table of answers in front of another resolver or alone: the
//! CLI's `--resolve` and the workspace's tests. Not part of the API (the
//! workspace reaches it through `internals`): a vendor's pinning or test
//! table is its own [`super::Resolve`], a few lines (`examples/seams.rs`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use super::{BoxFuture, LookupFailed, Resolve};

/// Answers some hosts from a fixed table and passes the rest to another
/// resolver (or fails them). An empty list is an answer with no address.
/// The answers are still vetted like any other.
#[derive(Clone)]
pub struct StaticResolve {
    table: HashMap<String, Vec<IpAddr>>,
    fallback: Option<Arc<dyn Resolve>>,
}

impl std::fmt::Debug for StaticResolve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticResolve")
            .field("table", &self.table)
            .finish_non_exhaustive()
    }
}

impl StaticResolve {
    /// A table; hosts not in it fail to resolve unless a fallback is set.
    pub fn new(table: HashMap<String, Vec<IpAddr>>) -> Self {
        let table = table
            .into_iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v))
            .collect();
        StaticResolve {
            table,
            fallback: None,
        }
    }

    /// Hosts not in the table go to `fallback`.
    pub fn with_fallback(mut self, fallback: Arc<dyn Resolve>) -> Self {
        self.fallback = Some(fallback);
        self
    }
}

impl Resolve for StaticResolve {
    fn resolve<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, LookupFailed>> {
        Box::pin(async move {
            match (self.table.get(host.trim_end_matches('.')), &self.fallback) {
                (Some(v), _) => Ok(v.clone()),
                (None, Some(f)) => f.resolve(host).await,
                (None, None) => Err(LookupFailed::NoSuchName),
            }
        })
    }
}
