//! What a reader sees of a parsed page: the rules applied to the sink's
//! nodes before anything is selected. Junk elements (scripts, styles,
//! forms' controls, media), hidden content (unless it is the page, a
//! streamed segment, a panel its toggle opens, or the whole text of a
//! visible teaser, which then goes), forms that are a
//! search box or a signup, short `<noscript>` notices and decoys between
//! spelled-out letters are dropped; the text statistics are summed
//! bottom-up in linear passes; the `<title>` is read.

use std::collections::HashMap;

use html5ever::tendril::StrTendril;
use html5ever::{local_name, LocalName};

use super::dom::{Doc, Id, Kind, Node, NONE, TITLE_CHARS};
use super::streamed::is_segment_id;

impl Doc {
    /// The flat view of nodes the sink made, in document order.
    pub fn from_nodes(mut nodes: Vec<Node>, source_len: usize) -> Doc {
        let mut body = None;
        let mut title = String::new();
        // Document order: parents come before children, so one forward
        // pass inherits junk and finds the body and the title. Hidden
        // elements are decided after the first sums (below).
        let mut hidden = Vec::new();
        for id in 0..nodes.len() {
            let parent = nodes[id].parent;
            let inherited = parent != NONE && nodes[parent as usize].junk;
            let n = &nodes[id];
            let own = matches!(&n.kind, Kind::Element(name) if is_junk_tag(name));
            if matches!(n.kind, Kind::Element(_)) && !inherited && !own && is_hidden(&n.attrs) {
                hidden.push(id);
            }
            if body.is_none() && n.is(&local_name!("body")) {
                body = Some(id);
            }
            if title.is_empty() && n.is(&local_name!("title")) {
                title = title_text(&nodes, id);
            }
            nodes[id].junk = inherited || own;
        }
        let mut own = Vec::new();
        sum_stats(&mut nodes, &mut own);
        // Hidden content is dropped, unless it is the page: a container
        // that streaming renderers fill in by script (`<div hidden
        // id="S:2e">`, React's convention: the segment's number in
        // hexadecimal, moved into its placeholder `P:2e` once the page's
        // script runs), or a hidden wrapper holding
        // half the page's text, or half its text outside links (shown by
        // script once styles load or a shop's app has run; the menus
        // around it are mostly links, a hidden menu is all links).
        let all_text = body.map_or(0, |b| nodes[b].text_len);
        let all_prose = body.map_or(0, |b| nodes[b].text_len.saturating_sub(nodes[b].link_len));
        let mut hid_any = false;
        let toggles = Toggles::of(&nodes, &hidden);
        let teasers = Teasers::of(&nodes, &hidden);
        for &id in &hidden {
            let whole = teasers.completes(&nodes, id);
            if let Some(teaser) = whole {
                // The teaser goes: its words are the whole text's first.
                nodes[teaser].junk = true;
                hid_any = true;
            }
            let n = &nodes[id];
            let streamed = n.attr("hidden").is_some() && n.attr("id").is_some_and(is_segment_id);
            let prose = n.text_len.saturating_sub(n.link_len);
            if !(streamed
                || whole.is_some()
                || toggles.opens(&nodes, id)
                || n.text_len * 2 >= all_text.max(1)
                || prose * 2 >= all_prose.max(1))
            {
                nodes[id].junk = true;
                hid_any = true;
            }
        }
        if hid_any {
            for id in 1..nodes.len() {
                let parent = nodes[id].parent as usize;
                if nodes[parent].junk {
                    nodes[id].junk = true;
                }
            }
            sum_stats(&mut nodes, &mut own);
        }
        // A form is a search box, a login, a newsletter signup: dropped.
        // (And short `<noscript>` notices and decoy identifiers, below.)
        // Unless it holds the page (ASP.NET wraps whole pages in one form),
        // which its share of the page's text shows (four fifths or more),
        // or its amount of text outside links (a page's menus can make most
        // of a wrapper's text link text; a signup form has no thousand
        // characters of prose). Forms do not nest (the parser sees to it),
        // so every decision reads the first sums; one more pass sums again.
        let page_text = body.map_or(0, |b| nodes[b].text_len);
        let mut letters = vec![0u32; nodes.len()];
        for n in &nodes {
            if n.parent != NONE && n.tag().is_some() && n.text_len == 1 {
                letters[n.parent as usize] += 1;
            }
        }
        let mut dropped_any = false;
        for id in 0..nodes.len() {
            let parent = nodes[id].parent;
            if parent != NONE && nodes[parent as usize].junk {
                nodes[id].junk = true;
                continue;
            }
            let n = &nodes[id];
            let form = n.is(&local_name!("form"))
                && n.text_len * 5 < page_text * 4
                && n.text_len.saturating_sub(n.link_len) < FORM_KEEP_TEXT;
            // `<noscript>` is read as markup, as a reader without scripts
            // sees it: some pages (Discourse threads) carry their whole
            // content there. A short one is a "turn on JavaScript" notice
            // or a tracking pixel, and is dropped.
            let notice = n.is(&local_name!("noscript"))
                && (n.text_len < NOSCRIPT_KEEP_TEXT || holds_escaped_markup(&nodes, id));
            // A bare identifier between letters spelled out one element
            // each is a decoy (`is_decoy`).
            if !n.junk && (form || notice || is_decoy(&nodes, &letters, id)) {
                nodes[id].junk = true;
                dropped_any = true;
            }
        }
        if dropped_any {
            sum_stats(&mut nodes, &mut own);
        }
        Doc::assemble(nodes, body.unwrap_or(0), title, source_len)
    }
}

