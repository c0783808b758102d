//! Where a link or image points, as the markdown shows it.
//!
//! A model reads every byte of a URL and may fetch it, so a target is
//! shown absolute (it resolves against the page), without the query
//! parameters that only say who sent the reader ([`TRACKING_PARAMETERS`],
//! a documented list), with other scripts' letters as themselves
//! (`/wiki/München`), and not at all where nothing can be followed
//! (`javascript:`, a fragment of this same page, a target far longer
//! than what was written). The renderer decides where a target shows
//! (each once, a card's one link); this file decides what it says.

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

/// Whether a query parameter named `key` (as written) is a tracking
/// parameter ([`TRACKING_PARAMETERS`]).
fn is_tracking(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    TRACKING_PARAMETERS
        .iter()
        .any(|t| match t.strip_suffix('*') {
            Some(prefix) => key.starts_with(prefix),
            None => *t == key,
        })
}

/// `u` without its tracking parameters; the others stay as written, in
/// order.
pub(super) fn without_tracking(mut u: Url) -> Url {
    let Some(query) = u.query() else {
        return u;
    };
    if !query
        .split('&')
        .any(|p| is_tracking(p.split('=').next().unwrap_or("")))
    {
        return u;
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !is_tracking(p.split('=').next().unwrap_or("")))
        .collect();
    let kept = kept.join("&");
    u.set_query((!kept.is_empty()).then_some(kept.as_str()));
    u
}

/// Where a link or image points, as shown: absolute, without tracking
/// parameters, its letters readable ([`readable`]); `None` (the text
/// alone is shown) for what a reader cannot follow or need not:
/// `javascript:` and other schemes, a fragment of this same page, a
/// target far longer than what was written.
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
    // This page itself, at a fragment (`page.html#section`).
    if u.fragment().is_some() && u[..url::Position::AfterQuery] == base[..url::Position::AfterQuery]
    {
        return None;
    }
    Some(readable(without_tracking(u).to_string()))
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
