//! Every text the contract pins, written once.
//!
//! Each error type has one `Display` and each variant a message id from
//! `vectors/messages.tsv` ([`FetchError::id`], [`SearchError::id`]); the
//! golden test (`core/tests/messages.rs`) holds every template to that
//! file, letter for letter. Nothing else in the crate writes a message.
//!
//! This file holds what a host matches on: the error types, how a call
//! ended ([`Class`], [`ErrorKind`]), the notes and progress events.
//! `text.rs` holds the texts around results (internal), `shown.rs` how a
//! foreign value stands in any of them.

pub(crate) mod shown;
pub(crate) mod text;

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

pub(crate) use shown::Shown;

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A result with the tool's normal output.
    Ok,
    /// A result whose whole text is a failure message.
    Soft,
    /// A tool error: the call failed with a kind and a message.
    Hard,
}

impl Class {
    /// `ok`, `soft` or `hard`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Ok => "ok",
            Class::Soft => "soft",
            Class::Hard => "hard",
        }
    }
}

/// The kind of a tool error (contract §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The arguments or the address were refused.
    InvalidArguments,
    /// The search request could not be made or its answer not read.
    Transport,
    /// The search backend answered with something unusable.
    Backend,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::InvalidArguments => "InvalidArguments",
            ErrorKind::Transport => "Transport",
            ErrorKind::Backend => "Backend",
        })
    }
}

/// A refusal by one of the five URL admission rules (contract §3).
///
/// The same text serves as a hard (or, for the scheme, soft) failure of the
/// `url` argument and as the reason of a refused redirect hop.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// Rule 1: not an absolute WHATWG URL.
    Invalid,
    /// Rule 2: the scheme is not `https`.
    Scheme {
        /// The parsed, lower-case scheme.
        scheme: String,
    },
    /// Rule 3: a username or password is present.
    Userinfo,
    /// Rule 4: the effective port is not allowed.
    Port {
        /// The effective port.
        port: u16,
    },
    /// Rule 5: the host is an IP literal.
    IpLiteral {
        /// The address the host parsed to.
        address: IpAddr,
    },
    /// The host's domain allow or deny list refused the host (an option,
    /// contract §12; never with the default policy).
    Domain {
        /// The host, as the parsed URL serializes it.
        host: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Invalid => f.write_str("invalid url"),
            Refusal::Scheme { scheme } => write!(f, "scheme not allowed: {}", Shown(scheme)),
            Refusal::Userinfo => f.write_str("url must not contain userinfo"),
            Refusal::Port { port } => write!(f, "port not allowed: {port}"),
            // std's Display is the contract's canonical form: 127.0.0.1,
            // ::1, ::ffff:127.0.0.1, ::7f00:1.
            Refusal::IpLiteral { address } => write!(f, "ip literal host not allowed: {address}"),
            Refusal::Domain { host } => {
                write!(f, "host not allowed by domain policy: {}", Shown(host))
            }
        }
    }
}

/// Why a redirect hop was refused (contract §6), in the order checked.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HopRefusal {
    /// More redirects than the policy allows.
    Limit {
        /// The policy's hop limit (5 by default).
        hops: u32,
    },
    /// An `https` page redirected to `http`.
    Downgrade,
    /// The target broke admission rule 2–5.
    Rule(Refusal),
}

impl HopRefusal {
    /// The id in `vectors/messages.tsv` of the reason's own text.
    pub fn id(&self) -> &'static str {
        match self {
            HopRefusal::Limit { .. } => "fetch.redirect.reason.limit",
            HopRefusal::Downgrade => "fetch.redirect.reason.downgrade",
            HopRefusal::Rule(Refusal::Scheme { .. }) => "fetch.redirect.reason.scheme",
            HopRefusal::Rule(Refusal::Userinfo) => "fetch.redirect.reason.userinfo",
            HopRefusal::Rule(Refusal::Port { .. }) => "fetch.redirect.reason.port",
            HopRefusal::Rule(Refusal::IpLiteral { .. }) => "fetch.redirect.reason.ip_literal",
            HopRefusal::Rule(Refusal::Invalid) => "fetch.url.invalid",
            HopRefusal::Rule(Refusal::Domain { .. }) => "option.redirect.reason.domain",
        }
    }
}

impl fmt::Display for HopRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HopRefusal::Limit { hops } => write!(f, "redirect limit of {hops} hops reached"),
            HopRefusal::Downgrade => f.write_str("refusing https to http downgrade"),
            HopRefusal::Rule(r) => r.fmt(f),
        }
    }
}

