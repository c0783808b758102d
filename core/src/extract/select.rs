//! Which part of the page is its content, in three decisions, each a
//! small model over the features of `features` (trained on the WCXB
//! development split and the article-extraction benchmark, see
//! `bench/train/`):
//!
//! 1. **The root.** Every element holding a twentieth of the page's text
//!    is a candidate; a ranker picks one. It reads how much content text
//!    a candidate holds and of what kind, its name and tag, readability's
//!    score, and how its children repeat: so a thread's posts, a grid's
//!    tiles or a document's sections are taken whole, not their best one.
//! 2. **The page type.** A page that declares itself an article twice
//!    (JSON-LD and Open Graph) is one; otherwise a classifier says
//!    whether the page is an article (news, a blog post). Articles keep
//!    the article rules of `prune` (bylines, captions, related links, a
//!    title repeated as a heading); other pages, where a link-dense row
//!    or a price is the content, go to the third decision instead.
//! 3. **The units kept.** Inside the root, every block with text of its
//!    own is kept or dropped by a classifier that reads its shape, link
//!    share, the boxes and names above it, and the article rules' own
//!    verdict.

use super::dom::{Doc, Id};
use super::features::{self, Figures};
use super::model::logit;
use super::model_data::{PAGE, ROOT, UNIT};
use super::prune::Pruner;

/// A page is an article when it says so twice (see
/// `features::declares_article`), or when the classifier gives at least
/// this.
const ARTICLE: f64 = 0.7;

/// A unit is kept when the classifier gives at least this.
const KEEP: f64 = 0.4;

/// The most units scored on one page (each costs a walk of every tree);
/// past it the rest are kept. The most of any of the 1,678 benchmark
/// pages is 2,600; a page of a million one-word paragraphs stays cheap.
pub const MAX_SCORED: usize = 4_000;

/// What to render.
pub enum Choice {
    /// An article: the root, with the article rules.
    Article(Id),
    /// Another kind of page: the root, without the text of these nodes.
    Other { root: Id, dropped: Vec<bool> },
}

/// The model's root: the candidate ranked first (the body when there is
/// nothing else).
pub fn root(doc: &Doc, f: &Figures) -> Id {
    features::candidates(doc, f)
        .into_iter()
        .map(|(id, x)| (id, ROOT.score(&x)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(doc.body(), |(id, _)| id)
}

/// The three decisions for `doc`, found at `url`.
pub fn choose(doc: &Doc, url: &url::Url, rules: &Pruner) -> Choice {
    let f = Figures::of(doc);
    let root = root(doc, &f);
    let page = features::page(doc, &f, url, root);
    if features::declares_article(&page) || PAGE.score(&page) >= logit(ARTICLE) {
        return Choice::Article(root);
    }
    let n = doc.nodes.len();
    let (mut dropped, mut own_text) = (vec![false; n], vec![false; n]);
    let mut scored = 0;
    features::units(doc, root, rules, features::unit_context(&page), |unit| {
        scored += 1;
        if UNIT.score(&unit.x) >= logit(KEEP) {
            return scored < MAX_SCORED;
        }
        own_text[unit.id] = true;
        // A dropped block goes whole (its images too) when nothing with
        // text of its own lies inside it.
        if unit.leaf && unit.id != root {
            dropped[unit.id] = true;
        }
        scored < MAX_SCORED
    });
    features::text_units(doc, root, |text, unit| {
        if own_text[unit] {
            dropped[text] = true;
        }
    });
    Choice::Other { root, dropped }
}
