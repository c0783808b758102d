//! The parsed page as every layer of extraction reads it: a flat,
//! index-based view, one entry per node in document order, with the
//! statistics extraction needs (text length, link text length, commas)
//! and the marks of where a node sits (in a quote, in the main content,
//! holding a heading). Data and navigation only: how a page becomes a
//! [`Doc`] is `parse` (the sink, then `visibility`'s rules).

use std::cell::Cell;

use html5ever::tendril::StrTendril;
use html5ever::LocalName;

use super::lexicon::ClassFlags;

/// Node index in document order; 0 is the document.
pub type Id = usize;

/// No node (a parent or link that is absent), in the compact `u32` form
/// the tree stores.
pub const NONE: u32 = u32::MAX;

/// What a node is.
#[derive(Debug)]
pub enum Kind {
    /// The document or an ignorable node.
    Other,
    /// An element, by local name.
    Element(LocalName),
    /// Text (a tendril: usually a zero-copy slice of the input).
    Text(StrTendril),
}

/// One node of the flat view. In document order a subtree is one run of
/// ids: `id + 1 .. end` are the descendants of `id`.
#[derive(Debug)]
pub struct Node {
    pub kind: Kind,
    /// Attributes by local name, values as parsed (only those extraction
    /// reads are kept).
    pub attrs: Box<[(LocalName, StrTendril)]>,
    /// The parent, or [`NONE`] for the document.
    pub(super) parent: u32,
    /// One past the last node of the subtree.
    pub(super) end: u32,
    /// What the `class` and `id` say, read on first use (see
    /// `lexicon::ClassFlags`): most elements are never asked.
    flags: Cell<Option<ClassFlags>>,
    /// Dropped with everything below it (script, hidden, …).
    pub junk: bool,
    /// Characters of visible text below (whitespace runs count once).
    pub text_len: usize,
    /// Of those, characters inside links.
    pub link_len: usize,
    /// Commas in the text below.
    pub commas: usize,
}

impl Node {
    /// A node not yet in the tree.
    pub fn new(kind: Kind, attrs: Box<[(LocalName, StrTendril)]>) -> Node {
        Node {
            kind,
            attrs,
            parent: NONE,
            end: 0,
            flags: Cell::new(None),
            junk: false,
            text_len: 0,
            link_len: 0,
            commas: 0,
        }
    }

    /// Forgets what the class and id said (the attributes changed).
    pub fn refresh_class_id(&mut self) {
        self.flags.set(None);
    }

    /// Lower-case `class` and `id`, joined by a space; empty when neither.
    pub fn class_id(&self) -> String {
        let c = self.attr("class").unwrap_or("");
        let i = self.attr("id").unwrap_or("");
        if c.is_empty() && i.is_empty() {
            return String::new();
        }
        // Taxonomy classes (`category-<slug>`, `tag-<slug>`, as WordPress
        // stamps on every post) name the subject, not the element's role:
        // "category-advertising" is a post about ads.
        let taxonomy = |word: &str| {
            let w = word.as_bytes();
            ["category-", "tag-"]
                .iter()
                .any(|p| w.len() >= p.len() && w[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
        };
        let mut out = String::with_capacity(c.len() + i.len() + 1);
        for word in c.split_ascii_whitespace() {
            if !taxonomy(word) {
                out.push_str(word);
                out.push(' ');
            }
        }
        out.push_str(i);
        out.make_ascii_lowercase();
        out
    }

    /// What the element's class and id say.
    pub fn class_flags(&self) -> ClassFlags {
        if let Some(f) = self.flags.get() {
            return f;
        }
        let f = ClassFlags::of(&self.class_id());
        self.flags.set(Some(f));
        f
    }

    pub fn tag(&self) -> Option<&str> {
        match &self.kind {
            Kind::Element(n) => Some(n),
            _ => None,
        }
    }

    /// Whether this is the element `name`: one compare of interned
    /// names, for the passes over every node (`tag() == Some("a")` reads
    /// the name's text and compares bytes).
    pub fn is(&self, name: &LocalName) -> bool {
        matches!(&self.kind, Kind::Element(n) if n == name)
    }

    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| &**n == name)
            .map(|(_, v)| &**v)
    }

