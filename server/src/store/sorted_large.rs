//! A sorted set past the packed form's bounds (`sorted_small.rs`), each
//! member's bytes stored once ([`Members`], by slot) and three structures
//! over the slots:
//!
//! - the member index, a hash table of slots hashed by their member's
//!   bytes: a member's slot, and so its score, in O(1);
//! - the score order, an order-statistic sequence ([`Ranked`]) of 16-byte
//!   keys (score, slot, the member's size in an answer), ordered by score
//!   then member bytes (read through the slot on a tie): ranks, counts by
//!   score and ordered walks both ways in O(log n);
//! - the members' pages.
//!
//! Costs, for n elements: a score O(1); a rank, the count below a score,
//! an insertion or a removal O(log n) (a shift of at most one chunk of the
//! order; the table and the pages grow or shrink by a copy, O(1)
//! amortized); the elements at positions `start..end` O(log n + m). Once
//! removals leave a quarter of the slots holding members, the set is
//! rebuilt on fresh slots in O(n): once per 3n / 4 removals at least.
//!
//! What it is charged is what its structures allocate (the table, the
//! order's chunks and the pages, each by capacity at its size class), read
//! in O(1) from what they keep.

use std::cmp::Ordering;
use std::hash::BuildHasher;
use std::mem::size_of;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::cost::{allocation_size, shrunk_room};
use super::ranked::{Ranked, Weighted};
use super::sorted_members::{Members, PAGE_SLOTS};
use super::sorted_set::{element_encoded_len, SMALL_MAX_MEMBER};

/// An element of the order: 16 bytes, its score and its member's slot, and
/// the member's size in a fetch's answer (the order's weight), which fits
/// the padding a `(f64, u32)` would leave.
#[derive(Clone, Copy, Debug)]
struct Key {
    score: f64,
    slot: u32,
    encoded: u32,
}

impl Weighted for Key {
    fn weight(&self) -> u64 {
        u64::from(self.encoded)
    }
}

/// How a key compares with the element (`score`, `member`): by score, then
/// by member bytes. Scores are finite and never -0.0 (see
/// `backend::sorted_set`), so `total_cmp` is the numeric order.
fn by<'a>(members: &'a Members, score: f64, member: &'a [u8]) -> impl Fn(&Key) -> Ordering + 'a {
    move |key| {
        key.score
            .total_cmp(&score)
            .then_with(|| members.member(key.slot).cmp(member))
    }
}

#[derive(Debug, Default)]
pub struct Large {
    members: Members,
    /// Slots, hashed by their member's bytes.
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
    order: Ranked<Key>,
    /// The sum of the elements' [`element_encoded_len`].
    encoded: u64,
    /// How many members are longer than the packed form takes, so that
    /// whether the set could be packed again is known in O(1).
    long: usize,
}

