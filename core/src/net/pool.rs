//! Kept connections without kept approval: a `Fetcher`'s idle HTTP/1.1
//! and h2 connections, by host and socket address, bounded per host, in
//! total and in age.
//!
//! The contract forbids caching a verdict, not a socket. The fetch loop
//! resolves and vets every hop as always, then asks [`Pool::take`] for a
//! connection to one of *this* lookup's vetted addresses under *this*
//! host: an address the fresh answer no longer gives, or the table no
//! longer allows, is never asked for, so it can never be reused. Keys
//! hold the host, so a connection never serves another name (no h2
//! coalescing). One pool belongs to one `Fetcher`, whose TLS settings are
//! fixed, so the settings need no place in the key.
//!
//! A connection comes back only when its response was read to the end and
//! did not say `Connection: close`; anything else (a redirect's unread
//! body, a refused type, a cut text, a failure) drops it, which closes it.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::time::Instant;

use super::conn::Conn;

/// A connection checked out for one request, with what decides whether
/// it may go back: the host it serves and whether the response allowed
/// keeping it.
pub(crate) struct Lease {
    pub conn: Conn,
    pub host: String,
    /// The response did not say `Connection: close`.
    pub keep: bool,
}

/// The bounds of a pool.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub per_host: usize,
    pub total: usize,
    pub idle_timeout: Duration,
}

struct Idle {
    conn: Conn,
    /// When it became idle.
    since: Instant,
}

#[derive(Default)]
struct State {
    /// Per host, oldest first.
    idle: HashMap<String, Vec<Idle>>,
    total: usize,
    /// A task is closing connections as they reach the idle timeout (one
    /// per pool, only while something is idle).
    reaper: bool,
}

impl State {
    /// Drops every connection idle for `age` or longer; returns the
    /// oldest remaining `since`.
    fn purge(&mut self, age: Duration) -> Option<Instant> {
        let now = Instant::now();
        let mut removed = 0;
        self.idle.retain(|_, list| {
            let before = list.len();
            list.retain(|i| now.saturating_duration_since(i.since) < age);
            removed += before - list.len();
            !list.is_empty()
        });
        self.total -= removed;
        self.idle
            .values()
            .filter_map(|l| l.first())
            .map(|i| i.since)
            .min()
    }
}

/// Idle connections of one `Fetcher`.
pub(crate) struct Pool {
    limits: Limits,
    state: Mutex<State>,
    me: Weak<Pool>,
}

