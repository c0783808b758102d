//! The pruning rules inside what was chosen (news-article style):
//! named boilerplate, nested articles, a heading that rewords the page
//! title, metadata lines (bylines, date lines, microdata author and
//! dates, elements named as metadata), ad-slot labels, paragraphs that
//! are one link (not a written-out URL), lists of links, and the short
//! label that introduces a dropped block.
//!
//! Every rule reads structure, names and text shapes; none names a site.

use super::dom::{Doc, Id, Kind, Node};
use super::lexicon::ClassFlags;
use super::signals::{class_weight, date_words, is_ad_label, is_unlikely, is_window, Title};

/// The longest text (characters) a metadata line may have.
const META_LINE: usize = 100;

/// A short element that states when and by whom, not what: microdata
/// marking it as the author or a date, or a line that is a date with a
/// few words around it ("Updated on: November 19, 2019 / 10:07 AM / CBS
/// News"), or a byline ("By Reuters").
fn is_metadata<'t>(pr: &Pruner, id: Id, tag: &str, text: &dyn Fn() -> Option<&'t str>) -> bool {
    let doc = pr.doc;
    let n = &doc.nodes[id];
    if let Some(prop) = n.attr("itemprop") {
        let prop = prop.to_ascii_lowercase();
        if [
            "author",
            "datepublished",
            "datemodified",
            "datecreated",
            "publisher",
        ]
        .iter()
        .any(|p| prop.split_ascii_whitespace().any(|w| w == *p))
        {
            return true;
        }
    }
    if !matches!(
        tag,
        "p" | "div"
            | "span"
            | "li"
            | "ul"
            | "time"
            | "small"
            | "header"
            | "address"
            | "em"
            | "strong"
    ) {
        return false;
    }
    let Some(text) = text() else {
        return false;
    };
    if text.is_empty() {
        return false;
    }
    if tag == "time" {
        return true;
    }
    // A sentence is text, however short and dated ("By then it was
    // over." "On March 3, 2020, the company filed.").
    if text.ends_with(['.', '!', '?', '。', '！', '？']) {
        return false;
    }
    let words = text.split_whitespace().count();
    if (text.starts_with("by ") || text.starts_with("posted by ")) && words <= 6 {
        return true;
    }
    let (dates, rest) = date_words(text);
    // A quoted post's attribution ("— Name (@handle) October 9, 2018")
    // belongs to the quote.
    dates > 0 && rest <= 6 && !doc.in_blockquote(id)
}

/// A region named as boilerplate ([`is_unlikely`]), unless the name is
/// outweighed by what it holds: half the page's text or more, and not a
/// window over the page. A whole post can sit in a wrapper named for a
/// feature of it (`commentOnSelection`), a thread in one named
/// `comments`; a consent manager's window, which lists hundreds of
/// vendors, stays boilerplate however long it is.
fn is_named_boilerplate(doc: &Doc, id: Id) -> bool {
    let n = &doc.nodes[id];
    is_unlikely(doc, id) && (n.text_len * 2 < doc.nodes[doc.body()].text_len || is_window(n))
}

/// The pruning rules inside what was chosen, with what they need to
/// know about the page worked out once: the folded title, and a budget
/// for the rules that read a short element's text (each reads at most a
/// few nodes per character, and all of them together at most a few per
/// node of the page, so nested short elements cannot make it quadratic).
pub struct Pruner<'a> {
    doc: &'a Doc,
    title: Title,
    fold_budget: std::cell::Cell<usize>,
}

