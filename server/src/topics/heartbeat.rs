//! One heartbeat clock for every subscription of the process.
//!
//! A timer per subscription (a `tokio::time::Sleep` in each stream) cost
//! memory in each of them, and 100,000 subscriptions opened together had
//! their timers fire together: a burst of 100,000 heartbeats once a second
//! that delayed every other call by seconds. Here one task ticks, and the
//! subscriptions are dealt round-robin into [`SLICES`] groups, one group
//! woken per tick: a group is woken once per `--topic-heartbeat-interval`,
//! and the groups' wake-ups are spread evenly over the interval.
//!
//! A subscription woken by its group sends a heartbeat if it sent nothing
//! since its group's previous tick (`Streaming` in `subscription`): a quiet
//! stream gets one heartbeat per interval, and no stream is silent for
//! longer than two intervals.
//!
//! tokio's `watch` does the waking: a receiver is two words, and a send
//! wakes the receivers of its group only.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::MissedTickBehavior;

/// Groups of subscriptions woken in turn. Enough that a group's burst is a
/// small share of all subscriptions, few enough that the clock task wakes
/// rarely (16 times per interval).
pub const SLICES: usize = 16;

pub struct Heartbeats {
    interval: Duration,
    slices: Vec<watch::Sender<()>>,
    /// The group the next subscription joins.
    next: AtomicUsize,
    /// The clock task, started by the first subscription (the hub may be
    /// made outside a runtime, in tests).
    started: OnceLock<()>,
}

impl Heartbeats {
    pub fn new(interval: Duration) -> Arc<Heartbeats> {
        Arc::new(Heartbeats {
            interval,
            slices: (0..SLICES).map(|_| watch::Sender::new(())).collect(),
            next: AtomicUsize::new(0),
            started: OnceLock::new(),
        })
    }

    /// A receiver woken once per interval, in the next group in turn.
    pub fn join(self: &Arc<Self>) -> watch::Receiver<()> {
        self.started.get_or_init(|| {
            tokio::spawn(tick(Arc::downgrade(self), self.interval));
        });
        let slice = self.next.fetch_add(1, Ordering::Relaxed) % SLICES;
        self.slices[slice].subscribe()
    }
}

/// Wakes one group every `interval / SLICES`, until the hub is gone.
async fn tick(heartbeats: Weak<Heartbeats>, interval: Duration) {
    let mut clock = tokio::time::interval(interval / SLICES as u32);
    // A late tick (a busy runtime) is not made up by a burst.
    clock.set_missed_tick_behavior(MissedTickBehavior::Delay);
    clock.tick().await;
    let mut slice = 0;
    loop {
        clock.tick().await;
        let Some(heartbeats) = heartbeats.upgrade() else {
            return;
        };
        heartbeats.slices[slice].send_replace(());
        slice = (slice + 1) % SLICES;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn each_group_is_woken_once_per_interval_in_turn() {
        // 16 slices of whole milliseconds: the timer's resolution.
        let interval = Duration::from_millis(1600);
        let heartbeats = Heartbeats::new(interval);
        let mut first = heartbeats.join();
        let mut second = heartbeats.join();
        let start = tokio::time::Instant::now();
        first.changed().await.unwrap();
        let first_woken = start.elapsed();
        assert!(first_woken <= interval, "{first_woken:?}");
        assert!(!second.has_changed().unwrap(), "one group at a time");
        second.changed().await.unwrap();
        assert_eq!(start.elapsed() - first_woken, interval / 16);
        first.changed().await.unwrap();
        assert_eq!(start.elapsed() - first_woken, interval);
    }

    #[tokio::test(start_paused = true)]
    async fn the_clock_stops_with_the_hub() {
        let heartbeats = Heartbeats::new(Duration::from_secs(1));
        let mut receiver = heartbeats.join();
        drop(heartbeats);
        assert!(receiver.changed().await.is_err());
    }
}
