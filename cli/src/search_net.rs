//! The host's network options (`--resolve`, `--connect-to`) for the
//! search provider's endpoint, as they apply to fetches.
//!
//! The endpoint is the host's own choice, so it is not held to the fetch
//! policy (a SearXNG on loopback is a normal set-up); but an operator who
//! pins a name or redirects an address expects every request of the
//! process to follow the pin, not only the fetches.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};

use webgate::internals::search::Connect;
use webgate::net::{BoxFuture, Io};

/// Names pinned to addresses, and addresses sent elsewhere.
#[derive(Debug, Default)]
pub struct HostConnect {
    /// `--resolve`: a name's addresses (lower-case names).
    pub table: HashMap<String, Vec<IpAddr>>,
    /// `--connect-to`: where an address and port are really dialled.
    pub map: Vec<(SocketAddr, SocketAddr)>,
}

impl HostConnect {
    async fn addresses(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        if let Some(ips) = self.table.get(&host.to_ascii_lowercase()) {
            return Ok(ips.iter().map(|ip| SocketAddr::new(*ip, port)).collect());
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(vec![SocketAddr::new(ip, port)]);
        }
        Ok(tokio::net::lookup_host((host, port)).await?.collect())
    }
}

impl Connect for HostConnect {
    fn connect<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> BoxFuture<'a, std::io::Result<Box<dyn Io>>> {
        Box::pin(async move {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            let mut last = std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{host} has no address"),
            );
            for addr in self.addresses(host, port).await? {
                let to = self
                    .map
                    .iter()
                    .find(|(from, _)| *from == addr)
                    .map_or(addr, |(_, to)| *to);
                match tokio::net::TcpStream::connect(to).await {
                    Ok(s) => {
                        s.set_nodelay(true)?;
                        return Ok(Box::new(s) as Box<dyn Io>);
                    }
                    Err(e) => last = e,
                }
            }
            Err(last)
        })
    }
}
