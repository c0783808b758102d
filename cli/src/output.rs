//! How an outcome is printed: ok and soft texts on stdout, a hard
//! failure as `{Kind}: {message}` on stderr, or one JSON line; and the exit
//! code of each class.

use std::process::ExitCode;

use serde_json::json;
use webgate::messages::Class;
use webgate::tool::Outcome;

/// Exit code of a soft outcome.
pub(crate) const EXIT_SOFT: u8 = 1;
/// Exit code of a hard outcome.
pub(crate) const EXIT_HARD: u8 = 2;
/// Exit code of bad usage.
pub(crate) const EXIT_USAGE: u8 = 64;

/// A usage error: the message on stderr, exit 64.
pub(crate) fn usage(msg: &str) -> ExitCode {
    eprintln!("webgate: {msg}");
    ExitCode::from(EXIT_USAGE)
}

pub(crate) fn print_outcome(o: &Outcome, json: bool) -> ExitCode {
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
pub(crate) fn print_json_line(
    class: &str,
    kind: Option<String>,
    text: &str,
    retry_after: Option<u64>,
) {
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
