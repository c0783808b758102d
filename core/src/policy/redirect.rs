//! The redirect-hop rule (contract §6) as a pure function: the current URL,
//! the response status and `Location`, and the hops followed so far give
//! the next admitted URL, "not a redirect", or a refusal.
//!
//! The order is the contract's: hop limit, then downgrade, then admission
//! rules 2–5. Resolution of the next hop is the IO loop's job and happens
//! afresh for every hop (contract §4).

use url::Url;

use super::admission::{admit_parsed, display_form, AdmittedUrl};
use super::Policy;
use crate::messages::{FetchError, HopRefusal};

/// What to do after a response head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hop {
    /// A redirect to an admitted URL: request it next (a GET without body).
    Follow(AdmittedUrl),
    /// Not a redirect (not 301/302/303/307/308, or no parseable
    /// `Location`): handle the status as an ordinary one.
    NotARedirect,
    /// A refused redirect ([`FetchError::RedirectRefused`], soft).
    Refuse(FetchError),
}

/// True for the statuses that are redirects when a `Location` parses.
pub fn is_redirect_status(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Decides the next hop. `followed` is how many redirects this fetch has
/// already followed (0 on the first response).
pub fn next_hop(
    current: &AdmittedUrl,
    status: u16,
    location: Option<&str>,
    followed: u32,
    policy: &Policy,
) -> Hop {
    if !is_redirect_status(status) {
        return Hop::NotARedirect;
    }
    let Some(target) = location.and_then(|l| current.as_url().join(l).ok()) else {
        return Hop::NotARedirect;
    };
    match judge(&target, followed, policy) {
        Ok(next) => Hop::Follow(next),
        Err(reason) => Hop::Refuse(FetchError::RedirectRefused {
            from: current.display(),
            to: display_form(&target),
            reason,
        }),
    }
}

fn judge(target: &Url, followed: u32, policy: &Policy) -> Result<AdmittedUrl, HopRefusal> {
    if followed >= policy.max_redirects {
        return Err(HopRefusal::Limit {
            hops: policy.max_redirects,
        });
    }
    if target.scheme() == "http" {
        return Err(HopRefusal::Downgrade);
    }
    admit_parsed(target.clone(), policy).map_err(HopRefusal::Rule)
}
