//! URL admission (contract §3): the five checks, in order, before any
//! network access; and the display form of a URL used in messages.
//!
//! The same rules 2–5 judge redirect targets ([`super::redirect`]); rule 1
//! there means "not a redirect" and is handled by the caller.

use url::{Host, Url};

use super::Policy;
use crate::messages::Refusal;

/// A URL that passed admission: `https`, no userinfo, an allowed port, a
/// DNS-name host, fragment dropped. Only [`admit`] and the redirect rule
/// make one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdmittedUrl {
    url: Url,
}

impl AdmittedUrl {
    /// The URL as it is requested (query kept, no fragment).
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The parsed URL.
    pub fn as_url(&self) -> &Url {
        &self.url
    }

    /// The host as the parsed URL serializes it (lower case, punycode):
    /// always a DNS name, never an IP literal.
    pub fn host(&self) -> &str {
        // OK because admission refused every URL without a domain host.
        self.url.host_str().unwrap_or_default()
    }

    /// The effective port.
    pub fn port(&self) -> u16 {
        // OK because an https URL always has a known default port.
        self.url.port_or_known_default().unwrap_or(443)
    }

    /// The display form: scheme, host, non-default port, path.
    pub fn display(&self) -> String {
        display_form(&self.url)
    }
}

/// The display form of a URL as messages show it: scheme, host, port only
/// when not the scheme's default, and path; never userinfo, query or
/// fragment.
pub fn display_form(url: &Url) -> String {
    let mut s = String::with_capacity(url.as_str().len());
    s.push_str(url.scheme());
    s.push(':');
    if url.has_authority() {
        s.push_str("//");
        if let Some(h) = url.host_str() {
            s.push_str(h);
        }
        if let Some(p) = url.port() {
            s.push(':');
            s.push_str(&p.to_string());
        }
    }
    s.push_str(url.path());
    s
}

/// Rule 1, then rules 2–5, on the `url` argument.
pub fn admit(input: &str, policy: &Policy) -> Result<AdmittedUrl, Refusal> {
    // The parser's detail is never shown: the text is just `invalid url`.
    let url = Url::parse(input).map_err(|_| Refusal::Invalid)?;
    admit_parsed(url, policy)
}

/// Rules 2–5 on a URL that already parsed (a redirect target, or rule 1's
/// output). The fragment is dropped here, so every admitted URL lacks one.
pub fn admit_parsed(mut url: Url, policy: &Policy) -> Result<AdmittedUrl, Refusal> {
    // Rule 2 comes before any host rule, so `data:`, `mailto:` and
    // `file:///` get the scheme text.
    if url.scheme() != "https" {
        return Err(Refusal::Scheme {
            scheme: url.scheme().to_string(),
        });
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal::Userinfo);
    }
    // OK because https has a known default port (443).
    let port = url.port_or_known_default().unwrap_or(443);
    if !policy.allows_port(port) {
        return Err(Refusal::Port { port });
    }
    match url.host() {
        Some(Host::Domain(host)) => {
            // The host's own lists (an option; empty by default).
            if !policy.domains.allows(host) {
                return Err(Refusal::Domain {
                    host: host.to_string(),
                });
            }
        }
        Some(Host::Ipv4(a)) => return Err(Refusal::IpLiteral { address: a.into() }),
        Some(Host::Ipv6(a)) => return Err(Refusal::IpLiteral { address: a.into() }),
        // WHATWG gives every https URL a host; a parser that ever did not
        // would have produced something we cannot request.
        None => return Err(Refusal::Invalid),
    }
    url.set_fragment(None);
    Ok(AdmittedUrl { url })
}