impl<'a> Pruner<'a> {
    /// The rules for `doc`.
    pub fn new(doc: &'a Doc) -> Pruner<'a> {
        Pruner {
            doc,
            title: Title::new(&doc.title),
            fold_budget: std::cell::Cell::new(4 * doc.nodes.len() + 4096),
        }
    }

    /// Whether a subtree is boilerplate to drop (share bars, link lists,
    /// related-story boxes, comment sections, captions, and a heading
    /// that only repeats the page title, as readability drops it).
    pub fn drops(&self, id: Id) -> bool {
        self.is_dropped(id) || self.is_label_of_dropped(id)
    }

    /// The text of a short element, whitespace collapsed and case folded;
    /// `None` when reading it would take more than a few nodes per
    /// character, or the page's budget for such reads is spent.
    fn folded(&self, id: Id) -> Option<String> {
        let doc = self.doc;
        let end = doc.end(id);
        let limit = fold_limit(&doc.nodes[id]).min(self.fold_budget.get());
        if end - id > limit {
            self.fold_budget
                .set(self.fold_budget.get().saturating_sub(limit));
            return None;
        }
        self.fold_budget.set(self.fold_budget.get() - (end - id));
        let mut out = String::with_capacity(doc.nodes[id].text_len);
        for t in visible_texts(doc, id) {
            for w in t.split_whitespace() {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(w);
            }
        }
        // Most such text is ASCII: folded in place, not copied.
        if out.is_ascii() {
            out.make_ascii_lowercase();
            return Some(out);
        }
        Some(out.to_lowercase())
    }

    /// A short label that only introduces what follows ("You may also
    /// like…", "Related:"), when what follows is dropped.
    fn is_label_of_dropped(&self, id: Id) -> bool {
        let doc = self.doc;
        let n = &doc.nodes[id];
        if n.text_len == 0 || n.text_len >= 40 || n.link_len > 0 {
            return false;
        }
        if !matches!(
            n.tag(),
            Some("p" | "div" | "span" | "strong" | "h2" | "h3" | "h4" | "h5" | "h6")
        ) {
            return false;
        }
        // Most short elements are not labels: their last character says
        // so without the folded copy of their text.
        if !ends_like_label(doc, id) {
            return false;
        }
        let Some(text) = self.folded(id) else {
            return false;
        };
        if !ends_as_label(&text) {
            return false;
        }
        let Some(parent) = doc.parent(id) else {
            return false;
        };
        // The next sibling with text. Labels are short and their scans
        // stop at the next sibling with text, so scans never overlap.
        let (mut c, end) = (doc.end(id), doc.end(parent));
        while c < end {
            let k = &doc.nodes[c];
            if !k.junk && k.text_len > 0 {
                return k.tag().is_some() && self.is_dropped(c);
            }
            c = doc.end(c);
        }
        false
    }

    /// The rules of [`Pruner::drops`] that look at the element alone.
    fn is_dropped(&self, id: Id) -> bool {
        let doc = self.doc;
        let n = &doc.nodes[id];
        let Some(tag) = n.tag() else { return false };
        // The element's folded text, read once for all the rules below
        // (an empty element has none to read).
        let once = std::cell::OnceCell::new();
        let text = || {
            once.get_or_init(|| (n.text_len > 0).then(|| self.folded(id)).flatten())
                .as_deref()
        };
        if matches!(tag, "nav" | "aside" | "footer" | "figcaption")
            || is_named_boilerplate(doc, id)
            || doc.is_nested_article(id)
        {
            return true;
        }
        if matches!(tag, "h1" | "h2") && n.text_len < 300 {
            if let Some(h) = text() {
                if !h.is_empty() && self.title.repeated_by(h) {
                    return true;
                }
            }
        }
        if n.text_len <= META_LINE && is_metadata(self, id, tag, &text) {
            return true;
        }
        if n.text_len <= 20 && text().is_some_and(is_ad_label) {
            return true;
        }
        // A paragraph that is one link and little else ("Related: <a>…</a>",
        // a teaser's headline) points away from the article; not a source
        // named in a few words ("[ The Verge ]") or a URL written out.
        if tag == "p" && (25..150).contains(&n.text_len) && n.link_density() >= 0.7 {
            if let Some(text) = text() {
                if !(text.contains("http://") || text.contains("https://") || text.contains("www."))
                {
                    return true;
                }
            }
        }
        let weight = class_weight(doc, id);
        let ld = n.link_density();
        match tag {
            // `font` is an older page's `span`: its navigation rows and
            // credits are named the same way ("leftnavi", "credit"). On
            // web-classics 12 pages change, F1 summed +0.49 (gnews 0.971
            // to 0.972), none down; WCXB and the news pages have no such
            // `font`. A `td` so named was tried and not kept: responsive
            // cells (`hidden-sm-down`) of a listing's table and image
            // captions the references keep went with the navigation.
            "div" | "section" | "ul" | "ol" | "header" | "table" | "figure" | "span" | "p"
            | "time" | "address" | "font" => {
                if weight < 0 && (ld > 0.2 || n.text_len < 400) {
                    return true;
                }
                // A short element named as metadata ("post-meta",
                // "content__meta-timestamp") is dropped even when a content
                // word in the same name cancels the weight. Only metadata
                // names: "boxout__header" heads a box of the article.
                if n.text_len < 150
                    && (n.class_flags().has(ClassFlags::META)
                        || (n.class_flags().has(ClassFlags::NEGATIVE_BUT_HEADER)
                            && !doc.holds_heading(id)))
                {
                    return true;
                }
                if matches!(tag, "div" | "section" | "ul" | "ol" | "header") {
                    // Lists of links with little prose of their own.
                    if ld > 0.5 && n.text_len < 1000 {
                        return true;
                    }
                    if tag == "header" && n.text_len < 200 && ld > 0.3 {
                        return true;
                    }
                }
                false
            }
            _ => false,
        }
    }
}

/// The most nodes [`Pruner::folded`] reads for an element: a few per
/// character of its text.
fn fold_limit(n: &Node) -> usize {
    4 * n.text_len + 32
}

/// The text nodes under `id`, in order, outside junk subtrees.
pub(super) fn visible_texts(doc: &Doc, id: Id) -> impl Iterator<Item = &str> {
    let end = doc.end(id);
    let mut i = id;
    std::iter::from_fn(move || {
        while i < end {
            let k = &doc.nodes[i];
            if k.junk {
                i = doc.end(i);
                continue;
            }
            i += 1;
            if let Kind::Text(t) = &k.kind {
                return Some(&**t);
            }
        }
        None
    })
}

/// Whether a text ends as a label's does: `:`, `...` or `…`.
fn ends_as_label(text: &str) -> bool {
    text.ends_with(':') || text.ends_with("...") || text.ends_with('…')
}

/// Whether the visible text of element `id` ends as a label's does, as
/// its folded text would ([`Pruner::folded`]: case and spacing do not
/// change the last character). False for an element of more nodes than
/// `folded` reads ([`fold_limit`]), so the walk is bounded as its is.
fn ends_like_label(doc: &Doc, id: Id) -> bool {
    if doc.end(id) - id > fold_limit(&doc.nodes[id]) {
        return false;
    }
    visible_texts(doc, id)
        .map(str::trim_end)
        .filter(|t| !t.is_empty())
        .last()
        .is_some_and(ends_as_label)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A label ends in `:`, `...` or `…` in its last text with words,
    /// wherever its tags split it; hidden text does not count, nor does an
    /// element of more nodes than `folded` reads.
    #[test]
    fn labels_end_as_their_folded_text_does() {
        // f: two characters over 50 nodes.
        let html = format!(
            "<body><p id=a>Related <b>stories</b>:  </p><p id=b>Read <i>more</i> …</p>\
             <p id=c>More..<span>.</span></p><p id=d>Price: <b>$5</b></p>\
             <p id=e>See also:<span hidden>secret</span></p><p id=f>x{}:</p></body>",
            "<span></span>".repeat(50)
        );
        let doc = Doc::parse(&html);
        let rules = Pruner::new(&doc);
        for (v, label) in [
            ("a", true),
            ("b", true),
            ("c", false),
            ("d", false),
            ("e", true),
            ("f", false),
        ] {
            let id = doc.with_id(v);
            assert_eq!(ends_like_label(&doc, id), label, "{v}");
            let folded = rules.folded(id).is_some_and(|t| ends_as_label(&t));
            assert_eq!(folded, label, "{v}: folded");
        }
    }

    /// An older page's `<font>` named as boilerplate goes as a `<span>` of
    /// that name does (a row of section links, a credit); a `<font>` that
    /// only sets the type of the story's prose stays.
    #[test]
    fn fonts_named_as_boilerplate_go_as_spans_do() {
        let prose = "Plain words of the story, long enough to be read as prose. ".repeat(6);
        let row = "<a href=/a>Front Page</a> | <a href=/b>National</a> | <a href=/c>Sport</a>";
        let html = format!(
            "<td><font class=leftnavi id=nav>{row}</font><span class=leftnavi id=span>{row}</span>\
             <font size=2 id=story>{prose}</font><font class=credit id=credit>Agency</font></td>"
        );
        let doc = Doc::parse(&html);
        let rules = Pruner::new(&doc);
        let at = |v| doc.with_id(v);
        assert!(rules.drops(at("span")));
        assert!(rules.drops(at("nav")));
        assert!(rules.drops(at("credit")));
        assert!(!rules.drops(at("story")));
    }

    /// A boilerplate name yields to a region that holds half the page's
    /// text, unless the region is a window over the page; a small region
    /// of the same name goes.
    #[test]
    fn boilerplate_names_yield_to_the_page() {
        let post =
            "<p>Plain words of the post, long enough to be read as prose here.</p>".repeat(8);
        let vendors =
            "<p>A vendor that stores cookies and reads them back later on.</p>".repeat(12);
        let html = format!(
            "<div class=commentOnSelection id=post>{post}</div>\
             <div class=comments id=few><p>Two comments.</p></div>\
             <div class=consent-manager id=cmp data-nosnippet>{vendors}</div>"
        );
        let doc = Doc::parse(&html);
        let at = |v| doc.with_id(v);
        let body = doc.nodes[doc.body()].text_len;
        assert!(
            doc.nodes[at("post")].text_len * 2 < body,
            "the post is under half"
        );
        assert!(
            doc.nodes[at("cmp")].text_len * 2 >= body,
            "the window is over half"
        );
        // With the window, neither holds half: both names stand.
        assert!(is_named_boilerplate(&doc, at("post")));
        assert!(is_named_boilerplate(&doc, at("few")));
        assert!(is_named_boilerplate(&doc, at("cmp")));

        let html = format!(
            "<div class=commentOnSelection id=post>{post}</div>\
             <div class=comments id=few><p>Two comments.</p></div>"
        );
        let doc = Doc::parse(&html);
        let at = |v| doc.with_id(v);
        assert!(!is_named_boilerplate(&doc, at("post")));
        assert!(is_named_boilerplate(&doc, at("few")));
        assert!(Pruner::new(&doc).drops(at("few")));
        assert!(!Pruner::new(&doc).drops(at("post")));
    }
}
