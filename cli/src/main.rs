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
//! Exit 64 is bad usage. Every decision is the library's; the CLI only
//! reads options and prints. Read in order: this file (the commands),
//! [`host`] (the options every network command shares and what they
//! build), [`output`] (printing and exit codes), then one file per command
//! under `commands/`.

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

mod commands {
    pub(crate) mod call;
    pub(crate) mod check;
    pub(crate) mod extract;
    pub(crate) mod fetch;
    pub(crate) mod mcp;
    pub(crate) mod search;
}
mod host;
mod host_config;
mod mcp;
mod mcp_http;
mod mcp_wire;
mod output;
mod search_net;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use commands::{call, check, extract, fetch, mcp as serve, search};
use output::EXIT_USAGE;

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

/// The commands; each one's arguments and help are in its own file.
#[derive(Subcommand, Debug)]
enum Command {
    Call(call::CallArgs),
    Search(search::SearchArgs),
    Fetch(fetch::FetchArgs),
    Mcp(serve::McpArgs),
    Check(check::CheckArgs),
    #[command(name = "check-ip")]
    CheckIp(check::CheckIpArgs),
    Extract(extract::ExtractArgs),
}

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
        Command::Call(a) => call::run(a),
        Command::Search(a) => search::run(a),
        Command::Fetch(a) => fetch::run(a),
        Command::Mcp(a) => serve::run(a),
        Command::Check(a) => check::run(a),
        Command::CheckIp(a) => check::run_ip(a),
        Command::Extract(a) => extract::run(a),
    }
}
