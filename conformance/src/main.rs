//! `webgate-conformance [--filter TEXT] [--vectors DIR]`: runs the vectors
//! and prints one line per vector, every failure in full, then
//! `N passed, N failed`. Exits non-zero on any failure. `cargo xtask
//! conformance` runs this. `WEBGATE_CONFORMANCE_FILTER` works like
//! `--filter`.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use webgate_conformance::{default_dir, run_suite, Verdict};

fn main() -> ExitCode {
    let mut filter = std::env::var("WEBGATE_CONFORMANCE_FILTER").ok();
    let mut dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--filter" => filter = args.next(),
            "--vectors" => dir = args.next().map(PathBuf::from),
            "-h" | "--help" => {
                println!("usage: webgate-conformance [--filter TEXT] [--vectors DIR]");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other:?}; see --help");
                return ExitCode::from(64);
            }
        }
    }
    let own = dir.is_none();
    let dir = dir.unwrap_or_else(default_dir);
    // The id coverage rule holds for the project's own vectors; an outside
    // directory (a user's own vectors) may cover only what it means to.
    let tsv = if own {
        // The contract's ids and the agent layer's options' ids alike.
        std::fs::read_to_string(dir.join("messages.tsv"))
            .ok()
            .map(|t| {
                t + &std::fs::read_to_string(dir.join("option-messages.tsv")).unwrap_or_default()
            })
    } else {
        None
    };
    if own && tsv.is_none() {
        eprintln!("{}: messages.tsv is missing", dir.display());
        return ExitCode::FAILURE;
    }
    let report = run_suite(&dir, filter.as_deref(), tsv.as_deref());
    for (name, v) in &report.results {
        let word = match v {
            Verdict::Pass => "ok",
            Verdict::ExpectedFailure(_) => "expected failure",
            Verdict::Fail(_) => "FAILED",
            Verdict::UnexpectedPass => "FAILED (unexpected pass)",
        };
        println!("{name} ... {word}");
    }
    let mut failures = 0;
    for (name, v) in &report.results {
        match v {
            Verdict::Fail(e) => {
                failures += 1;
                println!("\n---- {name} ----\n{e}");
            }
            Verdict::UnexpectedPass => {
                println!("\n---- {name} ----\npassed, but expected_failures.txt lists it: remove the entry");
            }
            _ => {}
        }
    }
    for e in &report.suite_errors {
        println!("\n---- suite ----\n{e}");
    }
    let _ = failures;
    println!("\n{} passed, {} failed", report.passed(), report.failed());
    if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
