//! Main-article selection: readability's candidate scoring (text density,
//! commas, link density, class and id signals) over the flat view, then
//! precision-first pruning of boilerplate inside the chosen subtree.

use super::dom::{Doc, Id, Kind};

/// Class/id words that mark boilerplate.
const NEGATIVE: &[&str] = &[
    "comment",
    "footer",
    "foot",
    "sidebar",
    "side-bar",
    "widget",
    "nav",
    "menu",
    "share",
    "sharing",
    "social",
    "related",
    "recommend",
    "promo",
    "sponsor",
    "advert",
    "ads",
    "banner",
    "cookie",
    "consent",
    "newsletter",
    "subscribe",
    "signup",
    "breadcrumb",
    "pagination",
    "pager",
    "masthead",
    "header",
    "popup",
    "modal",
    "outbrain",
    "taboola",
    "disqus",
    "byline-share",
    "tags",
    "tag-list",
    "toolbar",
    "skip",
    "login",
    "author-bio",
    "more-stories",
    "trending",
    "most-popular",
    "rail",
    "hidden",
    "print-only",
    "caption-credit",
];

/// Class/id words that mark content.
const POSITIVE: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "main",
    "page",
    "post",
    "text",
    "blog",
    "story",
    "hentry",
    "prose",
    "markdown",
    "richtext",
    "rich-text",
];

fn has_word(class_id: &str, words: &[&str]) -> bool {
    class_id
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
        .any(|tok| {
            words.iter().any(|w| {
                tok == *w || tok.starts_with(&format!("{w}-")) || tok.ends_with(&format!("-{w}"))
            })
        })
}

/// The class/id weight of a node: −25, 0, +25 (or 0 when both).
pub fn class_weight(doc: &Doc, id: Id) -> i32 {
    let ci = &doc.nodes[id].class_id;
    if ci.is_empty() {
        return 0;
    }
    let mut w = 0;
    if has_word(ci, NEGATIVE) {
        w -= 25;
    }
    if has_word(ci, POSITIVE) {
        w += 25;
    }
    w
}

fn tag_base(tag: &str) -> f64 {
    match tag {
        "article" => 10.0,
        "main" | "div" | "section" => 5.0,
        "pre" | "td" | "blockquote" => 3.0,
        "address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" => -3.0,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" | "header" | "footer" | "nav" | "aside" => {
            -5.0
        }
        _ => 0.0,
    }
}

/// Elements whose text is scored as a paragraph.
fn is_paragraph(doc: &Doc, id: Id) -> bool {
    let n = &doc.nodes[id];
    match n.tag() {
        Some("p" | "pre" | "td" | "blockquote" | "li" | "dd") => true,
        // A div holding only inline content is a paragraph in disguise.
        Some("div" | "section") => n.children.iter().all(|&c| match &doc.nodes[c].kind {
            Kind::Element(t) => !is_block(t),
            _ => true,
        }),
        _ => false,
    }
}

/// Block-level elements for layout purposes.
pub fn is_block(tag: &str) -> bool {
    matches!(
        tag,
        "p" | "div"
            | "section"
            | "article"
            | "main"
            | "aside"
            | "header"
            | "footer"
            | "nav"
            | "ul"
            | "ol"
            | "li"
            | "dl"
            | "dt"
            | "dd"
            | "table"
            | "thead"
            | "tbody"
            | "tfoot"
            | "tr"
            | "td"
            | "th"
            | "blockquote"
            | "pre"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "hr"
            | "figure"
            | "figcaption"
            | "address"
            | "details"
            | "summary"
            | "caption"
            | "center"
            | "body"
            | "html"
            | "fieldset"
            | "hgroup"
            | "menu"
    )
}

/// Chooses the subtrees to render: the best-scoring candidate and the
/// siblings that score close to it, in document order.
pub fn select(doc: &Doc) -> Vec<Id> {
    let n = doc.nodes.len();
    let mut score = vec![0.0f64; n];
    let mut is_candidate = vec![false; n];
    for id in 0..n {
        let node = &doc.nodes[id];
        if node.junk || node.text_len < 25 || !is_paragraph(doc, id) {
            continue;
        }
        let s = 1.0 + node.commas.min(20) as f64 + (node.text_len / 100).min(3) as f64;
        let mut anc = node.parent;
        for level in 0..3 {
            let Some(a) = anc else { break };
            if doc.nodes[a].tag().is_none() {
                break;
            }
            if !is_candidate[a] {
                is_candidate[a] = true;
                score[a] +=
                    tag_base(doc.nodes[a].tag().unwrap_or("")) + f64::from(class_weight(doc, a));
            }
            score[a] += s / [1.0, 2.0, 3.0][level];
            anc = doc.nodes[a].parent;
        }
    }
    let final_score = |id: Id| score[id] * (1.0 - doc.nodes[id].link_density());
    let top = (0..n)
        .filter(|&i| is_candidate[i] && !doc.nodes[i].junk)
        .max_by(|&a, &b| final_score(a).total_cmp(&final_score(b)));
    let Some(mut top) = top else {
        return vec![doc.body()];
    };
    // A candidate that holds only part of the article (one of several
    // equal sections) gives way to a parent that holds most of the text.
    while let Some(p) = doc.nodes[top].parent {
        let pn = &doc.nodes[p];
        if pn.tag().is_none() || pn.tag() == Some("body") || pn.junk {
            break;
        }
        if is_candidate[p] && final_score(p) >= final_score(top) * 0.75 && pn.link_density() < 0.35
        {
            top = p;
        } else {
            break;
        }
    }
    let top_score = final_score(top);
    let threshold = (top_score * 0.2).max(10.0);
    let Some(parent) = doc.nodes[top].parent else {
        return vec![top];
    };
    let mut out = Vec::new();
    for &sib in &doc.nodes[parent].children {
        let s = &doc.nodes[sib];
        if sib == top {
            out.push(sib);
            continue;
        }
        if s.junk || s.tag().is_none() {
            continue;
        }
        let bonus = if !doc.nodes[top].class_id.is_empty() && s.class_id == doc.nodes[top].class_id
        {
            top_score * 0.2
        } else {
            0.0
        };
        let close = is_candidate[sib] && final_score(sib) + bonus >= threshold;
        let para = s.tag() == Some("p") && s.text_len > 80 && s.link_density() < 0.25;
        if (close || para) && class_weight(doc, sib) >= 0 {
            out.push(sib);
        }
    }
    out
}

/// Inside the article: whether a subtree is boilerplate to drop (share
/// bars, link lists, related-story boxes, comment sections).
pub fn is_boilerplate(doc: &Doc, id: Id) -> bool {
    let n = &doc.nodes[id];
    let Some(tag) = n.tag() else { return false };
    if matches!(tag, "nav" | "aside" | "footer") {
        return true;
    }
    let weight = class_weight(doc, id);
    let ld = n.link_density();
    match tag {
        "div" | "section" | "ul" | "ol" | "header" | "table" | "figure" | "span" | "p" => {
            if weight < 0 && (ld > 0.2 || n.text_len < 400) {
                return true;
            }
            if matches!(tag, "div" | "section" | "ul" | "ol" | "header") {
                // Lists of links with little prose of their own.
                if ld > 0.5 && n.text_len < 1000 {
                    return true;
                }
                if tag == "header" && n.text_len < 200 && ld > 0.3 {
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}
