//! The Dial behind the CLI's `--connect-to`: a vetted address's socket
//! sent to another address. Not part of the API (the workspace reaches it
//! through `internals`): a mapping is a host's decision no model may make,
//! and the fetch loop has vetted the source before this Dial sees it.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use super::{BoxFuture, Dial, Io};
use crate::policy::VettedAddr;

/// A Dial that sends a vetted address's socket elsewhere: after the fetch
/// loop has vetted `from`, the socket goes to `to` instead, an address the
/// policy never judged (how a test reaches a loopback server without
/// switching the policy off). Unmapped addresses are dialled as they are.
/// A mapping whose source is blocked is accepted and simply never used,
/// because a blocked address never reaches a Dial.
#[derive(Clone, Debug)]
pub struct RemappedDial {
    map: Vec<(SocketAddr, SocketAddr)>,
    inner: Arc<dyn DialDebug>,
}

/// A Dial that can be printed, for [`RemappedDial`]'s `Debug`.
pub(crate) trait DialDebug: Dial + std::fmt::Debug {}
impl<T: Dial + std::fmt::Debug> DialDebug for T {}

impl RemappedDial {
    /// Maps each `from` to its `to`, dialling through `inner`.
    pub fn new(map: Vec<(SocketAddr, SocketAddr)>, inner: impl Dial + std::fmt::Debug) -> Self {
        RemappedDial {
            map,
            inner: Arc::new(inner),
        }
    }
}

impl Dial for RemappedDial {
    fn dial(&self, addr: VettedAddr, port: u16) -> BoxFuture<'_, io::Result<Box<dyn Io>>> {
        let from = SocketAddr::new(addr.ip(), port);
        match self.map.iter().find(|(f, _)| *f == from) {
            Some(&(_, to)) => Box::pin(async move {
                let s = tokio::net::TcpStream::connect(to).await?;
                s.set_nodelay(true)?;
                Ok(Box::new(s) as Box<dyn Io>)
            }),
            None => self.inner.dial(addr, port),
        }
    }
}
