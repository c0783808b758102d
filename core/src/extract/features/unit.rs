//! The text units inside the chosen root and their rows, the unit
//! classifier's input: every block with text of its own, read in one walk
//! for its shape, link share, tag, the boxes and names above it, the
//! heading of its section, the article rules' verdict and whether an
//! earlier unit had the same text.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use super::super::dom::{Doc, Id, Kind};
use super::super::lexicon::{is_block, ClassFlags};
use super::super::prune::Pruner;
use super::super::signals::{date_words, is_box};
use super::{flag, ln1, look};

feature_row! {
    /// A text unit's features, in the trainer's column order.
    UnitRow {
        rules_drop,
        len_log,
        words_log,
        link_density,
        commas_log,
        sentence_end,
        starts_upper,
        digit_ratio,
        currency,
        tag_p,
        tag_li,
        tag_heading,
        tag_cell,
        tag_div,
        tag_dd,
        tag_pre,
        tag_quote,
        tag_caption,
        tag_root,
        tag_other,
        in_box,
        in_aside_name,
        in_negative_name,
        in_positive_name,
        in_content_name,
        in_meta_name,
        in_list,
        in_table,
        in_header,
        in_footer,
        in_nav,
        depth,
        position,
        leaf,
        parent_link_density,
        like_siblings,
        title_words,
        lexicon,
        dates,
        root_link_density,
        in_link,
        upper_ratio,
        parent_len_log,
        in_form,
        in_strong,
        in_review_name,
        under_furniture_heading,
        page_product,
        page_cart,
        repeat,
    }
}

/// The names of a unit's features, in order (the trainer's columns).
pub const UNIT_FEATURES: &[&str] = UnitRow::NAMES;

/// Short phrases of site furniture, in English (most of the training
/// pages): cart buttons, sign-in prompts, legal lines, share prompts.
const LEXICON: &[&str] = &[
    "copyright",
    "©",
    "rights reserved",
    "privacy",
    "cookie",
    "sign in",
    "log in",
    "login",
    "sign up",
    "subscribe",
    "newsletter",
    "follow us",
    "share",
    "add to cart",
    "add to bag",
    "add to wishlist",
    "terms of",
    "read more",
    "learn more",
    "skip to",
    "menu",
    "search",
    "back to top",
    "related",
    "recommended",
    "advertisement",
    "sponsored",
];

/// Heading words that open a section of shop furniture or of what
/// others said (lower case, matched inside headings of at most
/// [`HEADING_READ`] bytes): "Customers also bought", "Reviews (12)".
const FURNITURE_HEADINGS: &[&str] = &[
    "review",
    "rating",
    "related",
    "similar",
    "you may also",
    "you might also",
    "you may like",
    "you might like",
    "also like",
    "also bought",
    "also viewed",
    "customers also",
    "frequently bought",
    "recently viewed",
    "recommended",
    "more from",
    "people also",
    "sponsored",
    "trending",
    "popular",
    "complete the look",
    "shop the look",
];

/// A heading is read for [`FURNITURE_HEADINGS`] when its text is at most
/// this long (bytes); at most [`HEADING_NODES`] nodes of it are visited,
/// so a hostile heading costs no more than a short one.
const HEADING_READ: usize = 80;
const HEADING_NODES: usize = 32;

/// How far up a heading's section is looked for (elements).
const SECTION_CLIMB: usize = 6;

/// A block with text of its own inside the chosen root.
pub struct Unit {
    /// The block element (or the root, for loose text).
    pub id: Id,
    /// Whether no block with text lies inside it.
    pub leaf: bool,
    /// Inside a quotation, with the text of an earlier unit of the root
    /// (a post quoted by a reply): not a feature, `select` drops it.
    pub quoted_repeat: bool,
    pub x: [f64; UnitRow::LEN],
}

/// Whether a tag makes its text a unit of its own.
pub fn is_unit_block(tag: &str) -> bool {
    is_block(tag)
        || matches!(
            tag,
            "li" | "dt" | "dd" | "td" | "th" | "figcaption" | "caption" | "summary"
        )
}

