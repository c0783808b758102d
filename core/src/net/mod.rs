//! The network seams: how a name becomes addresses ([`Resolve`]), how a
//! vetted address becomes a byte stream ([`Dial`]), and the TLS settings.
//!
//! Hosts and tests swap these seams; they never switch the policy off. A
//! test reaches a loopback server by answering a public address from its
//! Resolve and connecting that (vetted) address to the server in its Dial.
//!
//! **Architecture Invariant:** [`Dial::dial`] takes a [`VettedAddr`], which
//! only the blocked-table check makes, so no seam can be handed a blocked
//! address by the fetch loop.

pub(crate) mod conn;
pub(crate) mod eyeballs;
#[cfg(feature = "hickory")]
mod hickory;
pub(crate) mod http;
pub(crate) mod limit;
pub(crate) mod pool;
pub(crate) mod remap;
pub(crate) mod resolve;
pub(crate) mod tcp;
mod tls;

use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;

use tokio::io::{AsyncRead, AsyncWrite};

#[cfg(feature = "hickory")]
pub use hickory::HickoryResolve;
pub(crate) use tcp::TcpDial;
pub use tls::TlsSettings;

use crate::policy::VettedAddr;

/// A boxed, sendable future, as the seams return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The lookup did not answer, and why. (An answer with no address is
/// `Ok(vec![])`.) The model's text is the same for every cause (message
/// `fetch.dns.failed`); the cause goes to the audit
/// record and the log, for the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LookupFailed {
    /// The name does not exist (NXDOMAIN).
    NoSuchName,
    /// The server failed to answer (SERVFAIL).
    ServerFailure,
    /// The server refused to answer (REFUSED).
    Refused,
    /// No server answered within the resolver's own time.
    TimedOut,
    /// No server could be asked (none configured, or none reachable).
    NoServer,
    /// Any other failure (a malformed answer, an I/O error, a resolver
    /// that says no more).
    Other,
}

impl std::fmt::Display for LookupFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LookupFailed::NoSuchName => "NXDOMAIN",
            LookupFailed::ServerFailure => "SERVFAIL",
            LookupFailed::Refused => "REFUSED",
            LookupFailed::TimedOut => "the resolver timed out",
            LookupFailed::NoServer => "no DNS server could be reached",
            LookupFailed::Other => "resolver error",
        })
    }
}

/// Turns a host name into addresses (A and AAAA), in the resolver's order.
///
/// Implementations must not cache approvals; webgate calls this for every
/// request and every redirect hop, and judges every address it returns.
pub trait Resolve: Send + Sync + 'static {
    /// Looks up `host` (lower case, punycode, never an IP literal).
    fn resolve<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, LookupFailed>>;
}

/// A byte stream to a server, before TLS.
pub trait Io: AsyncRead + AsyncWrite + Send + Unpin + 'static {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Io for T {}

/// Opens a byte stream to a vetted address.
pub trait Dial: Send + Sync + 'static {
    /// Connects to `addr` on `port`.
    fn dial(&self, addr: VettedAddr, port: u16) -> BoxFuture<'_, io::Result<Box<dyn Io>>>;
}

/// `now + limit`, or about thirty years from now when that does not fit in
/// an `Instant` (a limit of `Duration::MAX` means "no limit").
pub(crate) fn deadline_after(limit: std::time::Duration) -> tokio::time::Instant {
    let now = tokio::time::Instant::now();
    now.checked_add(limit)
        .or_else(|| now.checked_add(std::time::Duration::from_secs(30 * 365 * 86_400)))
        .unwrap_or(now)
}

/// Whether the current thread is on a Tokio runtime whose time driver is
/// on: every limit of a call needs it. Tokio offers no query, and making a
/// timer without the driver panics; the probe catches that panic (its
/// message still reaches the panic hook once).
pub(crate) fn timer_available() -> bool {
    if tokio::runtime::Handle::try_current().is_err() {
        return false;
    }
    std::panic::catch_unwind(|| drop(tokio::time::sleep(std::time::Duration::ZERO))).is_ok()
}
