//! `webgate mcp`: the host options turned into one toolbox, served over
//! MCP on stdio by [`crate::mcp`], or over Streamable HTTP (`--http`) by
//! [`crate::mcp_http`]. Search is offered when a provider is
//! configured; without one the server offers `web_fetch` alone and says
//! why on stderr.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use webgate::agent::Toolbox;
use webgate::internals::search::configure_with;
use webgate::search::Searcher;

use crate::host::{
    build_fetcher, runtime, search_client, search_settings, tls_settings, AgentFlags, AuditOptions,
    NetOptions, PolicyOptions, ProviderOptions,
};
use crate::host_config::{self, Host, Launch};
use crate::mcp;
use crate::mcp_http::{self, HttpOptions};
use crate::output::usage;

/// Serve web_fetch and web_search over MCP on stdio (one session is one
/// agent run). Results come inside the untrusted envelope; search is
/// offered when a provider is configured (WEBGATE_SEARCH_*).
#[derive(Args, Debug)]
pub(crate) struct McpArgs {
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
    /// At most this many requests handled at once (calls, lists, pings):
    /// past it the server stops reading until a reply has been written
    /// out, so a client that sends faster than it reads makes the server
    /// wait, not grow.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..))]
    max_concurrent_calls: u16,
    /// Serve MCP's Streamable HTTP transport at http://ADDR/mcp instead of
    /// stdio, for a webgate a team shares: each session one agent run
    /// with its own budgets, every session's audit on the one stderr. A
    /// non-loopback ADDR needs --token-file.
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// With --http: the file whose first line is the bearer token every
    /// request must carry (Authorization: Bearer TOKEN; at least 16
    /// printable characters).
    #[arg(long, value_name = "PATH", requires = "http")]
    token_file: Option<std::path::PathBuf>,
    /// With --http: a browser origin allowed to call (scheme://host:port;
    /// repeatable). A request with any other Origin header is refused.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// With --http: a Host header value accepted (repeatable; default: the
    /// loopback names on a loopback ADDR, any name elsewhere).
    #[arg(long, value_name = "HOST", requires = "http")]
    allow_host: Vec<String>,
    /// With --http: no sessions; every request is served on its own, so
    /// that several processes can sit behind any load balancer (budgets
    /// then bound each request only).
    #[arg(long, requires = "http")]
    stateless: bool,
    /// With --http: at most this many sessions at once (a new one past it
    /// is answered 503; an idle session ends after 5 minutes).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..), requires = "http")]
    max_sessions: u32,
    /// Print the configuration HOST's MCP client needs to start this
    /// server with the other options given here (the binary by its
    /// absolute path, the WEBGATE_* variables set now as its environment),
    /// then exit; stderr says where it goes.
    #[arg(long, value_enum, value_name = "HOST")]
    print_config: Option<Host>,
}

/// Runs `mcp` until the client closes the session.
pub(crate) fn run(a: McpArgs) -> ExitCode {
    if let Some(host) = a.print_config {
        return print_config(host);
    }
    if let Err(e) = a.audit.init_log() {
        return usage(&e);
    }
    let transport = match a.http {
        None => Transport::Stdio {
            in_flight: usize::from(a.max_concurrent_calls),
        },
        Some(addr) => {
            let token = match a
                .token_file
                .as_deref()
                .map(mcp_http::read_token)
                .transpose()
            {
                Ok(t) => t,
                Err(e) => return usage(&e),
            };
            let o = HttpOptions {
                addr,
                token,
                allow_origins: a.allow_origin,
                allow_hosts: a.allow_host,
                stateless: a.stateless,
                max_sessions: a.max_sessions as usize,
            };
            if let Err(e) = mcp_http::check(&o) {
                return usage(&e);
            }
            Transport::Http(o)
        }
    };
    serve(
        &a.net,
        &a.policy,
        &a.provider,
        &a.agent,
        &a.audit,
        transport,
    )
}

/// Where the server talks to its clients.
enum Transport {
    /// stdin/stdout, one session, at most `in_flight` requests at once.
    Stdio { in_flight: usize },
    /// Streamable HTTP.
    Http(HttpOptions),
}

/// `--print-config HOST`: this invocation as HOST's configuration.
fn print_config(host: Host) -> ExitCode {
    let Some(args) = std::env::args_os()
        .map(std::ffi::OsString::into_string)
        .collect::<Result<Vec<String>, _>>()
        .ok()
    else {
        return usage("--print-config needs arguments that are UTF-8");
    };
    let exe = match std::env::current_exe().and_then(std::fs::canonicalize) {
        Ok(p) => match p.into_os_string().into_string() {
            Ok(s) => s,
            Err(_) => return usage("--print-config needs a binary path that is UTF-8"),
        },
        Err(e) => return usage(&format!("cannot find this binary's path: {e}")),
    };
    // The subcommand is the first argument (webgate has no global
    // options); what follows it is the server's options.
    let after = args
        .iter()
        .skip(1)
        .position(|a| a == "mcp")
        .map_or(&[][..], |i| &args[i + 2..]);
    let args = host_config::serving_args(after);
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| k.starts_with("WEBGATE_"))
        .collect();
    env.sort();
    let (text, goes) = host_config::render(
        host,
        &Launch {
            exe: &exe,
            args: &args,
            env: &env,
        },
    );
    out!("{text}");
    eprintln!("webgate mcp: this goes into {goes}");
    if env.iter().any(|(k, _)| k == "WEBGATE_SEARCH_KEY") && host != Host::Vscode {
        eprintln!("webgate mcp: it holds WEBGATE_SEARCH_KEY as set; keep it private");
    }
    ExitCode::SUCCESS
}

fn serve(
    net: &NetOptions,
    policy: &PolicyOptions,
    provider: &ProviderOptions,
    agent: &AgentFlags,
    audit: &AuditOptions,
    transport: Transport,
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
            .and_then(|client| configure_with(&settings, client).map_err(|e| e.to_string()))
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
        match transport {
            Transport::Stdio { in_flight } => mcp::serve(toolbox, audit.audit, in_flight).await,
            Transport::Http(o) => mcp_http::serve(toolbox, audit.audit, o).await,
        }
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("webgate {e}");
            ExitCode::FAILURE
        }
    }
}
