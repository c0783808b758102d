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
    })
}
