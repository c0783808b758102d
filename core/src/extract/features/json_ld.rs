//! What a page declares about itself in JSON-LD: its schema.org types
//! (for the page row) and its long texts (a product's description, an
//! article's body, a question's answers), with the elements that show
//! them (for the candidate row). Bounded: 256 KiB of JSON-LD is parsed
//! per page, 4,096 values visited, 8 texts probed.

use super::super::dom::{Doc, Id, Kind};

/// The most JSON-LD a page has read, bytes: real JSON-LD is a few
/// kilobytes; a parsed megabyte is tens of megabytes of values.
pub(super) const JSON_LD_BYTES: usize = 256 * 1024;

/// The value of a JSON-LD script at `id`, while `left` bytes of the
/// page's allowance remain (each script read counts against it).
pub(super) fn json_ld(doc: &Doc, id: Id, left: &mut usize) -> Option<serde_json::Value> {
    let n = &doc.nodes[id];
    if n.tag() != Some("script")
        || !n
            .attr("type")
            .is_some_and(crate::extract::lexicon::is_json_ld_type)
        || *left == 0
    {
        return None;
    }
    let mut text = String::new();
    for k in doc.children(id) {
        if let Kind::Text(t) = &doc.nodes[k].kind {
            text.push_str(t);
        }
    }
    *left = left.saturating_sub(text.len());
    if *left == 0 {
        return None;
    }
    serde_json::from_str(&text).ok()
}

/// Calls `visit` on every object of a JSON-LD value, parents before
/// their children, until `visit` returns false or `budget` values have
/// been visited (serde_json caps the nesting). Returns false once
/// stopped.
fn each_object(
    v: &serde_json::Value,
    budget: &mut usize,
    visit: &mut dyn FnMut(&serde_json::Map<String, serde_json::Value>) -> bool,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    match v {
        serde_json::Value::Object(m) => {
            visit(m) && m.values().all(|x| each_object(x, budget, visit))
        }
        serde_json::Value::Array(a) => a.iter().all(|x| each_object(x, budget, visit)),
        _ => true,
    }
}

/// The `@type`s of a JSON-LD value, lower case (at most `budget` values
/// visited).
pub(super) fn json_types(v: &serde_json::Value, out: &mut Vec<String>, budget: &mut usize) {
    each_object(v, budget, &mut |m| {
        match m.get("@type") {
            Some(serde_json::Value::String(s)) => out.push(s.to_ascii_lowercase()),
            Some(serde_json::Value::Array(a)) => out.extend(
                a.iter()
                    .filter_map(serde_json::Value::as_str)
                    .map(str::to_ascii_lowercase),
            ),
            _ => {}
        }
        true
    });
}

/// The most probes of [`declared_text`] a page gives, and how many
/// letters and digits each is.
const MAX_PROBES: usize = 8; // the bits of a u8
const PROBE: usize = 30;

/// The letters and digits of `text`, lower case, at most `n` (entities,
/// quotes and spacing differ between a page's JSON-LD and its markup;
/// the words do not).
fn alnum(text: &str, n: usize) -> String {
    let mut out = String::new();
    alnum_into(text, n, &mut out);
    out
}

/// [`alnum`] into a buffer the caller keeps (it is asked for every long
/// text of a page that declares texts). ASCII text, most of it, is read
/// byte by byte: for ASCII, `is_alphanumeric` and `to_lowercase` are
/// their ASCII forms.
fn alnum_into(text: &str, n: usize, out: &mut String) {
    out.clear();
    if text.is_ascii() {
        out.extend(
            text.bytes()
                .filter(u8::is_ascii_alphanumeric)
                .take(n)
                .map(|b| char::from(b.to_ascii_lowercase())),
        );
        return;
    }
    out.extend(
        text.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .take(n),
    );
}

/// The schema.org types whose `name` is the page's own title (an
/// organisation's or a site's name is not).
const TITLED: &[&str] = &[
    "article",
    "newsarticle",
    "blogposting",
    "report",
    "techarticle",
    "scholarlyarticle",
    "product",
    "recipe",
    "event",
    "course",
    "howto",
    "qapage",
    "question",
    "discussionforumposting",
    "webpage",
    "itempage",
    "collectionpage",
    "faqpage",
];

