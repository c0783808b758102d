//! HTML to text (contract §8): html5ever parses the page, `article`
//! picks the main article, `render` writes markdown or plain text.
//!
//! The header logic lives here too: with `raw` false the article is
//! rendered (`readability`), unless it is under 100 bytes after trimming,
//! when the whole document is rendered instead (`raw-html`).
//!
//! **Architecture Invariant:** every walk over the tree is iterative; a
//! page nested 100,000 levels deep cannot overflow the stack.

mod article;
mod dom;
mod guard;
mod render;
mod sink;

use url::Url;

use crate::messages::Extraction;

pub use render::Style;

/// An article shorter than this (bytes, after trimming) is not trusted:
/// the whole document is rendered instead.
pub const MIN_ARTICLE_BYTES: usize = 100;

/// Renders an HTML page as `web_fetch` returns it: the text and how it was
/// made. Never fails; the worst case is empty text.
pub fn render_page(html: &str, base: &Url, raw: bool) -> (String, Extraction) {
    render_page_as(html, base, raw, Style::Markdown)
}

/// [`render_page`] with a choice of rendering (markdown or plain text).
pub fn render_page_as(html: &str, base: &Url, raw: bool, style: Style) -> (String, Extraction) {
    let page = extract_page(html, base, raw, style);
    (page.text, page.extraction)
}

/// A rendered page and what else the parse learnt about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The text.
    pub text: String,
    /// How it was made.
    pub extraction: Extraction,
    /// The `<title>`, whitespace collapsed (at most 1,000 characters);
    /// `None` when absent or blank.
    pub title: Option<String>,
    /// Whether the rendering stopped at its output budget (four times the
    /// page's size): the text is what came before.
    pub truncated: bool,
}

/// [`render_page_as`], with the page's title.
pub fn extract_page(html: &str, base: &Url, raw: bool, style: Style) -> Page {
    let doc = dom::Doc::parse(html);
    let title = (!doc.title.trim().is_empty()).then(|| doc.title.trim().to_string());
    if !raw {
        let roots = article::select(&doc);
        let pruner = article::Pruner::new(&doc);
        let r = render::render(&doc, &roots, base, style, Some(&pruner));
        if r.text.trim().len() >= MIN_ARTICLE_BYTES {
            return Page {
                text: r.text,
                extraction: Extraction::Readability,
                title,
                truncated: r.truncated,
            };
        }
    }
    let r = render::render(&doc, &[doc.body()], base, style, None);
    Page {
        text: r.text,
        extraction: Extraction::RawHtml,
        title,
        truncated: r.truncated,
    }
}

/// The deepest element the parsed tree keeps (see `sink`).
pub(crate) const MAX_TREE_DEPTH: usize = sink::MAX_DEPTH;

/// The depth of the deepest node of the tree `html` parses to.
pub(crate) fn tree_depth(html: &str) -> usize {
    let doc = dom::Doc::parse(html);
    // Document order: a parent's depth is known before its children's.
    let mut depth = vec![0usize; doc.nodes.len()];
    for id in 0..doc.nodes.len() {
        if let Some(p) = doc.parent(id) {
            depth[id] = depth[p] + 1;
        }
    }
    depth.into_iter().max().unwrap_or(0)
}

/// What parsing `html` spent against its budgets: (nodes made, work
/// units, the budgets' nodes and work, whether the rest became text).
pub(crate) fn parse_spent(html: &str) -> (usize, u64, usize, u64, bool) {
    let limits = sink::Limits::for_len(html.len());
    let (_, spent) = sink::parse_with(html, limits);
    (
        spent.nodes,
        spent.work,
        limits.nodes,
        limits.work,
        spent.tail,
    )
}

/// Parses into the flat view only; the node count.
pub(crate) fn parse_only(html: &str) -> usize {
    dom::Doc::parse(html).nodes.len()
}
