//! The quality floor of extraction: stratified samples of both public
//! benchmarks, committed under `bench/quality/` (91 of the 181 news pages;
//! 20 pages of each of WCXB dev's seven types), run in process and scored
//! with the benchmarks' own metrics, on the text, on the markdown as
//! printed, and for the title shown first (the same code `cargo xtask bench
//! extract` uses on the whole sets beside the workspace, where the
//! reference scripts agree with it). A ratchet: raise the floors when
//! extraction improves; a change that lowers one is a trade to make on
//! purpose, and the whole-set figures in BENCHMARKS.md say what it cost.

use webgate_scoring as scoring;

use std::collections::{BTreeMap, HashMap};

use scoring::{article_pages, article_score, quality_data, wcxb_pages, WcxbScore};
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

/// The news sample's F1 (4-token shingles): 0.9728 now (the whole set:
/// 0.967). Lowered from 0.984 on purpose when the text began to start
/// with the page's title (contract §13): the benchmark's reference keeps
/// the headline apart from the article body, so every title line is
/// counted as text the reference lacks (0.013 on the whole set).
const NEWS_F1: f64 = 0.972;

/// The WCXB sample's F1 (bag of words) overall and per page type, on the
/// text and on the markdown as printed (what a model reads), now: overall
/// 0.827 / 0.760; article 0.939 / 0.913, collection 0.776 / 0.670,
/// documentation 0.959 / 0.886, forum 0.793 / 0.744, listing 0.765 /
/// 0.613, product 0.672 / 0.644, service 0.883 / 0.848.
///
/// Lowered on purpose, each time with the reason: listing, for the
/// JSON-LD, review and hidden-wrapper signals; forum, for the rule that a
/// page declaring itself an article in JSON-LD and Open Graph takes the
/// article rules; collection, forum and listing when the models were
/// retrained on the rows of the collapsed panels; article and listing
/// for the title line (contract §13, which the references keep apart);
/// and every type when the models were retrained on web-classics too
/// (1,423 older pages): these pages are among those the models learn
/// from, and a model fitted to more kinds of pages fits these less (the
/// sample's product 0.729 -> 0.686, listing 0.771 -> 0.742), while on
/// pages the models never saw WCXB holds (held out by site 0.859 ->
/// 0.860) and web-classics gains (0.924 -> 0.936); and by a hair
/// (0.001 to 0.003) when the training rows came to take inference's own
/// path (`select::plan`: the unit rows of the root the unit model reads,
/// not of the ranker's first choice), retrained: held out by site
/// nothing moved (WCXB 0.860, news 0.959, web-classics 0.936; collection
/// +0.004, listing and service -0.003), in sample WCXB 0.878 -> 0.877;
/// and product (0.683 -> 0.673) and forum's markdown (0.747 -> 0.744)
/// when the models were retrained with the rows of 8 web-classics pages
/// that a title never closed had left empty (`extract/unclosed.rs`): the
/// sample's collection rose 0.777 -> 0.808 and its overall 0.825 ->
/// 0.830, and the whole development split 0.877 -> 0.879 (product 0.693
/// -> 0.694, forum 0.779 -> 0.776); and collection (0.808 -> 0.776) and
/// service (0.887 -> 0.883) when the models were retrained on the rows
/// of the rendering that keeps the spaces and breaks at an inline
/// element's edges (`for<b> </b>more`, `<b>Label<br></b>Text`: words no
/// longer glued): the whole split held (0.879; collection 0.723 ->
/// 0.721, product 0.694 -> 0.698), held out by site WCXB 0.860 and
/// web-classics 0.942 held, across corpora 0.845 -> 0.843 and 0.926 ->
/// 0.925 (retraining noise), and the sample's listing rose 0.755 ->
/// 0.765; and product (0.672 -> 0.669) when the models were retrained on
/// the rows of a listicle whose items are `<article>`s of their own
/// (`dom::marks`: no longer teasers beside the article): the whole
/// split's product held (0.698), its articles rose 0.958 -> 0.959;
/// and collection (0.776 -> 0.773) when the models were retrained on the
/// rows of pages whose text was decoded twice, read once now
/// (`extract/mojibake.rs`, 97 pages of the two corpora): the whole
/// split held (0.879; collection 0.715 -> 0.714, forum 0.778 -> 0.783,
/// service 0.846 -> 0.854, documentation 0.947 -> 0.941, listing 0.758 ->
/// 0.750) and so did the trainer's cross-validated figures (the root's
/// choice 0.894, pruning 0.917, each type within 0.010 either way);
/// and the sample's listing (0.762 -> 0.718: three of its twenty pages
/// chose another root), product (0.673 -> 0.665) and overall (0.831 ->
/// 0.823) when the models were retrained on the rows of the three pages
/// whose hidden whole text now replaces a visible teaser
/// (`visibility::Teasers`): the cross-validated figures rose (root 0.894
/// -> 0.895, pruning 0.917 -> 0.918; listing's pruning 0.738 -> 0.725 and
/// product's 0.685 -> 0.677 fell, collection's and product's root choice
/// rose), the development split held 0.879 (listing 0.750 -> 0.744,
/// product 0.694 -> 0.689, documentation 0.941 -> 0.947; the sample's
/// documentation 0.959 -> 0.958) and web-classics rose 0.949 -> 0.951.
/// The markdown floors rose with each URL shown once (a later link to a
/// target is its text): the sample's markdown 0.767 -> 0.773
/// (documentation 0.886 -> 0.898, collection 0.674 -> 0.686, listing
/// 0.614 -> 0.622), text unchanged.
/// The floors guard
/// against regressions; what the models do on pages they never saw is the
/// trainer's held-out figure (`bench/train/train.py --held-out`, in
/// BENCHMARKS.md).
const WCXB_F1: (f64, f64) = (0.822, 0.764);
const WCXB_TYPES: [(&str, f64, f64); 7] = [
    ("article", 0.938, 0.913),
    ("collection", 0.772, 0.681),
    ("documentation", 0.957, 0.896),
    ("forum", 0.789, 0.747),
    ("listing", 0.717, 0.583),
    ("product", 0.664, 0.639),
    ("service", 0.882, 0.848),
];

