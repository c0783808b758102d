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

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

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
    /// Text inside elements named as reviews or ratings.
    pub review_text: Vec<u32>,
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
        let mut in_review = vec![false; n];
        let mut depth = vec![0u32; n];
        for id in 1..n {
            let p = doc.parent(id).unwrap_or(0);
            // An element without text cannot hold text in a box: its
            // names need not be read.
            boxed[id] = boxed[p] || (doc.nodes[id].text_len > 0 && is_box(doc, id));
            in_link[id] = in_link[p] || doc.nodes[p].tag() == Some("a");
            in_review[id] = in_review[p]
                || (doc.nodes[id].text_len > 0
                    && doc.nodes[id].class_flags().has(ClassFlags::REVIEW));
            depth[id] = depth[p] + 1;
        }
        let zero = || vec![0u32; n];
        let mut f = Figures {
            good: zero(),
            boxed_text: zero(),
            review_text: zero(),
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
            if in_review[id] && matches!(node.kind, Kind::Text(_)) {
                f.review_text[id] += text;
            }
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
            f.review_text[p] += f.review_text[id];
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
pub const CANDIDATE_FEATURES: [&str; 47] = [
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
    "declared_text_share",
    "review_share",
];

/// Candidate roots (elements holding a twentieth of the page's text or
/// content text, and the body), with their feature rows.
pub fn candidates(doc: &Doc, f: &Figures) -> Vec<(Id, [f64; 47])> {
    let n = doc.nodes.len();
    let body = doc.body();
    let mut scores = Vec::new();
    let top = readability::select_scored(doc, Some(&mut scores))
        .first()
        .copied();
    let max_score = scores.iter().copied().fold(1e-9, f64::max);
    let declared = declared_text(doc);
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
            declared[id],
            f64::from(f.review_text[id]) / text,
        ];
        out.push((id, x));
    }
    out
}

/// The most probes of [`declared_text`] a page gives, and how many
/// letters and digits each is.
const MAX_PROBES: usize = 8; // the bits of a u8
const PROBE: usize = 30;

/// The letters and digits of `text`, lower case, at most `n` (entities,
/// quotes and spacing differ between a page's JSON-LD and its markup;
/// the words do not).
fn alnum(text: &str, n: usize) -> String {
    let mut out = String::new();
    alnum_into(text, n, &mut out);
    out
}

/// [`alnum`] into a buffer the caller keeps (it is asked for every long
/// text of a page that declares texts). ASCII text, most of it, is read
/// byte by byte: for ASCII, `is_alphanumeric` and `to_lowercase` are
/// their ASCII forms.
fn alnum_into(text: &str, n: usize, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.extend(
            text.bytes()
                .filter(u8::is_ascii_alphanumeric)
                .take(n)
                .map(|b| char::from(b.to_ascii_lowercase())),
        );
        return;
    }
    out.extend(
        text.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .take(n),
    );
}

/// Per node, the share of the texts the page declares in its JSON-LD
/// (a `description`, `articleBody` or `text` of 80 characters or more: a
/// product's description, an article's body, a question and its
/// answers) whose start it shows, of those shown anywhere. A page says
/// there what its content is; the element that shows all of it is the
/// likely root: a thread's container holds every answer, one post only
/// its own. Linear: each JSON-LD script is parsed once (256 KiB in all),
/// each text node long enough is read once, and each node is marked at
/// most once per text.
fn declared_text(doc: &Doc) -> Vec<f64> {
    let mut probes: Vec<String> = Vec::new();
    let mut json_left = JSON_LD_BYTES;
    let mut budget = 4096;
    for id in 0..doc.nodes.len() {
        if let Some(v) = json_ld(doc, id, &mut json_left) {
            json_texts(&v, &mut probes, &mut budget);
        }
    }
    probes.sort_unstable();
    probes.dedup();
    let mut shown = vec![0u8; doc.nodes.len()];
    if probes.is_empty() {
        return vec![0.0; doc.nodes.len()];
    }
    let (mut found, mut own) = (0u8, String::new());
    for id in doc.body()..doc.end(doc.body()) {
        let n = &doc.nodes[id];
        let Kind::Text(t) = &n.kind else { continue };
        if n.junk || n.text_len < PROBE {
            continue;
        }
        alnum_into(t, usize::MAX, &mut own);
        for (k, p) in probes.iter().enumerate() {
            let bit = 1u8 << k;
            if !own.contains(p.as_str()) {
                continue;
            }
            found |= bit;
            let mut c = Some(id);
            while let Some(x) = c {
                if shown[x] & bit != 0 {
                    break;
                }
                shown[x] |= bit;
                c = doc.parent(x);
            }
        }
    }
    let all = f64::from(found.count_ones().max(1));
    shown
        .into_iter()
        .map(|m| f64::from(m.count_ones()) / all)
        .collect()
}

