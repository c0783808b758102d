//! The default resolver, hickory-resolver (feature `hickory`): A and AAAA
//! with its cache off, from the system configuration or one server.

use std::net::{IpAddr, SocketAddr};

use hickory_resolver::config::{LookupIpStrategy, NameServerConfig, ResolveHosts, ResolverConfig};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::TokioResolver;

use super::{BoxFuture, LookupFailed, Resolve};
use crate::messages::SetupError;

/// How long one try of a lookup waits for a server's answer.
pub const LOOKUP_TRY: std::time::Duration = std::time::Duration::from_secs(2);

/// The default resolver: hickory-resolver, A and AAAA, with its cache off
/// (webgate keeps no DNS cache: a name that turns to 127.0.0.1 between two
/// requests is refused the second time, whatever the TTL).
#[derive(Clone)]
pub struct HickoryResolve {
    inner: TokioResolver,
}

impl std::fmt::Debug for HickoryResolve {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HickoryResolve")
    }
}

impl HickoryResolve {
    /// Uses the system configuration (`/etc/resolv.conf`, and the hosts
    /// file as the system would).
    pub fn system() -> Result<Self, SetupError> {
        let builder =
            TokioResolver::builder_tokio().map_err(|e| SetupError::SystemDns(Box::new(e)))?;
        Self::finish(builder, ResolveHosts::Auto)
    }

    /// Asks one DNS server, over UDP and TCP, on its port — and nothing
    /// else: not the hosts file.
    pub fn server(addr: SocketAddr) -> Result<Self, SetupError> {
        let mut ns = NameServerConfig::udp_and_tcp(addr.ip());
        for c in &mut ns.connections {
            c.port = addr.port();
        }
        let config = ResolverConfig::from_parts(None, vec![], vec![ns]);
        Self::finish(
            TokioResolver::builder_with_config(config, TokioRuntimeProvider::default()),
            ResolveHosts::Never,
        )
    }

    fn finish(
        mut builder: hickory_resolver::ResolverBuilder<TokioRuntimeProvider>,
        hosts: ResolveHosts,
    ) -> Result<Self, SetupError> {
        let opts = builder.options_mut();
        opts.cache_size = 0;
        opts.ip_strategy = LookupIpStrategy::Ipv4AndIpv6;
        opts.use_hosts_file = hosts;
        // A server that does not answer fails the lookup in about two
        // seconds (the default, 5 s times three tries, outlasts a request's
        // own limits); the fetch bounds the lookup by the connect limit too.
        opts.timeout = LOOKUP_TRY;
        opts.attempts = 1;
        let inner = builder
            .build()
            .map_err(|e| SetupError::Resolver(Box::new(e)))?;
        Ok(HickoryResolve { inner })
    }
}

/// Why hickory's lookup failed, as the audit record names it.
fn cause(e: &hickory_resolver::net::NetError) -> LookupFailed {
    use hickory_resolver::net::{DnsError, NetError};
    use hickory_resolver::proto::op::ResponseCode;
    match e {
        _ if e.is_nx_domain() => LookupFailed::NoSuchName,
        NetError::Dns(DnsError::ResponseCode(ResponseCode::ServFail)) => {
            LookupFailed::ServerFailure
        }
        NetError::Dns(DnsError::ResponseCode(ResponseCode::Refused)) => LookupFailed::Refused,
        NetError::Dns(DnsError::NoRecordsFound(r)) if r.response_code == ResponseCode::ServFail => {
            LookupFailed::ServerFailure
        }
        NetError::Dns(DnsError::NoRecordsFound(r)) if r.response_code == ResponseCode::Refused => {
            LookupFailed::Refused
        }
        NetError::Timeout => LookupFailed::TimedOut,
        NetError::NoConnections => LookupFailed::NoServer,
        _ if e.is_connection_closed() => LookupFailed::NoServer,
        _ => LookupFailed::Other,
    }
}

impl Resolve for HickoryResolve {
    fn resolve<'a>(&'a self, host: &'a str) -> BoxFuture<'a, Result<Vec<IpAddr>, LookupFailed>> {
        Box::pin(async move {
            // A trailing dot makes the name absolute: no search domains.
            let fqdn = if host.ends_with('.') {
                host.to_string()
            } else {
                format!("{host}.")
            };
            match self.inner.lookup_ip(fqdn.as_str()).await {
                // Families alternate (RFC 8305 §4), so a dead family holds
                // the other up by one attempt delay at most.
                Ok(lookup) => Ok(super::eyeballs::interleave(lookup.iter().collect())),
                // NOERROR with no A/AAAA record: an answer with no address.
                Err(e) if e.is_no_records_found() && !e.is_nx_domain() => Ok(Vec::new()),
                Err(e) => Err(cause(&e)),
            }
        })
    }
}
