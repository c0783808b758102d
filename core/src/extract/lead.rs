//! The heading that leads the chosen content: the page's own headline
//! where its markup does not say which heading that is.
//!
//! Older pages, and pages saved without their `<head>`, often name
//! themselves nowhere a reader of the markup can trust: the `<title>` is
//! the site's or the section's ("Winona Daily News", "Feed Article |
//! Business"), or missing, and the only `<h1>` is the site's logo or a
//! teaser for another story. Their headline is set apart from the body
//! just above it, as an `<h2>` or `<h3>`, or as a block named for what it
//! is (`class="headline"`, `"contentheading"`, `"post-title"`,
//! `"story-header"`), and extraction, which chooses the body, leaves it
//! outside. So the headline is read from where it stands: the nearest of
//! the [`NEAR`] last headings that end before the chosen content's first
//! shown text that is a headline, with little text between (a byline, a
//! date, a caption: at most [`GAP_CHARS`]).
//!
//! Content that starts with a heading of its own is led by that one
//! (an `<h1>` to `<h3>` around its first shown text), and the story it
//! names starts after it; when that one is no headline (a blog's date
//! heading, "November 23, 2004", over the post's own title), by the
//! heading after it, with little text between. On web-classics this
//! names 12 more pages by their post's title ("Sandy Berger's Socks",
//! not a date or nothing), F1 summed -0.004 (the date line moves below
//! the title); pages without a title line 105 to 98 of 1,423.
//!
//! Not a headline: a heading of fewer than [`MIN_WORDS`] words or
//! [`MIN_CHARS`] characters (a section's label, "Latest News", a tool's
//! "E-mail"; passed over, so the heading above it may still lead), one
//! longer than a paragraph, one that is mostly links (a row of them, or
//! a teaser's title linking to another story; a blog post's title
//! linked to the post itself is its own), and one that shares no word
//! of substance with the story's first lines ("Share This Article",
//! "More in South Asia news" over a story that says neither). On
//! web-classics' news pages the reference's first line, their headline,
//! was missing from the first 600 characters of the text on 69 of 606
//! pages, and is on 37 with this (`title` has the measures of how the
//! heading is used: as the title line where the page names itself
//! nowhere or its `<title>` says it as a segment, and as the headline
//! under a line worded apart). Blocks named as a header (beside those
//! named as a headline, a title or a heading), and passing over a label
//! to the headline above it, took it from 40 to 37 (portal 9 to 6),
//! F1 summed +0.14 over 23 pages. An `<h4>` as well changed four pages,
//! F1 summed -0.003 for one headline more: not kept.
//!
//! One pass over the nodes before the content's first text; for each of
//! at most [`NEAR`] headings above the story, or two at its start, its
//! own nodes and the story's first [`BODY_CHARS`] bytes of at most
//! [`BODY_NODES`] nodes: linear in the page.

use url::Url;

use super::dom::{Doc, Id, Kind, Node};
use super::render::Drops;
use super::title::{heading_text, linked, words, HEADING_CHARS, KIN_CHARS};

/// The most visible text between the headline and the content's first
/// text: a byline, a date, a caption, a share bar's words.
const GAP_CHARS: usize = 250;

/// How many of the headings nearest above the story are weighed.
const NEAR: usize = 8;

/// The fewest words of a headline: shorter headings are section labels.
const MIN_WORDS: usize = 3;

/// The shortest headline (characters of text): a tool's label ("E-mail",
/// "A", "Latest News") is not one, and is passed over.
const MIN_CHARS: usize = 12;

/// How much of the content's text (bytes) is read for a word the
/// headline shares with it.
const BODY_CHARS: usize = 1500;

/// How many of the content's nodes are read for it, at most.
const BODY_NODES: usize = 4096;

/// Words of four letters or more that any text says ("Share This
/// Article" and a story share "this"), not counted as in common.
const COMMON: &[&str] = &[
    "about", "after", "also", "been", "could", "each", "from", "have", "here", "into", "just",
    "more", "most", "only", "other", "over", "said", "says", "should", "some", "such", "than",
    "that", "their", "them", "then", "there", "these", "they", "this", "those", "what", "when",
    "where", "which", "while", "will", "with", "would", "your",
];