/// The probes of the long declared texts of a JSON-LD value (see
/// [`declared_text`]); at most `budget` values visited.
fn json_texts(v: &serde_json::Value, out: &mut Vec<String>, budget: &mut usize) {
    if *budget == 0 || out.len() >= MAX_PROBES {
        return;
    }
    *budget -= 1;
    match v {
        serde_json::Value::Object(m) => {
            for key in ["description", "articleBody", "text"] {
                if let Some(serde_json::Value::String(s)) = m.get(key) {
                    // Descriptions may carry markup; its tags and
                    // entities (`&amp;`) are not words.
                    let mut plain = String::new();
                    let (mut in_tag, mut entity) = (false, 0);
                    for c in s.chars().take(2_000) {
                        if entity > 0 {
                            if (c.is_ascii_alphanumeric() || c == '#') && entity < 10 {
                                entity += 1;
                                continue;
                            }
                            entity = 0;
                            if c == ';' {
                                continue;
                            }
                        }
                        match c {
                            '<' => in_tag = true,
                            '>' if in_tag => {
                                in_tag = false;
                                plain.push(' ');
                            }
                            '&' if !in_tag => entity = 1,
                            _ if !in_tag => plain.push(c),
                            _ => {}
                        }
                    }
                    let probe = alnum(&plain, PROBE);
                    if plain.chars().count() >= 80
                        && probe.chars().count() == PROBE
                        && out.len() < MAX_PROBES
                    {
                        out.push(probe);
                    }
                }
            }
            for x in m.values() {
                json_texts(x, out, budget);
            }
        }
        serde_json::Value::Array(a) => {
            for x in a {
                json_texts(x, out, budget);
            }
        }
        _ => {}
    }
}

