//! `cargo xtask`: the project's one entry point for everything that is not
//! `cargo build`. Developers and `.ci/run` call the same commands.
//!
//! - `ci`: the whole check, the README's test command and what `.ci/run`
//!   runs after installing tools: fmt, codegen --check, tidy, clippy,
//!   every test, interop, vendor, the MSRV build, train --check and the
//!   fuzz smoke run.
//! - `codegen [--check]`: the blocked-address table from `vectors/iana/`.
//! - `tidy`: house-style checks (also run as a `#[test]`).
//! - `fuzz [--seconds N] [TARGET…]`: every cargo-fuzz target for N seconds.
//! - `bench [--update] [NAME…]`: the benchmarks (all of them:
//!   `BENCHMARKS.md`; `--update` reruns the named ones' sections there).
//! - `conformance [--filter TEXT] [--vectors DIR]`: the vector suite.
//! - `vendor`: feature sets, the consumer crate, `cargo package`, `cargo
//!   deny` (what a crate vendoring the core relies on).
//! - `train [--check]`: extraction's models from `../shared/data`
//!   (`bench/train/train.py` in a virtualenv of its own); `--check`
//!   fails when the shipped ones are not what it makes.

#![forbid(unsafe_code)]

mod bench;
mod codegen;
mod layers;
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
  ci                      the whole check (the README's test command; .ci/run
                          installs the tools, then runs this): fmt --check,
                          codegen --check, tidy, clippy -D warnings, every
                          test, interop, vendor, the MSRV build, train
                          --check, and every fuzz target for
                          WEBGATE_FUZZ_SECONDS (10) each
  codegen [--check]       regenerate core/src/policy/table.rs from vectors/iana/
  tidy                    house-style checks
  fuzz [--seconds N] [T…] run every fuzz target (or the named ones) N seconds
                          each (default 60), then replay fuzz/regressions/
  bench [--update] [NAME…]
                          run the benchmarks (table, body, fetch, extract);
                          with no name, all of them, written to BENCHMARKS.md;
                          --update puts the named ones' sections in place
                          there
  conformance [--filter TEXT] [--vectors DIR]
                          replay every vector on the simulated network;
                          one line per vector, every failure in full, then
                          `N passed, N failed`
  interop                 webgate against nginx, Apache httpd and unbound on
                          loopback (installs nothing; a missing server fails
                          with the package to install)
  vendor                  the core as a vendor takes it: every feature set,
                          the consumer crate, cargo package, cargo deny
  train [--check]         train extraction's models from ../shared/data and
                          write core/src/extract/model_data.rs; --check
                          compares instead and fails if the shipped models
                          differ (needs python3 with venv, and PyPI)
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
        Some("interop") => interop(),
        Some("train") => train(args.iter().any(|a| a == "--check")),
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
    let started = std::time::Instant::now();
    let mut steps: Vec<(&str, std::time::Duration)> = Vec::new();
    let mut step = |name, f: &mut dyn FnMut() -> Result<(), String>| -> Result<(), String> {
        let t = std::time::Instant::now();
        f().map_err(|e| format!("ci step `{name}`: {e}"))?;
        steps.push((name, t.elapsed()));
        Ok(())
    };
    step("fmt", &mut || run(&cargo, &["fmt", "--all", "--check"]))?;
    step("codegen", &mut || codegen::run(&root(), true))?;
    step("tidy", &mut || tidy::run(&root()))?;
    let mut python = PathBuf::new();
    step("mcp python", &mut || {
        python = mcp_python()?;
        Ok(())
    })?;
    let mut node = PathBuf::new();
    step("mcp node", &mut || {
        node = mcp_node()?;
        Ok(())
    })?;
    step("clippy", &mut || {
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
        )
    })?;
    let mut summary = String::new();
    step("test", &mut || {
        summary = test_with_summary(&cargo, &python, &node)?;
        Ok(())
    })?;
    step("interop", &mut interop)?;
    step("vendor", &mut vendor::run_all)?;
    step("msrv", &mut msrv)?;
    step("train --check", &mut || train(true))?;
    let seconds = std::env::var("WEBGATE_FUZZ_SECONDS").unwrap_or_else(|_| "10".into());
    step("fuzz smoke", &mut || {
        fuzz(&["--seconds".into(), seconds.clone()])
    })?;
    for (name, took) in &steps {
        eprintln!("ci: {name:<10} {:>6.1} s", took.as_secs_f64());
    }
    eprintln!(
        "ci: every step passed in {:.1} min",
        started.elapsed().as_secs_f64() / 60.0
    );
    println!("{summary}");
    Ok(())
}

