//! A subscriber's place in a numbering, to tell messages missed from
//! messages that only came late.
//!
//! jiffy-server numbers each topic's messages itself, and every subscriber
//! reads them in that order: a gap there is a loss (and comes with a
//! discontinuity). Over Redis the numbers are the publisher's, and with
//! several PUBLISHes in flight they may reach the connection, and so the
//! subscribers, slightly out of order: a number skipped is held as missing
//! until it arrives late, and only the ones that never do are lost.

use std::collections::BTreeSet;

/// Numbers skipped by one gap that are remembered, to be matched by late
/// arrivals; a wider gap is counted as lost at once (far more than any
/// reordering by messages in flight).
const MAX_REMEMBERED_GAP: u64 = 10_000;

/// Missing numbers further than this below the newest are taken as lost
/// for good and forgotten, which bounds the memory.
const HORIZON: u64 = 100_000;

#[derive(Debug, Default)]
pub struct Order {
    last: Option<u64>,
    missing: BTreeSet<u64>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Seen {
    /// The one after the last (or the first).
    Next,
    /// This many were skipped (missing until they come late).
    Missed(u64),
    /// A number skipped before, arriving late.
    Late,
    /// At or below the last and never skipped: read twice.
    Again,
}

impl Order {
    pub fn see(&mut self, number: u64) -> Seen {
        let Some(last) = self.last else {
            self.last = Some(number);
            return Seen::Next;
        };
        if number <= last {
            return if self.missing.remove(&number) {
                Seen::Late
            } else {
                Seen::Again
            };
        }
        self.last = Some(number);
        let skipped = number - last - 1;
        if skipped == 0 {
            return Seen::Next;
        }
        if skipped <= MAX_REMEMBERED_GAP {
            self.missing.extend(last + 1..number);
        }
        let horizon = number.saturating_sub(HORIZON);
        while self.missing.first().is_some_and(|&oldest| oldest < horizon) {
            self.missing.pop_first();
        }
        Seen::Missed(skipped)
    }

    /// Goes on after a discontinuity: the next message is `last + 1`.
    pub fn jump(&mut self, last: u64) {
        self.last = Some(last);
        self.missing.clear();
    }

    pub fn last(&self) -> Option<u64> {
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_late_arrivals_and_repeats_are_told_apart() {
        let mut order = Order::default();
        assert_eq!(order.see(7), Seen::Next);
        assert_eq!(order.see(8), Seen::Next);
        assert_eq!(order.see(11), Seen::Missed(2));
        assert_eq!(order.see(10), Seen::Late);
        assert_eq!(order.see(10), Seen::Again);
        assert_eq!(order.see(12), Seen::Next);
        assert_eq!(order.last(), Some(12));
        order.jump(20);
        assert_eq!(order.see(9), Seen::Again);
        assert_eq!(order.see(21), Seen::Next);
    }

    #[test]
    fn wide_gaps_and_old_holes_are_not_remembered() {
        let mut order = Order::default();
        order.see(0);
        assert_eq!(
            order.see(MAX_REMEMBERED_GAP + 2),
            Seen::Missed(MAX_REMEMBERED_GAP + 1)
        );
        assert!(order.missing.is_empty());
        order.see(MAX_REMEMBERED_GAP + 4);
        order.see(MAX_REMEMBERED_GAP + 4 + HORIZON);
        assert_eq!(order.see(MAX_REMEMBERED_GAP + 3), Seen::Again);
    }
}
