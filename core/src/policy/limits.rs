//! The [`Policy`]: every limit a host may set (contract §10).
//!
//! A prompt never reaches this struct; per-call arguments can only ask for
//! less than it allows (see [`crate::args`]). The blocked-address table is
//! deliberately not here: it is not a setting.

use std::time::Duration;

use super::DomainRules;
use crate::messages::SetupError;

/// How a page's links are shown in the markdown a fetch returns (contract
/// §13). Plain text never shows link targets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Links {
    /// `[text](url)` where the link stands (the default); each URL at its
    /// first link only: a later link to it is its text.
    #[default]
    Inline,
    /// `[text][n]` where the link stands, and each URL once, numbered,
    /// after the text (`[n]: url`): the text reads without URLs in it.
    References,
    /// The link's text only; no URL and no image is shown.
    None,
}

impl Links {
    /// The setting's name, as the CLI takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Links::Inline => "inline",
            Links::References => "references",
            Links::None => "none",
        }
    }
}

impl std::str::FromStr for Links {
    type Err = String;

    fn from_str(s: &str) -> Result<Links, String> {
        match s {
            "inline" => Ok(Links::Inline),
            "references" => Ok(Links::References),
            "none" => Ok(Links::None),
            _ => Err(format!(
                "links must be inline, references or none, not {s:?}"
            )),
        }
    }
}

/// Whether the reader comments under an article are shown (contract
/// §13), and with them the customers' reviews under a product. A forum
/// thread's or a Q&A page's replies are its content and are shown either
/// way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Comments {
    /// Left out (the default).
    #[default]
    Drop,
    /// Shown after the article, under a `Comments` heading of their own.
    Keep,
}

impl Comments {
    /// The setting's name, as the CLI takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Comments::Drop => "drop",
            Comments::Keep => "keep",
        }
    }
}

impl std::str::FromStr for Comments {
    type Err = String;

    fn from_str(s: &str) -> Result<Comments, String> {
        match s {
            "drop" => Ok(Comments::Drop),
            "keep" => Ok(Comments::Keep),
            _ => Err(format!("comments must be drop or keep, not {s:?}")),
        }
    }
}

/// The limits one host applies to every call. Build it from
/// [`Policy::default`] and lower or raise what the host needs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Policy {
    /// Effective ports a URL may name (default 80 and 443).
    pub ports: Vec<u16>,
    /// The most characters a fetch returns, and the maximum of `max_chars`
    /// (default 40,000).
    pub max_chars: usize,
    /// The body cap in bytes, counted after decompression (default 8,388,608).
    pub body_cap: u64,
    /// The TCP connect limit per request, all addresses included (default 5 s).
    pub connect_timeout: Duration,
    /// How long one connection attempt runs alone before the next address
    /// is tried beside it (default 250 ms, RFC 8305's); a failed attempt
    /// starts the next at once. Zero starts every attempt together.
    pub connect_attempt_delay: Duration,
    /// The limit of one request or redirect hop, from lookup to last body
    /// byte (default 20 s).
    pub request_timeout: Duration,
    /// The limit of turning a fetched HTML page into text, after its last
    /// hop (default 10 s). Extraction is linear in the page and an 8 MiB
    /// page takes well under a second; past this limit the text made so
    /// far is returned, marked truncated.
    pub extract_timeout: Duration,
    /// The limit of one whole `web_fetch` call, every hop, robots.txt
    /// read and the extraction included (contract §13; default: none, so
    /// that the per-request limits of §5 stand). When it passes, the call
    /// answers with the time-limit text of §5 for the URL being fetched.
    pub call_timeout: Option<Duration>,
    /// How many redirects are followed (default 5).
    pub max_redirects: u32,
    /// The `User-Agent` header (default `harness-webfetch/0.0`).
    pub user_agent: String,
    /// The deadline of one whole search exchange (default 30 s).
    pub search_deadline: Duration,
    /// The largest search response body read (default 262,144 bytes).
    pub search_body_cap: u64,
    /// Where a backend's error body is cut, in bytes (default 2,000).
    pub search_error_cut: usize,
    /// Domain allow and deny lists for fetch, checked on every hop
    /// (default: none).
    pub domains: DomainRules,
    /// Read the origin's `/robots.txt` (RFC 9309) before every URL a fetch
    /// requests, the first and each redirect target, and refuse what it
    /// does not allow the product token of `user_agent` (default: off).
    /// The file is fetched under this same policy, all its hops within one
    /// `request_timeout`; one run reads an origin's file once.
    pub robots_txt: bool,
    /// Keep connections idle after a response read to the end, for later
    /// requests of the same `Fetcher`, and share an h2 connection's
    /// streams among the fetches to its host while it is in use (default:
    /// on). A kept or shared connection serves only a request for the
    /// same host whose own lookup, made as always, returned its address
    /// again and the table allowed again; never another name, never after
    /// a response that said `Connection: close` or a GOAWAY. Off: every
    /// request dials.
    pub connection_reuse: bool,
    /// At most this many kept connections per host (default 64): idle
    /// HTTP/1.1 ones and h2 ones, in use or not.
    pub idle_per_host: usize,
    /// At most this many kept connections in all (default 256).
    pub idle_total: usize,
    /// A connection idle this long is closed (default 30 s; zero keeps
    /// none).
    pub idle_timeout: Duration,
    /// How links are shown in a fetched page's markdown (default
    /// [`Links::Inline`]).
    pub links: Links,
    /// Whether reader comments under an article are shown (default
    /// [`Comments::Drop`]).
    pub comments: Comments,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            ports: vec![80, 443],
            max_chars: 40_000,
            body_cap: 8_388_608,
            connect_timeout: Duration::from_secs(5),
            connect_attempt_delay: Duration::from_millis(250),
            request_timeout: Duration::from_secs(20),
            extract_timeout: Duration::from_secs(10),
            call_timeout: None,
            max_redirects: 5,
            user_agent: "harness-webfetch/0.0".to_string(),
            search_deadline: Duration::from_secs(30),
            search_body_cap: 262_144,
            search_error_cut: 2_000,
            domains: DomainRules::default(),
            robots_txt: false,
            connection_reuse: true,
            idle_per_host: 64,
            idle_total: 256,
            idle_timeout: Duration::from_secs(30),
            links: Links::Inline,
            comments: Comments::Drop,
        }
    }
}

