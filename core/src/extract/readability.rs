//! Readability's candidate scoring over the flat view: every paragraph
//! (a `<p>`-like element, or loose text cut at block children and at
//! `<br><br>`) adds to its parent, grandparent and great-grandparent by
//! its length and commas; class and id words weigh each candidate; the
//! final score discounts link text. Regions named as boilerplate
//! (comment threads, related stories, footers, `<nav>`/`<aside>`) and
//! `<article>`s nested side by side in another article (teasers, not a
//! listicle's items: see `dom::marks`) take no part, unless they hold an `<article>`/`<main>` themselves or nothing else is
//! left. The best candidate climbs to a parent that holds most of its
//! score and takes its close siblings along.
//!
//! The selection model reads these scores as features; on news articles
//! the top candidate is often the article body exactly.

use super::dom::{Doc, Id, Kind, Node};
use super::lexicon::{is_block, ClassFlags};
use super::signals::{class_weight, is_unlikely};

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
        Some("div" | "section") => doc.children(id).all(|c| match &doc.nodes[c].kind {
            Kind::Element(t) => !is_block(t),
            _ => true,
        }),
        _ => false,
    }
}

/// Readability's paragraph scores, summed into the candidates that hold
/// the paragraphs; `shut` regions take no part.
fn score_candidates(doc: &Doc, shut: &mut Shut) -> (Vec<f64>, Vec<bool>) {
    let n = doc.nodes.len();
    let mut score = vec![0.0f64; n];
    let mut is_candidate = vec![false; n];
    // Each paragraph scores its parent, grandparent and great-grandparent.
    // Loose text directly inside a block (text separated by <br> or empty
    // divs) is a paragraph of that block, as readability wraps it in <p>.
    let add = |start: Option<Id>, s: f64, score: &mut Vec<f64>, is_candidate: &mut Vec<bool>| {
        let mut anc = start;
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
            anc = doc.parent(a);
        }
    };
    let para_score =
        |len: usize, commas: usize| 1.0 + commas.min(20) as f64 + (len / 100).min(3) as f64;
    for (id, node) in doc.nodes.iter().enumerate() {
        if node.junk || node.text_len < 25 || shut.get(doc, id) {
            continue;
        }
        if is_paragraph(doc, id) {
            add(
                doc.parent(id),
                para_score(node.text_len, node.commas),
                &mut score,
                &mut is_candidate,
            );
            continue;
        }
        let Some(tag) = node.tag() else { continue };
        if !is_block(tag) || matches!(tag, "body" | "html") {
            continue;
        }
        // Loose text is cut into paragraphs where a browser shows one
        // ends: at a block child, or at two line breaks in a row (pages
        // that write paragraphs as `text<br><br>text`).
        let (mut loose, mut commas) = (0, 0);
        let mut breaks = 0;
        let mut segments = Vec::new();
        for c in doc.children(id) {
            let k = &doc.nodes[c];
            if k.junk {
                continue;
            }
            let tag = k.tag();
            let ends = match tag {
                Some("br") => {
                    breaks += 1;
                    breaks >= 2
                }
                Some(t) => is_block(t),
                // Whitespace between two breaks keeps them a pair.
                None => {
                    if k.text_len > 0 && !is_blank(doc, c) {
                        breaks = 0;
                    }
                    false
                }
            };
            if tag.is_some_and(|t| t != "br") {
                breaks = 0;
            }
            if ends {
                segments.push((loose, commas));
                (loose, commas, breaks) = (0, 0, 0);
                continue;
            }
            if tag.is_some_and(is_block) {
                continue;
            }
            loose += k.text_len;
            commas += k.commas;
        }
        segments.push((loose, commas));
        for (loose, commas) in segments {
            if loose >= 25 {
                add(
                    Some(id),
                    para_score(loose, commas),
                    &mut score,
                    &mut is_candidate,
                );
            }
        }
    }
    (score, is_candidate)
}

/// Which nodes lie in a region named as boilerplate (see [`select`]),
/// worked out only for the nodes asked about and their ancestors: most
/// of a page (menus, short labels) never holds a paragraph, and its class
/// words need not be read.
struct Shut {
    /// Per node: 0 not yet known, 1 open, 2 shut. Empty: nothing is shut.
    state: Vec<u8>,
    holds_article: Vec<bool>,
    chain: Vec<Id>,
}

impl Shut {
    fn new(holds_article: Vec<bool>) -> Shut {
        Shut {
            state: vec![0; holds_article.len()],
            holds_article,
            chain: Vec::new(),
        }
    }

    /// Nothing is shut (the retry when shutting left no candidate).
    fn off() -> Shut {
        Shut {
            state: Vec::new(),
            holds_article: Vec::new(),
            chain: Vec::new(),
        }
    }

