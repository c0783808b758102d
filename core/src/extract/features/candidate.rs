//! The candidate roots and their rows, the ranker's input: every
//! element holding a twentieth of the page's text (at most 300, the
//! largest), read for how much content text it holds and of what kind,
//! its tag, role and names, readability's score of it, how its children
//! and siblings repeat, and how much of the page's declared text it
//! shows.

use std::collections::HashMap;

use super::super::dom::{Doc, Id};
use super::super::lexicon::ClassFlags;
use super::super::readability;
use super::figures::Figures;
use super::json_ld::declared_text;
use super::{flag, ln1, look, most_repeated_child, ratio};

feature_row! {
    /// A candidate root's features, in the trainer's column order.
    CandidateRow {
        good_share,
        text_share,
        link_density,
        boxed_share,
        para_share,
        head_share,
        item_share,
        link_share,
        depth,
        tag_body,
        tag_main,
        tag_article,
        tag_section,
        tag_div,
        tag_cell,
        tag_list,
        tag_table,
        tag_form,
        tag_other,
        role_main,
        itemprop_articlebody,
        class_positive,
        class_negative,
        class_aside,
        class_content,
        readability_score,
        readability_top,
        readability_above,
        readability_below,
        largest_child_share,
        texty_children,
        purity,
        share_of_parent,
        like_siblings,
        repeated_children,
        good_log,
        image_share,
        boxed,
        in_main,
        position,
        holds_h1,
        text_share_of_parent,
        heads_log,
        items_log,
        paras_log,
        declared_text_share,
        review_share,
    }
}

/// The names of a candidate's features, in order (the trainer's columns).
pub const CANDIDATE_FEATURES: &[&str] = CandidateRow::NAMES;

/// Candidate roots (elements holding a twentieth of the page's text or
/// content text, and the body), with their feature rows.
pub fn candidates(doc: &Doc, f: &Figures) -> Vec<(Id, [f64; CandidateRow::LEN])> {
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
    let mut by_parent: HashMap<Id, HashMap<super::Look<'_>, u32>> = HashMap::new();
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
        let x = CandidateRow {
            good_share: ratio(f.good[id], good_body),
            text_share: nd.text_len as f64 / text_body,
            link_density: nd.link_density(),
            boxed_share: f64::from(f.boxed_text[id]) / text,
            para_share: ratio(f.paras[id], f.paras[body]),
            head_share: ratio(f.heads[id], f.heads[body]),
            item_share: ratio(f.items[id], f.items[body]),
            link_share: ratio(f.links[id], f.links[body]),
            depth: f64::from(f.depth[id]) / 32.0,
            tag_body: flag(tags[0]),
            tag_main: flag(tags[1]),
            tag_article: flag(tags[2]),
            tag_section: flag(tags[3]),
            tag_div: flag(tags[4]),
            tag_cell: flag(tags[5]),
            tag_list: flag(tags[6]),
            tag_table: flag(tags[7]),
            tag_form: flag(tags[8]),
            tag_other: flag(!tags.iter().any(|&b| b)),
            role_main: flag(nd.attr("role") == Some("main")),
            itemprop_articlebody: flag(
                nd.attr("itemprop")
                    .is_some_and(|p| p.to_ascii_lowercase().contains("articlebody")),
            ),
            class_positive: flag(cf.has(ClassFlags::POSITIVE)),
            class_negative: flag(cf.has(ClassFlags::NEGATIVE)),
            class_aside: flag(cf.has(ClassFlags::ASIDE)),
            class_content: flag(cf.has(ClassFlags::CONTENT)),
            readability_score: scores[id] / max_score,
            readability_top: flag(Some(id) == top),
            readability_above: flag(above_top[id] && Some(id) != top),
            readability_below: flag(top.is_some_and(|t| id > t && id < doc.end(t))),
            largest_child_share: ratio(largest, f.good[id]),
            texty_children: ln1(f64::from(texty)),
            purity: f64::from(f.good[id]) / text,
            share_of_parent: ratio(f.good[id], f.good[parent]),
            like_siblings: ln1(f64::from(alike)),
            repeated_children: ln1(f64::from(most_repeated_child(doc, f, id))),
            good_log: ln1(f64::from(f.good[id])) / 12.0,
            image_share: ratio(f.imgs[id], f.imgs[body]),
            boxed: flag(f.boxed[id]),
            in_main: flag(doc.in_main(id)),
            position: id as f64 / n as f64,
            holds_h1: flag(f.h1s[id] > 0),
            text_share_of_parent: nd.text_len as f64 / doc.nodes[parent].text_len.max(1) as f64,
            heads_log: ln1(f64::from(f.heads[id])),
            items_log: ln1(f64::from(f.items[id])),
            paras_log: ln1(f64::from(f.paras[id])),
            declared_text_share: declared[id],
            review_share: f64::from(f.review_text[id]) / text,
        }
        .values();
        out.push((id, x));
    }
    out
}
