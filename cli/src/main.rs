//! `webgate`: the command-line face of the library.
//!
//! - `call TOOL JSON` and `fetch URL`: the tool as a model calls it, or
//!   typed. Ok and soft results print their text (exit 0 and 1); a hard
//!   failure prints `{Kind}: {message}` to stderr (exit 2).
//! - `check URL`, `check-ip ADDRESS`: admission and the blocked table,
//!   without network.
//! - `extract FILE`: the same extraction `web_fetch` runs, on a local file.
//! - `mcp`: both tools over MCP on stdio (see [`mcp`]).
//!
//! Exit 64 is bad usage. Every decision is the library's; this file only
//! reads options and prints.

#![forbid(unsafe_code)]

/// `println!` that survives a closed stdout: a reader that stops early
/// (`webgate extract page.html | head`) is not an error of webgate's, so
/// a broken pipe is let go (the command still exits with the code of its
/// outcome) instead of panicking with a backtrace.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = writeln!(stdout, $($arg)*).and_then(|()| stdout.flush()) {
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("webgate: cannot write the output: {e}");
                std::process::exit(1);
            }
        }
    }};
}

mod mcp;
mod mcp_wire;
mod search_net;

use std::collections::HashMap;
use std::io::Read as _;
use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use serde_json::{json, Value};
use webgate::agent::{AgentOptions, Toolbox};
use webgate::audit::AuditSettings;
use webgate::extract::{render_page_as, Style};
use webgate::fetch::Fetcher;
use webgate::messages::{Class, FetchError};
use webgate::net::{HickoryResolve, RemappedDial, Resolve, StaticResolve, TcpDial, TlsSettings};
use webgate::policy::{admit, check, DomainRules, Policy, Verdict};
use webgate::search::client::Client;
use webgate::search::providers::{configure, SearchSettings};
use webgate::search::Searcher;
use webgate::tool::Outcome;

/// webgate: the trusted egress layer for AI agents.
///
/// Every URL is admitted by fixed rules and every resolved address is
/// judged by the IANA special-purpose table before any connection.
#[derive(Parser, Debug)]
#[command(name = "webgate", version, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Call a tool with JSON arguments exactly as a model sends them.
    /// Example: webgate call web_fetch '{"url": "https://example.com/"}'
    Call {
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
    },
    /// Search the web and print the results as web_search returns them.
    /// The provider comes from WEBGATE_SEARCH_PROVIDER (gateway, brave,
    /// searxng, tavily) or --provider, with WEBGATE_SEARCH_ENDPOINT and
    /// WEBGATE_SEARCH_KEY.
    Search {
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
    },
    /// Fetch one page and print it as web_fetch returns it.
    Fetch {
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
    },
    /// Serve web_fetch and web_search over MCP on stdio (one session is one
    /// agent run). Results come inside the untrusted envelope; search is
    /// offered when a provider is configured (WEBGATE_SEARCH_*).
    Mcp {
        #[command(flatten)]
        net: NetOptions,
        #[command(flatten)]
        policy: PolicyOptions,
        #[command(flatten)]
        provider: ProviderOptions,
        #[command(flatten)]
        agent: AgentFlags,
        #[command(flatten)]
        audit: AuditOptions,
    },
    /// Run URL admission only (no network) and print `admit` or the exact
    /// refusal text. Exit 0 admitted, 1 soft refusal, 2 hard refusal.
    Check {
        /// The URL, exactly as a model would pass it.
        url: String,
        /// Print one JSON object: {"class", "kind", "text"}.
        #[arg(long)]
        json: bool,
    },
    /// Judge one IP address by the blocked-address table and print
    /// `allowed` or `blocked <range>`. Exit 0 allowed, 2 blocked.
    #[command(name = "check-ip")]
    CheckIp {
        /// An IPv4 or IPv6 address (IPv6 may be bracketed).
        address: String,
        /// Print one JSON object: {"verdict", "range"}.
        #[arg(long)]
        json: bool,
    },
    /// Run web_fetch's HTML extraction on a local file (or - for stdin);
    /// `.gz` files are inflated first.
    Extract {
        /// The HTML file, or - for standard input.
        #[arg(default_value = "-")]
        file: String,
        /// Render the whole document, not the main article.
        #[arg(long)]
        raw: bool,
        /// Plain text instead of markdown (no syntax, no link targets).
        #[arg(long)]
        text: bool,
        /// The URL that links and images resolve against.
        #[arg(long, default_value = "https://example.invalid/")]
        base_url: String,
        /// The file's charset label (default UTF-8).
        #[arg(long)]
        charset: Option<String>,
    },
}

