//! `cargo xtask bench extract`: extraction quality and speed on the
//! public corpora beside the workspace (`../shared/data`):
//!
//! - the article-extraction benchmark (181 news pages with human-marked
//!   article text; its metric: `\w+` tokens, 4-token shingles, F1 of the
//!   mean precision and recall), beside the published peers' outputs;
//! - the WCXB development split (1,497 pages of seven types) and
//!   web-classics (1,423 older pages of three other benchmarks), with
//!   WCXB's metric: bag of words, per-page F1 averaged per page type, the
//!   `with` / `without` snippet rates, the markdown structure kept, the
//!   F1 of the markdown as printed (what a model reads) and the share of
//!   pages whose reference title the output shows first.
//!
//! Predictions are written to `target/extract-predictions.json`,
//! `target/wcxb-predictions.jsonl` and `target/classics-predictions.jsonl`
//! so that the reference scripts can score them too (`cargo xtask bench
//! extract` does).
//!
//! `WEBGATE_EXTRACT_PER_PAGE=N` lists the N worst pages of each set;
//! `WEBGATE_EXTRACT_QUALITY_ONLY=1` stops after the scores;
//! `WEBGATE_EXTRACT_SET=articles|wcxb|classics` runs one set only.
//!
//! Speed: single-threaded extraction over all pages against html5ever
//! parsing alone of the same pages, in the same run, per set.

use webgate_scoring as scoring;

use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use scoring::{article_pages, article_score, shared_data, wcxb_pages, Page, WcxbScore};
use serde_json::Value;
use webgate::extract::{extract, Options, Style};
use webgate::messages::Extraction;

fn base_of(url: &str) -> url::Url {
    url::Url::parse(url).unwrap_or_else(|_| url::Url::parse("https://example.invalid/").unwrap())
}

/// The text of `html` at `base` as `web_fetch` renders it, and how it was
/// made (the one entry point, [`extract`], with default options).
fn render_as(html: &str, base: &url::Url, raw: bool, style: Style) -> (String, Extraction) {
    let page = extract(html, base, &Options::new(raw, style));
    (page.text, page.extraction)
}

fn per_page_count() -> usize {
    std::env::var("WEBGATE_EXTRACT_PER_PAGE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn bodies(v: &Value) -> HashMap<String, String> {
    let v = match v.get("output") {
        Some(o) if v.get("version").is_some() => o,
        _ => v,
    };
    v.as_object()
        .map(|o| {
            o.iter()
                .map(|(k, x)| {
                    let body = x.get("articleBody").and_then(Value::as_str).unwrap_or("");
                    (k.clone(), body.to_string())
                })
                .collect()
        })
        .unwrap_or_default()
}

fn articles(pages: &[Page], dir: &Path) {
    let truth: BTreeMap<String, String> = pages
        .iter()
        .map(|p| (p.id.clone(), p.truth.clone()))
        .collect();
    let mut pred = HashMap::new();
    // The text without its title line: what the benchmark's `articleBody`
    // field holds (its schema gives the headline a field of its own, as
    // webgate's `Page::title` does).
    let mut body_pred = HashMap::new();
    for p in pages {
        let page = extract(
            &p.html,
            &base_of(&p.url),
            &Options::new(false, Style::Plain),
        );
        let body = match &page.title {
            Some(t) => page
                .text
                .strip_prefix(t.as_str())
                .map(|r| r.trim_start_matches('\n').to_string())
                .unwrap_or_else(|| page.text.clone()),
            None => page.text.clone(),
        };
        body_pred.insert(p.id.clone(), body);
        pred.insert(p.id.clone(), page.text);
    }
    let out_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/extract-predictions.json");
    let json: serde_json::Map<String, Value> = pred
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::json!({ "articleBody": v })))
        .collect();
    let _ = std::fs::write(&out_path, Value::Object(json).to_string());
    let bytes: usize = pages.iter().map(|p| p.html.len()).sum();
    println!(
        "extraction quality on {} pages ({:.1} MB of HTML)",
        pages.len(),
        bytes as f64 / 1e6
    );
    println!(
        "{:<28} {:>6} {:>9} {:>7}",
        "extractor", "F1", "precision", "recall"
    );
    let (f, p, r) = article_score(&truth, &pred);
    println!(
        "{:<28} {:>6.3} {:>9.3} {:>7.3}",
        "webgate (this run)", f, p, r
    );
    let (f, p, r) = article_score(&truth, &body_pred);
    println!(
        "{:<28} {:>6.3} {:>9.3} {:>7.3}  (the text without its title line, as the benchmark's articleBody)",
        "webgate body (this run)", f, p, r
    );
    let mut peers: Vec<(String, (f64, f64, f64))> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir.join("peer-output")) {
        for e in entries.flatten() {
            let name = e
                .path()
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("")
                .to_string();
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            peers.push((name, article_score(&truth, &bodies(&v))));
        }
    }
    peers.sort_by(|a, b| b.1 .0.total_cmp(&a.1 .0));
    for (name, (f, p, r)) in &peers {
        println!(
            "{:<28} {:>6.3} {:>9.3} {:>7.3}  ({f:.6} {p:.6} {r:.6})",
            format!("{name} (published output)"),
            f,
            p,
            r
        );
    }
    let worst = per_page_count();
    if worst > 0 {
        let mut rows: Vec<(f64, f64, &String)> = truth
            .iter()
            .map(|(k, t)| {
                let pr = pred.get(k).map(String::as_str).unwrap_or("");
                let (tp, fp, fnn) = scoring::page_counts(t, pr);
                (tp / (tp + fp).max(1e-9), tp / (tp + fnn).max(1e-9), k)
            })
            .collect();
        rows.sort_by(|a, b| (a.0 + a.1).total_cmp(&(b.0 + b.1)));
        for (p, r, k) in rows.iter().take(worst) {
            println!("  {k} P={p:.3} R={r:.3}");
        }
    }
}

