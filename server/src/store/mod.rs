//! The embedded in-memory store: named caches of keys with TTLs, under one
//! memory cap.
//!
//! # Layout
//!
//! - this file: [`Store`] and its public API.
//! - `registry`: cache names and the [`CacheId`] each currently answers to.
//! - `shard`: a hash table over a slab of entries, the per-shard operations.
//! - `item_bytes`: an item's one allocation: its key, and its small value
//!   or a pointer to its collection.
//! - `sieve`: the SIEVE eviction queue over slab slots.
//! - `deadlines`: the expiry index, slots in buckets of coarse deadline.
//! - `expiry`: the background tasks that free expired items.
//! - `keys`: listing a cache's keys, a page at a time.
//! - `value`: what an item holds (a scalar or a collection) and the
//!   [`value::Collection`] interface every collection type implements.
//! - `dictionary`, `set`, `list`, `sorted_set`: the collection types;
//!   `leaderboard`, stored the same way under the cache's leaderboard id.
//!   A sorted set has two forms, `sorted_small` (packed) and `sorted_large`
//!   (its members in `sorted_members`, its order in `ranked`). A list's
//!   chunks are front coded (`front_coded`); the others pack (`packed`,
//!   `packed_map`).
//! - `cost`: what holding bytes is charged (size classes, headers, the
//!   measured structure of each collection), read by all of the above.
//! - `answer`: the size of a fetch's answer, checked against
//!   `--max-response-size` before anything is copied.
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
//! fixed per-item overhead (see `shard::ITEM_OVERHEAD`) against one
//! global count; a write that takes it over `max_memory` evicts, first from
//! the shard it already holds, then from the others in turn. No item may be
//! charged more than half of `max_memory` ([`Store::max_item`]), so the
//! item just written, which eviction spares, never holds the store over
//! its cap.

mod answer;
#[cfg(test)]
mod answer_tests;
mod cost;
mod deadlines;
pub mod defrag;
pub mod dictionary;
mod expiry;
mod front_coded;
pub mod heavy;
mod item_bytes;
mod keys;
pub mod leaderboard;
pub mod list;
mod packed;
mod packed_map;
mod ranked;
mod registry;
pub mod set;
mod shard;
mod sieve;
mod sorted_large;
mod sorted_members;
pub mod sorted_set;
mod sorted_small;
#[cfg(test)]
mod tests;
pub mod value;

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hashbrown::{DefaultHashBuilder, HashMap};
use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::backend::{
    CacheUsage, CollectionTtl, Condition, ItemType, StoreStats, TtlOutcome, TtlUpdate,
};
use crate::error::Error;
use expiry::Pending;
use registry::Registry;
use shard::{hash_key, Counters, Shard};
use value::{Collection, Value};

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

/// The bit that sets a cache's leaderboards apart from its items: the
/// registry counts ids up from 0 and never reaches it.
const LEADERBOARDS: u64 = 1 << 63;

impl CacheId {
    /// The id the leaderboards of this cache are stored under, so a
    /// leaderboard and an item of the same name never meet, and a flush
    /// or deletion of the cache purges both.
    pub fn leaderboards(self) -> CacheId {
        CacheId(self.0 | LEADERBOARDS)
    }

