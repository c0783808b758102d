//! One request of a fetch: the hop's host resolved (within the connect
//! limit), every address vetted (only allowed ones kept, in the
//! resolver's order), a kept connection to one of *this* lookup's vetted
//! addresses taken when the policy keeps connections, else the vetted
//! addresses raced, TLS, the GET sent and the head awaited. What it
//! returns is a value ([`Sent`]): answered, gone before any response (the
//! caller may retry once), or failed; every phase's time, address and
//! cause goes to the hop's record.

use std::net::SocketAddr;

use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ACCEPT_ENCODING};
use hyper::{Method, Response};
use rustls::pki_types::ServerName;
use tokio::time::Instant;

use super::Fetcher;
use crate::audit::{ms, AddressAudit, FailedAt, HopAudit, TlsAudit};
use crate::body;
use crate::messages::{FetchError, Progress};
use crate::net::conn::{self, Conn};
use crate::net::http;
use crate::net::limit::Limit;
use crate::net::pool::Lease;
use crate::net::{deadline_after, eyeballs};
use crate::policy::{vet, AdmittedUrl, VettedAddr};
use crate::progress;

/// How one request ended.
pub(super) enum Sent {
    /// The head arrived.
    Answered(Box<(Response<Incoming>, Lease)>),
    /// The connection went away before any response: the GET may be
    /// repeated once on a fresh lookup and connection.
    Gone(FetchError),
    /// The request failed.
    Failed(FetchError),
}

impl Sent {
    /// The response, or the error to answer with (a second `Gone` is a
    /// failure: the retry happens once).
    pub(super) fn answered(self) -> Result<(Response<Incoming>, Lease), FetchError> {
        match self {
            Sent::Answered(x) => Ok(*x),
            Sent::Gone(e) | Sent::Failed(e) => Err(e),
        }
    }
}

impl Fetcher {
    /// One request: resolve, vet, dial, TLS, send, and wait for the head.
    /// [`Sent::Gone`] when the connection ended before the response head
    /// in a way a fresh connection may repeat (see
    /// [`http::connection_gone`]).
    pub(super) async fn exchange(
        &self,
        url: &AdmittedUrl,
        limit: &mut Limit,
        hop: &mut HopAudit,
    ) -> Sent {
        match self.exchange_inner(url, limit, hop).await {
            Ok(sent) => sent,
            Err(e) => Sent::Failed(e),
        }
    }

