//! The host's domain allow and deny lists for `web_fetch` (an option from
//! the peer systems, contract §12; empty, so inert, by default).
//!
//! Checked with the admission rules, so on the first URL *and* on every
//! redirect hop: a refused first URL is a hard error, a refused hop a
//! redirect refusal. A listed domain covers itself and its subdomains on a
//! label boundary: `example.com` covers `a.example.com`, never
//! `badexample.com` or `example.com.attacker.net`. Deny wins over allow;
//! a non-empty allow list refuses every host it does not cover.

use crate::messages::SetupError;

/// Domain allow and deny lists, set by the host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainRules {
    allow: Vec<String>,
    deny: Vec<String>,
}

/// A listed domain in the form hosts are compared in: lower case, no
/// trailing dot, IDNs in their ASCII (punycode) form as URLs carry them.
fn normalize(domain: &str) -> Option<String> {
    let d = domain.trim().trim_end_matches('.');
    let d = d.strip_prefix("*.").unwrap_or(d);
    if d.is_empty() {
        return None;
    }
    // The URL parser's own host normalization, so the list and the URL
    // agree on IDNs, case and full-width dots.
    let parsed = url::Url::parse(&format!("https://{d}/")).ok()?;
    match parsed.host()? {
        url::Host::Domain(h) => Some(h.trim_end_matches('.').to_string()),
        _ => None,
    }
}

fn covers(domain: &str, host: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
}

impl DomainRules {
    /// Lists from the host's configuration. A domain that cannot be a
    /// host name is reported back, never silently dropped.
    pub fn new<A, D>(allow: A, deny: D) -> Result<Self, SetupError>
    where
        A: IntoIterator,
        A::Item: AsRef<str>,
        D: IntoIterator,
        D::Item: AsRef<str>,
    {
        let parse = |items: Vec<String>| -> Result<Vec<String>, SetupError> {
            items
                .iter()
                .map(|d| normalize(d).ok_or_else(|| SetupError::Domain(d.clone())))
                .collect()
        };
        Ok(DomainRules {
            allow: parse(allow.into_iter().map(|d| d.as_ref().to_string()).collect())?,
            deny: parse(deny.into_iter().map(|d| d.as_ref().to_string()).collect())?,
        })
    }

    /// True when no list is set (the default).
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    /// Whether a URL host (as the parser serializes it) may be fetched.
    pub fn allows(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.');
        if self.deny.iter().any(|d| covers(d, host)) {
            return false;
        }
        self.allow.is_empty() || self.allow.iter().any(|d| covers(d, host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_boundaries() {
        let r = DomainRules::new(["Example.COM."], ["bad.example.com"]).unwrap();
        assert!(r.allows("example.com"));
        assert!(r.allows("a.example.com"));
        assert!(r.allows("example.com."));
        assert!(!r.allows("badexample.com"));
        assert!(!r.allows("example.com.attacker.net"));
        assert!(!r.allows("bad.example.com"));
        assert!(!r.allows("x.bad.example.com"));
        assert!(!r.allows("other.org"));
    }

    #[test]
    fn deny_only_and_idn() {
        let r =
            DomainRules::new(Vec::<String>::new(), ["bücher.example", "*.ads.example"]).unwrap();
        assert!(!r.allows("xn--bcher-kva.example"));
        assert!(!r.allows("x.ads.example"));
        assert!(r.allows("news.example"));
        assert!(DomainRules::default().allows("anything.example"));
        assert!(DomainRules::new(["exa mple.com"], Vec::<String>::new()).is_err());
        assert!(DomainRules::new(["10.0.0.1"], Vec::<String>::new()).is_err());
    }
}
