//! What the publisher and the subscribers saw, shared by every task of the
//! one thread the client runs on (hence `Cell` and `RefCell`), and counted
//! only inside the measured window: a delivery counts when a subscriber
//! reads it in the window, whenever it was published.

use std::{
    cell::{Cell, RefCell},
    collections::BTreeMap,
    time::Instant,
};

use hdrhistogram::Histogram;
use jiffy_bench_server::latency;
use serde::Serialize;

use crate::order::{Order, Seen};

/// Where the run is; flipped only by the clock in `drive`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Warmup,
    Measuring,
    Done,
}

/// Counted in the window.
#[derive(Default, Serialize)]
pub struct Counts {
    pub published: u64,
    pub delivered: u64,
    pub heartbeats: u64,
    /// Discontinuities sent by jiffy-server (a subscriber fell behind the
    /// topic's buffer).
    pub discontinuities: u64,
    /// Messages subscribers missed, summed over subscribers: those a
    /// discontinuity skipped, and gaps in the numbering less the numbers
    /// that came late (see `order`).
    pub lost: u64,
    /// Messages that came after a later-numbered one (Redis, with several
    /// PUBLISHes in flight; never expected from jiffy-server).
    pub reordered: u64,
    /// A number read twice: never expected.
    pub repeated: u64,
    /// Items that were not ours: no value, text, or too short.
    pub malformed: u64,
}

pub struct Stats {
    /// Publish time (or, at a fixed rate, the time it was due) to the
    /// subscriber reading it, nanoseconds.
    pub delivery: Histogram<u64>,
    /// The time the publisher sent it to the subscriber reading it: less
    /// than `delivery` by how late the publisher was.
    pub delivery_from_send: Histogram<u64>,
    /// Due (or sent) time to the publish's acknowledgement.
    pub publish: Histogram<u64>,
    pub counts: Counts,
    pub publish_errors: BTreeMap<String, u64>,
    /// Subscriptions that ended under the client (and were opened again),
    /// by reason, over the whole run.
    pub streams_ended: BTreeMap<String, u64>,
}

pub struct Shared {
    /// Time zero of the messages' timestamps.
    pub base: Instant,
    phase: Cell<Phase>,
    stats: RefCell<Stats>,
}

impl Shared {
    pub fn new() -> Self {
        Shared {
            base: Instant::now(),
            phase: Cell::new(Phase::Warmup),
            stats: RefCell::new(Stats {
                delivery: latency::histogram(),
                delivery_from_send: latency::histogram(),
                publish: latency::histogram(),
                counts: Counts::default(),
                publish_errors: BTreeMap::new(),
                streams_ended: BTreeMap::new(),
            }),
        }
    }

    pub fn set_phase(&self, phase: Phase) {
        self.phase.set(phase);
    }

    pub fn done(&self) -> bool {
        self.phase.get() == Phase::Done
    }

    /// Runs `f` on the stats if the window is open.
    fn count(&self, f: impl FnOnce(&mut Stats)) {
        if self.phase.get() == Phase::Measuring {
            f(&mut self.stats.borrow_mut());
        }
    }

    pub fn published(&self, due: Instant, result: Result<(), String>) {
        let acked = Instant::now();
        self.count(|stats| match result {
            Ok(()) => {
                stats.counts.published += 1;
                stats
                    .publish
                    .saturating_record(latency::nanos(acked.saturating_duration_since(due)));
            }
            Err(error) => *stats.publish_errors.entry(error).or_default() += 1,
        });
    }

    pub fn delivered(&self, due: Instant, sent: Instant) {
        let read = Instant::now();
        self.count(|stats| {
            stats.counts.delivered += 1;
            let since = |at: Instant| latency::nanos(read.saturating_duration_since(at));
            stats.delivery.saturating_record(since(due));
            stats.delivery_from_send.saturating_record(since(sent));
        });
    }

    /// A subscriber's next message, numbered `number` in its `order`.
    pub fn numbered(&self, order: &mut Order, number: u64) {
        match order.see(number) {
            Seen::Next => {}
            Seen::Missed(missed) => self.count(|stats| stats.counts.lost += missed),
            Seen::Late => self.count(|stats| {
                stats.counts.reordered += 1;
                // Its gap may have been counted before the window opened.
                stats.counts.lost = stats.counts.lost.saturating_sub(1);
            }),
            Seen::Again => self.count(|stats| stats.counts.repeated += 1),
        }
    }

    pub fn discontinuity(&self, missed: u64) {
        self.count(|stats| {
            stats.counts.discontinuities += 1;
            stats.counts.lost += missed;
        });
    }

    pub fn heartbeat(&self) {
        self.count(|stats| stats.counts.heartbeats += 1);
    }

    pub fn malformed(&self) {
        self.count(|stats| stats.counts.malformed += 1);
    }

    pub fn stream_ended(&self, reason: String) {
        if !self.done() {
            *self
                .stats
                .borrow_mut()
                .streams_ended
                .entry(reason)
                .or_default() += 1;
        }
    }

    pub fn take(&self) -> Stats {
        let fresh = Shared::new().stats.into_inner();
        std::mem::replace(&mut self.stats.borrow_mut(), fresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_window_counts() {
        let shared = Shared::new();
        let at = shared.base;
        shared.delivered(at, at);
        shared.set_phase(Phase::Measuring);
        shared.delivered(at, at);
        shared.discontinuity(5);
        shared.set_phase(Phase::Done);
        shared.delivered(at, at);
        let stats = shared.take();
        assert_eq!(stats.counts.delivered, 1);
        assert_eq!(stats.counts.lost, 5);
        assert_eq!(stats.delivery.len(), 1);
    }
}
