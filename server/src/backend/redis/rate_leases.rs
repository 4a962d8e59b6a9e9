//! The shared side of per-cache rate limits (`crate::cache_limits`): each
//! cache's buckets live in Redis, in the cache's hash slot, and front-ends
//! lease tokens from them (`lua/rate_lease.lua`).

use std::sync::Arc;

use futures_util::future::BoxFuture;
use redis::Value;

use super::{scripts, unexpected, RedisStore};
use crate::cache_limits::SharedBuckets;
use crate::error::Error;

/// The bucket of `limit` of the cache `cache`: under the tag of the
/// cache's bucket 0, so in a slot the cache's own items use.
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
}