/// The title the page declares in its JSON-LD: the first `headline`, or
/// else the first `name` of an object of a type in [`TITLED`]. Bounded as
/// every JSON-LD read is (256 KiB parsed, 4,096 values visited).
pub fn declared_headline(doc: &Doc) -> Option<String> {
    let mut json_left = JSON_LD_BYTES;
    let mut budget = 4096;
    let (mut headline, mut name) = (None, None);
    for id in 0..doc.nodes.len() {
        let Some(v) = json_ld(doc, id, &mut json_left) else {
            continue;
        };
        each_object(&v, &mut budget, &mut |m| {
            let text = |k: &str| {
                m.get(k)
                    .and_then(serde_json::Value::as_str)
                    .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
                    .filter(|s| !s.is_empty() && s.len() <= 4 * super::super::dom::TITLE_CHARS)
            };
            if headline.is_none() {
                headline = text("headline");
            }
            if name.is_none() {
                let titled = |t: &serde_json::Value| {
                    t.as_str()
                        .is_some_and(|t| TITLED.contains(&t.to_ascii_lowercase().as_str()))
                };
                let typed = match m.get("@type") {
                    Some(serde_json::Value::Array(a)) => a.iter().any(titled),
                    Some(t) => titled(t),
                    None => false,
                };
                if typed {
                    name = text("name");
                }
            }
            headline.is_none()
        });
        if headline.is_some() {
            break;
        }
    }
    headline.or(name)
}

/// Per node, the share of the texts the page declares in its JSON-LD
/// (a `description`, `articleBody` or `text` of 80 characters or more: a
/// product's description, an article's body, a question and its
/// answers) whose start it shows, of those shown anywhere. A page says
/// there what its content is; the element that shows all of it is the
/// likely root: a thread's container holds every answer, one post only
/// its own. Linear: each JSON-LD script is parsed once (256 KiB in all),
/// each text node long enough is read once, and each node is marked at
/// most once per text.
pub(super) fn declared_text(doc: &Doc) -> Vec<f64> {
    let mut probes: Vec<String> = Vec::new();
    let mut json_left = JSON_LD_BYTES;
    let mut budget = 4096;
    for id in 0..doc.nodes.len() {
        if let Some(v) = json_ld(doc, id, &mut json_left) {
            json_texts(&v, &mut probes, &mut budget);
        }
    }
    probes.sort_unstable();
    probes.dedup();
    let mut shown = vec![0u8; doc.nodes.len()];
    if probes.is_empty() {
        return vec![0.0; doc.nodes.len()];
    }
    let (mut found, mut own) = (0u8, String::new());
    for id in doc.body()..doc.end(doc.body()) {
        let n = &doc.nodes[id];
        let Kind::Text(t) = &n.kind else { continue };
        if n.junk || n.text_len < PROBE {
            continue;
        }
        alnum_into(t, usize::MAX, &mut own);
        for (k, p) in probes.iter().enumerate() {
            let bit = 1u8 << k;
            if !own.contains(p.as_str()) {
                continue;
            }
            found |= bit;
            let mut c = Some(id);
            while let Some(x) = c {
                if shown[x] & bit != 0 {
                    break;
                }
                shown[x] |= bit;
                c = doc.parent(x);
            }
        }
    }
    let all = f64::from(found.count_ones().max(1));
    shown
        .into_iter()
        .map(|m| f64::from(m.count_ones()) / all)
        .collect()
}

/// The probes of the long declared texts of a JSON-LD value (see
/// [`declared_text`]); at most `budget` values visited.
fn json_texts(v: &serde_json::Value, out: &mut Vec<String>, budget: &mut usize) {
    if out.len() >= MAX_PROBES {
        return;
    }
    each_object(v, budget, &mut |m| {
        for key in ["description", "articleBody", "text"] {
            if let Some(serde_json::Value::String(s)) = m.get(key) {
                // Descriptions may carry markup; its tags and
                // entities (`&amp;`) are not words.
                let mut plain = String::new();
                let (mut in_tag, mut entity) = (false, 0);
                for c in s.chars().take(2_000) {
                    if entity > 0 {
                        if (c.is_ascii_alphanumeric() || c == '#') && entity < 10 {
                            entity += 1;
                            continue;
                        }
                        entity = 0;
                        if c == ';' {
                            continue;
                        }
                    }
                    match c {
                        '<' => in_tag = true,
                        '>' if in_tag => {
                            in_tag = false;
                            plain.push(' ');
                        }
                        '&' if !in_tag => entity = 1,
                        _ if !in_tag => plain.push(c),
                        _ => {}
                    }
                }
                let probe = alnum(&plain, PROBE);
                if plain.chars().count() >= 80
                    && probe.chars().count() == PROBE
                    && out.len() < MAX_PROBES
                {
                    out.push(probe);
                }
            }
        }
        out.len() < MAX_PROBES
    });
}

