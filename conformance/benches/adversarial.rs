//! `cargo xtask bench extract` (part): every adversarial page family at
//! 8 MiB through the release CLI's `webgate extract`, beside a plain
//! article of the same size in the same run: time (best of three) and
//! peak RSS (GNU time's %M) of each, as ratios to the plain article, and
//! the worst family of each.
//!
//! `WEBGATE_BIN` names the CLI (xtask builds it first).

use std::process::Command;
use std::time::Instant;

use webgate_conformance::adversarial::{families, plain};

const SIZE: usize = 8 << 20;

/// (best seconds of three, peak RSS KiB of the best run, output bytes).
fn run(bin: &str, page: &str) -> (f64, u64, usize) {
    let path =
        std::env::temp_dir().join(format!("webgate-adversarial-{}.html", std::process::id()));
    std::fs::write(&path, page).expect("a temporary file");
    let mut best = (f64::MAX, 0, 0);
    for _ in 0..3 {
        let t = Instant::now();
        let out = Command::new("/usr/bin/time")
            .args(["-f", "%M", bin, "extract", &path.display().to_string()])
            .output()
            .expect("/usr/bin/time (Debian package time)");
        let secs = t.elapsed().as_secs_f64();
        assert!(
            out.status.success(),
            "{bin} extract failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let rss = String::from_utf8_lossy(&out.stderr)
            .lines()
            .last()
            .and_then(|l| l.trim().parse::<u64>().ok())
            .unwrap_or(0);
        if secs < best.0 {
            best = (secs, rss, out.stdout.len());
        }
    }
    let _ = std::fs::remove_file(path);
    best
}

fn main() {
    let bin = std::env::var("WEBGATE_BIN").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../target/release/webgate").into()
    });
    let base = plain(SIZE);
    let (t0, m0, _) = run(&bin, &base);
    println!(
        "adversarial pages at 8 MiB through `webgate extract` (release), best of 3, against a plain article"
    );
    println!(
        "{:<58} {:>8} {:>8}   time   memory  output",
        "page", "ms", "MiB"
    );
    println!(
        "{:<58} {:>8.0} {:>8.1}",
        "plain article",
        t0 * 1e3,
        m0 as f64 / 1024.0
    );
    let (mut worst_t, mut worst_m) = (("", 0.0), ("", 0.0));
    for f in families() {
        let page = (f.page)(SIZE);
        let (t, m, out) = run(&bin, &page);
        let (rt, rm) = (t / t0, m as f64 / m0.max(1) as f64);
        println!(
            "{:<58} {:>8.0} {:>8.1} {rt:>6.2}x {rm:>6.2}x {:>6.2}x",
            f.name,
            t * 1e3,
            m as f64 / 1024.0,
            out as f64 / page.len() as f64
        );
        if rt > worst_t.1 {
            worst_t = (f.name, rt);
        }
        if rm > worst_m.1 {
            worst_m = (f.name, rm);
        }
    }
    println!(
        "worst time: {} at {:.2}x the plain article (bound 4x); worst memory: {} at {:.2}x (bound 3x)",
        worst_t.0, worst_t.1, worst_m.0, worst_m.1
    );
}
