//! What the selection models read: per-node figures summed in one pass,
//! then three feature rows, each of structure, names and text shapes —
//! never a site:
//!
//! - a **candidate root** (an element holding a share of the page's text):
//!   how much of the page's content text it holds and of what kind
//!   (paragraphs, headings, list items, links, text in boilerplate boxes),
//!   its tag and role, what its class and id say, readability's score of
//!   it, and how its children and siblings repeat (posts of a thread,
//!   tiles of a grid);
//! - a **text unit** inside the chosen root (a block with text of its
//!   own): its length, link share, sentence shape, tag, the boxes and
//!   names above it, whether the article rules drop it;
//! - the **page**: the schema.org types of its JSON-LD, `og:type`, the
//!   words of its URL path, counts of articles, dates, code blocks and
//!   prices, and the figures of its chosen root.
//!
//! Everything here is linear in the page: the figures are sums in
//! document order, candidates and units read their own children once,
//! and siblings are counted once per parent.

use std::collections::HashMap;

use super::dom::{Doc, Id, Kind};
use super::prune::Pruner;
use super::readability;
use super::signals::{date_words, is_block, is_box, ClassFlags};

/// Per node: sums over its subtree, and what lies above it.
pub struct Figures {
    /// Text outside links and boilerplate boxes.
    pub good: Vec<u32>,
    /// Text inside boilerplate boxes.
    pub boxed_text: Vec<u32>,
    pub paras: Vec<u32>,
    pub heads: Vec<u32>,
    pub h1s: Vec<u32>,
    pub items: Vec<u32>,
    pub links: Vec<u32>,
    pub imgs: Vec<u32>,
    /// The node or an ancestor is a boilerplate box.
    pub boxed: Vec<bool>,
    pub depth: Vec<u32>,
}

impl Figures {
    /// The figures of every node, in two passes over the page.
    pub fn of(doc: &Doc) -> Figures {
        let n = doc.nodes.len();
        let mut boxed = vec![false; n];
        let mut in_link = vec![false; n];
        let mut depth = vec![0u32; n];
        for id in 1..n {
            let p = doc.parent(id).unwrap_or(0);
            // An element without text cannot hold text in a box: its
            // names need not be read.
            boxed[id] = boxed[p] || (doc.nodes[id].text_len > 0 && is_box(doc, id));
            in_link[id] = in_link[p] || doc.nodes[p].tag() == Some("a");
            depth[id] = depth[p] + 1;
        }
        let zero = || vec![0u32; n];
        let mut f = Figures {
            good: zero(),
            boxed_text: zero(),
            paras: zero(),
            heads: zero(),
            h1s: zero(),
            items: zero(),
            links: zero(),
            imgs: zero(),
            boxed,
            depth,
        };
        for id in (1..n).rev() {
            let node = &doc.nodes[id];
            if node.junk {
                continue;
            }
            let text = node.text_len as u32;
            match &node.kind {
                Kind::Text(_) if f.boxed[id] => f.boxed_text[id] += text,
                Kind::Text(_) if !in_link[id] => f.good[id] += text,
                Kind::Element(_) if !f.boxed[id] => match node.tag().unwrap_or("") {
                    "p" | "pre" | "blockquote" | "dd" if text >= 25 => f.paras[id] += 1,
                    "h1" if text > 0 => {
                        f.heads[id] += 1;
                        f.h1s[id] += 1;
                    }
                    "h2" | "h3" | "h4" | "h5" | "h6" if text > 0 => f.heads[id] += 1,
                    "li" | "tr" if text > 0 => f.items[id] += 1,
                    "a" => f.links[id] += 1,
                    "img" => f.imgs[id] += 1,
                    _ => {}
                },
                _ => {}
            }
            let p = doc.parent(id).unwrap_or(0);
            f.good[p] += f.good[id];
            f.boxed_text[p] += f.boxed_text[id];
            f.paras[p] += f.paras[id];
            f.heads[p] += f.heads[id];
            f.h1s[p] += f.h1s[id];
            f.items[p] += f.items[id];
            f.links[p] += f.links[id];
            f.imgs[p] += f.imgs[id];
        }
        f
    }
}

/// An element's look, for counting repeats: tag and class.
fn look(doc: &Doc, id: Id) -> (&str, &str) {
    let n = &doc.nodes[id];
    (n.tag().unwrap_or(""), n.attr("class").unwrap_or(""))
}