/// What the elements above a unit are.
#[derive(Clone, Copy, Default)]
struct Above {
    dropped: bool,
    boxed: bool,
    aside: bool,
    negative: bool,
    positive: bool,
    content: bool,
    meta: bool,
    list: bool,
    table: bool,
    header: bool,
    footer: bool,
    nav: bool,
    link: bool,
    form: bool,
    strong: bool,
    /// Inside an element named as reviews or ratings.
    review: bool,
    /// Inside a `blockquote` or an element named as a quotation or a
    /// clamped preview.
    quote: bool,
    /// After a heading of [`FURNITURE_HEADINGS`] in an enclosing section.
    furniture: bool,
    depth: u32,
}

/// A unit being read: its own text so far.
struct Open {
    id: Id,
    /// The first words of its text (enough for its shape) and its last
    /// character; the length is counted whole.
    head: String,
    last: Option<char>,
    len: usize,
    link: usize,
    above: Above,
    leaf: bool,
}

/// The most of a unit's text its shape is read from (bytes).
const HEAD: usize = 512;

/// Calls `each` for every text unit under `root`, in the order the units
/// end, with its features, until `each` returns false. Memory stays the
/// depth of the tree: a unit is scored as soon as its block closes.
///
/// `page` is what the whole page says about it, the same for every unit
/// (see [`unit_context`]).
pub fn units(
    doc: &Doc,
    root: Id,
    rules: &Pruner,
    page: [f64; 2],
    mut each: impl FnMut(Unit) -> bool,
) {
    let title_words = TitleWords::of(&doc.title);
    let end = doc.end(root);
    let span = (end - root).max(1) as f64;
    let root_ld = doc.nodes[root].link_density();
    // The texts of the units finished so far (see [`repeat_key`]).
    let mut seen: HashSet<u64> = HashSet::new();
    // False once `each` wants no more.
    let mut finish = |u: Open, each: &mut dyn FnMut(Unit) -> bool| {
        if u.len == 0 {
            return true;
        }
        let repeat = repeat_key(&u).is_some_and(|k| !seen.insert(k));
        let x = unit_features(doc, root, &u, span, root_ld, &title_words, page, repeat);
        each(Unit {
            id: u.id,
            leaf: u.leaf,
            quoted_repeat: repeat && u.above.quote,
            x,
        })
    };
    let new_open = |id, above| Open {
        id,
        head: String::new(),
        last: None,
        len: 0,
        link: 0,
        above,
        leaf: true,
    };
    // Units open now, innermost last; open elements (the root first)
    // with what is above their children, whether they opened a unit, and
    // whether one of their headings set `furniture` (see `mark_section`).
    let mut units: Vec<Open> = vec![new_open(root, Above::default())];
    let mut open: Vec<OpenElement> = vec![(root, Above::default(), false, false)];
    let mut id = root + 1;
    loop {
        while let Some(&(top, _, unit, _)) = open.last() {
            if id < doc.end(top) {
                break;
            }
            open.pop();
            if unit {
                // OK because every unit element pushed a unit.
                let u = units.pop().expect("unit");
                if !finish(u, &mut each) {
                    return;
                }
            }
        }
        if id >= end {
            break;
        }
        let node = &doc.nodes[id];
        // Nothing in a subtree without text can make or grow a unit
        // (images, icons, empty wrappers): skipped whole.
        if node.junk || (node.text_len == 0 && matches!(node.kind, Kind::Element(_))) {
            id = doc.end(id);
            continue;
        }
        let above = open.last().map(|o| o.1).unwrap_or_default();
        match &node.kind {
            Kind::Text(t) => {
                // OK because the root's unit is popped only at the end.
                let u = units.last_mut().expect("root unit");
                for w in t.split_whitespace() {
                    if u.head.len() >= HEAD {
                        break;
                    }
                    if !u.head.is_empty() {
                        u.head.push(' ');
                    }
                    u.head.push_str(w);
                }
                if let Some(c) = t.trim_end().chars().next_back() {
                    u.last = Some(c);
                }
                u.len += node.text_len;
                if above.link {
                    u.link += node.text_len;
                }
                id += 1;
            }
            Kind::Element(_) => {
                let tag = node.tag().unwrap_or("");
                if matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
                    mark_section(doc, id, &mut open);
                }
                let cf = node.class_flags();
                let mut a = above;
                a.dropped |= rules.drops(id);
                a.boxed |= is_box(doc, id);
                a.aside |= cf.has(ClassFlags::ASIDE) && !cf.has(ClassFlags::CONTENT);
                a.negative |= cf.has(ClassFlags::NEGATIVE);
                a.positive |= cf.has(ClassFlags::POSITIVE);
                a.content |= cf.has(ClassFlags::CONTENT);
                a.meta |= cf.has(ClassFlags::META);
                a.list |= matches!(tag, "ul" | "ol" | "dl");
                a.table |= tag == "table";
                a.header |= tag == "header";
                a.footer |= tag == "footer";
                a.nav |= tag == "nav";
                a.link |= tag == "a";
                a.form |= tag == "form";
                a.strong |= matches!(tag, "strong" | "b");
                a.review |= cf.has(ClassFlags::REVIEW);
                a.quote |= tag == "blockquote" || cf.has(ClassFlags::QUOTE);
                a.depth += 1;
                let unit = is_unit_block(tag) && node.text_len > 0;
                if unit {
                    // OK because the root's unit is popped only at the end.
                    units.last_mut().expect("root unit").leaf = false;
                    units.push(new_open(id, a));
                }
                if doc.end(id) > id + 1 {
                    open.push((id, a, unit, false));
                } else if unit {
                    // OK because it was just pushed.
                    let u = units.pop().expect("unit");
                    if !finish(u, &mut each) {
                        return;
                    }
                }
                id += 1;
            }
            Kind::Other => id += 1,
        }
    }
    while let Some(u) = units.pop() {
        if !finish(u, &mut each) {
            return;
        }
    }
}