/// Host-side network options, for operators and tests. None of them
/// switches the policy off: answers are still vetted, and only vetted
/// addresses are dialled.
#[derive(Args, Debug, Clone, Default)]
struct NetOptions {
    /// Ask this DNS server (UDP and TCP) instead of the system's.
    #[arg(long, value_name = "IP:PORT")]
    dns_server: Option<SocketAddr>,
    /// Answer HOST from this list instead of DNS (an empty list is an
    /// answer with no address). Repeatable.
    #[arg(long, value_name = "HOST=ADDR[,ADDR…]")]
    resolve: Vec<String>,
    /// After vetting ADDR:PORT, open the socket to ADDR2:PORT2 instead
    /// (IPv6 as [addr]:port). Repeatable.
    #[arg(long, value_name = "ADDR:PORT=ADDR2:PORT2")]
    connect_to: Vec<String>,
    /// Also trust the certificates in this PEM file.
    #[arg(long, value_name = "PEM")]
    ca_file: Option<String>,
}

/// Host policy beyond the contract's defaults (never from a prompt).
#[derive(Args, Debug, Clone, Default)]
struct PolicyOptions {
    /// The character limit (the maximum of `max_chars`; default 40000).
    #[arg(long = "max-chars-limit", env = "WEBGATE_MAX_CHARS", value_name = "N")]
    max_chars_limit: Option<usize>,
    /// Fetch only these domains and their subdomains (repeatable, or a
    /// comma-separated list in the environment); checked on every hop.
    #[arg(
        long = "allow-domain",
        env = "WEBGATE_ALLOW_DOMAINS",
        value_delimiter = ','
    )]
    allow_domains: Vec<String>,
    /// Never fetch these domains or their subdomains; checked on every hop.
    #[arg(
        long = "deny-domain",
        env = "WEBGATE_DENY_DOMAINS",
        value_delimiter = ','
    )]
    deny_domains: Vec<String>,
    /// The TCP connect limit per request, in milliseconds (default 5000).
    #[arg(long, value_name = "MS")]
    connect_timeout_ms: Option<u64>,
    /// The limit of one request or redirect hop, in milliseconds (default
    /// 20000).
    #[arg(long, value_name = "MS")]
    request_timeout_ms: Option<u64>,
    /// The limit of turning a fetched page into text, in milliseconds
    /// (default 10000); past it the text so far is returned, truncated.
    #[arg(long, value_name = "MS")]
    extract_timeout_ms: Option<u64>,
    /// Read each origin's /robots.txt (RFC 9309) before fetching from it,
    /// on every hop, and refuse what it disallows.
    #[arg(long)]
    robots_txt: bool,
    /// When an HTML page gives nothing usable (block page, thin page, 403,
    /// 429, 5xx), fetch PREFIX followed by its URL instead, for example
    /// https://r.jina.ai/ (that service sees the URL).
    #[arg(long, value_name = "PREFIX")]
    reader: Option<String>,
}

