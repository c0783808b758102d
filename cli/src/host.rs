//! The host's options every network command shares: how names resolve
//! and sockets go (`--resolve`, `--connect-to`, `--dns-server`,
//! `--ca-file`), the host policy, the agent layer's options, the audit and
//! log, and the search provider; and how they become a `Fetcher`, a search
//! client and a runtime. Each turns into a library value or a usage error:
//! none of them switches the policy off.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use clap::Args;
use webgate::agent::AgentOptions;
use webgate::audit::AuditSettings;
use webgate::fetch::Fetcher;
use webgate::internals::net::{RemappedDial, StaticResolve, TcpDial};
use webgate::internals::search::Client;
use webgate::net::{HickoryResolve, Resolve, TlsSettings};
use webgate::policy::{admit, DomainRules, Policy};
use webgate::search::SearchSettings;

use crate::search_net;

/// Host-side network options, for operators and tests. None of them
/// switches the policy off: answers are still vetted, and only vetted
/// addresses are dialled.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct NetOptions {
    /// Ask this DNS server (UDP and TCP) instead of the system's.
    #[arg(long, value_name = "IP:PORT")]
    pub(crate) dns_server: Option<SocketAddr>,
    /// Answer HOST from this list instead of DNS (an empty list is an
    /// answer with no address). Repeatable.
    #[arg(long, value_name = "HOST=ADDR[,ADDR…]")]
    pub(crate) resolve: Vec<String>,
    /// After vetting ADDR:PORT, open the socket to ADDR2:PORT2 instead
    /// (IPv6 as [addr]:port). Repeatable.
    #[arg(long, value_name = "ADDR:PORT=ADDR2:PORT2")]
    pub(crate) connect_to: Vec<String>,
    /// Also trust the certificates in this PEM file.
    #[arg(long, value_name = "PEM")]
    pub(crate) ca_file: Option<String>,
}

/// Host policy beyond the contract's defaults (never from a prompt).
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct PolicyOptions {
    /// The character limit (the maximum of `max_chars`; default 40000).
    #[arg(long = "max-chars-limit", env = "WEBGATE_MAX_CHARS", value_name = "N")]
    pub(crate) max_chars_limit: Option<usize>,
    /// Fetch only these domains and their subdomains (repeatable, or a
    /// comma-separated list in the environment); checked on every hop.
    #[arg(
        long = "allow-domain",
        env = "WEBGATE_ALLOW_DOMAINS",
        value_delimiter = ','
    )]
    pub(crate) allow_domains: Vec<String>,
    /// Never fetch these domains or their subdomains; checked on every hop.
    #[arg(
        long = "deny-domain",
        env = "WEBGATE_DENY_DOMAINS",
        value_delimiter = ','
    )]
    pub(crate) deny_domains: Vec<String>,
    /// The TCP connect limit per request, in milliseconds (default 5000).
    #[arg(long, value_name = "MS")]
    pub(crate) connect_timeout_ms: Option<u64>,
    /// The limit of one request or redirect hop, in milliseconds (default
    /// 20000).
    #[arg(long, value_name = "MS")]
    pub(crate) request_timeout_ms: Option<u64>,
    /// The limit of turning a fetched page into text, in milliseconds
    /// (default 10000); past it the text so far is returned, truncated.
    #[arg(long, value_name = "MS")]
    pub(crate) extract_timeout_ms: Option<u64>,
    /// The limit of one whole fetch, every redirect and the extraction
    /// included, in milliseconds (default: none, each request has its
    /// own limits); past it the call answers with the time-limit text.
    #[arg(long, value_name = "MS")]
    pub(crate) call_timeout_ms: Option<u64>,
    /// Read each origin's /robots.txt (RFC 9309) before fetching from it,
    /// on every hop, and refuse what it disallows.
    #[arg(long)]
    pub(crate) robots_txt: bool,
    /// When an HTML page gives nothing usable (block page, thin page, 403,
    /// 429, 5xx), fetch PREFIX followed by its URL instead, for example
    /// https://r.jina.ai/ (that service sees the URL).
    #[arg(long, value_name = "PREFIX")]
    pub(crate) reader: Option<String>,
    /// Dial every request afresh instead of keeping idle connections for
    /// later requests to the same host and address, and sharing h2
    /// connections among concurrent ones (`mcp` sessions keep and share
    /// them by default; every request is resolved and vetted either way).
    #[arg(long)]
    pub(crate) no_connection_reuse: bool,
    /// Keep at most N connections per host for later requests, idle
    /// HTTP/1.1 ones and shared h2 ones (default 64; 0 keeps none). A
    /// shared service that runs more fetches at once to one host than
    /// this dials afresh for the rest: size it to the concurrency.
    #[arg(long, value_name = "N")]
    pub(crate) idle_per_host: Option<usize>,
    /// Keep at most N connections in all (default 256; 0 keeps none).
    #[arg(long, value_name = "N")]
    pub(crate) idle_total: Option<usize>,
    /// Close a kept connection idle this long, in milliseconds (default
    /// 30000; 0 keeps none).
    #[arg(long, value_name = "MS")]
    pub(crate) idle_timeout_ms: Option<u64>,
    #[command(flatten)]
    pub(crate) look: LookOptions,
}