/// The most children of `id` that share one look (tiles, posts).
fn most_repeated_child(doc: &Doc, f: &Figures, id: Id) -> u32 {
    let mut counts: HashMap<(&str, &str), u32> = HashMap::new();
    for c in doc.children(id) {
        if doc.nodes[c].tag().is_some() && f.good[c] + doc.nodes[c].text_len as u32 > 0 {
            *counts.entry(look(doc, c)).or_insert(0) += 1;
        }
    }
    counts.values().copied().max().unwrap_or(0)
}

fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 {
        0.0
    } else {
        f64::from(a) / f64::from(b)
    }
}

fn flag(b: bool) -> f64 {
    f64::from(u8::from(b))
}

fn ln1(v: f64) -> f64 {
    (1.0 + v).ln()
}

/// The names of a candidate's features, in order (the trainer's columns).
pub const CANDIDATE_FEATURES: [&str; 46] = [
    "good_share",
    "text_share",
    "link_density",
    "boxed_share",
    "para_share",
    "head_share",
    "item_share",
    "link_share",
    "depth",
    "tag_body",
    "tag_main",
    "tag_article",
    "tag_section",
    "tag_div",
    "tag_cell",
    "tag_list",
    "tag_table",
    "tag_form",
    "tag_other",
    "role_main",
    "itemprop_articlebody",
    "class_positive",
    "class_negative",
    "class_aside",
    "class_content",
    "readability_score",
    "readability_top",
    "readability_above",
    "readability_below",
    "largest_child_share",
    "texty_children",
    "purity",
    "share_of_parent",
    "like_siblings",
    "repeated_children",
    "good_log",
    "image_share",
    "boxed",
    "in_main",
    "position",
    "holds_h1",
    "text_share_of_parent",
    "heads_log",
    "items_log",
    "paras_log",
    "reserved",
];

/// Candidate roots (elements holding a twentieth of the page's text or
/// content text, and the body), with their feature rows.
pub fn candidates(doc: &Doc, f: &Figures) -> Vec<(Id, [f64; 46])> {
    let n = doc.nodes.len();
    let body = doc.body();
    let mut scores = Vec::new();
    let top = readability::select_scored(doc, Some(&mut scores))
        .first()
        .copied();
    let max_score = scores.iter().copied().fold(1e-9, f64::max);
    let good_body = f.good[body].max(1);
    let text_body = doc.nodes[body].text_len.max(1) as f64;
    let mut above_top = vec![false; n];
    let mut c = top;
    while let Some(x) = c {
        above_top[x] = true;
        c = doc.parent(x);
    }
    let mut ids: Vec<Id> = (body..doc.end(body))
        .filter(|&i| {
            let nd = &doc.nodes[i];
            i == body
                || (nd.tag().is_some()
                    && !nd.junk
                    && (f64::from(f.good[i]) >= 0.05 * f64::from(good_body)
                        || nd.text_len as f64 >= 0.05 * text_body))
        })
        .collect();
    // At most 300, the largest: an attacker's page cannot make the rows
    // more than that.
    if ids.len() > 300 {
        ids.sort_by_key(|&i| std::cmp::Reverse(f.good[i] as usize + doc.nodes[i].text_len));
        ids.truncate(300);
        ids.sort_unstable();
    }
    // Siblings that look alike, counted once per parent.
    let mut by_parent: HashMap<Id, HashMap<(&str, &str), u32>> = HashMap::new();
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let nd = &doc.nodes[id];
        let tag = nd.tag().unwrap_or("");
        let cf = nd.class_flags();
        let text = nd.text_len.max(1) as f64;
        let parent = doc.parent(id).unwrap_or(0);
        let tags = [
            tag == "body",
            tag == "main",
            tag == "article",
            tag == "section",
            tag == "div",
            matches!(tag, "td" | "th"),
            matches!(tag, "ul" | "ol" | "dl"),
            matches!(tag, "table" | "tbody"),
            tag == "form",
        ];
        let mut largest = 0;
        let mut texty = 0u32;
        for c in doc.children(id) {
            largest = largest.max(f.good[c]);
            texty += u32::from(f.good[c] > 0);
        }
        let siblings = by_parent.entry(parent).or_insert_with(|| {
            let mut m = HashMap::new();
            for c in doc.children(parent) {
                if doc.nodes[c].attr("class").is_some_and(|k| !k.is_empty()) {
                    *m.entry(look(doc, c)).or_insert(0) += 1;
                }
            }
            m
        });
        let alike = siblings
            .get(&look(doc, id))
            .copied()
            .unwrap_or(1)
            .saturating_sub(1);
        let x = [
            ratio(f.good[id], good_body),
            nd.text_len as f64 / text_body,
            nd.link_density(),
            f64::from(f.boxed_text[id]) / text,
            ratio(f.paras[id], f.paras[body]),
            ratio(f.heads[id], f.heads[body]),
            ratio(f.items[id], f.items[body]),
            ratio(f.links[id], f.links[body]),
            f64::from(f.depth[id]) / 32.0,
            flag(tags[0]),
            flag(tags[1]),
            flag(tags[2]),
            flag(tags[3]),
            flag(tags[4]),
            flag(tags[5]),
            flag(tags[6]),
            flag(tags[7]),
            flag(tags[8]),
            flag(!tags.iter().any(|&b| b)),
            flag(nd.attr("role") == Some("main")),
            flag(
                nd.attr("itemprop")
                    .is_some_and(|p| p.to_ascii_lowercase().contains("articlebody")),
            ),
            flag(cf.has(ClassFlags::POSITIVE)),
            flag(cf.has(ClassFlags::NEGATIVE)),
            flag(cf.has(ClassFlags::ASIDE)),
            flag(cf.has(ClassFlags::CONTENT)),
            scores[id] / max_score,
            flag(Some(id) == top),
            flag(above_top[id] && Some(id) != top),
            flag(top.is_some_and(|t| id > t && id < doc.end(t))),
            ratio(largest, f.good[id]),
            ln1(f64::from(texty)),
            f64::from(f.good[id]) / text,
            ratio(f.good[id], f.good[parent]),
            ln1(f64::from(alike)),
            ln1(f64::from(most_repeated_child(doc, f, id))),
            ln1(f64::from(f.good[id])) / 12.0,
            ratio(f.imgs[id], f.imgs[body]),
            flag(f.boxed[id]),
            flag(doc.in_main(id)),
            id as f64 / n as f64,
            flag(f.h1s[id] > 0),
            nd.text_len as f64 / doc.nodes[parent].text_len.max(1) as f64,
            ln1(f64::from(f.heads[id])),
            ln1(f64::from(f.items[id])),
            ln1(f64::from(f.paras[id])),
            0.0,
        ];
        out.push((id, x));
    }
    out
}

