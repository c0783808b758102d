//! Where a link or image points, as the markdown shows it.
//!
//! A model reads every byte of a URL and may fetch it, so a target is
//! shown absolute (it resolves against the page), without the query
//! parameters that only say who sent the reader ([`TRACKING_PARAMETERS`],
//! a documented list) or which visitor is reading
//! ([`SESSION_PARAMETERS`]: the session the fetch itself was given), with
//! other scripts' letters as themselves (`/wiki/München`), and not at
//! all where nothing new can be followed (`javascript:`, this same page
//! whole or at a fragment, a target far longer than what was written).
//! The renderer decides where a target shows (each once, a card's one
//! link); this file decides what it says.

use std::borrow::Cow;

use url::Url;

/// The longest link or image target kept beyond its own `href` (a short
/// relative link on a long page URL); longer ones render as text.
const TARGET_GROWTH: usize = 512;

/// Query parameters that say who sent the reader, not what the page is:
/// they are removed from every URL shown (a name ending in `*` is a
/// prefix; names are compared without case). Analytics (Google, Matomo,
/// HubSpot, Mailchimp, Marketo, Adobe, Yandex, Openstat, Klaviyo; the
/// `itm_*` internal campaign tags of news sites' own links), ad
/// clicks (Google, Microsoft, Meta, X, TikTok, LinkedIn, Pinterest,
/// impact.com), Google's shopping `srsltid`, Instagram's share id,
/// affiliate and placement tags (Amazon's `pf_rd_*`, `pd_rd_*`, `ref_`,
/// `linkCode`, `linkId`, `ascsubtag`; eBay's `itmprp`, `itmmeta`;
/// Alibaba's `spm`; Amazon's search `crid` and `sprefix`; Skimlinks'
/// `xcust`), Steam's navigation trail `snr`, X's embed source
/// (`ref_src`, `ref_url`), a `trackingId` by its name, Yahoo's consent
/// redirect and Branch's match id.
/// Only names that mean nothing else: `tag`, `ref`, `sr` or `qid` can
/// be a page's own parameters (a blog's tag, a repository's branch)
/// and stay.
pub const TRACKING_PARAMETERS: &[&str] = &[
    "utm_*",
    "hsa_*",
    "pf_rd_*",
    "pd_rd_*",
    "fbclid",
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "msclkid",
    "twclid",
    "ttclid",
    "li_fat_id",
    "yclid",
    "epik",
    "irclickid",
    "igshid",
    "srsltid",
    "mc_cid",
    "mc_eid",
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "__hstc",
    "__hssc",
    "__hsfp",
    "hsctatracking",
    "_kx",
    "mkt_tok",
    "s_cid",
    "s_kwcid",
    "ef_id",
    "_openstat",
    "pk_campaign",
    "pk_kwd",
    "mtm_*",
    "itm_*",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
    "rb_clickid",
    "wickedid",
    "ref_",
    "linkcode",
    "linkid",
    "ascsubtag",
    "itmprp",
    "itmmeta",
    "spm",
    "guccounter",
    "guce_referrer",
    "guce_referrer_sig",
    "_branch_match_id",
    "crid",
    "sprefix",
    "xcust",
    "snr",
    "ref_src",
    "ref_url",
    "trackingid",
];

/// Query parameters that carry a visitor's session, by name: PHP's
/// `PHPSESSID`, Java's `jsessionid`, osCommerce's `osCsid`, Zen Cart's
/// `zenid`, ColdFusion's `CFID` and `CFTOKEN` (names compared without
/// case). A site that keeps its session in the URL (older shops and
/// forums do, for a visitor without cookies, as a fetcher is) writes it
/// into every link: the session this fetch was given, meaningless to
/// anyone else, and a run of random tokens in every target. Java's
/// path form (`/cart.do;jsessionid=…`) goes too. Only names that mean
/// nothing else: `sid` and `s` are phpBB's and vBulletin's sessions but
/// also a story's id (`?sid=46`), a search (`?s=books`) and an image
/// CDN's signature (`?s=5613…`, without which the image is refused), so
/// they stay.
pub const SESSION_PARAMETERS: &[&str] = &[
    "phpsessid",
    "jsessionid",
    "oscsid",
    "zenid",
    "cfid",
    "cftoken",
];

/// Whether a query parameter `key=value` (as written) says who visits
/// rather than what the page is: a tracking parameter
/// ([`TRACKING_PARAMETERS`]) or a session ([`SESSION_PARAMETERS`]).
fn is_visitor(param: &str) -> bool {
    let key = param.split('=').next().unwrap_or("").to_ascii_lowercase();
    TRACKING_PARAMETERS
        .iter()
        .any(|t| match t.strip_suffix('*') {
            Some(prefix) => key.starts_with(prefix),
            None => *t == key,
        })
        || SESSION_PARAMETERS.contains(&key.as_str())
}