/// The text of the heading that leads `root`'s content as `drops` shows
/// it (see the module header), one line.
pub fn lead(doc: &Doc, root: Id, drops: Drops, base: &Url) -> Option<String> {
    let first = first_text(doc, root, drops)?;
    // Content that starts with its own heading is led by it; the story
    // it names starts after it.
    // A date or a label first ("November 23, 2004" over a post's own
    // title) gives way to the heading after it, when little text lies
    // between.
    if let Some(h) = heading_of(doc, first) {
        return headline(doc, h, doc.end(h), drops, drops, base).or_else(|| {
            let next = next_heading(doc, doc.end(h), doc.end(root), drops)?;
            headline(doc, next, doc.end(next), drops, drops, base)
        });
    }
    // Else the nearest heading above the story that is a headline: a
    // label or a row of links nearer to it is passed over.
    before(doc, first)
        .into_iter()
        .rev()
        .find_map(|h| headline(doc, h, first, None, drops, base))
}

/// The text of the heading `id` when it is a headline of the story that
/// starts at node `story` (see the module header), as `shown` renders it.
fn headline(
    doc: &Doc,
    id: Id,
    story: Id,
    shown: Drops,
    drops: Drops,
    base: &Url,
) -> Option<String> {
    if !(MIN_CHARS..=HEADING_CHARS).contains(&doc.nodes[id].text_len) || linked(doc, id, base) {
        return None;
    }
    let text = heading_text(doc, id, base, shown);
    (words(&text).len() >= MIN_WORDS && kin(doc, story, drops, &text)).then_some(text)
}

/// The last [`NEAR`] headings that end before the text node `first` with
/// little text between (at most [`GAP_CHARS`]), in document order.
fn before(doc: &Doc, first: Id) -> Vec<Id> {
    // Each with the text read before its end.
    let mut near: Vec<(Id, usize)> = Vec::new();
    let mut read = 0;
    let mut id = 0;
    while id < first {
        let n = &doc.nodes[id];
        if n.junk {
            id = doc.end(id);
            continue;
        }
        // A heading's own nodes are read on: a block named as the
        // headline may hold the `<h1>` and the date beside it, and the
        // `<h1>` is nearer.
        if doc.end(id) <= first
            && (MIN_CHARS..=HEADING_CHARS).contains(&n.text_len)
            && headed(doc, id)
        {
            if near.len() == NEAR {
                near.remove(0);
            }
            near.push((id, read + n.text_len));
        }
        if matches!(n.kind, Kind::Text(_)) {
            read += n.text_len;
        }
        id += 1;
    }
    near.into_iter()
        .filter(|&(_, end)| read - end <= GAP_CHARS)
        .map(|(id, _)| id)
        .collect()
}

/// Whether `heading` shares a word of substance (four letters or more)
/// with the content's first [`BODY_CHARS`] characters of text, from its
/// first shown text node `first`: a headline names what the story tells
/// ("Gulf states urge peace with Iran" over "Gulf leaders have ended
/// their summit …"), a label names none of it ("Share This Article",
/// "More in South Asia news").
fn kin(doc: &Doc, first: Id, drops: Drops, heading: &str) -> bool {
    let want: Vec<String> = words(heading)
        .into_iter()
        .filter(|w| w.chars().count() >= KIN_CHARS && !COMMON.contains(&w.as_str()))
        .collect();
    if want.is_empty() {
        return false;
    }
    let mut read = 0;
    let mut id = first;
    // Read at most [`BODY_CHARS`] bytes of at most [`BODY_NODES`] nodes:
    // a story of empty elements, or one text node of megabytes, costs no
    // more than a story's first lines.
    let last = doc.nodes.len().min(first.saturating_add(BODY_NODES));
    while id < last && read < BODY_CHARS {
        let n = &doc.nodes[id];
        if n.junk || drops.is_some_and(|d| d(id)) {
            id = doc.end(id);
            continue;
        }
        if let Kind::Text(t) = &n.kind {
            let mut cut = t.len().min(BODY_CHARS - read);
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            read += cut.max(1);
            let found = t[..cut]
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.chars().count() >= KIN_CHARS)
                .any(|w| {
                    want.iter()
                        .any(|k| k.chars().eq(w.chars().flat_map(char::to_lowercase)))
                });
            if found {
                return true;
            }
        }
        id += 1;
    }
    false
}

