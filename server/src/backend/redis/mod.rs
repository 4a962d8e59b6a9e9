//! The Redis/Valkey Cluster backend: stateless front-ends, every cache and
//! item in the cluster.
//!
//! - `keys`: the key layout (buckets, generations, the cache list).
//! - `scripts` and `lua/`: one atomic script per call that reads and writes.
//! - `connection`: `--store` parsing, and the connection opened on first use.
//!
//! Every call is bounded by `--store-timeout`; a cluster that is down, hung
//! or failing over is answered UNAVAILABLE, which the SDKs retry when safe.

mod connection;
mod keys;
mod scripts;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::future::try_join_all;
use redis::{ErrorKind, RedisError, ScriptInvocation, ServerErrorKind, Value};

use connection::LazyConnection;
pub use connection::{redact, Target};

use super::{Condition, Storage, StoreStats, TtlOutcome, TtlUpdate};
use crate::error::Error;
use crate::limits::check_cache_name;

/// How long a deleted cache's bucket markers stay. They only have to outlive
/// a slower front-end's update of the same cache, which `--store-timeout`
/// bounds to seconds.
const DELETED_MARKER_TTL_MS: u64 = 3_600_000;

pub struct RedisStore {
    connection: LazyConnection,
    timeout: Duration,
    max_caches: usize,
}

/// A cache, by its (valid) name; whether it exists is checked by each call.
pub struct RedisCache(String);

/// What the cache list answered to a change it accepted.
enum Registry {
    /// The change is recorded under this fresh generation.
    Changed(i64),
    /// CreateCache of a cache that exists, at this generation.
    Exists(i64),
}

impl Registry {
    fn generation(self) -> i64 {
        match self {
            Registry::Changed(generation) | Registry::Exists(generation) => generation,
        }
    }
}

impl RedisStore {
    /// Connects on first use, so the front-end may start before the cluster.
    pub fn new(target: Target, timeout: Duration, max_caches: usize) -> Arc<RedisStore> {
        Arc::new(RedisStore {
            connection: LazyConnection::new(target, timeout),
            timeout,
            max_caches,
        })
    }

    /// Opens the connection now, so the first call does not wait for it.
    pub async fn connect(&self) -> Result<(), Error> {
        self.bounded(async { self.connection.get().await.map(drop) })
            .await
    }

    /// Runs `work` within `--store-timeout`, mapping failures to statuses.
    async fn bounded<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, RedisError>>,
    ) -> Result<T, Error> {
        match tokio::time::timeout(self.timeout, work).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(store_error(error)),
            Err(_) => Err(Error::StoreUnavailable(format!(
                "no answer within {} (--store-timeout)",
                humantime::format_duration(self.timeout)
            ))),
        }
    }

    async fn run(&self, invocation: ScriptInvocation<'_>) -> Result<Value, Error> {
        self.bounded(async {
            let mut connection = self.connection.get().await?;
            invocation.invoke_async(&mut connection).await
        })
        .await
    }

    /// Runs an item script on `key` of `cache`; its extra arguments follow.
    async fn run_item(
        &self,
        script: &'static redis::Script,
        cache: &RedisCache,
        key: &[u8],
        args: &[&[u8]],
    ) -> Result<Value, Error> {
        let (generation, item) = keys::item_keys(&cache.0, key);
        let mut invocation = script.prepare_invoke();
        invocation.key(generation).key(item);
        for arg in args {
            invocation.arg(*arg);
        }
        match self.run(invocation).await? {
            Value::Int(scripts::NO_CACHE) => Err(Error::CacheNotFound(cache.0.clone())),
            value => Ok(value),
        }
    }

    /// Records a create, flush or delete in the cache list.
    async fn change_registry(&self, change: &str, name: &str) -> Result<Registry, Error> {
        let mut invocation = scripts::REGISTRY_CHANGE.prepare_invoke();
        invocation
            .key(keys::CACHES)
            .key(keys::GENERATIONS)
            .arg(change)
            .arg(name)
            .arg(self.max_caches);
        let reply = self.run(invocation).await?;
        let (outcome, generation) = match &reply {
            Value::Array(parts) => match parts.as_slice() {
                [Value::BulkString(outcome), Value::Int(generation)] => {
                    (outcome.as_slice(), *generation)
                }
                _ => return Err(unexpected("registry change", &reply)),
            },
            _ => return Err(unexpected("registry change", &reply)),
        };
        match outcome {
            b"done" => Ok(Registry::Changed(generation)),
            b"exists" => Ok(Registry::Exists(generation)),
            b"missing" => Err(Error::CacheNotFound(name.to_owned())),
            b"full" => Err(Error::TooManyCaches {
                limit: self.max_caches,
            }),
            _ => Err(unexpected("registry change", &reply)),
        }
    }

    /// Brings every bucket of `name` to `generation` (negative: deleted).
    /// All the buckets' scripts are in flight at once.
    async fn update_buckets(&self, name: &str, generation: i64) -> Result<(), Error> {
        let updates = (0..keys::BUCKETS).map(|bucket| async move {
            let mut invocation = scripts::BUCKET_UPDATE.prepare_invoke();
            invocation
                .key(keys::generation_key(name, bucket))
                .arg(generation)
                .arg(DELETED_MARKER_TTL_MS);
            self.run(invocation).await
        });
        try_join_all(updates).await.map(drop)
    }
}

