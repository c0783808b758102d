//! Links back up the page: "Back to top", "Top", "Top of page", a
//! forum's "Top" under every post.
//!
//! A page's own navigation inside its text: the link moves the reader's
//! window and its words say nothing of the page, so a model reading the
//! text meets "Back to top" between sections for nothing. What marks it:
//! a link to a fragment of this page that points back up (to the top,
//! which is what `#top` means when no element is named so, or to an
//! element named before it), with a short text ([`BACK_CHARS`]) that is
//! the whole of its block. A bare `#` is not one: it is a script's
//! button ("Location", "E-mail to a friend") as often as the top. A table of
//! contents points down the page, and a footnote's mark sits in a
//! sentence; an item of a list is left alone (a contents list at the
//! foot of a page points up too), and so is a heading's own anchor (the
//! heading's text, linked to itself).
//!
//! Measured against the text before this rule: on web-classics 29 pages
//! change, F1 summed +0.066, on WCXB dev 8 (forum threads' "Top" under
//! each post among them), +0.068, none down on either; the 181 news pages
//! none. Taking a bare `#` too gained more on both (+0.15, +0.12) but
//! took the labels of a page's script buttons ("Location" in each row of
//! a table of golf courses), which its reference keeps.
//!
//! Two passes: the page's links read once, then, only when one could be
//! a link back up, the names of the page's elements in order, up to the
//! last such link. Linear.

use std::collections::HashSet;

use super::dom::{Doc, Id};
use super::lexicon::is_block;

/// The longest text of a link back up (characters).
const BACK_CHARS: usize = 40;

/// Marks in `marked` (one flag per node of `doc`) every link back up the
/// page under `root` (see the module header).
pub fn mark(doc: &Doc, root: Id, marked: &mut [bool]) {
    let end = doc.end(root);
    let mut candidates: Vec<(Id, &str)> = Vec::new();
    for id in root..end {
        let n = &doc.nodes[id];
        if n.tag() != Some("a") || n.junk || !(1..=BACK_CHARS).contains(&n.text_len) {
            continue;
        }
        let Some(fragment) = n.attr("href").and_then(|h| h.trim().strip_prefix('#')) else {
            continue;
        };
        // Alone in its block (the inline elements around it hold its
        // text only), which is not an item, nor a heading (a heading's
        // own anchor, `<h2 id=x><a href=#x>`, names it), nor the element
        // it names.
        let mut block = id;
        let mut alone = false;
        while let Some(p) = doc.parent(block) {
            let parent = &doc.nodes[p];
            if parent.text_len != n.text_len || parent.attr("id") == Some(fragment) {
                break;
            }
            block = p;
            let tag = parent.tag().unwrap_or("");
            if is_block(tag) {
                alone = !matches!(
                    tag,
                    "li" | "dt" | "dd" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
                );
                break;
            }
        }
        let alone = alone && n.attr("id") != Some(fragment);
        if alone {
            candidates.push((id, fragment));
        }
    }
    if candidates.is_empty() {
        return;
    }
    // The names of the elements before each candidate, in document order.
    let mut named: HashSet<&str> = HashSet::new();
    let mut next = candidates.iter().peekable();
    for (id, n) in doc.nodes.iter().enumerate() {
        let Some(&&(link, fragment)) = next.peek() else {
            break;
        };
        if id == link {
            if fragment.eq_ignore_ascii_case("top") || named.contains(fragment) {
                marked[id] = true;
            }
            next.next();
        }
        if let Some(v) = n.attr("id") {
            named.insert(v);
        }
        if n.tag() == Some("a") {
            if let Some(v) = n.attr("name") {
                named.insert(v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marked links of `html`, by their `id`s.
    fn marked(html: &str) -> Vec<String> {
        let doc = Doc::parse(html);
        let mut rows = vec![false; doc.nodes.len()];
        mark(&doc, doc.body(), &mut rows);
        (0..doc.nodes.len())
            .filter(|&i| rows[i])
            .filter_map(|i| doc.nodes[i].attr("id").map(str::to_string))
            .collect()
    }

    /// Links back up go: to the top, to a heading above; links down the
    /// page, links in a sentence, items of a list and long texts stay.
    #[test]
    fn links_back_up_the_page() {
        let html = "<body><a name=top></a><h2 id=one>One</h2>\
            <ul><li><a id=toc href=#two>Two</a></li></ul>\
            <p>Text of one, with a <a id=note href=#n1>[1]</a> mark.</p>\
            <p><a id=back href=#top>Back to top</a></p>\
            <div><a id=up href=#one>Up to One</a></div>\
            <h2 id=two>Two</h2><p><b><a id=bold href=#one>Top</a></b></p>\
            <p>Read <i><a id=title href=#one>A Title</a></i> again.</p><p><a id=bare href=#>Location</a></p>\
            <h3 id=three><a id=anchor href=#three>Three</a></h3><p id=self><a href=#self>Self</a></p>\
            <p><a id=ahead href=#n1>Notes below</a></p>\
            <ul><li><a id=item href=#one>One</a></li></ul>\
            <p><a id=long href=#one>A link back up whose text is far too long to be one</a></p>\
            <p id=n1>1. A note.</p></body>";
        assert_eq!(marked(html), ["back", "up", "bold"]);
        // `#top` with no element of that name is the page's top.
        assert_eq!(
            marked("<body><p>Text.</p><p><a id=t href=#Top>Top of page</a></p></body>"),
            ["t"]
        );
    }

    /// What extraction prints keeps the sections and leaves out the links
    /// between them, in either style.
    #[test]
    fn extraction_leaves_links_back_up_out() {
        let section =
            "Words of a section, told at length so that it is the page's text. ".repeat(6);
        let html = format!(
            "<html><head><title>A guide</title></head><body><article id=top>\
             <h2>Tents</h2><p>{section}</p><p><a href=#top>Back to top</a></p>\
             <h2>Stoves</h2><p>{section}</p><p><a href=#top>Back to top</a></p>\
             </article></body></html>"
        );
        for text in crate::extract::printed(&html, "https://a.example/guide") {
            assert!(text.contains("Stoves"), "{text}");
            assert!(!text.contains("Back to top"), "{text}");
        }
    }
}
