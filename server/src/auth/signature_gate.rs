//! How many presigned URLs' signatures are checked at once.
//!
//! An ES256 check costs about 100 us of CPU, an HTTP call's parse a few, so
//! a flood of URLs with forged signatures (the key id of a URL is public:
//! it travels with every URL the key signed) is a cheap way to spend the
//! server's CPU. The gate lets half the cores check signatures at once, so
//! the other half always serves the other calls, and queues a bounded
//! number more; past that a URL is shed unchecked (UNAVAILABLE, which a
//! client may retry) instead of queueing without end.
//!
//! Two semaphores and no more: tower's `ConcurrencyLimit` and `LoadShed`
//! would do it around a whole service, but only this step of one route
//! needs it.

use tokio::sync::{Semaphore, SemaphorePermit};

/// URLs that may wait for a check, per check running at once.
pub const QUEUED_PER_CHECKER: usize = 64;

pub struct SignatureGate {
    /// Checks running at once: half the cores, at least one.
    checkers: Semaphore,
    /// Checks running or waiting: past this, a URL is shed.
    admitted: Semaphore,
}

/// Held while one signature is checked.
pub struct Checking<'a> {
    _admitted: SemaphorePermit<'a>,
    _checker: SemaphorePermit<'a>,
}

impl SignatureGate {
    /// A gate for `checkers` checks at once.
    pub fn new(checkers: usize) -> SignatureGate {
        let checkers = checkers.max(1);
        SignatureGate {
            checkers: Semaphore::new(checkers),
            admitted: Semaphore::new(checkers * (1 + QUEUED_PER_CHECKER)),
        }
    }

    /// A gate for [`checkers_on_this_machine`](Self::checkers_on_this_machine).
    pub fn for_this_machine() -> SignatureGate {
        SignatureGate::new(SignatureGate::checkers_on_this_machine())
    }

    /// Half the cores of this machine, at least one.
    pub fn checkers_on_this_machine() -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cores / 2).max(1)
    }

    /// Waits for a turn to check a signature; `None` at once when the
    /// queue is full.
    pub async fn enter(&self) -> Option<Checking<'_>> {
        let admitted = self.admitted.try_acquire().ok()?;
        let checker = self.checkers.acquire().await.ok()?;
        Some(Checking {
            _admitted: admitted,
            _checker: checker,
        })
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt;

    use super::*;

    #[tokio::test]
    async fn past_the_checkers_and_their_queue_a_url_is_shed_until_one_ends() {
        let gate = SignatureGate::new(1);
        let first = gate.enter().await.expect("the one checker is free");
        // The queue fills with waiters; the next is shed at once.
        let mut waiting: Vec<_> = (0..QUEUED_PER_CHECKER)
            .map(|_| Box::pin(gate.enter()))
            .collect();
        for waiter in &mut waiting {
            assert!(waiter.as_mut().now_or_never().is_none());
        }
        assert!(gate.enter().await.is_none());
        drop(first);
        assert!(waiting[0].as_mut().await.is_some());
        // The first waiter has checked and left: room for one more.
        assert!(gate.enter().now_or_never().is_none());
    }

    #[tokio::test]
    async fn a_waiter_that_gives_up_frees_its_place() {
        let gate = SignatureGate::new(1);
        let _first = gate.enter().await.unwrap();
        let mut waiting: Vec<_> = (0..QUEUED_PER_CHECKER)
            .map(|_| Box::pin(gate.enter()))
            .collect();
        for waiter in &mut waiting {
            assert!(waiter.as_mut().now_or_never().is_none());
        }
        waiting.pop();
        assert!(gate.enter().now_or_never().is_none());
    }
}
