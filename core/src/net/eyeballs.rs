//! Connection attempts in the style of Happy Eyeballs (RFC 8305): the
//! vetted addresses are tried in the order the resolver gave them (the
//! contract's rule), each new attempt started when the one before fails
//! or after a delay, whichever comes first; the first to connect wins and
//! the others are dropped. A black-holed address (a dead AAAA route is the
//! common case) then costs one delay, not the whole connect limit, which
//! still bounds every attempt together.
//!
//! [`interleave`] is the resolver's half (RFC 8305 §4): answers of two
//! families alternate, starting with the family of the first answer, so
//! that a family that is down never holds up the other for long.
//! [`crate::net::HickoryResolve`] returns its answers that way.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use crate::audit::DialAudit;
use crate::policy::VettedAddr;

use super::{Dial, Io};

/// Answers of both families alternated, each family in its own order,
/// starting with the family of the first answer (RFC 8305 §4): what a
/// host's own [`crate::net::Resolve`] may do with its answers, as the
/// built-in resolver does.
pub fn interleave(answers: Vec<IpAddr>) -> Vec<IpAddr> {
    let Some(first) = answers.first().copied() else {
        return answers;
    };
    let (mut lead, mut other): (Vec<IpAddr>, Vec<IpAddr>) = answers
        .into_iter()
        .partition(|a| a.is_ipv4() == first.is_ipv4());
    let mut out = Vec::with_capacity(lead.len() + other.len());
    lead.reverse();
    other.reverse();
    loop {
        match (lead.pop(), other.pop()) {
            (None, None) => return out,
            (a, b) => out.extend(a.into_iter().chain(b)),
        }
    }
}

type Attempt<'a> = Pin<Box<dyn Future<Output = std::io::Result<Box<dyn Io>>> + Send + 'a>>;

/// What woke the race.
enum Wake {
    /// Attempt `i` connected.
    Won(usize, Box<dyn Io>),
    /// Attempt `i` failed with this error kind.
    Failed(usize, String),
    /// The attempt delay passed.
    Tick,
}

/// Dials `addrs` on `port` as the module says, recording every attempt in
/// `dials` (its outcome: `connected`, the error's kind, `abandoned` when
/// another won, or left `timed out` when the caller's limit ends the race).
/// The winner's address and stream; `Err` when every attempt failed.
pub(crate) async fn race(
    dialer: &dyn Dial,
    addrs: Vec<VettedAddr>,
    port: u16,
    delay: Duration,
    dials: &mut Vec<DialAudit>,
) -> Result<(SocketAddr, Box<dyn Io>), ()> {
    if addrs.is_empty() {
        return Err(());
    }
    let mut pending: Vec<(usize, Attempt<'_>)> = Vec::new();
    let mut next = 0usize;
    let step = delay.min(Duration::from_secs(86_400));
    let mut timer = Box::pin(tokio::time::sleep(step));
    // The first attempt starts at once: a zero-length timer would wait for
    // the timer driver's next tick (up to a millisecond) on every dial.
    let mut start_next = true;
    loop {
        if start_next && next < addrs.len() {
            let a = addrs[next];
            dials.push(DialAudit {
                addr: SocketAddr::new(a.ip(), port),
                outcome: "timed out".into(),
            });
            pending.push((dials.len() - 1, dialer.dial(a, port)));
            next += 1;
            timer.as_mut().reset(tokio::time::Instant::now() + step);
        }
        let wake = std::future::poll_fn(|cx| {
            for (k, (i, attempt)) in pending.iter_mut().enumerate() {
                if let Poll::Ready(r) = attempt.as_mut().poll(cx) {
                    let i = *i;
                    drop(pending.swap_remove(k));
                    return Poll::Ready(match r {
                        Ok(s) => Wake::Won(i, s),
                        Err(e) => Wake::Failed(i, e.kind().to_string()),
                    });
                }
            }
            if next < addrs.len() && timer.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Wake::Tick);
            }
            Poll::Pending
        })
        .await;
        start_next = match wake {
            Wake::Won(i, s) => {
                let addr = dials[i].addr;
                dials[i].outcome = "connected".into();
                tracing::info!(target: "webgate", %addr, outcome = "connected", "dial");
                for (j, _) in &pending {
                    dials[*j].outcome = "abandoned".into();
                }
                return Ok((addr, s));
            }
            Wake::Failed(i, kind) => {
                let addr = dials[i].addr;
                tracing::info!(target: "webgate", %addr, outcome = %kind, "dial");
                dials[i].outcome = kind;
                if next >= addrs.len() && pending.is_empty() {
                    return Err(());
                }
                // A failure starts the next attempt at once.
                true
            }
            Wake::Tick => true,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn families_alternate_from_the_first_answer() {
        let got = interleave(vec![
            ip("2001:db8::1"),
            ip("2001:db8::2"),
            ip("2001:db8::3"),
            ip("192.0.2.1"),
        ]);
        assert_eq!(
            got,
            [
                ip("2001:db8::1"),
                ip("192.0.2.1"),
                ip("2001:db8::2"),
                ip("2001:db8::3")
            ]
        );
        let one = vec![ip("192.0.2.1"), ip("192.0.2.2")];
        assert_eq!(interleave(one.clone()), one);
        assert_eq!(interleave(vec![]), Vec::<IpAddr>::new());
    }
}
