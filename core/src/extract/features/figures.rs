//! Per-node figures, summed over each subtree in one backwards pass:
//! text outside links and boxes, text in boxes and in reviews, counts of
//! paragraphs, headings, list items, links and images, and what lies
//! above each node. Candidates and the page row read them; nothing here
//! decides anything.

use html5ever::local_name;

use super::super::dom::{Doc, Kind};
use super::super::lexicon::ClassFlags;
use super::super::signals::is_box;

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
            in_link[id] = in_link[p] || doc.nodes[p].is(&local_name!("a"));
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
                Kind::Element(name) if !f.boxed[id] => match *name {
                    local_name!("p")
                    | local_name!("pre")
                    | local_name!("blockquote")
                    | local_name!("dd")
                        if text >= 25 =>
                    {
                        f.paras[id] += 1
                    }
                    local_name!("h1") if text > 0 => {
                        f.heads[id] += 1;
                        f.h1s[id] += 1;
                    }
                    local_name!("h2")
                    | local_name!("h3")
                    | local_name!("h4")
                    | local_name!("h5")
                    | local_name!("h6")
                        if text > 0 =>
                    {
                        f.heads[id] += 1
                    }
                    local_name!("li") | local_name!("tr") if text > 0 => f.items[id] += 1,
                    local_name!("a") => f.links[id] += 1,
                    local_name!("img") => f.imgs[id] += 1,
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

#[cfg(test)]
mod tests {
    use super::super::id_of;
    use super::*;

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
}
