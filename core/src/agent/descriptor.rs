//! Tool descriptors: what a host shows a model for each tool — a name, the
//! catalog description and the argument schema (contract §1 and §9) — so
//! that it can bind the tools under its own names. A host may show its own
//! name and description; the tools' message prefixes (`web_fetch:`,
//! `web_search:`) never change with them, because the texts come from the
//! tools, not from the binding.

use serde_json::{json, Value};

use crate::messages::text::{FETCH_DESCRIPTION, SEARCH_DESCRIPTION};

/// Which tool a descriptor binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolKind {
    /// `web_fetch`.
    Fetch,
    /// `web_search`.
    Search,
}

impl ToolKind {
    /// The tool's own name.
    pub fn own_name(self) -> &'static str {
        match self {
            ToolKind::Fetch => "web_fetch",
            ToolKind::Search => "web_search",
        }
    }
}

/// One tool as a model sees it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolDescriptor {
    /// The tool bound.
    pub kind: ToolKind,
    /// The name shown (the tool's own name unless the host aliases it).
    pub name: String,
    /// The description shown (the contract's unless the host overrides it).
    pub description: String,
    /// A short human-readable title (`Fetch a web page`).
    pub title: String,
    /// The JSON schema of the arguments.
    pub schema: Value,
    /// The JSON schema of the structured result of an ok or soft call
    /// ([`crate::agent::ToolReply::structured`]).
    pub output_schema: Value,
}

impl ToolDescriptor {
    /// `web_fetch`: `url` required, `max_chars` 1..=`max_chars_limit`,
    /// `raw`; and `offset` when paging is on.
    pub(crate) fn fetch(max_chars_limit: usize, paging: bool) -> Self {
        let mut props = json!({
            "url": {"type": "string", "description": "The https URL of the page."},
            "max_chars": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_chars_limit,
                "description": "At most this many characters of text."
            },
            "raw": {"type": "boolean", "description": "Render the whole document instead of the main article."}
        });
        if paging {
            props["offset"] = json!({
                "type": "integer",
                "minimum": 0,
                "description": "Character offset into the page text, to continue a long page."
            });
        }
        ToolDescriptor {
            kind: ToolKind::Fetch,
            name: "web_fetch".into(),
            description: FETCH_DESCRIPTION.into(),
            title: "Fetch a web page".into(),
            // Said outright: the contract ignores other fields (§1 rule 4),
            // so a schema that refused them would not be the tool's.
            schema: json!({
                "type": "object",
                "properties": props,
                "required": ["url"],
                "additionalProperties": true
            }),
            output_schema: fetch_output_schema(),
        }
    }

    /// `web_search`: the eight fields of contract §9, `query` required;
    /// the `num_results` / `recency` / `site` aliases when enabled.
    pub(crate) fn search(aliases: bool) -> Self {
        let hostnames = json!({"type": "array", "items": {"type": "string"}, "maxItems": 20});
        let mut props = json!({
            "query": {"type": "string", "maxLength": 400, "description": "The search query."},
            "count": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many results."},
            "freshness": {"type": "string", "enum": ["pd", "pw", "pm", "py"], "description": "Only results from the past day, week, month or year."},
            "country": {"type": "string", "description": "Country code of the results."},
            "search_lang": {"type": "string", "description": "Language of the results."},
            "safesearch": {"type": "string", "enum": ["off", "moderate", "strict"], "description": "How strictly to filter adult content."},
            "include_domains": described(&hostnames, "Only results from these hosts."),
            "exclude_domains": described(&hostnames, "No results from these hosts.")
        });
        if aliases {
            props["num_results"] = json!({"type": "integer", "minimum": 1, "description": "How many results (at most 10)."});
            props["recency"] = json!({"type": "string", "enum": ["day", "week", "month", "year"], "description": "Only results from the past day, week, month or year."});
            props["site"] = json!({"type": "string", "description": "Only results from this domain, e.g. github.com."});
        }
        ToolDescriptor {
            kind: ToolKind::Search,
            name: "web_search".into(),
            description: SEARCH_DESCRIPTION.into(),
            title: "Search the web".into(),
            output_schema: search_output_schema(),
            schema: json!({
                "type": "object",
                "properties": props,
                "required": ["query"],
                "additionalProperties": false
            }),
        }
    }

    /// Shown under another name.
    pub(crate) fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Shown with another description.
    pub(crate) fn described(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }
}

fn described(schema: &Value, description: &str) -> Value {
    let mut s = schema.clone();
    s["description"] = description.into();
    s
}

/// The fields every structured result has: how the call ended and the
/// message id of its text (`fetch.ok`, `fetch.http.status`, …).
fn outcome_properties() -> Value {
    json!({
        "outcome": {"type": "string", "enum": ["ok", "soft"], "description": "ok, or soft: the text is a failure message."},
        "id": {"type": "string", "description": "The id of the result's text in the message table."}
    })
}

/// `web_fetch`'s structured result: the outcome, and on success the
/// page's metadata (contract §12, peer `001`).
fn fetch_output_schema() -> Value {
    let mut props = outcome_properties();
    for (k, v) in [
        (
            "url",
            json!({"type": "string", "description": "The URL as requested."}),
        ),
        (
            "offset",
            json!({"type": "integer", "minimum": 0, "description": "Where the returned text starts, in characters."}),
        ),
        (
            "next_offset",
            json!({"type": "integer", "minimum": 0, "description": "Where to continue, when text was left out (absent otherwise)."}),
        ),
        (
            "truncated",
            json!({"type": "boolean", "description": "Whether any of the page text was left out."}),
        ),
        (
            "returned_length",
            json!({"type": "integer", "minimum": 0, "description": "Characters of page text returned."}),
        ),
        (
            "total_length",
            json!({"type": "integer", "minimum": 0, "description": "The whole page text's length in characters."}),
        ),
        (
            "untrusted",
            untrusted(json!({
                "resolved_url": {"type": "string", "description": "The final URL, after redirects (the server's choice)."},
                "title": {"type": "string", "description": "The page's title, as the page gives it (absent when it gives none)."}
            })),
        ),
    ] {
        props[k] = v;
    }
    json!({
        "type": "object",
        "properties": props,
        "required": ["outcome", "id"],
        "additionalProperties": false
    })
}

/// The one field of a structured result that holds what a page or a
/// provider wrote: a host quotes it before a model sees it.
fn untrusted(properties: Value) -> Value {
    json!({
        "type": "object",
        "description": "Third-party text (from the page or the search provider), control characters escaped: quote it as untrusted before a model sees it, as the text result's envelope does.",
        "properties": properties,
        "additionalProperties": false
    })
}

fn search_output_schema() -> Value {
    let mut props = outcome_properties();
    props["query"] = json!({"type": "string", "description": "The query argument, verbatim."});
    props["untrusted"] = untrusted(json!({
        "results": {
            "type": "array",
            "description": "The provider's results, in its order.",
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "url": {"type": "string"},
                    "description": {"type": "string"},
                    "age": {"type": "string"},
                    "site_name": {"type": "string"},
                    "extra_snippets": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["title", "url", "description"],
                "additionalProperties": false
            }
        }
    }));
    json!({
        "type": "object",
        "properties": props,
        "required": ["outcome", "id"],
        "additionalProperties": false
    })
}
