//! Running the CLI in a helper process to read its peak memory: a test
//! binary re-runs itself with [`HELPER`] set, and its `rss_helper` test
//! (see [`helper`]) runs the CLI as its only child and reports the exit
//! code, output and `getrusage(RUSAGE_CHILDREN)` peak and processor
//! time. Shared by the hostile matrix and the extraction bounds.

#![allow(dead_code)]

use std::process::Command;
use std::time::{Duration, Instant};

/// Set in the environment of the helper process.
pub const HELPER: &str = "WEBGATE_RSS_HELPER";

/// What one CLI run did.
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub wall: Duration,
    /// Peak resident memory of the CLI process, in bytes.
    pub peak: u64,
    /// Processor time of the CLI process (user and system): the work it
    /// did, which other load on the machine hardly changes (wall time
    /// doubles when another job shares the cores).
    pub cpu: Duration,
}

/// The body of each test binary's `rss_helper` test. In the helper
/// process (the variable set) it runs the CLI and reports; in the test
/// run itself it checks the measurement: `webgate --version` through the
/// helper exits 0, prints the version and reports a plausible peak (a
/// helper that measured its own memory, or nothing, fails here).
pub fn helper(cli: &str) {
    let Ok(args) = std::env::var(HELPER) else {
        let o = run(&["--version".to_string()]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(o.stdout.starts_with("webgate "), "{}", o.stdout);
        assert!(
            (1 << 20..1 << 30).contains(&o.peak),
            "an implausible peak for `webgate --version`: {} bytes",
            o.peak
        );
        assert!(
            o.cpu <= o.wall,
            "an implausible processor time for `webgate --version`: {:?} in {:?}",
            o.cpu,
            o.wall
        );
        return;
    };
    let args: Vec<String> = serde_json::from_str(&args).unwrap();
    let out = Command::new(cli).args(&args).output().unwrap();
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    let cpu_us: u64 = [usage.user_time(), usage.system_time()]
        .iter()
        .map(|t| t.tv_sec() as u64 * 1_000_000 + t.tv_usec() as u64)
        .sum();
    let report = serde_json::json!({
        "code": out.status.code().unwrap_or(-1),
        "stdout": String::from_utf8_lossy(&out.stdout),
        "stderr": String::from_utf8_lossy(&out.stderr),
        // Linux reports kilobytes.
        "peak": usage.max_rss() as u64 * 1024,
        "cpu_us": cpu_us,
    });
    println!("RSS-HELPER {report}");
}

/// Runs the CLI with `args` through the helper; wall time includes the
/// helper's own start.
pub fn run(args: &[String]) -> Outcome {
    let started = Instant::now();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "rss_helper",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(HELPER, serde_json::to_string(args).unwrap())
        .output()
        .unwrap();
    let wall = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("RSS-HELPER ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("the helper did not report: {stdout}"));
    let r: serde_json::Value = serde_json::from_str(line).unwrap();
    Outcome {
        code: r["code"].as_i64().unwrap() as i32,
        stdout: r["stdout"].as_str().unwrap().to_string(),
        stderr: r["stderr"].as_str().unwrap().to_string(),
        wall,
        peak: r["peak"].as_u64().unwrap(),
        cpu: Duration::from_micros(r["cpu_us"].as_u64().unwrap()),
    }
}