impl Large {
    pub fn with_capacity(elements: usize) -> Large {
        Large {
            members: Members::with_capacity(elements),
            index: HashTable::with_capacity(elements),
            ..Large::default()
        }
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// What its structures allocate, itself (boxed) included.
    pub fn cost(&self) -> u64 {
        let bytes = size_of::<Large>()
            + self.members.heap_bytes()
            // Its own count: removals' markers lower its capacity, not
            // what it allocates.
            + allocation_size(self.index.allocation_size())
            + self.order.heap_bytes();
        bytes as u64
    }

    /// The bytes of all its elements in a fetch's answer.
    pub fn encoded(&self) -> u64 {
        self.encoded
    }

    /// True when every member is short enough for the packed form.
    pub fn all_short(&self) -> bool {
        self.long == 0
    }

    fn slot(&self, member: &[u8]) -> Option<u32> {
        let hash = self.hasher.hash_one(member);
        let members = &self.members;
        self.index
            .find(hash, |&slot| members.member(slot) == member)
            .copied()
    }

    pub fn score(&self, member: &[u8]) -> Option<f64> {
        self.slot(member).map(|slot| self.members.score(slot))
    }

    /// The ascending position of `member`.
    pub fn rank(&self, member: &[u8]) -> Option<usize> {
        let score = self.score(member)?;
        self.order.rank_by(by(&self.members, score, member))
    }

    /// How many elements score below `score` (or at most `score`, when
    /// `or_equal`).
    pub fn count_below(&self, score: f64, or_equal: bool) -> usize {
        let below = |key: &Key| key.score < score || or_equal && key.score == score;
        self.order.count_below(below)
    }

    /// The elements at ascending positions `start..end`.
    pub fn pairs(&self, start: usize, end: usize) -> impl Iterator<Item = (&[u8], f64)> + Clone {
        let members = &self.members;
        let keys = self.order.range(start, end);
        keys.map(|key| (members.member(key.slot), key.score))
    }

    /// The bytes of the elements at positions `start..end` in a fetch's
    /// answer: O(log n) and a walk of at most two of the order's chunks.
    pub fn weight(&self, start: usize, end: usize) -> u64 {
        self.order.weight(start, end)
    }

    /// Sets the score of `member`; true when it is new.
    pub fn set(&mut self, member: &[u8], score: f64) -> bool {
        let Large {
            members,
            index,
            hasher,
            order,
            ..
        } = self;
        let hash = hasher.hash_one(member);
        if let Some(&slot) = index.find(hash, |&slot| members.member(slot) == member) {
            let held = members.score(slot);
            if held != score {
                let key = order.remove_by(by(members, held, member));
                let key = key.expect("every member is in the order");
                members.set_score(slot, score);
                let key = Key { score, ..key };
                order.insert_by(key, by(members, score, member));
            }
            return false;
        }
        let slot = members.insert(member, score);
        let rehash = |&slot: &u32| hasher.hash_one(members.member(slot));
        index.insert_unique(hash, slot, rehash);
        let encoded = element_encoded_len(member);
        let key = Key {
            score,
            slot,
            encoded: u32::try_from(encoded).expect("a member under 4 GiB"),
        };
        order.insert_by(key, by(members, score, member));
        self.encoded += encoded;
        self.long += usize::from(member.len() > SMALL_MAX_MEMBER);
        true
    }

    /// Removes `member`; true when it was held.
    pub fn remove(&mut self, member: &[u8]) -> bool {
        let hash = self.hasher.hash_one(member);
        let members = &self.members;
        let Ok(found) = self
            .index
            .find_entry(hash, |&slot| members.member(slot) == member)
        else {
            return false;
        };
        let (slot, _) = found.remove();
        let score = members.score(slot);
        self.order.remove_by(by(members, score, member));
        self.members.remove(slot);
        self.encoded -= element_encoded_len(member);
        self.long -= usize::from(member.len() > SMALL_MAX_MEMBER);
        true
    }

    /// After removals: gives back the table's room once it holds under a
    /// quarter of it (as a set's or dictionary's, see `cost::shrunk_room`), and
    /// renumbers the members once under a quarter of the slots hold one.
    pub fn fit(&mut self) {
        if self.members.slots() > 4 * self.len().max(PAGE_SLOTS) {
            self.renumber();
        }
        if let Some(room) = shrunk_room(self.index.len(), self.index.capacity()) {
            let Large {
                members,
                index,
                hasher,
                ..
            } = self;
            index.shrink_to(room, |&slot| hasher.hash_one(members.member(slot)));
        }
    }

    /// Every member moved to a fresh slot, in the order's order, and the
    /// index built again over the new slots: O(n).
    fn renumber(&mut self) {
        let Large {
            members: old,
            index: old_index,
            hasher,
            order,
            ..
        } = self;
        let mut members = Members::with_capacity(old_index.len());
        let mut index = HashTable::with_capacity(old_index.len());
        order.for_each_mut(|key| {
            let member = old.member(key.slot);
            let slot = members.insert(member, key.score);
            let rehash = |&slot: &u32| hasher.hash_one(members.member(slot));
            index.insert_unique(hasher.hash_one(member), slot, rehash);
            key.slot = slot;
        });
        self.members = members;
        self.index = index;
    }

    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.index.capacity()
    }

    #[cfg(test)]
    pub fn slots(&self) -> usize {
        self.members.slots()
    }

    /// Panics unless the index, the order, the members and what is kept
    /// agree.
    #[cfg(test)]
    pub fn assert_consistent(&self) {
        assert_eq!(self.index.len(), self.order.len());
        let pairs: Vec<(&[u8], f64)> = self.pairs(0, self.len()).collect();
        let encoded: u64 = pairs.iter().map(|(m, _)| element_encoded_len(m)).sum();
        assert_eq!(self.encoded, encoded);
        assert_eq!(self.order.weight(0, self.len()), encoded);
        let long = pairs.iter().filter(|(m, _)| m.len() > SMALL_MAX_MEMBER);
        assert_eq!(self.long, long.count());
        for (i, (member, score)) in pairs.iter().enumerate() {
            assert_eq!(self.score(member), Some(*score));
            assert_eq!(self.rank(member), Some(i));
        }
        let ordered = |a: &(&[u8], f64), b: &(&[u8], f64)| {
            a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)).is_lt()
        };
        assert!(pairs.windows(2).all(|w| ordered(&w[0], &w[1])));
    }
}
