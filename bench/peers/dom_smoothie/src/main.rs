//! Times dom_smoothie 0.19 (its `text_content`) and webgate's extraction
//! (plain text) over every page of a directory of `.html.gz` files, single
//! thread, 15 rounds (or the second argument) with the order alternating: the best time of each
//! and the median of the per-round ratios; prints one JSON line per
//! extractor. Run by `cargo xtask bench extract`.

#![forbid(unsafe_code)]

use std::io::Read;
use std::time::Instant;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("a directory of .html.gz pages");
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|r| r.parse().ok())
        .unwrap_or(15);
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("the pages directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".html.gz"))
        .collect();
    paths.sort();
    let pages: Vec<String> = paths
        .iter()
        .map(|p| {
            let gz = std::fs::read(p).expect("a page");
            let mut bytes = Vec::new();
            flate2::read::GzDecoder::new(gz.as_slice())
                .read_to_end(&mut bytes)
                .expect("gzip");
            String::from_utf8_lossy(&bytes).into_owned()
        })
        .collect();
    let base = url::Url::parse("https://example.invalid/").expect("a URL");
    let (mut theirs, mut ours) = (f64::MAX, f64::MAX);
    let (mut their_chars, mut our_chars) = (0usize, 0usize);
    let run_theirs = |chars: &mut usize| {
        let t = Instant::now();
        *chars = 0;
        for html in &pages {
            if let Ok(mut r) = dom_smoothie::Readability::new(
                html.as_str(),
                Some("https://example.invalid/"),
                None,
            ) {
                if let Ok(article) = r.parse() {
                    *chars += article.text_content.len();
                }
            }
        }
        t.elapsed().as_secs_f64()
    };
    let run_ours = |chars: &mut usize| {
        let t = Instant::now();
        *chars = 0;
        for html in &pages {
            let options = webgate::extract::Options::new(false, webgate::extract::Style::Plain);
            let text = webgate::extract::extract(html, &base, &options).text;
            *chars += text.len();
        }
        t.elapsed().as_secs_f64()
    };
    // The first timing of a round runs slower (memory given back and
    // refaulted between rounds), so the two take turns going first. On a
    // shared machine the speed drifts between rounds, so the ratio is
    // also taken within each round (both timed back to back) and the
    // median of those is reported beside the best times.
    let mut ratios = Vec::new();
    for round in 0..rounds {
        let (t, o) = if round % 2 == 0 {
            let t = run_theirs(&mut their_chars);
            (t, run_ours(&mut our_chars))
        } else {
            let o = run_ours(&mut our_chars);
            (run_theirs(&mut their_chars), o)
        };
        theirs = theirs.min(t);
        ours = ours.min(o);
        ratios.push(t / o);
    }
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    let per_page = |s: f64| s * 1e3 / pages.len() as f64;
    println!(
        "{{\"peer\":\"dom_smoothie 0.19 (text_content)\",\"ms_per_page\":{:.3},\"pages\":{},\"chars\":{},\"ratio_median\":{:.3},\"ratio_min\":{:.3},\"ratio_max\":{:.3}}}",
        per_page(theirs),
        pages.len(),
        their_chars,
        median,
        ratios[0],
        ratios[ratios.len() - 1]
    );
    println!(
        "{{\"peer\":\"webgate (same process, interleaved)\",\"ms_per_page\":{:.3},\"pages\":{},\"chars\":{}}}",
        per_page(ours),
        pages.len(),
        our_chars
    );
}