/// A `web_fetch` argument error (contract §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchArgError {
    /// No string `url`, or the arguments are not an object.
    MissingUrl,
    /// `max_chars` is not a whole number ≥ 1.
    MaxChars,
    /// `raw` is not a boolean.
    Raw,
}

impl fmt::Display for FetchArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FetchArgError::MissingUrl => "web_fetch: missing url argument",
            FetchArgError::MaxChars => "web_fetch: max_chars must be a positive integer",
            FetchArgError::Raw => "web_fetch: raw must be a boolean",
        })
    }
}

/// Every way a `web_fetch` call can fail, soft or hard.
///
/// URLs inside are already in the form the message shows (display form,
/// except [`FetchError::NetFailed`], which keeps the query).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FetchError {
    /// The arguments were refused (hard).
    Args(FetchArgError),
    /// The `url` argument broke an admission rule (hard; soft for the scheme).
    Url(Refusal),
    /// The host resolved, but to no allowed address (hard).
    NoAllowedAddress {
        /// The host as the parsed URL serializes it.
        host: String,
    },
    /// The lookup failed: NXDOMAIN, SERVFAIL, time-out (soft).
    DnsFailed {
        /// The host as the parsed URL serializes it.
        host: String,
    },
    /// A non-success, non-redirect status (soft).
    Status {
        /// The final URL, display form.
        url: String,
        /// The status code.
        status: u16,
    },
    /// A Content-Type that is not text (soft).
    TypeRefused {
        /// The header value, trimmed, verbatim.
        content_type: String,
        /// Display form.
        url: String,
    },
    /// No Content-Type header (soft).
    TypeMissing {
        /// Display form.
        url: String,
    },
    /// A charset label encoding_rs does not know, or `replacement` (soft).
    CharsetUnknown {
        /// Display form.
        url: String,
        /// The label, verbatim.
        charset: String,
    },
    /// The body is, or inflates to, more than the byte cap (soft).
    BodyCap {
        /// Display form.
        url: String,
        /// The cap in bytes.
        limit: u64,
    },
    /// The body broke off, was corrupt, or timed out while arriving (soft).
    BodyRead {
        /// Display form.
        url: String,
    },
    /// Any other network failure (soft).
    NetFailed {
        /// The URL as requested: query kept, fragment dropped.
        url: String,
    },
    /// The request ran out of time before the response head (soft).
    Timeout {
        /// Display form.
        url: String,
    },
    /// A redirect hop was refused (soft).
    RedirectRefused {
        /// The redirecting URL, display form.
        from: String,
        /// The target, display form.
        to: String,
        /// Why.
        reason: HopRefusal,
    },
    /// A rule of the URL's robots.txt, read because the host turned that
    /// on, does not let this agent fetch it (soft; ids in
    /// `vectors/option-messages.tsv`).
    RobotsDisallowed {
        /// The URL refused, display form.
        url: String,
    },
    /// The URL's robots.txt could not be read, which RFC 9309 reads as
    /// "disallow all" (soft).
    RobotsUnreachable {
        /// The URL refused, display form.
        url: String,
        /// Why the file could not be read.
        why: Unreachable,
    },
}

/// Why a robots.txt could not be read (`policy::robots` judges by it; the
/// failure messages name it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unreachable {
    /// The server answered with this 5xx status (or another outside
    /// 200–499).
    Status(u16),
    /// The request ran out of time.
    Timeout,
    /// The connection failed or the body broke off.
    Network,
}

impl Unreachable {
    /// The id of its text in `vectors/option-messages.tsv`.
    pub fn id(&self) -> &'static str {
        match self {
            Unreachable::Status(_) => "option.robots.reason.status",
            Unreachable::Timeout => "option.robots.reason.timeout",
            Unreachable::Network => "option.robots.reason.network",
        }
    }
}

/// The reason as the robots failure message shows it.
impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::Status(status) => write!(f, "HTTP {status}"),
            Unreachable::Timeout => f.write_str("timed out"),
            Unreachable::Network => f.write_str("network error"),
        }
    }
}

