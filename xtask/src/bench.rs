//! `cargo xtask bench [NAME…]`: every benchmark of the project, each figure
//! as a ratio against a peer timed in the same run; with no name, all of
//! them, and the whole report is written to `BENCHMARKS.md`.
//!
//! The peers of extraction are set up here on demand, outside the
//! workspace and never in CI: dom_smoothie (a Rust crate in
//! `bench/peers/dom_smoothie`, timed in one process with webgate, rounds
//! interleaved), rs-trafilatura (`bench/peers/rs_trafilatura`, on the
//! WCXB split, its predictions scored by the reference script),
//! trafilatura and readability-lxml (a virtualenv under
//! `target/peers/venv`; trafilatura also on WCXB, both on web-classics,
//! trafilatura with and without comments), Readability.js with
//! jsdom (npm, under `target/peers/node`). A peer that cannot be set up
//! is reported as not run, with the reason. Last, the held-out figures:
//! the trainer (`bench/train/train.py --held-out-only`, a virtualenv
//! under `target/train/venv`) extracts every page with models that never
//! saw its site (folds grouped by site), and every page of one corpus with
//! models fitted on the other.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::root;

/// One benchmark's report.
struct Section {
    title: &'static str,
    command: String,
    output: String,
}

const ALL: [&str; 4] = ["table", "body", "fetch", "extract"];

pub fn run(args: &[String]) -> Result<(), String> {
    // `--update NAME…`: rerun those benchmarks and put their sections in
    // place in BENCHMARKS.md, the others as they were.
    let update = args.first().is_some_and(|a| a == "--update");
    let args = if update { &args[1..] } else { args };
    if update && args.is_empty() {
        return Err("--update needs the benchmarks to rerun".into());
    }
    let names: Vec<&str> = if args.is_empty() {
        ALL.to_vec()
    } else {
        args.iter().map(String::as_str).collect()
    };
    let mut sections = Vec::new();
    for n in &names {
        match *n {
            "table" => sections.push(capture(
                "Blocked-table lookups against a linear ipnet scan",
                "cargo",
                &["bench", "-p", "webgate", "--bench", "table"],
                &[],
            )?),
            "fetch" => sections.push(capture(
                "Fetch throughput against reqwest (TLS on loopback)",
                "cargo",
                &["bench", "-p", "webgate-conformance", "--bench", "fetch"],
                &[],
            )?),
            "body" => {
                step("cargo", &["build", "--release", "-p", "webgate-cli"])?;
                let bin = root().join("target/release/webgate");
                sections.push(capture(
                    "Bodies: bombs, inflate throughput against flate2, memory",
                    "cargo",
                    &["bench", "-p", "webgate-conformance", "--bench", "body"],
                    &[("WEBGATE_BIN", bin.display().to_string())],
                )?);
            }
            "extract" => sections.extend(extract()?),
            other => {
                return Err(format!(
                    "unknown benchmark {other:?}; known: {}",
                    ALL.join(", ")
                ))
            }
        }
    }
    let path = root().join("BENCHMARKS.md");
    if args.is_empty() {
        std::fs::write(&path, report(&sections)).map_err(|e| e.to_string())?;
        eprintln!("wrote {}", path.display());
    } else if update {
        let old = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        std::fs::write(&path, splice(&old, &sections, &names)?).map_err(|e| e.to_string())?;
        eprintln!("updated {}", path.display());
    }
    Ok(())
}

/// `report` with `sections` in place of the sections of the same titles,
/// and a header line that says which were rerun, when, at which commit.
fn splice(report: &str, sections: &[Section], names: &[&str]) -> Result<String, String> {
    let mut out = report.to_string();
    for s in sections {
        let head = format!("## {}\n", s.title);
        let start = out
            .find(&head)
            .ok_or_else(|| format!("BENCHMARKS.md has no section {:?}", s.title))?;
        let end = out[start + head.len()..]
            .find("\n## ")
            .map_or(out.len(), |i| start + head.len() + i + 1);
        let new = format!(
            "## {}\n\n`{}`\n\n```text\n{}```\n\n",
            s.title, s.command, s.output
        );
        out.replace_range(start..end, &new);
    }
    let git = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let note = format!("- Rerun at {git} ({date}): {}\n", names.join(", "));
    // An earlier rerun of the same sections is superseded.
    let suffix = format!("): {}", names.join(", "));
    let mut out: String = out
        .split_inclusive('\n')
        .filter(|l| !(l.starts_with("- Rerun at ") && l.trim_end().ends_with(&suffix)))
        .collect();
    let at = out.find("\n\n## ").ok_or("BENCHMARKS.md has no sections")?;
    out.insert_str(at + 1, &note);
    Ok(out)
}