    fn get(&mut self, doc: &Doc, id: Id) -> bool {
        if self.state.is_empty() {
            return false;
        }
        // Up to the nearest known ancestor, then down again.
        self.chain.clear();
        let mut above = false;
        let mut cur = Some(id);
        while let Some(c) = cur {
            match self.state[c] {
                1 => break,
                2 => {
                    above = true;
                    break;
                }
                _ => {
                    self.chain.push(c);
                    cur = doc.parent(c);
                }
            }
        }
        for i in (0..self.chain.len()).rev() {
            let c = self.chain[i];
            above = above || self.own(doc, c);
            self.state[c] = if above { 2 } else { 1 };
        }
        above
    }

    /// Whether the node itself is named or built as boilerplate.
    fn own(&self, doc: &Doc, id: Id) -> bool {
        match doc.nodes[id].tag() {
            None | Some("body" | "html") => false,
            _ if self.holds_article[id] => false,
            Some(t) => {
                matches!(t, "nav" | "aside" | "footer")
                    || is_unlikely(doc, id)
                    || doc.is_nested_article(id)
            }
        }
    }
}

/// Readability's choice: the best-scoring candidate and the siblings
/// that score close to it, in document order; with `scores_out`, also
/// the final score of every node (0 for non-candidates).
pub fn select_scored(doc: &Doc, scores_out: Option<&mut Vec<f64>>) -> Vec<Id> {
    let n = doc.nodes.len();
    // Regions named as boilerplate (comment threads, related stories,
    // footers) neither score nor stand as candidates, as readability
    // strips its unlikely candidates first: a long comment thread must not
    // outscore a short article. Only when that leaves nothing to choose
    // are they scored after all.
    // A name is weaker evidence than structure: a region that holds an
    // `<article>` or `<main>` is a layout wrapper whatever its class says
    // ("container penci_sidebar"). Not an `<article>` named as what it
    // is not (`<article class="comment-body">`, one comment of a thread).
    let mut holds_article = vec![false; n];
    for id in (0..n).rev() {
        let node = &doc.nodes[id];
        if holds_article[id]
            || (matches!(node.tag(), Some("article" | "main"))
                && !node.class_flags().has(ClassFlags::ASIDE))
        {
            holds_article[id] = true;
            if let Some(p) = doc.parent(id) {
                holds_article[p] = true;
            }
        }
    }
    let mut shut = Shut::new(holds_article);
    let (score, is_candidate) = match score_candidates(doc, &mut shut) {
        scored if (0..n).any(|i| scored.1[i] && !shut.get(doc, i)) => scored,
        _ => {
            shut = Shut::off();
            score_candidates(doc, &mut shut)
        }
    };
    let final_score = |id: Id| score[id] * (1.0 - doc.nodes[id].link_density());
    if let Some(out) = scores_out {
        *out = (0..n)
            .map(|i| {
                if is_candidate[i] && !doc.nodes[i].junk && !shut.get(doc, i) {
                    final_score(i)
                } else {
                    0.0
                }
            })
            .collect();
    }
    let top = (0..n)
        .filter(|&i| is_candidate[i] && !doc.nodes[i].junk && !shut.get(doc, i))
        .max_by(|&a, &b| final_score(a).total_cmp(&final_score(b)));
    let Some(mut top) = top else {
        return vec![doc.body()];
    };
    // A candidate that holds only part of the article (one of several
    // equal sections) gives way to a parent that holds most of the text.
    while let Some(p) = doc.parent(top) {
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
    let best = final_score(top);
    // A wrapper that holds nothing but the candidate stands for it, so
    // that the candidate's real siblings (further sections of the same
    // article) are looked at below.
    while let Some(p) = doc.parent(top) {
        let pn = &doc.nodes[p];
        if pn.tag().is_none() || matches!(pn.tag(), Some("body" | "html")) || pn.junk {
            break;
        }
        let texty = doc
            .children(p)
            .filter(|&c| !doc.nodes[c].junk && doc.nodes[c].text_len > 0)
            .count();
        if texty != 1 {
            break;
        }
        top = p;
    }
    let top_score = best;
    let threshold = (top_score * 0.2).max(10.0);
    let Some(parent) = doc.parent(top) else {
        return vec![top];
    };
    let mut out = Vec::new();
    for sib in doc.children(parent) {
        let s = &doc.nodes[sib];
        if sib == top {
            out.push(sib);
            continue;
        }
        if s.junk || s.tag().is_none() {
            continue;
        }
        let bonus = if same_class(&doc.nodes[top], s) {
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

/// Two elements with the same non-empty class (or id): readability's
/// bonus for a sibling styled like the article.
fn same_class(a: &Node, b: &Node) -> bool {
    fn key(n: &Node) -> (&str, &str) {
        (n.attr("class").unwrap_or(""), n.attr("id").unwrap_or(""))
    }
    key(a) != ("", "") && key(a) == key(b)
}

/// A text node of whitespace only.
fn is_blank(doc: &Doc, id: Id) -> bool {
    matches!(&doc.nodes[id].kind, Kind::Text(t) if t.trim().is_empty())
}