/// The first text node of `root` that `drops` shows.
fn first_text(doc: &Doc, root: Id, drops: Drops) -> Option<Id> {
    let mut id = root + 1;
    let end = doc.end(root);
    while id < end {
        let n = &doc.nodes[id];
        if n.junk || drops.is_some_and(|d| d(id)) {
            id = doc.end(id);
            continue;
        }
        if matches!(n.kind, Kind::Text(_)) && n.text_len > 0 {
            return Some(id);
        }
        id += 1;
    }
    None
}

/// The first `<h1>` to `<h3>` from node `from` (before `end`) that
/// `drops` shows, when at most [`GAP_CHARS`] of text and [`BODY_NODES`]
/// nodes come before it.
fn next_heading(doc: &Doc, from: Id, end: Id, drops: Drops) -> Option<Id> {
    let mut read = 0;
    let mut id = from;
    let last = end.min(from.saturating_add(BODY_NODES));
    while id < last && read <= GAP_CHARS {
        let n = &doc.nodes[id];
        if n.junk || drops.is_some_and(|d| d(id)) {
            id = doc.end(id);
            continue;
        }
        if is_heading(n) {
            return Some(id);
        }
        if matches!(n.kind, Kind::Text(_)) {
            read += n.text_len;
        }
        id += 1;
    }
    None
}

/// Whether the node is an `<h1>` to `<h3>`: the levels a headline is set
/// in (an `<h4>` as well measured worse, see the module header).
fn is_heading(n: &Node) -> bool {
    matches!(n.tag(), Some("h1" | "h2" | "h3"))
}

/// The `<h1>` to `<h3>` the text node `id` is in.
fn heading_of(doc: &Doc, id: Id) -> Option<Id> {
    let mut at = doc.parent(id);
    while let Some(p) = at {
        if is_heading(&doc.nodes[p]) {
            return Some(p);
        }
        at = doc.parent(p);
    }
    None
}

/// Whether the element is set as a heading: `<h1>` to `<h3>`, or named
/// as a headline or a title by its class or id (not a subtitle).
fn headed(doc: &Doc, id: Id) -> bool {
    let n = &doc.nodes[id];
    if is_heading(n) {
        return true;
    }
    if n.tag().is_none() {
        return false;
    }
    let says = |v: &str, word: &str| {
        v.as_bytes()
            .windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
    };
    ["class", "id"].iter().any(|a| {
        n.attr(a).is_some_and(|v| {
            (says(v, "headline") || says(v, "title") || says(v, "heading") || says(v, "header"))
                && !says(v, "sub")
        })
    })
}

#[cfg(test)]
mod tests {
    use url::Url;

    use super::super::{extract, Options, Style};

    /// Paragraphs enough to be the chosen content, telling of `subject`.
    fn story(subject: &str) -> String {
        (1..=5)
            .map(|i| {
                format!(
                    "<p>{subject} was the talk of the town on Tuesday, and part {i} of \
                     the report says why, at length, with names, places, dates, and \
                     the figures the council gave, as a story does.</p>"
                )
            })
            .collect()
    }

    /// The first line of [`story`].
    fn story_start(subject: &str) -> String {
        let base = Url::parse("https://news.example.com/").unwrap();
        let page = extract(
            &story(subject),
            &base,
            &Options::new(false, Style::Markdown),
        );
        page.text.lines().next().unwrap_or("").to_string()
    }

    /// The first two lines of the markdown `web_fetch` returns.
    fn top(html: &str) -> Vec<String> {
        let base = Url::parse("https://news.example.com/2008/01/story.html").unwrap();
        extract(html, &base, &Options::new(false, Style::Markdown))
            .text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(2)
            .map(str::to_string)
            .collect()
    }

