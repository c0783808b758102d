//! Extraction that no page can stall: every adversarial family of
//! `webgate_conformance::adversarial`, at the 8 MiB body cap, through
//! `webgate extract`, held to a plain article of the same size run in the
//! same test: at most 4× its time and 3× its peak memory, output at most
//! 4× the input (plus 64 KiB); and time that grows linearly with the page
//! (1 MiB against 8 MiB). Each run is a helper process (its peak memory is
//! the CLI's own); times are the best of two runs (one at 8 MiB in the
//! scaling test), so that one stall of a shared machine does not fail the
//! suite.

#[path = "support/rss.rs"]
mod rss;

use std::time::Duration;

use webgate_conformance::adversarial::{families, plain};

/// See `support/rss.rs`: the CLI's peak memory, read in a helper process.
#[test]
fn rss_helper() {
    rss::helper(env!("CARGO_BIN_EXE_webgate"));
}

const MIB: usize = 1 << 20;

/// The most time a family may take, against the plain article.
const MAX_TIME: f64 = 4.0;

/// The most peak memory a family may take, against the plain article.
const MAX_MEMORY: f64 = 3.0;

/// Best of `runs`: the shorter time, the smaller peak, one run's output
/// size.
fn extract(page: &str, tag: &str, runs: usize) -> (Duration, u64, usize) {
    let path =
        std::env::temp_dir().join(format!("webgate-bounds-{}-{tag}.html", std::process::id()));
    std::fs::write(&path, page).unwrap();
    let args = vec!["extract".to_string(), path.display().to_string()];
    let (mut wall, mut peak, mut out) = (Duration::MAX, u64::MAX, 0);
    for _ in 0..runs {
        let o = rss::run(&args);
        assert_eq!(o.code, 0, "{tag}: exit {}: {}", o.code, o.stderr);
        wall = wall.min(o.wall);
        peak = peak.min(o.peak);
        out = o.stdout.len();
    }
    let _ = std::fs::remove_file(path);
    (wall, peak, out)
}

#[test]
fn every_family_stays_within_a_plain_articles_bounds() {
    let base = plain(8 * MIB);
    let (t0, m0, _) = extract(&base, "plain", 2);
    eprintln!(
        "{:<58} {:>7} ms {:>5} MiB (plain article, {} bytes)",
        "plain article",
        t0.as_millis(),
        m0 >> 20,
        base.len()
    );
    let mut failures = Vec::new();
    for (i, f) in families().iter().enumerate() {
        let page = (f.page)(8 * MIB);
        let (t, m, out) = extract(&page, &format!("f{i}"), 2);
        let (tr, mr) = (t.as_secs_f64() / t0.as_secs_f64(), m as f64 / m0 as f64);
        eprintln!(
            "{:<58} {:>7} ms {:>5} MiB  {tr:>5.2}x time {mr:>5.2}x memory  output {:.2}x",
            f.name,
            t.as_millis(),
            m >> 20,
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
