//! The audit trail: one typed record per call saying what webgate decided
//! and did — which URL was asked for, what each name resolved to and which
//! blocked range refused an address, where the socket went, TLS, each
//! redirect and the hop rule's verdict, the body's class, codings and byte
//! counts, the extraction, and the time of every phase — so a host can
//! store it, and a refusal anywhere can be explained from it alone.
//!
//! The same decisions are emitted as `tracing` events (target `webgate`)
//! inside one span per call and one per request, for hosts that collect
//! logs instead.
//!
//! Redaction: URLs in records and events lose their query and userinfo
//! (each replaced by `REDACTED`), and a search query is reported by its
//! length only, unless the host opts in with [`AuditSettings`]. Header
//! values never appear: the Content-Type is reported by the class it was
//! sorted into, the charset by encoding name, codings by token, and a
//! redirect target only once it is admitted, as the URL of the next hop.
//! Tool output never changes with auditing.

use std::net::{IpAddr, SocketAddr};

use serde::Serialize;

use crate::policy::BlockedRange;

/// What the host lets records and events show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuditSettings {
    /// Keep query strings, userinfo and search queries (default: off).
    pub reveal_queries: bool,
}

impl AuditSettings {
    /// A URL as records may show it: scheme, host, port and path; the
    /// query and userinfo replaced by `REDACTED` unless revealed; never the
    /// fragment. An unparsable string is reported by its length only.
    pub(crate) fn url(&self, raw: &str) -> String {
        let Ok(u) = url::Url::parse(raw) else {
            return if self.reveal_queries {
                raw.to_string()
            } else {
                format!("unparsable URL of {} bytes", raw.len())
            };
        };
        let mut out = format!("{}://", u.scheme());
        let has_userinfo = !u.username().is_empty() || u.password().is_some();
        if has_userinfo {
            if self.reveal_queries {
                out.push_str(u.username());
                if let Some(p) = u.password() {
                    out.push(':');
                    out.push_str(p);
                }
                out.push('@');
            } else {
                out.push_str("REDACTED@");
            }
        }
        out.push_str(u.host_str().unwrap_or_default());
        if let Some(p) = u.port() {
            out.push_str(&format!(":{p}"));
        }
        out.push_str(u.path());
        match u.query() {
            Some(q) if self.reveal_queries => {
                out.push('?');
                out.push_str(q);
            }
            Some(_) => out.push_str("?REDACTED"),
            None => {}
        }
        out
    }
}