    pub fn link_density(&self) -> f64 {
        if self.text_len == 0 {
            0.0
        } else {
            self.link_len as f64 / self.text_len as f64
        }
    }
}

/// The parsed page.
#[derive(Debug)]
pub struct Doc {
    pub nodes: Vec<Node>,
    body: Id,
    /// Per node, what its ancestors and descendants are (see `marks`).
    marks: Vec<u8>,
    /// The length of the page, bytes (output budgets are relative to it).
    pub source_len: usize,
    /// The `<title>` text, whitespace collapsed, at most [`TITLE_CHARS`]
    /// characters.
    pub title: String,
}

/// The longest title kept (characters): a real title is a line; a
/// megabyte of title is an attack on every rule that compares with it.
pub const TITLE_CHARS: usize = 1000;

/// The children of a node, in order (see [`Doc::children`]).
pub struct Children<'a> {
    nodes: &'a [Node],
    next: usize,
    end: usize,
}

impl Iterator for Children<'_> {
    type Item = Id;

    fn next(&mut self) -> Option<Id> {
        if self.next >= self.end {
            return None;
        }
        let id = self.next;
        self.next = self.nodes[id].end as usize;
        Some(id)
    }
}

impl Doc {
    /// The document over `nodes` as the visibility rules left them: the
    /// marks are read from them once, here.
    pub(super) fn assemble(nodes: Vec<Node>, body: Id, title: String, source_len: usize) -> Doc {
        Doc {
            marks: marks(&nodes),
            nodes,
            body,
            title,
            source_len,
        }
    }

    /// The element whose `id` attribute is `v`: how tests find their
    /// fixtures.
    /// The texts under the nodes `marked` flags (one flag per node), in
    /// document order, trimmed, empty ones left out: what a rule that
    /// marks nodes took, as a test reads it.
    #[cfg(test)]
    pub fn marked_texts(&self, marked: &[bool]) -> Vec<String> {
        let mut out = Vec::new();
        let mut id = 0;
        while id < self.nodes.len() {
            if !marked[id] {
                id += 1;
                continue;
            }
            for node in &self.nodes[id..self.end(id).max(id + 1)] {
                if let Kind::Text(t) = &node.kind {
                    if !t.trim().is_empty() {
                        out.push(t.trim().to_string());
                    }
                }
            }
            id = self.end(id).max(id + 1);
        }
        out
    }

    #[cfg(test)]
    pub fn with_id(&self, v: &str) -> Id {
        self.nodes
            .iter()
            .position(|n| n.attr("id") == Some(v))
            .expect("an element with that id")
    }

    /// Whether an ancestor of `id` is a `<blockquote>`.
    pub fn in_blockquote(&self, id: Id) -> bool {
        self.marks[id] & IN_BLOCKQUOTE != 0
    }

    /// Whether an ancestor of `id` is `<main>` or `<article>`.
    pub fn in_main(&self, id: Id) -> bool {
        self.marks[id] & (IN_ARTICLE | IN_MAIN) != 0
    }

    /// Whether an ancestor of `id` is an `<article>`.
    pub fn in_article(&self, id: Id) -> bool {
        self.marks[id] & IN_ARTICLE != 0
    }

    /// Whether `id` is a heading or holds one.
    pub fn holds_heading(&self, id: Id) -> bool {
        self.marks[id] & HOLDS_HEADING != 0
    }

    /// Whether `id` is one of several `<article>`s side by side inside
    /// another article: the HTML standard's reading of nested articles is
    /// "related to the outer one" (its comments, or teasers for other
    /// posts), not part of it.
    pub fn is_nested_article(&self, id: Id) -> bool {
        self.marks[id] & NESTED_ARTICLE != 0
    }

    /// The `<body>` (html5ever always makes one), or the document.
    pub fn body(&self) -> Id {
        self.body
    }

    /// The parent of `id` (`None` for the document).
    pub fn parent(&self, id: Id) -> Option<Id> {
        match self.nodes[id].parent {
            NONE => None,
            p => Some(p as usize),
        }
    }

    /// One past the last node of `id`'s subtree.
    pub fn end(&self, id: Id) -> Id {
        self.nodes[id].end as usize
    }

    /// The children of `id`, in order.
    pub fn children(&self, id: Id) -> Children<'_> {
        Children {
            nodes: &self.nodes,
            next: id + 1,
            end: self.end(id),
        }
    }
}