    async fn exchange_inner(
        &self,
        url: &AdmittedUrl,
        limit: &mut Limit,
        hop: &mut HopAudit,
    ) -> Result<Sent, FetchError> {
        let inner = &self.inner;
        let deadline = limit.deadline();
        let host = url.host();

        progress::report(Progress::Resolving {
            host: host.to_string(),
        });
        let t = Instant::now();
        // A lookup has the connect limit's time: a DNS server that does not
        // answer is a failed lookup, not a request that timed out (unless
        // the request's own limit comes first).
        let lookup_by = deadline.min(
            t.checked_add(inner.policy.connect_timeout)
                .unwrap_or(deadline),
        );
        let answers = tokio::time::timeout_at(lookup_by, inner.resolver.resolve(host)).await;
        hop.phases.resolve_ms = Some(ms(t.elapsed()));
        let answers = answers
            .map_err(|_| {
                hop.failed_at = Some(FailedAt::Resolve);
                if lookup_by < deadline {
                    let cause = "no answer within the connect limit";
                    tracing::info!(target: "webgate", cause, "lookup failed");
                    hop.cause = Some(cause.to_string());
                    FetchError::DnsFailed {
                        host: host.to_string(),
                    }
                } else {
                    let cause = "no answer within the request limit";
                    tracing::info!(target: "webgate", cause, "lookup failed");
                    hop.cause = Some(cause.to_string());
                    timed_out(url)
                }
            })?
            .map_err(|e| {
                hop.failed_at = Some(FailedAt::Resolve);
                tracing::info!(target: "webgate", cause = %e, "lookup failed");
                hop.cause = Some(e.to_string());
                FetchError::DnsFailed {
                    host: host.to_string(),
                }
            })?;
        // Every address is judged; only the allowed ones are kept, in the
        // resolver's order.
        let mut vetted = Vec::new();
        for a in answers {
            let verdict = vet(a);
            match &verdict {
                Ok(_) => tracing::info!(target: "webgate", ip = %a, "address allowed"),
                Err(r) => tracing::info!(
                    target: "webgate",
                    ip = %a,
                    range = %r,
                    range_name = r.name(),
                    "address blocked"
                ),
            }
            hop.addresses.push(AddressAudit::new(
                a,
                verdict.as_ref().map(|_| ()).map_err(|r| *r),
            ));
            if let Ok(v) = verdict {
                vetted.push(v);
            }
        }
        if vetted.is_empty() {
            hop.failed_at = Some(FailedAt::Vet);
            return Err(FetchError::NoAllowedAddress {
                host: host.to_string(),
            });
        }

        let port = url.port();
        if inner.policy.connection_reuse {
            // Only this lookup's vetted addresses, under this host: a kept
            // connection to anything else is never asked for.
            let addrs: Vec<SocketAddr> = vetted
                .iter()
                .map(|v| SocketAddr::new(v.ip(), port))
                .collect();
            while let Some(conn) = inner.pool.take(host, &addrs) {
                tracing::info!(target: "webgate", addr = %conn.addr, h2 = conn.h2, "kept connection taken");
                // A shared h2 connection stays in the pool while this
                // request uses it: were it to fail, this handle takes it
                // out, so that no fetch asks it again.
                let shared = conn.stream();
                match self.request_on(url, conn, true, limit, hop).await {
                    // It closed while idle (the server's keep-alive ran
                    // out), or an h2 connection refused the stream (a
                    // GOAWAY came first): the next one, or a fresh dial,
                    // in the same deadline.
                    None => {
                        hop.stale_connections += 1;
                        if let Some(shared) = shared {
                            inner.pool.retire(host, &shared);
                        }
                        tracing::info!(target: "webgate", "kept connection had closed");
                    }
                    Some(answered @ Sent::Answered(_)) => return Ok(answered),
                    Some(Sent::Failed(e) | Sent::Gone(e)) => return Err(e),
                }
            }
        }

        // Boxed: connecting is most of an exchange's size, and a request
        // on a kept connection should not carry its room.
        let (mut conn, spare) = match Box::pin(self.connect(url, vetted, limit, hop)).await {
            Ok(x) => x,
            Err(sent) => return Ok(sent),
        };
        if let Some(own) = spare {
            // Another fetch's connection, up first: one that fails before
            // any response is stale, as a kept one is, and the request
            // goes on this fetch's own, kept aside until now (it closes
            // unused otherwise).
            let handle = conn.stream();
            match self.request_on(url, conn, true, limit, hop).await {
                Some(sent) => return Ok(sent),
                None => {
                    hop.stale_connections += 1;
                    if let Some(handle) = handle {
                        inner.pool.retire(host, &handle);
                    }
                    hop.reused = false;
                    inner.pool.register(host, &own);
                    conn = own;
                }
            }
        }
        // Only a kept connection is ever stale; were a fresh one reported
        // so, it is a failed request, not a panic.
        Ok(self
            .request_on(url, conn, false, limit, hop)
            .await
            .unwrap_or_else(|| Sent::Failed(failed(url))))
    }