/// Elements whose content never reaches the text.
fn is_junk_tag(t: &LocalName) -> bool {
    matches!(
        *t,
        local_name!("script")
            | local_name!("style")
            | local_name!("template")
            | local_name!("svg")
            // MathML is read (its tokens are text: `x`, `=`, `2`); its
            // annotations repeat the formula in TeX or markup.
            | local_name!("annotation")
            | local_name!("annotation-xml")
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

/// The disclosure widgets of a page: a collapsed answer or section,
/// hidden until its toggle is pressed, is content a reader opens (a
/// product's specifications, a page's FAQ). A hidden element is such a
/// panel when the element just before it is its toggle: a short visible
/// question (text ending in `?`), a heading, a `dt`, `summary` or button
/// (`role="button"` too), or an element showing no text that holds a
/// labelled button (a heading around one: the ARIA accordion). The panel
/// is prose (at least [`PANEL_TEXT`] characters, under half of them in
/// links), not a window, and not hidden from assistive technology
/// (`aria-hidden`) unless its toggle names it (`aria-controls`). A
/// hidden tab panel (`role="tabpanel"`) is prose of the same kind whose
/// tab sits elsewhere, and is read too. A menu under its button is
/// mostly links; a badge's popover follows a word that is no question.
struct Toggles {
    /// The previous element sibling of each node, or `NONE`; empty
    /// when the page hides nothing.
    prev: Vec<u32>,
}

/// A teaser and the whole text it stands for: a visible text that ends
/// in an ellipsis (`…` or `...`, often beside a "more" link) and a hidden
/// element holding, among its first [`TEASER_LOOK`] nodes, a text that
/// starts with the teaser's words, which a script shows in the teaser's
/// place. Older pages and review sites build their "read more" so;
/// without this rule the reader got the teaser alone.
struct Teasers {
    /// The first [`TEASER_KEY`] bytes of each teaser (whitespace runs as
    /// one space), with the teaser's text node.
    keys: HashMap<String, Id>,
}

/// How many bytes of its start a teaser is known by; a shorter teaser is
/// not one.
const TEASER_KEY: usize = 40;

/// How many nodes into a hidden element the teaser's words are looked
/// for (nested hidden wrappers must not make the look quadratic).
const TEASER_LOOK: usize = 64;

impl Teasers {
    fn of(nodes: &[Node], hidden: &[Id]) -> Teasers {
        let mut keys = HashMap::new();
        if hidden.is_empty() {
            return Teasers { keys };
        }
        // Visible text only: outside every hidden element (the list is
        // in document order; a hidden element's subtree is one run).
        let mut next = hidden.iter().copied().peekable();
        let mut id = 0;
        while id < nodes.len() {
            if next.peek() == Some(&id) {
                next.next();
                let end = nodes[id].end as usize;
                while next.peek().is_some_and(|&h| h < end) {
                    next.next();
                }
                id = end;
                continue;
            }
            if let (Kind::Text(t), false) = (&nodes[id].kind, nodes[id].junk) {
                let t = t.trim_end();
                if let Some(rest) = t.strip_suffix('…').or_else(|| t.strip_suffix("...")) {
                    if let Some(key) = key_of(rest) {
                        keys.entry(key).or_insert(id);
                    }
                }
            }
            id += 1;
        }
        Teasers { keys }
    }

    /// The teaser hidden element `id` holds the whole text of, if any.
    fn completes(&self, nodes: &[Node], id: Id) -> Option<Id> {
        if self.keys.is_empty() {
            return None;
        }
        let end = (nodes[id].end as usize).min(id + TEASER_LOOK);
        (id + 1..end).find_map(|x| match &nodes[x].kind {
            Kind::Text(t) if !nodes[x].junk => key_of(t).and_then(|k| self.keys.get(&k).copied()),
            _ => None,
        })
    }
}

/// The first [`TEASER_KEY`] bytes of `text` (trimmed, whitespace runs as
/// one space, cut on a character boundary); `None` when it is shorter.
fn key_of(text: &str) -> Option<String> {
    let mut key = String::with_capacity(TEASER_KEY + 4);
    let spaced = text
        .split_whitespace()
        .flat_map(|w| std::iter::once(' ').chain(w.chars()));
    for c in spaced.skip(1) {
        if key.len() >= TEASER_KEY {
            return Some(key);
        }
        key.push(c);
    }
    (key.len() >= TEASER_KEY).then_some(key)
}

/// The least text (characters) a panel holds.
const PANEL_TEXT: usize = 40;

/// The most text (characters) a toggle holds.
const TOGGLE_TEXT: usize = 200;

impl Toggles {
    fn of(nodes: &[Node], hidden: &[Id]) -> Toggles {
        if hidden.is_empty() {
            return Toggles { prev: Vec::new() };
        }
        // Document order: a node's next sibling starts where its subtree
        // ends, when the node there has the same parent.
        let mut prev = vec![NONE; nodes.len()];
        for x in 0..nodes.len() {
            let e = nodes[x].end as usize;
            if e < nodes.len() && nodes[e].parent == nodes[x].parent {
                // Text between two elements is skipped over.
                prev[e] = if nodes[x].tag().is_some() {
                    x as u32
                } else {
                    prev[x]
                };
            }
        }
        Toggles { prev }
    }

    /// Whether hidden element `id` is a panel its toggle opens.
    fn opens(&self, nodes: &[Node], id: Id) -> bool {
        let n = &nodes[id];
        let Some(&p) = self.prev.get(id) else {
            return false;
        };
        if n.text_len < PANEL_TEXT
            || n.link_len * 2 >= n.text_len
            || matches!(n.attr("role"), Some("dialog" | "alertdialog"))
        {
            return false;
        }
        // A tab's panel is declared as one, wherever its tab is (a code
        // sample in another language, a product's other tab).
        if n.attr("role") == Some("tabpanel") {
            return true;
        }
        if p == NONE {
            return false;
        }
        let t = &nodes[p as usize];
        // A `<button>` is junk (its text never reaches the output), so a
        // toggle's label is read from its nodes when it shows no text:
        // a bare button, or a heading around one (the ARIA accordion).
        // Any other junk is no toggle.
        if (t.junk && t.tag() != Some("button")) || t.text_len > TOGGLE_TEXT || is_hidden(&t.attrs)
        {
            return false;
        }
        let panel = n.attr("id").filter(|v| !v.trim().is_empty());
        let label = if t.text_len > 0 {
            // A toggle with text may still be a wrapper around the control
            // that names the panel (`<div><a role=button
            // aria-controls=panel>Step 1</a></div>`).
            Label {
                len: t.text_len,
                button: false,
                controls: label(nodes, p as usize, panel).controls,
            }
        } else {
            label(nodes, p as usize, panel)
        };
        // Hidden from assistive technology too, a panel is a copy kept
        // for the eye (a marquee's clone), unless its toggle names it
        // (`aria-controls`): then the page declares a collapsed panel.
        if label.len == 0
            || label.len > TOGGLE_TEXT
            || (n.attr("aria-hidden").is_some() && !label.controls)
        {
            return false;
        }
        label.button
            || label.controls
            || matches!(
                t.tag(),
                Some("h2" | "h3" | "h4" | "h5" | "h6" | "dt" | "summary")
            )
            || t.attr("role") == Some("button")
            || asks(nodes, p as usize)
    }
}

/// The most nodes of a toggle read for its label: a button, its icon
/// and a heading around them are a few dozen.
const LABEL_NODES: usize = 256;

/// What a toggle's nodes say (see [`label`]).
struct Label {
    /// Characters of text, spaces excluded, junk included, counted until
    /// past [`TOGGLE_TEXT`].
    len: usize,
    /// Whether it is or holds a button.
    button: bool,
    /// Whether it (or, for a toggle showing no text, a node in it)
    /// names the panel in `aria-controls`.
    controls: bool,
}

/// What the nodes of toggle `id` say of it and of the panel whose id is
/// `panel`. At most [`LABEL_NODES`] nodes are read, and an element is
/// the toggle of one panel at most (its next sibling), so the reading is
/// linear however toggles nest.
fn label(nodes: &[Node], id: Id, panel: Option<&str>) -> Label {
    let mut l = Label {
        len: 0,
        button: false,
        controls: false,
    };
    let end = (nodes[id].end as usize).min(id + LABEL_NODES);
    for node in &nodes[id..end] {
        match &node.kind {
            Kind::Text(t) => {
                let room = TOGGLE_TEXT + 1 - l.len;
                l.len += t.chars().filter(|c| !c.is_whitespace()).take(room).count();
                if l.len > TOGGLE_TEXT {
                    break;
                }
            }
            Kind::Element(_) => {
                l.button |= node.tag() == Some("button") || node.attr("role") == Some("button");
                l.controls |= controls(node, panel);
            }
            _ => {}
        }
    }
    l
}

/// Whether `node` names element id `panel` in its `aria-controls` (a
/// list of ids).
fn controls(node: &Node, panel: Option<&str>) -> bool {
    let (Some(panel), Some(list)) = (panel, node.attr("aria-controls")) else {
        return false;
    };
    list.split_ascii_whitespace().any(|v| v == panel.trim())
}

/// Whether the text of short element `id` ends in a question mark (its
/// last text node, within a few nodes of its end).
fn asks(nodes: &[Node], id: Id) -> bool {
    let end = nodes[id].end as usize;
    (id..end).rev().take(16).find_map(|k| match &nodes[k].kind {
        Kind::Text(t) if !t.trim().is_empty() => Some(t.trim_end().ends_with(['?', '？'])),
        _ => None,
    }) == Some(true)
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

/// What [`text_stats`] needs of a byte: a letter of some character, an
/// ASCII space, a comma, the second or later byte of a character, or the
/// first byte of one that may be Unicode whitespace (U+0085, U+00A0,
/// U+1680, U+2000–U+205F, U+3000 begin with these four).
const OTHER: u8 = 0;
const SPACE: u8 = 1;
const COMMA: u8 = 2;
const TRAIL: u8 = 3;
const MAYBE_SPACE: u8 = 4;

static BYTE_CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0x80;
    while b < 0xC0 {
        t[b] = TRAIL;
        b += 1;
    }
    t[b' ' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[b'\n' as usize] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[0x0b] = SPACE;
    t[0x0c] = SPACE;
    t[b',' as usize] = COMMA;
    t[0xC2] = MAYBE_SPACE;
    t[0xE1] = MAYBE_SPACE;
    t[0xE2] = MAYBE_SPACE;
    t[0xE3] = MAYBE_SPACE;
    t
};

/// Visible length of a text (runs of whitespace count as one character,
/// leading ones none) and its commas, in one pass over the bytes: a
/// character is counted at its first byte, and decoded only when it may
/// be whitespace.
fn text_stats(s: &str) -> (usize, usize) {
    if s.is_ascii() {
        return ascii_text_stats(s.as_bytes());
    }
    let (mut n, mut commas) = (0, 0);
    let mut space = true;
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let white = match BYTE_CLASS[usize::from(b)] {
            TRAIL => continue,
            SPACE => true,
            COMMA => {
                commas += 1;
                false
            }
            // OK to slice: `i` is the first byte of a character.
            MAYBE_SPACE => s[i..].chars().next().is_some_and(char::is_whitespace),
            _ => false,
        };
        // A character counts unless it continues a run of whitespace.
        n += usize::from(!(white && space));
        space = white;
    }
    (n, commas)
}

/// [`text_stats`] of ASCII text (most text of most pages), without a
/// loop-carried state so that the compiler can vectorise it: a byte
/// counts unless it and the byte before are both whitespace (the one
/// before the first counts as whitespace).
fn ascii_text_stats(b: &[u8]) -> (usize, usize) {
    let white = |c: u8| c == b' ' || c.wrapping_sub(b'\t') < 5;
    let Some(&first) = b.first() else {
        return (0, 0);
    };
    let pairs = b.iter().zip(&b[1..]);
    let n = usize::from(!white(first))
        + pairs
            .map(|(&p, &c)| usize::from(!(white(p) & white(c))))
            .sum::<usize>();
    let commas = b.iter().map(|&c| usize::from(c == b',')).sum();
    (n, commas)
}

/// The text of a `<title>`, whitespace collapsed, cut at [`TITLE_CHARS`].
fn title_text(nodes: &[Node], id: Id) -> String {
    let mut t = String::new();
    for node in &nodes[id + 1..nodes[id].end as usize] {
        if let Kind::Text(s) = &node.kind {
            t.push_str(s);
            if t.len() > 4 * TITLE_CHARS {
                break;
            }
        }
    }
    t.split_whitespace()
        .flat_map(|w| std::iter::once(' ').chain(w.chars()))
        .skip(1)
        .take(TITLE_CHARS)
        .collect()
}

/// A `<noscript>` with less text than this is a notice, not content.
const NOSCRIPT_KEEP_TEXT: usize = 200;

/// Whether the text of element `id` starts as markup does (`&lt;div
/// class=…&gt;`): a `<noscript>` that holds escaped HTML for a lazy-loading
/// script, not text for a reader. Only its first text node is read.
fn holds_escaped_markup(nodes: &[Node], id: Id) -> bool {
    let end = (nodes[id].end as usize).min(id + 8);
    let Some(text) = nodes[id + 1..end].iter().find_map(|n| match &n.kind {
        Kind::Text(t) if !t.trim().is_empty() => Some(&**t),
        _ => None,
    }) else {
        return false;
    };
    let mut chars = text.trim_start().chars();
    chars.next() == Some('<')
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!')
}

/// Whether element `id` is a decoy in a spelled-out word: its whole text
/// is one bare UUID and its parent holds two or more elements of one
/// character each (`letters`, by parent). Shops spell a word
/// ("Sponsored") one letter per element with random identifiers between
/// the letters, hidden by a style sheet a parser does not read; counted
/// as text, the identifiers make a block of ads look like the page's
/// largest text.
fn is_decoy(nodes: &[Node], letters: &[u32], id: Id) -> bool {
    let n = &nodes[id];
    if n.tag().is_none() || n.end as usize != id + 2 || n.parent == NONE {
        return false;
    }
    if letters[n.parent as usize] < 2 {
        return false;
    }
    matches!(&nodes[id + 1].kind, Kind::Text(t) if is_uuid(t.trim()))
}

/// `8-4-4-4-12` hexadecimal digits.
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A form with this much text outside links (or more) is taken to wrap
/// the page.
const FORM_KEEP_TEXT: usize = 1000;

/// Text, link text and commas, summed bottom-up over the non-junk nodes:
/// in document order every child comes after its parent, so one
/// backwards pass adds each node's figures to its parent's. A text
/// node's own figures are read from its text once (`own`, kept between
/// passes: the sums are redone when junk changes).
fn sum_stats(nodes: &mut [Node], own: &mut Vec<(u32, u32)>) {
    if own.len() != nodes.len() {
        *own = nodes
            .iter()
            .map(|n| match &n.kind {
                // Junk only grows between passes: a text junk now (a
                // script's) never counts.
                Kind::Text(t) if !n.junk => {
                    let (len, commas) = text_stats(t);
                    (len as u32, commas as u32)
                }
                _ => (0, 0),
            })
            .collect();
    }
    for (n, &(t, c)) in nodes.iter_mut().zip(own.iter()) {
        (n.text_len, n.link_len, n.commas) = if n.junk {
            (0, 0, 0)
        } else {
            (t as usize, 0, c as usize)
        };
    }
    for id in (1..nodes.len()).rev() {
        let n = &mut nodes[id];
        if n.junk {
            continue;
        }
        if n.is(&local_name!("a")) {
            n.link_len = n.text_len;
        }
        let (t, l, c, p) = (n.text_len, n.link_len, n.commas, n.parent);
        if p != NONE {
            let parent = &mut nodes[p as usize];
            parent.text_len += t;
            parent.link_len += l;
            parent.commas += c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sink;
    use super::super::work::Work;
    use super::*;
    use proptest::prelude::*;

    /// `text_stats` by its definition, one character at a time.
    fn text_stats_by_chars(s: &str) -> (usize, usize) {
        let (mut n, mut space) = (0, true);
        for c in s.chars() {
            let white = c.is_whitespace();
            n += usize::from(!(white && space));
            space = white;
        }
        (n, s.matches(',').count())
    }

    #[test]
    fn text_stats_count_characters_and_runs_of_space() {
        for (s, want) in [
            ("", (0, 0)),
            ("   ", (0, 0)),
            ("a, b", (4, 1)),
            ("  a  b  ", (4, 0)),
            ("a\u{a0}\u{a0}b", (3, 0)),
            ("a\u{3000}b\u{2009}\u{202f}c", (5, 0)),
            ("é\u{e2}", (2, 0)),
            ("\u{2014}\u{1680}x", (3, 0)),
        ] {
            assert_eq!(text_stats(s), want, "{s:?}");
            assert_eq!(text_stats_by_chars(s), want, "{s:?}");
        }
    }

    proptest! {
        #[test]
        fn ascii_text_stats_agree_with_the_definition(s in "[a ,\t\n\r\x0b\x0c\x1c-\x1f.]{0,40}") {
            prop_assert_eq!(ascii_text_stats(s.as_bytes()), text_stats_by_chars(&s));
        }

        #[test]
        fn text_stats_agree_with_the_definition(
            s in "[a ,\t\n\u{85}\u{a0}\u{e9}\u{1680}\u{2000}-\u{2060}\u{3000}\u{4e00}\u{1f600}]{0,40}",
        ) {
            prop_assert_eq!(text_stats(&s), text_stats_by_chars(&s));
        }
    }

    /// Scripts and style sheets keep their place and one text child, but
    /// not their text (no one reads it); JSON-LD, the title and a
    /// textarea keep theirs.
    #[test]
    fn unread_raw_text_is_not_kept() {
        let html = "<head><title>A title</title><style>p { color: red }</style>\
                    <script type=' application/LD+json '>{\"@type\": \"Thing\"}</script></head>\
                    <body><script>var x = '<p>not a tag</p>';</script><script src=a.js></script>\
                    <p>Seen</p><textarea>typed</textarea><svg><style>svg text</style></svg></body>";
        let doc = Doc::parse(html);
        let texts = |tag: &str| -> Vec<(usize, String)> {
            (0..doc.nodes.len())
                .filter(|&id| doc.nodes[id].tag() == Some(tag))
                .map(|id| {
                    let kids: Vec<_> = doc.children(id).collect();
                    let text = kids
                        .iter()
                        .filter_map(|&k| match &doc.nodes[k].kind {
                            Kind::Text(t) => Some(t.to_string()),
                            _ => None,
                        })
                        .collect();
                    (kids.len(), text)
                })
                .collect()
        };
        assert_eq!(
            texts("script"),
            [
                (1, r#"{"@type": "Thing"}"#.to_string()),
                (1, String::new()),
                (0, String::new())
            ]
        );
        // The SVG style is foreign content, not raw text: kept as parsed.
        assert_eq!(
            texts("style"),
            [(1, String::new()), (1, "svg text".to_string())]
        );
        assert_eq!(texts("textarea"), [(1, "typed".to_string())]);
        assert_eq!(doc.title, "A title");
        assert_eq!(doc.nodes.iter().filter(|n| n.tag() == Some("p")).count(), 1);
    }

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

    /// A hidden wrapper stays when it holds half the page's text, or half
    /// its text outside links (a shop's page hidden until a script has
    /// run, among menus that are all links); a hidden menu goes.
    #[test]
    fn hidden_wrappers_stay_when_they_hold_the_page() {
        let menu = "<li><a href=/x>A menu entry here</a></li>".repeat(40);
        let prose = "<p>Plain words of the description, read as they are.</p>".repeat(6);
        let html = format!(
            "<ul>{menu}</ul><div style='display:none' id=w>{prose}</div>\
             <div hidden id=m><ul>{menu}</ul></div><div hidden id=s><p>Sign up today.</p></div>\
             <p>A short visible line.</p>"
        );
        let doc = Doc::parse(&html);
        let junk = |v: &str| doc.nodes[doc.with_id(v)].junk;
        // Under half the text (the hidden menu counts): kept for its prose.
        let body = &doc.nodes[doc.body()];
        assert!(doc.nodes[doc.with_id("w")].text_len * 2 < body.text_len);
        assert!(!junk("w"));
        assert!(junk("m"));
        assert!(junk("s"));
    }

    /// The whole text behind a teaser that ends in an ellipsis is read,
    /// and the teaser goes; a hidden text that only shares a short start,
    /// or one behind a teaser without an ellipsis, stays hidden.
    #[test]
    fn the_whole_text_behind_a_teaser_is_read() {
        let start = "Tucked behind a high chocolate wall, on the corner of the first lane";
        let prose = "<p>The rest of the review, read only once the panel opens.</p>".repeat(20);
        let html = format!(
            "<div id=t>{start} opposite the station... <a href='javascript:more()'>more</a></div>\
             <div style='display:none' id=w><b>A critic</b><br>{start} opposite the station, \
             and so on.{prose}</div>\
             <div id=u>Another teaser, long enough but without an ellipsis</div>\
             <div style='display:none' id=x>Another teaser, long enough but without an ellipsis, whole.</div>\
             <div style='display:none' id=y>Tucked behind a wall, briefly.</div>\
             <p>{}</p>",
            "Other visible words that make the page more than its panels. ".repeat(40)
        );
        let doc = Doc::parse(&html);
        let junk = |v: &str| doc.nodes[doc.with_id(v)].junk;
        assert!(!junk("w"));
        // The teaser's text node goes; its "more" link stays with it.
        let t = doc.with_id("t");
        assert!(doc.nodes[t + 1].junk);
        // A start too short to be known by (`y`), and a visible text
        // without an ellipsis (`u`, whose whole `x` stays hidden).
        assert!(junk("y"));
        assert!(junk("x"));
        assert!(!doc.nodes[doc.with_id("u") + 1].junk);
    }

    /// A collapsed panel after its toggle (a question, a heading, a
    /// button, a wrapper around a control that names the panel) is read; a hidden menu under its button, a popover after a
    /// word, a panel hidden from assistive technology, a short one, or
    /// one whose toggle is hidden too, is not.
    #[test]
    fn collapsed_panels_after_their_toggles_are_read() {
        let answer = "Absolutely: a tracking number is sent to your email within a day.";
        let links = "<a href=/a>Shoes</a> <a href=/b>Shirts</a> <a href=/c>Socks and more</a>";
        let html = format!(
            "<p>A visible paragraph, long enough to make the page more than its panels.</p>\
             <div class=q>Can I track my order?</div><div style='display:none' id=faq>{answer}</div>\
             <h3>Specifications</h3><div hidden id=spec>{answer}</div>\
             <div role=button>Reviews summary</div><div hidden id=rev>{answer}</div>\
             <button>Menu</button><div hidden id=menu>{links}</div>\
             <button aria-expanded=false>Description<svg><title>plus</title></svg></button>\
             <div style='display:none'><div id=desc>{answer}</div></div>\
             <button>  </button><div hidden id=unlabelled>{answer}</div>\
             <h3><button aria-controls=ship>Shipping</button></h3><div hidden id=ship>{answer}</div>\
             <div><svg><text>Icon label</text></svg></div><div hidden id=icon>{answer}</div>\
             <span>Hot seller</span><div style='display:none' id=badge>{answer}</div>\
             <div>Is it warm?</div><div hidden aria-hidden=true id=aria>{answer}</div>\
             <button aria-expanded=false aria-controls='x ctl'>Guarantee</button>\
             <div aria-hidden=true id=ctl>{answer}</div>\
             <h4 aria-controls=elsewhere>Returns</h4><div aria-hidden=true id=notctl>{answer}</div>\
             <div role=tabpanel id=tab1><p>{answer}</p></div><div role=tabpanel hidden id=tab2>{answer}</div>\
             <div role=tabpanel hidden id=tablinks>{links}</div>\
             <div><div role=tabpanel hidden id=first>{answer}</div></div>\
             <div>Is it small?</div><div hidden id=short>Yes.</div>\
             <div hidden>Is it hidden?</div><div hidden id=twice>{answer}</div>\
             <div><a role=button aria-controls=step>1. Read your bill</a></div>\
             <div style='display:none' id=step>{answer}</div>\
             <div>Share <a href=/s>this</a></div><div hidden id=wrapped>{answer}</div>"
        );
        let doc = Doc::parse(&html);
        let junk = |v: &str| doc.nodes[doc.with_id(v)].junk;
        for read in [
            "faq", "spec", "rev", "desc", "ship", "ctl", "tab2", "first", "step",
        ] {
            assert!(!junk(read), "{read}");
        }
        for dropped in [
            "menu",
            "unlabelled",
            "icon",
            "badge",
            "aria",
            "notctl",
            "tablinks",
            "short",
            "twice",
            "wrapped",
        ] {
            assert!(junk(dropped), "{dropped}");
        }
    }

    /// Streamed segments (`<div hidden id="S:…">`, numbered in hex) are
    /// the page's content waiting for a script, and are kept; other
    /// hidden blocks, and ids that only look like segments, are not.
    #[test]
    fn streamed_segments_stay_hidden_blocks_go() {
        let menu = "<li><a href=/x>A menu entry here</a></li>".repeat(40);
        let line = "<p>Hand-applied trim on the arms and the back.</p>";
        let html = format!(
            "<ul>{menu}</ul><p>The visible part of the page, long enough to lead.</p>\
             <div hidden id=S:2e>{line}</div><div hidden id=P:2f>{line}</div>"
        );
        let doc = Doc::parse(&html);
        let junk = |v: &str| doc.nodes[doc.with_id(v)].junk;
        assert!(!junk("S:2e"));
        assert!(junk("P:2f"));
    }

    /// A word spelled one letter per element, with bare UUIDs between the
    /// letters, loses the UUIDs; a UUID among ordinary text (an API
    /// reference's example), or beside one letter only, stays.
    #[test]
    fn decoys_between_spelled_out_letters_are_dropped() {
        let uuid = |k: u32| format!("{k:08x}-0a1b-4c2d-9e3f-{k:012x}");
        let mut word = String::new();
        for (k, c) in "Sponsored".chars().enumerate() {
            let k = k as u32;
            word.push_str(&format!("<span>{c}</span><span id=d{k}>{}</span>", uuid(k)));
        }
        let html = format!(
            "<div id=w>{word}</div><p>The request id is <code id=c>{}</code>.</p>\
             <div><span>x</span><span id=one> {} </span></div>",
            uuid(70),
            uuid(71)
        );
        let doc = Doc::parse(&html);
        let junk = |v: &str| doc.nodes[doc.with_id(v)].junk;
        assert!((0..9).all(|k| junk(&format!("d{k}"))));
        let w = &doc.nodes[doc.with_id("w")];
        assert_eq!(w.text_len, "Sponsored".len());
        assert!(!junk("c"));
        assert!(!junk("one"));
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
            let mut fresh: Vec<Node> =
                sink::parse_with(html, sink::Limits::for_len(html.len()), &Work::unbounded()).0;
            // Same junk marks, then one full sum.
            assert_eq!(fresh.len(), doc.nodes.len(), "{html}");
            for (f, d) in fresh.iter_mut().zip(&doc.nodes) {
                f.junk = d.junk;
            }
            sum_stats(&mut fresh, &mut Vec::new());
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
