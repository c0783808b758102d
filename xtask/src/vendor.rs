//! `cargo xtask vendor`: what a crate that vendors the core relies on,
//! checked the way it will be used.
//!
//! - Every feature set builds: none, each feature alone, the default; the
//!   library's own tests pass with no feature (`Accept-Encoding` then
//!   offers only what that build can undo).
//! - The consumer crate (`xtask/consumer`, outside the workspace) builds
//!   and runs: `--no-default-features` plus `agent`, its own resolver and
//!   provider, `?` into `Box<dyn Error>`, an audit record through Toolbox.
//! - `cargo package -p webgate` builds the crate from what would be
//!   published (so the core's files are all there).
//! - `cargo deny check licenses bans sources` against `deny.toml`
//!   (`cargo-deny` must be installed; `.ci/run` installs it).
//! - The public surface equals `core/public-api.txt` (`cargo public-api
//!   -p webgate --simplified`, nightly rustdoc; `.ci/run` installs the
//!   tool): a change of the API shows in review as a change of that file.
//!
//! Each step prints the command it runs; the first failure stops the rest.

use super::{root, run, run_in};

/// The core's optional features (core/Cargo.toml, and the crate docs'
/// "Crate features").
const FEATURES: [&str; 6] = [
    "agent",
    "search-providers",
    "brotli",
    "zstd",
    "hickory",
    "ring",
];

pub fn run_all() -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let check = |extra: &[&str]| {
        let mut a = vec!["check", "-p", "webgate", "--locked", "--lib"];
        a.extend_from_slice(extra);
        run(&cargo, &a)
    };
    check(&["--no-default-features"])?;
    for f in FEATURES {
        check(&["--no-default-features", "--features", f])?;
    }
    run(
        &cargo,
        &[
            "test",
            "-p",
            "webgate",
            "--locked",
            "--no-default-features",
            "--lib",
        ],
    )?;
    let consumer = root().join("xtask/consumer");
    let target = root().join("target/consumer");
    let target = target.display().to_string();
    run_in(
        &consumer,
        &cargo,
        &["run", "--quiet", "--locked", "--target-dir", &target],
    )?;
    let mut package = vec!["package", "-p", "webgate", "--locked"];
    // A developer's tree may hold uncommitted work; CI's never does, and
    // there a dirty tree is an error.
    if std::env::var_os("CI").is_none() {
        package.push("--allow-dirty");
    }
    run(&cargo, &package)?;
    run(&cargo, &["deny", "check", "licenses", "bans", "sources"]).map_err(|e| {
        format!("{e} (cargo-deny: `cargo install cargo-deny --locked`, as .ci/run does)")
    })?;
    public_api(&cargo)
}

/// `cargo public-api` against the committed listing.
fn public_api(cargo: &str) -> Result<(), String> {
    let args = ["public-api", "-p", "webgate", "--simplified"];
    eprintln!("$ {cargo} {}", args.join(" "));
    let out = std::process::Command::new(cargo)
        .args(args)
        .current_dir(root())
        .output()
        .map_err(|e| format!("{cargo}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`cargo public-api` failed ({}): {} (install it with `cargo install \
             cargo-public-api --locked`; it needs the nightly toolchain)",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let committed_path = root().join("core/public-api.txt");
    let committed = std::fs::read_to_string(&committed_path)
        .map_err(|e| format!("{}: {e}", committed_path.display()))?;
    let now = String::from_utf8_lossy(&out.stdout);
    if committed == now {
        return Ok(());
    }
    let fresh = root().join("target/public-api.txt");
    std::fs::write(&fresh, now.as_bytes()).map_err(|e| format!("{}: {e}", fresh.display()))?;
    let old: std::collections::BTreeSet<&str> = committed.lines().collect();
    let new: std::collections::BTreeSet<&str> = now.lines().collect();
    let mut diff: Vec<String> = old.difference(&new).map(|l| format!("- {l}")).collect();
    diff.extend(new.difference(&old).map(|l| format!("+ {l}")));
    diff.truncate(40);
    Err(format!(
        "the public API differs from core/public-api.txt (the new listing is in \
         target/public-api.txt; if the change is meant, copy it over):\n{}",
        diff.join("\n")
    ))
}
