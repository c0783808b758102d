//! `web_search` arguments (contract §9): phase 1 checks the shape (any
//! failure is [`SearchArgError::Invalid`]), phase 2 the values, in the
//! contract's order.

use serde_json::{Map, Value};

use super::whole_non_negative;
use crate::messages::SearchArgError;

/// Recency filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Freshness {
    /// Past day (`pd`).
    Day,
    /// Past week (`pw`).
    Week,
    /// Past month (`pm`).
    Month,
    /// Past year (`py`).
    Year,
}

impl Freshness {
    /// The argument's spelling: `pd`, `pw`, `pm`, `py`.
    pub fn as_str(self) -> &'static str {
        match self {
            Freshness::Day => "pd",
            Freshness::Week => "pw",
            Freshness::Month => "pm",
            Freshness::Year => "py",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pd" => Freshness::Day,
            "pw" => Freshness::Week,
            "pm" => Freshness::Month,
            "py" => Freshness::Year,
            _ => return None,
        })
    }
}

/// Safe-search level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SafeSearch {
    /// `off`.
    Off,
    /// `moderate`.
    Moderate,
    /// `strict`.
    Strict,
}

impl SafeSearch {
    /// The argument's spelling: `off`, `moderate`, `strict`.
    pub fn as_str(self) -> &'static str {
        match self {
            SafeSearch::Off => "off",
            SafeSearch::Moderate => "moderate",
            SafeSearch::Strict => "strict",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "off" => SafeSearch::Off,
            "moderate" => SafeSearch::Moderate,
            "strict" => SafeSearch::Strict,
            _ => return None,
        })
    }
}

/// Accepted `web_search` arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchArgs {
    /// The query, verbatim.
    pub query: String,
    /// How many results, 1 to 20.
    pub count: Option<u32>,
    /// Recency filter.
    pub freshness: Option<Freshness>,
    /// Country code, as given.
    pub country: Option<String>,
    /// Search language, as given.
    pub search_lang: Option<String>,
    /// Safe-search level.
    pub safesearch: Option<SafeSearch>,
    /// Only these hostnames.
    pub include_domains: Option<Vec<String>>,
    /// Never these hostnames.
    pub exclude_domains: Option<Vec<String>>,
}

impl SearchArgs {
    /// The accepted arguments as a JSON object with only the fields present
    /// (what the gateway provider POSTs).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("query".into(), Value::from(self.query.as_str()));
        if let Some(c) = self.count {
            m.insert("count".into(), Value::from(c));
        }
        if let Some(f) = self.freshness {
            m.insert("freshness".into(), Value::from(f.as_str()));
        }
        if let Some(c) = &self.country {
            m.insert("country".into(), Value::from(c.as_str()));
        }
        if let Some(l) = &self.search_lang {
            m.insert("search_lang".into(), Value::from(l.as_str()));
        }
        if let Some(s) = self.safesearch {
            m.insert("safesearch".into(), Value::from(s.as_str()));
        }
        if let Some(d) = &self.include_domains {
            m.insert("include_domains".into(), Value::from(d.clone()));
        }
        if let Some(d) = &self.exclude_domains {
            m.insert("exclude_domains".into(), Value::from(d.clone()));
        }
        Value::Object(m)
    }
}

const FIELDS: [&str; 8] = [
    "query",
    "count",
    "freshness",
    "country",
    "search_lang",
    "safesearch",
    "include_domains",
    "exclude_domains",
];

/// Checks the arguments: phase 1, then phase 2 in the contract's order.
pub fn parse_search_args(args: &Value) -> Result<SearchArgs, SearchArgError> {
    let raw = shape(args).ok_or(SearchArgError::Invalid)?;
    values(raw)
}

/// Phase 1 output: every field of the right JSON type, values unchecked.
struct Shaped {
    query: String,
    count: Option<u64>,
    freshness: Option<Freshness>,
    country: Option<String>,
    search_lang: Option<String>,
    safesearch: Option<SafeSearch>,
    include_domains: Option<Vec<String>>,
    exclude_domains: Option<Vec<String>>,
}

/// `null` counts as absent for an optional field.
fn optional<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn opt_string(obj: &Map<String, Value>, key: &str) -> Option<Option<String>> {
    match optional(obj, key) {
        None => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    }
}

