//! One shard of the store: a hash table of slot numbers over a slab of
//! entries, with the SIEVE queue and the expiry index on the same slots.
//!
//! Everything refers to an item by its `u32` slot, so the key is stored once
//! (in the entry's one allocation) and the table, the queue and the index
//! stay small. The caller holds the shard's lock for every call here; the
//! global counters are atomics because the memory cap is one number for all
//! shards.

use std::hash::BuildHasher;
use std::mem::size_of;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use bytes::Bytes;
use hashbrown::hash_map::Entry as MapEntry;
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};
use tokio::time::Instant;

use super::cost::{allocation_size, COPIED_VALUE, LARGE_ALLOCATION, SHARED_HEADER};
use super::deadlines::{bucket, due, Deadlines};
use super::expiry::Pending;
use super::item_bytes::{Contents, ItemBytes};
use super::sieve::{Arena, Links, Sieve};
use super::value::{Collection, Collections, Value};
use super::CacheId;
use crate::backend::{CacheUsage, ItemType};
use crate::error::Error;

/// Bytes charged per item on top of its allocations (the key and scalar
/// value, or the key and the collection), so that the cap bounds real
/// memory rather than payload alone:
///
/// - the slab slot, `size_of::<Option<Entry>>()` (40 on 64-bit), times 4/3
///   because a doubling `Vec` is on average three quarters full: 53;
/// - the hash-table slot ([`TABLE_SLOT`]): 8;
/// - the expiry listing ([`EXPIRY_LISTING`]): 5.
///
/// 53 + 8 + 5 = 66 bytes on 64-bit targets. A scalar value over
/// [`COPIED_VALUE`] is kept apart from its key as a `Bytes`
/// ([`Collections::Scalar`]), charged [`SHARED_HEADER`] on top
/// ([`collection_cost`]): reads hand out a handle on it, and the first
/// allocates that header.
pub(super) const ITEM_OVERHEAD: u64 =
    (size_of::<Option<Entry>>() * 4 / 3 + TABLE_SLOT + EXPIRY_LISTING) as u64;

/// The copies a batch of reads ([`crate::store::Store::get_many`]) makes
/// without charging them: what one call's in-flight charge pays for. Past
/// it the batch charges its call for each copy before making it.
pub(super) const COPIED_BATCH: usize = crate::in_flight::SMALL_ANSWER;

/// A hash-table slot: a 4-byte slot number and 1 control byte, at a load
/// between 7/16 and 7/8 (the table doubles at 7/8), 5 x 1.6 on average.
const TABLE_SLOT: usize = (size_of::<u32>() + 1) * 8 / 5;

/// A listing in the expiry index: a `u32` in a bucket's doubling `Vec`,
/// three quarters full on average (the buckets' map nodes are shared by
/// the thousands of items of a bucket, so they round to nothing).
const EXPIRY_LISTING: usize = size_of::<u32>() * 4 / 3;

/// What a scalar item of this key and value length is charged against the cap.
#[cfg(test)]
pub(super) fn charge(key_len: usize, value_len: usize) -> u64 {
    ItemBytes::scalar_allocation(key_len, value_len) as u64 + ITEM_OVERHEAD
}

/// The store-wide numbers every shard updates.
#[derive(Default)]
pub(super) struct Counters {
    /// Accounted bytes ([`charge`] of every item), compared with the cap.
    pub(super) bytes: AtomicU64,
    pub(super) items: AtomicU64,
    pub(super) evictions: AtomicU64,
    pub(super) expirations: AtomicU64,
}

pub(super) struct Entry {
    /// The key, then a scalar's value: one allocation per scalar item,
    /// copied out of the request (a slice of it would pin the whole receive
    /// buffer and make the accounting a lie). A collection's holds the key
    /// and the collection's value, and so does a scalar's whose value is
    /// kept apart ([`Collections::Scalar`]). Reads copy a value out of it:
    /// at most [`COPIED_VALUE`] bytes, which the call's own charge pays for.
    bytes: ItemBytes,
    /// Part of the item's identity, so caches share the table yet never see
    /// each other's keys.
    cache: CacheId,
    /// Nanoseconds from the store's epoch: 8 bytes where an `Instant` takes 16.
    expires_ns: u64,
    links: Links,
    /// The expiry bucket this slot is listed in (see `deadlines.rs`).
    queued: u32,
}

