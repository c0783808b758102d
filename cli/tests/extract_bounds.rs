//! Extraction that no page can stall: every adversarial family of
//! `webgate_conformance::adversarial`, at the 8 MiB body cap, through
//! `webgate extract`, held to a plain article of the same size run in the
//! same test: at most 4× its time and 3× its peak memory, output at most
//! 4× the input (plus 64 KiB); and time that grows linearly with the page
//! (1 MiB against 8 MiB). Each run is a helper process (its peak memory is
//! the CLI's own). Time is the CLI's processor time, not wall time: the
//! bound is on the work a page makes, and another job on the machine (a
//! build beside the suite) once stretched the wall time of families run
//! after the plain article up to 9× its. For the same reason the plain
//! article runs again beside each family, and a pair over the bounds is
//! run again (up to three pairs, the best ratios count); the scaling test
//! takes the best of two runs at 1 MiB. The two tests take turns (see
//! [`ALONE`]).

#[path = "support/rss.rs"]
mod rss;

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use webgate_conformance::adversarial::{families, plain};

/// See `support/rss.rs`: the CLI's peak memory, read in a helper process.
#[test]
fn rss_helper() {
    rss::helper(env!("CARGO_BIN_EXE_webgate"));
}

const MIB: usize = 1 << 20;

/// Held by each measuring test for its whole run. Side by side (the test
/// harness runs a binary's tests in parallel), each test's processes
/// shared the machine's caches and memory bandwidth with the other's: a
/// page of tiny elements, whose 100 MiB tree misses the cache at every
/// node, slowed by 10–15% against the plain article's stream of text, and
/// a CI run put one family at 4.15x (bound 4x) that reads 3.4x alone.
static ALONE: Mutex<()> = Mutex::new(());

/// Takes [`ALONE`], also after the other test failed while holding it.
fn alone() -> MutexGuard<'static, ()> {
    ALONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The most time a family may take, against the plain article.
const MAX_TIME: f64 = 4.0;

/// The most peak memory a family may take, against the plain article.
const MAX_MEMORY: f64 = 3.0;

/// Best of `runs`: the shorter processor time, the smaller peak, one
/// run's output size.
fn extract(page: &str, tag: &str, runs: usize) -> (Duration, u64, usize) {
    let path =
        std::env::temp_dir().join(format!("webgate-bounds-{}-{tag}.html", std::process::id()));
    std::fs::write(&path, page).unwrap();
    let args = vec!["extract".to_string(), path.display().to_string()];
    let (mut cpu, mut peak, mut out) = (Duration::MAX, u64::MAX, 0);
    for _ in 0..runs {
        let o = rss::run(&args);
        assert_eq!(o.code, 0, "{tag}: exit {}: {}", o.code, o.stderr);
        cpu = cpu.min(o.cpu);
        peak = peak.min(o.peak);
        out = o.stdout.len();
    }
    let _ = std::fs::remove_file(path);
    (cpu, peak, out)
}

/// Pairs of runs (the plain article, then the family) a family may take
/// to come within the bounds: the ratio of the best pair counts.
const ATTEMPTS: usize = 3;

#[test]
fn every_family_stays_within_a_plain_articles_bounds() {
    let _alone = alone();
    let base = plain(8 * MIB);
    let mut failures = Vec::new();
    for (i, f) in families().iter().enumerate() {
        let page = (f.page)(8 * MIB);
        // The plain article runs right before each run of the family, so
        // that both meet the same load on the machine; a pair over the
        // bounds is run again (another job's burst), and the best ratios
        // of the pairs count.
        let (mut tr, mut mr, mut shown) = (f64::MAX, f64::MAX, (0, 0, 0, 0));
        for _ in 0..ATTEMPTS {
            let (t0, m0, _) = extract(&base, "plain", 1);
            let (t, m, out) = extract(&page, &format!("f{i}"), 1);
            tr = tr.min(t.as_secs_f64() / t0.as_secs_f64());
            mr = mr.min(m as f64 / m0 as f64);
            shown = (t.as_millis(), t0.as_millis(), m >> 20, out);
            if tr <= MAX_TIME && mr <= MAX_MEMORY {
                break;
            }
        }
        let (ms, plain_ms, mib, out) = shown;
        eprintln!(
            "{:<58} {ms:>7} ms (plain {plain_ms:>5} ms) {mib:>5} MiB  {tr:>5.2}x time {mr:>5.2}x memory  output {:.2}x",
            f.name,
            out as f64 / page.len() as f64
        );
        if tr > MAX_TIME || mr > MAX_MEMORY || out > 4 * page.len() + 64 * 1024 {
            failures.push(f.name);
        }
    }
    assert!(failures.is_empty(), "over the bounds: {failures:?}");
}

#[test]
fn extraction_time_grows_linearly() {
    let _alone = alone();
    let mut failures = Vec::new();
    for (i, f) in families().iter().enumerate() {
        let (t1, _, _) = extract(&(f.page)(MIB), &format!("s{i}"), 2);
        let (t8, _, _) = extract(&(f.page)(8 * MIB), &format!("l{i}"), 1);
        let ratio = t8.as_secs_f64() / t1.as_secs_f64();
        eprintln!(
            "{:<58} 1 MiB {:>6} ms  8 MiB {:>6} ms  ratio {ratio:.1}",
            f.name,
            t1.as_millis(),
            t8.as_millis()
        );
        // Linear is 8 (less, with the process start in both); quadratic
        // would be 64.
        if ratio > 16.0 {
            failures.push(f.name);
        }
    }
    assert!(failures.is_empty(), "not linear: {failures:?}");
}