fn opt_strings(obj: &Map<String, Value>, key: &str) -> Option<Option<Vec<String>>> {
    match optional(obj, key) {
        None => Some(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(Some),
        Some(_) => None,
    }
}

fn shape(args: &Value) -> Option<Shaped> {
    let obj = args.as_object()?;
    if obj.keys().any(|k| !FIELDS.contains(&k.as_str())) {
        return None;
    }
    let query = obj.get("query")?.as_str()?.to_string();
    let count = match optional(obj, "count") {
        None => None,
        Some(Value::Number(n)) => Some(whole_non_negative(n)?),
        Some(_) => return None,
    };
    let freshness = match optional(obj, "freshness") {
        None => None,
        Some(v) => Some(Freshness::parse(v.as_str()?)?),
    };
    let safesearch = match optional(obj, "safesearch") {
        None => None,
        Some(v) => Some(SafeSearch::parse(v.as_str()?)?),
    };
    Some(Shaped {
        query,
        count,
        freshness,
        country: opt_string(obj, "country")?,
        search_lang: opt_string(obj, "search_lang")?,
        safesearch,
        include_domains: opt_strings(obj, "include_domains")?,
        exclude_domains: opt_strings(obj, "exclude_domains")?,
    })
}

fn is_blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

fn chars_over(s: &str, n: usize) -> bool {
    s.chars().nth(n).is_some()
}

fn valid_hostname(h: &str) -> bool {
    !is_blank(h)
        && !chars_over(h, 128)
        && !h
            .chars()
            .any(|c| c == '/' || c.is_whitespace() || c.is_control())
}

fn domains(
    list: &Option<Vec<String>>,
    too_many: SearchArgError,
    bad_host: SearchArgError,
) -> Result<(), SearchArgError> {
    if let Some(list) = list {
        if list.len() > 20 {
            return Err(too_many);
        }
        if !list.iter().all(|h| valid_hostname(h)) {
            return Err(bad_host);
        }
    }
    Ok(())
}

fn values(s: Shaped) -> Result<SearchArgs, SearchArgError> {
    if is_blank(&s.query) {
        return Err(SearchArgError::QueryEmpty);
    }
    if chars_over(&s.query, 400) {
        return Err(SearchArgError::QueryLong);
    }
    let count = match s.count {
        None => None,
        Some(c @ 1..=20) => Some(c as u32),
        Some(_) => return Err(SearchArgError::Count),
    };
    let length_ok = |v: &Option<String>| {
        v.as_deref()
            .is_none_or(|v| !is_blank(v) && !chars_over(v, 128))
    };
    if !length_ok(&s.country) {
        return Err(SearchArgError::Country);
    }
    if !length_ok(&s.search_lang) {
        return Err(SearchArgError::SearchLang);
    }
    domains(
        &s.include_domains,
        SearchArgError::IncludeLen,
        SearchArgError::IncludeHost,
    )?;
    domains(
        &s.exclude_domains,
        SearchArgError::ExcludeLen,
        SearchArgError::ExcludeHost,
    )?;
    Ok(SearchArgs {
        query: s.query,
        count,
        freshness: s.freshness,
        country: s.country,
        search_lang: s.search_lang,
        safesearch: s.safesearch,
        include_domains: s.include_domains,
        exclude_domains: s.exclude_domains,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use SearchArgError as E;

    fn err(v: Value) -> SearchArgError {
        parse_search_args(&v).unwrap_err()
    }

    #[test]
    fn phase_1_shape() {
        for v in [
            json!(null),
            json!("q"),
            json!([]),
            json!({}),
            json!({"query": null}),
            json!({"query": 1}),
            json!({"query": "q", "extra": 1}),
            json!({"query": "q", "count": -1}),
            json!({"query": "q", "count": 1.5}),
            json!({"query": "q", "count": "5"}),
            json!({"query": "q", "freshness": "pa"}),
            json!({"query": "q", "freshness": "PD"}),
            json!({"query": "q", "safesearch": "on"}),
            json!({"query": "q", "country": 1}),
            json!({"query": "q", "search_lang": []}),
            json!({"query": "q", "include_domains": "a.com"}),
            json!({"query": "q", "exclude_domains": [1]}),
        ] {
            assert_eq!(err(v.clone()), E::Invalid, "{v}");
        }
    }

    #[test]
    fn phase_1_comes_before_phase_2() {
        assert_eq!(err(json!({"query": "", "extra": 1})), E::Invalid);
        assert_eq!(
            err(json!({"query": "", "count": 0, "freshness": "x"})),
            E::Invalid
        );
    }

    #[test]
    fn nulls_are_absent() {
        let a = parse_search_args(&json!({"query": "q", "count": null, "freshness": null, "country": null,
            "search_lang": null, "safesearch": null, "include_domains": null, "exclude_domains": null}))
        .unwrap();
        assert_eq!(a.to_json(), json!({"query": "q"}));
    }

    #[test]
    fn query_rules() {
        assert_eq!(err(json!({"query": ""})), E::QueryEmpty);
        assert_eq!(err(json!({"query": " \t\n"})), E::QueryEmpty);
        assert_eq!(err(json!({"query": " ".repeat(500)})), E::QueryEmpty);
        assert!(parse_search_args(&json!({"query": "é".repeat(400)})).is_ok());
        assert_eq!(err(json!({"query": "é".repeat(401)})), E::QueryLong);
    }

    #[test]
    fn count_rules() {
        assert_eq!(err(json!({"query": "q", "count": 0})), E::Count);
        assert_eq!(err(json!({"query": "q", "count": 21})), E::Count);
        assert_eq!(err(json!({"query": "q", "count": 1e30})), E::Count);
        assert_eq!(
            parse_search_args(&json!({"query": "q", "count": 20.0}))
                .unwrap()
                .count,
            Some(20)
        );
        assert_eq!(
            parse_search_args(&json!({"query": "q", "count": 1}))
                .unwrap()
                .count,
            Some(1)
        );
    }

    #[test]
    fn country_and_language_rules() {
        assert_eq!(err(json!({"query": "q", "country": ""})), E::Country);
        assert_eq!(err(json!({"query": "q", "country": "  "})), E::Country);
        assert_eq!(
            err(json!({"query": "q", "country": "x".repeat(129)})),
            E::Country
        );
        assert!(parse_search_args(&json!({"query": "q", "country": "x".repeat(128)})).is_ok());
        assert_eq!(err(json!({"query": "q", "search_lang": ""})), E::SearchLang);
        assert_eq!(
            err(json!({"query": "q", "country": "", "search_lang": ""})),
            E::Country
        );
        assert_eq!(
            err(json!({"query": "q", "count": 0, "country": ""})),
            E::Count
        );
    }

    #[test]
    fn domain_rules_in_order() {
        let many: Vec<String> = (0..21).map(|i| format!("h{i}.example")).collect();
        let twenty: Vec<String> = many[..20].to_vec();
        assert!(parse_search_args(&json!({"query": "q", "include_domains": twenty})).is_ok());
        assert_eq!(
            err(json!({"query": "q", "include_domains": many})),
            E::IncludeLen
        );
        assert_eq!(
            err(json!({"query": "q", "exclude_domains": many})),
            E::ExcludeLen
        );
        for bad in [
            "",
            " ",
            "a/b",
            "a b",
            "a\u{7}b",
            "a\u{85}b",
            &"x".repeat(129),
        ] {
            assert_eq!(
                err(json!({"query": "q", "include_domains": [bad]})),
                E::IncludeHost,
                "{bad:?}"
            );
            assert_eq!(
                err(json!({"query": "q", "exclude_domains": [bad]})),
                E::ExcludeHost,
                "{bad:?}"
            );
        }
        // include before exclude; length before hostnames.
        assert_eq!(
            err(json!({"query": "q", "include_domains": [""], "exclude_domains": many})),
            E::IncludeHost
        );
        let mut bad_many = many.clone();
        bad_many[0] = String::new();
        assert_eq!(
            err(json!({"query": "q", "include_domains": bad_many})),
            E::IncludeLen
        );
    }

    #[test]
    fn accepted_arguments_serialize_as_given() {
        let a = parse_search_args(
            &json!({"exclude_domains": ["b.example"], "safesearch": "strict",
            "query": "rust", "count": 3.0, "freshness": "pw", "country": "DE", "search_lang": "de",
            "include_domains": ["a.example"]}),
        )
        .unwrap();
        assert_eq!(
            a.to_json(),
            json!({"query":"rust","count":3,"freshness":"pw","country":"DE","search_lang":"de",
                "safesearch":"strict","include_domains":["a.example"],"exclude_domains":["b.example"]})
        );
    }
}
