//! The store's side of active defragmentation: a walk over every shard's
//! items, a batch of slab slots per lock hold, that gives a fresh
//! allocation to each item the caller judges to sit in a mostly empty slab.
//!
//! Why: under eviction churn the allocator's slabs of one size class empty
//! at random (SIEVE evicts items wherever they lie), and a slab goes back
//! to the OS only once all of it is free. When the mix of sizes shifts
//! (scalars evicted to make room for growing collections) the slabs of the
//! sizes that shrank stay resident, half empty: tens of MiB past
//! `--max-memory` in `attacks_budget::memory_caps`. The judging and the
//! pacing live with the allocator (`crate::defrag`); the store only knows
//! its own items.

use super::Store;

/// Where a walk has got to: a shard, and a slot in its slab.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DefragCursor {
    shard: usize,
    slot: u32,
}

/// What one step of a walk did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DefragStep {
    /// Items given a fresh allocation.
    pub moved: usize,
    /// The walk has passed every shard; the cursor starts over.
    pub finished: bool,
}

impl Store {
    /// Looks at up to `slots` slab slots of the shard under `cursor`, under
    /// its lock once, and moves the items whose allocation `sparse` picks
    /// (it is given the allocation's address); the cursor then points past
    /// them. Holding one shard's lock for one batch at a time, a walk delays
    /// a request at most as long as a batch of expiry does.
    pub fn relocate_sparse(
        &self,
        cursor: &mut DefragCursor,
        slots: usize,
        sparse: &mut dyn FnMut(*const u8) -> bool,
    ) -> DefragStep {
        let (moved, next) =
            self.shards[cursor.shard]
                .state
                .lock()
                .relocate_sparse(cursor.slot, slots, sparse);
        match next {
            Some(slot) => cursor.slot = slot,
            None => {
                cursor.shard += 1;
                cursor.slot = 0;
            }
        }
        let finished = cursor.shard == self.shards.len();
        if finished {
            *cursor = DefragCursor::default();
        }
        DefragStep { moved, finished }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use bytes::Bytes;

    use super::*;
    use crate::backend::SetStorage;
    use crate::store::tests::{store_with, MINUTE_TTL};

    /// Walks the whole store once in steps of `slots`, moving what `sparse`
    /// picks; returns the moves and the steps taken.
    fn walk(
        store: &Store,
        slots: usize,
        sparse: &mut dyn FnMut(*const u8) -> bool,
    ) -> (usize, usize) {
        let mut cursor = DefragCursor::default();
        let (mut moved, mut steps) = (0, 0);
        loop {
            let step = store.relocate_sparse(&mut cursor, slots, sparse);
            moved += step.moved;
            steps += 1;
            if step.finished {
                return (moved, steps);
            }
        }
    }

    fn addresses(store: &Store) -> HashSet<usize> {
        let mut seen = HashSet::new();
        walk(store, 64, &mut |at| {
            seen.insert(at as usize);
            false
        });
        seen
    }

    fn elements(n: u32) -> Vec<Bytes> {
        (0..20).map(|v| Bytes::from(format!("{n}-{v}"))).collect()
    }

    #[tokio::test]
    async fn a_walk_moves_what_it_is_told_and_every_item_reads_the_same() {
        let (store, c) = store_with(1 << 30);
        let ttl = std::time::Duration::from_secs(60);
        for n in 0..2_000u32 {
            let key = format!("scalar-{n}");
            store.set(c, key.as_bytes(), &[(n % 251) as u8; 100], ttl);
        }
        for n in 0..50u32 {
            let key = format!("set-{n}");
            let union = store.set_union(&c, key.as_bytes(), elements(n), MINUTE_TTL, usize::MAX);
            assert_eq!(union.await, Ok(20), "the length after the union");
        }
        let charged = store.stats().bytes;

        // Nothing picked: nothing moves, and the walk still ends.
        assert_eq!(walk(&store, 64, &mut |_| false).0, 0);
        let before = addresses(&store);
        assert_eq!(before.len(), 2_050);
        // Everything picked: every item moves, a batch of slots at a time.
        let (moved, steps) = walk(&store, 64, &mut |_| true);
        assert_eq!(moved, 2_050);
        assert!(steps > 2_050 / 64, "{steps} steps of at most 64 slots");
        assert_eq!(addresses(&store).len(), 2_050);

        assert_eq!(store.stats().bytes, charged, "a move changes no charge");
        for n in 0..2_000u32 {
            let key = format!("scalar-{n}");
            let value = store.get(c, key.as_bytes()).unwrap().unwrap();
            assert_eq!(&value[..], &[(n % 251) as u8; 100][..]);
        }
        for n in 0..50u32 {
            let key = format!("set-{n}");
            let mut set = store
                .set_fetch(&c, key.as_bytes(), usize::MAX)
                .await
                .unwrap()
                .unwrap();
            set.sort();
            let mut expected = elements(n);
            expected.sort();
            assert_eq!(set, expected);
            // Still the store's own: written to and freed once after the move.
            let more = vec![Bytes::from_static(b"more")];
            let union = store.set_union(&c, key.as_bytes(), more, MINUTE_TTL, usize::MAX);
            assert_eq!(union.await, Ok(21), "the length after the union");
            store.delete(c, key.as_bytes());
        }
        assert_eq!(store.stats().items, 2_000);
    }
}
