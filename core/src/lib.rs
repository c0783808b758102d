//! # webgate
//!
//! A trusted egress layer for AI agents. It gives an agent two tools,
//! `web_fetch` (one https page back as markdown or text under a provenance
//! header) and `web_search` (results as compact JSON from a provider),
//! whose every behaviour and message is fixed by the contract
//! (`vectors/messages.tsv` holds every text). The [`manual`] explains the
//! threat model and every default.
//!
//! ## Modules
//!
//! - [`fetch`]: the `web_fetch` tool ([`fetch::Fetcher`]): admission,
//!   resolution, vetting, TLS, redirects by hand, bodies, extraction.
//! - [`search`]: the `web_search` tool ([`search::Searcher`]) over a
//!   provider (gateway, Brave, SearXNG, Tavily, or your own).
//! - [`agent`]: what sits between the tools and a model: the untrusted
//!   envelope, tool descriptors, and the peer systems' options.
//! - [`audit`]: a record of every egress decision, and `tracing`
//!   events.
//! - [`policy`]: the pure policy core: URL admission, the compiled
//!   blocked-address table ([`policy::VettedAddr`]), the redirect-hop rule,
//!   the host's [`policy::Policy`].
//! - [`args`], [`extract`], [`messages`], [`net`], [`tool`]: the
//!   argument rules, HTML extraction, the error types, the Resolve and
//!   Dial seams, and the outcome type.
//!
//! ## Runtime
//!
//! Calls are `async` and run on Tokio with IO and time enabled
//! (`Builder::enable_all()`); the futures are `Send`, so any worker may run
//! them. A call made without the time driver fails (a network failure in
//! its text, an error event for the host) instead of panicking, and
//! [`fetch::FetcherBuilder::build`] refuses a runtime without one. Every
//! set-up step returns [`messages::SetupError`], every error type is a
//! `std::error::Error`, so `?` into `Box<dyn Error>` works throughout.
//!
//! ## Crate features
//!
//! The default is the whole product; each part below can be left out with
//! `default-features = false` and the features wanted.
//!
//! | feature | what it adds | without it |
//! |---|---|---|
//! | `agent` | [`agent`]: envelope, options, budgets, `Toolbox`, `Run` (and `getrandom` for envelope tags) | the two tools alone |
//! | `search-providers` | `search::configure`, `search::SearchSettings`: the built-in gateway, Brave, SearXNG and Tavily (and `httpdate` for `Retry-After`) | `search::Searcher` over the host's own `search::Provider` |
//! | `brotli` | the `br` content coding (pure Rust) | `br` is not offered in `Accept-Encoding`, and a `br` body is unreadable |
//! | `zstd` | the `zstd` content coding (the zstd C library, built with `cc`) | likewise for `zstd` |
//! | `hickory` | `net::HickoryResolve`, the default resolver (system configuration) | [`fetch::FetcherBuilder::resolver`] must be given one, else `SetupError::NoResolver` |
//! | `ring` | rustls's ring crypto provider | the host gives one to [`net::TlsSettings::crypto_provider`] (aws-lc-rs, say), else `SetupError::NoCryptoProvider`; verification is rustls's either way |
//!
//! `Accept-Encoding` is always exactly what the build can undo (`gzip,
//! deflate`, then `br` and `zstd` with their features). The policy core,
//! the body pipeline and extraction have no feature: they are the product.
//!
//! ## Getting started
//!
//! Build the tools once, then hand each model call's JSON arguments over
//! and give the model `model_text` back:
//!
//! ```no_run
//! use std::sync::Arc;
//! use serde_json::json;
//! use webgate::agent::{AgentOptions, Toolbox};
//! use webgate::fetch::Fetcher;
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let fetcher = Fetcher::builder().build()?; // the contract's policy, system DNS
//! let mut options = AgentOptions::default();
//! options.envelope = true; // quote results as untrusted text
//! let toolbox = Arc::new(Toolbox::new(fetcher, None, options));
//! for tool in toolbox.descriptors() {
//!     println!("offer {} — {}", tool.name, tool.description);
//! }
//! let run = toolbox.start_run();
//! let reply = run
//!     .call("web_fetch", &json!({"url": "https://example.com/"}))
//!     .await?;
//! println!("{}", reply.model_text);
//! # Ok(())
//! # }
//! ```
//!
//! The policy core needs no network and no runtime:
//!
//! ```
//! use webgate::messages::Refusal;
//! use webgate::policy::{admit, vet, Policy};
//!
//! let policy = Policy::default();
//! // The url argument is admitted before any network access.
//! assert!(admit("https://example.com/docs#intro", &policy).is_ok());
//! let refused = admit("https://0x7f.1/", &policy).unwrap_err();
//! assert_eq!(refused, Refusal::IpLiteral { address: [127, 0, 0, 1].into() });
//!
//! // Every resolved address is judged by the blocked table; only what
//! // passes becomes a `VettedAddr`, the one thing a Dial accepts.
//! let range = vet("169.254.169.254".parse().unwrap()).unwrap_err();
//! assert_eq!(range.to_string(), "169.254.0.0/16");
//! assert!(vet("93.184.216.34".parse().unwrap()).is_ok());
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "agent")]
pub mod agent;
pub mod args;
pub mod audit;
pub(crate) mod body;
pub mod extract;
pub mod fetch;
pub mod manual;
pub mod messages;
pub mod net;
pub mod policy;
pub mod progress;
pub mod search;
pub mod tool;

#[doc(hidden)]
pub mod internals;
