//! `webgate check URL` and `webgate check-ip ADDRESS`: the admission rules
//! and the blocked-address table, without network.

use std::net::IpAddr;
use std::process::ExitCode;

use clap::Args;
use serde_json::json;
use webgate::internals::policy::{check, Verdict};
use webgate::messages::{Class, FetchError};
use webgate::policy::{admit, Policy};

use crate::output::{print_json_line, usage, EXIT_HARD, EXIT_SOFT};

/// Run URL admission only (no network) and print `admit` or the exact
/// refusal text. Exit 0 admitted, 1 soft refusal, 2 hard refusal.
#[derive(Args, Debug)]
pub(crate) struct CheckArgs {
    /// The URL, exactly as a model would pass it.
    url: String,
    /// Print one JSON object: {"class", "kind", "text"}.
    #[arg(long)]
    json: bool,
}

/// Judge one IP address by the blocked-address table and print
/// `allowed` or `blocked <range>`. Exit 0 allowed, 2 blocked.
#[derive(Args, Debug)]
pub(crate) struct CheckIpArgs {
    /// An IPv4 or IPv6 address (IPv6 may be bracketed).
    address: String,
    /// Print one JSON object: {"verdict", "range"}.
    #[arg(long)]
    json: bool,
}

/// Runs `check`.
pub(crate) fn run(a: CheckArgs) -> ExitCode {
    check_url(&a.url, a.json)
}

/// Runs `check-ip`.
pub(crate) fn run_ip(a: CheckIpArgs) -> ExitCode {
    check_ip(&a.address, a.json)
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
