//! `webgate`: the command-line face of the library.
//!
//! Today: `check <url>` (URL admission, no network) and `check-ip <address>`
//! (the blocked-address table). Exit codes: 0 admitted or allowed, 1 soft
//! refusal, 2 hard refusal or blocked, 64 bad usage.

#![forbid(unsafe_code)]

use std::net::IpAddr;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;
use webgate::messages::{Class, FetchError};
use webgate::policy::{admit, check, Policy, Verdict};

/// webgate: the trusted egress layer for AI agents.
///
/// Every URL is admitted by fixed rules and every address is judged by the
/// IANA special-purpose table before any connection.
#[derive(Parser, Debug)]
#[command(name = "webgate", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
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
    }
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
        // Written by hand to keep the documented key order.
        println!(
            "{{\"class\":{},\"kind\":{},\"text\":{}}}",
            json!(class),
            json!(kind),
            json!(text)
        );
    } else {
        println!("{text}");
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
            eprintln!("webgate: not an IP address: {address:?} (write 127.0.0.1, ::1 or [::1])");
            return ExitCode::from(EXIT_USAGE);
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
        println!(
            "{{\"verdict\":{},\"range\":{}}}",
            json!(verdict),
            json!(range)
        );
    } else {
        match &range {
            Some(r) => println!("blocked {r}"),
            None => println!("allowed"),
        }
    }
    ExitCode::from(if range.is_some() { EXIT_HARD } else { 0 })
}
