//! `web_fetch` as a library call: the tool as a model calls it (JSON in,
//! the contract's exact text out), and the typed API beside it.
//!
//! `cargo run -p webgate --example fetch -- https://example.com/`

use webgate::fetch::{FetchOptions, Fetcher};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "https://example.com/".into());
    // The default policy is the contract's: https only, ports 80 and 443,
    // every address vetted against the blocked table on every hop.
    let fetcher = Fetcher::builder().build()?;

    // As a model calls it: the arguments as JSON, an Outcome whose text
    // is exactly what the model is handed (ok, soft or hard).
    let outcome = fetcher
        .call(&serde_json::json!({ "url": url, "max_chars": 2000 }))
        .await;
    println!(
        "{} {}\n{}",
        outcome.class.as_str(),
        outcome.id,
        outcome.text
    );

    // Typed: the text, its title and how it was made, or the error.
    match fetcher.fetch(&url, FetchOptions::default()).await {
        Ok(page) => eprintln!(
            "title {:?}, {} characters, {}",
            page.title,
            page.text.chars().count(),
            page.extraction
        ),
        Err(e) => eprintln!("refused or failed: {e}"),
    }
    Ok(())
}
