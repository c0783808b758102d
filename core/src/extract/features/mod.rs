//! What the selection models read: per-node figures summed in one pass,
//! then three feature rows, each of structure, names and text shapes —
//! never a site:
//!
//! - a **candidate root** (an element holding a share of the page's text):
//!   how much of the page's content text it holds and of what kind
//!   (paragraphs, headings, list items, links, text in boilerplate boxes),
//!   its tag and role, what its class and id say, readability's score of
//!   it, how its children and siblings repeat (posts of a thread, tiles
//!   of a grid), whether it shows the text the page declares in its
//!   JSON-LD (a product's description, an article's body), and how much
//!   of it is named as reviews or ratings;
//! - a **text unit** inside the chosen root (a block with text of its
//!   own): its length, link share, sentence shape, tag, the boxes and
//!   names above it (reviews and ratings among them), whether a heading
//!   of its section opens shop furniture ("Customers also bought",
//!   "Reviews"), whether the article rules drop it, whether an earlier
//!   unit had the same text (a quoted post, a reply's preview of its
//!   parent, the phone copy of a block), and whether the page declares a
//!   product or has a cart;
//! - the **page**: the schema.org types of its JSON-LD, `og:type`, the
//!   words of its URL path, counts of articles, dates, code blocks and
//!   prices, and the figures of its chosen root.
//!
//! Everything here is linear in the page: the figures are sums in
//! document order, candidates and units read their own children once,
//! and siblings are counted once per parent.
//!
//! In reading order: `figures` (the per-node sums), `json_ld` (what the
//! page declares about itself), then the three rows: `candidate`,
//! `unit`, `page`. The helpers they share are here.

use std::collections::HashMap;

use html5ever::LocalName;

use super::dom::{Doc, Id, Kind};

/// One declaration of a model's row: each feature a named `f64` field, so
/// that the names the trainer reads (`NAMES`, in field order) and the
/// values inference computes (`values()`, in the same order) come from
/// one list, and a row is built by name: two values swapped are two names
/// swapped, in plain sight, not a silent change of columns.
macro_rules! feature_row {
    ($(#[$doc:meta])* $name:ident { $($field:ident),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $name {
            $(pub $field: f64),*
        }

        impl $name {
            /// The features' names, in the trainer's column order.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];
            /// How many features there are.
            pub const LEN: usize = Self::NAMES.len();

            /// The values, in the order of [`Self::NAMES`].
            pub fn values(&self) -> [f64; Self::LEN] {
                [$(self.$field),*]
            }
        }
    };
}

mod candidate;
mod figures;
mod json_ld;
mod page;
mod unit;

#[cfg(test)]
pub use candidate::CandidateRow;
pub use candidate::{candidates, CANDIDATE_FEATURES};
pub use figures::Figures;
pub use json_ld::declared_headline;
pub use page::PageRow;
pub use page::{declares_article, declares_discussion, page, unit_context, PAGE_FEATURES};
#[cfg(test)]
pub use unit::UnitRow;
pub use unit::{text_units, units, UNIT_FEATURES};

/// An element's look, for counting repeats: tag and class. (The tag as
/// its interned name: two looks compare their tags as one number.)
pub(super) fn look(doc: &Doc, id: Id) -> Look<'_> {
    let n = &doc.nodes[id];
    let tag = match &n.kind {
        Kind::Element(name) => Some(name),
        _ => None,
    };
    (tag, n.attr("class").unwrap_or(""))
}

/// What [`look`] gives: tag (none for text) and class.
pub(super) type Look<'d> = (Option<&'d LocalName>, &'d str);

/// The most children of `id` that share one look (tiles, posts).
fn most_repeated_child(doc: &Doc, f: &Figures, id: Id) -> u32 {
    let mut counts: HashMap<Look<'_>, u32> = HashMap::new();
    for c in doc.children(id) {
        if doc.nodes[c].tag().is_some() && f.good[c] + doc.nodes[c].text_len as u32 > 0 {
            *counts.entry(look(doc, c)).or_insert(0) += 1;
        }
    }
    counts.values().copied().max().unwrap_or(0)
}

/// `a / b`, and 0 for an empty whole (a page without links has no
/// link share).
fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 {
        0.0
    } else {
        f64::from(a) / f64::from(b)
    }
}

/// A yes or no as a feature: 1 or 0.
fn flag(b: bool) -> f64 {
    f64::from(u8::from(b))
}

/// `ln(1 + v)`: counts and lengths span orders of magnitude; 0 stays 0.
fn ln1(v: f64) -> f64 {
    (1.0 + v).ln()
}

/// The element with this `id` attribute (tests).
#[cfg(test)]
fn id_of(doc: &Doc, v: &str) -> Id {
    (0..doc.nodes.len())
        .find(|&i| doc.nodes[i].attr("id") == Some(v))
        .expect("the element")
}
