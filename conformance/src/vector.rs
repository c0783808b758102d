//! The vector format. One TOML file per contract section under `vectors/`,
//! each holding `[[test]]` tables:
//!
//! ```toml
//! [[test]]
//! name = "plain text comes back verbatim"   # unique within the file
//! id = "fetch.ok"                            # the message id it pins
//! tool = "web_fetch"                         # or "web_search"
//! args = '{"url": "https://a.example/"}'     # JSON, exactly as a model sends it
//!
//! # DNS: per host, one answer per lookup in order (the last repeats).
//! # An answer is a list of addresses, or "nxdomain", "servfail", "hang".
//! [test.dns]
//! "a.example" = [["93.184.216.34"]]
//!
//! [[test.server]]
//! addr = "93.184.216.34:443"
//! names = ["a.example"]        # certificate names (default: hosts answered with addr)
//! cert = "valid"               # valid | wrong-name | expired | self-signed
//! alpn = "http/1.1"            # or "h2"
//! tls = "ok"                   # ok | stall | plain (speaks no TLS)
//! connect = "ok"               # ok | refuse | hang
//! keep_alive = 2               # HTTP/1.1: requests a connection answers
//! max_streams = 1              # h2: SETTINGS_MAX_CONCURRENT_STREAMS
//! goaway_after = 1             # h2: GOAWAY once this many streams came
//! streams_per_connection = 1   # h2: refuse (REFUSED_STREAM) every later one
//!
//! [[test.server.response]]      # one per request, in order (the last repeats)
//! status = 200
//! headers = [["Content-Type", "text/plain"]]
//! body = "hello"               # or body_b64, or body_repeat = {text, times}
//! encode = ["gzip"]            # compress the body (headers are not added;
//!                               # "gzip-members": two gzip members)
//! framing = "length"           # length | chunked | close
//! content_length = 10          # a declared length that may lie
//! chunk_size = 4096            # bytes per write / chunk
//! delay_head_ms = 0            # before the status line
//! delay_chunk_ms = 0           # before each chunk
//! drop_after = 100             # close after this many body bytes
//! raw = "HTTP/1.1 200 OK\r\n…"  # send exactly this instead
//!
//! [test.expect]
//! class = "ok"                 # ok | soft | hard
//! kind = "InvalidArguments"    # hard only
//! text = "url: …"              # the whole text
//! dials = ["93.184.216.34:443"]  # optional: exactly these dials, in order
//! request_headers = [["host", "a.example"], …]  # optional: exactly these, in order
//! request_body = '{"query":"rust"}'  # optional: the first request's body
//! ```
//!
//! An `agent:web_fetch` or `agent:web_search` vector runs the call through
//! the agent layer with `agent = { envelope = true, paging = true, … }`
//! (every option off unless named; `calls = N` repeats the call N times in
//! one run and checks the last; `concurrent = true` makes them at once,
//! `stagger_ms` apart; `reply` can check `/calls`, every call's class). Its text is what the model is handed,
//! with the envelope's random tag written `{tag}`. Any vector's `policy`
//! may set `max_chars`, `body_cap`, `connect_timeout_ms`,
//! `request_timeout_ms`, `extract_timeout_ns`, `call_timeout_ms`,
//! `allow_domains` and `deny_domains`.
//!
//! A `web_search` vector talks to a scripted gateway: `gateway` (default
//! `https://gw.example/search`) and `key` set the provider, and a server
//! whose `names` hold the gateway's host answers on the endpoint's port
//! (`tls = "off"` for an `http://` endpoint).
//!
//! ```toml
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

/// A vector file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    /// The vectors.
    #[serde(default)]
    pub test: Vec<Vector>,
}

/// One vector.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Vector {
    pub name: String,
    pub id: String,
    pub tool: String,
    pub args: String,
    #[serde(default)]
    pub dns: BTreeMap<String, Vec<Answer>>,
    #[serde(default)]
    pub server: Vec<Server>,
    #[serde(default)]
    pub policy: PolicyOverride,
    /// The search gateway's endpoint (default `https://gw.example/search`).
    pub gateway: Option<String>,
    /// The search gateway's key.
    pub key: Option<String>,
    /// For `agent:web_fetch` / `agent:web_search`: the options on.
    pub agent: Option<AgentVector>,
    pub expect: Expect,
}

/// The agent layer's options for one vector (all off unless named), and
/// how many times the call is made in one run (the last reply counts).
#[derive(Debug, Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct AgentVector {
    #[serde(default)]
    pub envelope: bool,
    #[serde(default)]
    pub paging: bool,
    #[serde(default)]
    pub result_notes: bool,
    #[serde(default)]
    pub block_detection: bool,
    #[serde(default)]
    pub failure_notes: bool,
    pub search_budget: Option<u32>,
    pub fetch_budget: Option<u32>,
    #[serde(default)]
    pub search_aliases: bool,
    #[serde(default)]
    pub numbered_search: bool,
    /// Build the toolbox without a search provider.
    #[serde(default)]
    pub no_provider: bool,
    pub calls: Option<usize>,
    /// Make the `calls` at once, in one run, instead of one after another
    /// (the reply compared is the last one started).
    #[serde(default)]
    pub concurrent: bool,
    /// With `concurrent`: call `i` starts `i × stagger_ms` after the
    /// first (on the paused clock), so that earlier calls are in flight.
    #[serde(default)]
    pub stagger_ms: u64,
    /// The reader fallback's prefix.
    pub reader: Option<String>,
}

