//! The shared side of per-cache limits (`crate::cache_limits`): each
//! cache's buckets live in Redis, in the cache's hash slot, and front-ends
//! lease tokens from them (`lua/rate_lease.lua`); beside them, each
//! front-end's count of the cache's open subscriptions
//! (`lua/subscription_count.lua`).

use std::sync::Arc;

use futures_util::future::BoxFuture;
use redis::Value;

use super::{scripts, unexpected, RedisStore};
use crate::cache_limits::{SharedBuckets, Tally, SUBSCRIPTION_LEASE};
use crate::error::Error;

/// The key of `limit` of the cache `cache` (a bucket, or the count of
/// subscriptions): under the tag of the cache's bucket 0, so in a slot the
/// cache's own items use.
fn lease_key(cache: &str, limit: &str) -> String {
    format!("jr:{{{cache}/0}}:{limit}")
}

impl SharedBuckets for RedisStore {
    fn lease(
        self: Arc<Self>,
        cache: String,
        limit: &'static str,
        rate: u64,
        want: u64,
    ) -> BoxFuture<'static, Result<u64, Error>> {
        Box::pin(async move {
            let mut invocation = scripts::RATE_LEASE.prepare_invoke();
            invocation.key(lease_key(&cache, limit)).arg(rate).arg(want);
            match self.run(invocation).await? {
                Value::Int(granted) => Ok(granted.max(0) as u64),
                other => Err(unexpected("rate_lease", &other)),
            }
        })
    }

    fn tally(
        self: Arc<Self>,
        cache: String,
        front_end: Arc<str>,
        tally: Tally,
    ) -> BoxFuture<'static, Result<bool, Error>> {
        Box::pin(async move {
            let (mode, n) = match tally {
                Tally::Open { limit } => ("open", limit),
                Tally::Close => ("close", 0),
                Tally::Refresh { open } => ("refresh", open),
            };
            let mut invocation = scripts::SUBSCRIPTION_COUNT.prepare_invoke();
            invocation
                .key(lease_key(&cache, "subscriptions"))
                .arg(&*front_end)
                .arg(mode)
                .arg(n)
                .arg(SUBSCRIPTION_LEASE.as_millis() as u64);
            match self.run(invocation).await? {
                Value::Int(admitted) => Ok(admitted == 1),
                other => Err(unexpected("subscription_count", &other)),
            }
        })
    }
}