/// The names of a unit's features, in order.
pub const UNIT_FEATURES: [&str; 46] = [
    "rules_drop",
    "len_log",
    "words_log",
    "link_density",
    "commas_log",
    "sentence_end",
    "starts_upper",
    "digit_ratio",
    "currency",
    "tag_p",
    "tag_li",
    "tag_heading",
    "tag_cell",
    "tag_div",
    "tag_dd",
    "tag_pre",
    "tag_quote",
    "tag_caption",
    "tag_root",
    "tag_other",
    "in_box",
    "in_aside_name",
    "in_negative_name",
    "in_positive_name",
    "in_content_name",
    "in_meta_name",
    "in_list",
    "in_table",
    "in_header",
    "in_footer",
    "in_nav",
    "depth",
    "position",
    "leaf",
    "parent_link_density",
    "like_siblings",
    "title_words",
    "lexicon",
    "dates",
    "root_link_density",
    "in_link",
    "upper_ratio",
    "parent_len_log",
    "in_form",
    "in_strong",
    "reserved",
];

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

/// A block with text of its own inside the chosen root.
pub struct Unit {
    /// The block element (or the root, for loose text).
    pub id: Id,
    /// Whether no block with text lies inside it.
    pub leaf: bool,
    pub x: [f64; 46],
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
pub fn units(doc: &Doc, root: Id, rules: &Pruner, mut each: impl FnMut(Unit) -> bool) {
    let mut title_words: Vec<String> = doc
        .title
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 2)
        .map(str::to_string)
        .collect();
    title_words.sort_unstable();
    let end = doc.end(root);
    let span = (end - root).max(1) as f64;
    let root_ld = doc.nodes[root].link_density();
    // False once `each` wants no more.
    let finish = |u: Open, each: &mut dyn FnMut(Unit) -> bool| {
        if u.len == 0 {
            return true;
        }
        let x = unit_features(doc, root, &u, span, root_ld, &title_words);
        each(Unit {
            id: u.id,
            leaf: u.leaf,
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
    // Units open now, innermost last; open elements with what is above
    // their children and whether they opened a unit.
    let mut units: Vec<Open> = vec![new_open(root, Above::default())];
    let mut open: Vec<(Id, Above, bool)> = Vec::new();
    let mut id = root + 1;
    loop {
        while let Some(&(top, _, unit)) = open.last() {
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
        if node.junk {
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
                a.depth += 1;
                let unit = is_unit_block(tag) && node.text_len > 0;
                if unit {
                    // OK because the root's unit is popped only at the end.
                    units.last_mut().expect("root unit").leaf = false;
                    units.push(new_open(id, a));
                }
                if doc.end(id) > id + 1 {
                    open.push((id, a, unit));
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

/// The features of one finished unit.
fn unit_features(
    doc: &Doc,
    root: Id,
    u: &Open,
    span: f64,
    root_ld: f64,
    title_words: &[String],
) -> [f64; 46] {
    let nd = &doc.nodes[u.id];
    let tag = if u.id == root {
        "#root"
    } else {
        nd.tag().unwrap_or("")
    };
    let text = &u.head;
    let chars = text.chars().count().max(1) as f64;
    let (mut digits, mut upper) = (0.0, 0.0);
    for c in text.chars() {
        digits += flag(c.is_ascii_digit());
        upper += flag(c.is_uppercase());
    }
    // Furniture and dates are short: longer units are read for their
    // shape only.
    let short = u.len <= 200;
    let low = text.to_lowercase();
    let lexicon = if short {
        LEXICON.iter().filter(|w| low.contains(*w)).count()
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
        in_title += usize::from(title_words.binary_search_by(|t| t.as_str().cmp(w)).is_ok());
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
    [
        flag(a.dropped),
        ln1(u.len as f64),
        ln1(text.split_whitespace().count() as f64),
        u.link as f64 / u.len.max(1) as f64,
        ln1(nd.commas as f64),
        flag(
            u.last
                .is_some_and(|c| matches!(c, '.' | '!' | '?' | '。' | ':')),
        ),
        flag(text.chars().next().is_some_and(char::is_uppercase)),
        digits / chars,
        flag(text.contains(['$', '€', '£', '¥'])),
        flag(tags[0]),
        flag(tags[1]),
        flag(tags[2]),
        flag(tags[3]),
        flag(tags[4]),
        flag(tags[5]),
        flag(tags[6]),
        flag(tags[7]),
        flag(tags[8]),
        flag(tags[9]),
        flag(!tags.iter().any(|&b| b)),
        flag(a.boxed),
        flag(a.aside),
        flag(a.negative),
        flag(a.positive),
        flag(a.content),
        flag(a.meta),
        flag(a.list),
        flag(a.table),
        flag(a.header),
        flag(a.footer),
        flag(a.nav),
        f64::from(a.depth) / 16.0,
        (u.id - root) as f64 / span,
        flag(u.leaf),
        doc.nodes[parent].link_density(),
        ln1(alike as f64),
        if words == 0 {
            0.0
        } else {
            in_title as f64 / words as f64
        },
        lexicon as f64,
        if short {
            date_words(&low).0 as f64
        } else {
            0.0
        },
        root_ld,
        flag(a.link),
        upper / chars,
        ln1(doc.nodes[parent].text_len as f64),
        flag(a.form),
        flag(a.strong),
        0.0,
    ]
}

/// The names of a page's features, in order.
pub const PAGE_FEATURES: [&str; 31] = [
    "ld_article",
    "ld_product",
    "ld_discussion",
    "ld_list",
    "ld_docs",
    "ld_service",
    "ld_faq",
    "ld_event",
    "og_article",
    "og_product",
    "og_website",
    "url_product",
    "url_discussion",
    "url_docs",
    "url_list",
    "url_article",
    "url_depth",
    "articles_log",
    "times_log",
    "pre_log",
    "prices_log",
    "headings_log",
    "root_good_share",
    "root_link_density",
    "root_paras_log",
    "root_items_log",
    "root_repeated_log",
    "root_heads_log",
    "page_link_density",
    "cart",
    "paras_per_text",
];

/// The `@type`s of a JSON-LD value, lower case (at most `budget` values
/// visited; serde_json caps the nesting).
fn json_types(v: &serde_json::Value, out: &mut Vec<String>, budget: &mut usize) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    match v {
        serde_json::Value::Object(m) => {
            match m.get("@type") {
                Some(serde_json::Value::String(s)) => out.push(s.to_ascii_lowercase()),
                Some(serde_json::Value::Array(a)) => out.extend(
                    a.iter()
                        .filter_map(serde_json::Value::as_str)
                        .map(str::to_ascii_lowercase),
                ),
                _ => {}
            }
            for x in m.values() {
                json_types(x, out, budget);
            }
        }
        serde_json::Value::Array(a) => {
            for x in a {
                json_types(x, out, budget);
            }
        }
        _ => {}
    }
}

/// The page's features (see the module header); `root` is the chosen one.
pub fn page(doc: &Doc, f: &Figures, url: &url::Url, root: Id) -> [f64; 31] {
    let mut types = Vec::new();
    let mut og = String::new();
    let (mut articles, mut times, mut pres, mut prices, mut heads) = (0u32, 0u32, 0u32, 0u32, 0u32);
    let mut cart = false;
    let mut budget = 4096;
    // JSON-LD read per page, bytes.
    let mut json_left: usize = 256 * 1024;
    for id in 0..doc.nodes.len() {
        let n = &doc.nodes[id];
        match n.tag() {
            Some("script")
                if n.attr("type")
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json")) =>
            {
                let mut text = String::new();
                for k in doc.children(id) {
                    if let Kind::Text(t) = &doc.nodes[k].kind {
                        text.push_str(t);
                    }
                }
                // Real JSON-LD is a few kilobytes; a parsed megabyte is
                // tens of megabytes of values, for one type name.
                json_left = json_left.saturating_sub(text.len());
                if json_left > 0 {
                    if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                        json_types(&v, &mut types, &mut budget);
                    }
                }
            }
            Some("meta")
                if n.attr("property")
                    .is_some_and(|p| p.eq_ignore_ascii_case("og:type")) =>
            {
                og = n.attr("content").unwrap_or("").to_ascii_lowercase();
            }
            Some("article") if !n.junk => articles += 1,
            Some("time") if !n.junk => times += 1,
            Some("pre") if !n.junk => pres += 1,
            Some("h1" | "h2" | "h3") if !n.junk => heads += 1,
            _ => {}
        }
        if let (Kind::Text(t), false) = (&n.kind, n.junk) {
            let b = t.as_bytes();
            prices += b
                .windows(2)
                .filter(|w| w[0] == b'$' && w[1].is_ascii_digit())
                .count() as u32;
            if t.len() < 40 {
                let l = t.to_ascii_lowercase();
                cart |=
                    l.contains("add to cart") || l.contains("add to bag") || l.contains("buy now");
            }
        }
    }
    let has = |names: &[&str]| flag(types.iter().any(|t| names.contains(&t.as_str())));
    let path = url.path().to_ascii_lowercase();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let segment = |names: &[&str]| {
        flag(segments.iter().any(|s| {
            names
                .iter()
                .any(|n| s == n || (s.starts_with(n) && s[n.len()..].starts_with('-')))
        }))
    };
    let body = doc.body();
    let good_body = f.good[body].max(1);
    let ln = |v: u32| ln1(f64::from(v));
    [
        has(&[
            "article",
            "newsarticle",
            "blogposting",
            "reportagenewsarticle",
            "report",
            "analysisnewsarticle",
        ]),
        has(&["product", "offer", "aggregaterating", "productgroup"]),
        has(&[
            "qapage",
            "discussionforumposting",
            "question",
            "answer",
            "comment",
        ]),
        has(&[
            "itemlist",
            "collectionpage",
            "searchresultspage",
            "offercatalog",
        ]),
        has(&["techarticle", "apireference", "softwaresourcecode", "howto"]),
        has(&[
            "service",
            "localbusiness",
            "professionalservice",
            "softwareapplication",
        ]),
        has(&["faqpage"]),
        has(&["recipe", "event", "course"]),
        flag(og == "article"),
        flag(og.contains("product")),
        flag(og == "website"),
        segment(&["product", "products", "p", "dp", "item", "pdp", "shop"]),
        segment(&[
            "t",
            "topic",
            "thread",
            "threads",
            "forum",
            "forums",
            "questions",
            "discussion",
            "community",
            "viewtopic.php",
            "showthread.php",
            "d",
        ]),
        segment(&[
            "docs",
            "doc",
            "documentation",
            "api",
            "reference",
            "guide",
            "guides",
            "manual",
            "tutorial",
            "learn",
        ]),
        segment(&[
            "category",
            "categories",
            "collections",
            "collection",
            "c",
            "browse",
            "search",
            "list",
            "tag",
            "topics",
        ]),
        segment(&[
            "blog", "news", "article", "articles", "story", "posts", "post", "2020", "2021",
            "2022", "2023", "2024", "2025",
        ]),
        segments.len() as f64 / 8.0,
        ln(articles),
        ln(times),
        ln(pres),
        ln(prices),
        ln(heads),
        ratio(f.good[root], good_body),
        doc.nodes[root].link_density(),
        ln(f.paras[root]),
        ln(f.items[root]),
        ln(most_repeated_child(doc, f, root)),
        ln(f.heads[root]),
        doc.nodes[body].link_density(),
        flag(cart),
        f64::from(f.paras[body]) * 100.0 / doc.nodes[body].text_len.max(1) as f64,
    ]
}