impl PolicyOptions {
    fn policy(&self) -> Result<Policy, String> {
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
        p.robots_txt = self.robots_txt;
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
    fn reader_options(&self) -> Option<AgentOptions> {
        let prefix = self.reader.clone()?;
        let mut o = AgentOptions::default();
        o.reader_prefix = Some(prefix);
        Some(o)
    }
}

/// The agent layer's options for `mcp` (contract §11 and §12).
#[derive(Args, Debug, Clone, Default)]
struct AgentFlags {
    /// Hand results over without the untrusted envelope (not advised).
    #[arg(long)]
    no_envelope: bool,
    /// Every peer option on, with the peers' defaults (budget of 8 searches).
    #[arg(long)]
    peer_options: bool,
    /// Accept `offset` and page long texts (head, marker, tail).
    #[arg(long)]
    paging: bool,
    /// Truncation and thin-page notes.
    #[arg(long)]
    notes: bool,
    /// Report verification and block pages as failures.
    #[arg(long)]
    block_detection: bool,
    /// Tell the model, on a failed fetch, that it did not read the page.
    #[arg(long)]
    failure_notes: bool,
    /// Searches per session; the tool is withdrawn when spent.
    #[arg(long, env = "WEBGATE_SEARCH_BUDGET", value_name = "N")]
    search_budget: Option<u32>,
    /// Fetches per session; likewise.
    #[arg(long, env = "WEBGATE_FETCH_BUDGET", value_name = "N")]
    fetch_budget: Option<u32>,
    /// Accept `num_results`, `recency` and `site` in searches.
    #[arg(long)]
    search_aliases: bool,
    /// Search results as a numbered list instead of JSON.
    #[arg(long)]
    numbered_search: bool,
    /// Show web_fetch under this name.
    #[arg(long, value_name = "NAME")]
    fetch_name: Option<String>,
    /// Show web_search under this name.
    #[arg(long, value_name = "NAME")]
    search_name: Option<String>,
}

impl AgentFlags {
    fn options(&self) -> AgentOptions {
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
struct AuditOptions {
    /// Write the call's audit record to stderr as one JSON line (ok, soft
    /// and hard alike).
    #[arg(long)]
    audit: bool,
    /// Let the audit record and log events show query strings, userinfo
    /// and search queries (redacted by default).
    #[arg(long)]
    reveal_queries: bool,
    /// Write tracing events to stderr under this filter (e.g. `webgate=info`).
    #[arg(long, value_name = "FILTER")]
    log: Option<String>,
}

impl AuditOptions {
    fn settings(&self) -> AuditSettings {
        let mut s = AuditSettings::default();
        s.reveal_queries = self.reveal_queries;
        s
    }

    /// Installs the stderr subscriber when `--log` asks for one.
    fn init_log(&self) -> Result<(), String> {
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
struct ProviderOptions {
    /// gateway, brave, searxng or tavily (default: WEBGATE_SEARCH_PROVIDER,
    /// else gateway).
    #[arg(long)]
    provider: Option<String>,
}

const EXIT_SOFT: u8 = 1;
const EXIT_HARD: u8 = 2;
const EXIT_USAGE: u8 = 64;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are answers, not usage errors.
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Check { url, json } => check_url(&url, json),
        Command::CheckIp { address, json } => check_ip(&address, json),
        Command::Call {
            tool,
            arguments,
            net,
            policy,
            provider,
            audit,
            json,
        } => {
            let args: Value = match serde_json::from_str(&arguments) {
                Ok(v) => v,
                Err(e) => return usage(&format!("the arguments are not JSON: {e}")),
            };
            if let Err(e) = audit.init_log() {
                return usage(&e);
            }
            match tool.as_str() {
                "web_fetch" => run_fetch(&net, &policy, &audit, json, args),
                "web_search" => run_search(&net, &provider, &audit, json, args),
                other => usage(&format!(
                    "unknown tool {other:?} (known: web_fetch, web_search)"
                )),
            }
        }
        Command::Search {
            query,
            count,
            freshness,
            country,
            search_lang,
            safesearch,
            include_domains,
            exclude_domains,
            provider,
            audit,
            json,
        } => {
            if let Err(e) = audit.init_log() {
                return usage(&e);
            }
            let mut args = json!({"query": query});
            let fields = [
                ("count", count.map(|c| json!(c))),
                ("freshness", freshness.map(|v| json!(v))),
                ("country", country.map(|v| json!(v))),
                ("search_lang", search_lang.map(|v| json!(v))),
                ("safesearch", safesearch.map(|v| json!(v))),
                (
                    "include_domains",
                    (!include_domains.is_empty()).then(|| json!(include_domains)),
                ),
                (
                    "exclude_domains",
                    (!exclude_domains.is_empty()).then(|| json!(exclude_domains)),
                ),
            ];
            for (k, v) in fields {
                if let Some(v) = v {
                    args[k] = v;
                }
            }
            run_search(&NetOptions::default(), &provider, &audit, json, args)
        }
        Command::Fetch {
            url,
            max_chars,
            raw,
            net,
            policy,
            audit,
            json,
        } => {
            if let Err(e) = audit.init_log() {
                return usage(&e);
            }
            let mut args = json!({"url": url, "raw": raw});
            if let Some(m) = max_chars {
                args["max_chars"] = json!(m);
            }
            run_fetch(&net, &policy, &audit, json, args)
        }
        Command::Mcp {
            net,
            policy,
            provider,
            agent,
            audit,
        } => {
            if let Err(e) = audit.init_log() {
                return usage(&e);
            }
            run_mcp(&net, &policy, &provider, &agent, &audit)
        }
        Command::Extract {
            file,
            raw,
            text,
            base_url,
            charset,
        } => extract(&file, raw, text, &base_url, charset.as_deref()),
    }
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("webgate: {msg}");
    ExitCode::from(EXIT_USAGE)
}

/// `HOST=ADDR[,ADDR…]`.
fn parse_resolve(s: &str) -> Result<(String, Vec<IpAddr>), String> {
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
fn parse_connect_to(s: &str) -> Result<(SocketAddr, SocketAddr), String> {
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

fn build_fetcher(
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

fn run_fetch(
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

fn run_mcp(
    net: &NetOptions,
    policy: &PolicyOptions,
    provider: &ProviderOptions,
    agent: &AgentFlags,
    audit: &AuditOptions,
) -> ExitCode {
    let fetcher = match build_fetcher(net, policy, audit.settings()) {
        Ok(f) => f,
        Err(e) => return usage(&e),
    };
    let tls = match tls_settings(net) {
        Ok(t) => t,
        Err(e) => return usage(&e),
    };
    let Some(rt) = runtime() else {
        return ExitCode::FAILURE;
    };
    let settings = search_settings(provider);
    let served = rt.block_on(async {
        let searcher = match search_client(net, &tls)
            .and_then(|client| configure(&settings, client).map_err(|e| e.to_string()))
        {
            Ok(p) => Some(Searcher::new(p).with_audit(audit.settings())),
            Err(why) => {
                // Not an error: the server offers web_fetch alone.
                eprintln!("webgate mcp: {why}");
                None
            }
        };
        let mut options = agent.options();
        options.reader_prefix = policy.reader.clone();
        let toolbox = Arc::new(Toolbox::new(fetcher, searcher, options));
        mcp::serve(toolbox, audit.audit).await
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("webgate {e}");
            ExitCode::FAILURE
        }
    }
}

/// The search provider settings of the flags and the environment.
fn search_settings(provider: &ProviderOptions) -> SearchSettings {
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
fn runtime() -> Option<tokio::runtime::Runtime> {
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
fn search_client(net: &NetOptions, tls: &TlsSettings) -> Result<Client, String> {
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
fn tls_settings(net: &NetOptions) -> Result<TlsSettings, String> {
    let mut tls = TlsSettings::default();
    if let Some(path) = &net.ca_file {
        let pem = std::fs::read(path).map_err(|e| format!("--ca-file {path}: {e}"))?;
        tls.add_pem_roots(&pem)
            .map_err(|e| format!("--ca-file {path}: {e}"))?;
    }
    Ok(tls)
}

fn run_search(
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
        let provider = configure(&settings, client).map_err(|e| e.to_string())?;
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

fn print_outcome(o: &Outcome, json: bool) -> ExitCode {
    let (class, code) = match o.class {
        Class::Ok => ("ok", 0),
        Class::Soft => ("soft", EXIT_SOFT),
        Class::Hard => ("hard", EXIT_HARD),
    };
    let retry_after = o.retry_after.map(|d| d.as_secs());
    if json {
        print_json_line(class, o.kind.map(|k| k.to_string()), &o.text, retry_after);
    } else if o.class == Class::Hard {
        eprintln!(
            "{}: {}",
            o.kind.map(|k| k.to_string()).unwrap_or_default(),
            o.text
        );
        if let Some(s) = retry_after {
            eprintln!("webgate: the provider asks to wait {s} s before the next request");
        }
    } else {
        out!("{}", o.text);
    }
    ExitCode::from(code)
}

/// `{"class","kind","text"}`, then `"retry_after_s"` only when a search
/// provider sent one; written by hand to keep the documented order.
fn print_json_line(class: &str, kind: Option<String>, text: &str, retry_after: Option<u64>) {
    let wait = retry_after
        .map(|s| format!(",\"retry_after_s\":{s}"))
        .unwrap_or_default();
    out!(
        "{{\"class\":{},\"kind\":{},\"text\":{}{wait}}}",
        json!(class),
        json!(kind),
        json!(text)
    );
}

fn check_url(url: &str, json: bool) -> ExitCode {
    let (class, kind, text) = match admit(url, &Policy::default()) {
        Ok(_) => ("admit", None, "admit".to_string()),
        Err(r) => {
            let e = FetchError::from(r);
            let class = match e.class() {
                Class::Soft => "soft",
                _ => "hard",
            };
            (class, e.kind().map(|k| k.to_string()), e.to_string())
        }
    };
    if json {
        print_json_line(class, kind, &text, None);
    } else {
        out!("{text}");
    }
    ExitCode::from(match class {
        "admit" => 0,
        "soft" => EXIT_SOFT,
        _ => EXIT_HARD,
    })
}

fn check_ip(address: &str, json: bool) -> ExitCode {
    let bare = address
        .strip_prefix('[')
        .and_then(|a| a.strip_suffix(']'))
        .unwrap_or(address);
    let ip: IpAddr = match bare.parse() {
        Ok(ip) => ip,
        Err(_) => {
            return usage(&format!(
                "not an IP address: {address:?} (write 127.0.0.1, ::1 or [::1])"
            ))
        }
    };
    let range = match check(ip) {
        Verdict::Allow => None,
        Verdict::Deny { range, .. } => Some(range.to_string()),
    };
    if json {
        let verdict = if range.is_some() {
            "blocked"
        } else {
            "allowed"
        };
        out!(
            "{{\"verdict\":{},\"range\":{}}}",
            json!(verdict),
            json!(range)
        );
    } else {
        match &range {
            Some(r) => out!("blocked {r}"),
            None => out!("allowed"),
        }
    }
    ExitCode::from(if range.is_some() { EXIT_HARD } else { 0 })
}

fn extract(file: &str, raw: bool, text: bool, base: &str, charset: Option<&str>) -> ExitCode {
    let base = match url::Url::parse(base) {
        Ok(u) => u,
        Err(_) => return usage(&format!("--base-url {base:?} is not a URL")),
    };
    let mut bytes = Vec::new();
    let read = if file == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(file).map(|b| bytes = b)
    };
    if let Err(e) = read {
        eprintln!("webgate: {file}: {e}");
        return ExitCode::FAILURE;
    }
    if file.ends_with(".gz") || bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        if let Err(e) = flate2::read::GzDecoder::new(bytes.as_slice()).read_to_end(&mut out) {
            eprintln!("webgate: {file}: not valid gzip: {e}");
            return ExitCode::FAILURE;
        }
        bytes = out;
    }
    let encoding = match webgate::body::charset::encoding_for(charset) {
        Ok(e) => e,
        Err(_) => {
            return usage(&format!(
                "--charset {:?} is not a known label",
                charset.unwrap_or("")
            ))
        }
    };
    let html = webgate::body::charset::decode(&bytes, encoding);
    let style = if text { Style::Plain } else { Style::Markdown };
    let (out, _) = render_page_as(&html, &base, raw, style);
    out!("{out}");
    ExitCode::SUCCESS
}
