//! Pure pieces of reading a provider's answer: rows from a JSON `results`
//! array, and the one-line rendering of a backend's error body.

use serde_json::Value;

use crate::messages::{SearchError, SearchRow};

/// Rows from the values of a `results` array. A row that is not an object
/// or whose `url` is not a string makes the answer malformed; a missing or
/// non-string title or description reads as "". `age`, `site_name` and
/// `extra_snippets` are kept only when reported (as a string, a string,
/// and an array of strings).
pub fn rows_from_results(results: &[Value]) -> Result<Vec<SearchRow>, SearchError> {
    results
        .iter()
        .map(|r| {
            let o = r.as_object().ok_or(SearchError::Malformed)?;
            let url = o
                .get("url")
                .and_then(Value::as_str)
                .ok_or(SearchError::Malformed)?;
            let text = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let opt = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
            let extra = o
                .get("extra_snippets")
                .and_then(Value::as_array)
                .and_then(|a| {
                    a.iter()
                        .map(|s| s.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                });
            Ok(SearchRow {
                title: text("title"),
                url: url.to_string(),
                description: text("description"),
                age: opt("age"),
                site_name: opt("site_name"),
                extra_snippets: extra,
            })
        })
        .collect()
}

/// A backend's error body as the message shows it: decoded lossily as
/// UTF-8, cut to at most `cut` bytes on a character boundary, then `\n`,
/// `\r`, `\t` as two-character escapes and every other control character
/// (and line separator or bidirectional control) as `\u{xx}` (lower-case
/// hex), by [`crate::messages::shown::escape_char`], so the message stays one line.
pub fn escape_error_body(body: &[u8], cut: usize) -> String {
    let text = String::from_utf8_lossy(body);
    let mut end = text.len().min(cut);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end);
    for c in text[..end].chars() {
        // The one escape every echoed value goes through; writing to a
        // String cannot fail.
        let _ = crate::messages::shown::escape_char(&mut out, c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_cuts() {
        assert_eq!(
            escape_error_body(b"a\nb\rc\td\x00e\x7f", 2000),
            "a\\nb\\rc\\td\\u{0}e\\u{7f}"
        );
        assert_eq!(escape_error_body("\u{85}x".as_bytes(), 2000), "\\u{85}x");
        assert_eq!(escape_error_body("ééé".as_bytes(), 5), "éé");
        assert_eq!(escape_error_body(b"\xffok", 2000), "\u{fffd}ok");
        assert_eq!(escape_error_body(&[b'x'; 3000], 2000).len(), 2000);
    }

    #[test]
    fn rows() {
        let v: Value = serde_json::json!([{"url": "https://a/", "title": 5, "age": "2d", "extra_snippets": ["s"]}]);
        let rows = rows_from_results(v.as_array().unwrap()).unwrap();
        assert_eq!(rows[0].title, "");
        assert_eq!(rows[0].age.as_deref(), Some("2d"));
        assert_eq!(
            rows[0].extra_snippets.as_deref(),
            Some(&["s".to_string()][..])
        );
        assert_eq!(
            rows_from_results(&[serde_json::json!({"url": 1})]),
            Err(SearchError::Malformed)
        );
        assert_eq!(
            rows_from_results(&[serde_json::json!("x")]),
            Err(SearchError::Malformed)
        );
    }
}