/// Host-side policy changes for one vector.
#[derive(Debug, Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct PolicyOverride {
    pub max_chars: Option<usize>,
    pub body_cap: Option<u64>,
    pub connect_timeout_ms: Option<u64>,
    pub request_timeout_ms: Option<u64>,
    /// The extraction limit in nanoseconds (1 stops it at once).
    pub extract_timeout_ns: Option<u64>,
    /// The whole call's limit (contract §13; none unless set).
    pub call_timeout_ms: Option<u64>,
    #[serde(default)]
    pub allow_domains: Vec<String>,
    #[serde(default)]
    pub deny_domains: Vec<String>,
    /// Read robots.txt before every URL.
    #[serde(default)]
    pub robots_txt: bool,
    /// Switch connection reuse off (it is on by default).
    #[serde(default)]
    pub no_reuse: bool,
    /// Idle connections kept per host.
    pub idle_per_host: Option<usize>,
}

/// One DNS answer.
#[derive(Debug, Deserialize, Clone)]
#[serde(untagged)]
pub enum Answer {
    Addresses(Vec<String>),
    Special(String),
}

/// A scripted server.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Server {
    pub addr: String,
    #[serde(default)]
    pub names: Vec<String>,
    #[serde(default = "valid")]
    pub cert: String,
    #[serde(default = "http11")]
    pub alpn: String,
    #[serde(default = "ok")]
    pub tls: String,
    #[serde(default = "ok")]
    pub connect: String,
    #[serde(default)]
    pub response: Vec<Response>,
    /// HTTP/1.1 only: answer this many requests on one connection, then
    /// close it when the next request arrives (0: one response, then
    /// the server's side is shut).
    #[serde(default)]
    pub keep_alive: usize,
    /// h2 only: the `SETTINGS_MAX_CONCURRENT_STREAMS` the server sends.
    pub max_streams: Option<u32>,
    /// h2 only: start a graceful shutdown (GOAWAY) on a connection once
    /// it has accepted this many streams; those streams are still
    /// answered.
    pub goaway_after: Option<usize>,
    /// h2 only: answer this many streams on a connection and refuse every
    /// later one (RST_STREAM REFUSED_STREAM: not processed).
    pub streams_per_connection: Option<usize>,
}

fn valid() -> String {
    "valid".into()
}
fn http11() -> String {
    "http/1.1".into()
}
fn ok() -> String {
    "ok".into()
}

/// One scripted response.
#[derive(Debug, Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct Response {
    #[serde(default = "status_ok")]
    pub status: u16,
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    pub body_b64: Option<String>,
    pub body_repeat: Option<Repeat>,
    #[serde(default)]
    pub encode: Vec<String>,
    pub framing: Option<String>,
    pub content_length: Option<u64>,
    pub chunk_size: Option<usize>,
    #[serde(default)]
    pub delay_head_ms: u64,
    #[serde(default)]
    pub delay_chunk_ms: u64,
    pub drop_after: Option<usize>,
    pub raw: Option<String>,
}

fn status_ok() -> u16 {
    200
}

/// A body made of one text repeated, between an optional head and tail.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    pub text: String,
    pub times: usize,
    #[serde(default)]
    pub head: String,
    #[serde(default)]
    pub tail: String,
}

/// The exact expectation.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub class: String,
    pub kind: Option<String>,
    pub text: String,
    pub dials: Option<Vec<String>>,
    pub request_headers: Option<Vec<(String, String)>>,
    /// The request targets (path and query) the servers saw, in the order
    /// they arrived.
    pub requests: Option<Vec<String>>,
    /// The body of the (first) request, exactly.
    pub request_body: Option<String>,
    /// h2: the connection (each server's, numbered from 0 as accepted)
    /// every request came on, in the order they arrived.
    pub connections: Option<Vec<usize>>,
    /// `[JSON pointer, JSON value]` pairs that must hold in the call's
    /// audit record.
    pub audit: Option<Vec<(String, String)>>,
    /// Strings the serialized audit record must not contain (redaction).
    pub audit_absent: Option<Vec<String>>,
    /// `[JSON pointer, JSON value]` pairs that must hold in an agent
    /// reply: `/meta/…`, `/notes` (ids), `/summary`, `/rows`, `/tools`
    /// (the names still offered after the call).
    pub reply: Option<Vec<(String, String)>>,
}
