//! `webgate search QUERY`: results as `web_search` returns them, with the
//! typed options turned into the tool's JSON arguments; and the search
//! half of `call`. The provider is the host's (flags and environment).

use std::process::ExitCode;

use clap::Args;
use serde_json::{json, Value};
use webgate::internals::search::configure_with;
use webgate::search::Searcher;

use crate::host::{
    runtime, search_client, search_settings, tls_settings, AuditOptions, NetOptions,
    ProviderOptions,
};
use crate::output::{print_outcome, usage};

/// Search the web and print the results as web_search returns them.
/// The provider comes from WEBGATE_SEARCH_PROVIDER (gateway, brave,
/// searxng, tavily) or --provider, with WEBGATE_SEARCH_ENDPOINT and
/// WEBGATE_SEARCH_KEY.
#[derive(Args, Debug)]
pub(crate) struct SearchArgs {
    /// The query.
    query: String,
    /// How many results (1 to 20).
    #[arg(long)]
    count: Option<u32>,
    /// Recency: pd, pw, pm or py.
    #[arg(long)]
    freshness: Option<String>,
    /// Country code.
    #[arg(long)]
    country: Option<String>,
    /// Search language.
    #[arg(long)]
    search_lang: Option<String>,
    /// off, moderate or strict.
    #[arg(long)]
    safesearch: Option<String>,
    /// Only this hostname (repeatable).
    #[arg(long = "include-domain")]
    include_domains: Vec<String>,
    /// Never this hostname (repeatable).
    #[arg(long = "exclude-domain")]
    exclude_domains: Vec<String>,
    #[command(flatten)]
    provider: ProviderOptions,
    #[command(flatten)]
    audit: AuditOptions,
    /// Print one JSON object: {"class", "kind", "text"}, and
    /// "retry_after_s" when the provider sent a Retry-After.
    #[arg(long)]
    json: bool,
}

/// Runs `search`.
pub(crate) fn run(a: SearchArgs) -> ExitCode {
    if let Err(e) = a.audit.init_log() {
        return usage(&e);
    }
    let mut args = json!({"query": a.query});
    let fields = [
        ("count", a.count.map(|c| json!(c))),
        ("freshness", a.freshness.map(|v| json!(v))),
        ("country", a.country.map(|v| json!(v))),
        ("search_lang", a.search_lang.map(|v| json!(v))),
        ("safesearch", a.safesearch.map(|v| json!(v))),
        (
            "include_domains",
            (!a.include_domains.is_empty()).then(|| json!(a.include_domains)),
        ),
        (
            "exclude_domains",
            (!a.exclude_domains.is_empty()).then(|| json!(a.exclude_domains)),
        ),
    ];
    for (k, v) in fields {
        if let Some(v) = v {
            args[k] = v;
        }
    }
    call(&NetOptions::default(), &a.provider, &a.audit, a.json, args)
}

/// Calls `web_search` with JSON arguments under the host options.
pub(crate) fn call(
    net: &NetOptions,
    provider: &ProviderOptions,
    audit: &AuditOptions,
    json: bool,
    args: Value,
) -> ExitCode {
    let settings = search_settings(provider);
    let tls = match tls_settings(net) {
        Ok(t) => t,
        Err(e) => return usage(&e),
    };
    let Some(rt) = runtime() else {
        return ExitCode::FAILURE;
    };
    let outcome = rt.block_on(async {
        let client = search_client(net, &tls)?;
        let provider = configure_with(&settings, client).map_err(|e| e.to_string())?;
        let searcher = Searcher::new(provider).with_audit(audit.settings());
        Ok::<_, String>(searcher.call_audited(&args).await)
    });
    match outcome {
        Ok((o, record)) => {
            if audit.audit {
                eprintln!("{}", record.to_json_line());
            }
            print_outcome(&o, json)
        }
        // Search is not offered: say why, as a usage problem of the host.
        Err(why) => usage(&why),
    }
}
