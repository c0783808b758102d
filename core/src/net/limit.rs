//! One request's time limit as one timer ([`Limit`]): every wait of a hop
//! (the TLS handshake, the response head, each frame of the body) races
//! the same timer, instead of arming a timer of its own.
//!
//! Why: arming a timer that ends before the runtime's next wake-up wakes
//! the runtime's driver (a write to its eventfd, and a futex wake of a
//! parked worker). With a timer for each wait, a request on a kept
//! connection armed three and paid for three such wake-ups; reqwest, which
//! arms none by default, pays for none, and was as fast on a kept
//! connection for it. One timer a hop costs one.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use tokio::time::{Instant, Sleep};

/// A request's limit: its instant, and the one timer that ends there
/// (armed the first time a wait is not answered at once).
pub(crate) struct Limit {
    at: Instant,
    timer: Pin<Box<Sleep>>,
}

/// The limit passed before the wait was answered.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Passed;

impl Limit {
    pub fn at(at: Instant) -> Limit {
        Limit {
            at,
            timer: Box::pin(tokio::time::sleep_until(at)),
        }
    }

    /// The instant the limit passes.
    pub fn deadline(&self) -> Instant {
        self.at
    }

    /// `f`'s answer, or [`Passed`] when the limit passes first. `f` is
    /// polled first, so an answer ready at once never arms the timer.
    pub async fn within<F: Future>(&mut self, f: F) -> Result<F::Output, Passed> {
        let mut f = std::pin::pin!(f);
        std::future::poll_fn(|cx| {
            if let Poll::Ready(v) = f.as_mut().poll(cx) {
                return Poll::Ready(Ok(v));
            }
            self.timer.as_mut().poll(cx).map(|()| Err(Passed))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn every_wait_races_the_one_instant() {
        let start = Instant::now();
        let mut limit = Limit::at(start + Duration::from_secs(10));
        assert_eq!(limit.within(async { 7 }).await, Ok(7));
        let slept = limit
            .within(tokio::time::sleep(Duration::from_secs(4)))
            .await;
        assert_eq!(slept, Ok(()));
        // 4 s are gone: a wait of 8 more passes the limit at 10.
        let late = limit
            .within(tokio::time::sleep(Duration::from_secs(8)))
            .await;
        assert_eq!(late, Err(Passed));
        assert_eq!(Instant::now(), start + Duration::from_secs(10));
        // Once passed, a wait not answered at once passes at once; one
        // answered at once is still answered.
        assert_eq!(
            limit.within(std::future::pending::<()>()).await,
            Err(Passed)
        );
        assert_eq!(limit.within(async { 1 }).await, Ok(1));
    }
}
