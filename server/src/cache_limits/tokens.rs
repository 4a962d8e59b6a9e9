//! The buckets of one cache: each limit's bucket here, or a lease on a
//! shared one.

use std::sync::Arc;
use std::time::Instant;

use super::bucket::Bucket;
use super::lease::Lease;
use super::{RateLimits, SharedBuckets, BYTES, CALLS, PUBLISHES};

/// One limit of one cache: a bucket here, or a lease on a shared one.
pub(super) enum Tokens {
    Local(Bucket),
    Shared(Lease),
}

impl Tokens {
    pub(super) fn try_take(&mut self, now: Instant, amount: f64, need: f64) -> bool {
        match self {
            Tokens::Local(bucket) => bucket.try_take(now, amount, need),
            Tokens::Shared(lease) => lease.try_take(now, amount, need),
        }
    }

    pub(super) fn charge(&mut self, now: Instant, amount: f64) {
        match self {
            Tokens::Local(bucket) => bucket.charge(now, amount),
            Tokens::Shared(lease) => lease.charge(now, amount),
        }
    }
}

/// The buckets of one cache, made when it is first called.
pub(super) struct Buckets {
    pub(super) calls: Option<Tokens>,
    pub(super) bytes: Option<Tokens>,
    pub(super) publishes: Option<Tokens>,
}

impl Buckets {
    pub(super) fn new(
        name: &str,
        limits: RateLimits,
        shared: Option<&Arc<dyn SharedBuckets>>,
        now: Instant,
    ) -> Buckets {
        let tokens = |limit: &'static str, rate: Option<u64>| {
            rate.map(|rate| match shared {
                Some(shared) => Tokens::Shared(Lease::new(shared.clone(), name, limit, rate)),
                None => Tokens::Local(Bucket::new(rate, now)),
            })
        };
        Buckets {
            calls: tokens(CALLS, limits.max_calls_per_second),
            bytes: tokens(BYTES, limits.max_bytes_per_second),
            publishes: tokens(PUBLISHES, limits.max_publishes_per_second),
        }
    }
}