/// How a fetched page's text looks (shared by `fetch`, `call`, `mcp` and
/// `extract`).
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct LookOptions {
    /// How links show in the markdown: inline `[text](url)` (each URL at
    /// its first link; a later link to it is its text), references
    /// (`[text][n]`, each URL once after the text), or none (text only,
    /// no images).
    #[arg(long, value_name = "STYLE", default_value = "inline", value_parser = clap::builder::PossibleValuesParser::new(["inline", "references", "none"]))]
    pub(crate) links: String,
    /// Reader comments under an article (and customers' reviews under a
    /// product): drop them (the default), or keep them after the article
    /// under a heading of their own. A forum thread's replies are its
    /// content either way.
    #[arg(long, value_name = "WHAT", default_value = "drop", value_parser = clap::builder::PossibleValuesParser::new(["drop", "keep"]))]
    pub(crate) comments: String,
}

impl LookOptions {
    /// The two settings (the parser has checked the words).
    pub(crate) fn settings(&self) -> (webgate::policy::Links, webgate::policy::Comments) {
        (
            self.links.parse().unwrap_or_default(),
            self.comments.parse().unwrap_or_default(),
        )
    }
}

impl PolicyOptions {
    pub(crate) fn policy(&self) -> Result<Policy, String> {
        let mut p = Policy::default();
        if let Some(n) = self.max_chars_limit {
            if n == 0 {
                return Err("--max-chars-limit must be at least 1".into());
            }
            p.max_chars = n;
        }
        p.domains = DomainRules::new(&self.allow_domains, &self.deny_domains)
            .map_err(|e| format!("--allow-domain / --deny-domain: {e}"))?;
        for (ms, name, slot) in [
            (
                self.connect_timeout_ms,
                "--connect-timeout-ms",
                &mut p.connect_timeout,
            ),
            (
                self.request_timeout_ms,
                "--request-timeout-ms",
                &mut p.request_timeout,
            ),
            (
                self.extract_timeout_ms,
                "--extract-timeout-ms",
                &mut p.extract_timeout,
            ),
        ] {
            if let Some(ms) = ms {
                if ms == 0 {
                    return Err(format!("{name} must be at least 1"));
                }
                *slot = std::time::Duration::from_millis(ms);
            }
        }
        if let Some(ms) = self.call_timeout_ms {
            if ms == 0 {
                return Err("--call-timeout-ms must be at least 1".into());
            }
            p.call_timeout = Some(std::time::Duration::from_millis(ms));
        }
        p.robots_txt = self.robots_txt;
        p.connection_reuse = !self.no_connection_reuse;
        // Zero is a bound like any other here (keep none), so no check.
        if let Some(n) = self.idle_per_host {
            p.idle_per_host = n;
        }
        if let Some(n) = self.idle_total {
            p.idle_total = n;
        }
        if let Some(ms) = self.idle_timeout_ms {
            p.idle_timeout = std::time::Duration::from_millis(ms);
        }
        (p.links, p.comments) = self.look.settings();
        if let Some(prefix) = &self.reader {
            // A prefix the policy would refuse could never be used: say so
            // at start-up rather than on every fallback.
            if admit(&format!("{prefix}https://example.com/"), &p).is_err() {
                return Err(format!(
                    "--reader {prefix:?}: the prefix must start an https URL the policy admits"
                ));
            }
        }
        Ok(p)
    }

    /// The agent options a `fetch` or `call` runs with: the contract's,
    /// plus the reader when one is named.
    pub(crate) fn reader_options(&self) -> Option<AgentOptions> {
        let prefix = self.reader.clone()?;
        let mut o = AgentOptions::default();
        o.reader_prefix = Some(prefix);
        Some(o)
    }
}

