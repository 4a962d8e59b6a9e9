//! One shard of the store: a hash table of slot numbers over a slab of
//! entries, with the SIEVE queue and the expiry index on the same slots.
//!
//! Everything refers to an item by its `u32` slot, so the key is stored once
//! (in the entry) and the table, the queue and the index stay small. The
//! caller holds the shard's lock for every call here; the global counters are
//! atomics because the memory cap is one number for all shards.

use std::collections::BTreeSet;
use std::hash::BuildHasher;
use std::mem::size_of;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use bytes::Bytes;
use hashbrown::{DefaultHashBuilder, HashTable};
use tokio::time::Instant;

use super::cost::{allocation_size, SHARED_HEADER};
use super::expiry::Pending;
use super::sieve::{Arena, Links, Sieve};
use super::value::Value;
use super::CacheId;

/// Bytes charged per item on top of its key and value, so that the cap
/// bounds real memory rather than payload alone:
///
/// - the slab slot, `size_of::<Option<Entry>>()` (104 on 64-bit), times 4/3
///   because a doubling `Vec` is on average three quarters full;
/// - the hash-table slot: a 4-byte index plus 1 control byte at a load of
///   7/16 to 7/8, about 8 bytes;
/// - the expiry-index node: B-tree leaves hold up to 11 `(Instant, u32)` keys
///   (24 bytes each) in a 280-byte node (320-byte size class), typically two
///   thirds full, plus internal nodes: about two keys' worth, 48 bytes;
/// - the header `bytes` allocates (24 bytes, 32-byte class) when a stored
///   value is first cloned out by a read;
///
/// 138 + 8 + 48 + 32 = 226 bytes on 64-bit targets. The key and value are
/// charged their allocation size, see [`allocation_size`].
pub(super) const ITEM_OVERHEAD: u64 = (size_of::<Option<Entry>>() * 4 / 3
    + TABLE_SLOT
    + 2 * size_of::<(Instant, u32)>()
    + SHARED_HEADER as usize) as u64;
const TABLE_SLOT: usize = 8;

/// What a scalar item of this key and value length is charged against the cap.
#[cfg(test)]
pub(super) fn charge(key_len: usize, value_len: usize) -> u64 {
    (allocation_size(key_len) + allocation_size(value_len)) as u64 + ITEM_OVERHEAD
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
    /// Copied out of the request: a slice of it would pin the whole receive
    /// buffer and make the accounting a lie.
    key: Bytes,
    value: Value,
    expires_at: Instant,
    /// Part of the item's identity, so caches share the table yet never see
    /// each other's keys.
    cache: CacheId,
    links: Links,
}

impl Entry {
    fn cost(&self) -> u64 {
        item_cost(&self.key, &self.value)
    }
}

/// What an item of this key and value is charged against the cap.
pub(super) fn item_cost(key: &[u8], value: &Value) -> u64 {
    allocation_size(key.len()) as u64 + value.cost() + ITEM_OVERHEAD
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
    /// Deadlines in order, for the expiry task and for cheap victims.
    expiry: BTreeSet<(Instant, u32)>,
    /// A copy of the store's hasher, to rehash on growth and find a slot's
    /// table entry when removing it.
    hasher: DefaultHashBuilder,
}

