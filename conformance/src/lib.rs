//! The webgate conformance suite.
//!
//! Vectors (`vectors/*.toml`, format in [`vector`]) replay tool calls on a
//! simulated network ([`sim`]) with a test CA ([`ca`]) and tokio's paused
//! clock, and hold every outcome to its exact text. `cargo xtask
//! conformance` runs them with a report; `cargo test` runs them as one
//! trial each. The policy is never switched off: vectors reach their
//! servers only through the Resolve and Dial seams.

#![forbid(unsafe_code)]

pub mod adversarial;
pub mod ca;
pub mod hostile;
pub mod interop;
pub mod loopback;
pub mod runner;
pub mod sim;
pub mod vector;

use std::path::{Path, PathBuf};

/// The project's own vector directory.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors")
}

/// One vector's verdict in a suite run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It passed.
    Pass,
    /// It failed, as `expected_failures.txt` says it will (with the reason).
    ExpectedFailure(String),
    /// It failed: what differs.
    Fail(String),
    /// It passed although listed as an expected failure.
    UnexpectedPass,
}

/// The report of a suite run.
#[derive(Debug, Default)]
pub struct Report {
    /// Per vector, in load order.
    pub results: Vec<(String, Verdict)>,
    /// Problems that are not one vector's: unloaded files, duplicate names,
    /// message ids with no vector, stale expected failures.
    pub suite_errors: Vec<String>,
}

impl Report {
    /// Passed vectors (expected failures count as passed).
    pub fn passed(&self) -> usize {
        self.results
            .iter()
            .filter(|(_, v)| matches!(v, Verdict::Pass | Verdict::ExpectedFailure(_)))
            .count()
    }

    /// Failed vectors plus suite errors.
    pub fn failed(&self) -> usize {
        self.results.len() - self.passed() + self.suite_errors.len()
    }
}

/// Runs every vector of `dir` whose full name contains `filter`. With
/// `messages`, checks that every id in it is pinned by a vector.
pub fn run_suite(dir: &Path, filter: Option<&str>, messages: Option<&str>) -> Report {
    let mut report = Report::default();
    let vectors = match runner::load_dir(dir) {
        Ok(v) => v,
        Err(errors) => {
            report.suite_errors = errors;
            return report;
        }
    };
    if let Some(tsv) = messages {
        for id in runner::uncovered(&runner::message_ids(tsv), &vectors) {
            report
                .suite_errors
                .push(format!("message id {id} has no vector"));
        }
    }
    let expected = match runner::expected_failures(dir) {
        Ok(e) => e,
        Err(e) => {
            report.suite_errors.push(e);
            Default::default()
        }
    };
    for name in expected.keys() {
        if !vectors.iter().any(|l| &l.full_name == name) {
            report.suite_errors.push(format!(
                "expected_failures.txt names {name}, which is no vector (stale entry)"
            ));
        }
    }
    let ca = ca::TestCa::new();
    for l in vectors
        .iter()
        .filter(|l| filter.is_none_or(|f| l.full_name.contains(f)))
    {
        let outcome = runner::run(&l.vector, &ca).and_then(|a| runner::compare(&l.vector, &a));
        let verdict = match (outcome, expected.get(&l.full_name)) {
            (Ok(()), None) => Verdict::Pass,
            (Ok(()), Some(_)) => Verdict::UnexpectedPass,
            (Err(_), Some(reason)) => Verdict::ExpectedFailure(reason.clone()),
            (Err(e), None) => Verdict::Fail(e),
        };
        report.results.push((l.full_name.clone(), verdict));
    }
    report
}