impl FetchError {
    /// The id of why a redirect was refused, when this is a refused
    /// redirect (what the audit's redirect record says).
    pub(crate) fn redirect_reason(&self) -> Option<&'static str> {
        match self {
            FetchError::RedirectRefused { reason, .. } => Some(reason.id()),
            _ => None,
        }
    }

    /// Soft (a result whose text is the message) or hard (a tool error).
    pub fn class(&self) -> Class {
        match self {
            FetchError::Args(_) | FetchError::NoAllowedAddress { .. } => Class::Hard,
            FetchError::Url(Refusal::Scheme { .. }) => Class::Soft,
            FetchError::Url(_) => Class::Hard,
            _ => Class::Soft,
        }
    }

    /// The tool error kind of a hard failure; `None` for a soft one.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self.class() {
            Class::Hard => Some(ErrorKind::InvalidArguments),
            _ => None,
        }
    }

    /// The message id in `vectors/messages.tsv`.
    pub fn id(&self) -> &'static str {
        match self {
            FetchError::Args(FetchArgError::MissingUrl) => "fetch.arg.url",
            FetchError::Args(FetchArgError::MaxChars) => "fetch.arg.max_chars",
            FetchError::Args(FetchArgError::Raw) => "fetch.arg.raw",
            FetchError::Url(Refusal::Invalid) => "fetch.url.invalid",
            FetchError::Url(Refusal::Scheme { .. }) => "fetch.url.scheme",
            FetchError::Url(Refusal::Userinfo) => "fetch.url.userinfo",
            FetchError::Url(Refusal::Port { .. }) => "fetch.url.port",
            FetchError::Url(Refusal::IpLiteral { .. }) => "fetch.url.ip_literal",
            FetchError::Url(Refusal::Domain { .. }) => "option.fetch.domain",
            FetchError::NoAllowedAddress { .. } => "fetch.dns.no_allowed",
            FetchError::DnsFailed { .. } => "fetch.dns.failed",
            FetchError::Status { .. } => "fetch.http.status",
            FetchError::TypeRefused { .. } => "fetch.type.refused",
            FetchError::TypeMissing { .. } => "fetch.type.missing",
            FetchError::CharsetUnknown { .. } => "fetch.charset.unknown",
            FetchError::BodyCap { .. } => "fetch.body.cap",
            FetchError::BodyRead { .. } => "fetch.body.read",
            FetchError::NetFailed { .. } => "fetch.net.failed",
            FetchError::Timeout { .. } => "fetch.net.timeout",
            FetchError::RedirectRefused { .. } => "fetch.redirect.refused",
            FetchError::RobotsDisallowed { .. } => "option.fetch.robots",
            FetchError::RobotsUnreachable { .. } => "option.fetch.robots_unreachable",
        }
    }
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchError::Args(e) => e.fmt(f),
            FetchError::Url(r) => r.fmt(f),
            FetchError::NoAllowedAddress { host } => {
                write!(f, "host {} has no allowed address", Shown(host))
            }
            FetchError::DnsFailed { host } => {
                write!(f, "dns resolution failed for {}", Shown(host))
            }
            FetchError::Status { url, status } => {
                write!(
                    f,
                    "{} answered HTTP {status}; try a different URL",
                    Shown(url)
                )
            }
            FetchError::TypeRefused { content_type, url } => write!(
                f,
                "content type {} from {} cannot be returned as text; \
                 try an HTML version of the page or a different URL",
                Shown(content_type),
                Shown(url)
            ),
            FetchError::TypeMissing { url } => write!(
                f,
                "response from {} declared no content type; refusing to guess its format; \
                 try a different URL",
                Shown(url)
            ),
            FetchError::CharsetUnknown { url, charset } => {
                write!(
                    f,
                    "response from {} declared unknown charset {}; cannot decode its text",
                    Shown(url),
                    Shown(charset)
                )
            }
            FetchError::BodyCap { url, limit } => {
                write!(
                    f,
                    "response from {} exceeds the {limit}-byte size cap",
                    Shown(url)
                )
            }
            FetchError::BodyRead { url } => write!(
                f,
                "the response body from {} could not be read; try again or use a different URL",
                Shown(url)
            ),
            FetchError::NetFailed { url } => {
                write!(
                    f,
                    "fetch failed for {}: network error; try a different URL",
                    Shown(url)
                )
            }
            FetchError::Timeout { url } => {
                write!(
                    f,
                    "request to {} timed out; try again or use a different URL",
                    Shown(url)
                )
            }
            FetchError::RedirectRefused { from, to, reason } => {
                write!(
                    f,
                    "redirect from {} to {} refused: {reason}",
                    Shown(from),
                    Shown(to)
                )
            }
            FetchError::RobotsDisallowed { url } => write!(
                f,
                "{} is disallowed for this agent by the site's robots.txt; try a different URL",
                Shown(url)
            ),
            FetchError::RobotsUnreachable { url, why } => write!(
                f,
                "the robots.txt for {} could not be read ({}), and a site whose robots.txt \
                 cannot be read is treated as disallowing everything; try again later or use \
                 a different URL",
                Shown(url),
                why
            ),
        }
    }
}

