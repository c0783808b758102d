//! Kept connections without kept approval: a `Fetcher`'s idle HTTP/1.1
//! connections and its h2 connections, by host and socket address,
//! bounded per host, in total and in age.
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
//! An HTTP/1.1 connection is checked out whole: it comes back only when
//! its response was read to the end and did not say `Connection: close`;
//! anything else (a redirect's unread body, a refused type, a cut text, a
//! failure) drops it, which closes it.
//!
//! An h2 connection is shared: it is registered as soon as it is made
//! ([`Pool::share`]) and stays while requests use it; each fetch that
//! takes it gets a handle of its own and opens a stream, and hyper queues
//! streams beyond the server's `SETTINGS_MAX_CONCURRENT_STREAMS`. A
//! stream dropped unread is reset without harm to the others. One that a
//! GOAWAY refused takes the connection out ([`Pool::retire`]), and the
//! fetch goes on to a fresh one. It closes once nothing uses it and it
//! has been idle for the idle timeout (or sooner, when its last request
//! ended without giving it back: that moment is not seen, and the idle
//! time is counted from when the pool last found it in use).
//!
//! Cost: a take walks back from the newest kept connection to the host
//! and stops at the first that fits, dropping the dead it passes; a put
//! walks every kept connection only when one may have reached the idle
//! timeout or the bounds are full. Both used to walk everything each
//! time, which at 1,000 kept a host made the pool's lock the bottleneck
//! (1,000 fetches in flight: 0.74x reqwest's pooled client before, 1.03x
//! after, in one session's runs).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::time::Instant;

use super::conn::Conn;

/// A connection handed to one request, with what decides whether it may
/// go back: the host it serves and whether the response allowed keeping
/// it.
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

struct Kept {
    /// An idle HTTP/1.1 connection, or the pool's own handle on an h2 one.
    conn: Conn,
    /// When it was last idle: put back (HTTP/1.1), or handed out, given
    /// back or found in use (h2).
    since: Instant,
}

impl Kept {
    /// Still worth keeping at `now`: open, and in use (h2) or idle for
    /// less than `age`. An h2 connection found in use is idle from now on.
    fn live(&mut self, now: Instant, age: Duration) -> bool {
        if self.conn.closed() {
            return false;
        }
        if self.conn.in_use() {
            self.since = now;
            return true;
        }
        now.saturating_duration_since(self.since) < age
    }
}

#[derive(Default)]
struct State {
    /// Per host, oldest first.
    kept: HashMap<String, Vec<Kept>>,
    total: usize,
    /// When the oldest connection kept reaches the idle timeout, as of the
    /// last purge (entries only get younger after it): `keep` purges
    /// from then on, not on every call.
    purge_at: Option<Instant>,
    /// A task is closing connections as they reach the idle timeout (one
    /// per pool, only while something is kept).
    reaper: bool,
}

impl State {
    /// Drops every connection closed or idle for `age` or longer; returns
    /// the oldest remaining `since`.
    fn purge(&mut self, age: Duration) -> Option<Instant> {
        let now = Instant::now();
        let mut removed = 0;
        self.kept.retain(|_, list| {
            let before = list.len();
            list.retain_mut(|k| k.live(now, age));
            removed += before - list.len();
            !list.is_empty()
        });
        self.total -= removed;
        let oldest = self
            .kept
            .values()
            .flat_map(|l| l.iter().map(|k| k.since))
            .min();
        self.purge_at = oldest.and_then(|o| o.checked_add(age));
        oldest
    }

    /// There is room for one more connection to `host`.
    fn room(&self, host: &str, limits: &Limits) -> bool {
        let here = self.kept.get(host).map_or(0, Vec::len);
        here < limits.per_host && self.total < limits.total
    }
}