impl Shard {
    pub(super) fn new(hasher: DefaultHashBuilder) -> Self {
        Shard {
            table: HashTable::new(),
            slab: Vec::new(),
            free: Vec::new(),
            sieve: Sieve::new(),
            expiry: BTreeSet::new(),
            hasher,
        }
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
            entry.cache == cache && entry.key == key
        })?;
        if occupied(slab, slot).expires_at <= now {
            self.remove(slot, counters);
            counters.expirations.fetch_add(1, Relaxed);
            return None;
        }
        Some(slot)
    }

    pub(super) fn value(&self, slot: u32) -> &Value {
        &occupied(&self.slab, slot).value
    }

    /// The value, to change in place; the caller then calls [`Self::recharge`]
    /// with the cost it had before.
    pub(super) fn value_mut(&mut self, slot: u32) -> &mut Value {
        &mut occupied_mut(&mut self.slab, slot).value
    }

    /// The accounted cost of the item now.
    pub(super) fn cost(&self, slot: u32) -> u64 {
        occupied(&self.slab, slot).cost()
    }

    /// Brings the memory count in line after an in-place change of `slot`,
    /// which cost `old` before it; a write is a hit too.
    pub(super) fn recharge(&mut self, slot: u32, old: u64, counters: &Counters) {
        let entry = occupied_mut(&mut self.slab, slot);
        entry.links.visit();
        let new = entry.cost();
        if new >= old {
            counters.bytes.fetch_add(new - old, Relaxed);
        } else {
            counters.bytes.fetch_sub(old - new, Relaxed);
        }
    }

    pub(super) fn expires_at(&self, slot: u32) -> Instant {
        occupied(&self.slab, slot).expires_at
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
        let slab = &self.slab;
        let found = self.table.find(hash, |&slot| {
            let entry = occupied(slab, slot);
            entry.cache == cache && entry.key == key
        });
        if let Some(&slot) = found {
            let entry = occupied_mut(&mut self.slab, slot);
            let old = entry.cost();
            entry.value = value;
            let new = entry.cost();
            // A write is a hit too: counters and other hot keys get rewritten.
            entry.links.visit();
            if new >= old {
                counters.bytes.fetch_add(new - old, Relaxed);
            } else {
                counters.bytes.fetch_sub(old - new, Relaxed);
            }
            return (slot, self.set_expiry(slot, expires_at));
        }

        let entry = Entry {
            key: Bytes::copy_from_slice(key),
            value,
            expires_at,
            cache,
            links: Links::DETACHED,
        };
        counters.bytes.fetch_add(entry.cost(), Relaxed);
        counters.items.fetch_add(1, Relaxed);
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slab[slot as usize] = Some(entry);
                slot
            }
            None => {
                let slot = u32::try_from(self.slab.len())
                    .ok()
                    .filter(|&slot| slot != super::sieve::NIL)
                    .expect("a shard holds fewer than 2^32 - 1 items");
                self.slab.push(Some(entry));
                slot
            }
        };
        let (slab, hasher) = (&self.slab, &self.hasher);
        self.table.insert_unique(hash, slot, |&slot| {
            let entry = occupied(slab, slot);
            hash_key(hasher, entry.cache, &entry.key)
        });
        self.sieve.push(&mut self.slab, slot);
        self.expiry.insert((expires_at, slot));
        (slot, self.expiry.first() == Some(&(expires_at, slot)))
    }

    /// Moves the deadline of `slot`; true when it became the earliest.
    pub(super) fn set_expiry(&mut self, slot: u32, at: Instant) -> bool {
        let entry = occupied_mut(&mut self.slab, slot);
        self.expiry.remove(&(entry.expires_at, slot));
        entry.expires_at = at;
        self.expiry.insert((at, slot));
        self.expiry.first() == Some(&(at, slot))
    }

    pub(super) fn remove(&mut self, slot: u32, counters: &Counters) {
        self.sieve.unlink(&mut self.slab, slot);
        let entry = self.slab[slot as usize]
            .take()
            .expect("removed slot is occupied");
        let hash = hash_key(&self.hasher, entry.cache, &entry.key);
        if let Ok(found) = self.table.find_entry(hash, |&s| s == slot) {
            found.remove();
        }
        self.expiry.remove(&(entry.expires_at, slot));
        self.free.push(slot);
        counters.bytes.fetch_sub(entry.cost(), Relaxed);
        counters.items.fetch_sub(1, Relaxed);
    }

    /// Frees up to `limit` expired items, bounding the time the lock is held.
    pub(super) fn expire(&mut self, now: Instant, limit: usize, counters: &Counters) -> Pending {
        let mut freed = 0;
        while let Some(&(at, slot)) = self.expiry.first() {
            if at > now {
                return Pending::At(at);
            }
            if freed == limit {
                return Pending::More;
            }
            self.remove(slot, counters);
            counters.expirations.fetch_add(1, Relaxed);
            freed += 1;
        }
        Pending::Idle
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
            if let Some(&(at, slot)) = self.expiry.first() {
                if at <= now && Some(slot) != exclude {
                    self.remove(slot, counters);
                    counters.expirations.fetch_add(1, Relaxed);
                    continue;
                }
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
        for slot in from..end {
            if keys.len() >= limit {
                return Some(slot);
            }
            if let Some(entry) = &self.slab[slot] {
                if entry.cache == cache && entry.expires_at > now && entry.key.starts_with(prefix) {
                    keys.push(entry.key.clone());
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
        let floor = size_of::<Option<Entry>>() + 5 + size_of::<(Instant, u32)>();
        assert!(ITEM_OVERHEAD as usize > floor);
        if cfg!(target_pointer_width = "64") {
            assert_eq!(size_of::<Option<Entry>>(), 104);
            assert_eq!(ITEM_OVERHEAD, 226);
        }
    }
}
