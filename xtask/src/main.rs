//! `cargo xtask`: the project's one entry point for everything that is not
//! `cargo build`. Developers and `.ci/run` call the same commands.
//!
//! - `ci`: the whole check (fmt, clippy, tests, codegen --check, tidy);
//!   this is the README's test command.
//! - `codegen [--check]`: the blocked-address table from `vectors/iana/`.
//! - `tidy`: house-style checks (also run as a `#[test]`).
//! - `fuzz [--seconds N] [TARGET…]`: every cargo-fuzz target for N seconds.
//! - `bench [NAME…]`: the benchmarks (all of them: `BENCHMARKS.md`).
//! - `conformance [--filter TEXT] [--vectors DIR]`: the vector suite.
//! - `vendor`: feature sets, the consumer crate, `cargo package`, `cargo
//!   deny` (what a crate vendoring the core relies on).

#![forbid(unsafe_code)]

mod bench;
mod codegen;
mod tidy;
mod vendor;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn root() -> PathBuf {
    // OK because xtask always lives one level below the workspace root.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  ci                      fmt --check, clippy -D warnings, every test,
                          codegen --check and tidy (the README's test command)
  codegen [--check]       regenerate core/src/policy/table.rs from vectors/iana/
  tidy                    house-style checks
  fuzz [--seconds N] [T…] run every fuzz target (or the named ones) N seconds
                          each (default 60), then replay fuzz/regressions/
  bench [NAME…]           run the benchmarks (table, body, fetch, extract);
                          with no name, all of them, written to BENCHMARKS.md
  conformance [--filter TEXT] [--vectors DIR]
                          replay every vector on the simulated network;
                          one line per vector, every failure in full, then
                          `N passed, N failed`
  interop                 webgate against nginx, Apache httpd and unbound on
                          loopback (installs nothing; a missing server fails
                          with the package to install)
  vendor                  the core as a vendor takes it: every feature set,
                          the consumer crate, cargo package, cargo deny
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("codegen") => codegen::run(&root(), args.iter().any(|a| a == "--check")),
        Some("tidy") => tidy::run(&root()),
        Some("ci") => ci(),
        Some("fuzz") => fuzz(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("conformance") => conformance(&args[1..]),
        Some("vendor") => vendor::run_all(),
        Some("interop") => run(
            "cargo",
            &[
                "run",
                "--quiet",
                "--release",
                "--locked",
                "--package",
                "webgate-conformance",
                "--bin",
                "webgate-interop",
            ],
        ),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        _ => {
            eprint!("{USAGE}");
            return ExitCode::from(64);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a command in the workspace root; a non-zero exit is an error.
fn run(program: &str, args: &[&str]) -> Result<(), String> {
    run_in(&root(), program, args)
}

fn run_in(dir: &Path, program: &str, args: &[&str]) -> Result<(), String> {
    eprintln!("$ {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .current_dir(dir)
        .status()
        .map_err(|e| format!("{program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed: {status}", args.join(" ")))
    }
}

fn ci() -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(&cargo, &["fmt", "--all", "--check"])?;
    codegen::run(&root(), true)?;
    tidy::run(&root())?;
    let python = mcp_python()?;
    run(
        &cargo,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--locked",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    test_with_summary(&cargo, &python)
}

/// The Python the MCP client session test runs (`cli/tests/mcp.rs`): a
/// venv under `target/mcp-python` holding the official MCP SDK at the
/// pinned versions of `cli/tests/mcp_python/requirements.txt`, made on
/// first use and again when the pins change. Needs `python3` with `venv`
/// (Debian: `python3-venv`) and PyPI; a machine without them fails here,
/// loudly, rather than skip the session.
fn mcp_python() -> Result<PathBuf, String> {
    let root = root();
    let requirements = root.join("cli/tests/mcp_python/requirements.txt");
    let pins = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("{}: {e}", requirements.display()))?;
    let venv = root.join("target/mcp-python");
    let python = venv.join("bin/python");
    let stamp = venv.join("requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(pins.as_str()) {
        return Ok(python);
    }
    let _ = std::fs::remove_dir_all(&venv);
    let venv_s = venv.display().to_string();
    run("python3", &["-m", "venv", &venv_s])
        .map_err(|e| format!("{e} (the MCP client session needs python3 with venv)"))?;
    let req_s = requirements.display().to_string();
    run(
        &python.display().to_string(),
        &[
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            &req_s,
        ],
    )?;
    std::fs::write(&stamp, pins).map_err(|e| format!("{}: {e}", stamp.display()))?;
    Ok(python)
}

/// `cargo test --workspace`, echoed as it runs, closed by one plain line
/// `N passed, N failed` summed over every test binary (the last line of
/// cargo's own output is a doc-test binary that may hold no test).
fn test_with_summary(cargo: &str, python: &Path) -> Result<(), String> {
    use std::io::{BufRead, BufReader};
    let args = ["test", "--workspace", "--locked"];
    eprintln!("$ {cargo} {}", args.join(" "));
    let mut child = Command::new(cargo)
        .args(args)
        .env("WEBGATE_MCP_PYTHON", python)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("{cargo}: {e}"))?;
    let (mut passed, mut failed) = (0u64, 0u64);
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            if let Some(rest) = line.strip_prefix("test result: ") {
                // "ok. 12 passed; 0 failed; 0 ignored; …"
                for part in rest.split(';') {
                    let words: Vec<&str> = part.split_whitespace().collect();
                    let n = words
                        .iter()
                        .rev()
                        .nth(1)
                        .and_then(|w| w.parse::<u64>().ok())
                        .unwrap_or(0);
                    match words.last() {
                        Some(&"passed") => passed += n,
                        Some(&"failed") => failed += n,
                        _ => {}
                    }
                }
            }
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    println!("{passed} passed, {failed} failed");
    if status.success() && failed == 0 {
        Ok(())
    } else {
        Err(format!("`{cargo} {}` failed: {status}", args.join(" ")))
    }
}

fn fuzz(args: &[String]) -> Result<(), String> {
    let mut seconds = 60u64;
    let mut targets = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seconds" => {
                seconds = it
                    .next()
                    .and_then(|s| s.parse().ok())
                    .ok_or("--seconds takes a whole number")?;
            }
            t => targets.push(t.to_string()),
        }
    }
    let fuzz_dir = root().join("fuzz");
    if targets.is_empty() {
        let mut names: Vec<String> = std::fs::read_dir(fuzz_dir.join("fuzz_targets"))
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                e.file_name()
                    .to_str()?
                    .strip_suffix(".rs")
                    .map(str::to_string)
            })
            .collect();
        names.sort();
        targets = names;
    }
    if Command::new("cargo")
        .args(["+nightly", "fuzz", "--version"])
        .output()
        .map(|o| !o.status.success())
        .unwrap_or(true)
    {
        run("cargo", &["+nightly", "install", "cargo-fuzz", "--locked"])?;
    }
    let max_time = format!("-max_total_time={seconds}");
    for t in &targets {
        let corpus = fuzz_dir.join("corpus").join(t);
        std::fs::create_dir_all(&corpus).map_err(|e| e.to_string())?;
        let seeds = fuzz_dir.join("seeds").join(t);
        let mut dirs = vec![corpus.to_string_lossy().into_owned()];
        if seeds.is_dir() {
            dirs.push(seeds.to_string_lossy().into_owned());
        }
        let mut a = vec!["+nightly", "fuzz", "run", t.as_str()];
        a.extend(dirs.iter().map(String::as_str));
        a.extend(["--", max_time.as_str(), "-print_final_stats=1"]);
        if t == "extraction" {
            // Each run parses the page three times under the sanitizer;
            // shorter pages give the fuzzer far more runs, and the
            // pathological sizes are covered by the unit tests.
            a.push("-max_len=2048");
        }
        run_in(&fuzz_dir, "cargo", &a)?;
    }
    // Minimised crashes are replayed as ordinary tests. With the whole
    // workspace's features (as `cargo xtask ci` builds them), so that
    // after the test command nothing is rebuilt: `-p webgate` alone
    // resolves dependency features differently and rebuilt a dozen crates.
    run(
        "cargo",
        &[
            "test",
            "--workspace",
            "--locked",
            "--test",
            "fuzz_regressions",
        ],
    )
}

fn conformance(args: &[String]) -> Result<(), String> {
    let mut a = vec![
        "run",
        "--quiet",
        "--release",
        "--package",
        "webgate-conformance",
        "--",
    ];
    a.extend(args.iter().map(String::as_str));
    run("cargo", &a)
}
