//! Columns of other stories' headlines set in an article's text: "Other
//! Recent Articles...", then "Rigters To Leave Ewood Park (Monday January
//! 14 2008)", "Roberts: I Just Want To Play (Monday January 14 2008)", …
//!
//! Older news pages list a section's latest stories under the one shown
//! as plain links, one to a line (`<a>…</a><br>`), often in the cell that
//! holds the story: no list, no element of their own that a rule reading
//! elements could leave out, and no link density to give them away when
//! each headline carries its date. A reader of the story does not read
//! them as part of it. What marks them is their shape: [`MIN_LINES`]
//! lines or more in a row, each one link of a headline's length
//! ([`HEADLINE_CHARS`]: a menu's "Products", "Content hosting" is shorter)
//! with at most as much text again beside it, or a date's worth
//! ([`BESIDE_CHARS`]: "Rovers 1v0 Sunderland (Thursday January 3 2008)"); lines
//! with no text (an arrow, a section's banner image) neither count nor
//! break the run. A sentence that links a story has words around the
//! link; a list has items.
//!
//! Only on an article's text, and only with a story beside it: [`MIN_STORY`]
//! characters of the root outside the column. On any other page a column
//! of headlines is what the page lists (a section front, an index).
//!
//! Measured against the text before this rule: on web-classics 13 pages
//! change, F1 summed +0.27: nine of L3S-GN1's news pages up and none down
//! ("Other Recent Articles" under a football story, 0.34 → 0.47; three
//! sections' latest headlines under a business story, 0.86 → 0.99;
//! gnews 0.973 → 0.974), and four of CleanEval's down, whose references
//! keep such lists as text of the page (an article's index of related
//! articles, 0.31 → 0.19; a weekly digest's headlines; cleaneval 0.936 →
//! 0.935). The WCXB pages (modern pages set links in lists) and the 181
//! news pages do not change. Lines of one word or two ("Products",
//! "Content hosting": a menu, a club's list of former clubs in a table
//! cell) took in CleanEval pages their references keep, for no news
//! page more.
//!
//! A line is the inline children of one element between its block-level
//! children and `<br>`s, as in `rows`. Each element's children are read
//! once: linear.

use super::dom::{Doc, Id, Kind};
use super::lexicon::is_block;

/// The fewest headline lines a column has.
const MIN_LINES: usize = 4;

/// The shortest link that reads as a headline (characters).
const HEADLINE_CHARS: usize = 20;

/// The most text beside a short headline's link: a date ("(Thursday
/// January 3 2008)"), a source.
const BESIDE_CHARS: usize = 40;

/// The least text of the root outside a column for it to be left out: a
/// story is there beside it.
const MIN_STORY: usize = 500;

/// A line being read: its nodes, its links, and its characters inside
/// and outside them.
#[derive(Default)]
struct Line {
    members: Vec<Id>,
    links: usize,
    link_chars: usize,
    other: usize,
}

impl Line {
    fn is_empty(&self) -> bool {
        self.link_chars + self.other == 0
    }

    /// One link of a headline's length, and no more text beside it than
    /// in it.
    fn is_headline(&self) -> bool {
        self.links == 1
            && self.link_chars >= HEADLINE_CHARS
            && self.other <= self.link_chars.max(BESIDE_CHARS)
    }
}

/// The run of headline lines being read within one element.
#[derive(Default)]
struct Run {
    members: Vec<Id>,
    lines: usize,
    chars: usize,
}

impl Run {
    /// Takes in the line just ended: a headline goes on the run, a line
    /// of other text ends it (marking it when it is a column), a line
    /// with no text does neither.
    fn take(&mut self, line: &mut Line, story: usize, marked: &mut [bool]) {
        if line.is_headline() {
            self.members.append(&mut line.members);
            self.lines += 1;
            self.chars += line.link_chars + line.other;
        } else if !line.is_empty() {
            self.end(story, marked);
        }
        *line = Line::default();
    }

    fn end(&mut self, story: usize, marked: &mut [bool]) {
        if self.lines >= MIN_LINES && story.saturating_sub(self.chars) >= MIN_STORY {
            for &m in &self.members {
                marked[m] = true;
            }
        }
        *self = Run::default();
    }
}

