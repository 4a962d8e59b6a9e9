//! A shard's expiry index: slot numbers filed in buckets of [`GRAIN_NS`] of
//! deadline, in deadline order.
//!
//! Why buckets and not an ordered set of `(deadline, slot)`: the set costs
//! every item a 24-byte key in a B-tree node, about 48 bytes with the nodes'
//! slack, a third of a small item; a bucket costs it one `u32` in a vector.
//! The price is that the expiry task frees an item up to one grain after its
//! deadline; no read returns it meanwhile, since every lookup checks the
//! item's own deadline (`Shard::live`).
//!
//! The index is lazy, so that neither a removal nor a later deadline has to
//! find a listing in its bucket: each item is listed in the bucket its entry
//! names (`queued`), never later than its deadline's. When a bucket comes due,
//! the shard checks each listing against the entry now in that slot: one no
//! longer queued there is stale and dropped, an expired item is freed, and
//! one whose deadline moved later is filed again under its own bucket. Only an
//! earlier deadline files the item at once. Stale listings are bounded:
//! [`Deadlines::needs_rebuild`] has the shard file its live items afresh once
//! listings outnumber them twice over.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

/// The width of a bucket: 2^27 ns, about 134 ms, the most an item outlives
/// its deadline before the expiry task frees it (if nobody reads it first).
pub(super) const GRAIN_NS: u64 = 1 << 27;

/// Listings a shard may hold beyond twice its items before it rebuilds the
/// index, so small shards do not rebuild at every removal.
const REBUILD_MARGIN: usize = 1024;

/// The bucket of a deadline (nanoseconds from the store's epoch): the one
/// that comes due when it has passed. Deadlines past `u32::MAX` grains
/// (17 years) share the last.
pub(super) fn bucket(deadline_ns: u64) -> u32 {
    u32::try_from(deadline_ns.div_ceil(GRAIN_NS)).unwrap_or(u32::MAX)
}

/// When `bucket` comes due, in nanoseconds from the store's epoch: every
/// deadline filed under it has passed by then.
pub(super) fn due(bucket: u32) -> u64 {
    u64::from(bucket) * GRAIN_NS
}

#[derive(Default)]
pub(super) struct Deadlines {
    buckets: BTreeMap<u32, Vec<u32>>,
    /// Listings held, live or stale.
    listed: usize,
}

impl Deadlines {
    /// Lists `slot` under `bucket`. True when that made `bucket` the
    /// earliest, so the expiry task, asleep until a later one, must be woken.
    pub(super) fn file(&mut self, bucket: u32, slot: u32) -> bool {
        self.listed += 1;
        match self.buckets.entry(bucket) {
            Entry::Occupied(listings) => {
                listings.into_mut().push(slot);
                false
            }
            Entry::Vacant(vacant) => {
                vacant.insert(vec![slot]);
                self.first() == Some(bucket)
            }
        }
    }

    /// The earliest bucket holding listings.
    pub(super) fn first(&self) -> Option<u32> {
        self.buckets.first_key_value().map(|(&bucket, _)| bucket)
    }

    /// Takes one listing of the earliest bucket: the bucket and the slot.
    pub(super) fn pop_first(&mut self) -> Option<(u32, u32)> {
        let mut first = self.buckets.first_entry()?;
        let bucket = *first.key();
        let slot = first.get_mut().pop();
        if first.get().is_empty() {
            first.remove();
        }
        let slot = slot.expect("no bucket is kept empty");
        self.listed -= 1;
        Some((bucket, slot))
    }

    /// Whether stale listings have piled up enough, beside `items` live
    /// ones, that the shard should file its items afresh ([`Self::clear`]
    /// first).
    pub(super) fn needs_rebuild(&self, items: usize) -> bool {
        self.listed > 2 * items + REBUILD_MARGIN
    }

    pub(super) fn clear(&mut self) {
        *self = Deadlines::default();
    }

    #[cfg(test)]
    pub(super) fn listed(&self) -> usize {
        self.listed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_is_due_with_its_bucket_and_not_a_grain_later() {
        for deadline in [1, GRAIN_NS - 1, GRAIN_NS, GRAIN_NS + 1, 5 * GRAIN_NS / 2] {
            let due = due(bucket(deadline));
            assert!(deadline <= due && due < deadline + GRAIN_NS, "{deadline}");
        }
        assert_eq!(bucket(u64::MAX), u32::MAX);
    }

    #[test]
    fn buckets_come_out_earliest_first_and_only_a_new_earliest_wakes() {
        let mut deadlines = Deadlines::default();
        assert!(deadlines.file(5, 1));
        assert!(!deadlines.file(5, 2));
        assert!(!deadlines.file(9, 3));
        assert!(deadlines.file(2, 4));
        let order: Vec<_> = std::iter::from_fn(|| deadlines.pop_first()).collect();
        assert_eq!(order, [(2, 4), (5, 2), (5, 1), (9, 3)]);
        assert_eq!(deadlines.first(), None);
    }

    #[test]
    fn a_rebuild_is_due_once_listings_outnumber_items_twice_over() {
        let mut deadlines = Deadlines::default();
        for slot in 0..2 * 10 + REBUILD_MARGIN as u32 {
            deadlines.file(1, slot);
        }
        assert!(!deadlines.needs_rebuild(10));
        deadlines.file(1, 0);
        assert!(deadlines.needs_rebuild(10));
        deadlines.clear();
        assert!(!deadlines.needs_rebuild(0));
    }
}