/// A corpus in WCXB's shape (`label`), scored with WCXB's metric on the
/// text and on the markdown as printed (what a model reads: URLs, markup
/// and all), with the title rate where the references have titles; the
/// predictions go to `target/{file}`.
fn wcxb(label: &str, file: &str, pages: &[Page]) {
    let mut score = WcxbScore::default();
    let mut lines = String::new();
    let mut rows = Vec::new();
    for p in pages {
        let base = base_of(&p.url);
        let (text, _) = render_as(&p.html, &base, false, Style::Plain);
        let (md, _) = render_as(&p.html, &base, false, Style::Markdown);
        let f = score.add(p, &text, Some(&md));
        rows.push((f, &p.id, &p.page_type));
        // The reference script checks markdown structure against the
        // reference's own markdown; a corpus without one gets none.
        let line = if p.truth_markdown.is_empty() {
            serde_json::json!({"id": p.id, "text": text})
        } else {
            serde_json::json!({"id": p.id, "text": text, "markdown": md})
        };
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    let out_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target")
        .join(file);
    let _ = std::fs::write(&out_path, lines);
    let bytes: usize = pages.iter().map(|p| p.html.len()).sum();
    println!(
        "\n{label}: {} pages ({:.1} MB of HTML), WCXB metric; md F1 scores the markdown as printed",
        pages.len(),
        bytes as f64 / 1e6
    );
    print!("{}", score.report("webgate (this run)"));
    let worst = per_page_count();
    if worst > 0 {
        rows.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (f, id, ty) in rows.iter().take(worst) {
            println!("  {id} {ty} F1={f:.3}");
        }
    }
}

/// Extraction against html5ever parsing alone, single thread: rounds
/// alternate so that machine noise hits both alike.
fn speed(label: &str, pages: &[Page], rounds: usize) {
    let parse_all = || {
        use html5ever::tendril::TendrilSink;
        for p in pages {
            let dom =
                html5ever::parse_document(markup5ever_rcdom::RcDom::default(), Default::default())
                    .one(p.html.as_str());
            black_box(&dom);
        }
    };
    let base = url::Url::parse("https://example.invalid/").unwrap();
    let extract_all = || {
        for p in pages {
            black_box(render_as(&p.html, &base, false, Style::Plain));
        }
    };
    let flat_all = || {
        for p in pages {
            black_box(webgate::internals::fuzzing::parse_only(&p.html));
        }
    };
    // The first timing of a round runs slower (the allocator gives back
    // and refaults memory between rounds), so the order rotates each
    // round: every measurement is first in some rounds and not in others.
    // The machine's speed also drifts between rounds (shared cores), so
    // besides the best time of each job the ratio extraction / parse is
    // taken within each round and its median reported (of an even count,
    // the higher of the two middle ones): the goal is judged on that.
    let jobs: [&dyn Fn(); 3] = [&parse_all, &extract_all, &flat_all];
    let mut best = [f64::MAX; 3];
    let mut ratios = Vec::new();
    for round in 0..rounds {
        let mut this = [0.0; 3];
        for k in 0..3 {
            let j = (round + k) % 3;
            let t = Instant::now();
            jobs[j]();
            this[j] = t.elapsed().as_secs_f64();
            best[j] = best[j].min(this[j]);
        }
        ratios.push(this[1] / this[0]);
    }
    ratios.sort_by(f64::total_cmp);
    let [parse, extract, flat] = best;
    let bytes: usize = pages.iter().map(|p| p.html.len()).sum();
    let mb = bytes as f64 / 1e6;
    let n = pages.len() as f64;
    println!(
        "\nspeed on {label} (single thread, best of {rounds} interleaved rounds, order rotated)"
    );
    println!(
        "html5ever parse alone   {:>8.1} MB/s  {:>6.2} ms/page",
        mb / parse,
        parse * 1e3 / n
    );
    println!(
        "webgate extraction      {:>8.1} MB/s  {:>6.2} ms/page",
        mb / extract,
        extract * 1e3 / n
    );
    println!(
        "webgate parse alone (html5ever into its flat view, no extraction) {:.2} ms/page",
        flat * 1e3 / n
    );
    println!(
        "extraction / parse      {:>8.2}x  (per-round median; range {:.2}-{:.2}x; best times {:.2}x)",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1],
        extract / parse
    );
}