/// Milliseconds, as records show durations.
pub(crate) fn ms(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// The record of one call, `web_fetch` or `web_search`, read as JSON
/// ([`to_json`] or [`to_json_line`]): a record is what a host stores, so
/// its one public form is the stored one, and its fields can grow without
/// a new API.
///
/// ## A fetch's record
///
/// `tool` (`web_fetch`), `requested_url` (redacted),
/// `args_refused` (a message id), `admission` (`admitted` or the rule's
/// message id), `hops` (one per request, in order), `robots` (one verdict
/// per URL judged, when the policy reads robots.txt), `reader` (the host's
/// reader service's own record, when the agent layer fell back to it),
/// `class` (`ok`, `soft`, `hard`), `id` (the outcome's message id),
/// `extraction`, `truncated`, `chars`, `extract_ms`, `extract_cut`
/// (`output budget` or `time limit`), `total_ms`.
///
/// Each hop: `url`, `retry` (repeats a request whose connection ended
/// before the response began), `reused` (went on a kept connection or a
/// shared h2 stream), `stale_connections`, `addresses` (`ip`, `allowed`,
/// and for a refused address `range` and `range_name` from the blocked
/// table), `dials` (`addr`, `outcome`), `tls` (`version`, `alpn`),
/// `status`, `redirect` (`verdict`: `followed` or `refused`, `to`,
/// `reason`), `body` (`class`: `html`, `structured`, `text`, `refused`,
/// `missing`; `charset`, `encodings`, `declared_length`,
/// `bytes_received`, `bytes_inflated`, `cap`: `refused` or `truncated`),
/// `phases` (`resolve_ms`, `connect_ms`, `tls_ms`, `head_ms`, `body_ms`),
/// `failed_at` (`resolve`, `vet`, `connect`, `tls`, `head`, `redirect`,
/// `status`, `content-type`, `charset`, `body`, `extract`) and `cause`
/// (rustls's or hyper's own words, for the host only). Each robots
/// verdict: `url`, `verdict` (`allowed`, `disallowed`, `unreachable`),
/// `file` (`rules`, `unavailable`, `unreachable`), `remembered`, and the
/// `hops` that read the file.
///
/// ## A search's record
///
/// `tool` (`web_search`), `provider` (`gateway`, `brave`, …), `query`
/// (only when the host reveals queries), `query_chars`, `args_refused`,
/// `status` (the provider's HTTP status), `bytes`, `rows`, `failure`
/// (`invalid_arguments`, or the transport or backend kind),
/// `retry_after_s`, `class` (`ok` or `hard`), `id`, `total_ms`.
///
/// [`to_json`]: Record::to_json
/// [`to_json_line`]: Record::to_json_line
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Record(Call);

/// Which tool's record.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
enum Call {
    Fetch(FetchAudit),
    Search(SearchAudit),
}

impl Record {
    pub(crate) fn fetch(audit: FetchAudit) -> Record {
        Record(Call::Fetch(audit))
    }

    pub(crate) fn search(audit: SearchAudit) -> Record {
        Record(Call::Search(audit))
    }

    /// The record as one line of JSON.
    pub fn to_json_line(&self) -> String {
        // OK because every field serializes (strings, numbers, options).
        serde_json::to_string(self).expect("audit record serializes")
    }

    /// The record as a JSON value, to read a field by its pointer
    /// (`/hops/0/failed_at`).
    pub fn to_json(&self) -> serde_json::Value {
        // OK because every field serializes (strings, numbers, options).
        serde_json::to_value(self).expect("audit record serializes")
    }
}

/// Declares one closed set of words a record uses, each serialized as its
/// word: the audit's vocabulary is typed, so a misspelt phase cannot reach
/// a host's log, and a host can match on it.
macro_rules! audit_words {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident => $s:literal,)+ }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub(crate) enum $name {
            $($(#[$vm])* $v,)+
        }

        impl $name {
            /// The word records and events show.
            pub(crate) fn as_str(self) -> &'static str {
                match self {
                    $($name::$v => $s,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

audit_words! {
    /// Where a request failed: the phase of the IO loop that ended it.
    FailedAt {
        /// The name lookup failed or timed out.
        Resolve => "resolve",
        /// Every address was in a blocked range.
        Vet => "vet",
        /// No connection attempt succeeded in the connect limit.
        Connect => "connect",
        /// The TLS handshake failed or timed out.
        Tls => "tls",
        /// No response head arrived.
        Head => "head",
        /// The hop rule refused the redirect.
        Redirect => "redirect",
        /// The status was not 2xx (nor a redirect).
        Status => "status",
        /// The Content-Type was missing or refused.
        ContentType => "content-type",
        /// The charset is not one the decoder knows.
        Charset => "charset",
        /// The body was refused by the cap, or could not be read.
        Body => "body",
        /// The whole call's limit (`Policy::call_timeout`) passed while
        /// the page was being made into text.
        Extract => "extract",
    }
}

audit_words! {
    /// The hop rule's verdict on a redirect.
    RedirectVerdict {
        /// The next URL was admitted and requested.
        Followed => "followed",
        /// The next URL was refused.
        Refused => "refused",
    }
}

audit_words! {
    /// What robots.txt said of one URL.
    RobotsVerdict {
        /// The URL may be fetched.
        Allowed => "allowed",
        /// A rule disallows it.
        Disallowed => "disallowed",
        /// The file could not be read, which disallows everything.
        Unreachable => "unreachable",
    }
}

audit_words! {
    /// How an origin's robots.txt was read.
    RobotsFile {
        /// Read and parsed.
        Rules => "rules",
        /// 4xx, or a redirect not followed: everything allowed.
        Unavailable => "unavailable",
        /// 5xx, network failure or time-out: everything disallowed.
        Unreachable => "unreachable",
    }
}

audit_words! {
    /// The class a body's Content-Type was sorted into.
    BodyClass {
        /// HTML, extracted.
        Html => "html",
        /// JSON, XML and the like, returned as text.
        Structured => "structured",
        /// Flat text.
        Text => "text",
        /// A type the contract refuses.
        Refused => "refused",
        /// No usable Content-Type.
        Missing => "missing",
    }
}

audit_words! {
    /// What the body cap did.
    CapAction {
        /// The body was refused (declared or inflated over the cap).
        Refused => "refused",
        /// Flat text was cut at the cap.
        Truncated => "truncated",
    }
}

/// The record of one `web_fetch` call (its JSON form is [`Record`]'s).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct FetchAudit {
    /// Always `web_fetch`.
    pub(crate) tool: &'static str,
    /// The `url` argument, redacted; `None` when the arguments had none.
    pub(crate) requested_url: Option<String>,
    /// The message id when the arguments were refused.
    pub(crate) args_refused: Option<&'static str>,
    /// The admission verdict of the first URL: `admitted`, or the id of
    /// the rule's message.
    pub(crate) admission: Option<&'static str>,
    /// One entry per request made, in order (a redirect starts the next).
    pub(crate) hops: Vec<HopAudit>,
    /// The robots.txt verdicts, one per URL judged, when the policy reads
    /// robots.txt (empty otherwise).
    pub(crate) robots: Vec<RobotsAudit>,
    /// The host's reader service, when the agent layer fell back to it:
    /// that fetch's own record.
    pub(crate) reader: Option<Box<FetchAudit>>,
    /// `ok`, `soft` or `hard`.
    pub(crate) class: &'static str,
    /// The outcome's message id (`fetch.ok` on success).
    pub(crate) id: &'static str,
    /// `readability`, `raw-html` or `plain`, on success.
    pub(crate) extraction: Option<String>,
    /// Whether the text was cut, on success.
    pub(crate) truncated: Option<bool>,
    /// Characters returned, on success.
    pub(crate) chars: Option<usize>,
    /// Time spent decoding and extracting text.
    pub(crate) extract_ms: Option<f64>,
    /// Why extraction's text stopped before the end of the page, when it
    /// did: `output budget` or `time limit`.
    pub(crate) extract_cut: Option<&'static str>,
    /// Wall time of the whole call.
    pub(crate) total_ms: f64,
}

impl FetchAudit {
    pub(crate) fn new() -> Self {
        FetchAudit {
            tool: "web_fetch",
            ..Default::default()
        }
    }
}

/// One robots.txt verdict: the URL judged and how its origin's file was
/// read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct RobotsAudit {
    /// The URL judged, redacted.
    pub(crate) url: String,
    /// What the file said of the URL.
    pub(crate) verdict: RobotsVerdict,
    /// How the file was read.
    pub(crate) file: RobotsFile,
    /// The file was read earlier in this run; no request was made.
    pub(crate) remembered: bool,
    /// The requests that read the file, in order.
    pub(crate) hops: Vec<HopAudit>,
}

/// One request: the URL, the addresses, the dials, TLS, the head, the body.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct HopAudit {
    /// The URL requested, redacted.
    pub(crate) url: String,
    /// This request repeats the one before it, whose connection ended
    /// before the response began (retried once, on a fresh lookup and
    /// connection, within the same deadline).
    pub(crate) retry: bool,
    /// The request went on a connection kept from an earlier request to
    /// the same host and address, or on a stream of an h2 connection
    /// another fetch to that host was using (this hop's own lookup
    /// returned the address again and the table allowed it again); no
    /// dial, no handshake, unless this fetch began to connect at the same
    /// time as the other and came second (its `dials` show it; its own
    /// connection closed unused).
    pub(crate) reused: bool,
    /// Kept connections found closed and passed over before this
    /// request's connection.
    pub(crate) stale_connections: u32,
    /// Every address the name resolved to, in the resolver's order.
    pub(crate) addresses: Vec<AddressAudit>,
    /// Every connection attempt, in order (vetted addresses only).
    pub(crate) dials: Vec<DialAudit>,
    /// The TLS session, once the handshake completed.
    pub(crate) tls: Option<TlsAudit>,
    /// The response status.
    pub(crate) status: Option<u16>,
    /// The hop rule's verdict when the status was a redirect.
    pub(crate) redirect: Option<RedirectAudit>,
    /// The body, when it was read.
    pub(crate) body: Option<BodyAudit>,
    /// Time per phase.
    pub(crate) phases: Phases,
    /// Where this request failed, with the outcome's id at the top of
    /// the record.
    pub(crate) failed_at: Option<FailedAt>,
    /// The error behind a TLS or HTTP failure (rustls's or hyper's own
    /// words), for the host: the model's text only ever says "network
    /// error".
    pub(crate) cause: Option<String>,
}

/// One resolved address and its verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct AddressAudit {
    /// The address.
    pub(crate) ip: IpAddr,
    /// Whether the blocked table let it through.
    pub(crate) allowed: bool,
    /// The blocked range, in the table's notation (`127.0.0.0/8`).
    pub(crate) range: Option<String>,
    /// The registry's name of that range (`Loopback`).
    pub(crate) range_name: Option<&'static str>,
}

impl AddressAudit {
    pub(crate) fn new(ip: IpAddr, verdict: Result<(), BlockedRange>) -> Self {
        match verdict {
            Ok(()) => AddressAudit {
                ip,
                allowed: true,
                range: None,
                range_name: None,
            },
            Err(r) => AddressAudit {
                ip,
                allowed: false,
                range: Some(r.to_string()),
                range_name: Some(r.name()),
            },
        }
    }
}

/// One connection attempt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct DialAudit {
    /// Where the socket went.
    pub(crate) addr: SocketAddr,
    /// `connected`, or the error's kind (`connection refused`, …), or
    /// `timed out` when the connect limit ended it.
    pub(crate) outcome: String,
}