impl Storage for Arc<RedisStore> {
    type Cache = RedisCache;

    async fn create_cache(&self, name: &str) -> Result<(), Error> {
        match self.change_registry("create", name).await? {
            Registry::Changed(generation) => self.update_buckets(name, generation).await,
            Registry::Exists(generation) => {
                // Finishes the work of a front-end that died half-way through
                // creating or flushing this cache: buckets already at this
                // generation (or a newer one) are left as they are.
                self.update_buckets(name, generation).await?;
                Err(Error::CacheAlreadyExists(name.to_owned()))
            }
        }
    }

    async fn delete_cache(&self, name: &str) -> Result<(), Error> {
        let generation = self.change_registry("delete", name).await?.generation();
        self.update_buckets(name, -generation).await
    }

    async fn flush_cache(&self, name: &str) -> Result<(), Error> {
        let generation = self.change_registry("flush", name).await?.generation();
        self.update_buckets(name, generation).await
    }

    async fn list_caches(&self) -> Result<Vec<String>, Error> {
        let mut names: Vec<String> = self
            .bounded(async {
                let mut connection = self.connection.get().await?;
                redis::cmd("HKEYS")
                    .arg(keys::CACHES)
                    .query_async(&mut connection)
                    .await
            })
            .await?;
        names.sort_unstable();
        Ok(names)
    }

    fn cache(&self, name: &str) -> Result<RedisCache, Error> {
        // No cache can have a name CreateCache refuses.
        check_cache_name(name).map_err(|_| Error::CacheNotFound(name.to_owned()))?;
        Ok(RedisCache(name.to_owned()))
    }

    async fn check_exists(&self, cache: &RedisCache) -> Result<(), Error> {
        // Any key's bucket knows whether the cache exists; the empty key's will do.
        self.contains(cache, b"").await.map(drop)
    }

    async fn get(&self, cache: &RedisCache, key: &[u8]) -> Result<Option<Bytes>, Error> {
        match self.run_item(&scripts::GET, cache, key, &[]).await? {
            Value::Nil => Ok(None),
            Value::BulkString(raw) => strip_generation(raw).map(Some),
            other => Err(unexpected("get", &other)),
        }
    }

    async fn set(
        &self,
        cache: &RedisCache,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
    ) -> Result<(), Error> {
        let ttl = millis(ttl);
        match self
            .run_item(&scripts::SET, cache, key, &[value, ttl.as_bytes()])
            .await?
        {
            Value::Int(1) => Ok(()),
            other => Err(unexpected("set", &other)),
        }
    }

    async fn set_if(
        &self,
        cache: &RedisCache,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
        condition: &Condition,
    ) -> Result<bool, Error> {
        let (name, compared): (&str, &[u8]) = match condition {
            Condition::Present => ("present", b""),
            Condition::PresentAndNotEqual(v) => ("present_and_not_equal", v),
            Condition::Absent => ("absent", b""),
            Condition::Equal(v) => ("equal", v),
            Condition::AbsentOrEqual(v) => ("absent_or_equal", v),
            Condition::NotEqual(v) => ("not_equal", v),
        };
        let ttl = millis(ttl);
        let args = [value, ttl.as_bytes(), name.as_bytes(), compared];
        match self.run_item(&scripts::SET_IF, cache, key, &args).await? {
            Value::Int(1) => Ok(true),
            Value::Int(2) => Ok(false),
            other => Err(unexpected("set_if", &other)),
        }
    }

    async fn delete(&self, cache: &RedisCache, key: &[u8]) -> Result<(), Error> {
        match self.run_item(&scripts::DELETE, cache, key, &[]).await? {
            Value::Int(1) => Ok(()),
            other => Err(unexpected("delete", &other)),
        }
    }