impl Entry {
    fn key(&self) -> &[u8] {
        self.bytes.key()
    }

    fn collection(&self) -> Option<&Collections> {
        match self.bytes.contents() {
            Contents::Scalar(_) => None,
            Contents::Collection(collection) => Some(collection),
        }
    }

    fn item_type(&self) -> ItemType {
        self.collection()
            .map_or(ItemType::Scalar, Collections::item_type)
    }

    fn cost(&self) -> u64 {
        let contents = self.collection().map_or(0, collection_cost);
        allocation_size(self.bytes.len()) as u64 + ITEM_OVERHEAD + contents
    }
}

/// What a collection is charged beyond its item's allocation, with the
/// header of the handles on it reads hand out: those on a large scalar kept
/// apart from its key.
fn collection_cost(collection: &Collections) -> u64 {
    let handles = match collection {
        Collections::Scalar(value) if value.len() > COPIED_VALUE => SHARED_HEADER,
        _ => 0,
    };
    collection.cost() + handles
}

/// What an item of this key and contents is charged against the cap.
pub(super) fn item_cost(key: &[u8], value: &Value) -> u64 {
    match value {
        Value::Scalar(bytes) => allocation_size(bytes.len()) as u64 + ITEM_OVERHEAD,
        Value::Collection(c) => {
            ItemBytes::collection_allocation(key.len()) as u64 + collection_cost(c) + ITEM_OVERHEAD
        }
    }
}

impl Arena for Vec<Option<Entry>> {
    fn links(&mut self, slot: u32) -> &mut Links {
        &mut occupied_mut(self, slot).links
    }
}

pub(super) fn hash_key(hasher: &DefaultHashBuilder, cache: CacheId, key: &[u8]) -> u64 {
    hasher.hash_one((cache.0, key))
}

fn occupied(slab: &[Option<Entry>], slot: u32) -> &Entry {
    slab[slot as usize]
        .as_ref()
        .expect("linked slot is occupied")
}

fn occupied_mut(slab: &mut [Option<Entry>], slot: u32) -> &mut Entry {
    slab[slot as usize]
        .as_mut()
        .expect("linked slot is occupied")
}

pub(super) struct Shard {
    /// Slot numbers, hashed by (cache, key) of the entry they point to.
    table: HashTable<u32>,
    slab: Vec<Option<Entry>>,
    /// Vacant slab slots, reused before the slab grows.
    free: Vec<u32>,
    sieve: Sieve,
    /// Slots by coarse deadline, for the expiry task and for cheap victims.
    deadlines: Deadlines,
    /// The store's epoch, which entries' deadlines count from.
    epoch: Instant,
    /// A copy of the store's hasher, to rehash on growth and find a slot's
    /// table entry when removing it.
    hasher: DefaultHashBuilder,
    /// Items and charged bytes of each cache in this shard, for the
    /// per-cache gauges: kept under the shard's lock, which every change
    /// holds anyway, so a write pays one small map update and no atomics.
    usage: HashMap<CacheId, CacheUsage>,
}

impl Shard {
    pub(super) fn new(hasher: DefaultHashBuilder, epoch: Instant) -> Self {
        Shard {
            table: HashTable::new(),
            slab: Vec::new(),
            free: Vec::new(),
            sieve: Sieve::new(),
            deadlines: Deadlines::default(),
            epoch,
            hasher,
            usage: HashMap::new(),
        }
    }

