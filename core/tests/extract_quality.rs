//! The quality floor of extraction: both public benchmarks beside the
//! workspace (`../shared/data`), run in process and scored with their own
//! metrics (the same figures `cargo xtask bench extract` prints, and the
//! reference scripts agree with), must not fall below what the current
//! selection reaches. A ratchet: raise the floors when extraction
//! improves; a change that lowers one is a trade to make on purpose.

#[path = "support/scoring.rs"]
mod scoring;

use std::collections::{BTreeMap, HashMap};

use scoring::{article_pages, article_score, shared_data, wcxb_pages, WcxbScore};
use webgate::extract::{render_page_as, Style};

fn base_of(url: &str) -> url::Url {
    url::Url::parse(url).unwrap_or_else(|_| url::Url::parse("https://example.invalid/").unwrap())
}

/// The article-extraction benchmark's F1 (4-token shingles): 0.980 now.
const NEWS_F1: f64 = 0.979;

/// WCXB's F1 (bag of words) overall and per page type, now: overall
/// 0.866; article 0.956, collection 0.702, documentation 0.936, forum
/// 0.769, listing 0.725, product 0.635, service 0.829.
const WCXB_F1: f64 = 0.865;
const WCXB_TYPES: [(&str, f64); 7] = [
    ("article", 0.955),
    ("collection", 0.700),
    ("documentation", 0.934),
    ("forum", 0.767),
    ("listing", 0.723),
    ("product", 0.633),
    ("service", 0.827),
];

#[test]
fn news_articles_keep_their_f1() {
    let pages = article_pages(&shared_data("article-extraction-benchmark"));
    assert_eq!(pages.len(), 181);
    let truth: BTreeMap<String, String> = pages
        .iter()
        .map(|p| (p.id.clone(), p.truth.clone()))
        .collect();
    let pred: HashMap<String, String> = pages
        .iter()
        .map(|p| {
            let text = render_page_as(&p.html, &base_of(&p.url), false, Style::Plain).0;
            (p.id.clone(), text)
        })
        .collect();
    let (f1, _, _) = article_score(&truth, &pred);
    assert!(f1 >= NEWS_F1, "news F1 {f1:.4} under the floor {NEWS_F1}");
}

#[test]
fn every_page_type_keeps_its_f1() {
    let pages = wcxb_pages(&shared_data("wcxb-dev"));
    assert_eq!(pages.len(), 1497);
    let mut score = WcxbScore::default();
    for p in &pages {
        let text = render_page_as(&p.html, &base_of(&p.url), false, Style::Plain).0;
        score.add(p, &text, None);
    }
    let report = score.report("webgate");
    let (f1, _, _) = score.overall().means();
    assert!(
        f1 >= WCXB_F1,
        "WCXB F1 {f1:.4} under the floor {WCXB_F1}\n{report}"
    );
    for (ty, floor) in WCXB_TYPES {
        let (f, _, _) = score.by_type[ty].means();
        assert!(
            f >= floor,
            "{ty}: F1 {f:.4} under the floor {floor}\n{report}"
        );
    }
}