/// An open element of the units walk: its id, what is above its
/// children, whether it opened a unit, whether a heading of its own set
/// its children's `furniture`.
type OpenElement = (Id, Above, bool, bool);

/// A heading names the section it opens: in the nearest enclosing
/// element with more text than the heading (at most [`SECTION_CLIMB`]
/// up), what follows it is furniture when its words say so, until
/// another heading of that section says otherwise. Siblings, not
/// ancestors, because "Reviews" is most often a heading beside the
/// reviews, not above them.
fn mark_section(doc: &Doc, heading: Id, open: &mut [OpenElement]) {
    let len = doc.nodes[heading].text_len;
    if len == 0 {
        return;
    }
    let furniture = len <= HEADING_READ && {
        let mut low = String::new();
        for k in (heading + 1..doc.end(heading)).take(HEADING_NODES) {
            if let Kind::Text(t) = &doc.nodes[k].kind {
                low.push_str(&t.to_lowercase());
                low.push(' ');
            }
        }
        FURNITURE_HEADINGS.iter().any(|w| low.contains(w))
    };
    let Some(section) = open
        .iter_mut()
        .rev()
        .take(SECTION_CLIMB)
        .find(|o| doc.nodes[o.0].text_len > len + 20)
    else {
        return;
    };
    if furniture {
        section.1.furniture = true;
        section.3 = true;
    } else if section.3 {
        section.1.furniture = false;
        section.3 = false;
    }
}

/// For every text node under `root`, the unit its text belongs to (the
/// nearest unit block, or the root), in one walk: `unit_of(text, unit)`.
pub fn text_units(doc: &Doc, root: Id, mut unit_of: impl FnMut(Id, Id)) {
    let end = doc.end(root);
    let mut blocks: Vec<Id> = vec![root];
    let mut id = root + 1;
    while id < end {
        while blocks.len() > 1 && id >= doc.end(blocks[blocks.len() - 1]) {
            blocks.pop();
        }
        let node = &doc.nodes[id];
        if node.junk {
            id = doc.end(id);
            continue;
        }
        match &node.kind {
            // OK because the root never leaves the stack.
            Kind::Text(_) => unit_of(id, *blocks.last().expect("root")),
            Kind::Element(_) => {
                if node.tag().is_some_and(is_unit_block) && node.text_len > 0 {
                    blocks.push(id);
                }
            }
            Kind::Other => {}
        }
        id += 1;
    }
}

