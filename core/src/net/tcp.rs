//! The default Dial: a plain TCP connection to a vetted address, what
//! [`crate::fetch::FetcherBuilder`] uses when the host gives no dialer.
//! Not part of the API (the workspace reaches it through `internals`, to
//! wrap it): a host's own Dial opens its streams itself.

use std::io;
use std::net::SocketAddr;

use super::{BoxFuture, Dial, Io};
use crate::policy::VettedAddr;

/// A plain TCP connection to the vetted address, with Nagle off (a
/// request goes out in one write; waiting for more only adds latency).
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpDial;

impl Dial for TcpDial {
    fn dial(&self, addr: VettedAddr, port: u16) -> BoxFuture<'_, io::Result<Box<dyn Io>>> {
        Box::pin(async move {
            let s = tokio::net::TcpStream::connect(SocketAddr::new(addr.ip(), port)).await?;
            s.set_nodelay(true)?;
            Ok(Box::new(s) as Box<dyn Io>)
        })
    }
}
