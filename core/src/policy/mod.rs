//! The pure policy core: no IO, no async, no clock. Values in, values out.
//!
//! - `addr`: the compiled blocked-address table and [`VettedAddr`].
//! - `admission`: the five URL rules and the display form of URLs.
//! - `redirect`: the per-hop rule.
//! - `limits`: the host's [`Policy`].
//! - `domains`: the host's optional domain allow and deny lists.
//! - `robots`: robots.txt (RFC 9309), for hosts that turn it on.
//!
//! **Architecture Invariant:** nothing in this module imports tokio, hyper
//! or hickory; `cargo xtask tidy` fails if it does.

pub(crate) mod addr;
pub(crate) mod admission;
pub(crate) mod domains;
pub(crate) mod limits;
mod range;
pub(crate) mod redirect;
pub(crate) mod robots;
// Generated; its layout is codegen's, not rustfmt's.
#[rustfmt::skip]
mod table;

pub use addr::{vet, BlockedRange, VettedAddr};
pub(crate) use admission::display_form;
pub use admission::{admit, AdmittedUrl};
pub use domains::DomainRules;
pub use limits::{Comments, Links, Policy};
pub(crate) use redirect::{next_hop, Hop};