/// A unit's text, for telling a repeat: its first words and its length.
/// `None` for a short text (a label or a price repeats by nature).
fn repeat_key(u: &Open) -> Option<u64> {
    if u.len < REPEAT_LEN {
        return None;
    }
    let mut h = std::hash::DefaultHasher::new();
    u.head.hash(&mut h);
    u.len.hash(&mut h);
    Some(h.finish())
}

/// The shortest unit text (bytes) that counts as a repeat when an
/// earlier unit of the root had the same: a quoted post, a reply's
/// preview of its parent, the phone and desktop copies of one block, a
/// carousel's cloned slide.
const REPEAT_LEN: usize = 20;

/// The words of the page's title a unit's words are looked up in: of
/// three characters or more, lower case, sorted; with the bytes they
/// start with, so that most words of a long unit (none of whose first
/// bytes start a title word) are passed over without a search.
struct TitleWords {
    words: Vec<String>,
    starts: [bool; 256],
}

impl TitleWords {
    fn of(title: &str) -> TitleWords {
        let mut words: Vec<String> = title
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() > 2)
            .map(str::to_string)
            .collect();
        words.sort_unstable();
        let mut starts = [false; 256];
        for w in &words {
            starts[usize::from(w.as_bytes()[0])] = true;
        }
        TitleWords { words, starts }
    }

    /// Whether `word` (lower case, not empty) is one of the title's.
    fn has(&self, word: &str) -> bool {
        word.as_bytes()
            .first()
            .is_some_and(|&b| self.starts[usize::from(b)])
            && self
                .words
                .binary_search_by(|t| t.as_str().cmp(word))
                .is_ok()
    }
}