/// Kept connections of one `Fetcher`.
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

    /// A kept open connection to `host` at one of `addrs` (this request's
    /// vetted answer), the most recently kept first: an idle HTTP/1.1 one
    /// taken out of the pool, or a handle on an h2 one, which stays.
    /// Connections found closed or past the idle timeout on the way are
    /// dropped.
    pub fn take(&self, host: &str, addrs: &[SocketAddr]) -> Option<Conn> {
        self.find(host, addrs, false)
    }

    /// [`Pool::take`], for any kept connection or (`h2_only`) a shared
    /// one only.
    fn find(&self, host: &str, addrs: &[SocketAddr], h2_only: bool) -> Option<Conn> {
        let mut state = self.state();
        let age = self.limits.idle_timeout;
        let now = Instant::now();
        let list = state.kept.get_mut(host)?;
        let before = list.len();
        // From the most recently kept back, dropping the dead met on the
        // way; the first one that fits ends the walk, so a take costs
        // what it passes over, not the whole list (the reaper and `keep`
        // purge the rest).
        let mut i = list.len();
        let found = loop {
            if i == 0 {
                break None;
            }
            i -= 1;
            if !list[i].live(now, age) {
                list.remove(i);
                continue;
            }
            let k = &mut list[i];
            if !addrs.contains(&k.conn.addr) || (h2_only && !k.conn.h2) {
                continue;
            }
            match k.conn.stream() {
                Some(handle) => {
                    k.since = now;
                    break Some(handle);
                }
                None => break Some(list.remove(i).conn),
            }
        };
        let after = list.len();
        if list.is_empty() {
            state.kept.remove(host);
        }
        state.total -= before - after;
        found
    }

    /// Registers a new h2 connection to `host`, so that other fetches
    /// may take streams of it while it is in use, if the bounds have
    /// room (else it serves its own request and closes after).
    ///
    /// Fetches that start together each make a connection. When another
    /// fetch's h2 connection to `host`, at one of `addrs` (this fetch's
    /// own vetted answer), came up first and is here, a stream of it is
    /// returned instead and this one is not registered: the fetch sends
    /// on the first, as hyper's client does, and keeps its own until the
    /// first has answered (a server that takes one stream a connection
    /// refuses the second, and the fetch then sends on its own).
    pub fn share(&self, host: &str, conn: &Conn, addrs: &[SocketAddr]) -> Option<Conn> {
        conn.stream()?;
        if let Some(first) = self.find(host, addrs, true) {
            return Some(first);
        }
        self.register(host, conn);
        None
    }

    /// Registers `conn` (h2) for sharing, if the bounds have room, whatever
    /// else is here.
    pub fn register(&self, host: &str, conn: &Conn) {
        if let Some(handle) = conn.stream() {
            self.keep(host, handle);
        }
    }

    /// Takes `conn`'s connection out of the pool (a request on it failed
    /// before any response): no fetch asks it again; the requests already
    /// on it go on.
    pub fn retire(&self, host: &str, conn: &Conn) {
        let mut state = self.state();
        let Some(list) = state.kept.get_mut(host) else {
            return;
        };
        let before = list.len();
        list.retain(|k| !k.conn.same(conn));
        let removed = before - list.len();
        if list.is_empty() {
            state.kept.remove(host);
        }
        state.total -= removed;
    }

    /// Gives `lease`'s connection back once its response was read to the
    /// end: an HTTP/1.1 one is kept if the response allowed it, the
    /// connection is still open and the bounds have room, otherwise it is
    /// dropped (closed); an h2 one is idle from now (and registered, if
    /// it was not).
    pub fn put(&self, lease: Lease) {
        let Lease {
            mut conn,
            host,
            keep,
        } = lease;
        if !keep || conn.closed() {
            return;
        }
        if conn.h2 {
            let mut state = self.state();
            if let Some(k) = state
                .kept
                .get_mut(&host)
                .and_then(|l| l.iter_mut().find(|k| k.conn.same(&conn)))
            {
                k.since = Instant::now();
                return;
            }
        }
        self.keep(&host, conn);
    }

    /// Keeps `conn` (an idle HTTP/1.1 connection, or the pool's handle on
    /// an h2 one not yet here) if the bounds have room, and makes sure a
    /// reaper runs.
    fn keep(&self, host: &str, conn: Conn) {
        let age = self.limits.idle_timeout;
        if age.is_zero() {
            return;
        }
        let mut state = self.state();
        let now = Instant::now();
        // Also here, not only in the reaper: a reaper whose runtime has
        // ended is gone, and the bounds must still hold. A purge walks
        // every connection kept, so it runs only when something may be
        // too old or there is no room, not on every call.
        if !state.room(host, &self.limits) || state.purge_at.is_some_and(|at| at <= now) {
            state.purge(age);
        }
        // An h2 connection may be here already (registered when it was
        // made); an HTTP/1.1 one was taken out to be used.
        if !state.room(host, &self.limits)
            || (conn.h2
                && state
                    .kept
                    .get(host)
                    .is_some_and(|l| l.iter().any(|k| k.conn.same(&conn))))
        {
            return;
        }
        state
            .kept
            .entry(host.to_string())
            .or_default()
            .push(Kept { conn, since: now });
        state.total += 1;
        if state.purge_at.is_none() {
            state.purge_at = now.checked_add(age);
        }
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

    /// How many connections are kept.
    #[cfg(test)]
    fn kept(&self) -> usize {
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
        let (sender, guard, driver) = crate::net::conn::handshake(client, false)
            .await
            .expect("handshake");
        let tls = TlsAudit {
            version: "TLSv1_3".into(),
            alpn: None,
        };
        let conn = Conn::new(sender, guard, driver, addr.parse().expect("addr"), tls);
        (conn, server)
    }

    /// A real h2 client connection over an in-memory stream (the preface
    /// is written; no server answers), and the server's end.
    async fn h2(addr: &str) -> (Conn, tokio::io::DuplexStream) {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (sender, guard, driver) = crate::net::conn::handshake(client, true)
            .await
            .expect("handshake");
        let tls = TlsAudit {
            version: "TLSv1_3".into(),
            alpn: Some("h2".into()),
        };
        let conn = Conn::new(sender, guard, driver, addr.parse().expect("addr"), tls);
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
        assert_eq!(pool.kept(), 0);
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
        assert_eq!(pool.kept(), 3);
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
        assert_eq!(pool.kept(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_connection_is_closed_after_the_idle_timeout() {
        let pool = Pool::new(limits(4, 8));
        let (c, _s) = conn(A).await;
        pool.put(lease(c, "a.example"));
        tokio::time::sleep(Duration::from_secs(29)).await;
        assert_eq!(pool.kept(), 1);
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(pool.kept(), 0);
        let zero = Pool::new(Limits {
            idle_timeout: Duration::ZERO,
            ..limits(4, 8)
        });
        let (c, _s) = conn(A).await;
        zero.put(lease(c, "a.example"));
        assert_eq!(zero.kept(), 0, "a zero timeout keeps none");
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_reaper_the_next_put_still_drops_what_is_too_old() {
        let pool = Pool::new(limits(4, 8));
        // As if the reaper's runtime had ended: none runs.
        pool.state().reaper = true;
        let (c, _s) = conn(A).await;
        pool.put(lease(c, "a.example"));
        tokio::time::sleep(Duration::from_secs(31)).await;
        assert_eq!(pool.kept(), 1);
        let (c, _s2) = conn(B).await;
        pool.put(lease(c, "b.example"));
        assert_eq!(pool.kept(), 1, "the old one went, the new one stays");
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
        assert_eq!(none.kept(), 0);
    }

    #[tokio::test]
    async fn a_take_walks_back_from_the_newest_past_other_addresses_and_the_dead() {
        let pool = Pool::new(limits(8, 8));
        let a = [A.parse().unwrap()];
        let (c, _s1) = conn(A).await;
        pool.put(lease(c, "a.example"));
        let (c, closed) = conn(A).await;
        pool.put(lease(c, "a.example"));
        let (c, _s3) = conn(B).await;
        pool.put(lease(c, "a.example"));
        drop(closed);
        for _ in 0..100 {
            tokio::task::yield_now().await;
        }
        // Newest first: B is passed over (not this lookup's), the closed
        // one dropped, the first handed out; B stays.
        assert_eq!(pool.kept(), 3);
        assert!(pool.take("a.example", &a).is_some());
        assert_eq!(pool.kept(), 1);
        assert!(pool.take("a.example", &a).is_none());
        assert!(pool.take("a.example", &[B.parse().unwrap()]).is_some());
        assert_eq!(pool.kept(), 0);
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
        assert_eq!(pool.kept(), 0);
    }

    #[tokio::test]
    async fn an_h2_connection_is_shared_under_the_same_rule() {
        let pool = Pool::new(limits(4, 8));
        let (c, _s) = h2(A).await;
        pool.share("a.example", &c, &[A.parse().unwrap()]);
        let a = [A.parse().unwrap()];
        let b = [B.parse().unwrap()];
        assert!(pool.take("b.example", &a).is_none(), "another host");
        assert!(pool.take("a.example", &b).is_none(), "another address");
        assert!(pool.take("a.example", &[]).is_none(), "no vetted address");
        let one = pool.take("a.example", &a).expect("a stream");
        let two = pool.take("a.example", &a).expect("another stream");
        assert!(one.same(&c) && two.same(&c), "the same connection");
        assert_eq!(pool.kept(), 1, "it stays while streams use it");
        pool.share("a.example", &c, &[A.parse().unwrap()]);
        assert_eq!(pool.kept(), 1, "registered once");
        pool.put(lease(one, "a.example"));
        assert_eq!(pool.kept(), 1, "given back, still once");
    }

    #[tokio::test]
    async fn a_retired_h2_connection_is_not_handed_out_again() {
        let pool = Pool::new(limits(4, 8));
        let (c, _s) = h2(A).await;
        pool.share("a.example", &c, &[A.parse().unwrap()]);
        let a = [A.parse().unwrap()];
        let one = pool.take("a.example", &a).expect("a stream");
        pool.retire("a.example", &one);
        assert!(pool.take("a.example", &a).is_none());
        assert_eq!(pool.kept(), 0);
        assert!(!one.sender.is_closed(), "streams already on it go on");
    }

    #[tokio::test]
    async fn shared_h2_connections_count_in_the_bounds() {
        let pool = Pool::new(limits(1, 8));
        let (c1, _s1) = h2(A).await;
        let (c2, _s2) = h2(A).await;
        pool.share("a.example", &c1, &[A.parse().unwrap()]);
        pool.share("a.example", &c2, &[A.parse().unwrap()]);
        assert_eq!(pool.kept(), 1);
        let got = pool.take("a.example", &[A.parse().unwrap()]).expect("one");
        assert!(got.same(&c1), "the one that had room");
        // A connection not registered is, when given back with room.
        let pool = Pool::new(limits(4, 8));
        pool.put(lease(c2, "a.example"));
        assert_eq!(pool.kept(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn an_h2_connection_in_use_outlives_the_idle_timeout_then_closes() {
        let pool = Pool::new(limits(4, 8));
        let (c, _s) = h2(A).await;
        pool.share("a.example", &c, &[A.parse().unwrap()]);
        tokio::time::sleep(Duration::from_secs(45)).await;
        assert_eq!(pool.kept(), 1, "the fetch that made it still holds it");
        drop(c);
        tokio::time::sleep(Duration::from_secs(61)).await;
        assert_eq!(pool.kept(), 0, "idle past the timeout once unused");
    }
}