/// `u` without the query parameters that say who visits rather than
/// what the page is ([`is_visitor`]) and without a session in its path
/// (`;jsessionid=…`); the other parameters stay as written, in order.
pub(super) fn without_visitor(mut u: Url) -> Url {
    without_path_session(&mut u);
    let Some(query) = u.query() else {
        return u;
    };
    if !query.split('&').any(is_visitor) {
        return u;
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !is_visitor(p))
        .collect();
    let kept = kept.join("&");
    u.set_query((!kept.is_empty()).then_some(kept.as_str()));
    u
}

/// `u` without Java's session path parameter (`/a/cart.do;jsessionid=…`
/// up to the next `/`), wherever it is in the path.
fn without_path_session(u: &mut Url) {
    const MARK: &str = ";jsessionid=";
    if !u.path().contains(';') {
        return;
    }
    let segments: Vec<&str> = u
        .path()
        .split('/')
        // The session and any parameter after it in the segment.
        .map(|s| match s.to_ascii_lowercase().find(MARK) {
            Some(at) => &s[..at],
            None => s,
        })
        .collect();
    let path = segments.join("/");
    if path != u.path() {
        u.set_path(&path);
    }
}

/// Where a link or image points, as shown: absolute, without tracking
/// or session parameters, its letters readable ([`readable`]); `None`
/// (the text alone is shown) for what a reader cannot follow or need not:
/// `javascript:` and other schemes, this same page (at a fragment or
/// not), a target far longer than what was written.
pub(super) fn link_target(base: &Url, href: &str) -> Option<String> {
    let href = href.trim();
    if href.starts_with('#') {
        return None;
    }
    let u = base.join(href).ok()?;
    if !matches!(u.scheme(), "http" | "https" | "mailto" | "ftp")
        || u.as_str().len() > href.len() + TARGET_GROWTH
    {
        return None;
    }
    // This page itself, whole or at a fragment (`page.html#section`, an
    // empty `href`, a tab or a comment count that links the page it is
    // on): the reader is there already, and its address heads the text.
    // Both without their visitor's parameters: a page reached from a
    // campaign (`?utm_source=…`) links itself without them.
    let u = without_visitor(u);
    let page = match base.query() {
        Some(_) => Cow::Owned(without_visitor(base.clone())),
        None => Cow::Borrowed(base),
    };
    if u[..url::Position::AfterQuery] == page[..url::Position::AfterQuery] {
        return None;
    }
    Some(readable(u.to_string()))
}

/// `url` with the letters and digits of other scripts that its path,
/// query and fragment percent-encode shown as themselves, as a browser's
/// address bar shows them: `/wiki/München`, not `/wiki/M%C3%BCnchen`
/// (nine tokens of hex for one word of Japanese). Parsing the shown form
/// gives the same URL back, so a model can fetch what it reads. Only
/// letters and digits are decoded: ASCII (`%20`, `%2F`, `%3F`, which
/// mean something in a URL or in markdown), spaces, punctuation,
/// invisible and direction-changing characters, and bytes that are not
/// UTF-8 stay encoded; the host is never touched (a look-alike domain
/// stays `xn--`).
fn readable(url: String) -> String {
    let Some(first) = url.find('%') else {
        return url;
    };
    // Before the path: the scheme, the host and its port.
    let path = url
        .find("://")
        .and_then(|s| url[s + 3..].find('/').map(|p| s + 3 + p))
        .unwrap_or(0);
    if first < path {
        return url;
    }
    let src = url.as_bytes();
    let mut out = String::with_capacity(url.len());
    let mut i = 0;
    let mut bytes = Vec::new();
    while i < src.len() {
        // A run of `%XX` triplets, decoded.
        let start = i;
        bytes.clear();
        while i + 2 < src.len() && src[i] == b'%' {
            match (hex(src[i + 1]), hex(src[i + 2])) {
                (Some(h), Some(l)) => bytes.push(h << 4 | l),
                _ => break,
            }
            i += 3;
        }
        if bytes.is_empty() {
            let next = url[i + 1..].find('%').map_or(url.len(), |n| i + 1 + n);
            out.push_str(&url[i..next]);
            i = next;
            continue;
        }
        // Each decoded byte stands for three characters of the run.
        let mut at = start;
        for chunk in bytes.utf8_chunks() {
            for c in chunk.valid().chars() {
                let len = 3 * c.len_utf8();
                if !c.is_ascii() && c.is_alphanumeric() {
                    out.push(c);
                } else {
                    out.push_str(&url[at..at + len]);
                }
                at += len;
            }
            let len = 3 * chunk.invalid().len();
            out.push_str(&url[at..at + len]);
            at += len;
        }
    }
    out
}

/// The value of a hexadecimal digit.
fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}