    async fn contains(&self, cache: &RedisCache, key: &[u8]) -> Result<bool, Error> {
        match self.run_item(&scripts::EXISTS, cache, key, &[]).await? {
            Value::Int(1) => Ok(true),
            Value::Int(2) => Ok(false),
            other => Err(unexpected("exists", &other)),
        }
    }

    async fn increment(
        &self,
        cache: &RedisCache,
        key: &[u8],
        amount: i64,
        ttl: Duration,
    ) -> Result<i64, Error> {
        let amount = amount.to_string();
        let ttl = millis(ttl);
        let args = [amount.as_bytes(), ttl.as_bytes()];
        match self
            .run_item(&scripts::INCREMENT, cache, key, &args)
            .await?
        {
            Value::BulkString(total) => std::str::from_utf8(&total)
                .ok()
                .and_then(|text| text.parse().ok())
                .ok_or_else(|| unexpected("increment", &Value::BulkString(total))),
            Value::Int(2) => Err(Error::NotAnInteger),
            Value::Int(3) => Err(Error::IncrementOverflow),
            other => Err(unexpected("increment", &other)),
        }
    }

    async fn update_ttl(
        &self,
        cache: &RedisCache,
        key: &[u8],
        update: TtlUpdate,
    ) -> Result<TtlOutcome, Error> {
        let (mode, ttl) = match update {
            TtlUpdate::IncreaseTo(ttl) => ("increase", ttl),
            TtlUpdate::DecreaseTo(ttl) => ("decrease", ttl),
            TtlUpdate::Overwrite(ttl) => ("overwrite", ttl),
        };
        let ttl = millis(ttl);
        let args = [mode.as_bytes(), ttl.as_bytes()];
        match self
            .run_item(&scripts::UPDATE_TTL, cache, key, &args)
            .await?
        {
            Value::Int(1) => Ok(TtlOutcome::Set),
            Value::Int(2) => Ok(TtlOutcome::NotSet),
            Value::Int(3) => Ok(TtlOutcome::Missing),
            other => Err(unexpected("update_ttl", &other)),
        }
    }

    async fn remaining_ttl(
        &self,
        cache: &RedisCache,
        key: &[u8],
    ) -> Result<Option<Duration>, Error> {
        match self
            .run_item(&scripts::REMAINING_TTL, cache, key, &[])
            .await?
        {
            Value::Int(2) => Ok(None),
            Value::Array(left) => match left.as_slice() {
                // The item expired between the check and PTTL: gone.
                [Value::Int(ms)] if *ms < 0 => Ok(None),
                [Value::Int(ms)] => Ok(Some(Duration::from_millis(*ms as u64))),
                _ => Err(unexpected("remaining_ttl", &Value::Array(left))),
            },
            other => Err(unexpected("remaining_ttl", &other)),
        }
    }

    fn stats(&self) -> Option<StoreStats> {
        None
    }
}

/// A TTL as the decimal milliseconds Redis takes (at least 1: the limits
/// refuse a TTL under 1 ms before it gets here).
fn millis(ttl: Duration) -> String {
    ttl.as_millis().max(1).to_string()
}

/// The payload of a stored `"<generation>:<payload>"`, without copying it.
fn strip_generation(raw: Vec<u8>) -> Result<Bytes, Error> {
    let Some(colon) = raw.iter().position(|&b| b == b':') else {
        return Err(unexpected("get", &Value::BulkString(raw)));
    };
    Ok(Bytes::from(raw).slice(colon + 1..))
}

/// Failures of reaching the cluster are UNAVAILABLE (the SDKs retry those
/// when safe); a full Redis that may not evict is RESOURCE_EXHAUSTED;
/// anything else is a bug or a misconfigured store: INTERNAL.
fn store_error(error: RedisError) -> Error {
    if error.code() == Some("OOM") {
        return Error::StoreFull(error.to_string());
    }
    let unreachable = error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
        || error.is_cluster_error()
        || matches!(
            error.kind(),
            ErrorKind::ClusterConnectionNotFound
                | ErrorKind::Server(
                    ServerErrorKind::MasterDown
                        | ServerErrorKind::ReadOnly
                        | ServerErrorKind::BusyLoading
                )
        );
    if unreachable {
        Error::StoreUnavailable(error.to_string())
    } else {
        Error::StoreFailed(error.to_string())
    }
}

fn unexpected(call: &str, value: &Value) -> Error {
    Error::StoreFailed(format!("unexpected reply to {call}: {value:?}"))
}
