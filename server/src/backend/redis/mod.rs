//! The Redis/Valkey Cluster backend: stateless front-ends, every cache and
//! item in the cluster.
//!
//! - `keys`: the key layout (buckets, generations, the cache list).
//! - `scripts` and `lua/`: one atomic script per call that reads and writes.
//! - `connection`: `--store` parsing, and the connection opened on first use.
//! - `items` (calls on any item), `scalar`, and one file per collection
//!   type: the trait impls, each a thin call of its script.
//! - `list_keys`: ListKeys, the one call that scans (SCAN on each master).
//! - `rate_leases`: the per-cache rate buckets shared by front-ends.
//! - `signing_keys`: the signing keys of presigned URLs, shared by front-ends.
//! - `topics`: publish and subscribe across front-ends (sharded pub/sub
//!   and a capped stream per topic), feeding each front-end's topic hub.
//! - `webhooks`: webhooks kept in each cache's slot, and their leases.
//!
//! Every call is bounded by `--store-timeout`; a cluster that is down, hung
//! or failing over is answered UNAVAILABLE, which the SDKs retry when safe.

mod connection;
mod dictionary;
mod items;
pub mod keys;
mod leaderboard;
mod list;
mod list_keys;
mod rate_leases;
mod replies;
mod scalar;
mod scripts;
mod set;
mod signing_keys;
mod sorted_set;
mod topics;
mod webhooks;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

use bytes::Bytes;
use futures_util::future::try_join_all;
use redis::{ErrorKind, RedisError, ScriptInvocation, ServerErrorKind, Value};

use connection::LazyConnection;
pub use connection::{redact, Target};
pub use topics::RedisTopics;

use super::{Caches, ItemStorage, ItemType, StoreStats};
use crate::error::Error;
use crate::in_flight::{reserve_store_answer, SMALL_ANSWER};
use crate::limits::check_cache_name;

/// How long a deleted cache's bucket markers stay. They only have to outlive
/// a slower front-end's update of the same cache, which `--store-timeout`
/// bounds to seconds.
const DELETED_MARKER_TTL_MS: u64 = 3_600_000;

pub struct RedisStore {
    connection: LazyConnection,
    /// Answers over [`SMALL_ANSWER`] travel on a connection of their own:
    /// calls are pipelined on one socket per node, and a small call queued
    /// behind megabytes of answers waited for all of them (past
    /// `--store-timeout`, when clients asked for hundreds of 4 MiB values).
    large_answers: LazyConnection,
    /// Room for the bytes of large answers asked of Redis and not yet
    /// received, at most [`RedisStore::new`]'s `in_transit` bytes. A call's
    /// in-flight charge ends when its client goes, but an answer already
    /// asked for still arrives and is read into memory: without this bound
    /// clients that asked for 4 MiB values and reconnected as soon as they
    /// were closed kept ~100 MiB on its way out of Redis.
    in_transit: Arc<Semaphore>,
    in_transit_bound: usize,
    timeout: Duration,
    max_caches: usize,
    /// `--max-response-size`: a read script answers no more than this
    /// (`read_prelude.lua`), so an answer the front-end would refuse is
    /// never sent by Redis, nor charged and fetched.
    max_answer: usize,
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
    /// At most `in_transit` bytes of large answers are on their way from
    /// Redis at once (one answer larger than that travels alone); none is
    /// larger than `max_answer` (`--max-response-size`).
    pub fn new(
        target: Target,
        timeout: Duration,
        max_caches: usize,
        in_transit: usize,
        max_answer: usize,
    ) -> Arc<RedisStore> {
        let in_transit_bound = in_transit.clamp(SMALL_ANSWER, Semaphore::MAX_PERMITS);
        Arc::new(RedisStore {
            connection: LazyConnection::new(target.clone(), timeout),
            large_answers: LazyConnection::new(target, timeout),
            in_transit: Arc::new(Semaphore::new(in_transit_bound)),
            in_transit_bound,
            timeout,
            max_caches,
            max_answer,
        })
    }

    /// A PING of the store within `--store-timeout`, for `/readyz`.
    pub async fn ping(&self) -> Result<(), Error> {
        self.bounded(async {
            let mut connection = self.connection.get().await?;
            redis::cmd("PING")
                .query_async::<String>(&mut connection)
                .await
                .map(drop)
        })
        .await
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
        let invocation = item_invocation(script, cache, key, args);
        check_cache(cache, self.run(invocation).await?)
    }