fn step(program: &str, args: &[&str]) -> Result<(), String> {
    crate::run(program, args)
}

/// Runs a command, echoing and keeping its standard output.
fn capture(
    title: &'static str,
    program: &str,
    args: &[&str],
    env: &[(&str, String)],
) -> Result<Section, String> {
    let output = capture_text(program, args, env, &root())?;
    Ok(Section {
        title,
        command: format!("{program} {}", args.join(" ")),
        output,
    })
}

fn capture_text(
    program: &str,
    args: &[&str],
    env: &[(&str, String)],
    dir: &Path,
) -> Result<String, String> {
    eprintln!("$ {program} {}", args.join(" "));
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(dir).stdout(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().map_err(|e| format!("{program}: {e}"))?;
    let mut out = String::new();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.map_err(|e| e.to_string())?;
            println!("{line}");
            out.push_str(&line);
            out.push('\n');
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if status.success() {
        Ok(out)
    } else {
        Err(format!("`{program} {}` failed: {status}", args.join(" ")))
    }
}

/// `"key":value` of a one-line JSON object, as text.
fn field<'a>(json: &'a str, key: &str) -> Option<&'a str> {
    let at = json.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = json[at..].trim_start();
    if let Some(s) = rest.strip_prefix('"') {
        return s.split('"').next();
    }
    rest.split([',', '}']).next().map(str::trim)
}

/// The webgate figure `ms/page` of the speed block that follows `heading`
/// in the extraction benchmark's output.
fn ms_per_page(output: &str, heading: &str) -> Option<f64> {
    output
        .lines()
        .skip_while(|l| !l.starts_with(heading))
        .find(|l| l.starts_with("webgate extraction"))
        .and_then(|l| l.split_whitespace().rev().nth(1))
        .and_then(|ms| ms.parse::<f64>().ok())
}

/// The reference WCXB scorer on a predictions file of the WCXB split.
fn score_wcxb(pred: &Path) -> Result<String, String> {
    score_corpus("wcxb-dev", pred)
}

/// The reference WCXB scorer on a predictions file of a corpus in WCXB's
/// shape under `../shared/data`.
fn score_corpus(corpus: &str, pred: &Path) -> Result<String, String> {
    let script = root().join("../shared/tools/score_wcxb.py");
    let data = root().join("../shared/data").join(corpus);
    capture_text(
        "python3",
        &[
            &script.display().to_string(),
            &data.display().to_string(),
            "--predictions",
            &pred.display().to_string(),
        ],
        &[],
        &root(),
    )
}