/// The features of one finished unit.
#[allow(clippy::too_many_arguments)]
fn unit_features(
    doc: &Doc,
    root: Id,
    u: &Open,
    span: f64,
    root_ld: f64,
    title_words: &TitleWords,
    page: [f64; 2],
    repeat: bool,
) -> [f64; UnitRow::LEN] {
    let nd = &doc.nodes[u.id];
    let tag = if u.id == root {
        "#root"
    } else {
        nd.tag().unwrap_or("")
    };
    let text = &u.head;
    // One pass for the character counts. The head is its words joined
    // by single spaces, so its spaces count its words.
    // (Counted as integers: a sum of floats waits on the previous add
    // at every character; the counts are exact either way.)
    let (mut chars, mut digits, mut upper, mut spaces) = (0usize, 0usize, 0usize, 0usize);
    if text.is_ascii() {
        // (Most heads: a byte is a character, and the same counts come
        // without decoding.)
        for &b in text.as_bytes() {
            digits += usize::from(b.is_ascii_digit());
            upper += usize::from(b.is_ascii_uppercase());
            spaces += usize::from(b == b' ');
        }
        chars = text.len();
    } else {
        for c in text.chars() {
            chars += 1;
            digits += usize::from(c.is_ascii_digit());
            upper += usize::from(c.is_uppercase());
            spaces += usize::from(c == ' ');
        }
    }
    let (digits, upper) = (digits as f64, upper as f64);
    let head_words = if text.is_empty() { 0 } else { spaces + 1 };
    let chars = chars.max(1) as f64;
    // Furniture and dates are short: longer units are read for their
    // shape only.
    let short = u.len <= 200;
    let low = text.to_lowercase();
    let lexicon = if short {
        // A phrase is looked for only when every byte of it occurs.
        let have = byte_set(low.as_bytes());
        LEXICON
            .iter()
            .zip(&LEXICON_BYTES)
            .filter(|(w, need)| {
                need.iter().zip(&have).all(|(n, h)| n & !h == 0) && low.contains(**w)
            })
            .count()
    } else {
        0
    };
    let (mut words, mut in_title) = (0usize, 0usize);
    for w in low
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 2)
        .take(64)
    {
        words += 1;
        in_title += usize::from(title_words.has(w));
    }
    let parent = doc.parent(u.id).unwrap_or(0);
    // Siblings that look alike among the next eight (tiles, posts, rows).
    let mut alike = 0;
    if u.id != root {
        let me = look(doc, u.id);
        let (mut c, stop) = (doc.end(u.id), doc.end(parent));
        for _ in 0..8 {
            if c >= stop {
                break;
            }
            alike += usize::from(look(doc, c) == me);
            c = doc.end(c);
        }
    }
    let a = u.above;
    let tags = [
        tag == "p",
        tag == "li",
        matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6"),
        matches!(tag, "td" | "th"),
        matches!(tag, "div" | "section" | "article"),
        matches!(tag, "dd" | "dt"),
        tag == "pre",
        tag == "blockquote",
        matches!(tag, "figcaption" | "caption"),
        tag == "#root",
    ];
    UnitRow {
        rules_drop: flag(a.dropped),
        len_log: ln1(u.len as f64),
        words_log: ln1(head_words as f64),
        link_density: u.link as f64 / u.len.max(1) as f64,
        commas_log: ln1(nd.commas as f64),
        sentence_end: flag(
            u.last
                .is_some_and(|c| matches!(c, '.' | '!' | '?' | '。' | ':')),
        ),
        starts_upper: flag(text.chars().next().is_some_and(char::is_uppercase)),
        digit_ratio: digits / chars,
        currency: flag(text.contains(['$', '€', '£', '¥'])),
        tag_p: flag(tags[0]),
        tag_li: flag(tags[1]),
        tag_heading: flag(tags[2]),
        tag_cell: flag(tags[3]),
        tag_div: flag(tags[4]),
        tag_dd: flag(tags[5]),
        tag_pre: flag(tags[6]),
        tag_quote: flag(tags[7]),
        tag_caption: flag(tags[8]),
        tag_root: flag(tags[9]),
        tag_other: flag(!tags.iter().any(|&b| b)),
        in_box: flag(a.boxed),
        in_aside_name: flag(a.aside),
        in_negative_name: flag(a.negative),
        in_positive_name: flag(a.positive),
        in_content_name: flag(a.content),
        in_meta_name: flag(a.meta),
        in_list: flag(a.list),
        in_table: flag(a.table),
        in_header: flag(a.header),
        in_footer: flag(a.footer),
        in_nav: flag(a.nav),
        depth: f64::from(a.depth) / 16.0,
        position: (u.id - root) as f64 / span,
        leaf: flag(u.leaf),
        parent_link_density: doc.nodes[parent].link_density(),
        like_siblings: ln1(alike as f64),
        title_words: if words == 0 {
            0.0
        } else {
            in_title as f64 / words as f64
        },
        lexicon: lexicon as f64,
        dates: if short {
            date_words(&low).0 as f64
        } else {
            0.0
        },
        root_link_density: root_ld,
        in_link: flag(a.link),
        upper_ratio: upper / chars,
        parent_len_log: ln1(doc.nodes[parent].text_len as f64),
        in_form: flag(a.form),
        in_strong: flag(a.strong),
        in_review_name: flag(a.review),
        under_furniture_heading: flag(a.furniture),
        page_product: page[0],
        page_cart: page[1],
        repeat: flag(repeat),
    }
    .values()
}

/// The bytes that occur in `text`, as a set of 256 bits.
const fn byte_set(text: &[u8]) -> [u64; 4] {
    let mut set = [0u64; 4];
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        set[(b >> 6) as usize] |= 1 << (b & 63);
        i += 1;
    }
    set
}

