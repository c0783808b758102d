//! `webgate fetch URL`: one page as `web_fetch` returns it, with the typed
//! options turned into the tool's JSON arguments; and the fetch half of
//! `call`. With `--reader` the call goes through the agent layer, which
//! owns the fallback.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use serde_json::{json, Value};
use webgate::agent::Toolbox;

use crate::host::{build_fetcher, runtime, AuditOptions, NetOptions, PolicyOptions};
use crate::output::{print_outcome, usage};

/// Fetch one page and print it as web_fetch returns it.
#[derive(Args, Debug)]
pub(crate) struct FetchArgs {
    /// The URL.
    url: String,
    /// At most this many characters.
    #[arg(long)]
    max_chars: Option<usize>,
    /// Render the whole document instead of the main article.
    #[arg(long)]
    raw: bool,
    #[command(flatten)]
    net: NetOptions,
    #[command(flatten)]
    policy: PolicyOptions,
    #[command(flatten)]
    audit: AuditOptions,
    /// Print one JSON object: {"class", "kind", "text"}.
    #[arg(long)]
    json: bool,
}

/// Runs `fetch`.
pub(crate) fn run(a: FetchArgs) -> ExitCode {
    if let Err(e) = a.audit.init_log() {
        return usage(&e);
    }
    let mut args = json!({"url": a.url, "raw": a.raw});
    if let Some(m) = a.max_chars {
        args["max_chars"] = json!(m);
    }
    call(&a.net, &a.policy, &a.audit, a.json, args)
}

/// Calls `web_fetch` with JSON arguments under the host options.
pub(crate) fn call(
    net: &NetOptions,
    policy: &PolicyOptions,
    audit: &AuditOptions,
    json: bool,
    args: Value,
) -> ExitCode {
    let fetcher = match build_fetcher(net, policy, audit.settings()) {
        Ok(f) => f,
        Err(e) => return usage(&e),
    };
    let Some(rt) = runtime() else {
        return ExitCode::FAILURE;
    };
    let Some(options) = policy.reader_options() else {
        let (outcome, record) = rt.block_on(fetcher.call_audited(&args));
        if audit.audit {
            eprintln!("{}", record.to_json_line());
        }
        return print_outcome(&outcome, json);
    };
    // The reader is an agent-layer option: the call goes through a toolbox
    // with every other option off (the contract's texts), and what is
    // printed is what a model would be handed (the reader's note leads).
    let toolbox = Arc::new(Toolbox::new(fetcher.clone(), None, options));
    let reply = rt.block_on(toolbox.start_run().fetch(&args));
    if audit.audit {
        let line = match &reply.audit {
            Some(a) => a.to_json_line(),
            // Refused before any request (arguments, admission): the
            // direct call gives the same refusal's record, again without
            // touching the network.
            None => rt.block_on(fetcher.call_audited(&args)).1.to_json_line(),
        };
        eprintln!("{line}");
    }
    let mut shown = reply.outcome.clone();
    shown.text = reply.model_text;
    print_outcome(&shown, json)
}