/// The extraction benchmark, the adversarial pages, the reference
/// scripts on webgate's predictions, then each peer, then the ratios.
fn extract() -> Result<Vec<Section>, String> {
    let mut sections = vec![capture(
        "Extraction quality and speed (181 news pages, web-classics, the WCXB development split)",
        "cargo",
        &["bench", "-p", "webgate", "--bench", "extract"],
        &[],
    )?];
    let ours_news = ms_per_page(&sections[0].output, "speed on the 181 news pages");
    let ours_wcxb = ms_per_page(&sections[0].output, "speed on the WCXB development split");
    let ours_classics = ms_per_page(&sections[0].output, "speed on web-classics");
    step("cargo", &["build", "--release", "-p", "webgate-cli"])?;
    let bin = root().join("target/release/webgate");
    sections.push(capture(
        "Extraction on adversarial pages against a plain article (8 MiB)",
        "cargo",
        &[
            "bench",
            "-p",
            "webgate-conformance",
            "--bench",
            "adversarial",
        ],
        &[("WEBGATE_BIN", bin.display().to_string())],
    )?);
    let news = root().join("../shared/data/article-extraction-benchmark");
    let wcxb = root().join("../shared/data/wcxb-dev");
    // The reference metrics on the same predictions (they must agree with
    // the in-process figures to three decimals).
    let script = root().join("../shared/tools/score_extraction.py");
    let pred = root().join("target/extract-predictions.json");
    let out = capture_text(
        "python3",
        &[
            &script.display().to_string(),
            &news.join("ground-truth.json").display().to_string(),
            &pred.display().to_string(),
        ],
        &[],
        &root(),
    )?;
    let wcxb_out = score_wcxb(&root().join("target/wcxb-predictions.jsonl"))?;
    let classics_out = score_corpus(
        "web-classics",
        &root().join("target/classics-predictions.jsonl"),
    )?;
    sections.push(Section {
        title: "The reference scoring scripts on the same predictions",
        command: "python3 ../shared/tools/score_extraction.py …; python3 ../shared/tools/score_wcxb.py … --predictions target/{wcxb,classics}-predictions.jsonl".into(),
        output: format!("{out}\n{wcxb_out}\n{classics_out}"),
    });
    let mut lines = Vec::new();
    let mut notes = Vec::new();
    let mut quality = String::new();
    match peer_dom_smoothie(&news.join("html"), "15") {
        Ok(out) => lines.extend(out.lines().map(|l| ("news", l.to_string()))),
        Err(e) => notes.push(format!("dom_smoothie: not run: {e}")),
    }
    match peer_dom_smoothie(&wcxb.join("html"), "3") {
        Ok(out) => lines.extend(out.lines().map(|l| ("wcxb", l.to_string()))),
        Err(e) => notes.push(format!("dom_smoothie on WCXB: not run: {e}")),
    }
    match peer_python(&news.join("html")) {
        Ok(out) => lines.extend(out.lines().map(|l| ("news", l.to_string()))),
        Err(e) => notes.push(format!("trafilatura, readability-lxml: not run: {e}")),
    }
    let traf_pred = root().join("target/peers/trafilatura-wcxb.jsonl");
    match peer_python_wcxb(&wcxb, &traf_pred) {
        Ok(out) => {
            lines.extend(out.lines().map(|l| ("wcxb", l.to_string())));
            quality.push_str(&format!(
                "trafilatura (venv), WCXB metric:\n{}\n",
                score_wcxb(&traf_pred)?
            ));
        }
        Err(e) => notes.push(format!("trafilatura on WCXB: not run: {e}")),
    }
    let rst_pred = root().join("target/peers/rs-trafilatura-wcxb.jsonl");
    match peer_rs_trafilatura(&wcxb, &rst_pred) {
        Ok(out) => {
            lines.extend(out.lines().map(|l| ("wcxb", l.to_string())));
            quality.push_str(&format!(
                "rs-trafilatura (crates.io), WCXB metric:\n{}\n",
                score_wcxb(&rst_pred)?
            ));
        }
        Err(e) => notes.push(format!("rs-trafilatura: not run: {e}")),
    }
    // The peers on web-classics, the older pages: their quality there is
    // the bar the goals name (readability-lxml, trafilatura without
    // comments).
    let classics = root().join("../shared/data/web-classics");
    let classics_pred = root().join("target/peers/web-classics");
    match peer_python_corpus(&classics, &classics_pred) {
        Ok(out) => {
            lines.extend(out.lines().map(|l| ("clas", l.to_string())));
            for peer in ["trafilatura", "trafilatura-no-comments", "readability-lxml"] {
                quality.push_str(&format!(
                    "{peer} (venv) on web-classics, WCXB metric:\n{}\n",
                    score_corpus("web-classics", &classics_pred.join(format!("{peer}.jsonl")))?
                ));
            }
        }
        Err(e) => notes.push(format!("peers on web-classics: not run: {e}")),
    }
    match peer_node(&news.join("html")) {
        Ok(out) => lines.extend(out.lines().map(|l| ("news", l.to_string()))),
        Err(e) => notes.push(format!("Readability.js: not run: {e}")),
    }
    let mut table = String::from(
        "set   extractor                                   ms/page   webgate is   goal\n",
    );
    for (set, l) in &lines {
        let (Some(name), Some(ms)) = (
            field(l, "peer"),
            field(l, "ms_per_page").and_then(|v| v.parse::<f64>().ok()),
        ) else {
            continue;
        };
        if name.starts_with("webgate") {
            table.push_str(&format!("{set:<5} {name:<42} {ms:>8.2}\n"));
            continue;
        }
        // dom_smoothie is compared with webgate timed in its own process.
        let same_process = lines
            .iter()
            .filter(|(s, _)| s == set)
            .find(|(_, l)| field(l, "peer").is_some_and(|p| p.starts_with("webgate")))
            .and_then(|(_, l)| field(l, "ms_per_page"))
            .and_then(|v| v.parse::<f64>().ok());
        let ours = match *set {
            "news" => ours_news,
            "clas" => ours_classics,
            _ => ours_wcxb,
        };
        let (base, goal) = if name.starts_with("dom_smoothie") {
            (same_process, "> 1x")
        } else if name.starts_with("rs-trafilatura") {
            (ours, "≥ 4x")
        } else {
            (ours, "")
        };
        let ratio = base
            .map(|b| format!("{:.2}x faster", ms / b))
            .unwrap_or_else(|| "n/a".into());
        table.push_str(&format!(
            "{set:<5} {name:<42} {ms:>8.2}   {ratio:<12} {goal}\n"
        ));
        // The same-process harness also times both back to back in each
        // round; the median of those ratios is steadier on a shared
        // machine than the ratio of two best times.
        if let (Some(med), Some(lo), Some(hi)) = (
            field(l, "ratio_median"),
            field(l, "ratio_min"),
            field(l, "ratio_max"),
        ) {
            table.push_str(&format!(
                "{:<48} {:>8}   {med}x faster (per-round median; range {lo}-{hi}x)\n",
                "", ""
            ));
        }
    }
    for n in &notes {
        table.push_str(n);
        table.push('\n');
    }
    println!("\npeers on the same pages, this run\n{table}");
    sections.push(Section {
        title: "Extraction speed against the peers (same pages, same run)",
        command: "bench/peers: dom_smoothie (same process), rs-trafilatura (crates.io), trafilatura and readability-lxml (venv), Readability.js + jsdom (npm)".into(),
        output: table,
    });
    sections.push(Section {
        title: "The peers' quality on the WCXB development split and web-classics (same metric)",
        command: "python3 ../shared/tools/score_wcxb.py … --predictions target/peers/…".into(),
        output: quality,
    });
    // The selection models are trained on these very pages, so the
    // figures above include what the trees fit of them; the held-out
    // run extracts each page with models trained without it.
    let held_out = match train_venv() {
        Ok(py) => capture_text(
            &py.display().to_string(),
            &[
                &root().join("bench/train/train.py").display().to_string(),
                "--held-out-only",
            ],
            &[],
            &root(),
        )?,
        Err(e) => format!("not run: {e}\n"),
    };
    sections.push(Section {
        title: "Held out: every page extracted by models that never saw its site (five folds grouped by site), and across corpora (fitted on WCXB and the news pages, scored on web-classics; and the other way round)",
        command: "python3 bench/train/train.py --held-out-only".into(),
        output: held_out,
    });
    Ok(sections)
}