/// The [`byte_set`] of each phrase of [`LEXICON`], made once when the
/// crate is compiled.
const LEXICON_BYTES: [[u64; 4]; LEXICON.len()] = {
    let mut sets = [[0u64; 4]; LEXICON.len()];
    let mut i = 0;
    while i < LEXICON.len() {
        sets[i] = byte_set(LEXICON[i].as_bytes());
        i += 1;
    }
    sets
};

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::id_of;
    use super::*;

    /// What follows a furniture heading in its section is marked, until
    /// another heading of that section; what comes before is not.
    #[test]
    fn furniture_headings_mark_the_rest_of_their_section() {
        let html = "<div id=root><p id=a>The description of the product, in words.</p>\
             <div><h2>Customers also bought</h2></div>\
             <ul><li id=b>Another product, with a price</li></ul>\
             <h2>Specifications</h2><p id=c>Weight two kilograms, and a strap.</p>\
             <h3>Reviews (3)</h3><div><p id=d>Great pack, would buy again.</p></div></div>";
        let doc = Doc::parse(html);
        let rules = Pruner::new(&doc);
        let root = id_of(&doc, "root");
        let at = UNIT_FEATURES
            .iter()
            .position(|&n| n == "under_furniture_heading")
            .expect("the feature");
        let mut seen = HashMap::new();
        units(&doc, root, &rules, [0.0, 0.0], |u| {
            seen.insert(u.id, u.x[at]);
            true
        });
        let got = |v| seen[&id_of(&doc, v)];
        assert_eq!(
            [got("a"), got("b"), got("c"), got("d")],
            [0.0, 1.0, 0.0, 1.0]
        );
    }

    /// A unit whose text an earlier unit of the root had is a repeat;
    /// the first copy is not, nor a short text (a label, a price), nor
    /// a text that only begins the same way.
    #[test]
    fn repeats_are_the_second_copies_of_a_text() {
        let long = "A reply that quotes the question, word for word, at length.";
        let html = format!(
            "<div id=root><p id=a>{long}</p><blockquote id=b>{long}</blockquote>\
             <p id=c>{long} And adds to it.</p><p id=d>$9.99</p><p id=e>$9.99</p></div>"
        );
        let doc = Doc::parse(&html);
        let rules = Pruner::new(&doc);
        let at = UNIT_FEATURES
            .iter()
            .position(|&n| n == "repeat")
            .expect("the feature");
        let mut seen = HashMap::new();
        units(&doc, id_of(&doc, "root"), &rules, [0.0, 0.0], |u| {
            seen.insert(u.id, u.x[at]);
            true
        });
        let got = |v| seen[&id_of(&doc, v)];
        assert_eq!(
            [got("a"), got("b"), got("c"), got("d"), got("e")],
            [0.0, 1.0, 0.0, 0.0, 0.0]
        );
    }

    /// A quoted repeat is a repeat inside a `blockquote` or an element
    /// named as a quote or a clamped preview; the first copy is not one,
    /// wherever it is, nor a repeat outside quotations (a phone and a
    /// desktop copy of one block).
    #[test]
    fn quoted_repeats_are_repeats_inside_quotations() {
        let long = "A reply that quotes the question, word for word, at length.";
        let other = "Another post of the thread, quoted by the one after it.";
        let html = format!(
            "<div id=root><blockquote><p id=a>{long}</p></blockquote>\
             <div class=post><blockquote><p id=b>{long}</p></blockquote><p>Agreed.</p></div>\
             <p id=c>{other}</p><div class=bbcode-quote><p id=d>{other}</p></div>\
             <div class='text-muted line-clamp-1'><p id=e>{other}</p></div>\
             <div class=mobile><p id=f>{other}</p></div></div>"
        );
        let doc = Doc::parse(&html);
        let rules = Pruner::new(&doc);
        let mut seen = HashMap::new();
        units(&doc, id_of(&doc, "root"), &rules, [0.0, 0.0], |u| {
            seen.insert(u.id, u.quoted_repeat);
            true
        });
        let got = |v| seen[&id_of(&doc, v)];
        assert_eq!(
            ["a", "b", "c", "d", "e", "f"].map(got),
            [false, true, false, true, true, false]
        );
    }
}