impl From<FetchArgError> for FetchError {
    fn from(e: FetchArgError) -> Self {
        FetchError::Args(e)
    }
}

impl From<Refusal> for FetchError {
    fn from(r: Refusal) -> Self {
        FetchError::Url(r)
    }
}

/// How a successful fetch turned the body into text (contract §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Extraction {
    /// HTML reduced to its main article, as markdown.
    Readability,
    /// The whole HTML document rendered.
    RawHtml,
    /// A non-HTML body, verbatim.
    Plain,
}

impl fmt::Display for Extraction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Extraction::Readability => "readability",
            Extraction::RawHtml => "raw-html",
            Extraction::Plain => "plain",
        })
    }
}

/// A `web_search` argument error (contract §9), phase 1 then phase 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SearchArgError {
    /// Phase 1: the shape is wrong.
    Invalid,
    /// `query` has no non-whitespace character.
    QueryEmpty,
    /// `query` is over 400 characters.
    QueryLong,
    /// `count` is 0 or above 20.
    Count,
    /// `country` is blank or over 128 characters.
    Country,
    /// `search_lang` is blank or over 128 characters.
    SearchLang,
    /// `include_domains` lists more than 20 hostnames.
    IncludeLen,
    /// `include_domains` holds an invalid hostname.
    IncludeHost,
    /// `exclude_domains` lists more than 20 hostnames.
    ExcludeLen,
    /// `exclude_domains` holds an invalid hostname.
    ExcludeHost,
}

impl fmt::Display for SearchArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SearchArgError::Invalid => "web_search: invalid arguments",
            SearchArgError::QueryEmpty => "web_search: query must not be empty",
            SearchArgError::QueryLong => "web_search: query exceeds 400 characters",
            SearchArgError::Count => "web_search: count must be between 1 and 20",
            SearchArgError::Country => "web_search: country must be 1..=128 characters",
            SearchArgError::SearchLang => "web_search: search_lang must be 1..=128 characters",
            SearchArgError::IncludeLen => {
                "web_search: include_domains may list at most 20 hostnames"
            }
            SearchArgError::IncludeHost => {
                "web_search: include_domains contains an invalid hostname"
            }
            SearchArgError::ExcludeLen => {
                "web_search: exclude_domains may list at most 20 hostnames"
            }
            SearchArgError::ExcludeHost => {
                "web_search: exclude_domains contains an invalid hostname"
            }
        })
    }
}

/// Every way a `web_search` call can fail; all are hard.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SearchError {
    /// The arguments were refused (InvalidArguments).
    Args(SearchArgError),
    /// Connect or send failed, or the deadline passed before the head (Transport).
    Request,
    /// The body could not be read, or the deadline passed mid-read (Transport).
    Read,
    /// A 2xx body over the response cap (Backend).
    TooBig {
        /// The cap in bytes (262,144 by default).
        limit: u64,
    },
    /// A 2xx body that is not UTF-8 (Backend).
    NotUtf8,
    /// Not JSON, no `results` array, or a row without a string `url` (Backend).
    Malformed,
    /// A row whose `url` is empty or whitespace (Backend).
    EmptyUrl {
        /// The zero-based row index.
        index: usize,
    },
    /// A non-2xx status with a body (Backend).
    Status {
        /// The status code.
        code: u16,
        /// The body, already cut and escaped to one line.
        body: String,
        /// The provider's Retry-After (see [`SearchError::retry_after`]).
        retry_after: Option<Duration>,
    },
    /// A non-2xx status with an empty body (Backend).
    StatusEmpty {
        /// The status code.
        code: u16,
        /// The provider's Retry-After (see [`SearchError::retry_after`]).
        retry_after: Option<Duration>,
    },
    /// A non-2xx status whose body could not be read (Backend).
    StatusUnread {
        /// The status code.
        code: u16,
        /// The provider's Retry-After (see [`SearchError::retry_after`]).
        retry_after: Option<Duration>,
    },
}

