//! When an extraction must stop, and what it has done so far.
//!
//! Extraction is linear in the page by construction; this meter is the
//! second line of defence and the proof. Every long loop (the parse's
//! pieces, the rendering's nodes and the bytes it scans and copies, the
//! repeat filter's paragraphs) spends units here, and the meter stops
//! the work when its deadline passes, when the caller gave up (a shared
//! flag: the async side stops waiting at the call's deadline and tells
//! the thread), or when a budget of units runs out (tests and the fuzz
//! target set one, so that a loop gone quadratic is a failure they can
//! see rather than a slow run).
//!
//! The clock and the flag are read once per [`CHECK_EVERY`] units, so
//! the meter costs a counter increment in the loops it guards.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Units spent between two looks at the clock and the flag.
pub const CHECK_EVERY: u64 = 1 << 14;

/// The meter of one extraction.
pub struct Work {
    spent: Cell<u64>,
    next_check: Cell<u64>,
    stopped: Cell<bool>,
    deadline: Option<Instant>,
    cancel: Option<Arc<AtomicBool>>,
    budget: u64,
}

impl Work {
    /// A meter that stops at `deadline` (when given), when `cancel` is
    /// set (when given), or after `budget` units.
    pub fn new(deadline: Option<Instant>, cancel: Option<Arc<AtomicBool>>, budget: u64) -> Work {
        Work {
            spent: Cell::new(0),
            next_check: Cell::new(0),
            stopped: Cell::new(false),
            deadline,
            cancel,
            budget,
        }
    }

    /// A meter that never stops.
    pub fn unbounded() -> Work {
        Work::new(None, None, u64::MAX)
    }

    /// Spends `n` units; false once the work must stop.
    pub fn spend(&self, n: usize) -> bool {
        let spent = self.spent.get().saturating_add(n as u64);
        self.spent.set(spent);
        if spent >= self.next_check.get() {
            self.next_check.set(spent.saturating_add(CHECK_EVERY));
            self.look();
        }
        if spent > self.budget {
            self.stopped.set(true);
        }
        !self.stopped.get()
    }

    /// Looks at the clock and the flag now, whatever was spent.
    pub fn look(&self) -> bool {
        let late = self.deadline.is_some_and(|d| Instant::now() >= d);
        let cancelled = self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed));
        if late || cancelled {
            self.stopped.set(true);
        }
        !self.stopped.get()
    }

    /// Whether the work was stopped (it then returns what it has).
    pub fn stopped(&self) -> bool {
        self.stopped.get()
    }

    /// The units spent so far.
    pub fn spent(&self) -> u64 {
        self.spent.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_stops_the_work() {
        let w = Work::new(None, None, 10);
        assert!(w.spend(10));
        assert!(!w.spend(1));
        assert!(w.stopped());
        assert_eq!(w.spent(), 11);
    }

    #[test]
    fn a_passed_deadline_stops_at_the_first_look() {
        let w = Work::new(Some(Instant::now()), None, u64::MAX);
        // The first unit looks at the clock.
        assert!(!w.spend(1));
    }

    #[test]
    fn the_flag_is_read_every_check_interval() {
        let flag = Arc::new(AtomicBool::new(false));
        let w = Work::new(None, Some(flag.clone()), u64::MAX);
        assert!(w.spend(1));
        flag.store(true, Ordering::Relaxed);
        // Not looked at again before the interval is spent.
        assert!(w.spend(1));
        assert!(!w.spend(CHECK_EVERY as usize));
        assert!(w.stopped());
    }
}
