//! `webgate call TOOL JSON`: a tool called exactly as a model calls it,
//! the arguments handed over as JSON text.

use std::process::ExitCode;

use clap::Args;
use serde_json::Value;

use crate::host::{AuditOptions, NetOptions, PolicyOptions, ProviderOptions};
use crate::output::usage;

/// Call a tool with JSON arguments exactly as a model sends them.
/// Example: webgate call web_fetch '{"url": "https://example.com/"}'
#[derive(Args, Debug)]
pub(crate) struct CallArgs {
    /// The tool: web_fetch or web_search.
    tool: String,
    /// The arguments, as JSON text.
    arguments: String,
    #[command(flatten)]
    net: NetOptions,
    #[command(flatten)]
    policy: PolicyOptions,
    #[command(flatten)]
    provider: ProviderOptions,
    #[command(flatten)]
    audit: AuditOptions,
    /// Print one JSON object: {"class", "kind", "text"}, and
    /// "retry_after_s" when a search provider sent a Retry-After.
    #[arg(long)]
    json: bool,
}

/// Runs `call`.
pub(crate) fn run(a: CallArgs) -> ExitCode {
    let args: Value = match serde_json::from_str(&a.arguments) {
        Ok(v) => v,
        Err(e) => return usage(&format!("the arguments are not JSON: {e}")),
    };
    if let Err(e) = a.audit.init_log() {
        return usage(&e);
    }
    match a.tool.as_str() {
        "web_fetch" => super::fetch::call(&a.net, &a.policy, &a.audit, a.json, args),
        "web_search" => super::search::call(&a.net, &a.provider, &a.audit, a.json, args),
        other => usage(&format!(
            "unknown tool {other:?} (known: web_fetch, web_search)"
        )),
    }
}