    /// A page saved without its head is named by the heading above its
    /// story, not by its site's logo or a teaser for another story.
    #[test]
    fn a_page_without_a_title_is_named_by_the_heading_above_its_story() {
        let page = format!(
            "<div id=top><h1><a href='https://news.example.com/'>Example News</a></h1></div>\
             <div id=more><h1><a href='https://news.example.com/2008/01/other.html'>\
             Mayor opens the new library downtown</a></h1></div>\
             <div id=main><h2>Council approves the harbour bridge</h2>\
             <p class=byline>By A. Writer, 12 January 2008</p>\
             <div class=story>{}</div></div>",
            story("The harbour bridge")
        );
        assert_eq!(top(&page)[0], "# Council approves the harbour bridge");
        // A block named as the headline is one too.
        let page = format!(
            "<table><tr><td class=headline>Council approves the harbour bridge</td></tr>\
             <tr><td>{}</td></tr></table>",
            story("The harbour bridge")
        );
        assert_eq!(top(&page)[0], "# Council approves the harbour bridge");
        // A blog's date heading over the post's own title gives way to
        // it.
        let page = format!(
            "<div class=post><h2 class=date-header>November 23, 2004</h2>\
             <h3>Pelling Pounds Pedant into Submission</h3>{}</div>",
            story("The pedant")
        );
        assert_eq!(
            top(&page),
            [
                "# Pelling Pounds Pedant into Submission",
                "## November 23, 2004"
            ]
        );
        // And one named as its header.
        let page = format!(
            "<div class=story-header>Council approves the harbour bridge</div>\
             <div class=story>{}</div>",
            story("The harbour bridge")
        );
        assert_eq!(top(&page)[0], "# Council approves the harbour bridge");
    }

    /// Under a `<title>` that names the site, the heading above the story
    /// follows as its headline, though they share no word; a box's label
    /// there is not one (it names nothing the story tells), nor a row of
    /// links, nor a heading far above the story.
    #[test]
    fn the_heading_above_the_story_follows_a_sites_name() {
        let page = format!(
            "<title>Daily Planet</title><div class=head><h2>Council approves the harbour \
             bridge</h2></div><article>{}</article>",
            story("The harbour bridge")
        );
        assert_eq!(
            top(&page),
            ["# Daily Planet", "## Council approves the harbour bridge"]
        );
        for label in [
            "<h3>Share This Article</h3>",
            "<h3><a href='/a'>Previous story</a> | <a href='/b'>Next story</a></h3>",
        ] {
            let page = format!(
                "<title>Daily Planet</title><div class=tools>{label}</div>\
                 <article>{}</article>",
                story("The harbour bridge")
            );
            assert_eq!(top(&page)[0], "# Daily Planet", "{label}");
            assert!(top(&page)[1].starts_with("The harbour bridge"), "{label}");
        }
        // A label nearer the story is passed over for the headline above.
        let page = format!(
            "<title>Daily Planet</title><div class=head><h2>Council approves the harbour \
             bridge</h2><h3>Share This Article</h3></div><article>{}</article>",
            story("The harbour bridge")
        );
        assert_eq!(top(&page)[1], "## Council approves the harbour bridge");
        let far = format!(
            "<title>Daily Planet</title><h2>Council approves the harbour bridge</h2>\
             <div class=notice>{}</div><article>{}</article>",
            "A long notice about cookies and the newsletter, in words. ".repeat(6),
            story("The harbour bridge")
        );
        assert!(!top(&far)[1].contains("Council approves"));
        // A teaser's heading, a link to another story, is not the page's
        // headline, though it shares a word with the line.
        let teaser = format!(
            "<title>Library news | Daily Planet</title><div class=more><h1>\
             <a href='https://news.example.com/2008/01/other.html'>Mayor opens the new \
             library downtown</a></h1></div><article>{}</article>",
            story("The library")
        );
        assert!(top(&teaser)[1].starts_with("The library"));
        // Nor the line said again with the time of its last update.
        let again = format!(
            "<title>Bridge vote passes | Daily Planet</title><div class=headline>Bridge vote \
             passes <span>Last update: 12 January 2008</span></div><article>{}</article>",
            story("The bridge vote")
        );
        assert_eq!(
            top(&again),
            ["# Bridge vote passes", &story_start("The bridge vote")]
        );
    }

    /// A `<title>` segment that the heading above the story says is the
    /// page's, not the site's: the line, said once.
    #[test]
    fn a_title_segment_the_heading_says_is_the_line() {
        let page = format!(
            "<title>San Bernardino County Sun - USC has imposing challenge</title>\
             <h2>USC has imposing challenge</h2>{}",
            story("The imposing challenge for USC")
        );
        let top = top(&page);
        assert_eq!(top[0], "# USC has imposing challenge");
        assert!(top[1].starts_with("The imposing challenge"));
    }
}
