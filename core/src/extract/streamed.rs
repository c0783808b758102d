//! Streamed segments: where a page's late parts belong.
//!
//! React's server renderer (Next.js and others) sends a page's slow parts
//! last. Each comes as `<div hidden id="S:2e">…</div>` at the end of the
//! body, and a `<template id="P:2e">` marks where it belongs. A script
//! (`$RS("S:2e","P:2e")`) then moves the segment's children into the
//! placeholder's place. The number is the segment's, in hexadecimal, the
//! same on both sides. A product's specifications or a thread's replies
//! can arrive this way.
//!
//! No script runs here, so the parser's tree is put in order as the
//! browser's would be: [`placements`] pairs each placeholder with its
//! segment, and the sink's walk into document order (`sink`) puts the
//! segment's children where the placeholder was. A segment without a
//! placeholder (a Suspense boundary's, filled by `$RC`) stays where it is
//! and is still read: `dom` does not drop it as hidden.
//!
//! The pairing reads ids only. A hostile page can pair anything with
//! anything, but the walk places every node at most once, so the worst
//! it can do is move its own text around.

use std::collections::HashMap;

use super::dom::Node;

/// Whether `id` names a streamed segment: `S:` and a number in lowercase
/// hexadecimal (React writes `S:0`, …, `S:9`, `S:a`, …, `S:2e`, …).
pub fn is_segment_id(id: &str) -> bool {
    number(id, "S:").is_some()
}

/// The hexadecimal number after `prefix` in `id`, if that is all of it.
fn number<'a>(id: &'a str, prefix: &str) -> Option<&'a str> {
    id.strip_prefix(prefix).filter(|d| {
        !d.is_empty()
            && d.bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'a'..=b'f'))
    })
}

/// For each placeholder (`<template id="P:n">`) with a segment (`<div
/// hidden id="S:n">`) of the same number, that segment, both by index
/// into `nodes`; `templates` are the indexes of the page's templates.
/// The first segment of each id counts; of two placeholders of one id,
/// the walk fills the first it meets. `None` when the page has no pair
/// (almost every page): the walk then has nothing to look up, and a page
/// without a placeholder costs no more than a look at its templates.
pub fn placements(
    nodes: &[Node],
    templates: impl IntoIterator<Item = usize>,
) -> Option<HashMap<u32, u32>> {
    let placeholders: Vec<(&str, u32)> = templates
        .into_iter()
        .filter_map(|i| {
            let k = number(nodes.get(i)?.attr("id")?, "P:")?;
            // Nodes past u32 cannot exist: the sink numbers them in u32.
            Some((k, u32::try_from(i).ok()?))
        })
        .collect();
    if placeholders.is_empty() {
        return None;
    }
    let mut segments: HashMap<&str, u32> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.tag() != Some("div") || n.attr("hidden").is_none() {
            continue;
        }
        if let (Some(k), Ok(i)) = (
            n.attr("id").and_then(|id| number(id, "S:")),
            u32::try_from(i),
        ) {
            segments.entry(k).or_insert(i);
        }
    }
    let mut pairs = HashMap::new();
    for (k, p) in placeholders {
        if let Some(&s) = segments.get(k) {
            pairs.entry(p).or_insert(s);
        }
    }
    (!pairs.is_empty()).then_some(pairs)
}

#[cfg(test)]
mod tests {
    use super::super::dom::{Doc, Kind};
    use super::*;

    /// The visible text of `html`, in document order.
    fn read(html: &str) -> Vec<String> {
        let doc = Doc::parse(html);
        doc.nodes
            .iter()
            .filter(|n| !n.junk)
            .filter_map(|n| match &n.kind {
                Kind::Text(t) if !t.trim().is_empty() => Some(t.trim().to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn segments_take_their_placeholders_place() {
        let html = "<div id=main><p>Chair</p><template id=P:a></template><p>Reviews</p></div>\
                    <footer>Footer</footer>\
                    <div hidden id=S:a><h2>Specifications</h2><template id=P:b></template></div>\
                    <div hidden id=S:b><p>Seat: 20 in</p></div>";
        assert_eq!(
            read(html),
            [
                "Chair",
                "Specifications",
                "Seat: 20 in",
                "Reviews",
                "Footer"
            ]
        );
        let doc = Doc::parse(html);
        let main = Some(doc.with_id("main"));
        let spec = doc.nodes.iter().position(|n| n.tag() == Some("h2"));
        assert_eq!(doc.parent(spec.expect("h2")), main);
        // The shells left behind and the placeholders are gone.
        assert!(doc.nodes.iter().all(|n| n.tag() != Some("template")));
        assert!(!doc
            .nodes
            .iter()
            .any(|n| n.attr("id").is_some_and(is_segment_id)));
    }

    #[test]
    fn unpaired_segments_and_lookalikes_stay_where_they_are() {
        // No placeholder (a boundary's segment): read in place. A
        // placeholder without its segment, or a segment named in
        // upper case, or a placeholder that is not a template: nothing
        // moves (and the look-alike segment is hidden, so not read).
        let html = "<p>One</p><template id=P:1></template><div id=P:2></div>\
                    <template id=P:3></template><p>Two</p>\
                    <div hidden id=S:2><p>Late</p></div><div hidden id=S:3A><p>Odd</p></div>\
                    <div hidden id=S:4><p>Boundary</p></div>";
        assert_eq!(read(html), ["One", "Two", "Late", "Boundary"]);
    }

    #[test]
    fn hostile_pairings_place_every_node_once() {
        // A segment holding its own placeholder, two segments holding each
        // other's, a placeholder after its segment and duplicate ids.
        let html = "<p>Start</p><template id=P:1></template>\
                    <div hidden id=S:1><p>A</p><template id=P:1></template><template id=P:2></template></div>\
                    <div hidden id=S:2><p>B</p><template id=P:1></template></div>\
                    <div hidden id=S:2><p>C</p></div><template id=P:2></template>";
        let mut text = read(html);
        text.sort();
        assert_eq!(text, ["A", "B", "C", "Start"]);
    }

    #[test]
    fn segment_ids_are_s_and_a_hex_number() {
        for (id, segment) in [
            ("S:0", true),
            ("S:9", true),
            ("S:1f", true),
            ("S:2e", true),
            ("S:", false),
            ("S:2E", false),
            ("S:g1", false),
            ("P:2e", false),
            ("s:2e", false),
            ("S:2e ", false),
            ("xS:2e", false),
        ] {
            assert_eq!(is_segment_id(id), segment, "{id}");
        }
    }
}