impl SearchError {
    /// How long the provider asked callers to wait before the next request
    /// (its `Retry-After`, sent with a 429 or 503), for a host that backs
    /// off. Never part of the message: the contract fixes that text, and the
    /// wait is the host's business, not the model's.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            SearchError::Status { retry_after, .. }
            | SearchError::StatusEmpty { retry_after, .. }
            | SearchError::StatusUnread { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The tool error kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SearchError::Args(_) => ErrorKind::InvalidArguments,
            SearchError::Request | SearchError::Read => ErrorKind::Transport,
            _ => ErrorKind::Backend,
        }
    }

    /// The message id in `vectors/messages.tsv`.
    pub fn id(&self) -> &'static str {
        match self {
            SearchError::Args(a) => match a {
                SearchArgError::Invalid => "search.arg.invalid",
                SearchArgError::QueryEmpty => "search.arg.query_empty",
                SearchArgError::QueryLong => "search.arg.query_long",
                SearchArgError::Count => "search.arg.count",
                SearchArgError::Country => "search.arg.country",
                SearchArgError::SearchLang => "search.arg.search_lang",
                SearchArgError::IncludeLen => "search.arg.include_len",
                SearchArgError::IncludeHost => "search.arg.include_host",
                SearchArgError::ExcludeLen => "search.arg.exclude_len",
                SearchArgError::ExcludeHost => "search.arg.exclude_host",
            },
            SearchError::Request => "search.net.request",
            SearchError::Read => "search.net.read",
            SearchError::TooBig { .. } => "search.resp.too_big",
            SearchError::NotUtf8 => "search.resp.not_utf8",
            SearchError::Malformed => "search.resp.malformed",
            SearchError::EmptyUrl { .. } => "search.resp.empty_url",
            SearchError::Status { .. } => "search.resp.status",
            SearchError::StatusEmpty { .. } => "search.resp.status_empty",
            SearchError::StatusUnread { .. } => "search.resp.status_unread",
        }
    }
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Args(a) => a.fmt(f),
            SearchError::Request => f.write_str("web_search: request failed"),
            SearchError::Read => f.write_str("web_search: reading response failed"),
            SearchError::TooBig { limit } => {
                write!(f, "web_search: response body exceeded {limit} bytes")
            }
            SearchError::NotUtf8 => f.write_str("web_search: response body was not valid UTF-8"),
            SearchError::Malformed => f.write_str("web_search: malformed search response"),
            SearchError::EmptyUrl { index } => {
                write!(
                    f,
                    "web_search: malformed search response: result {index} has an empty url"
                )
            }
            SearchError::Status { code, body, .. } => {
                write!(f, "web_search: backend returned {code}: {body}")
            }
            SearchError::StatusEmpty { code, .. } => {
                write!(f, "web_search: backend returned {code}: (empty body)")
            }
            SearchError::StatusUnread { code, .. } => {
                write!(
                    f,
                    "web_search: backend returned {code}, and its error body could not be read"
                )
            }
        }
    }
}

impl From<SearchArgError> for SearchError {
    fn from(e: SearchArgError) -> Self {
        SearchError::Args(e)
    }
}

/// One search result row, as a provider reported it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchRow {
    /// The title ("" when the provider gave none).
    pub title: String,
    /// The URL (checked: a non-blank string).
    pub url: String,
    /// The description ("" when the provider gave none).
    pub description: String,
    /// How old the page is, when reported.
    pub age: Option<String>,
    /// The site's name, when reported.
    pub site_name: Option<String>,
    /// Extra snippets, when reported.
    pub extra_snippets: Option<Vec<String>>,
}

/// A note for the model, always in the envelope header.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Note {
    /// The text was cut.
    Truncated {
        /// Characters of the page text not returned.
        not_returned: usize,
        /// Where to continue, when paging is on.
        next_offset: Option<usize>,
    },
    /// A page that was read but gave no text.
    Empty {
        /// Why.
        why: EmptyWhy,
    },
    /// A real but short page.
    Thin {
        /// Its exact size in characters.
        chars: usize,
    },
    /// The fetch failed: the model must not pretend it read the page.
    NotRead {
        /// Why (the failure message).
        reason: String,
    },
    /// The run's search budget is now spent.
    SearchBudgetSpent {
        /// The budget.
        limit: u32,
    },
    /// The run's fetch budget is now spent.
    FetchBudgetSpent {
        /// The budget.
        limit: u32,
    },
    /// The text came from the host's reader service, not the site.
    ReadThrough {
        /// The URL asked for, display form.
        url: String,
        /// The reader's prefix, as the host set it.
        reader: String,
        /// What the direct fetch gave instead.
        why: ReaderWhy,
    },
}

/// Why a page that was read gave no text, as the empty-page note says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EmptyWhy {
    /// The page shows nothing that reads as text.
    NoText,
    /// Extraction stopped at its time limit before any text was made.
    TimeLimit,
}

impl EmptyWhy {
    /// The id in `vectors/option-messages.tsv`.
    pub fn id(&self) -> &'static str {
        match self {
            EmptyWhy::NoText => "option.note.empty.no_text",
            EmptyWhy::TimeLimit => "option.note.empty.time_limit",
        }
    }
}