impl Policy {
    /// The characters a call returns at most: what it asked for
    /// (`max_chars`), never more than the policy's limit; the limit when
    /// it asked nothing. The one place the limit is applied.
    pub(crate) fn max_chars_for(&self, asked: Option<usize>) -> usize {
        asked.unwrap_or(self.max_chars).min(self.max_chars)
    }

    /// How long a fetch may take at most, all hops and the extraction
    /// included: a bound for hosts that wrap calls in their own time-outs
    /// (saturating: `Duration::MAX` limits give `Duration::MAX`).
    pub fn worst_case_duration(&self) -> Duration {
        // With robots.txt read, each hop may first read its origin's file,
        // all of that file's hops within one more request limit.
        let per_hop = if self.robots_txt { 2 } else { 1 };
        let hops = self
            .request_timeout
            .saturating_mul(per_hop)
            .saturating_mul(self.max_redirects.saturating_add(1))
            .saturating_add(self.extract_timeout);
        // The whole call's limit, when set, bounds all of it.
        self.call_timeout.map_or(hops, |c| c.min(hops))
    }

    /// Checks every value: counts and limits that must be at least 1 are,
    /// durations that must pass are longer than zero, the User-Agent can be
    /// a header value, a port is allowed. Any value that passes is safe to
    /// run with: limits too long to add to the clock (`Duration::MAX` for
    /// "no limit") are deadlines that never come, and every sum saturates.
    /// [`crate::fetch::FetcherBuilder::build`] and the search client check
    /// it (its error is theirs: a policy out of range is a set-up error);
    /// a host building its own tools may call it first.
    pub fn validate(&self) -> Result<(), SetupError> {
        if self.ports.is_empty() {
            return Err(SetupError::PolicyNoPorts);
        }
        for (n, field) in [
            (self.max_chars as u64, "max_chars"),
            (self.body_cap, "body_cap"),
            (self.search_body_cap, "search_body_cap"),
        ] {
            if n == 0 {
                return Err(SetupError::PolicyZero(field));
            }
        }
        for (d, field) in [
            (self.connect_timeout, "connect_timeout"),
            (self.request_timeout, "request_timeout"),
            (self.extract_timeout, "extract_timeout"),
            (self.search_deadline, "search_deadline"),
            (self.call_timeout.unwrap_or(Duration::MAX), "call_timeout"),
        ] {
            if d.is_zero() {
                return Err(SetupError::PolicyZeroDuration(field));
            }
        }
        // What an HTTP header value may hold (RFC 9110 field-value, without
        // obs-text): visible ASCII, spaces and tabs, not empty.
        let ua = self.user_agent.as_bytes();
        let visible = |b: &u8| *b == b'\t' || (0x20..0x7f).contains(b);
        if ua.is_empty() || !ua.iter().all(visible) {
            return Err(SetupError::PolicyUserAgent);
        }
        Ok(())
    }

    /// True when `port` may be named by a URL.
    pub(crate) fn allows_port(&self, port: u16) -> bool {
        self.ports.contains(&port)
    }
}