    /// This shard's items and charged bytes by cache (leaderboards counted
    /// with their cache), for ids that still hold something.
    pub(super) fn usage(&self) -> impl Iterator<Item = (CacheId, CacheUsage)> + '_ {
        self.usage.iter().map(|(&cache, &usage)| (cache, usage))
    }

    /// Moves the charge of an item of `cache` from `old` to `new` bytes,
    /// in the store's count and in the cache's.
    fn rebill(&mut self, cache: CacheId, old: u64, new: u64, counters: &Counters) {
        let usage = self.usage.entry(cache.cache()).or_default();
        if new >= old {
            counters.bytes.fetch_add(new - old, Relaxed);
            usage.bytes += new - old;
        } else {
            counters.bytes.fetch_sub(old - new, Relaxed);
            usage.bytes -= old - new;
        }
    }

    /// `at` in nanoseconds from the epoch (saturating: 584 years).
    fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX)
    }

    fn instant(&self, nanos: u64) -> Instant {
        self.epoch + Duration::from_nanos(nanos)
    }

    /// The slot holding `key`, unless absent or expired; an expired item
    /// found here is freed and counted, so no read path can return it.
    pub(super) fn live(
        &mut self,
        hash: u64,
        cache: CacheId,
        key: &[u8],
        now: Instant,
        counters: &Counters,
    ) -> Option<u32> {
        let slab = &self.slab;
        let slot = *self.table.find(hash, |&slot| {
            let entry = occupied(slab, slot);
            entry.cache == cache && entry.key() == key
        })?;
        if occupied(slab, slot).expires_ns <= self.nanos(now) {
            self.remove(slot, counters);
            counters.expirations.fetch_add(1, Relaxed);
            return None;
        }
        Some(slot)
    }

    /// The scalar value, or the wrong-type error for a scalar call.
    pub(super) fn scalar(&self, slot: u32) -> Result<&[u8], Error> {
        match occupied(&self.slab, slot).bytes.contents() {
            Contents::Scalar(value) => Ok(value),
            Contents::Collection(Collections::Scalar(value)) => Ok(value),
            Contents::Collection(other) => Err(ItemType::Scalar.mismatch(other.item_type())),
        }
    }

    /// The scalar value of `slot` for an answer: over [`COPIED_VALUE`]
    /// bytes, a handle sharing its allocation (whose header
    /// [`collection_cost`] charged with the item); else a copy, if
    /// `copies` (the bytes the read may still copy) has room for it, taken
    /// from `copies`. `Ok(Err(len))`: a copy of `len` bytes, for which
    /// `copies` has no room.
    pub(super) fn scalar_answer(
        &self,
        slot: u32,
        copies: &mut usize,
    ) -> Result<Result<Bytes, usize>, Error> {
        if let Some(Collections::Scalar(value)) = occupied(&self.slab, slot).collection() {
            if value.len() > COPIED_VALUE {
                return Ok(Ok(value.clone()));
            }
        }
        let value = self.scalar(slot)?;
        if value.len() > *copies {
            return Ok(Err(value.len()));
        }
        *copies -= value.len();
        Ok(Ok(Bytes::copy_from_slice(value)))
    }

    pub(super) fn item_type(&self, slot: u32) -> ItemType {
        occupied(&self.slab, slot).item_type()
    }

    /// The collection of type `T`, or the wrong-type error.
    pub(super) fn collection<T: Collection>(&self, slot: u32) -> Result<&T, Error> {
        let entry = occupied(&self.slab, slot);
        entry
            .collection()
            .and_then(T::of)
            .ok_or_else(|| T::TYPE.mismatch(entry.item_type()))
    }

    /// The collection, to change in place; the caller then calls
    /// [`Self::recharge`] with the cost it had before.
    pub(super) fn collection_mut<T: Collection>(&mut self, slot: u32) -> Result<&mut T, Error> {
        let entry = occupied_mut(&mut self.slab, slot);
        let found = entry.item_type();
        entry
            .bytes
            .collection_mut()
            .and_then(T::of_mut)
            .ok_or_else(|| T::TYPE.mismatch(found))
    }

    /// The accounted cost of the item now.
    /// Gives a fresh allocation to each item among the slab slots from
    /// `from` (at most `limit` of them) whose own allocation `sparse` picks,
    /// and says how many moved and the slot to go on from (`None` past the
    /// last). Only allocations of the small size classes, which share slabs
    /// with others: a large one has its pages to itself.
    pub(super) fn relocate_sparse(
        &mut self,
        from: u32,
        limit: usize,
        sparse: &mut dyn FnMut(*const u8) -> bool,
    ) -> (usize, Option<u32>) {
        let end = (from as usize).saturating_add(limit).min(self.slab.len());
        let start = (from as usize).min(end);
        let mut moved = 0;
        for entry in self.slab[start..end].iter_mut().flatten() {
            if entry.bytes.len() < LARGE_ALLOCATION && sparse(entry.bytes.address()) {
                entry.bytes.relocate();
                moved += 1;
            }
        }
        (moved, (end < self.slab.len()).then_some(end as u32))
    }

    pub(super) fn cost(&self, slot: u32) -> u64 {
        occupied(&self.slab, slot).cost()
    }

    /// Brings the memory count in line after an in-place change of `slot`,
    /// which cost `old` before it; a write is a hit too.
    pub(super) fn recharge(&mut self, slot: u32, old: u64, counters: &Counters) {
        let entry = occupied_mut(&mut self.slab, slot);
        entry.links.visit();
        let (cache, new) = (entry.cache, entry.cost());
        self.rebill(cache, old, new, counters);
    }

    pub(super) fn expires_at(&self, slot: u32) -> Instant {
        self.instant(occupied(&self.slab, slot).expires_ns)
    }

    pub(super) fn visit(&mut self, slot: u32) {
        occupied_mut(&mut self.slab, slot).links.visit();
    }

    /// Stores `value` under `key`, in place if the key is there. Returns the
    /// slot and whether the expiry task must be woken (new earliest deadline).
    pub(super) fn upsert(
        &mut self,
        hash: u64,
        cache: CacheId,
        key: &[u8],
        value: Value,
        expires_at: Instant,
        counters: &Counters,
    ) -> (u32, bool) {
        let bytes = match value {
            Value::Scalar(bytes) => bytes,
            Value::Collection(c) => ItemBytes::collection(key, *c),
        };
        debug_assert_eq!(bytes.key(), key);
        let slab = &self.slab;
        let found = self.table.find(hash, |&slot| {
            let entry = occupied(slab, slot);
            entry.cache == cache && entry.key() == key
        });
        if let Some(&slot) = found {
            let entry = occupied_mut(&mut self.slab, slot);
            let old = entry.cost();
            entry.bytes = bytes;
            let new = entry.cost();
            // A write is a hit too: counters and other hot keys get rewritten.
            entry.links.visit();
            self.rebill(cache, old, new, counters);
            return (slot, self.set_expiry(slot, expires_at));
        }

        let expires_ns = self.nanos(expires_at);
        let entry = Entry {
            bytes,
            cache,
            expires_ns,
            links: Links::DETACHED,
            queued: bucket(expires_ns),
        };
        counters.bytes.fetch_add(entry.cost(), Relaxed);
        counters.items.fetch_add(1, Relaxed);
        let usage = self.usage.entry(cache.cache()).or_default();
        usage.items += 1;
        usage.bytes += entry.cost();
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slab[slot as usize] = Some(entry);
                slot
            }
            None => {
                let slot = u32::try_from(self.slab.len())
                    .ok()
                    .filter(|&slot| slot < super::sieve::NIL)
                    .expect("a shard holds fewer than 2^31 - 1 items");
                self.slab.push(Some(entry));
                slot
            }
        };
        let (slab, hasher) = (&self.slab, &self.hasher);
        self.table.insert_unique(hash, slot, |&slot| {
            let entry = occupied(slab, slot);
            hash_key(hasher, entry.cache, entry.key())
        });
        self.sieve.push(&mut self.slab, slot);
        (slot, self.deadlines.file(bucket(expires_ns), slot))
    }

    /// Moves the deadline of `slot`; true when it became the earliest.
    pub(super) fn set_expiry(&mut self, slot: u32, at: Instant) -> bool {
        let expires_ns = self.nanos(at);
        let entry = occupied_mut(&mut self.slab, slot);
        entry.expires_ns = expires_ns;
        // A later deadline keeps the earlier listing: its bucket files the
        // item again when it comes due.
        let bucket = bucket(expires_ns);
        if bucket >= entry.queued {
            return false;
        }
        entry.queued = bucket;
        self.deadlines.file(bucket, slot)
    }

    pub(super) fn remove(&mut self, slot: u32, counters: &Counters) {
        self.sieve.unlink(&mut self.slab, slot);
        let entry = self.slab[slot as usize]
            .take()
            .expect("removed slot is occupied");
        let hash = hash_key(&self.hasher, entry.cache, entry.key());
        if let Ok(found) = self.table.find_entry(hash, |&s| s == slot) {
            found.remove();
        }
        // Its expiry listing stays, stale, until its bucket comes due.
        self.free.push(slot);
        counters.bytes.fetch_sub(entry.cost(), Relaxed);
        counters.items.fetch_sub(1, Relaxed);
        if let MapEntry::Occupied(mut usage) = self.usage.entry(entry.cache.cache()) {
            let left = usage.get_mut();
            left.items -= 1;
            left.bytes -= entry.cost();
            if left.items == 0 {
                usage.remove();
            }
        }
        if self.deadlines.needs_rebuild(self.sieve.len()) {
            self.refile_all();
        }
    }

    /// Rebuilds the expiry index from the live items, dropping stale
    /// listings; O(slab), after at least as many removals.
    fn refile_all(&mut self) {
        self.deadlines.clear();
        for (slot, entry) in self.slab.iter_mut().enumerate() {
            if let Some(entry) = entry {
                entry.queued = bucket(entry.expires_ns);
                self.deadlines.file(entry.queued, slot as u32);
            }
        }
    }

    /// Frees up to `limit` expired items, bounding the time the lock is held
    /// (each listing handled counts, stale or filed again ones too).
    pub(super) fn expire(&mut self, now: Instant, limit: usize, counters: &Counters) -> Pending {
        let now_ns = self.nanos(now);
        let mut handled = 0;
        while let Some(first) = self.deadlines.first() {
            if due(first) > now_ns {
                return Pending::At(self.instant(due(first)));
            }
            if handled == limit {
                return Pending::More;
            }
            let (listed, slot) = self.deadlines.pop_first().expect("a bucket is listed");
            self.settle(listed, slot, now_ns, counters);
            handled += 1;
        }
        Pending::Idle
    }

    /// Handles a listing of `slot` taken from a due `bucket`: frees the item
    /// if it has expired, files it under its own bucket if its deadline has
    /// moved later, drops the listing if stale. True if it freed an item.
    fn settle(&mut self, listed: u32, slot: u32, now_ns: u64, counters: &Counters) -> bool {
        let Some(entry) = self.slab.get(slot as usize).and_then(Option::as_ref) else {
            return false;
        };
        if entry.queued != listed {
            return false;
        }
        let expires_ns = entry.expires_ns;
        if expires_ns <= now_ns {
            self.remove(slot, counters);
            counters.expirations.fetch_add(1, Relaxed);
            return true;
        }
        let later = bucket(expires_ns);
        occupied_mut(&mut self.slab, slot).queued = later;
        self.deadlines.file(later, slot);
        false
    }

    /// Frees one expired item of a due bucket other than `exclude`, if it
    /// finds one before an expired `exclude`.
    fn reap_one(&mut self, now_ns: u64, exclude: Option<u32>, counters: &Counters) -> bool {
        while let Some(first) = self.deadlines.first() {
            if due(first) > now_ns {
                return false;
            }
            let (listed, slot) = self.deadlines.pop_first().expect("a bucket is listed");
            if Some(slot) == exclude && occupied(&self.slab, slot).expires_ns <= now_ns {
                self.deadlines.file(listed, slot);
                return false;
            }
            if self.settle(listed, slot, now_ns, counters) {
                return true;
            }
        }
        false
    }

    /// Evicts until the store is under `max_memory` or this shard has nothing
    /// left but `exclude`. Returns whether the store is under the cap.
    pub(super) fn evict_until(
        &mut self,
        max_memory: u64,
        now: Instant,
        exclude: Option<u32>,
        counters: &Counters,
    ) -> bool {
        self.evict_within(max_memory, now, exclude, usize::MAX, counters)
    }

    /// As [`Shard::evict_until`] for a write on another shard: gives up only
    /// what one pass of the hand finds unvisited. Without the limit, a write
    /// whose own shard fell short emptied the next shards of items read every
    /// few milliseconds: the hand came round twice within one call.
    pub(super) fn evict_unvisited(
        &mut self,
        max_memory: u64,
        now: Instant,
        counters: &Counters,
    ) -> bool {
        let one_pass = self.sieve.len();
        self.evict_within(max_memory, now, None, one_pass, counters)
    }

    fn evict_within(
        &mut self,
        max_memory: u64,
        now: Instant,
        exclude: Option<u32>,
        mut steps: usize,
        counters: &Counters,
    ) -> bool {
        while counters.bytes.load(Relaxed) > max_memory {
            // An expired item is the cheapest victim: nobody can read it anyway.
            if self.reap_one(self.nanos(now), exclude, counters) {
                continue;
            }
            let victim = if steps == usize::MAX {
                self.sieve.victim(&mut self.slab, exclude)
            } else {
                self.sieve
                    .victim_within(&mut self.slab, exclude, &mut steps)
            };
            let Some(slot) = victim else {
                return false;
            };
            self.remove(slot, counters);
            counters.evictions.fetch_add(1, Relaxed);
        }
        true
    }

    /// Appends the live keys of `cache` starting with `prefix` found in
    /// slab slots `from..from + budget` to `keys`, stopping early once it
    /// holds `limit`; returns the slot to continue from, if any is left.
    /// An item keeps its slot for life, so a listing that resumes here
    /// meets each item present throughout exactly once.
    pub(super) fn keys_from(
        &self,
        cache: CacheId,
        prefix: &[u8],
        (from, budget): (usize, usize),
        limit: usize,
        now: Instant,
        keys: &mut Vec<Bytes>,
    ) -> Option<usize> {
        let end = self.slab.len().min(from.saturating_add(budget));
        let now_ns = self.nanos(now);
        for slot in from..end {
            if keys.len() >= limit {
                return Some(slot);
            }
            if let Some(entry) = &self.slab[slot] {
                if entry.cache == cache
                    && entry.expires_ns > now_ns
                    && entry.key().starts_with(prefix)
                {
                    keys.push(Bytes::copy_from_slice(entry.key()));
                }
            }
        }
        (end < self.slab.len()).then_some(end)
    }

    /// Frees the items of a dead cache id in slab slots `from..from + limit`;
    /// returns where to continue, if anywhere. Chunked so a large flush lets
    /// requests on this shard in between.
    pub(super) fn purge(
        &mut self,
        cache: CacheId,
        from: usize,
        limit: usize,
        counters: &Counters,
    ) -> Option<usize> {
        let end = self.slab.len().min(from.saturating_add(limit));
        for slot in from..end {
            if matches!(&self.slab[slot], Some(entry) if entry.cache.cache() == cache) {
                self.remove(slot as u32, counters);
            }
        }
        if self.sieve.len() == 0 {
            // Give back the slab and table of an emptied shard, or a flushed
            // cache would keep its peak footprint forever.
            self.slab = Vec::new();
            self.free = Vec::new();
            self.table = HashTable::new();
            self.deadlines.clear();
            return None;
        }
        (end < self.slab.len()).then_some(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_overhead_covers_at_least_the_entry_and_its_index_slots() {
        let floor = size_of::<Option<Entry>>() + size_of::<u32>() + 1 + size_of::<u32>();
        assert!(ITEM_OVERHEAD as usize > floor);
        if cfg!(target_pointer_width = "64") {
            assert_eq!(size_of::<Option<Entry>>(), 40);
            assert_eq!(ITEM_OVERHEAD, 66);
        }
    }

    /// A key written and deleted over and over leaves a stale listing each
    /// time; the index is rebuilt before they outgrow the live items.
    #[test]
    fn stale_expiry_listings_stay_bounded() {
        let counters = Counters::default();
        let now = Instant::now();
        let mut shard = Shard::new(DefaultHashBuilder::default(), now);
        let cache = CacheId(0);
        let hash = hash_key(&shard.hasher, cache, b"kept");
        shard.upsert(
            hash,
            cache,
            b"kept",
            Value::scalar(b"kept", b"v"),
            now,
            &counters,
        );
        let hash = hash_key(&shard.hasher, cache, b"k");
        for i in 0..10_000u64 {
            let deadline = now + Duration::from_secs(3600 + i);
            let (slot, _) = shard.upsert(
                hash,
                cache,
                b"k",
                Value::scalar(b"k", b"v"),
                deadline,
                &counters,
            );
            shard.remove(slot, &counters);
        }
        assert!(shard.deadlines.listed() <= 2 + 1024 + 1);
        assert_eq!(counters.items.load(Relaxed), 1);
        // The survivor is still listed: the rebuilds kept the live items.
        let due = shard.expire(now + Duration::from_secs(1), usize::MAX, &counters);
        assert!(matches!(due, Pending::At(_)), "{due:?}");
        assert_eq!(counters.items.load(Relaxed), 0);
        assert_eq!(counters.expirations.load(Relaxed), 1);
    }
}