/// The agent layer's options for `mcp` (contract §11 and §12).
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct AgentFlags {
    /// Hand results over without the untrusted envelope (not advised).
    #[arg(long)]
    pub(crate) no_envelope: bool,
    /// Every peer option on, with the peers' defaults (budget of 8 searches).
    #[arg(long)]
    pub(crate) peer_options: bool,
    /// Accept `offset` and page long texts (head, marker, tail).
    #[arg(long)]
    pub(crate) paging: bool,
    /// Truncation and thin-page notes.
    #[arg(long)]
    pub(crate) notes: bool,
    /// Report verification and block pages as failures.
    #[arg(long)]
    pub(crate) block_detection: bool,
    /// Tell the model, on a failed fetch, that it did not read the page.
    #[arg(long)]
    pub(crate) failure_notes: bool,
    /// Searches per session; the tool is withdrawn when spent.
    #[arg(long, env = "WEBGATE_SEARCH_BUDGET", value_name = "N")]
    pub(crate) search_budget: Option<u32>,
    /// Fetches per session; likewise.
    #[arg(long, env = "WEBGATE_FETCH_BUDGET", value_name = "N")]
    pub(crate) fetch_budget: Option<u32>,
    /// Accept `num_results`, `recency` and `site` in searches.
    #[arg(long)]
    pub(crate) search_aliases: bool,
    /// Search results as a numbered list instead of JSON.
    #[arg(long)]
    pub(crate) numbered_search: bool,
    /// Show web_fetch under this name.
    #[arg(long, value_name = "NAME")]
    pub(crate) fetch_name: Option<String>,
    /// Show web_search under this name.
    #[arg(long, value_name = "NAME")]
    pub(crate) search_name: Option<String>,
}

impl AgentFlags {
    pub(crate) fn options(&self) -> AgentOptions {
        let mut o = if self.peer_options {
            AgentOptions::all()
        } else {
            AgentOptions::default()
        };
        o.envelope = !self.no_envelope;
        o.paging |= self.paging;
        o.result_notes |= self.notes;
        o.block_detection |= self.block_detection;
        o.failure_notes |= self.failure_notes;
        o.search_aliases |= self.search_aliases;
        o.numbered_search |= self.numbered_search;
        if self.search_budget.is_some() {
            o.search_budget = self.search_budget;
        }
        if self.fetch_budget.is_some() {
            o.fetch_budget = self.fetch_budget;
        }
        o.fetch_name = self.fetch_name.clone();
        o.search_name = self.search_name.clone();
        o
    }
}

/// What the call leaves behind for the operator: never tool output.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct AuditOptions {
    /// Write the call's audit record to stderr as one JSON line (ok, soft
    /// and hard alike).
    #[arg(long)]
    pub(crate) audit: bool,
    /// Let the audit record and log events show query strings, userinfo
    /// and search queries (redacted by default).
    #[arg(long)]
    pub(crate) reveal_queries: bool,
    /// Write tracing events to stderr under this filter (e.g. `webgate=info`).
    #[arg(long, value_name = "FILTER")]
    pub(crate) log: Option<String>,
}

impl AuditOptions {
    pub(crate) fn settings(&self) -> AuditSettings {
        let mut s = AuditSettings::default();
        s.reveal_queries = self.reveal_queries;
        s
    }

    /// Installs the stderr subscriber when `--log` asks for one.
    pub(crate) fn init_log(&self) -> Result<(), String> {
        let Some(filter) = &self.log else {
            return Ok(());
        };
        let mut filter = tracing_subscriber::EnvFilter::try_new(filter)
            .map_err(|e| format!("--log {filter:?}: {e}"))?;
        if !self.reveal_queries {
            // The MCP SDK's own events print whole protocol messages
            // (arguments, URLs with their queries), which cannot be
            // redacted field by field as webgate's are: below warnings
            // they are shown only when queries may be.
            filter = filter.add_directive("rmcp=warn".parse().expect("a valid directive"));
        }
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .try_init()
            .map_err(|e| format!("--log: {e}"))
    }
}

/// Where search results come from (host configuration, never a prompt).
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct ProviderOptions {
    /// gateway, brave, searxng or tavily (default: WEBGATE_SEARCH_PROVIDER,
    /// else gateway).
    #[arg(long)]
    pub(crate) provider: Option<String>,
}