    /// Like [`Self::run_item`] on the large-answers connection, for an
    /// answer of about `size` bytes: waits for that much room in transit,
    /// and holds it until the answer has arrived, even if the call is
    /// dropped meanwhile (its client gone, or past `--store-timeout`).
    async fn run_large_item(
        &self,
        script: &'static redis::Script,
        cache: &RedisCache,
        key: &[u8],
        args: &[&[u8]],
        size: usize,
    ) -> Result<Value, Error> {
        let invocation = item_invocation(script, cache, key, args);
        let permits = size.clamp(1, self.in_transit_bound) as u32;
        let timeout = self.timeout;
        let reply = self
            .bounded(async {
                let room = Arc::clone(&self.in_transit)
                    .acquire_many_owned(permits)
                    .await
                    .expect("the semaphore is never closed");
                let mut connection = self.large_answers.get().await?;
                // A task of its own, so that dropping the call does not
                // drop the room while the answer is still on its way.
                let fetch = tokio::spawn(async move {
                    let reply =
                        tokio::time::timeout(timeout, invocation.invoke_async(&mut connection))
                            .await;
                    drop(room);
                    reply
                });
                match fetch.await {
                    Ok(Ok(reply)) => reply,
                    Ok(Err(_elapsed)) => Err(RedisError::from(std::io::Error::from(
                        std::io::ErrorKind::TimedOut,
                    ))),
                    Err(join) => std::panic::resume_unwind(join.into_panic()),
                }
            })
            .await?;
        check_cache(cache, reply)
    }

    /// Runs a read script (one with `read_prelude.lua`) whose answer may be
    /// large. An answer over [`SMALL_ANSWER`] is first announced by its size,
    /// charged to the call's in-flight budget, then asked for again: so 400
    /// Gets of 4 MiB from clients that never read cannot pull 1.6 GB out of
    /// Redis before anything counts it (docs/RELIABILITY.md, Attacks). An
    /// answer that grew in between is charged again, a few times at most.
    /// One over `--max-response-size` is refused ([`Error::AnswerTooLarge`])
    /// without leaving Redis: its size is all that is sent.
    async fn run_read(
        &self,
        script: &'static redis::Script,
        cache: &RedisCache,
        key: &[u8],
        args: &[&[u8]],
    ) -> Result<Value, Error> {
        self.run_read_within(script, cache, key, args, self.max_answer)
            .await
    }

    /// [`Self::run_read`] with its own bound in place of
    /// `--max-response-size`: the one a call was given, or for reads that
    /// are not answers (a union's sources, bounded by their count of
    /// elements instead).
    async fn run_read_within(
        &self,
        script: &'static redis::Script,
        cache: &RedisCache,
        key: &[u8],
        args: &[&[u8]],
        max_answer: usize,
    ) -> Result<Value, Error> {
        let mut cap = SMALL_ANSWER;
        let mut charged = 0;
        let limit = max_answer;
        let max_answer = max_answer.to_string();
        for _ in 0..READ_ATTEMPTS {
            let cap_arg = cap.to_string();
            let mut all = args.to_vec();
            all.push(max_answer.as_bytes());
            all.push(cap_arg.as_bytes());
            let reply = if charged == 0 {
                self.run_item(script, cache, key, &all).await?
            } else {
                self.run_large_item(script, cache, key, &all, charged)
                    .await?
            };
            if let Some(refused) = refusal(&reply, limit) {
                return Err(refused);
            }
            let Some(size) = announced_size(&reply) else {
                // A read that is no answer (a union's sources) is bounded
                // by its count of elements instead.
                if limit < usize::MAX {
                    charge_handles(&reply, charged)?;
                }
                return Ok(reply);
            };
            reserve_store_answer(size.saturating_sub(charged))?;
            charged = charged.max(size);
            cap = size;
        }
        Err(Error::StoreFailed(format!(
            "the answer kept growing while it was read ({READ_ATTEMPTS} attempts)"
        )))
    }

    /// The names in the cache list, in no order.
    async fn cache_names(&self) -> Result<Vec<String>, Error> {
        self.bounded(async {
            let mut connection = self.connection.get().await?;
            redis::cmd("HKEYS")
                .arg(keys::CACHES)
                .query_async(&mut connection)
                .await
        })
        .await
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
            if bucket == 0 {
                // A delete removes them with the cache (none on other buckets).
                for key in webhooks::kept_with_cache(name) {
                    invocation.key(key);
                }
            }
            self.run(invocation).await
        });
        try_join_all(updates).await.map(drop)
    }
}

