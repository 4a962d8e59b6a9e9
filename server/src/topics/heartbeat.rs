//! One heartbeat clock for every subscription of the process.
//!
//! A timer per subscription (a `tokio::time::Sleep` in each stream) cost
//! memory in each of them, and 100,000 subscriptions opened together had
//! their timers fire together: a burst of 100,000 heartbeats once a second
//! that delayed every other call by seconds. Here one task ticks, and the
//! subscriptions are dealt into groups, one group woken per tick, every
//! [`TICK`]: a group is woken once per `--topic-heartbeat-interval`, and
//! the groups' wake-ups are spread evenly over the interval.
//!
//! The groups are small, so that each tick's burst is short: every
//! heartbeat is a turn of its stream's task and of h2, which the runtime
//! runs before the calls that arrive meanwhile. With 16 groups, 100,000
//! idle subscriptions made a burst of 6,250 heartbeats three times a
//! second, which calls arriving meanwhile waited behind (a normal client's
//! Get p99 1.4-1.7 times its p99 without subscriptions,
//! `bench/reliability/heartbeats.sh`); with a group every 5 ms, a tick
//! wakes about 100.
//!
//! A subscription woken by its group sends a heartbeat if it sent nothing
//! since its group's previous tick (`Streaming` in `subscription`): a quiet
//! stream gets one heartbeat per interval, and no stream is silent for
//! longer than two intervals.
//!
//! The subscriptions of one connection share a group: a tick then wakes
//! every stream of a few connections, whose heartbeats each connection
//! writes together, rather than a few streams of every connection, each
//! connection writing its handful of heartbeats on its own. With 100,000
//! subscriptions over 1,000 connections that is 200 writes a second (one
//! a connection an interval) instead of 20,000. Subscriptions of no known
//! connection are dealt round-robin.
//!
//! The clock also says when the server shuts down (every group is woken,
//! and [`Heartbeats::stopping`] is true), so that an idle subscription
//! waits on two things only, its topic and its group: each wait it holds
//! costs it memory.
//!
//! A group is a [`Signal`]: a subscription holds the version it has seen,
//! and its waker sits in its group's list only while it waits.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::MissedTickBehavior;

use super::signal::{Signal, Wait};

/// How often the clock wakes a group: short, so that a group is a small
/// share of the subscriptions (a 5 s interval makes 1,000 groups); long
/// against the timer's millisecond, and the clock task's own wake-ups,
/// 200 a second, cost little.
pub const TICK: Duration = Duration::from_millis(5);

/// The most groups: past an interval of [`TICK`] times this, the ticks
/// grow longer instead.
pub const MAX_GROUPS: usize = 1024;

/// The groups an interval is dealt into: one a [`TICK`], at least one.
fn groups_for(interval: Duration) -> usize {
    let ticks = interval.as_nanos() / TICK.as_nanos();
    (ticks as usize).clamp(1, MAX_GROUPS)
}

pub struct Heartbeats {
    interval: Duration,
    /// One per group: notified on each of its ticks, and at shutdown.
    slices: Vec<Signal>,
    /// True once the server is shutting down.
    stopping: AtomicBool,
    /// The group the next subscription joins.
    next: AtomicUsize,
    /// The clock task, started by the first subscription (the hub may be
    /// made outside a runtime, in tests).
    started: OnceLock<()>,
    /// The server's: true once it is shutting down.
    shutdown: watch::Receiver<bool>,
}

/// A subscription's place in the clock: its group, and what it has seen of it.
#[derive(Debug)]
pub struct Beat {
    /// Below [`MAX_GROUPS`].
    pub slice: u16,
    pub wait: Wait,
}

impl Heartbeats {
    pub fn new(interval: Duration, shutdown: watch::Receiver<bool>) -> Arc<Heartbeats> {
        Arc::new(Heartbeats {
            interval,
            slices: (0..groups_for(interval))
                .map(|_| Signal::default())
                .collect(),
            stopping: AtomicBool::new(false),
            next: AtomicUsize::new(0),
            started: OnceLock::new(),
            shutdown,
        })
    }

    /// A place woken once per interval, and at shutdown: in the group of
    /// `connection` (any value the subscriptions of one connection share,
    /// such as the address of its state), or with none in the next group
    /// in turn.
    pub fn join(self: &Arc<Self>, connection: Option<usize>) -> Beat {
        self.started.get_or_init(|| {
            let shutdown = self.shutdown.clone();
            tokio::spawn(tick(Arc::downgrade(self), self.interval, shutdown));
        });
        let groups = self.slices.len();
        let slice = match connection {
            Some(key) => group_of(key, groups),
            None => self.next.fetch_add(1, Ordering::Relaxed) % groups,
        };
        Beat {
            slice: slice as u16,
            wait: self.slices[slice].wait(),
        }
    }

    /// The group of `beat`.
    pub fn group(&self, beat: &Beat) -> &Signal {
        &self.slices[beat.slice as usize]
    }

    /// Whether the server is shutting down: every subscription ends.
    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::SeqCst)
    }

    fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        for group in &self.slices {
            group.notify();
        }
    }
}

