//! Wake-ups for the streams waiting on one thing: a topic's changes, or a
//! heartbeat group's ticks.
//!
//! A [`Signal`] has a version, one more on each [`Signal::notify`], and the
//! wakers of the streams waiting for the next one; a stream holds a
//! [`Wait`]: the version it has seen and the slot of its waker, if it is
//! waiting. A notify takes every waker (the stream registers again when it
//! next waits), so a signal holds one waker per stream waiting, and a
//! stream 16 bytes per signal.
//!
//! Written here rather than taken from tokio: `watch` and `Notify` keep
//! each waiter's list node inside the future that waits, and a subscriber
//! waiting on two of them inside `select!` was an `async` state machine of
//! about 500 bytes, held by each of 100,000 idle subscriptions. No crate
//! keeps its waiters out of the waiting future this way with a version to
//! tell a missed wake-up (`event-listener` allocates a listener per wait).

use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;
use slab::Slab;

#[derive(Default)]
pub struct Signal {
    waiters: Mutex<Waiters>,
}

#[derive(Default)]
struct Waiters {
    version: u64,
    /// The streams waiting for the version after `version`.
    wakers: Slab<Waker>,
}

/// One stream's view of a [`Signal`]: the version it has seen, and its
/// waker's slot while it waits. The stream gives it back with
/// [`Signal::forget`] when it goes.
#[derive(Debug, Default)]
pub struct Wait {
    seen: u64,
    /// Valid while the signal's version is still `seen`: a notify takes
    /// every waker.
    slot: Option<u32>,
}

impl Signal {
    /// A wait that has seen every notify so far.
    pub fn wait(&self) -> Wait {
        Wait {
            seen: self.waiters.lock().version,
            slot: None,
        }
    }

    /// Wakes every stream waiting: each sees a new version.
    pub fn notify(&self) {
        let wakers = {
            let mut waiters = self.waiters.lock();
            waiters.version += 1;
            std::mem::take(&mut waiters.wakers)
        };
        // Woken outside the lock: they take it again to look.
        for (_, waker) in wakers {
            waker.wake();
        }
    }

    /// Marks every notify so far as seen; whether there was one not seen
    /// yet.
    pub fn mark_seen(&self, wait: &mut Wait) -> bool {
        let waiters = self.waiters.lock();
        see(&waiters, wait)
    }

    /// Ready (and seen) once there was a notify `wait` has not seen;
    /// otherwise the task of `cx` is woken by the next one.
    pub fn poll_changed(&self, wait: &mut Wait, cx: &mut Context<'_>) -> Poll<()> {
        let mut waiters = self.waiters.lock();
        if see(&waiters, wait) {
            return Poll::Ready(());
        }
        let waker = cx.waker();
        match wait.slot {
            Some(slot) => {
                let kept = &mut waiters.wakers[slot as usize];
                if !kept.will_wake(waker) {
                    kept.clone_from(waker);
                }
            }
            None => {
                let slot = waiters.wakers.insert(waker.clone());
                wait.slot = Some(u32::try_from(slot).expect("fewer than 2^32 waiting streams"));
            }
        }
        Poll::Pending
    }

    /// Drops the waker of `wait`, if it is waiting: its stream is going.
    pub fn forget(&self, wait: &mut Wait) {
        let mut waiters = self.waiters.lock();
        if let Some(slot) = wait.slot.take() {
            if waiters.version == wait.seen {
                waiters.wakers.remove(slot as usize);
            }
        }
    }

    #[cfg(test)]
    fn waiting(&self) -> usize {
        self.waiters.lock().wakers.len()
    }
}

/// Whether the signal moved past what `wait` has seen; it is seen now.
fn see(waiters: &Waiters, wait: &mut Wait) -> bool {
    if waiters.version == wait.seen {
        return false;
    }
    wait.seen = waiters.version;
    // Its waker went with the notify.
    wait.slot = None;
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn counter() -> (Arc<Count>, Waker) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        (count.clone(), Waker::from(count))
    }

    #[test]
    fn a_wait_is_woken_by_the_next_notify_only() {
        let signal = Signal::default();
        let mut wait = signal.wait();
        let (count, waker) = counter();
        let mut cx = Context::from_waker(&waker);
        assert!(signal.poll_changed(&mut wait, &mut cx).is_pending());
        assert!(signal.poll_changed(&mut wait, &mut cx).is_pending());
        assert_eq!(signal.waiting(), 1, "one slot, whatever the polls");
        signal.notify();
        assert_eq!(count.0.load(Ordering::Relaxed), 1);
        assert_eq!(signal.waiting(), 0, "a notify takes the wakers");
        assert!(signal.poll_changed(&mut wait, &mut cx).is_ready());
        assert!(signal.poll_changed(&mut wait, &mut cx).is_pending());
        signal.notify();
        signal.notify();
        assert_eq!(count.0.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn a_notify_while_not_waiting_is_seen_at_the_next_look() {
        let signal = Signal::default();
        let mut wait = signal.wait();
        assert!(!signal.mark_seen(&mut wait));
        signal.notify();
        let mut cx = Context::from_waker(Waker::noop());
        assert!(signal.poll_changed(&mut wait, &mut cx).is_ready());
        signal.notify();
        assert!(signal.mark_seen(&mut wait));
        assert!(signal.poll_changed(&mut wait, &mut cx).is_pending());
    }

    #[test]
    fn a_stream_that_goes_leaves_no_waker() {
        let signal = Signal::default();
        let mut cx = Context::from_waker(Waker::noop());
        let mut going = signal.wait();
        let mut staying = signal.wait();
        assert!(signal.poll_changed(&mut going, &mut cx).is_pending());
        assert!(signal.poll_changed(&mut staying, &mut cx).is_pending());
        signal.forget(&mut going);
        assert_eq!(signal.waiting(), 1);
        // A stale slot (taken by a notify) is not removed again: after the
        // notify the slot may be another stream's.
        signal.notify();
        let mut other = signal.wait();
        assert!(signal.poll_changed(&mut other, &mut cx).is_pending());
        signal.forget(&mut staying);
        assert_eq!(signal.waiting(), 1);
    }
}
