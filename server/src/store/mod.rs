//! The embedded in-memory store: named caches of keys with TTLs, under one
//! memory cap.
//!
//! # Layout
//!
//! - this file: [`Store`] and its public API.
//! - `registry`: cache names and the [`CacheId`] each currently answers to.
//! - `shard`: a hash table over a slab of entries, the per-shard operations.
//! - `sieve`: the SIEVE eviction queue over slab slots.
//! - `expiry`: the background tasks that free expired items.
//!
//! # Why this shape
//!
//! Items live in `SHARDS` shards, each behind its own mutex and chosen by
//! a hash of (cache id, key), so requests on different cores rarely meet on
//! a lock. Caches are not separate maps: an item's cache id is part of its
//! key, so flush and delete swap or drop the id in the registry (effective at
//! once) and then purge the old id's items shard by shard.
//!
//! Every item is charged the allocation sizes of its key and value plus a
//! fixed per-item overhead (see `shard::charge`) against one
//! global count; a write that takes it over `max_memory` evicts, first from
//! the shard it already holds, then from the others in turn.

mod expiry;
mod list;
mod registry;
mod shard;
mod sieve;
#[cfg(test)]
mod tests;

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hashbrown::DefaultHashBuilder;
use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::backend::{Condition, StoreStats, TtlOutcome, TtlUpdate};
use crate::error::Error;
use expiry::Pending;
use registry::Registry;
use shard::{hash_key, Counters, Shard};

/// A power of two, so the shard is a mask of the hash; 64 keeps contention
/// low on many cores while each shard's fixed cost stays negligible.
const SHARDS: usize = 64;

/// Slab slots scanned per lock hold when purging a flushed or deleted cache.
const PURGE_CHUNK: usize = 4096;

pub struct StoreConfig {
    /// Accounted bytes (payload plus per-item overhead) the store may hold.
    pub max_memory: u64,
    pub max_caches: usize,
}

/// One incarnation of a cache. A flush gives the cache a new one, so the
/// old items are unreachable before they are purged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheId(u64);

/// A shard's lock and its expiry task's wake-up, on their own cache lines so
/// neighbouring shards' locks do not share one.
#[repr(align(128))]
struct ShardSlot {
    state: Mutex<Shard>,
    wake: Arc<Notify>,
}

pub struct Store {
    shards: Box<[ShardSlot]>,
    registry: Registry,
    counters: Counters,
    /// Randomly seeded per store, so clients cannot aim keys at one shard.
    hasher: DefaultHashBuilder,
    max_memory: u64,
}

impl Store {
    /// Must be called inside a tokio runtime: spawns the active-expiry task(s).
    pub fn new(config: StoreConfig) -> Arc<Store> {
        let hasher = DefaultHashBuilder::default();
        let shards = (0..SHARDS)
            .map(|_| ShardSlot {
                state: Mutex::new(Shard::new(hasher.clone())),
                wake: Arc::new(Notify::new()),
            })
            .collect();
        let store = Arc::new(Store {
            shards,
            registry: Registry::new(config.max_caches),
            counters: Counters::default(),
            hasher,
            max_memory: config.max_memory,
        });
        expiry::spawn(&store);
        store
    }

    pub fn create_cache(&self, name: &str) -> Result<(), Error> {
        self.registry.create(name)
    }

    pub fn delete_cache(&self, name: &str) -> Result<(), Error> {
        let old = self.registry.remove(name)?;
        self.purge(old);
        Ok(())
    }

    pub fn flush_cache(&self, name: &str) -> Result<(), Error> {
        let old = self.registry.renew(name)?;
        self.purge(old);
        Ok(())
    }

    pub fn list_caches(&self) -> Vec<String> {
        self.registry.names()
    }

    pub fn cache_id(&self, name: &str) -> Result<CacheId, Error> {
        self.registry.id(name)
    }

    pub fn get(&self, cache: CacheId, key: &[u8]) -> Option<Bytes> {
        let (index, hash) = self.locate(cache, key);
        let mut shard = self.shards[index].state.lock();
        let slot = shard.live(hash, cache, key, Instant::now(), &self.counters)?;
        shard.visit(slot);
        Some(shard.value(slot).clone())
    }

    pub fn set(&self, cache: CacheId, key: &[u8], value: &[u8], ttl: Duration) {
        self.set_if_inner(cache, key, value, ttl, None);
    }

    /// True if stored. The check and the write happen under one shard lock.
    pub fn set_if(
        &self,
        cache: CacheId,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
        condition: &Condition,
    ) -> bool {
        self.set_if_inner(cache, key, value, ttl, Some(condition))
    }

    pub fn delete(&self, cache: CacheId, key: &[u8]) {
        let (index, hash) = self.locate(cache, key);
        let mut shard = self.shards[index].state.lock();
        if let Some(slot) = shard.live(hash, cache, key, Instant::now(), &self.counters) {
            shard.remove(slot, &self.counters);
        }
    }

    pub fn contains(&self, cache: CacheId, key: &[u8]) -> bool {
        let (index, hash) = self.locate(cache, key);
        let mut shard = self.shards[index].state.lock();
        shard
            .live(hash, cache, key, Instant::now(), &self.counters)
            .is_some()
    }