/// Marks in `marked` (one flag per node of `doc`) the nodes of every
/// column of headlines under `root`, the root of an article's text (see
/// the module header).
pub fn mark(doc: &Doc, root: Id, marked: &mut [bool]) {
    let story = doc.nodes[root].text_len;
    let end = doc.end(root);
    let mut id = root;
    while id < end {
        let parent = id;
        // What is never shown is passed over whole.
        id = if doc.nodes[parent].junk {
            doc.end(parent).max(parent + 1)
        } else {
            parent + 1
        };
        // (A column's lines hold a headline's worth of link text each:
        // most elements hold less than four and are not read.)
        let n = &doc.nodes[parent];
        if n.junk || n.tag().is_none() || n.link_len < MIN_LINES * HEADLINE_CHARS {
            continue;
        }
        let (mut line, mut run) = (Line::default(), Run::default());
        for c in doc.children(parent) {
            let node = &doc.nodes[c];
            if node.junk {
                continue;
            }
            match &node.kind {
                Kind::Text(t) => {
                    line.members.push(c);
                    line.other += t.chars().filter(|ch| !ch.is_whitespace()).count();
                }
                Kind::Element(_) => {
                    let tag = node.tag().unwrap_or("");
                    if tag == "br" {
                        run.take(&mut line, story, marked);
                        continue;
                    }
                    if is_block(tag) {
                        // A block ends the line; one with text of its
                        // own ends the run too.
                        run.take(&mut line, story, marked);
                        if node.text_len > 0 {
                            run.end(story, marked);
                        }
                        continue;
                    }
                    line.members.push(c);
                    if node.link_len > 0 {
                        line.links += 1;
                        line.link_chars += node.link_len;
                    }
                    line.other += node.text_len - node.link_len.min(node.text_len);
                }
                Kind::Other => {}
            }
        }
        run.take(&mut line, story, marked);
        run.end(story, marked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts of `html`'s columns, under the element `root`.
    fn columns(html: &str) -> Vec<String> {
        let doc = Doc::parse(html);
        let mut marked = vec![false; doc.nodes.len()];
        mark(&doc, doc.with_id("root"), &mut marked);
        doc.marked_texts(&marked)
    }

    fn story() -> String {
        format!(
            "<p>{}</p>",
            "The manager confirmed his interest in signing the midfielder on Sunday. ".repeat(8)
        )
    }

    /// Headlines one to a line, with their dates and an arrow before
    /// each, go; the story and a short menu stay.
    #[test]
    fn a_column_of_headlines_beside_a_story() {
        let line = |h: &str| {
            format!("<img src=arrow.gif>&nbsp;<a href=/{h}>{h} Leaves The Club</a> <font>(Thursday 14 January 2008)</font><br>")
        };
        let html = format!(
            "<body><table><tr><td id=root>{}{}<img src=more.gif><br>{}{}{}\
             <a href=/p>Products</a><br><a href=/a>Access</a><br><a href=/v>Voice</a><br>\
             <a href=/i>Internet</a><br></td></tr></table></body>",
            story(),
            line("Rigters"),
            line("Roberts"),
            line("Hughes"),
            line("Savage")
        );
        let got = columns(&html);
        assert_eq!(got.len(), 8, "{got:?}");
        assert_eq!(got[0], "Rigters Leaves The Club");
        assert!(!got.iter().any(|t| t.contains("manager") || t == "Products"));
    }

    /// What extraction prints of an article leaves the column out, in
    /// either style.
    #[test]
    fn extraction_leaves_the_column_out_of_an_article() {
        let line = |h: &str| format!("<a href=/{h}>{h} signs a new two-year deal</a><br>");
        let column: String = ["Rigters", "Roberts", "Hughes", "Savage", "Dunn"]
            .iter()
            .map(|h| line(h))
            .collect();
        let page = |head: &str| {
            format!(
                "<html><head><title>Savage interest</title>{head}</head><body><table><tr><td>\
                 <h1>Savage interest</h1>{}{}<b>Other recent articles</b><br>{column}</td></tr>\
                 </table></body></html>",
                story(),
                story()
            )
        };
        let article = page(
            "<meta property=og:type content=article>\
             <script type='application/ld+json'>{\"@type\":\"NewsArticle\"}</script>",
        );
        for text in crate::extract::printed(&article, "https://a.example/news/savage") {
            assert!(text.contains("The manager confirmed"), "{text}");
            assert!(!text.contains("two-year deal"), "{text}");
        }
    }

    /// Three headlines are no column; a sentence with a link in it breaks
    /// one; without a story beside it, a column is what the page lists.
    #[test]
    fn what_is_no_column() {
        let line = |h: &str| format!("<a href=/{h}>{h} and the longer headline</a><br>");
        let three = format!(
            "<body><div id=root>{}{}{}{}</div></body>",
            story(),
            line("One"),
            line("Two"),
            line("Three")
        );
        assert!(columns(&three).is_empty());
        let broken = format!(
            "<body><div id=root>{}{}{}The story goes on, and so does the <a href=/x>argument \
             about the stadium</a> for a while longer.<br>{}{}</div></body>",
            story(),
            line("One"),
            line("Two"),
            line("Three"),
            line("Four")
        );
        assert!(columns(&broken).is_empty());
        let alone = format!(
            "<body><div id=root>{}{}{}{}{}</div></body>",
            line("One"),
            line("Two"),
            line("Three"),
            line("Four"),
            line("Five")
        );
        assert!(columns(&alone).is_empty());
    }
}
