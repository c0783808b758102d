//! A flat, index-based view of the parsed page: one entry per node in
//! document order, with the statistics extraction needs (text length, link
//! text length, commas), computed without recursion.

use std::cell::Cell;

use html5ever::tendril::StrTendril;
use html5ever::{local_name, LocalName};

use super::article::ClassFlags;
use super::sink;

/// Node index in document order; 0 is the document.
pub type Id = usize;

/// What a node is.
#[derive(Debug)]
pub enum Kind {
    /// The document or an ignorable node (comment, doctype, …).
    Other,
    /// An element, by local name.
    Element(LocalName),
    /// Text (a tendril: usually a zero-copy slice of the input).
    Text(StrTendril),
}

/// One node of the flat view.
#[derive(Debug)]
pub struct Node {
    pub kind: Kind,
    pub parent: Option<Id>,
    pub children: Vec<Id>,
    /// What the `class` and `id` say, read on first use (see
    /// `article::ClassFlags`): most elements are never asked.
    flags: Cell<Option<ClassFlags>>,
    /// Attributes by local name, values as parsed.
    pub attrs: Vec<(LocalName, StrTendril)>,
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
    pub fn new(kind: Kind, attrs: Vec<(LocalName, StrTendril)>) -> Node {
        Node {
            kind,
            parent: None,
            children: Vec::new(),
            flags: Cell::new(None),
            attrs,
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
        let mut out = String::with_capacity(c.len() + i.len() + 1);
        for word in c.split_ascii_whitespace() {
            let start = out.len();
            out.extend(word.chars().map(|ch| ch.to_ascii_lowercase()));
            if out[start..].starts_with("category-") || out[start..].starts_with("tag-") {
                out.truncate(start);
                continue;
            }
            out.push(' ');
        }
        out.extend(i.chars().map(|ch| ch.to_ascii_lowercase()));
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
    /// The `<title>` text, whitespace collapsed.
    pub title: String,
}

/// Elements whose content never reaches the text.
fn is_junk_tag(t: &LocalName) -> bool {
    matches!(
        *t,
        local_name!("script")
            | local_name!("style")
            | local_name!("noscript")
            | local_name!("template")
            | local_name!("svg")
            | local_name!("math")
            | local_name!("iframe")
            | local_name!("frame")
            | local_name!("frameset")
            | local_name!("object")
            | local_name!("embed")
            | local_name!("canvas")
            | local_name!("button")
            | local_name!("input")
            | local_name!("select")
            | local_name!("textarea")
            | local_name!("head")
            | local_name!("title")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("audio")
            | local_name!("video")
            | local_name!("map")
            | local_name!("dialog")
    )
}

/// `hidden`, `aria-hidden="true"`, or an inline `display:none` /
/// `visibility:hidden`.
fn is_hidden(attrs: &[(LocalName, StrTendril)]) -> bool {
    attrs.iter().any(|(n, v)| match &**n {
        "hidden" => true,
        "aria-hidden" => v.trim().eq_ignore_ascii_case("true"),
        "style" => style_hides(v),
        _ => false,
    })
}

/// Whether an inline style declares `display: none` or `visibility:
/// hidden` (any case and spacing, `!important` or not), read in place.
fn style_hides(style: &str) -> bool {
    style.split(';').any(|decl| {
        let Some((prop, value)) = decl.split_once(':') else {
            return false;
        };
        let (prop, value) = (prop.trim(), value.trim_start());
        let starts = |word: &str| {
            value
                .get(..word.len())
                .is_some_and(|v| v.eq_ignore_ascii_case(word))
                && !value[word.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
        };
        (prop.eq_ignore_ascii_case("display") && starts("none"))
            || (prop.eq_ignore_ascii_case("visibility") && starts("hidden"))
    })
}

/// Visible length of a text (runs of whitespace count as one character)
/// and its commas, in one pass; ASCII, most of any page, is read byte by
/// byte without decoding.
fn text_stats(s: &str) -> (usize, usize) {
    let (mut n, mut commas) = (0, 0);
    let mut space = true;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (white, width) = if b < 0x80 {
            commas += usize::from(b == b',');
            (matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c), 1)
        } else {
            let c = s[i..].chars().next().unwrap_or(' ');
            (c.is_whitespace(), c.len_utf8())
        };
        if white {
            if !space {
                n += 1;
                space = true;
            }
        } else {
            n += 1;
            space = false;
        }
        i += width;
    }
    (n, commas)
}

impl Doc {
    /// Parses `html` (html5ever never fails: any input is a document).
    pub fn parse(html: &str) -> Doc {
        let mut nodes = sink::parse(html);
        let mut body = None;
        let mut title = String::new();
        // Document order: parents come before children, so one forward
        // pass inherits junk and finds the body and the title.
        for id in 0..nodes.len() {
            let inherited = nodes[id].parent.is_some_and(|p| nodes[p].junk);
            let n = &nodes[id];
            let own = match &n.kind {
                Kind::Element(name) => is_junk_tag(name) || is_hidden(&n.attrs),
                _ => false,
            };
            if body.is_none() && n.tag() == Some("body") {
                body = Some(id);
            }
            if title.is_empty() && n.tag() == Some("title") {
                let mut t = String::new();
                for &k in &n.children {
                    if let Kind::Text(s) = &nodes[k].kind {
                        t.push_str(s);
                    }
                }
                title = t.split_whitespace().collect::<Vec<_>>().join(" ");
            }
            nodes[id].junk = inherited || own;
        }
        // Children were pushed in reverse and popped in order, so ids are
        // in document order and every child id is greater than its parent's:
        // one backwards pass sums the statistics bottom-up.
        sum_stats(&mut nodes);
        // A form is a search box, a login, a newsletter signup: dropped.
        // Unless it holds the page (ASP.NET wraps whole pages in one form),
        // which its share of the page's text shows (four fifths or more),
        // or its amount of text outside links (a page's menus can make most
        // of a wrapper's text link text; a signup form has no thousand
        // characters of prose).
        let page_text = body.map_or(0, |b| nodes[b].text_len);
        let mut id = 0;
        while id < nodes.len() {
            let n = &nodes[id];
            if !(n.tag() == Some("form")
                && !n.junk
                && n.text_len * 5 < page_text * 4
                && n.text_len.saturating_sub(n.link_len) < FORM_KEEP_TEXT)
            {
                id += 1;
                continue;
            }
            id = drop_subtree(&mut nodes, id);
        }
        Doc {
            body: body.unwrap_or(0),
            nodes,
            title,
        }
    }

