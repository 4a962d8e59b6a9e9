//! A front-end's share of a bucket kept in a shared store (a Redis store):
//! tokens are leased from it ahead of need, a tenth of a second of the rate
//! at a time, so that a call is admitted or refused without waiting for
//! the store, and every front-end draws on one bucket.
//!
//! Tolerance: a front-end starts each bucket with one lease on credit, so
//! N front-ends may admit N tenths of a second of the rate more than the
//! limit when a cache starts being called (and after the table of buckets
//! starts over); tokens leased and not spent by a front-end that goes
//! quiet are lost to the others for up to that tenth of a second.
//!
//! If the store fails, the lease fails open: the front-end grants itself
//! one second of the rate, so each front-end enforces the limit alone until
//! the store answers again (calls on the store fail UNAVAILABLE meanwhile).

use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use super::SharedBuckets;

/// The shortest pause before asking again after a lease was refused.
const MIN_PAUSE: Duration = Duration::from_millis(5);

pub struct Lease {
    cache: Arc<str>,
    limit: &'static str,
    rate: u64,
    /// Tokens asked at a time: a tenth of a second of the rate, at least 1.
    size: u64,
    shared: Arc<dyn SharedBuckets>,
    state: Arc<Mutex<State>>,
}

struct State {
    /// Leased and not spent; below zero after bytes charged past them.
    tokens: f64,
    /// A lease is being asked for.
    asking: bool,
    /// After a refused lease: the bucket has no whole lease before this.
    pause_until: Option<Instant>,
}

impl Lease {
    pub fn new(
        shared: Arc<dyn SharedBuckets>,
        cache: &str,
        limit: &'static str,
        rate: u64,
    ) -> Lease {
        let size = (rate / 10).max(1);
        Lease {
            cache: cache.into(),
            limit,
            rate,
            size,
            shared,
            state: Arc::new(Mutex::new(State {
                tokens: size as f64,
                asking: false,
                pause_until: None,
            })),
        }
    }

    /// As [`super::bucket::Bucket::try_take`], from the tokens leased.
    pub fn try_take(&self, now: Instant, amount: f64, need: f64) -> bool {
        let mut state = self.state.lock();
        let admitted = state.tokens >= need;
        if admitted {
            state.tokens -= amount;
        }
        self.ask_if_low(&mut state, now);
        admitted
    }

    /// As [`super::bucket::Bucket::charge`]: a debt the next leases repay.
    pub fn charge(&self, now: Instant, amount: f64) {
        let mut state = self.state.lock();
        state.tokens -= amount;
        self.ask_if_low(&mut state, now);
    }

    /// Asks the store for a lease in the background when under half of one
    /// is left, and none is being asked for.
    fn ask_if_low(&self, state: &mut State, now: Instant) {
        let half = self.size as f64 / 2.0;
        let paused = state.pause_until.is_some_and(|until| now < until);
        if state.asking || state.tokens >= half || paused {
            return;
        }
        state.asking = true;
        // A debt is repaid first.
        let want = self.size + (-state.tokens).max(0.0).ceil() as u64;
        let (shared, cache, limit, rate) = (
            self.shared.clone(),
            self.cache.clone(),
            self.limit,
            self.rate,
        );
        let target = self.state.clone();
        let refill = Duration::from_secs_f64(self.size as f64 / rate as f64).max(MIN_PAUSE);
        tokio::spawn(async move {
            let (granted, pause) = match shared.lease(cache.to_string(), limit, rate, want).await {
                Ok(0) => (0, Some(refill)),
                Ok(granted) => (granted, None),
                Err(error) => {
                    tracing::debug!(%error, cache = %cache, limit, "rate lease failed: limiting alone for a second");
                    (rate, Some(Duration::from_secs(1)))
                }
            };
            let mut state = target.lock();
            state.tokens += granted as f64;
            state.asking = false;
            state.pause_until = pause.map(|pause| Instant::now() + pause);
        });
    }
}