/// The group, of `groups`, of a connection's key. Addresses are aligned,
/// so their low bits say little: a multiplicative hash spreads them over
/// the groups.
fn group_of(key: usize, groups: usize) -> usize {
    ((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize % groups
}

/// Wakes one group every `interval` divided by the groups, until the hub
/// is gone or the server stops (or is gone with its sender), which it
/// tells every group.
async fn tick(
    heartbeats: Weak<Heartbeats>,
    interval: Duration,
    mut shutdown: watch::Receiver<bool>,
) {
    let groups = groups_for(interval);
    let mut clock = tokio::time::interval(interval / groups as u32);
    // A late tick (a busy runtime) is not made up by a burst.
    clock.set_missed_tick_behavior(MissedTickBehavior::Delay);
    clock.tick().await;
    let mut slice = 0;
    loop {
        let stopping = *shutdown.borrow_and_update()
            || tokio::select! {
                _ = clock.tick() => false,
                changed = shutdown.changed() => match changed {
                    // Seen at the top of the loop.
                    Ok(()) => continue,
                    Err(_) => true,
                },
            };
        let Some(heartbeats) = heartbeats.upgrade() else {
            return;
        };
        if stopping {
            heartbeats.stop();
            return;
        }
        heartbeats.slices[slice].notify();
        slice = (slice + 1) % groups;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;
    use std::task::{Context, Waker};

    async fn beat(heartbeats: &Heartbeats, beat: &mut Beat) {
        let group = &heartbeats.slices[beat.slice as usize];
        poll_fn(|cx| group.poll_changed(&mut beat.wait, cx)).await;
    }

    fn has_beaten(heartbeats: &Heartbeats, beat: &mut Beat) -> bool {
        let mut cx = Context::from_waker(Waker::noop());
        let group = &heartbeats.slices[beat.slice as usize];
        group.poll_changed(&mut beat.wait, &mut cx).is_ready()
    }

    #[tokio::test(start_paused = true)]
    async fn each_group_is_woken_once_per_interval_in_turn() {
        // 320 groups, a tick each 5 ms.
        let interval = Duration::from_millis(1600);
        let (_stop, shutdown) = watch::channel(false);
        let heartbeats = Heartbeats::new(interval, shutdown);
        let mut first = heartbeats.join(None);
        let mut second = heartbeats.join(None);
        let start = tokio::time::Instant::now();
        beat(&heartbeats, &mut first).await;
        let first_woken = start.elapsed();
        assert!(first_woken <= interval, "{first_woken:?}");
        assert!(!has_beaten(&heartbeats, &mut second), "one group at a time");
        beat(&heartbeats, &mut second).await;
        assert_eq!(start.elapsed() - first_woken, TICK);
        beat(&heartbeats, &mut first).await;
        assert_eq!(start.elapsed() - first_woken, interval);
    }

    #[tokio::test(start_paused = true)]
    async fn the_streams_of_one_connection_are_woken_together() {
        let (_stop, shutdown) = watch::channel(false);
        let heartbeats = Heartbeats::new(Duration::from_millis(1600), shutdown);
        let connection = 0x7f00_1234_5670;
        let mut first = heartbeats.join(Some(connection));
        let mut second = heartbeats.join(Some(connection));
        beat(&heartbeats, &mut first).await;
        assert!(
            has_beaten(&heartbeats, &mut second),
            "woken by the same tick"
        );
    }

    #[test]
    fn connections_spread_over_the_groups() {
        // Keys as addresses of connection states: 64-byte aligned.
        let groups: std::collections::HashSet<usize> = (0..256)
            .map(|i| group_of(0x5555_0000 + 64 * i, 16))
            .collect();
        assert_eq!(groups.len(), 16);
        // 1,000 connections over 1,000 groups (a 5 s interval): none
        // holds many, so no tick wakes many more than its share.
        let mut held = vec![0; 1000];
        for i in 0..1000 {
            held[group_of(0x5555_0000 + 64 * i, 1000)] += 1;
        }
        assert!(held.iter().all(|&n| n <= 6), "{:?}", held.iter().max());
    }

    #[test]
    fn a_group_is_woken_every_tick() {
        assert_eq!(groups_for(Duration::from_secs(5)), 1000);
        assert_eq!(groups_for(Duration::from_millis(250)), 50);
        assert_eq!(groups_for(Duration::from_millis(1)), 1);
        assert_eq!(groups_for(Duration::from_secs(3600)), MAX_GROUPS);
    }

    #[tokio::test(start_paused = true)]
    async fn every_group_is_told_of_the_shutdown() {
        let (stop, shutdown) = watch::channel(false);
        let heartbeats = Heartbeats::new(Duration::from_secs(1), shutdown);
        let count = groups_for(Duration::from_secs(1));
        let mut groups: Vec<_> = (0..count).map(|_| heartbeats.join(None)).collect();
        assert!(!heartbeats.stopping());
        stop.send_replace(true);
        for group in &mut groups {
            beat(&heartbeats, group).await;
        }
        assert!(heartbeats.stopping(), "a late subscriber sees it too");
    }

    #[tokio::test(start_paused = true)]
    async fn the_clock_stops_with_the_hub() {
        let (_stop, shutdown) = watch::channel(false);
        let heartbeats = Heartbeats::new(Duration::from_secs(1), shutdown);
        let clock = tokio::spawn(tick(
            Arc::downgrade(&heartbeats),
            Duration::from_secs(1),
            heartbeats.shutdown.clone(),
        ));
        drop(heartbeats);
        tokio::time::timeout(Duration::from_secs(5), clock)
            .await
            .expect("the clock ended")
            .unwrap();
    }
}