/// The TLS session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct TlsAudit {
    /// `TLSv1_3`, `TLSv1_2`.
    pub(crate) version: String,
    /// The negotiated protocol: `h2`, `http/1.1`, or none.
    pub(crate) alpn: Option<String>,
}

/// A redirect and the hop rule's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct RedirectAudit {
    /// Followed or refused.
    pub(crate) verdict: RedirectVerdict,
    /// The next URL, redacted, when followed.
    pub(crate) to: Option<String>,
    /// The reason's message id, when refused.
    pub(crate) reason: Option<&'static str>,
}

/// The body of the final response.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub(crate) struct BodyAudit {
    /// The class of its Content-Type, once judged (robots.txt files are
    /// read whatever their type: none).
    pub(crate) class: Option<BodyClass>,
    /// The encoding used to decode it (`UTF-8`, `Shift_JIS`, …).
    pub(crate) charset: Option<&'static str>,
    /// The content codings, as listed.
    pub(crate) encodings: Vec<&'static str>,
    /// The declared Content-Length, if any.
    pub(crate) declared_length: Option<u64>,
    /// Bytes received from the network.
    pub(crate) bytes_received: u64,
    /// Bytes the decoders produced (at most one past the cap).
    pub(crate) bytes_inflated: u64,
    /// What the cap did, when it acted.
    pub(crate) cap: Option<CapAction>,
}