/// Extraction's models from `../shared/data` by `bench/train/train.py`,
/// in a virtualenv under `target/train-venv` with the pinned packages of
/// `bench/train/requirements.txt` (made on first use and again when the
/// pins change). With `check`, the shipped models are compared, not
/// replaced. About four minutes on two cores, most of it the two release
/// builds and row dumps.
fn train(check: bool) -> Result<(), String> {
    let python = venv(
        "target/train-venv",
        "bench/train/requirements.txt",
        "training",
    )?;
    let script = root().join("bench/train/train.py").display().to_string();
    let mut args = vec![script.as_str()];
    if check {
        args.push("--check");
    }
    run(&python.display().to_string(), &args)
}

/// webgate against nginx, Apache httpd and unbound on loopback.
fn interop() -> Result<(), String> {
    run(
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
    )
}

/// The core a vendor takes builds with the toolchain the manifest's
/// `rust-version` names and the locked dependencies.
fn msrv() -> Result<(), String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).map_err(|e| e.to_string())?;
    let version = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|l| l.strip_suffix('"'))
        .ok_or("Cargo.toml states no rust-version")?;
    let toolchain = format!("+{version}");
    let installed = Command::new("rustup")
        .args(["run", version, "rustc", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !installed {
        return Err(format!(
            "the MSRV toolchain {version} is not installed: rustup toolchain install {version} \
             --profile minimal"
        ));
    }
    run("cargo", &[&toolchain, "check", "-p", "webgate", "--locked"])
}

/// The Python the MCP client session test runs (`cli/tests/mcp.rs`): a
/// venv under `target/mcp-python` holding the official MCP SDK at the
/// pinned versions of `cli/tests/mcp_python/requirements.txt`, made on
/// first use and again when the pins change. Needs `python3` with `venv`
/// (Debian: `python3-venv`) and PyPI; a machine without them fails here,
/// loudly, rather than skip the session.
fn mcp_python() -> Result<PathBuf, String> {
    venv(
        "target/mcp-python",
        "cli/tests/mcp_python/requirements.txt",
        "the MCP client session",
    )
}

/// A virtualenv at `dir` (under the workspace root) holding the pinned
/// packages of `requirements`, made on first use and again when the pins
/// change; its python. `purpose` names what needs it in a failure.
fn venv(dir: &str, requirements: &str, purpose: &str) -> Result<PathBuf, String> {
    let root = root();
    let requirements = root.join(requirements);
    let pins = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("{}: {e}", requirements.display()))?;
    let venv = root.join(dir);
    let python = venv.join("bin/python");
    let stamp = venv.join("requirements.txt");
    if python.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(pins.as_str()) {
        return Ok(python);
    }
    let _ = std::fs::remove_dir_all(&venv);
    let venv_s = venv.display().to_string();
    run("python3", &["-m", "venv", &venv_s])
        .map_err(|e| format!("{e} ({purpose} needs python3 with venv)"))?;
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

/// The folder the TypeScript MCP client session runs in
/// (`cli/tests/mcp.rs`): `target/mcp-node` holding the official SDK at the
/// versions `cli/tests/mcp_node/package-lock.json` pins (`npm ci`), made
/// on first use and again when the lock changes. Needs `node` (20 or
/// newer) and `npm`; a machine without them fails here, loudly.
fn mcp_node() -> Result<PathBuf, String> {
    let root = root();
    let src = root.join("cli/tests/mcp_node");
    let lock = std::fs::read_to_string(src.join("package-lock.json"))
        .map_err(|e| format!("{}: {e}", src.display()))?;
    let dir = root.join("target/mcp-node");
    let stamp = dir.join("installed-lock.json");
    if dir.join("node_modules").is_dir()
        && std::fs::read_to_string(&stamp).ok().as_deref() == Some(lock.as_str())
    {
        return Ok(dir);
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for f in ["package.json", "package-lock.json"] {
        std::fs::copy(src.join(f), dir.join(f)).map_err(|e| format!("{f}: {e}"))?;
    }
    run_in(&dir, "npm", &["ci", "--no-audit", "--no-fund"])
        .map_err(|e| format!("{e} (the TypeScript MCP session needs node and npm)"))?;
    std::fs::write(&stamp, lock).map_err(|e| format!("{}: {e}", stamp.display()))?;
    Ok(dir)
}

/// `cargo test --workspace`, echoed as it runs, closed by one plain line
/// `N passed, N failed` summed over every test binary (the last line of
/// cargo's own output is a doc-test binary that may hold no test).
fn test_with_summary(cargo: &str, python: &Path, node: &Path) -> Result<String, String> {
    use std::io::{BufRead, BufReader};
    let args = ["test", "--workspace", "--locked"];
    eprintln!("$ {cargo} {}", args.join(" "));
    let mut child = Command::new(cargo)
        .args(args)
        .env("WEBGATE_MCP_PYTHON", python)
        .env("WEBGATE_MCP_NODE", node)
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
    let summary = format!("{passed} passed, {failed} failed");
    println!("{summary}");
    if status.success() && failed == 0 {
        Ok(summary)
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
        return Err(
            "the fuzz run needs the nightly toolchain and cargo-fuzz: rustup toolchain \
                    install nightly; cargo +nightly install cargo-fuzz --locked"
                .into(),
        );
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