/// The names of a unit's features, in order.
pub const UNIT_FEATURES: [&str; 50] = [
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
    "in_review_name",
    "under_furniture_heading",
    "page_product",
    "page_cart",
    "repeat",
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
    pub x: [f64; 50],
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

/// Whether the page declares itself an article twice: a JSON-LD
/// `Article` (or `NewsArticle`, `BlogPosting`…) and `og:type` article.
/// Of the 1,678 benchmark pages 295 do, and 292 of those are articles;
/// either declaration alone is common on shop and forum pages.
pub fn declares_article(page: &[f64; 31]) -> bool {
    page[0] == 1.0 && page[8] == 1.0
}

/// What the page says to every unit: whether it declares a product
/// (JSON-LD or Open Graph) and whether it has a cart button. Reviews
/// and "customers also bought" are furniture on a shop's page and often
/// the content elsewhere.
pub fn unit_context(page: &[f64; 31]) -> [f64; 2] {
    [page[1].max(page[9]), page[29]]
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

/// The features of one finished unit.
#[allow(clippy::too_many_arguments)]
fn unit_features(
    doc: &Doc,
    root: Id,
    u: &Open,
    span: f64,
    root_ld: f64,
    title_words: &[String],
    page: [f64; 2],
    repeat: bool,
) -> [f64; 50] {
    let nd = &doc.nodes[u.id];
    let tag = if u.id == root {
        "#root"
    } else {
        nd.tag().unwrap_or("")
    };
    let text = &u.head;
    // One pass for the character counts. The head is its words joined
    // by single spaces, so its spaces count its words.
    let (mut chars, mut digits, mut upper, mut spaces) = (0usize, 0.0, 0.0, 0usize);
    for c in text.chars() {
        chars += 1;
        digits += flag(c.is_ascii_digit());
        upper += flag(c.is_uppercase());
        spaces += usize::from(c == ' ');
    }
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
            .filter(|w| {
                let need = byte_set(w.as_bytes());
                need.iter().zip(&have).all(|(n, h)| n & !h == 0) && low.contains(*w)
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
        ln1(head_words as f64),
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
        flag(a.review),
        flag(a.furniture),
        page[0],
        page[1],
        flag(repeat),
    ]
}

/// The bytes that occur in `text`, as a set of 256 bits.
fn byte_set(text: &[u8]) -> [u64; 4] {
    let mut set = [0u64; 4];
    for &b in text {
        set[usize::from(b >> 6)] |= 1 << (b & 63);
    }
    set
}

/// Whether `hay` holds `needle` (lower-case ASCII) in any ASCII case.
fn contains_ignoring_case(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
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

/// The most JSON-LD a page has read, bytes: real JSON-LD is a few
/// kilobytes; a parsed megabyte is tens of megabytes of values.
const JSON_LD_BYTES: usize = 256 * 1024;

/// The value of a JSON-LD script at `id`, while `left` bytes of the
/// page's allowance remain (each script read counts against it).
fn json_ld(doc: &Doc, id: Id, left: &mut usize) -> Option<serde_json::Value> {
    let n = &doc.nodes[id];
    if n.tag() != Some("script")
        || !n
            .attr("type")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
        || *left == 0
    {
        return None;
    }
    let mut text = String::new();
    for k in doc.children(id) {
        if let Kind::Text(t) = &doc.nodes[k].kind {
            text.push_str(t);
        }
    }
    *left = left.saturating_sub(text.len());
    if *left == 0 {
        return None;
    }
    serde_json::from_str(&text).ok()
}

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
    let mut json_left = JSON_LD_BYTES;
    for id in 0..doc.nodes.len() {
        let n = &doc.nodes[id];
        match n.tag() {
            Some("script") => {
                if let Some(v) = json_ld(doc, id, &mut json_left) {
                    json_types(&v, &mut types, &mut budget);
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
            prices += memchr::memchr_iter(b'$', b)
                .filter(|&i| b.get(i + 1).is_some_and(u8::is_ascii_digit))
                .count() as u32;
            if t.len() < 40 && !cart {
                cart = ["add to cart", "add to bag", "buy now"]
                    .iter()
                    .any(|p| contains_ignoring_case(b, p.as_bytes()));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn id_of(doc: &Doc, v: &str) -> Id {
        (0..doc.nodes.len())
            .find(|&i| doc.nodes[i].attr("id") == Some(v))
            .expect("the element")
    }

    /// `unit_context` and `declares_article` read the page row by
    /// position: the names there.
    #[test]
    fn unit_context_reads_the_product_and_cart_features() {
        assert_eq!(PAGE_FEATURES[0], "ld_article");
        assert_eq!(PAGE_FEATURES[8], "og_article");
        assert_eq!(PAGE_FEATURES[1], "ld_product");
        assert_eq!(PAGE_FEATURES[9], "og_product");
        assert_eq!(PAGE_FEATURES[29], "cart");
        let mut row = [0.0; 31];
        row[9] = 1.0;
        assert_eq!(unit_context(&row), [1.0, 0.0]);
        row[29] = 1.0;
        assert_eq!(unit_context(&row), [1.0, 1.0]);
    }

    /// The element that shows the JSON-LD description, and its
    /// ancestors, are marked; markup, entities and spacing in the
    /// description do not matter; short or absent texts mark nothing.
    #[test]
    fn declared_text_marks_what_shows_the_description() {
        let ld = r#"{"@context":"https://schema.org","@type":"Product","name":"Mug",
            "description":"<p>Hand-thrown   stoneware mug &amp; a folk glaze, fired twice in our own kiln for a glossy finish.</p>"}"#;
        let html = format!(
            "<script type='application/ld+json'>{ld}</script><div id=nav><a href=/>Home</a></div>\
             <div id=main><div id=d><p>Hand-thrown stoneware mug &amp; a folk glaze, fired twice \
             in our own kiln for a glossy finish.</p></div><div id=o><p>Reviews of people who \
             bought it, many of them.</p></div></div>"
        );
        let doc = Doc::parse(&html);
        let m = declared_text(&doc);
        for v in ["d", "main"] {
            assert_eq!(m[id_of(&doc, v)], 1.0, "{v}");
        }
        assert_eq!(m[doc.body()], 1.0);
        assert_eq!((m[id_of(&doc, "o")], m[id_of(&doc, "nav")]), (0.0, 0.0));

        let short = html.replace(
            "fired twice in our own kiln for a glossy finish.</p>\"}",
            "</p>\"}",
        );
        let absent = html.replace("Hand-thrown stoneware mug &amp; a folk", "A mug, glazed");
        for page in [short, absent] {
            let doc = Doc::parse(&page);
            assert!(declared_text(&doc).iter().all(|&v| v == 0.0), "{page}");
        }

        // A thread: the question and two answers; their container shows
        // all three, a post its own.
        let post = |n: u32| {
            format!("Post number {n} of this thread says something long enough to be read as a text of its own.")
        };
        let ld = format!(
            r#"{{"@type":"QAPage","mainEntity":{{"@type":"Question","text":"{}",
            "suggestedAnswer":[{{"@type":"Answer","text":"{}"}},{{"@type":"Answer","text":"{}"}}]}}}}"#,
            post(1),
            post(2),
            post(3)
        );
        let html = format!(
            "<script type=application/ld+json>{ld}</script><div id=t><div id=q><p>{}</p></div>\
             <div><p>{}</p></div><div><p>{}</p></div></div>",
            post(1),
            post(2),
            post(3)
        );
        let doc = Doc::parse(&html);
        let m = declared_text(&doc);
        assert_eq!(m[id_of(&doc, "t")], 1.0);
        assert!((m[id_of(&doc, "q")] - 1.0 / 3.0).abs() < 1e-9);
    }

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

    /// A page declares itself an article with both a JSON-LD article type
    /// and `og:type` article; either alone does not.
    #[test]
    fn declares_article_needs_both_declarations() {
        let og = r#"<meta property="og:type" content="article">"#;
        let ld = r#"<script type="application/ld+json">{"@type": "NewsArticle"}</script>"#;
        let url = url::Url::parse("https://a.example/x").expect("a url");
        for (head, want) in [
            (format!("{og}{ld}"), true),
            (og.to_string(), false),
            (ld.to_string(), false),
            (String::new(), false),
        ] {
            let html = format!("<head>{head}</head><body><p>Some words of the page.</p></body>");
            let doc = Doc::parse(&html);
            let f = Figures::of(&doc);
            let row = page(&doc, &f, &url, doc.body());
            assert_eq!(declares_article(&row), want, "{head}");
        }
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

    /// The text inside elements named as reviews or ratings is summed up
    /// the tree, so a candidate holding the reviews shows their share.
    #[test]
    fn review_text_is_summed_up_the_tree() {
        let html = "<div id=root><div id=d><p>The description of the product.</p></div>\
             <section class=product-reviews id=r><p>Great pack.</p><p>Too heavy.</p></section></div>";
        let doc = Doc::parse(html);
        let f = Figures::of(&doc);
        let (root, d, r) = (id_of(&doc, "root"), id_of(&doc, "d"), id_of(&doc, "r"));
        assert_eq!(f.review_text[d], 0);
        assert_eq!(f.review_text[r] as usize, doc.nodes[r].text_len);
        assert_eq!(f.review_text[root], f.review_text[r]);
    }

    /// The ASCII reading of [`alnum`] is its character reading.
    #[test]
    fn alnum_reads_ascii_as_it_reads_characters() {
        let by_chars = |t: &str, n: usize| -> String {
            t.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .take(n)
                .collect()
        };
        let mut all_ascii: String = (0u8..128).map(char::from).collect();
        all_ascii.push_str(" Mixed CASE, digits 0-9 & marks!");
        for t in [all_ascii.as_str(), "", "Ünïcödé İstanbul ǅ Ⅻ ²", "  \t\n"] {
            for n in [0, 5, 30, usize::MAX] {
                assert_eq!(alnum(t, n), by_chars(t, n), "{t:?} {n}");
            }
        }
    }
}