    /// The `<body>` (html5ever always makes one), or the document.
    pub fn body(&self) -> Id {
        self.body
    }
}

/// A form with this much text outside links (or more) is taken to wrap
/// the page.
const FORM_KEEP_TEXT: usize = 1000;

/// Drops the subtree at `root` (marks it junk, clears its figures) and
/// takes its figures off its ancestors' sums, instead of summing the whole
/// page again. Returns the first node after the subtree: in document
/// order a subtree is one run of ids, and a node belongs to it while its
/// parent does.
fn drop_subtree(nodes: &mut [Node], root: Id) -> Id {
    let (text, links, commas) = (
        nodes[root].text_len,
        nodes[root].link_len,
        nodes[root].commas,
    );
    let mut end = root + 1;
    while end < nodes.len() && nodes[end].parent.is_some_and(|p| p >= root && p < end) {
        end += 1;
    }
    for n in &mut nodes[root..end] {
        n.junk = true;
        (n.text_len, n.link_len, n.commas) = (0, 0, 0);
    }
    // Above a link every character of the subtree counted as link text.
    let mut link_delta = links;
    let mut anc = nodes[root].parent;
    while let Some(a) = anc {
        let n = &mut nodes[a];
        // The figures are consistent sums; saturating only so that a
        // mistake here could never panic on a page.
        n.text_len = n.text_len.saturating_sub(text);
        n.commas = n.commas.saturating_sub(commas);
        if n.tag() == Some("a") {
            n.link_len = n.text_len;
            link_delta = text;
        } else {
            n.link_len = n.link_len.saturating_sub(link_delta);
        }
        anc = n.parent;
    }
    end
}

/// Text, link text and commas, summed bottom-up over the non-junk nodes.
fn sum_stats(nodes: &mut [Node]) {
    {
        for id in (0..nodes.len()).rev() {
            // Junk nodes keep no statistics: a sum redone after dropping
            // forms must not see their earlier figures.
            if nodes[id].junk {
                let n = &mut nodes[id];
                (n.text_len, n.link_len, n.commas) = (0, 0, 0);
                continue;
            }
            let n = &nodes[id];
            if n.junk {
                continue;
            }
            let (own_text, own_commas) = match &n.kind {
                Kind::Text(t) => text_stats(t),
                _ => (0, 0),
            };
            let is_link = n.tag() == Some("a");
            let (mut t, mut l, mut c) = (own_text, 0, own_commas);
            for &k in &n.children {
                let kid = &nodes[k];
                if kid.junk {
                    continue;
                }
                t += kid.text_len;
                l += kid.link_len;
                c += kid.commas;
            }
            let n = &mut nodes[id];
            n.text_len = t;
            n.link_len = if is_link { t } else { l };
            n.commas = c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_styles_that_hide() {
        for hides in [
            "display:none",
            "display: none",
            "DISPLAY : NONE !important",
            "color: red; display:none;",
            "visibility:hidden",
            "width:100%;visibility: Hidden",
        ] {
            assert!(style_hides(hides), "{hides}");
        }
        for shows in [
            "display:block",
            "display: nonesuch",
            "max-display:none",
            "visibility:visible",
            "content: 'display:none'x",
            "",
            "display",
        ] {
            assert!(!style_hides(shows), "{shows}");
        }
    }

    /// Dropping forms by subtraction leaves the same figures as summing
    /// the page again with the forms junk.
    #[test]
    fn dropped_forms_leave_the_sums_of_a_fresh_count() {
        let pages = [
            "<p>before, text</p><form><p>sign, up</p><input></form><p>after</p>",
            "<div><a href=x>link <form>in, a link</form> tail</a><p>prose, more prose</p></div>",
            "<form><div><form>inner</form>outer</div></form><article><p>kept text here</p></article>",
            "<ul><li><form>search</form></li><li><a href=y>nav</a></li></ul><p>body</p>",
            "<table><tr><td><form>a</form><form>b, c</form></td></tr></table><p>p</p>",
        ];
        for html in pages {
            let doc = Doc::parse(html);
            let mut fresh: Vec<Node> = sink::parse(html);
            // Same junk marks, then one full sum.
            assert_eq!(fresh.len(), doc.nodes.len(), "{html}");
            for (f, d) in fresh.iter_mut().zip(&doc.nodes) {
                f.junk = d.junk;
            }
            sum_stats(&mut fresh);
            for (i, (f, d)) in fresh.iter().zip(&doc.nodes).enumerate() {
                assert_eq!(
                    (f.text_len, f.link_len, f.commas),
                    (d.text_len, d.link_len, d.commas),
                    "{html}: node {i}"
                );
            }
            assert!(
                doc.nodes.iter().any(|n| n.tag() == Some("form") && n.junk),
                "{html}"
            );
        }
    }
}