impl Pool {
    pub fn new(limits: Limits) -> Arc<Pool> {
        Arc::new_cyclic(|me| Pool {
            limits,
            state: Mutex::new(State::default()),
            me: me.clone(),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves whole entries behind;
        // the map is still sound.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The most recently kept open connection to `host` at one of `addrs`
    /// (this request's vetted answer), taken out of the pool. Connections
    /// found closed or past the idle timeout on the way are dropped.
    pub fn take(&self, host: &str, addrs: &[SocketAddr]) -> Option<Conn> {
        let mut state = self.state();
        let age = self.limits.idle_timeout;
        let now = Instant::now();
        let list = state.idle.get_mut(host)?;
        let before = list.len();
        list.retain(|i| !i.conn.sender.is_closed() && now.saturating_duration_since(i.since) < age);
        let found = list
            .iter()
            .rposition(|i| addrs.contains(&i.conn.addr))
            .map(|k| list.remove(k));
        let after = list.len();
        if list.is_empty() {
            state.idle.remove(host);
        }
        state.total -= before - after;
        found.map(|i| i.conn)
    }

    /// Keeps `lease`'s connection for a later request, if the response
    /// allowed it, the connection is still open and the bounds have room;
    /// otherwise it is dropped (closed).
    pub fn put(&self, lease: Lease) {
        let Lease { conn, host, keep } = lease;
        let age = self.limits.idle_timeout;
        if !keep || conn.sender.is_closed() || age.is_zero() {
            return;
        }
        let mut state = self.state();
        // Also here, not only in the reaper: a reaper whose runtime has
        // ended is gone, and the bounds must still hold.
        state.purge(age);
        let here = state.idle.get(&host).map_or(0, Vec::len);
        if here >= self.limits.per_host || state.total >= self.limits.total {
            return;
        }
        state.idle.entry(host).or_default().push(Idle {
            conn,
            since: Instant::now(),
        });
        state.total += 1;
        if !state.reaper {
            state.reaper = true;
            let me = self.me.clone();
            tokio::spawn(async move {
                // An idle timeout too long for the clock never comes: no
                // reaping is needed (the flag stays set, so none starts).
                let Some(mut next) = Instant::now().checked_add(age) else {
                    return;
                };
                loop {
                    tokio::time::sleep_until(next).await;
                    let Some(pool) = me.upgrade() else { return };
                    let mut state = pool.state();
                    match state.purge(age).and_then(|oldest| oldest.checked_add(age)) {
                        Some(at) => next = at,
                        None => {
                            state.reaper = false;
                            return;
                        }
                    }
                }
            });
        }
    }

    /// How many connections are idle.
    #[cfg(test)]
    fn idle(&self) -> usize {
        self.state().total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::TlsAudit;

    /// A real HTTP/1.1 client connection over an in-memory stream, and the
    /// server's end (dropping it closes the connection).
    async fn conn(addr: &str) -> (Conn, tokio::io::DuplexStream) {
        let (client, server) = tokio::io::duplex(1024);
        let (sender, guard) = crate::net::conn::handshake(client, false)
            .await
            .expect("handshake");
        let conn = Conn {
            sender,
            _task: guard,
            addr: addr.parse().expect("addr"),
            h2: false,
            tls: TlsAudit {
                version: "TLSv1_3".into(),
                alpn: None,
            },
        };
        (conn, server)
    }

    fn lease(conn: Conn, host: &str) -> Lease {
        Lease {
            conn,
            host: host.into(),
            keep: true,
        }
    }

    fn limits(per_host: usize, total: usize) -> Limits {
        Limits {
            per_host,
            total,
            idle_timeout: Duration::from_secs(30),
        }
    }

    const A: &str = "93.184.216.34:443";
    const B: &str = "93.184.216.35:443";

    #[tokio::test]
    async fn only_the_same_host_at_an_address_of_this_lookup() {
        let pool = Pool::new(limits(4, 8));
        let (c, _s) = conn(A).await;
        pool.put(lease(c, "a.example"));
        let a = [A.parse().unwrap()];
        let b = [B.parse().unwrap()];
        assert!(pool.take("b.example", &a).is_none(), "another host");
        assert!(pool.take("a.example", &b).is_none(), "another address");
        assert!(pool.take("a.example", &[]).is_none(), "no vetted address");
        assert!(pool.take("a.example", &a).is_some());
        assert!(pool.take("a.example", &a).is_none(), "taken once");
        assert_eq!(pool.idle(), 0);
    }

    #[tokio::test]
    async fn bounded_per_host_and_in_total() {
        let pool = Pool::new(limits(2, 3));
        let mut ends = Vec::new();
        for host in [
            "a.example",
            "a.example",
            "a.example",
            "b.example",
            "c.example",
        ] {
            let (c, s) = conn(A).await;
            ends.push(s);
            pool.put(lease(c, host));
        }
        // a.example: two of three kept; b.example: one; c.example: none
        // (the total is full).
        assert_eq!(pool.idle(), 3);
        let a = [A.parse().unwrap()];
        assert!(pool.take("c.example", &a).is_none());
        assert!(pool.take("b.example", &a).is_some());
        assert!(pool.take("a.example", &a).is_some());
        assert!(pool.take("a.example", &a).is_some());
        assert!(pool.take("a.example", &a).is_none());
    }

    #[tokio::test]
    async fn a_response_that_said_close_is_not_kept() {
        let pool = Pool::new(limits(4, 8));
        let (c, _s) = conn(A).await;
        pool.put(Lease {
            conn: c,
            host: "a.example".into(),
            keep: false,
        });
        assert_eq!(pool.idle(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_connection_is_closed_after_the_idle_timeout() {
        let pool = Pool::new(limits(4, 8));
        let (c, _s) = conn(A).await;
        pool.put(lease(c, "a.example"));
        tokio::time::sleep(Duration::from_secs(29)).await;
        assert_eq!(pool.idle(), 1);
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(pool.idle(), 0);
        let zero = Pool::new(Limits {
            idle_timeout: Duration::ZERO,
            ..limits(4, 8)
        });
        let (c, _s) = conn(A).await;
        zero.put(lease(c, "a.example"));
        assert_eq!(zero.idle(), 0, "a zero timeout keeps none");
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_reaper_the_next_put_still_drops_what_is_too_old() {
        let pool = Pool::new(limits(4, 8));
        // As if the reaper's runtime had ended: none runs.
        pool.state().reaper = true;
        let (c, _s) = conn(A).await;
        pool.put(lease(c, "a.example"));
        tokio::time::sleep(Duration::from_secs(31)).await;
        assert_eq!(pool.idle(), 1);
        let (c, _s2) = conn(B).await;
        pool.put(lease(c, "b.example"));
        assert_eq!(pool.idle(), 1, "the old one went, the new one stays");
        assert!(pool.take("a.example", &[A.parse().unwrap()]).is_none());
    }

    #[tokio::test]
    async fn extreme_bounds_do_not_panic() {
        let pool = Pool::new(Limits {
            per_host: usize::MAX,
            total: usize::MAX,
            idle_timeout: Duration::MAX,
        });
        let (c, _s) = conn(A).await;
        pool.put(lease(c, "a.example"));
        tokio::task::yield_now().await;
        assert!(pool.take("a.example", &[A.parse().unwrap()]).is_some());
        let none = Pool::new(limits(0, 0));
        let (c, _s) = conn(A).await;
        none.put(lease(c, "a.example"));
        assert_eq!(none.idle(), 0);
    }

    #[tokio::test]
    async fn a_connection_the_server_closed_is_dropped_not_handed_out() {
        let pool = Pool::new(limits(4, 8));
        let (c, server) = conn(A).await;
        pool.put(lease(c, "a.example"));
        drop(server);
        // Let the connection task see the end of the stream.
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        assert!(pool.take("a.example", &[A.parse().unwrap()]).is_none());
        assert_eq!(pool.idle(), 0);
    }
}
