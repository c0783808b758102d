//! Search options (contract §12, from peer `001`): the `num_results`,
//! `recency` and `site` argument aliases, and a numbered-list rendering of
//! the results as an alternative to the JSON text.

use serde_json::{Map, Value};

use crate::messages::text::NoResults;
use crate::messages::{OptionError, SearchRow};

/// The most results `num_results` may ask for.
pub const NUM_RESULTS_MAX: u64 = 10;

/// Rewrites the aliases into the contract's fields, before the contract's
/// own checks run (which refuse unknown fields). An alias never overrides
/// the field it stands for: when both are given, the contract's field
/// wins. Anything that is not an object is passed on untouched, for the
/// contract's checks to refuse.
pub fn apply_aliases(args: &Value) -> Result<Value, OptionError> {
    let Some(obj) = args.as_object() else {
        return Ok(args.clone());
    };
    let mut out: Map<String, Value> = obj.clone();
    let absent = |m: &Map<String, Value>, k: &str| m.get(k).is_none_or(Value::is_null);
    if let Some(v) = out.remove("num_results").filter(|v| !v.is_null()) {
        let n = v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 1.0)
                    .map(|f| f.min(u64::MAX as f64) as u64)
            })
            .filter(|&n| n >= 1)
            .ok_or(OptionError::NumResults)?;
        if absent(&out, "count") {
            out.insert("count".into(), Value::from(n.min(NUM_RESULTS_MAX)));
        }
    }
    if let Some(v) = out.remove("recency").filter(|v| !v.is_null()) {
        let f = match v.as_str() {
            Some("day") => "pd",
            Some("week") => "pw",
            Some("month") => "pm",
            Some("year") => "py",
            _ => return Err(OptionError::Recency),
        };
        if absent(&out, "freshness") {
            out.insert("freshness".into(), Value::from(f));
        }
    }
    if let Some(v) = out.remove("site").filter(|v| !v.is_null()) {
        let site = v
            .as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .ok_or(OptionError::Site)?;
        match out.get_mut("include_domains") {
            Some(Value::Array(list)) => list.push(Value::from(site)),
            Some(other) if !other.is_null() => {} // refused by the contract's checks
            _ => {
                out.insert("include_domains".into(), Value::from(vec![site]));
            }
        }
    }
    Ok(Value::Object(out))
}

/// Results as a numbered list, three lines each (title, URL, snippet; a
/// row without a snippet has two), blank lines between;
/// the [`NoResults`] text when empty.
pub fn numbered(query: &str, rows: &[SearchRow]) -> String {
    if rows.is_empty() {
        return NoResults(query).to_string();
    }
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let mut item = format!("{}. {}\n   {}", i + 1, one_line(&r.title), one_line(&r.url));
            let snippet = one_line(&r.description);
            if !snippet.is_empty() {
                item.push_str("\n   ");
                item.push_str(&snippet);
            }
            item
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// One row as data, with the keys and the optional fields of the
/// contract's JSON (§9): what `structuredContent` carries.
pub fn row_value(r: &SearchRow) -> Value {
    let mut m = Map::new();
    m.insert("title".into(), r.title.as_str().into());
    m.insert("url".into(), r.url.as_str().into());
    m.insert("description".into(), r.description.as_str().into());
    if let Some(age) = &r.age {
        m.insert("age".into(), age.as_str().into());
    }
    if let Some(site) = &r.site_name {
        m.insert("site_name".into(), site.as_str().into());
    }
    if let Some(extra) = &r.extra_snippets {
        m.insert("extra_snippets".into(), extra.clone().into());
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aliases() {
        let a = apply_aliases(
            &json!({"query": "q", "num_results": 50, "recency": "week", "site": "github.com"}),
        )
        .unwrap();
        assert_eq!(
            a,
            json!({"query": "q", "count": 10, "freshness": "pw", "include_domains": ["github.com"]})
        );
        let a = apply_aliases(&json!({"query": "q", "num_results": 3.0, "count": 7})).unwrap();
        assert_eq!(a, json!({"query": "q", "count": 7}));
        let a = apply_aliases(
            &json!({"query": "q", "site": "a.example", "include_domains": ["b.example"]}),
        )
        .unwrap();
        assert_eq!(a["include_domains"], json!(["b.example", "a.example"]));
        assert_eq!(
            apply_aliases(&json!({"query": "q", "num_results": 0})),
            Err(OptionError::NumResults)
        );
        assert_eq!(
            apply_aliases(&json!({"query": "q", "num_results": 2.5})),
            Err(OptionError::NumResults)
        );
        assert_eq!(
            apply_aliases(&json!({"query": "q", "recency": "hour"})),
            Err(OptionError::Recency)
        );
        assert_eq!(
            apply_aliases(&json!({"query": "q", "site": " "})),
            Err(OptionError::Site)
        );
        assert_eq!(
            apply_aliases(&json!({"query": "q", "num_results": null})).unwrap(),
            json!({"query": "q"})
        );
        assert_eq!(apply_aliases(&json!([1])).unwrap(), json!([1]));
    }

    #[test]
    fn numbered_list() {
        let rows = vec![
            SearchRow {
                title: "One".into(),
                url: "https://1.example/".into(),
                description: "first\nsnippet".into(),
                ..Default::default()
            },
            SearchRow {
                title: "Two".into(),
                url: "https://2.example/".into(),
                description: "".into(),
                ..Default::default()
            },
        ];
        assert_eq!(
            numbered("q", &rows),
            "1. One\n   https://1.example/\n   first snippet\n\n2. Two\n   https://2.example/"
        );
        assert_eq!(numbered("rust", &[]), NoResults("rust").to_string());
    }
}