impl fmt::Display for EmptyWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EmptyWhy::NoText => "it shows nothing that reads as text",
            EmptyWhy::TimeLimit => "turning it into text did not finish within its time limit",
        })
    }
}

/// Why the direct fetch was not usable, as the reader note says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReaderWhy {
    /// The block and verification page check fired.
    BlockPage,
    /// The text was this short (characters).
    Thin(usize),
    /// The site answered with this status (403, 429, 5xx).
    Status(u16),
}

impl ReaderWhy {
    /// The id in `vectors/option-messages.tsv`.
    pub fn id(&self) -> &'static str {
        match self {
            ReaderWhy::BlockPage => "option.reader.why.block",
            ReaderWhy::Thin(_) => "option.reader.why.thin",
            ReaderWhy::Status(_) => "option.reader.why.status",
        }
    }
}

impl fmt::Display for ReaderWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReaderWhy::BlockPage => f.write_str("a verification or block page"),
            ReaderWhy::Thin(chars) => write!(f, "only {chars} characters of text"),
            ReaderWhy::Status(status) => write!(f, "HTTP {status}"),
        }
    }
}

impl Note {
    /// The id in `vectors/option-messages.tsv`.
    pub fn id(&self) -> &'static str {
        match self {
            Note::Truncated {
                next_offset: None, ..
            } => "option.note.truncated",
            Note::Truncated { .. } => "option.note.truncated.paged",
            Note::Thin { .. } => "option.note.thin",
            Note::Empty { .. } => "option.note.empty",
            Note::NotRead { .. } => "option.note.not_read",
            Note::SearchBudgetSpent { .. } => "option.note.search_budget",
            Note::FetchBudgetSpent { .. } => "option.note.fetch_budget",
            Note::ReadThrough { .. } => "option.note.reader",
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Truncated {
                not_returned,
                next_offset: None,
            } => write!(
                f,
                "Note: truncated: {not_returned} more characters of this page were not \
                 returned, so nothing can be concluded to be absent from it."
            ),
            Note::Truncated {
                not_returned,
                next_offset: Some(k),
            } => write!(
                f,
                "Note: truncated: {not_returned} more characters of this page were not \
                 returned, so nothing can be concluded to be absent from it; call again \
                 with offset={k} to read on."
            ),
            Note::Thin { chars } => write!(
                f,
                "Note: a short page, read successfully and in full: {chars} characters."
            ),
            Note::Empty { why } => write!(
                f,
                "Note: this page was fetched but gave no text ({why}); nothing can be \
                 concluded about what it says."
            ),
            Note::NotRead { reason } => write!(
                f,
                "Note: YOU DID NOT READ THIS PAGE ({reason}). Do not retry it, and do not \
                 attribute anything to it: nothing may be reported as what it says. Find the \
                 information from another source."
            ),
            Note::SearchBudgetSpent { limit } => write!(
                f,
                "Note: that was the last web search this run allows (its budget is {limit}); \
                 web_search is withdrawn. Answer from the results you already have, citing \
                 the URLs they gave."
            ),
            Note::FetchBudgetSpent { limit } => write!(
                f,
                "Note: that was the last page this run may open (its budget is {limit}); \
                 web_fetch is withdrawn."
            ),
            Note::ReadThrough { url, reader, why } => write!(
                f,
                "Note: the direct fetch of {} gave nothing usable ({why}), so this text was \
                 read through {}, a third-party reader service that was sent the URL; the \
                 page as the site serves it was not seen.",
                Shown(url),
                Shown(reader)
            ),
        }
    }
}

/// Failures the options add.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OptionError {
    /// `offset` (paging) is not a whole number ≥ 0 (hard).
    Offset,
    /// `offset` is past the end of the page text (soft).
    OffsetPastEnd {
        /// The offset asked for.
        offset: usize,
        /// The text's length in characters.
        total: usize,
    },
    /// The page is a verification or block page (soft).
    BlockPage {
        /// Display form.
        url: String,
    },
    /// The run's search budget is spent (hard).
    SearchBudget {
        /// The budget.
        limit: u32,
    },
    /// The run's fetch budget is spent (hard).
    FetchBudget {
        /// The budget.
        limit: u32,
    },
    /// Alias `num_results` is not a whole number ≥ 1 (hard).
    NumResults,
    /// Alias `recency` is not one of its four words (hard).
    Recency,
    /// Alias `site` is not a non-empty string (hard).
    Site,
    /// Search was asked for, but the host configured no provider (hard).
    SearchUnavailable,
}

