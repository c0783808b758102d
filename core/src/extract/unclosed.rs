//! A `<title>` that is never closed.
//!
//! Why: the HTML standard's tokenizer reads a title's text up to
//! `</title>` (RCDATA, §13.2.5.2); when none follows, the rest of the
//! document is the title's text and the page has no body text at all. Old
//! pages, and captures cut off in the middle of their head, have that
//! (8 of web-classics' 1,423 pages: the text of each is all there, after a
//! `<title>` whose end tag was lost, or misspelt as `</titlevalue=…>`,
//! which is not one). The parsers the readers of their time
//! used (libxml2's, so lxml's and every reader built on it) end such a
//! title at the next tag and read the page.
//!
//! How: the page is parsed as the standard says. Only when that title
//! swallowed the document ([`swallowed`]: its text holds markup, and no
//! other text exists) is the page parsed once more, with the title closed
//! ([`close_title`]): at the end of its first line, or at the next tag if
//! that comes first. What lies between that line and the next tag (in
//! these pages, the rest of a script whose start was lost with the title's
//! end) is put in a `<script>` of its own, which no reader shows. A page
//! whose titles are closed is never parsed twice.

use super::dom::{Kind, Node};

/// Whether a parse shows a `<title>` that ran to the end of the document:
/// a title's text holds markup (a `<` before a letter, `/` or `!`), and
/// no text outside the titles holds anything but whitespace.
pub(super) fn swallowed(nodes: &[Node]) -> bool {
    let mut markup = false;
    for n in nodes {
        let Kind::Text(s) = &n.kind else {
            continue;
        };
        let in_title = nodes
            .get(n.parent as usize)
            .is_some_and(|p| matches!(&p.kind, Kind::Element(name) if &**name == "title"));
        if in_title {
            markup |= s.as_bytes().windows(2).any(|w| {
                w[0] == b'<' && (w[1].is_ascii_alphabetic() || matches!(w[1], b'/' | b'!'))
            });
        } else if !s.trim().is_empty() {
            return false;
        }
    }
    markup
}

/// `html` with its unclosed title closed: the last `<title` start tag
/// after the last `</title` (or in the whole page, when there is none),
/// ended at its first line break or before the next tag, whichever comes
/// first, and the rest of that line up to the tag wrapped in a script.
/// `None` when the page has no such title.
pub(super) fn close_title(html: &str) -> Option<String> {
    let bytes = html.as_bytes();
    let from = last_tag(bytes, b"/title").map_or(0, |i| i + 1);
    let open = first_tag(bytes, from, b"title")?;
    // The start tag's end.
    let text = open + memchr::memchr(b'>', &bytes[open..])? + 1;
    let next = first_any_tag(bytes, text).unwrap_or(bytes.len());
    let line = memchr::memchr2(b'\n', b'\r', &bytes[text..next]).map_or(next, |k| text + k);
    let mut out = String::with_capacity(html.len() + 32);
    out.push_str(&html[..line]);
    out.push_str("</title>");
    if line < next {
        out.push_str("<script>");
        out.push_str(&html[line..next]);
        out.push_str("</script>");
    }
    out.push_str(&html[next..]);
    Some(out)
}

/// Whether `name` (lowercase ASCII) is at `at`, in any case, followed by
/// what may end a tag name.
fn tag_at(bytes: &[u8], at: usize, name: &[u8]) -> bool {
    let end = at + name.len();
    end <= bytes.len()
        && bytes[at..end].eq_ignore_ascii_case(name)
        && bytes
            .get(end)
            .is_none_or(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'))
}

/// The first `<name` tag at or after `from` (the index of its `<`).
fn first_tag(bytes: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'<', &bytes[from..])
        .map(|k| from + k)
        .find(|&i| tag_at(bytes, i + 1, name))
}

/// The last `<name` tag (the index of its `<`).
fn last_tag(bytes: &[u8], name: &[u8]) -> Option<usize> {
    memchr::memrchr_iter(b'<', bytes).find(|&i| tag_at(bytes, i + 1, name))
}

/// The first `<` at or after `from` that may open a tag, an end tag, a
/// comment or a doctype.
fn first_any_tag(bytes: &[u8], from: usize) -> Option<usize> {
    memchr::memchr_iter(b'<', &bytes[from..])
        .map(|k| from + k)
        .find(|&i| {
            bytes
                .get(i + 1)
                .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'/' | b'!'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::dom::Doc;
    use crate::extract::sink;
    use crate::extract::work::Work;

    /// The nodes as the standard's parser makes them (no second parse).
    fn parsed(html: &str) -> Vec<Node> {
        sink::parse_with(html, sink::Limits::for_len(html.len()), &Work::unbounded()).0
    }

    fn text(doc: &Doc) -> String {
        doc.nodes
            .iter()
            .filter_map(|n| match &n.kind {
                Kind::Text(s) => Some(s.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_closed_title_is_left_alone() {
        let page = "<title>News</title><p>Body text.</p>";
        assert!(!swallowed(&parsed(page)));
        assert_eq!(close_title(page), None);
        // A title that holds a `<` but is closed swallowed nothing.
        let page = "<title>a <b> c</title><p>Body text.</p>";
        assert!(!swallowed(&parsed(page)));
    }

    #[test]
    fn a_title_never_closed_ends_at_its_first_line() {
        let page = "<html><head><title>Golfer Wins Title(The Times)ntById(\"font\");\n\
                    obj.style.fontSize = 1;\n}\n//-->\n</script>\n</head>\
                    <body><p>HONOLULU _ The golfer won on Sunday.</p></body></html>";
        let swallowing = parsed(page);
        assert!(swallowed(&swallowing));
        assert!(!swallowing
            .iter()
            .any(|n| matches!(&n.kind, Kind::Element(e) if &**e == "p")));
        let closed = close_title(page).expect("an unclosed title");
        assert!(closed.starts_with(
            "<html><head><title>Golfer Wins Title(The Times)ntById(\"font\");</title><script>\n"
        ));
        assert!(!swallowed(&parsed(&closed)));
        // The document as extraction reads it: the body is there, the
        // script's remains are not text.
        let doc = Doc::parse(page);
        let (title, body) = (doc.title.clone(), text(&doc));
        assert_eq!(title, "Golfer Wins Title(The Times)ntById(\"font\");");
        assert!(
            body.contains("HONOLULU _ The golfer won on Sunday."),
            "{body}"
        );
        assert!(!body.contains("fontSize"), "{body}");
    }

    #[test]
    fn a_title_on_one_line_ends_at_the_next_tag() {
        let page = "<TITLE>Gale to drive Nationwide<META name=x><body><p>Text.</p>";
        assert_eq!(
            close_title(page).as_deref(),
            Some("<TITLE>Gale to drive Nationwide</title><META name=x><body><p>Text.</p>")
        );
        // Only a title after the last end tag is closed.
        let page = "<title>a</title><title>b\n<p>Text.";
        assert_eq!(
            close_title(page).as_deref(),
            Some("<title>a</title><title>b</title><script>\n</script><p>Text.")
        );
    }
}