/// Milliseconds per phase of one request.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct Phases {
    /// DNS.
    pub(crate) resolve_ms: Option<f64>,
    /// TCP (every attempt).
    pub(crate) connect_ms: Option<f64>,
    /// The TLS handshake.
    pub(crate) tls_ms: Option<f64>,
    /// Request sent to response head.
    pub(crate) head_ms: Option<f64>,
    /// Reading and inflating the body.
    pub(crate) body_ms: Option<f64>,
}

/// The record of one `web_search` call (its JSON form is [`Record`]'s).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct SearchAudit {
    /// Always `web_search`.
    pub(crate) tool: &'static str,
    /// The provider's name (`gateway`, `brave`, …).
    pub(crate) provider: &'static str,
    /// The query, when the host reveals queries.
    pub(crate) query: Option<String>,
    /// The query's length in characters.
    pub(crate) query_chars: Option<usize>,
    /// The message id when the arguments were refused.
    pub(crate) args_refused: Option<&'static str>,
    /// The provider's HTTP status, when one answered.
    pub(crate) status: Option<u16>,
    /// Body bytes received from the provider.
    pub(crate) bytes: Option<u64>,
    /// Rows returned, on success.
    pub(crate) rows: Option<usize>,
    /// The failure family (`invalid_arguments`, transport, backend kinds).
    pub(crate) failure: Option<String>,
    /// The provider's Retry-After in whole seconds, when it refused with one.
    pub(crate) retry_after_s: Option<u64>,
    /// `ok` or `hard`.
    pub(crate) class: &'static str,
    /// The outcome's message id.
    pub(crate) id: &'static str,
    /// Wall time of the whole call.
    pub(crate) total_ms: f64,
}

impl SearchAudit {
    /// The record of a search refused because no provider is configured.
    #[cfg(feature = "agent")]
    pub(crate) fn unavailable(outcome: &crate::tool::Outcome) -> SearchAudit {
        SearchAudit {
            tool: "web_search",
            provider: "none",
            class: outcome.class.as_str(),
            id: outcome.id,
            ..Default::default()
        }
    }
}