impl OptionError {
    /// Soft (a result whose text is the message) or hard.
    pub fn class(&self) -> Class {
        match self {
            OptionError::OffsetPastEnd { .. } | OptionError::BlockPage { .. } => Class::Soft,
            _ => Class::Hard,
        }
    }

    /// The id in `vectors/option-messages.tsv`.
    pub fn id(&self) -> &'static str {
        match self {
            OptionError::Offset => "option.fetch.offset",
            OptionError::OffsetPastEnd { .. } => "option.fetch.offset_past_end",
            OptionError::BlockPage { .. } => "option.fetch.block_page",
            OptionError::SearchBudget { .. } => "option.search.budget",
            OptionError::FetchBudget { .. } => "option.fetch.budget",
            OptionError::NumResults => "option.search.num_results",
            OptionError::Recency => "option.search.recency",
            OptionError::Site => "option.search.site",
            OptionError::SearchUnavailable => "option.search.unavailable",
        }
    }
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::Offset => f.write_str("web_fetch: offset must be a non-negative integer"),
            OptionError::OffsetPastEnd { offset, total } => write!(
                f,
                "offset {offset} is past the end of the page text ({total} characters)"
            ),
            OptionError::BlockPage { url } => write!(
                f,
                "fetch failed for {}: the site served a verification/block page instead of the article",
                Shown(url)
            ),
            OptionError::SearchBudget { limit } => write!(
                f,
                "web_search: this run's search budget ({limit}) is spent"
            ),
            OptionError::FetchBudget { limit } => write!(
                f,
                "web_fetch: this run's page budget ({limit}) is spent"
            ),
            OptionError::NumResults => {
                f.write_str("web_search: num_results must be a positive integer")
            }
            OptionError::Recency => {
                f.write_str("web_search: recency must be one of day, week, month, year")
            }
            OptionError::Site => f.write_str("web_search: site must be a non-empty string"),
            OptionError::SearchUnavailable => {
                f.write_str("web_search: no search provider is configured")
            }
        }
    }
}

/// One phase of a call, as a host's progress display shows it
/// ([`crate::progress`]). Never part of a result: these texts go to the
/// host's client, not to the model.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Progress {
    /// Looking up a host's addresses.
    Resolving {
        /// The host, as the parsed URL serializes it.
        host: String,
    },
    /// Connecting to its vetted addresses (and TLS).
    Connecting {
        /// The host.
        host: String,
    },
    /// The request is sent; waiting for the response head.
    Requesting {
        /// The URL, display form.
        url: String,
    },
    /// The response head arrived.
    Head {
        /// Its status code.
        status: u16,
    },
    /// A redirect is being followed.
    Redirect {
        /// Redirects followed so far, this one included.
        hop: u32,
        /// The target, display form.
        to: String,
    },
    /// Body bytes arrived (as sent, before decompression).
    Body {
        /// Bytes so far.
        bytes: u64,
    },
    /// The page is being turned into text.
    Extracting,
    /// The search request is with the provider.
    Searching,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Progress::Resolving { host } => write!(f, "looking up {}", Shown(host)),
            Progress::Connecting { host } => write!(f, "connecting to {}", Shown(host)),
            Progress::Requesting { url } => write!(f, "requesting {}", Shown(url)),
            Progress::Head { status } => write!(f, "response head: HTTP {status}"),
            Progress::Redirect { hop, to } => {
                write!(f, "following redirect {hop} to {}", Shown(to))
            }
            Progress::Body { bytes } => write!(f, "received {bytes} bytes"),
            Progress::Extracting => f.write_str("extracting the text"),
            Progress::Searching => f.write_str("waiting for the search provider"),
        }
    }
}

// The error types compose with the rest of Rust: `?` into
// `Box<dyn Error>`, `anyhow`, `thiserror` sources. Their `Display` is the
// contract's message; none wraps another error, so none has a source.
impl std::error::Error for Refusal {}
impl std::error::Error for HopRefusal {}
impl std::error::Error for FetchArgError {}
impl std::error::Error for FetchError {}
impl std::error::Error for SearchArgError {}
impl std::error::Error for SearchError {}
impl std::error::Error for OptionError {}