/// The trainer's virtualenv (LightGBM), made on first use.
fn train_venv() -> Result<std::path::PathBuf, String> {
    venv_at("target/train/venv", "bench/train/requirements.txt")
}

fn peer_dom_smoothie(pages: &Path, rounds: &str) -> Result<String, String> {
    let target = peer_build("dom_smoothie")?;
    capture_text(
        &target
            .join("release/webgate-peer-dom-smoothie")
            .display()
            .to_string(),
        &[&pages.display().to_string(), rounds],
        &[],
        &root(),
    )
}

fn peer_rs_trafilatura(wcxb: &Path, out: &Path) -> Result<String, String> {
    let target = peer_build("rs_trafilatura")?;
    capture_text(
        &target
            .join("release/webgate-peer-rs-trafilatura")
            .display()
            .to_string(),
        &[&wcxb.display().to_string(), &out.display().to_string()],
        &[],
        &root(),
    )
}

/// Builds one Rust peer crate of `bench/peers/` under `target/peers`.
fn peer_build(name: &str) -> Result<std::path::PathBuf, String> {
    let manifest = root().join("bench/peers").join(name).join("Cargo.toml");
    let target = root().join("target/peers");
    step(
        "cargo",
        &[
            "build",
            "--release",
            "--manifest-path",
            &manifest.display().to_string(),
            "--target-dir",
            &target.display().to_string(),
        ],
    )?;
    Ok(target)
}

/// The peers' virtualenv, made on first use.
fn venv() -> Result<std::path::PathBuf, String> {
    venv_at("target/peers/venv", "bench/peers/requirements.txt")
}

/// A virtualenv at `dir` with the packages of `requirements` (both under
/// the workspace root), made on first use; its python.
fn venv_at(dir: &str, requirements: &str) -> Result<std::path::PathBuf, String> {
    let venv = root().join(dir);
    let py = venv.join("bin/python");
    if !py.is_file() {
        step("python3", &["-m", "venv", &venv.display().to_string()])?;
        let pip = venv.join("bin/pip").display().to_string();
        step(&pip, &["install", "--upgrade", "pip"])?;
        let req = root().join(requirements);
        step(&pip, &["install", "-r", &req.display().to_string()])?;
    }
    Ok(py)
}

