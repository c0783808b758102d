//! What an agent framework wires up: a `Toolbox` gives the tool
//! descriptors to show a model, and one `Run` per agent run takes the
//! model's calls by name, with the peer systems' options (here the
//! untrusted envelope, notes and a page budget), and returns what to
//! hand the model, notes for the host, and the call's audit record.
//!
//! `cargo run -p webgate --example toolbox -- https://example.com/`

use std::sync::Arc;

use webgate::agent::{AgentOptions, Toolbox};
use webgate::fetch::Fetcher;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "https://example.com/".into());
    let mut options = AgentOptions::default();
    options.envelope = true;
    options.result_notes = true;
    options.fetch_budget = Some(3);
    let toolbox = Arc::new(Toolbox::new(Fetcher::builder().build()?, None, options));
    for d in toolbox.descriptors() {
        eprintln!("tool {}: {}", d.name, d.description);
    }
    let run = toolbox.start_run();
    for args in [
        serde_json::json!({ "url": url }),
        // Refused before the network: no budget spent, a record all the
        // same (what a host most wants to see).
        serde_json::json!({ "url": "https://169.254.169.254/latest/" }),
    ] {
        let reply = run.call("web_fetch", &args).await?;
        println!("{}\n", reply.model_text);
        eprintln!("{} (error: {})", reply.summary, reply.is_error());
        if let Some(record) = &reply.audit {
            eprintln!("{}", record.to_json_line());
        }
    }
    Ok(())
}