/// A boxed cause, as set-up errors keep them.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a fetcher, a search client, a provider or a TLS setting could not
/// be set up. Host-facing (never shown to a model); the cause, when there
/// is one, is the error's `source()`.
#[derive(Debug)]
#[non_exhaustive]
pub enum SetupError {
    /// The system DNS configuration could not be read.
    SystemDns(Cause),
    /// The DNS resolver could not be built.
    Resolver(Cause),
    /// No resolver was given and the `hickory` feature, which supplies
    /// the default, is off.
    NoResolver,
    /// A PEM input held a certificate that could not be decoded.
    PemCertificate(String),
    /// A PEM input held no certificate at all.
    NoPemCertificate,
    /// rustls refused an extra root certificate.
    Root(rustls::Error),
    /// rustls refused the TLS configuration.
    Tls(rustls::Error),
    /// A domain-list entry cannot be a host name.
    Domain(String),
    /// A search endpoint is not a URL.
    EndpointNotUrl {
        /// The endpoint as given.
        endpoint: String,
        /// Why the URL parser refused it.
        source: url::ParseError,
    },
    /// A search endpoint is a URL, but not http(s) with a host.
    EndpointScheme(String),
    /// The gateway provider has no endpoint configured.
    NoGatewayEndpoint,
    /// A provider that needs an API key has none.
    NoKey(&'static str),
    /// The searxng provider has no instance URL.
    NoInstance,
    /// No provider has this name.
    UnknownProvider(String),
    /// A policy limit that must be at least 1 is 0 (the field's name;
    /// [`crate::policy::Policy::validate`] checks every value).
    PolicyZero(&'static str),
    /// A policy duration that must be positive is zero (the field's name).
    PolicyZeroDuration(&'static str),
    /// The policy's User-Agent cannot be an HTTP header value.
    PolicyUserAgent,
    /// The policy's port list is empty.
    PolicyNoPorts,
    /// Built on a Tokio runtime whose time driver is off: every limit
    /// needs it (`Builder::enable_all` or `enable_time`).
    NoTimer,
    /// No TLS crypto provider: the `ring` feature is off and the host gave
    /// none (`TlsSettings::crypto_provider`).
    NoCryptoProvider,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::SystemDns(e) => write!(f, "system DNS configuration: {e}"),
            SetupError::Resolver(e) => write!(f, "DNS resolver: {e}"),
            SetupError::NoResolver => f.write_str(
                "no resolver: give FetcherBuilder::resolver one, or build with the hickory feature",
            ),
            SetupError::PemCertificate(e) => write!(f, "bad PEM certificate: {e}"),
            SetupError::NoPemCertificate => f.write_str("no certificate in the PEM input"),
            SetupError::Root(e) => write!(f, "extra root refused: {e}"),
            SetupError::Tls(e) => write!(f, "TLS configuration: {e}"),
            SetupError::Domain(d) => write!(f, "not a domain name: {d:?}"),
            SetupError::EndpointNotUrl { endpoint, source } => {
                write!(f, "search endpoint {endpoint:?} is not a URL: {source}")
            }
            SetupError::EndpointScheme(u) => {
                write!(
                    f,
                    "search endpoint {u} must be an http or https URL with a host"
                )
            }
            SetupError::NoGatewayEndpoint => f.write_str(
                "web_search is not offered: no search gateway endpoint is configured \
                 (set WEBGATE_SEARCH_ENDPOINT, or choose another provider with \
                 WEBGATE_SEARCH_PROVIDER)",
            ),
            SetupError::NoKey(provider) => write!(
                f,
                "web_search is not offered: the {provider} provider needs an API key \
                 (set WEBGATE_SEARCH_KEY)"
            ),
            SetupError::NoInstance => f.write_str(
                "web_search is not offered: the searxng provider needs the instance URL \
                 (set WEBGATE_SEARCH_ENDPOINT)",
            ),
            SetupError::UnknownProvider(name) => write!(
                f,
                "web_search is not offered: unknown search provider {name:?} (known: gateway, \
                 brave, searxng, tavily)"
            ),
            SetupError::PolicyZero(field) => write!(f, "policy: {field} must be at least 1"),
            SetupError::PolicyZeroDuration(field) => {
                write!(f, "policy: {field} must be longer than zero")
            }
            SetupError::PolicyUserAgent => f.write_str(
                "policy: user_agent must be a valid HTTP header value (visible ASCII and spaces)",
            ),
            SetupError::PolicyNoPorts => f.write_str("policy: ports must name at least one port"),
            SetupError::NoCryptoProvider => f.write_str(
                "no TLS crypto provider: give TlsSettings::crypto_provider one, or build with the ring feature",
            ),
            SetupError::NoTimer => f.write_str(
                "the Tokio runtime has no time driver: build it with enable_all() or enable_time()",
            ),
        }
    }
}

impl std::error::Error for SetupError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SetupError::SystemDns(e) | SetupError::Resolver(e) => Some(e.as_ref()),
            SetupError::Root(e) | SetupError::Tls(e) => Some(e),
            SetupError::EndpointNotUrl { source, .. } => Some(source),
            _ => None,
        }
    }
}