    /// Missing key: created holding `amount` (as base-10 text) with `ttl`.
    /// Present: value parsed as base-10 i64 text (else [`Error::NotAnInteger`]),
    /// `amount` added (checked; [`Error::IncrementOverflow`]), stored back as
    /// text; the TTL is reset to `ttl`.
    pub fn increment(
        &self,
        cache: CacheId,
        key: &[u8],
        amount: i64,
        ttl: Duration,
    ) -> Result<i64, Error> {
        let (index, hash) = self.locate(cache, key);
        let now = Instant::now();
        let mut shard = self.shards[index].state.lock();
        let total = match shard.live(hash, cache, key, now, &self.counters) {
            None => amount,
            Some(slot) => std::str::from_utf8(shard.value(slot))
                .ok()
                .and_then(|text| text.parse::<i64>().ok())
                .ok_or(Error::NotAnInteger)?
                .checked_add(amount)
                .ok_or(Error::IncrementOverflow)?,
        };
        let (slot, wake) = shard.upsert(
            hash,
            cache,
            key,
            Bytes::from(total.to_string()),
            deadline(now, ttl),
            &self.counters,
        );
        shard.evict_until(self.max_memory, now, Some(slot), &self.counters);
        drop(shard);
        self.after_write(index, wake, now);
        Ok(total)
    }

    pub fn update_ttl(&self, cache: CacheId, key: &[u8], update: TtlUpdate) -> TtlOutcome {
        let (index, hash) = self.locate(cache, key);
        let now = Instant::now();
        let mut shard = self.shards[index].state.lock();
        let Some(slot) = shard.live(hash, cache, key, now, &self.counters) else {
            return TtlOutcome::Missing;
        };
        let left = shard.expires_at(slot) - now;
        let (ttl, apply) = match update {
            TtlUpdate::IncreaseTo(ttl) => (ttl, ttl > left),
            TtlUpdate::DecreaseTo(ttl) => (ttl, ttl < left),
            TtlUpdate::Overwrite(ttl) => (ttl, true),
        };
        if !apply {
            return TtlOutcome::NotSet;
        }
        let wake = shard.set_expiry(slot, deadline(now, ttl));
        drop(shard);
        if wake {
            self.shards[index].wake.notify_one();
        }
        TtlOutcome::Set
    }

    pub fn remaining_ttl(&self, cache: CacheId, key: &[u8]) -> Option<Duration> {
        let (index, hash) = self.locate(cache, key);
        let now = Instant::now();
        let mut shard = self.shards[index].state.lock();
        let slot = shard.live(hash, cache, key, now, &self.counters)?;
        Some(shard.expires_at(slot) - now)
    }

    pub fn stats(&self) -> StoreStats {
        StoreStats {
            items: self.counters.items.load(Relaxed),
            bytes: self.counters.bytes.load(Relaxed),
            evictions: self.counters.evictions.load(Relaxed),
            expirations: self.counters.expirations.load(Relaxed),
            caches: self.registry.len() as u64,
        }
    }

    fn locate(&self, cache: CacheId, key: &[u8]) -> (usize, u64) {
        let hash = hash_key(&self.hasher, cache, key);
        // hashbrown uses the low bits for the bucket and the top 7 for the
        // tag, so the shard comes from bits in between.
        ((hash >> 32) as usize & (SHARDS - 1), hash)
    }

    fn set_if_inner(
        &self,
        cache: CacheId,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
        condition: Option<&Condition>,
    ) -> bool {
        let (index, hash) = self.locate(cache, key);
        // Copied before the lock: a large value's allocation and copy should
        // not hold up the other keys of the shard. A fresh allocation also
        // keeps the request's receive buffer from being pinned.
        let value = Bytes::copy_from_slice(value);
        let now = Instant::now();
        let mut shard = self.shards[index].state.lock();
        if let Some(condition) = condition {
            let slot = shard.live(hash, cache, key, now, &self.counters);
            if !condition.admits(slot.map(|slot| &shard.value(slot)[..])) {
                return false;
            }
        }
        let (slot, wake) =
            shard.upsert(hash, cache, key, value, deadline(now, ttl), &self.counters);
        shard.evict_until(self.max_memory, now, Some(slot), &self.counters);
        drop(shard);
        self.after_write(index, wake, now);
        true
    }

    /// Wakes the shard's expiry task if needed, then, with no lock held,
    /// evicts from the other shards while the store is still over the cap.
    fn after_write(&self, index: usize, wake: bool, now: Instant) {
        if wake {
            self.shards[index].wake.notify_one();
        }
        for step in 1..SHARDS {
            if self.counters.bytes.load(Relaxed) <= self.max_memory {
                return;
            }
            let other = (index + step) & (SHARDS - 1);
            let mut shard = self.shards[other].state.lock();
            shard.evict_until(self.max_memory, now, None, &self.counters);
        }
    }

    /// Frees the items of a flushed or deleted cache. A `set` that looked up
    /// the id before the registry change can still land after this pass has
    /// cleared its shard; such an item is unreachable but counted, evictable
    /// and expires by its TTL like any other.
    fn purge(&self, cache: CacheId) {
        for slot in &self.shards {
            // The guard is a temporary of one statement, so the lock is
            // released between chunks.
            let mut from = Some(0);
            while let Some(start) = from {
                from = slot
                    .state
                    .lock()
                    .purge(cache, start, PURGE_CHUNK, &self.counters);
            }
        }
    }

    fn wakers(&self) -> impl Iterator<Item = Arc<Notify>> + '_ {
        self.shards.iter().map(|slot| slot.wake.clone())
    }

    fn expire_shard(&self, index: usize, limit: usize) -> Pending {
        let mut shard = self.shards[index].state.lock();
        shard.expire(Instant::now(), limit, &self.counters)
    }
}

impl Drop for Store {
    /// The expiry tasks hold only a `Weak`; waking them lets them see it dead.
    fn drop(&mut self) {
        for slot in &self.shards {
            slot.wake.notify_one();
        }
    }
}

/// `now + ttl`, saturating: the TTL limit is enforced elsewhere, and an
/// overflow here must not panic under a lock.
fn deadline(now: Instant, ttl: Duration) -> Instant {
    now.checked_add(ttl)
        .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
}