#[cfg(test)]
mod tests {
    use super::super::id_of;
    use super::*;

    /// Objects are visited parents first, in document order, until the
    /// visitor stops or the budget of values runs out.
    #[test]
    fn each_object_visits_parents_first_and_stops() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"n":"a","x":[{"n":"b","y":{"n":"c"}},{"n":"d"}],"z":"s"}"#)
                .expect("json");
        let names = |budget: usize, stop_after: usize| {
            let (mut seen, mut budget) = (Vec::new(), budget);
            let done = each_object(&v, &mut budget, &mut |m| {
                seen.push(m["n"].as_str().unwrap_or("").to_string());
                seen.len() < stop_after
            });
            (seen.join(""), done)
        };
        assert_eq!(names(100, 100), ("abcd".to_string(), true));
        assert_eq!(names(100, 2), ("ab".to_string(), false));
        // The budget counts every value, strings too: the root, its "n",
        // the array, the first object; nothing under it.
        assert_eq!(names(4, 100), ("ab".to_string(), false));
    }

    /// The element that shows the JSON-LD description, and its
    /// ancestors, are marked; markup, entities and spacing in the
    /// description do not matter; short or absent texts mark nothing.
    #[test]
    fn declared_text_marks_what_shows_the_description() {
        let ld = r#"{"@context":"https://schema.org","@type":"Product","name":"Mug",
            "description":"<p>Hand-thrown   stoneware mug &amp; a folk glaze, fired twice in our own kiln for a glossy finish.</p>"}"#;
        let html = format!(
            "<script type='application/ld+json'>{ld}</script><div id=nav><a href=/>Home</a></div>\
             <div id=main><div id=d><p>Hand-thrown stoneware mug &amp; a folk glaze, fired twice \
             in our own kiln for a glossy finish.</p></div><div id=o><p>Reviews of people who \
             bought it, many of them.</p></div></div>"
        );
        let doc = Doc::parse(&html);
        let m = declared_text(&doc);
        for v in ["d", "main"] {
            assert_eq!(m[id_of(&doc, v)], 1.0, "{v}");
        }
        assert_eq!(m[doc.body()], 1.0);
        assert_eq!((m[id_of(&doc, "o")], m[id_of(&doc, "nav")]), (0.0, 0.0));

        let short = html.replace(
            "fired twice in our own kiln for a glossy finish.</p>\"}",
            "</p>\"}",
        );
        let absent = html.replace("Hand-thrown stoneware mug &amp; a folk", "A mug, glazed");
        for page in [short, absent] {
            let doc = Doc::parse(&page);
            assert!(declared_text(&doc).iter().all(|&v| v == 0.0), "{page}");
        }

        // A thread: the question and two answers; their container shows
        // all three, a post its own.
        let post = |n: u32| {
            format!("Post number {n} of this thread says something long enough to be read as a text of its own.")
        };
        let ld = format!(
            r#"{{"@type":"QAPage","mainEntity":{{"@type":"Question","text":"{}",
            "suggestedAnswer":[{{"@type":"Answer","text":"{}"}},{{"@type":"Answer","text":"{}"}}]}}}}"#,
            post(1),
            post(2),
            post(3)
        );
        let html = format!(
            "<script type=application/ld+json>{ld}</script><div id=t><div id=q><p>{}</p></div>\
             <div><p>{}</p></div><div><p>{}</p></div></div>",
            post(1),
            post(2),
            post(3)
        );
        let doc = Doc::parse(&html);
        let m = declared_text(&doc);
        assert_eq!(m[id_of(&doc, "t")], 1.0);
        assert!((m[id_of(&doc, "q")] - 1.0 / 3.0).abs() < 1e-9);
    }

    /// The ASCII reading of [`alnum`] is its character reading.
    #[test]
    fn alnum_reads_ascii_as_it_reads_characters() {
        let by_chars = |t: &str, n: usize| -> String {
            t.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .take(n)
                .collect()
        };
        let mut all_ascii: String = (0u8..128).map(char::from).collect();
        all_ascii.push_str(" Mixed CASE, digits 0-9 & marks!");
        for t in [all_ascii.as_str(), "", "Ünïcödé İstanbul ǅ Ⅻ ²", "  \t\n"] {
            for n in [0, 5, 30, usize::MAX] {
                assert_eq!(alnum(t, n), by_chars(t, n), "{t:?} {n}");
            }
        }
    }
}
