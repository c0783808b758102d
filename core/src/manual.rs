//! # The webgate manual: threat model and defaults
//!
//! This module holds no code; it is the documentation a host reads before
//! handing these tools to a model.
//!
//! ## Threat model
//!
//! The model is not trusted, and neither is anything it reads. A prompt
//! injected into a page or a search result can make the model ask for any
//! URL, with any arguments, as often as it likes. webgate therefore treats
//! every argument as hostile and every byte from the network as hostile:
//!
//! - **Server-side request forgery.** The model must never reach the
//!   host's own network: loopback, private ranges, link-local cloud
//!   metadata (`169.254.169.254`, `fd00:ec2::254`), carrier-grade NAT, or
//!   any other special-purpose range. URLs are admitted by five fixed rules
//!   before any network access ([`crate::policy::admit`]): https only, no
//!   userinfo, ports 80 and 443, no IP-literal hosts in any notation (the
//!   WHATWG parser decides what a host is, so `0x7f.1`, `2130706433` and
//!   `[::ffff:127.0.0.1]` are all caught as literals). Every address a name
//!   resolves to is judged by a table compiled from the IANA
//!   special-purpose registries ([`crate::policy::vet`]); only a
//!   [`crate::policy::VettedAddr`] can be dialled, so no code path can
//!   connect to a blocked address. Names are resolved afresh for every
//!   request and every redirect hop, with no cache, so DNS rebinding gains
//!   nothing: the address that is dialled is the address that was vetted.
//! - **Redirects.** Followed by hand (at most 5), each hop re-admitted and
//!   re-resolved; `https` to `http` is refused.
//! - **Hostile servers.** Time limits (5 s connect, 20 s per request),
//!   a body cap of 8 MiB counted *after* decompression as bytes are
//!   produced (a 1 GiB gzip bomb stops after at most one decoder step past
//!   the cap), bounded header and coding stacks, and a body that breaks
//!   off is an error, never partial text.
//! - **Hostile pages.** Extraction is linear in the page by construction,
//!   so one page cannot take the process down: the tree is at most 512
//!   deep and holds at most one node per 10 bytes; the tree builder's work
//!   (the depth of each token times the nodes it makes) has a budget of 8
//!   units per byte, past which the rest of the page is kept as plain text
//!   without the builder; a tag keeps at most 64 attributes (the
//!   tokenizer's duplicate check is quadratic in them); rendering opens at
//!   most 16 nested constructs, prefixes a line with at most 12 bytes of
//!   quote and list markers, and writes at most 4× the page plus 64 KiB.
//!   Extraction runs on a blocking thread within its own limit (10 s by
//!   default, `extract_timeout`); past any of these the text made so far
//!   comes back with `truncated: true`. Real pages use a small part of
//!   every budget.
//! - **Prompt injection in results.** Every result is third-party text.
//!   With the envelope on (`crate::agent::envelope`), results reach the
//!   model between markers carrying a fresh random tag, under a header that
//!   says the text is quoted material, not instructions; a page cannot
//!   close the quote because it cannot know the tag.
//! - **Hosts' secrets.** The search provider's endpoint and key come from
//!   the host, never from arguments. Audit records redact query strings and
//!   userinfo unless the host opts in ([`crate::audit::AuditSettings`]).
//!
//! Out of scope: what the model does with true information, JavaScript
//! rendering (pages are read as served), and the host's own outbound
//! proxying (proxy variables are ignored on purpose: they would move the
//! connection away from the vetted address).
//!
//! ## Defaults (contract §10) and why
//!
//! | setting | default | why |
//! |---|---|---|
//! | schemes | https | plain http can be rewritten by anyone on the path |
//! | ports | 80, 443 | other ports are where internal services listen |
//! | character limit | 40,000 | a page, not a book, per call |
//! | body cap | 8,388,608 bytes after inflation | bounds memory per fetch |
//! | connect limit | 5 s | a dead address should fail fast |
//! | request limit | 20 s | per hop, lookup to last byte |
//! | extraction limit | 10 s | HTML to text after the last hop; linear work takes well under 1 s |
//! | redirects | 5 | loops end; real chains are shorter |
//! | User-Agent | `harness-webfetch/0.0` | fixed by the contract |
//! | search | 30 s, 262,144 bytes, 2,000-byte error cut | one bounded exchange |
//! | connection reuse | on: 64 kept per host, 256 in all, 30 s idle | a second page of a site costs no handshake; the socket is kept, never the verdict |
//!
//! Connection reuse ([`crate::policy::Policy::connection_reuse`], CLI
//! `--no-connection-reuse`): a connection whose response was read to the
//! end, and did not say `Connection: close`, may carry a later request of
//! the same `Fetcher` for the same host, and only when that request's own
//! lookup, made as always, returned the connection's address again and the
//! table allowed it again. Never for another name (no h2 coalescing), never
//! after a redirect's unread body; a kept connection that fails before a
//! response is passed over for a fresh dial within the same deadline. An
//! h2 connection is shared while in use: a fetch that starts while
//! another is reading from the same host takes a stream of it, under the
//! same rule; past the server's stream limit the stream waits for one to
//! close, and after a GOAWAY no new stream goes on it. The audit record's
//! hop says `reused`.
//!
//! Sizing a shared service: the bounds
//! ([`crate::policy::Policy::idle_per_host`], `idle_total`,
//! `idle_timeout`; CLI `--idle-per-host`, `--idle-total`,
//! `--idle-timeout-ms`) cap what is kept, not what is in flight. A
//! service that runs more fetches at once to one HTTP/1.1 host than it
//! keeps closes the rest as they come back, and the next fetches dial
//! and handshake again: in the fetch benchmark, 1,000 fetches in flight
//! to one host ran at about 760 a second with 64 kept and about 31,000
//! with 1,000 kept (reqwest's pooled client, which keeps without bound,
//! about 31,000; BENCHMARKS.md). Keep as many per host as the fetches
//! the service runs at once to one host, and `idle_total` at least that;
//! each kept connection holds its TLS state and buffers until it is used
//! again or `idle_timeout` closes it.
//!
//! A per-call argument can only ask for less (`max_chars`). The blocked
//! table is not a setting. A host may add domain allow and deny lists
//! ([`crate::policy::DomainRules`]), checked on every hop.
//!
//! ## Host opt-ins that send more requests (off by default)
//!
//! Neither changes a text of the contract while it is off, and neither is
//! a model argument.
//!
//! - **robots.txt** ([`crate::policy::Policy::robots_txt`], CLI
//!   `--robots-txt`). Before every URL a fetch requests (the first and each
//!   redirect target), webgate sends `GET /robots.txt` to that URL's own
//!   origin, with the same User-Agent, the same admission, address vetting,
//!   hop rule and time limits (all of the file's hops within one request
//!   limit), and reads it as RFC 9309 says (`crate::policy::robots`): the
//!   groups for the User-Agent's product token (`harness-webfetch` by
//!   default), else `*`; the longest matching rule, `allow` on a tie; a
//!   4xx allows everything, a 5xx, network failure or time-out disallows
//!   everything; past 500 KiB nothing is read. A disallowed URL is a soft
//!   failure naming robots.txt and the URL (never requested). Nothing goes
//!   anywhere the page's own request would not go. One run (a
//!   [`crate::agent::Run`], an MCP session; a direct [`crate::fetch::Fetcher`]
//!   call is a run of its own) reads an origin's file once; nothing is kept
//!   across runs.
//! - **Reader fallback** ([`crate::agent::AgentOptions::reader_prefix`],
//!   CLI `--reader PREFIX`, for example `https://r.jina.ai/`). When the
//!   direct fetch of an HTML page gave nothing usable (a block or
//!   verification page, text under 600 characters, or a 403, 429 or 5xx)
//!   and the failure was not final (never after a 404 or 410, a refusal of
//!   any rule, robots.txt included, or a network failure), webgate sends
//!   `GET <prefix><url>` to the reader under the same policy: **the reader
//!   service learns the full URL, query included**, and fetches it from
//!   its own network, not under webgate's policy. Its text replaces the
//!   direct result only when it is longer and is not a block page itself,
//!   headed by a note (outside the envelope's quote) saying it was read
//!   through the reader. It costs one more unit of the fetch budget (none
//!   left: no fallback), and its own audit record sits under the call's
//!   (`reader`).
//!
//! ## The agent layer's options (contract §12), all off by default
//!
//! | option | what it does |
//! |---|---|
//! | `envelope` | results quoted between tagged markers (on in `webgate mcp`) |
//! | `paging` | an `offset` argument; long texts as head (4/5), marker, tail (1/5) |
//! | `result_notes` | truncation note (how much was not returned), thin-page note (< 600 chars) |
//! | `block_detection` | short pages with "verify you are human", "captcha", … are failures |
//! | `failure_notes` | a failed fetch tells the model it did not read the page |
//! | `search_budget`, `fetch_budget` | calls per run; the tool is withdrawn when spent |
//! | `search_aliases` | `num_results` (≤ 10), `recency`, `site` |
//! | `numbered_search` | results as a numbered list instead of JSON |
//!
//! Helpers the host calls itself: [`crate::agent::offer::offer_fetch`]
//! (offer `web_fetch` only when a URL is in the last 3 user messages),
//! [`crate::agent::approval::ApprovalRule`] (approvals widen to an exact
//! origin, never a prefix), and each [`crate::agent::ToolReply`]'s
//! one-line `summary`.
//!
//! ## Seams
//!
//! [`crate::net::Resolve`] and [`crate::net::Dial`] are where tests (and
//! hosts with their own DNS or sockets) plug in. Neither can switch the
//! policy off: answers are still vetted, and `Dial` receives only vetted
//! addresses.