/// The share of the sample's pages with a reference title whose output
/// shows it in its first 600 characters: 0.957 now (0.936 before a
/// heading that says the title in other words followed it, 0.929 before the
/// page's one headline followed a line worded apart from it, 0.921
/// when this floor was last set, 0.907 before a home
/// page's `<title>` was shown whole, 0.886 before half
/// of the heading's words had to be the title's, 0.864 before a
/// title segment that says the heading whole stood for it and an
/// article's one headline did, 0.850 before a heading had to say most of
/// the title's words to stand for it, 0.26 before the title line).
const WCXB_TITLES: f64 = 0.955;

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
            let text = render_as(&p.html, &base_of(&p.url), false, Style::Plain).0;
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
        let text = render_as(&p.html, &base_of(&p.url), false, Style::Plain).0;
        let md = render_as(&p.html, &base_of(&p.url), false, Style::Markdown).0;
        score.add(p, &text, Some(&md));
    }
    let report = score.report("webgate");
    eprintln!("{report}");
    let overall = score.overall();
    let (f1, _, _) = overall.means();
    assert!(
        f1 >= WCXB_F1.0 && overall.md_mean() >= WCXB_F1.1,
        "WCXB F1 {f1:.4} / markdown {:.4} under the floor {WCXB_F1:?}\n{report}",
        overall.md_mean()
    );
    for (ty, text, md) in WCXB_TYPES {
        let t = &score.by_type[ty];
        let (f, _, _) = t.means();
        assert!(
            f >= text && t.md_mean() >= md,
            "{ty}: F1 {f:.4} / markdown {:.4} under the floor ({text}, {md})\n{report}",
            t.md_mean()
        );
    }
    assert!(
        overall.title_rate() >= WCXB_TITLES,
        "titles shown on {:.3} of pages, under the floor {WCXB_TITLES}\n{report}",
        overall.title_rate()
    );
}