    /// The cache an item or a leaderboard stored under this id belongs to.
    fn cache(self) -> CacheId {
        CacheId(self.0 & !LEADERBOARDS)
    }
}

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
        let epoch = Instant::now();
        let shards = (0..SHARDS)
            .map(|_| ShardSlot {
                state: Mutex::new(Shard::new(hasher.clone(), epoch)),
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

    /// The scalar value of `key`; [`Error::WrongType`] for a collection.
    /// A small value is copied out, a large one shared (`cost::COPIED_VALUE`).
    pub fn get(&self, cache: CacheId, key: &[u8]) -> Result<Option<Bytes>, Error> {
        let mut copies = cost::COPIED_VALUE;
        self.get_copying(cache, key, &mut copies)
    }

    /// The scalar values of `keys`, in order, as [`Self::get`] answers
    /// each; the first error ends it. Small values are copied out, without
    /// a charge while their copies together fit in what the call's own
    /// charge pays for (`shard::COPIED_BATCH`), then each charged to the
    /// call before it is made: a batch names up to `--max-request-items`
    /// keys, and copies of them all, made before the answer is counted,
    /// would let clients that never read multiply them. Past the in-flight
    /// budget, [`Error::InFlightFull`].
    pub fn get_many(&self, cache: CacheId, keys: &[&[u8]]) -> Result<Vec<Option<Bytes>>, Error> {
        let mut copies = shard::COPIED_BATCH;
        keys.iter()
            .map(|key| self.get_copying(cache, key, &mut copies))
            .collect()
    }

    fn get_copying(
        &self,
        cache: CacheId,
        key: &[u8],
        copies: &mut usize,
    ) -> Result<Option<Bytes>, Error> {
        let (index, hash) = self.locate(cache, key);
        loop {
            let mut shard = self.shards[index].state.lock();
            let Some(slot) = shard.live(hash, cache, key, Instant::now(), &self.counters) else {
                return Ok(None);
            };
            shard.visit(slot);
            let len = match shard.scalar_answer(slot, copies)? {
                Ok(value) => return Ok(Some(value)),
                Err(len) => len,
            };
            drop(shard);
            // Charged outside the lock (making room may walk every
            // connection); then read again, the value may have changed.
            crate::in_flight::reserve_store_answer(len - *copies)?;
            *copies = len;
        }
    }

    /// What the item of `key` holds, if it exists.
    pub fn item_type(&self, cache: CacheId, key: &[u8]) -> Option<ItemType> {
        let (index, hash) = self.locate(cache, key);
        let mut shard = self.shards[index].state.lock();
        let slot = shard.live(hash, cache, key, Instant::now(), &self.counters)?;
        Some(shard.item_type(slot))
    }

    /// Reads the collection of type `T` at `key` under its shard's lock.
    /// `Ok(None)`: missing (or expired); [`Error::WrongType`]: another type.
    pub fn read<T: Collection, R>(
        &self,
        cache: CacheId,
        key: &[u8],
        read: impl FnOnce(&T) -> R,
    ) -> Result<Option<R>, Error> {
        let (index, hash) = self.locate(cache, key);
        let mut shard = self.shards[index].state.lock();
        let Some(slot) = shard.live(hash, cache, key, Instant::now(), &self.counters) else {
            return Ok(None);
        };
        shard.visit(slot);
        Ok(Some(read(shard.collection::<T>(slot)?)))
    }

    /// Changes the collection of type `T` at `key` under its shard's lock.
    ///
    /// With `ttl`, a missing collection is created empty, `write` runs on
    /// it, and it is stored if `write` succeeded and left it non-empty, with
    /// `ttl.ttl`; an existing one's TTL is reset only if `ttl.refresh`.
    /// Without `ttl`, a missing collection is `Ok(None)` (`write` is not
    /// called) and the TTL is left alone.
    ///
    /// `write` must check everything before it changes anything: on `Err`
    /// the collection must be as it was. An emptied collection is removed.
    ///
    /// For a write that only shrinks the collection, or whose growth cannot
    /// be told beforehand; a write that adds elements it was given calls
    /// [`Self::grow`], so that one too large is refused before it changes
    /// anything. Should this one leave the item over [`Self::max_item`],
    /// the item is evicted and the call answers [`Error::ItemTooLarge`]: a
    /// cache may lose an item, but no item may outgrow the cap.
    pub fn write<T: Collection, R>(
        &self,
        cache: CacheId,
        key: &[u8],
        ttl: Option<CollectionTtl>,
        write: impl FnOnce(&mut T) -> Result<R, Error>,
    ) -> Result<Option<R>, Error> {
        self.write_within(cache, key, ttl, None::<fn(&T) -> u64>, write)
    }

    /// [`Self::write`] for a write that adds to the collection at most
    /// `growth(collection)` accounted bytes (the charge of the elements it
    /// was given, and of the room the structure grows by): if the item's
    /// charge plus that would pass [`Self::max_item`], it answers
    /// [`Error::ItemTooLarge`] before `write` runs, and nothing changes.
    pub fn grow<T: Collection, R>(
        &self,
        cache: CacheId,
        key: &[u8],
        ttl: Option<CollectionTtl>,
        growth: impl FnOnce(&T) -> u64,
        write: impl FnOnce(&mut T) -> Result<R, Error>,
    ) -> Result<Option<R>, Error> {
        self.write_within(cache, key, ttl, Some(growth), write)
    }

    /// The most one item may be charged: half of `max_memory`.
    ///
    /// Eviction never takes the item being written, so an item larger than
    /// the cap would hold memory past it until some other write evicted it.
    /// At half, evicting the others always makes room, and it is the share
    /// `--max-memory`'s own check (at least twice the largest key and
    /// value) already gives a scalar: the bound matters for collections,
    /// which grow one write at a time.
    pub fn max_item(&self) -> u64 {
        self.max_memory / 2
    }

    fn write_within<T: Collection, R>(
        &self,
        cache: CacheId,
        key: &[u8],
        ttl: Option<CollectionTtl>,
        growth: Option<impl FnOnce(&T) -> u64>,
        write: impl FnOnce(&mut T) -> Result<R, Error>,
    ) -> Result<Option<R>, Error> {
        let (index, hash) = self.locate(cache, key);
        let now = Instant::now();
        let max_item = self.max_item();
        let mut shard = self.shards[index].state.lock();
        let found = shard.live(hash, cache, key, now, &self.counters);
        let (slot, answer, wake) = match (found, ttl) {
            (None, None) => return Ok(None),
            (None, Some(ttl)) => {
                let mut created = T::default();
                let answer = write(&mut created)?;
                // A zero TTL (never refreshed, see `service::collection_ttl`)
                // keeps nothing, as an emptied collection.
                if created.is_empty() || ttl.ttl.is_zero() {
                    return Ok(Some(answer));
                }
                let value = created.into_value();
                // Nothing is stored yet: the exact charge is known.
                let size = shard::item_cost(key, &value);
                if size > max_item {
                    return Err(Error::ItemTooLarge {
                        size,
                        limit: max_item,
                    });
                }
                let (slot, wake) = shard.upsert(
                    hash,
                    cache,
                    key,
                    value,
                    deadline(now, ttl.ttl),
                    &self.counters,
                );
                (slot, answer, wake)
            }
            (Some(slot), ttl) => {
                let old = shard.cost(slot);
                // A collection of another type is refused by `of_mut` below.
                let growth = growth
                    .zip(shard.collection::<T>(slot).ok())
                    .map(|(g, c)| g(c));
                if let Some(growth) = growth {
                    let size = old.saturating_add(growth);
                    if size > max_item {
                        return Err(Error::ItemTooLarge {
                            size,
                            limit: max_item,
                        });
                    }
                }
                let collection = shard.collection_mut::<T>(slot)?;
                let answer = write(collection)?;
                let emptied = collection.is_empty();
                // Before a removal too: it uncharges what the item costs now.
                shard.recharge(slot, old, &self.counters);
                if emptied {
                    shard.remove(slot, &self.counters);
                    return Ok(Some(answer));
                }
                let size = shard.cost(slot);
                if size > max_item {
                    shard.remove(slot, &self.counters);
                    self.counters.evictions.fetch_add(1, Relaxed);
                    return Err(Error::ItemTooLarge {
                        size,
                        limit: max_item,
                    });
                }
                let wake = match ttl {
                    Some(ttl) if ttl.refresh => shard.set_expiry(slot, deadline(now, ttl.ttl)),
                    _ => false,
                };
                (slot, answer, wake)
            }
        };
        shard.evict_until(self.max_memory, now, Some(slot), &self.counters);
        drop(shard);
        self.after_write(index, wake, now);
        Ok(Some(answer))
    }

    /// Stores a scalar value, replacing whatever the key held.
    pub fn set(&self, cache: CacheId, key: &[u8], value: &[u8], ttl: Duration) {
        let stored = self.set_if_inner(cache, key, value, ttl, None);
        debug_assert_eq!(stored, Ok(true), "an unconditional set always stores");
    }

    /// True if stored. The check and the write happen under one shard lock.
    pub fn set_if(
        &self,
        cache: CacheId,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
        condition: &Condition,
    ) -> Result<bool, Error> {
        // `Always` replaces whatever the key held, as `set` does.
        let condition = Some(condition).filter(|c| **c != Condition::Always);
        self.set_if_inner(cache, key, value, ttl, condition)
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
            Some(slot) => std::str::from_utf8(shard.scalar(slot)?)
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
            Value::scalar(key, total.to_string().as_bytes()),
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
            per_cache: self.usage_by_cache(),
        }
    }

    /// Each cache's items and charged bytes, by name, sorted. Takes every
    /// shard's lock in turn, briefly (a map of at most `--max-caches`
    /// entries each): for a metrics scrape, not for a call's path.
    pub fn usage_by_cache(&self) -> Vec<(String, CacheUsage)> {
        let mut by_id: HashMap<CacheId, CacheUsage> = HashMap::new();
        for slot in self.shards.iter() {
            for (cache, usage) in slot.state.lock().usage() {
                let total = by_id.entry(cache).or_default();
                total.items += usage.items;
                total.bytes += usage.bytes;
            }
        }
        // Items of a flushed or deleted cache's old id, not yet purged,
        // belong to no name.
        let mut named: Vec<(String, CacheUsage)> = self
            .registry
            .ids()
            .into_iter()
            .map(|(name, id)| (name, by_id.get(&id).copied().unwrap_or_default()))
            .collect();
        named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        named
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
    ) -> Result<bool, Error> {
        let (index, hash) = self.locate(cache, key);
        // Copied before the lock: a large value's allocation and copy should
        // not hold up the other keys of the shard. A fresh allocation also
        // keeps the request's receive buffer from being pinned.
        let item = Value::scalar(key, value);
        let now = Instant::now();
        let mut shard = self.shards[index].state.lock();
        if let Some(condition) = condition {
            let slot = shard.live(hash, cache, key, now, &self.counters);
            let current = match slot {
                Some(slot) => Some(shard.scalar(slot)?),
                None => None,
            };
            if !condition.admits(current) {
                return Ok(false);
            }
        }
        let (slot, wake) = shard.upsert(hash, cache, key, item, deadline(now, ttl), &self.counters);
        shard.evict_until(self.max_memory, now, Some(slot), &self.counters);
        drop(shard);
        self.after_write(index, wake, now);
        Ok(true)
    }

    /// Wakes the shard's expiry task if needed, then, with no lock held,
    /// evicts from the other shards while the store is still over the cap.
    fn after_write(&self, index: usize, wake: bool, now: Instant) {
        if wake {
            self.shards[index].wake.notify_one();
        }
        // First only what the other shards hold unvisited, so items being
        // read keep their second chance; then, if that was not enough, the
        // cap wins.
        for patient in [true, false] {
            for step in 1..SHARDS {
                if self.counters.bytes.load(Relaxed) <= self.max_memory {
                    return;
                }
                let other = (index + step) & (SHARDS - 1);
                let mut shard = self.shards[other].state.lock();
                if patient {
                    shard.evict_unvisited(self.max_memory, now, &self.counters);
                } else {
                    shard.evict_until(self.max_memory, now, None, &self.counters);
                }
            }
        }
    }

    /// Frees the items of a flushed or deleted cache. A `set` that looked up
    /// the id before the registry change can still land after this pass has
    /// cleared its shard; such an item is unreachable but counted, evictable
    /// and expires by its TTL like any other (a leaderboard, which has
    /// none, goes only by eviction).
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