fn main() {
    let set = std::env::var("WEBGATE_EXTRACT_SET").unwrap_or_default();
    let quality_only = std::env::var_os("WEBGATE_EXTRACT_QUALITY_ONLY").is_some();
    let adir = shared_data("article-extraction-benchmark");
    let wdir = shared_data("wcxb-dev");
    let cdir = shared_data("web-classics");
    for (name, dir, file) in [
        ("article-extraction-benchmark", &adir, "ground-truth.json"),
        ("wcxb-dev", &wdir, "ground-truth.jsonl.gz"),
        ("web-classics", &cdir, "ground-truth.jsonl.gz"),
    ] {
        if !dir.join(file).is_file() {
            eprintln!("extract bench: no {name} at {}", dir.display());
            std::process::exit(1);
        }
    }
    let mut sets = Vec::new();
    if set.is_empty() || set == "articles" {
        let pages = article_pages(&adir);
        articles(&pages, &adir);
        sets.push(("the 181 news pages", pages, 11));
    }
    if set.is_empty() || set == "classics" {
        let pages = wcxb_pages(&cdir);
        wcxb(
            "web-classics (older pages: CleanEval, L3S-GN1 news, CleanPortalEval)",
            "classics-predictions.jsonl",
            &pages,
        );
        sets.push(("web-classics", pages, 6));
    }
    if set.is_empty() || set == "wcxb" {
        let pages = wcxb_pages(&wdir);
        wcxb("WCXB development split", "wcxb-predictions.jsonl", &pages);
        // Six rounds, not three: a median of three moved between 1.41x
        // and 1.52x from run to run on one machine; each of the three jobs
        // still goes first equally often.
        sets.push(("the WCXB development split", pages, 6));
    }
    if quality_only {
        return;
    }
    for (label, pages, rounds) in &sets {
        speed(label, pages, *rounds);
    }
}