const IN_BLOCKQUOTE: u8 = 1;
const IN_ARTICLE: u8 = 2;
const HOLDS_HEADING: u8 = 4;
const NESTED_ARTICLE: u8 = 8;
const IN_MAIN: u8 = 16;

/// The mean text (characters) of the `<article>`s side by side that are
/// a listicle's items when they are most of the outer article: teasers
/// for other posts are a paragraph each.
const ITEM_TEXT: usize = 1000;

/// Per node, in three linear passes instead of a walk per question: what
/// its ancestors are (forward, parents first), whether it holds a heading
/// (backward, children first), and whether it is an article among two or
/// more side by side inside an article that are not most of its text (a
/// listicle sets each of its items in an `<article>` of its own: they are
/// the outer article, not teasers beside it).
fn marks(nodes: &[Node]) -> Vec<u8> {
    let mut marks = vec![0u8; nodes.len()];
    // Per parent, its `<article>` children and their text; per node, the
    // nearest `<article>` above it.
    let mut articles = vec![(0u32, 0usize); nodes.len()];
    let mut outer = vec![0u32; nodes.len()];
    for id in 1..nodes.len() {
        let p = nodes[id].parent as usize;
        let (pm, ptag) = (marks[p], nodes[p].tag());
        let mut m = pm & (IN_BLOCKQUOTE | IN_ARTICLE | IN_MAIN);
        if ptag == Some("main") {
            m |= IN_MAIN;
        }
        if ptag == Some("blockquote") {
            m |= IN_BLOCKQUOTE;
        }
        outer[id] = outer[p];
        if ptag == Some("article") {
            m |= IN_ARTICLE;
            outer[id] = p as u32;
        }
        marks[id] = m;
        if nodes[id].tag() == Some("article") && !nodes[id].junk {
            articles[p].0 += 1;
            articles[p].1 += nodes[id].text_len;
        }
    }
    for id in (1..nodes.len()).rev() {
        let n = &nodes[id];
        if matches!(n.tag(), Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6")) {
            marks[id] |= HOLDS_HEADING;
        }
        let (count, text) = articles[n.parent as usize];
        if n.tag() == Some("article")
            && marks[id] & IN_ARTICLE != 0
            && count >= 2
            && (text * 2 < nodes[outer[id] as usize].text_len || text < ITEM_TEXT * count as usize)
        {
            marks[id] |= NESTED_ARTICLE;
        }
        if marks[id] & HOLDS_HEADING != 0 {
            marks[n.parent as usize] |= HOLDS_HEADING;
        }
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_side_by_side_in_an_article_are_related_unless_they_are_its_items() {
        let teaser = "<article id=t{}><h3><a href=/p>Another post</a></h3><p>A line or two of it.</p></article>";
        let item =
            "A long review of this item, tested for months, with what it does well and badly. ";
        let (intro, teasers) = (
            format!("<p>{}</p>", item.repeat(3)),
            (0..3)
                .map(|i| teaser.replace("{}", &i.to_string()))
                .collect::<String>(),
        );
        // Teasers for other posts after the story: related, not the story.
        let doc = Doc::parse(&format!("<article>{intro}<div>{teasers}</div></article>"));
        assert!(doc.is_nested_article(doc.with_id("t0")));
        // Teasers that are most of a short outer article are still teasers.
        let doc = Doc::parse(&format!(
            "<article><p>Hi.</p><div>{teasers}</div></article>"
        ));
        assert!(doc.is_nested_article(doc.with_id("t1")));
        // A listicle's items, each long and together most of the article.
        let items: String = (0..3)
            .map(|i| {
                format!(
                    "<article id=i{i}><h3>Item {i}</h3><p>{}</p></article>",
                    item.repeat(15)
                )
            })
            .collect();
        let doc = Doc::parse(&format!(
            "<article>{intro}<h2>Best picks</h2>{items}</article>"
        ));
        assert!(!doc.is_nested_article(doc.with_id("i0")));
        // One article alone inside another is not a sibling set at all.
        let doc = Doc::parse(&format!(
            "<article>{intro}<article id=one>{teasers}</article></article>"
        ));
        assert!(!doc.is_nested_article(doc.with_id("one")));
    }
}