/// `HOST=ADDR[,ADDR…]`.
pub(crate) fn parse_resolve(s: &str) -> Result<(String, Vec<IpAddr>), String> {
    let (host, addrs) = s
        .split_once('=')
        .ok_or_else(|| format!("--resolve {s:?}: expected HOST=ADDR[,ADDR…]"))?;
    let addrs = addrs
        .split(',')
        .filter(|a| !a.trim().is_empty())
        .map(|a| {
            let a = a.trim();
            let bare = a
                .strip_prefix('[')
                .and_then(|x| x.strip_suffix(']'))
                .unwrap_or(a);
            bare.parse::<IpAddr>()
                .map_err(|_| format!("--resolve {s:?}: {a:?} is not an IP address"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((
        host.trim().trim_end_matches('.').to_ascii_lowercase(),
        addrs,
    ))
}

/// `ADDR:PORT=ADDR2:PORT2`.
pub(crate) fn parse_connect_to(s: &str) -> Result<(SocketAddr, SocketAddr), String> {
    let (a, b) = s
        .split_once('=')
        .ok_or_else(|| format!("--connect-to {s:?}: expected ADDR:PORT=ADDR2:PORT2"))?;
    let parse = |x: &str| {
        x.trim()
            .parse::<SocketAddr>()
            .map_err(|_| format!("--connect-to {s:?}: {x:?} is not ADDR:PORT"))
    };
    Ok((parse(a)?, parse(b)?))
}

pub(crate) fn build_fetcher(
    net: &NetOptions,
    policy: &PolicyOptions,
    audit: AuditSettings,
) -> Result<Fetcher, String> {
    let dns: Option<Arc<dyn Resolve>> = match net.dns_server {
        Some(addr) => Some(Arc::new(
            HickoryResolve::server(addr).map_err(|e| e.to_string())?,
        )),
        // Without a system configuration, only --resolve answers.
        None => HickoryResolve::system()
            .ok()
            .map(|r| Arc::new(r) as Arc<dyn Resolve>),
    };
    let mut table = HashMap::new();
    for r in &net.resolve {
        let (host, addrs) = parse_resolve(r)?;
        table.insert(host, addrs);
    }
    let resolver: Arc<dyn Resolve> = match (table.is_empty(), dns) {
        (true, Some(d)) => d,
        (_, d) => {
            let s = StaticResolve::new(table);
            Arc::new(match d {
                Some(d) => s.with_fallback(d),
                None => s,
            })
        }
    };
    let map = net
        .connect_to
        .iter()
        .map(|c| parse_connect_to(c))
        .collect::<Result<Vec<_>, _>>()?;
    let tls = tls_settings(net)?;
    Fetcher::builder()
        .policy(policy.policy()?)
        .resolver(resolver)
        .dialer(Arc::new(RemappedDial::new(map, TcpDial)))
        .tls(tls)
        .audit(audit)
        .build()
        .map_err(|e| e.to_string())
}

/// The search provider settings of the flags and the environment.
pub(crate) fn search_settings(provider: &ProviderOptions) -> SearchSettings {
    let env = |k: &str| std::env::var(k).ok();
    let mut s = SearchSettings::default();
    s.provider = provider
        .provider
        .clone()
        .or_else(|| env("WEBGATE_SEARCH_PROVIDER"));
    s.endpoint = env("WEBGATE_SEARCH_ENDPOINT");
    s.key = env("WEBGATE_SEARCH_KEY");
    s
}

/// The runtime the network commands run on (a failure is reported here).
pub(crate) fn runtime() -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => Some(rt),
        Err(e) => {
            eprintln!("webgate: cannot start the runtime: {e}");
            None
        }
    }
}

/// The search provider's HTTP client, under the host's `--resolve` and
/// `--connect-to` as fetches are.
pub(crate) fn search_client(net: &NetOptions, tls: &TlsSettings) -> Result<Client, String> {
    let mut connect = search_net::HostConnect::default();
    for r in &net.resolve {
        let (host, addrs) = parse_resolve(r)?;
        connect.table.insert(host.to_ascii_lowercase(), addrs);
    }
    for c in &net.connect_to {
        connect.map.push(parse_connect_to(c)?);
    }
    Ok(Client::new(Policy::default(), tls)
        .map_err(|e| e.to_string())?
        .with_connect(Arc::new(connect)))
}

/// The host-side TLS settings of `--ca-file`.
pub(crate) fn tls_settings(net: &NetOptions) -> Result<TlsSettings, String> {
    let mut tls = TlsSettings::default();
    if let Some(path) = &net.ca_file {
        let pem = std::fs::read(path).map_err(|e| format!("--ca-file {path}: {e}"))?;
        tls.add_pem_roots(&pem)
            .map_err(|e| format!("--ca-file {path}: {e}"))?;
    }
    Ok(tls)
}
