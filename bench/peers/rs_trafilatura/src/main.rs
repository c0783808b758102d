//! Runs rs-trafilatura (`extract_with_options` with the page's URL, plain text) over the WCXB
//! development split, single thread: prints one JSON line with its time
//! per page and writes its predictions as JSON lines (`{"id", "text"}`)
//! for `score_wcxb.py --predictions`. Run by `cargo xtask bench extract`.
//!
//! Usage: webgate-peer-rs-trafilatura WCXB_DIR OUT.jsonl

#![forbid(unsafe_code)]

use std::io::{BufRead, Read, Write};
use std::time::Instant;

fn gunzip(path: &std::path::Path) -> Vec<u8> {
    let gz = std::fs::read(path).expect("a file");
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(gz.as_slice())
        .read_to_end(&mut out)
        .expect("gzip");
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("the WCXB directory"));
    let out_path = args.next().expect("the predictions file");
    let truth = gunzip(&dir.join("ground-truth.jsonl.gz"));
    let mut pages = Vec::new();
    for line in truth.lines() {
        let line = line.expect("a line");
        let v: serde_json::Value = serde_json::from_str(&line).expect("JSON");
        let id = v["id"].as_str().unwrap_or("").to_string();
        let url = v["url"].as_str().unwrap_or("").to_string();
        let html = gunzip(&dir.join("html").join(format!("{id}.html.gz")));
        pages.push((id, url, String::from_utf8_lossy(&html).into_owned()));
    }
    let mut out = std::fs::File::create(&out_path).expect("the predictions file");
    let t = Instant::now();
    let mut texts = Vec::with_capacity(pages.len());
    for (_, url, html) in &pages {
        // The page's URL, as webgate gets it (its page-type signal reads it).
        let mut options = rs_trafilatura::Options::default();
        options.url = (!url.is_empty()).then(|| url.clone());
        let text = rs_trafilatura::extract_with_options(html, &options)
            .map(|r| r.content_text)
            .unwrap_or_default();
        texts.push(text);
    }
    let secs = t.elapsed().as_secs_f64();
    for ((id, _, _), text) in pages.iter().zip(&texts) {
        writeln!(out, "{}", serde_json::json!({"id": id, "text": text})).expect("written");
    }
    println!(
        "{{\"peer\":\"rs-trafilatura 0.2 (extract, content_text)\",\"set\":\"wcxb\",\"ms_per_page\":{:.3},\"pages\":{}}}",
        secs * 1e3 / pages.len() as f64,
        pages.len()
    );
}
