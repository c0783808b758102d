//! # webgate
//!
//! A trusted egress layer for AI agents. It gives an agent two tools,
//! `web_fetch` and `web_search`, whose every behaviour and message is fixed
//! by the contract (`vectors/messages.tsv` holds every text).
//!
//! ## In scope today
//!
//! - [`policy`]: the pure policy core. URL admission (the five rules),
//!   the compiled blocked-address table with [`policy::VettedAddr`], the
//!   redirect-hop rule, and the host's [`policy::Policy`].
//! - [`args`]: argument parsing for both tools from the model's JSON.
//! - [`messages`]: every text the contract pins, written once.
//!
//! ## Out of scope of this crate's pure core
//!
//! Opening sockets, TLS and HTTP belong to the IO loop (the `net` seams),
//! which is built on top of these pure functions and never bypasses them.
//!
//! ## Getting started
//!
//! ```
//! use webgate::messages::Refusal;
//! use webgate::policy::{admit, check, Policy, Verdict};
//!
//! let policy = Policy::default();
//! // The url argument is admitted before any network access.
//! assert!(admit("https://example.com/docs#intro", &policy).is_ok());
//! let refused = admit("https://0x7f.1/", &policy).unwrap_err();
//! assert_eq!(refused, Refusal::IpLiteral { address: [127, 0, 0, 1].into() });
//!
//! // Every resolved address is judged by the blocked table.
//! match check("169.254.169.254".parse().unwrap()) {
//!     Verdict::Deny { range, .. } => assert_eq!(range.to_string(), "169.254.0.0/16"),
//!     Verdict::Allow => unreachable!(),
//! }
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod agent;
pub mod args;
pub mod audit;
pub mod body;
pub mod extract;
pub mod fetch;
pub mod messages;
pub mod net;
pub mod policy;
pub mod search;
pub mod tool;

#[doc(hidden)]
pub mod fuzzing;