fn peer_python(pages: &Path) -> Result<String, String> {
    let py = venv()?;
    let script = root().join("bench/peers/peers.py");
    capture_text(
        &py.display().to_string(),
        &[&script.display().to_string(), &pages.display().to_string()],
        &[],
        &root(),
    )
}

fn peer_python_wcxb(wcxb: &Path, out: &Path) -> Result<String, String> {
    let py = venv()?;
    let script = root().join("bench/peers/peers.py");
    capture_text(
        &py.display().to_string(),
        &[
            &script.display().to_string(),
            "--wcxb",
            &wcxb.display().to_string(),
            &out.display().to_string(),
        ],
        &[],
        &root(),
    )
}

fn peer_python_corpus(corpus: &Path, out: &Path) -> Result<String, String> {
    let py = venv()?;
    let script = root().join("bench/peers/peers.py");
    capture_text(
        &py.display().to_string(),
        &[
            &script.display().to_string(),
            "--corpus",
            &corpus.display().to_string(),
            &out.display().to_string(),
        ],
        &[],
        &root(),
    )
}

fn peer_node(pages: &Path) -> Result<String, String> {
    let dir = root().join("target/peers/node");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for f in ["package.json", "readability.mjs"] {
        std::fs::copy(root().join("bench/peers").join(f), dir.join(f))
            .map_err(|e| e.to_string())?;
    }
    if !dir.join("node_modules/jsdom").is_dir() {
        crate::run_in(&dir, "npm", &["install", "--no-audit", "--no-fund"])?;
    }
    capture_text(
        "node",
        &["readability.mjs", &pages.display().to_string()],
        &[],
        &dir,
    )
}

/// The whole report: what ran, on what, and every section's figures.
fn report(sections: &[Section]) -> String {
    let sh = |c: &str, a: &[&str]| {
        Command::new(c)
            .args(a)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    };
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .next()
                .map(|l| l.split_whitespace().nth(1).unwrap_or("?").to_string())
        })
        .and_then(|kb| kb.parse::<u64>().ok())
        .map(|kb| format!("{:.0} GiB", kb as f64 / 1024.0 / 1024.0))
        .unwrap_or_else(|| "? GiB".into());
    let mut out = String::from(
        "# Benchmarks\n\nWritten by `cargo xtask bench` (every benchmark of the project, one run).\n\
         Each figure is a ratio against a peer timed in the same run; nothing here is\n\
         asserted by a test. Timings on a shared 2-core machine vary by 10–30 % between\n\
         runs; benchmarks interleave rounds with their peer to damp that, and the fetch\n\
         benchmark gives every ratio for the median and for the worst round.\n\n",
    );
    out.push_str(&format!(
        "- Date: {}\n- Machine: {cpu}, {} logical CPUs, {mem}\n- Toolchain: {}\n- Commit: {}\n\n",
        sh("date", &["-u", "+%Y-%m-%d %H:%M UTC"]),
        sh("nproc", &[]),
        sh("rustc", &["-V"]),
        sh("git", &["rev-parse", "--short", "HEAD"]),
    ));
    for s in sections {
        out.push_str(&format!(
            "## {}\n\n`{}`\n\n```text\n{}```\n\n",
            s.title, s.command, s.output
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rerun section replaces its namesake only, and one header line
    /// says so (an earlier rerun of the same sections goes).
    #[test]
    fn splice_replaces_one_section_and_says_so() {
        let report = "# Benchmarks\n\n- Commit: abc\n- Rerun at old (then): extract\n\n\
                      ## A\n\n`a`\n\n```text\nold a\n```\n\n## B\n\n`b`\n\n```text\nold b\n```\n\n";
        let s = Section {
            title: "A",
            command: "a2".into(),
            output: "new a\n".into(),
        };
        let out = splice(report, &[s], &["extract"]).unwrap();
        assert!(
            out.contains("## A\n\n`a2`\n\n```text\nnew a\n```\n\n## B"),
            "{out}"
        );
        assert!(out.contains("old b") && !out.contains("old a"), "{out}");
        assert_eq!(out.matches("- Rerun at ").count(), 1, "{out}");
        assert!(!out.contains("Rerun at old"), "{out}");
        let missing = Section {
            title: "C",
            command: String::new(),
            output: String::new(),
        };
        assert!(splice(report, &[missing], &["x"]).is_err());
    }
}
