//! Approval rules (contract §12, from peer `001`): when a person approves a
//! call, the host may save a rule so that similar calls are not asked
//! about again.
//!
//! A fetch approval widens to its origin and no further: the saved rule
//! is `web_fetch(<origin>/*)` and matches a URL only when scheme, host and
//! port are *exactly* the origin's. A string prefix (`origin*`) would also
//! match `https://host.attacker.example`, so matching compares parsed
//! origins, never prefixes. `max_chars` and `offset` never reach a rule: a
//! rule pinned to one offset would not match the next page. A search
//! approval covers the whole tool (`web_search({})`): every search is a
//! snippet-level query, nothing below it is worth telling apart.

use serde_json::Value;
use url::Url;

/// A saved approval.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApprovalRule {
    /// Any fetch of a URL with exactly this origin.
    FetchOrigin {
        /// `scheme://host[:port]`, as the URL parser serializes it.
        origin: String,
    },
    /// Any search.
    SearchAll,
}

/// The origin of an absolute http(s) URL; `None` for anything else.
fn origin_of(url: &str) -> Option<String> {
    let u = Url::parse(url).ok()?;
    if !matches!(u.scheme(), "https" | "http") || u.host_str().is_none() {
        return None;
    }
    match u.origin() {
        o @ url::Origin::Tuple(..) => Some(o.ascii_serialization()),
        url::Origin::Opaque(_) => None,
    }
}

impl ApprovalRule {
    /// The rule an approved call saves: `tool` is the tool's own name
    /// (`web_fetch`, `web_search`), `args` what the model sent. `None`
    /// when the call cannot make a rule (no URL, an unknown tool).
    pub fn from_approved(tool: &str, args: &Value) -> Option<Self> {
        match tool {
            "web_fetch" => Some(ApprovalRule::FetchOrigin {
                origin: origin_of(args.get("url")?.as_str()?)?,
            }),
            "web_search" => Some(ApprovalRule::SearchAll),
            _ => None,
        }
    }

    /// Whether this rule approves a call.
    pub fn matches(&self, tool: &str, args: &Value) -> bool {
        match self {
            ApprovalRule::SearchAll => tool == "web_search",
            ApprovalRule::FetchOrigin { origin } => {
                tool == "web_fetch"
                    && args
                        .get("url")
                        .and_then(Value::as_str)
                        .and_then(origin_of)
                        .is_some_and(|o| &o == origin)
            }
        }
    }

    /// The saved form: `web_fetch(https://host/*)` or `web_search({})`.
    pub fn to_rule_string(&self) -> String {
        match self {
            ApprovalRule::FetchOrigin { origin } => format!("web_fetch({origin}/*)"),
            ApprovalRule::SearchAll => "web_search({})".to_string(),
        }
    }

    /// Reads a saved form back; anything else (a bare prefix such as
    /// `web_fetch(https://host*)`, a path below the origin) is refused
    /// rather than read as something wider.
    pub fn parse(rule: &str) -> Option<Self> {
        if rule == "web_search({})" {
            return Some(ApprovalRule::SearchAll);
        }
        let inner = rule.strip_prefix("web_fetch(")?.strip_suffix("/*)")?;
        let origin = origin_of(inner)?;
        // The saved origin must be the exact serialization, nothing more.
        (origin == inner).then_some(ApprovalRule::FetchOrigin { origin })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fetch_rules_widen_to_the_origin_only() {
        let r = ApprovalRule::from_approved(
            "web_fetch",
            &json!({"url": "https://Docs.Example.com/a/b?q=1", "max_chars": 10, "offset": 500}),
        )
        .unwrap();
        assert_eq!(r.to_rule_string(), "web_fetch(https://docs.example.com/*)");
        let ok = |u: &str| r.matches("web_fetch", &json!({ "url": u }));
        assert!(ok("https://docs.example.com/other"));
        assert!(ok("https://docs.example.com:443/x"));
        assert!(!ok("https://docs.example.com.attacker.example/"));
        assert!(!ok("https://docs.example.community/"));
        assert!(!ok("http://docs.example.com/"));
        assert!(!ok("https://docs.example.com:8443/"));
        assert!(!ok("https://evil.docs.example.com/"));
        assert!(!r.matches("web_search", &json!({"query": "x"})));
        assert_eq!(ApprovalRule::parse(&r.to_rule_string()), Some(r));
        assert_eq!(
            ApprovalRule::parse("web_fetch(https://docs.example.com*)"),
            None
        );
        assert_eq!(
            ApprovalRule::parse("web_fetch(https://docs.example.com/a/*)"),
            None
        );
    }

    #[test]
    fn search_approval_covers_the_tool() {
        let r =
            ApprovalRule::from_approved("web_search", &json!({"query": "q", "count": 3})).unwrap();
        assert_eq!(r.to_rule_string(), "web_search({})");
        assert!(r.matches("web_search", &json!({"query": "anything"})));
        assert!(!r.matches("web_fetch", &json!({"url": "https://a.example/"})));
        assert_eq!(
            ApprovalRule::from_approved("web_fetch", &json!({"url": "file:///etc/passwd"})),
            None
        );
    }
}