    /// A fresh connection for `url`: the vetted addresses raced within the
    /// connect limit, TLS and hyper's handshake, the connection shared
    /// when it is h2 and the policy keeps connections. When another
    /// fetch's, made at the same time, came up first, that one is
    /// returned, with this one beside it as the spare. What went wrong is
    /// the exchange's answer.
    async fn connect(
        &self,
        url: &AdmittedUrl,
        vetted: Vec<VettedAddr>,
        limit: &mut Limit,
        hop: &mut HopAudit,
    ) -> Result<(Conn, Option<Conn>), Sent> {
        let inner = &self.inner;
        let deadline = limit.deadline();
        let host = url.host();
        let port = url.port();
        let connect_by = deadline.min(deadline_after(inner.policy.connect_timeout));
        let t = Instant::now();
        let addrs: Vec<SocketAddr> = vetted
            .iter()
            .map(|v| SocketAddr::new(v.ip(), port))
            .collect();
        // Attempts staggered by the attempt delay, in the resolver's order,
        // all within the one connect limit (net::eyeballs).
        let race = eyeballs::race(
            inner.dialer.as_ref(),
            vetted,
            port,
            inner.policy.connect_attempt_delay,
            &mut hop.dials,
        );
        let stream = tokio::time::timeout_at(connect_by, race).await;
        hop.phases.connect_ms = Some(ms(t.elapsed()));
        let (addr, stream) = match stream {
            Ok(Ok(s)) => s,
            Ok(Err(())) => {
                hop.failed_at = Some(FailedAt::Connect);
                let cause = format!("no address connected: {}", dial_outcomes(&hop.dials));
                tracing::info!(target: "webgate", cause = %cause, "connect failed");
                hop.cause = Some(cause);
                return Err(Sent::Failed(failed(url)));
            }
            Err(_) => {
                hop.failed_at = Some(FailedAt::Connect);
                let limit = if connect_by < deadline {
                    "the connect limit"
                } else {
                    "the request limit"
                };
                let cause = format!(
                    "{limit} passed while connecting: {}",
                    dial_outcomes(&hop.dials)
                );
                tracing::info!(target: "webgate", cause = %cause, "connect timed out");
                hop.cause = Some(cause);
                return Err(Sent::Failed(timed_out(url)));
            }
        };

        progress::report(Progress::Connecting {
            host: host.to_string(),
        });
        let name = ServerName::try_from(host.to_string()).map_err(|_| Sent::Failed(failed(url)))?;
        let t = Instant::now();
        let tls = limit.within(inner.tls.connect(name, stream)).await;
        hop.phases.tls_ms = Some(ms(t.elapsed()));
        let tls = match tls {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                hop.failed_at = Some(FailedAt::Tls);
                tracing::info!(target: "webgate", error = %e, "tls handshake failed");
                hop.cause = Some(error_chain(&e));
                return Err(Sent::Failed(failed(url)));
            }
            Err(_) => {
                hop.failed_at = Some(FailedAt::Tls);
                timed_out_during(hop, "the TLS handshake");
                return Err(Sent::Failed(timed_out(url)));
            }
        };
        let session = tls.get_ref().1;
        let tls_audit = TlsAudit {
            version: session
                .protocol_version()
                .map(|v| format!("{v:?}"))
                .unwrap_or_default(),
            alpn: session
                .alpn_protocol()
                .map(|p| String::from_utf8_lossy(p).into_owned()),
        };
        tracing::info!(
            target: "webgate",
            version = %tls_audit.version,
            alpn = ?tls_audit.alpn,
            "tls established"
        );
        hop.tls = Some(tls_audit.clone());
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
        let t = Instant::now();
        // Boxed too, and so only while it runs: hyper's handshake future
        // is larger than the rest of connecting put together.
        let shaken = limit.within(Box::pin(conn::handshake(tls, h2))).await;
        let (sender, guard, driver) = match shaken {
            Ok(Ok(x)) => x,
            Ok(Err(e)) => {
                hop.phases.head_ms = Some(ms(t.elapsed()));
                hop.failed_at = Some(FailedAt::Head);
                let gone = http::connection_gone(&e);
                tracing::info!(target: "webgate", error = %e, gone, "no response head");
                hop.cause = Some(error_chain(&e));
                return Err(if gone {
                    Sent::Gone(failed(url))
                } else {
                    Sent::Failed(failed(url))
                });
            }
            Err(_) => {
                hop.phases.head_ms = Some(ms(t.elapsed()));
                hop.failed_at = Some(FailedAt::Head);
                timed_out_during(hop, "the HTTP handshake");
                return Err(Sent::Failed(timed_out(url)));
            }
        };
        let conn = Conn::new(sender, guard, driver, addr, tls_audit);
        // Other fetches to this host may take streams of an h2 connection
        // while this one is using it, under the same rule as a kept one;
        // when another fetch's, made at the same time, came up first, this
        // request goes on that one.
        if h2 && inner.policy.connection_reuse {
            if let Some(first) = inner.pool.share(host, &conn, &addrs) {
                tracing::info!(target: "webgate", addr = %first.addr, "an h2 connection made at the same time is shared");
                return Ok((first, Some(conn)));
            }
        }
        Ok((conn, None))
    }

    /// Sends the GET for `url` on `conn` and waits for the head. On a kept
    /// connection (`kept`), one that has closed, or ends before any
    /// response, is stale (`None`): the request never reached a server
    /// that answered it, and a fresh connection may be tried.
    async fn request_on(
        &self,
        url: &AdmittedUrl,
        mut conn: Conn,
        kept: bool,
        limit: &mut Limit,
        hop: &mut HopAudit,
    ) -> Option<Sent> {
        let t = Instant::now();
        if kept {
            match limit.within(conn.driver.drive(conn.sender.ready())).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return None,
                Err(_) => {
                    hop.failed_at = Some(FailedAt::Head);
                    timed_out_during(hop, "the wait for a kept connection");
                    return Some(Sent::Failed(timed_out(url)));
                }
            }
        }
        let Some(req) = http::request(
            Method::GET,
            url.as_url(),
            conn.h2,
            &self.inner.policy.user_agent,
            &[(
                ACCEPT_ENCODING,
                HeaderValue::from_static(body::ACCEPT_ENCODING),
            )],
            Bytes::new(),
        ) else {
            return Some(Sent::Failed(failed(url)));
        };
        progress::report(Progress::Requesting { url: url.display() });
        let head = limit.within(conn.driver.drive(conn.sender.send(req))).await;
        hop.phases.head_ms = Some(ms(t.elapsed()));
        match head {
            Ok(Ok(resp)) => {
                if kept {
                    hop.reused = true;
                    hop.tls = Some(conn.tls.clone());
                    tracing::info!(target: "webgate", addr = %conn.addr, "connection reused");
                }
                // `Connection: close` is honoured: the connection goes
                // when the response has been read.
                let keep = http::keeps_connection(resp.headers());
                let host = url.host().to_string();
                Some(Sent::Answered(Box::new((resp, Lease { conn, host, keep }))))
            }
            Ok(Err(e)) => {
                // A kept connection that fails before any response (closed
                // by the server's keep-alive, reset, cut without TLS
                // close_notify) answered nothing: a fresh one is tried.
                if kept {
                    tracing::info!(target: "webgate", error = %e, "kept connection failed");
                    return None;
                }
                let gone = http::connection_gone(&e);
                hop.failed_at = Some(FailedAt::Head);
                tracing::info!(target: "webgate", error = %e, gone, "no response head");
                hop.cause = Some(error_chain(&e));
                if gone {
                    Some(Sent::Gone(failed(url)))
                } else {
                    Some(Sent::Failed(failed(url)))
                }
            }
            Err(_) => {
                hop.failed_at = Some(FailedAt::Head);
                timed_out_during(hop, "the wait for the response head");
                Some(Sent::Failed(timed_out(url)))
            }
        }
    }

    /// Gives a connection whose response was read to the end back to the
    /// pool, when the policy keeps connections.
    pub(super) fn release(&self, lease: Lease) {
        if self.inner.policy.connection_reuse {
            self.inner.pool.put(lease);
        }
    }
}

/// The request limit passed (the contract's timeout text).
fn timed_out(url: &AdmittedUrl) -> FetchError {
    FetchError::Timeout { url: url.display() }
}

/// The network failed: refused, reset, TLS, a protocol error.
fn failed(url: &AdmittedUrl) -> FetchError {
    FetchError::NetFailed {
        url: url.as_str().to_string(),
    }
}

/// An error and its sources, `: `-joined (hyper's own text is often just
/// "connection error" with the detail one source down).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        out.push_str(": ");
        out.push_str(&s.to_string());
        next = s.source();
    }
    out
}

/// Each attempt's address and outcome (`93.184.216.34:443 connection
/// refused`), `; `-joined: why no address connected.
fn dial_outcomes(dials: &[crate::audit::DialAudit]) -> String {
    if dials.is_empty() {
        return "no attempt was made".into();
    }
    dials
        .iter()
        .map(|d| format!("{} {}", d.addr, d.outcome))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Records and logs that the request limit passed during `phase`.
fn timed_out_during(hop: &mut HopAudit, phase: &str) {
    let cause = format!("the request limit passed during {phase}");
    tracing::info!(target: "webgate", cause = %cause, "request timed out");
    hop.cause = Some(cause);
}
