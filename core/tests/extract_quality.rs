//! The quality floor of extraction: stratified samples of both public
//! benchmarks, committed under `bench/quality/` (91 of the 181 news pages;
//! 20 pages of each of WCXB dev's seven types), run in process and scored
//! with the benchmarks' own metrics (the same code `cargo xtask bench
//! extract` uses on the whole sets beside the workspace, where the
//! reference scripts agree with it). A ratchet: raise the floors when
//! extraction improves; a change that lowers one is a trade to make on
//! purpose, and the whole-set figures in BENCHMARKS.md say what it cost.

#[path = "support/scoring.rs"]
mod scoring;

use std::collections::{BTreeMap, HashMap};

use scoring::{article_pages, article_score, quality_data, wcxb_pages, WcxbScore};
use webgate::extract::{render_page_as, Style};

fn base_of(url: &str) -> url::Url {
    url::Url::parse(url).unwrap_or_else(|_| url::Url::parse("https://example.invalid/").unwrap())
}

/// The news sample's F1 (4-token shingles): 0.9728 now (the whole set:
/// 0.967). Lowered from 0.984 on purpose when the text began to start
/// with the page's title (contract §13): the benchmark's reference keeps
/// the headline apart from the article body, so every title line is
/// counted as text the reference lacks (0.013 on the whole set).
const NEWS_F1: f64 = 0.972;

/// The WCXB sample's F1 (bag of words) overall and per page type, now:
/// overall 0.840; article 0.952, collection 0.788, documentation 0.960,
/// forum 0.789, listing 0.774, product 0.729, service 0.889 (the whole dev
/// split: 0.889 overall). Lowered on purpose three times: listing, for
/// the JSON-LD, review and hidden-wrapper signals (two of this sample's
/// listings whose tiles carry ratings lost some tiles while listing on
/// the whole split held); forum, for the rule that a page declaring
/// itself an article in JSON-LD and Open Graph takes the article rules
/// (one thread of this sample declares both and now keeps its first post
/// only; the held-out forum figure is unchanged, 0.751, because a model
/// that has not seen that page calls it an article too); and collection,
/// forum and listing when the models were retrained on the rows of the
/// collapsed panels read since 335ca65 (a retrain moves a few pages of
/// any sample both ways: one collection of this sample went from 0.93 to
/// 0.32 while collection on the whole split held, 0.742 to 0.741). These
/// pages are among those the selection models learn from, so the floors
/// guard against regressions; what the models do on pages they never
/// saw is the trainer's held-out figure (`bench/train/train.py
/// --held-out`, in BENCHMARKS.md).
const WCXB_F1: f64 = 0.838;
const WCXB_TYPES: [(&str, f64); 7] = [
    // 0.950 before the title line (0.949 now).
    ("article", 0.948),
    ("collection", 0.786),
    ("documentation", 0.958),
    ("forum", 0.787),
    ("listing", 0.771),
    ("product", 0.727),
    ("service", 0.887),
];

#[test]
fn news_articles_keep_their_f1() {
    let pages = article_pages(&quality_data("article-extraction-benchmark"));
    assert_eq!(pages.len(), 91);
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
    eprintln!("news F1 {f1:.4}");
    assert!(f1 >= NEWS_F1, "news F1 {f1:.4} under the floor {NEWS_F1}");
}

#[test]
fn every_page_type_keeps_its_f1() {
    let pages = wcxb_pages(&quality_data("wcxb-dev"));
    assert_eq!(pages.len(), 140);
    let mut score = WcxbScore::default();
    for p in &pages {
        let text = render_page_as(&p.html, &base_of(&p.url), false, Style::Plain).0;
        score.add(p, &text, None);
    }
    let report = score.report("webgate");
    eprintln!("{report}");
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
