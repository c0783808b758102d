//! Rows of links set apart by bars: a site's navigation written as one
//! line ("Sport Homepage | Football | Cricket | Rugby Union | …", "News:
//! ePaper | Front Page | National | …").
//!
//! Older pages draw their section menus as plain links with `|` between,
//! not as a list or a `<nav>`: nothing in the markup names the row, and
//! it often sits in the same cell as the story, above and below it, so
//! extraction chooses it with the story and no rule that reads elements
//! can take it out (it is no element of its own). What marks it is its
//! shape: [`MIN_LINKS`] links or more, one after another on one line,
//! with nothing between them but bars (`|`, `¦`, `·`, `•`) and at most a
//! short label ([`LABEL_CHARS`]). A sentence that links four things has
//! words between them, and a list has items; a line of links and bars is
//! read by no one as prose.
//!
//! Measured against the text before this rule: on web-classics 27 pages
//! change, F1 summed +0.73 (CleanEval 0.934 to 0.935, its markdown 0.903
//! to 0.905; a link directory's page 0.28 to 0.69), three pages down, by
//! 0.018 at most (a film list the reference keeps); on WCXB dev 5 pages,
//! +0.010 summed, one down by 0.007 (a car site's "More Car Rankings:
//! Best Electric Trucks | …", which its reference keeps); the 181 news
//! pages none. Three links or more changed 40 classics pages (+0.85) and
//! would take "Download: PDF | EPUB | MOBI" too, which a reader follows.
//!
//! A line is the inline children of one element between its block-level
//! children and `<br>`s. Each element's children are read once, and each
//! text once: linear.

use super::dom::{Doc, Id, Kind};
use super::lexicon::is_block;

/// The fewest links a row of them has.
const MIN_LINKS: usize = 4;

/// The most characters of a row that are neither links nor bars: a label
/// before it ("Football Contents:").
const LABEL_CHARS: usize = 24;

/// Whether `c` sets links apart in a row.
fn is_bar(c: char) -> bool {
    matches!(c, '|' | '¦' | '·' | '•')
}

/// A line being read: its nodes (children of one element), its links,
/// its bars and its other characters.
#[derive(Default)]
struct Line {
    members: Vec<Id>,
    links: usize,
    bars: usize,
    other: usize,
}

impl Line {
    /// Marks the line's members in `rows` when the line is a row of
    /// links (every gap between two links has its bar), and starts the
    /// next line.
    fn end(&mut self, rows: &mut [bool]) {
        if self.links >= MIN_LINKS && self.bars + 1 >= self.links && self.other <= LABEL_CHARS {
            for &m in &self.members {
                rows[m] = true;
            }
        }
        self.members.clear();
        (self.links, self.bars, self.other) = (0, 0, 0);
    }
}

/// Marks in `rows` the nodes of every row of links under `root` (see the
/// module header); `rows` holds one flag per node of `doc`.
pub fn mark(doc: &Doc, root: Id, rows: &mut [bool]) {
    let end = doc.end(root);
    let mut line = Line::default();
    let mut parent = root;
    while parent < end {
        let this = parent;
        // What is never shown is passed over whole.
        parent = if doc.nodes[this].junk {
            doc.end(this).max(this + 1)
        } else {
            this + 1
        };
        if doc.nodes[this].junk || doc.nodes[this].tag().is_none() {
            continue;
        }
        let parent = this;
        for c in doc.children(parent) {
            let node = &doc.nodes[c];
            if node.junk {
                continue;
            }
            match &node.kind {
                // Once a line has more than a label's worth of words it is
                // no row: its texts are passed over, not read.
                Kind::Text(_) if line.other > LABEL_CHARS => {}
                Kind::Text(t) => {
                    line.members.push(c);
                    for ch in t.chars().filter(|ch| !ch.is_whitespace()) {
                        if is_bar(ch) {
                            line.bars += 1;
                        } else {
                            line.other += 1;
                            if line.other > LABEL_CHARS {
                                break;
                            }
                        }
                    }
                }
                Kind::Element(_) => {
                    let tag = node.tag().unwrap_or("");
                    if is_block(tag) || tag == "br" {
                        line.end(rows);
                        continue;
                    }
                    if line.other > LABEL_CHARS {
                        continue;
                    }
                    line.members.push(c);
                    if node.text_len == 0 {
                        // An icon or a spacer between links.
                    } else if node.link_len >= node.text_len {
                        line.links += 1;
                    } else {
                        line.other += node.text_len;
                    }
                }
                Kind::Other => {}
            }
        }
        line.end(rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nodes of `html`'s rows, as the texts they hold.
    fn rows(html: &str) -> Vec<String> {
        let doc = Doc::parse(html);
        let mut rows = vec![false; doc.nodes.len()];
        mark(&doc, doc.body(), &mut rows);
        doc.marked_texts(&rows)
    }

    /// A menu of links and bars goes, with its label and with links set
    /// in bold; the story's sentences around it stay.
    #[test]
    fn a_line_of_links_and_bars_is_a_row() {
        let html = "<body><td>The story's first paragraph, told in full.<br>\
            Football Contents: <a href=/a>My Club</a> | <b><a href=/b>Gossip</a></b> | \
            <a href=/c>Premier League</a> | <a href=/d>Championship</a><br>\
            The story goes on.</td></body>";
        assert_eq!(
            rows(html),
            [
                "Football Contents:",
                "My Club",
                "|",
                "Gossip",
                "|",
                "Premier League",
                "|",
                "Championship"
            ]
        );
    }

    /// What extraction prints leaves the row out and keeps the story it
    /// shares a cell with, in either style.
    #[test]
    fn extraction_leaves_the_row_out() {
        let story = "Words of the story, told at length so that it is the page's text. ".repeat(12);
        let row = "<a href=/s>Sport Homepage</a> | <a href=/f>Football</a> | \
                   <a href=/c>Cricket</a> | <a href=/t>Tennis</a>";
        let html = format!(
            "<html><head><title>A story</title></head><body><table><tr><td>\
             {row}<p>{story}</p><p>{story}</p>{row}</td></tr></table></body></html>"
        );
        for text in crate::extract::printed(&html, "https://a.example/story") {
            assert!(text.contains("Words of the story"), "{text}");
            assert!(!text.contains("Cricket"), "{text}");
        }
    }

    /// Not a row: three links; links with words between them; links
    /// without bars; a long label; links that are items of a list.
    #[test]
    fn sentences_short_rows_and_lists_are_not_rows() {
        let four = "<a href=/a>One</a> | <a href=/b>Two</a> | <a href=/c>Three</a>";
        for html in [
            format!("<p>{four}</p>"),
            "<p><a href=/a>One</a>, <a href=/b>two</a>, <a href=/c>three</a> and \
             <a href=/d>four</a> are linked here.</p>"
                .to_string(),
            "<p><a href=/a>One</a> <a href=/b>Two</a> <a href=/c>Three</a> <a href=/d>Four</a></p>"
                .to_string(),
            format!(
                "<p>A label far longer than a label would be: {four} | <a href=/d>Four</a></p>"
            ),
            "<ul><li><a href=/a>One</a> |</li><li><a href=/b>Two</a> |</li>\
             <li><a href=/c>Three</a> |</li><li><a href=/d>Four</a></li></ul>"
                .to_string(),
        ] {
            assert!(rows(&format!("<body>{html}</body>")).is_empty(), "{html}");
        }
        assert!(!rows(&format!("<body><p>{four} | <a href=/d>Four</a></p></body>")).is_empty());
    }
}
