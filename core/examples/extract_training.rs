//! Writes the training rows of extraction's selection models for every
//! page of the development corpora (`../shared/data`: the WCXB development
//! split, the article-extraction benchmark with ids `n…`, and web-classics
//! with ids `c…`, its page types those of its sources): run by
//! `bench/train/train.py`, which labels them against the reference texts
//! and fits the trees compiled into `core/src/extract/model_data.rs`.
//!
//! `cargo run --release -p webgate --example extract_training -- OUT_DIR`
//! writes `candidates.tsv`, `units.tsv` and `pages.tsv`: page id, page
//! type, comma-separated features, then (candidates and units) the text;
//! and `features.txt`, the feature names of each, a line each.

use webgate_scoring as scoring;

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

fn main() {
    let out = std::path::PathBuf::from(std::env::args().nth(1).expect("an output directory"));
    std::fs::create_dir_all(&out).expect("the output directory");
    let mut pages = scoring::wcxb_pages(&scoring::shared_data("wcxb-dev"));
    for mut p in scoring::article_pages(&scoring::shared_data("article-extraction-benchmark")) {
        p.page_type = "news".into();
        p.id = format!("n{}", p.id);
        pages.push(p);
    }
    for mut p in scoring::wcxb_pages(&scoring::shared_data("web-classics")) {
        p.id = format!("c{}", p.id);
        pages.push(p);
    }
    let rows: Mutex<Vec<(usize, [String; 3])>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let clean = |t: &str| t.replace(['\t', '\n', '\r'], " ");
    let join = |x: &[f64]| {
        x.iter()
            .map(|v| format!("{v:.6}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = pages.get(i) else { break };
                let base = url::Url::parse(&p.url)
                    .unwrap_or_else(|_| url::Url::parse("https://example.com/").unwrap());
                let (cands, units, page) =
                    webgate::internals::fuzzing::extraction_training_rows(&p.html, &base);
                let head = format!("{}\t{}\t", p.id, p.page_type);
                let mut out = [String::new(), String::new(), String::new()];
                for (x, t) in cands {
                    out[0].push_str(&format!("{head}{}\t{}\n", join(&x), clean(&t)));
                }
                for (x, t) in units {
                    out[1].push_str(&format!("{head}{}\t{}\n", join(&x), clean(&t)));
                }
                out[2] = format!("{head}{}\n", join(&page));
                rows.lock().unwrap().push((i, out));
            });
        }
    });
    let mut rows = rows.into_inner().unwrap();
    rows.sort_by_key(|r| r.0);
    let names = webgate::internals::fuzzing::EXTRACTION_FEATURE_NAMES;
    let header: Vec<String> = names.iter().map(|n| n.join(",")).collect();
    std::fs::write(out.join("features.txt"), header.join("\n") + "\n").expect("written");
    for (k, name) in ["candidates.tsv", "units.tsv", "pages.tsv"]
        .iter()
        .enumerate()
    {
        let mut f = std::fs::File::create(out.join(name)).expect("a file");
        for (_, r) in &rows {
            f.write_all(r[k].as_bytes()).expect("written");
        }
    }
}