impl Caches for Arc<RedisStore> {
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
        let mut names = self.cache_names().await?;
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

    fn stats(&self) -> Option<StoreStats> {
        None
    }
}

/// A TTL as the decimal milliseconds Redis takes. The limits refuse a TTL
/// under 1 ms before it gets here, but for a collection's zero TTL that is
/// not refreshed (`service::collection_ttl`): its '0' tells `close`
/// (`lua/collection_prelude.lua`) to keep nothing of a new collection.
fn millis(ttl: Duration) -> String {
    ttl.as_millis().to_string()
}

/// The payload of a stored `"<generation>:<payload>"`, without copying it.
/// How many times [`RedisStore::run_read`] asks for an answer that keeps
/// growing past what it charged.
const READ_ATTEMPTS: usize = 4;

/// The invocation of an item script on `key` of `cache`, its extra
/// arguments following.
fn item_invocation(
    script: &'static redis::Script,
    cache: &RedisCache,
    key: &[u8],
    args: &[&[u8]],
) -> ScriptInvocation<'static> {
    let (generation, item, data) = keys::item_keys(&cache.0, key);
    let mut invocation = script.prepare_invoke();
    invocation.key(generation).key(item).key(data);
    for arg in args {
        invocation.arg(*arg);
    }
    invocation
}

/// An item script's answer, or CacheNotFound if it found no such cache.
fn check_cache(cache: &RedisCache, reply: Value) -> Result<Value, Error> {
    match reply {
        Value::Int(scripts::NO_CACHE) => Err(Error::CacheNotFound(cache.0.clone())),
        value => Ok(value),
    }
}

/// A read script's refusal of an answer over `--max-response-size`
/// (`limit`): the status reply `TOO_LARGE <bytes>`, or `TOO_LARGE` alone
/// for a part of a list or sorted set, named by no size.
fn refusal(reply: &Value, limit: usize) -> Option<Error> {
    let Value::SimpleString(status) = reply else {
        return None;
    };
    match status.strip_prefix("TOO_LARGE")? {
        "" => Some(Error::PartTooLarge { limit }),
        size => Some(Error::AnswerTooLarge {
            size: size.strip_prefix(' ')?.parse().ok()?,
            limit,
        }),
    }
}

/// Charges what an answer read from Redis holds beyond the size charged
/// for it (`charged`, 0 if it was not announced): a handle per element
/// once it is turned into the answer, as the embedded store charges it
/// (`store/answer.rs`); and, for one not announced, the elements too once
/// they are more than the call's own charge pays for. Without it an
/// answer of many small elements held several times what was charged.
fn charge_handles(reply: &Value, charged: usize) -> Result<(), Error> {
    let Value::Array(parts) = reply else {
        return Ok(());
    };
    let handles = parts.len() * size_of::<Bytes>();
    let parts_len = |part: &Value| match part {
        Value::BulkString(bytes) => bytes.len(),
        _ => 0,
    };
    let held = match charged {
        0 => parts.iter().map(parts_len).sum::<usize>() + handles,
        charged => charged + handles,
    };
    if held > SMALL_ANSWER {
        reserve_store_answer(held - charged)?;
    }
    Ok(())
}

/// The size in a read script's `SIZE <bytes>` status reply.
fn announced_size(reply: &Value) -> Option<usize> {
    match reply {
        Value::SimpleString(status) => status.strip_prefix("SIZE ")?.parse().ok(),
        _ => None,
    }
}

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
    if error.code() == Some(scripts::WRONG_TYPE) {
        let mut names = error.detail().unwrap_or_default().split_whitespace();
        if let (Some(expected), Some(found)) = (
            names.next().and_then(|n| item_type_named(n.as_bytes())),
            names.next().and_then(|n| item_type_named(n.as_bytes())),
        ) {
            return expected.mismatch(found);
        }
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

/// The item type a script names (`item_type.lua`, the wrong-type error).
fn item_type_named(name: &[u8]) -> Option<ItemType> {
    Some(match name {
        b"scalar" => ItemType::Scalar,
        b"dictionary" => ItemType::Dictionary,
        b"set" => ItemType::Set,
        b"list" => ItemType::List,
        b"sorted_set" => ItemType::SortedSet,
        _ => return None,
    })
}

fn unexpected(call: &str, value: &Value) -> Error {
    Error::StoreFailed(format!("unexpected reply to {call}: {value:?}"))
}
