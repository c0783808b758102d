//! `web_search` over the host's own search backend: a `Provider` is the
//! one seam to fill; the argument checks, the row check every answer goes
//! through and the contract's JSON output stay the library's.
//!
//! `cargo run -p webgate --example search -- "rust egress"`

use std::sync::Arc;

use webgate::args::SearchArgs;
use webgate::messages::{SearchError, SearchRow};
use webgate::net::BoxFuture;
use webgate::search::{Provider, Report, Searcher};

/// A provider answering from a fixed index (a host would call its own
/// search service here, and note the status and body size in `report`).
struct Index(Vec<(&'static str, &'static str)>);

impl Provider for Index {
    fn name(&self) -> &'static str {
        "index"
    }

    fn search<'a>(
        &'a self,
        args: &'a SearchArgs,
        _report: &'a Report,
    ) -> BoxFuture<'a, Result<Vec<SearchRow>, SearchError>> {
        let query = args.query.to_lowercase();
        let rows = self
            .0
            .iter()
            .filter(|(title, _)| title.to_lowercase().contains(&query))
            .map(|(title, url)| SearchRow {
                title: (*title).to_string(),
                url: (*url).to_string(),
                ..Default::default()
            })
            .collect();
        Box::pin(async move { Ok(rows) })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let query = std::env::args().nth(1).unwrap_or_else(|| "rust".into());
    let searcher = Searcher::new(Arc::new(Index(vec![
        (
            "The Rust Programming Language",
            "https://doc.rust-lang.org/book/",
        ),
        (
            "Rust by Example",
            "https://doc.rust-lang.org/rust-by-example/",
        ),
    ])));
    let (outcome, audit) = searcher
        .call_audited(&serde_json::json!({ "query": query, "count": 5 }))
        .await;
    println!("{}", outcome.text);
    eprintln!("{}", audit.to_json_line());
}
