//! Property checks shared by the fuzz targets and the regression tests.
//! Each takes arbitrary bytes and panics only when a property breaks.
//! Not part of the supported API.

use serde_json::Value;
use url::{Host, Url};

use crate::args::{parse_fetch_args, parse_search_args};
use crate::messages::Refusal;
use crate::policy::{admit, check, display_form, Policy, Verdict};

/// URL admission never panics, and its verdict is stable under
/// re-serialization of the parsed URL.
pub fn admission(data: &[u8]) {
    let input = String::from_utf8_lossy(data);
    let policy = Policy::default();
    let first = admit(&input, &policy);
    match &first {
        Ok(u) => {
            let again = admit(u.as_str(), &policy);
            assert_eq!(
                again.as_ref().map(|a| a.as_str()),
                Ok(u.as_str()),
                "{input:?}"
            );
            let _ = u.display();
        }
        Err(Refusal::Invalid) => {}
        Err(r) => {
            // OK because every refusal other than Invalid comes after a parse.
            let url = Url::parse(&input).expect("refusal after parse");
            let _ = display_form(&url);
            assert_eq!(
                admit(url.as_str(), &policy).as_ref().err(),
                Some(r),
                "{input:?}"
            );
        }
    }
}

/// IP-literal hosts: whatever admission reports as an IP literal is the
/// address WHATWG host parsing gives, its canonical text parses back to the
/// same address, and the table judges it without panicking.
pub fn ip_literal(data: &[u8]) {
    let host = String::from_utf8_lossy(data);
    let _ = Host::parse(&host);
    let input = format!("https://{host}/");
    if let Err(Refusal::IpLiteral { address }) = admit(&input, &Policy::default()) {
        let text = address.to_string();
        assert_eq!(text.parse::<std::net::IpAddr>().ok(), Some(address));
        let back = if address.is_ipv6() {
            format!("[{text}]")
        } else {
            text
        };
        match Host::parse(&back) {
            Ok(Host::Ipv4(a)) => assert_eq!(std::net::IpAddr::from(a), address),
            Ok(Host::Ipv6(a)) => assert_eq!(std::net::IpAddr::from(a), address),
            other => panic!("{back:?} parsed to {other:?}"),
        }
        let _ = check(address);
    }
}

/// Both argument parsers take any JSON without panicking, and what they
/// accept respects the policy and the contract's ranges.
pub fn arguments(data: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let policy = Policy::default();
    if let Ok(a) = parse_fetch_args(&v, &policy) {
        assert!(a.max_chars >= 1 && a.max_chars <= policy.max_chars);
    }
    if let Ok(a) = parse_search_args(&v) {
        assert!(a.count.is_none_or(|c| (1..=20).contains(&c)));
        assert!(a.query.chars().count() <= 400);
        assert!(!a.query.trim().is_empty());
    }
}

/// The range text the table gives for an address, or `None` when allowed.
pub fn table_range(ip: std::net::IpAddr) -> Option<String> {
    match check(ip) {
        Verdict::Allow => None,
        Verdict::Deny { range, .. } => Some(range.to_string()),
    }
}

/// The deepest element extraction's tree keeps.
pub const MAX_TREE_DEPTH: usize = crate::extract::MAX_TREE_DEPTH;

/// The depth of the tree extraction builds for `html` (for tests of the
/// depth cap).
pub fn tree_depth(html: &str) -> usize {
    crate::extract::tree_depth(html)
}

/// Parses `html` into extraction's flat view and nothing more (for the
/// benchmark's breakdown of where extraction time goes). Returns the
/// number of nodes.
pub fn parse_only(html: &str) -> usize {
    crate::extract::parse_only(html)
}
