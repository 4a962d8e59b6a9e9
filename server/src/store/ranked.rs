//! A sorted sequence that knows positions: the rank of a value, the element
//! at an index and the elements of an index range, each in O(log n) (plus
//! the elements answered), for the sorted set's rank, count-by-score and
//! deep fetches, which a plain B-tree can only count by walking.
//!
//! Written here rather than taken from a crate: the order-statistic trees
//! published (indexset, sweep-bptree) allocate a whole node up front (16 to
//! 40 KiB for a one-element set with indexset's defaults, fixed arrays for
//! sweep-bptree), never merge nodes emptied by removals, or are marked
//! as under development with much unsafe code; a sorted set is often small,
//! and memory per element is what this store competes on.
//!
//! The layout: sorted chunks of at most [`MAX_CHUNK`] elements, in order,
//! and a Fenwick tree of the chunks' lengths (the prefix sum of lengths up
//! to a chunk in O(log c), and the chunk holding an index by the same
//! descent). A chunk is a plain `Vec`, grown as `Vec` grows, so a small set
//! costs what its elements do, and a large one about 1.0-1.3x, chunks being
//! half to wholly full. Inserting or removing shifts at most `MAX_CHUNK`
//! elements of one chunk; a split or merge rebuilds the Fenwick tree in
//! O(c), at most once per `MAX_CHUNK / 8` changes of that chunk.
//!
//! A second Fenwick tree sums each chunk's elements' [`Weighted::weight`]
//! (for the sorted set, their size in a fetch's answer), so the weight of
//! an index range is known in O(log c + `MAX_CHUNK`) before it is walked.

use std::cmp::Ordering;
use std::iter::{Chain, Flatten};
use std::mem::size_of;
use std::slice;

use super::cost::allocation_size;

/// A chunk's most elements: a shift of 512 elements of 40 bytes is a few
/// hundred nanoseconds, and 1,000,000 elements make about 2,000-4,000 chunks.
const MAX_CHUNK: usize = 512;
/// A chunk shorter than this (when it is not the only one) is merged with a
/// neighbour, so removals cannot leave many near-empty chunks behind.
const MIN_CHUNK: usize = MAX_CHUNK / 8;

/// What an element adds to the weight of a range ([`Ranked::weight`]).
pub trait Weighted {
    fn weight(&self) -> u64;
}

#[derive(Debug)]
pub struct Ranked<T> {
    /// Each sorted and non-empty; every element of a chunk is below every
    /// element of the next.
    chunks: Vec<Vec<T>>,
    /// The lengths of `chunks`.
    lengths: Fenwick,
    /// The sums of the weights of the elements of `chunks`.
    weights: Fenwick,
    len: usize,
    /// The sum of the chunks' capacities, so that what the sequence takes
    /// ([`Ranked::heap_bytes`]) is known in O(1).
    room: usize,
}

impl<T> Default for Ranked<T> {
    fn default() -> Self {
        Ranked {
            chunks: Vec::new(),
            lengths: Fenwick::default(),
            weights: Fenwick::default(),
            len: 0,
            room: 0,
        }
    }
}

/// The elements of an index range, both ways.
pub type Range<'a, T> =
    Chain<Chain<slice::Iter<'a, T>, Flatten<slice::Iter<'a, Vec<T>>>>, slice::Iter<'a, T>>;

/// Lookups by ordering: `by(element)` answers how an element compares with
/// the one sought, so that elements whose order depends on something held
/// elsewhere (the sorted set's members, kept apart from its order) can be
/// found without a copy of it.
impl<T: Ord + Weighted> Ranked<T> {
    /// The rank of `value`, or None when it is not held.
    pub fn rank(&self, value: &T) -> Option<usize> {
        self.rank_by(|e| e.cmp(value))
    }

    /// Adds `value`; false (and nothing changes) when an equal one is held.
    pub fn insert(&mut self, value: T) -> bool {
        let found = self.find_by(|e| e.cmp(&value));
        self.insert_found(found, value)
    }

    /// Removes the element equal to `value`; false when none is held.
    pub fn remove(&mut self, value: &T) -> bool {
        self.remove_by(|e| e.cmp(value)).is_some()
    }
}

impl<T: Weighted> Ranked<T> {
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes the sequence holds: its chunks' capacities, the list of
    /// them and the two Fenwick trees (not what its elements point to).
    pub fn heap_bytes(&self) -> usize {
        allocation_size(self.room * size_of::<T>())
            + allocation_size(self.chunks.capacity() * size_of::<Vec<T>>())
            + 2 * allocation_size(self.chunks.len() * size_of::<usize>())
    }

    /// How many elements satisfy `below`, which must hold for a prefix of
    /// the order and for nothing after it (as `|e| e < bound` does).
    pub fn count_below(&self, below: impl Fn(&T) -> bool) -> usize {
        let chunk = self.chunks.partition_point(|c| below(last(c)));
        match self.chunks.get(chunk) {
            None => self.len,
            Some(c) => self.lengths.prefix(chunk) + c.partition_point(&below),
        }
    }

    /// The rank of the element `by` finds, or None when it is not held.
    pub fn rank_by(&self, by: impl Fn(&T) -> Ordering) -> Option<usize> {
        let (chunk, found) = self.find_by(by)?;
        found.ok().map(|at| self.lengths.prefix(chunk) + at)
    }

    /// Each element in order, to change what does not move it in the order.
    pub fn for_each_mut(&mut self, change: impl FnMut(&mut T)) {
        self.chunks.iter_mut().flatten().for_each(change);
    }

    /// The elements at indices `start..end` (clamped to the length), in
    /// order; `.rev()` walks them the other way.
    pub fn range(&self, start: usize, end: usize) -> Range<'_, T> {
        let end = end.min(self.len);
        if start >= end {
            return [].iter().chain([].iter().flatten()).chain([].iter());
        }
        let (first, from) = self.lengths.locate(start);
        let (last, to) = self.lengths.locate(end - 1);
        if first == last {
            let within = self.chunks[first][from..=to].iter();
            return within.chain([].iter().flatten()).chain([].iter());
        }
        self.chunks[first][from..]
            .iter()
            .chain(self.chunks[first + 1..last].iter().flatten())
            .chain(self.chunks[last][..=to].iter())
    }

    #[cfg(test)]
    pub fn iter(&self) -> Range<'_, T> {
        self.range(0, self.len)
    }

    /// The sum of the weights of the elements at indices `start..end`
    /// (clamped to the length), without walking more than two chunks.
    pub fn weight(&self, start: usize, end: usize) -> u64 {
        let end = end.min(self.len);
        if start >= end {
            return 0;
        }
        self.weight_before(end) - self.weight_before(start)
    }

    /// The weight of the elements at indices below `index`.
    fn weight_before(&self, index: usize) -> u64 {
        if index >= self.len {
            return self.weights.prefix(self.chunks.len()) as u64;
        }
        let (chunk, at) = self.lengths.locate(index);
        let within: u64 = self.chunks[chunk][..at].iter().map(T::weight).sum();
        self.weights.prefix(chunk) as u64 + within
    }

    /// Both Fenwick trees and the room rebuilt from the chunks, after a
    /// split, a merge or a chunk's removal.
    fn rebuild(&mut self) {
        self.lengths = Fenwick::of(self.chunks.iter().map(Vec::len));
        self.weights = Fenwick::of(self.chunks.iter().map(|chunk| chunk_weight(chunk)));
        self.room = self.chunks.iter().map(Vec::capacity).sum();
    }

    /// Adds `value` where `by` finds its place; false (and nothing
    /// changes) when `by` finds an equal element.
    pub fn insert_by(&mut self, value: T, by: impl Fn(&T) -> Ordering) -> bool {
        let found = self.find_by(by);
        self.insert_found(found, value)
    }

    /// Adds `value` where [`Ranked::find_by`] found its place.
    fn insert_found(&mut self, found: Option<(usize, Result<usize, usize>)>, value: T) -> bool {
        let Some((mut chunk, found)) = found else {
            self.chunks.push(vec![value]);
            self.len = 1;
            self.rebuild();
            return true;
        };
        let Err(mut at) = found else {
            return false;
        };
        // Split a full chunk before inserting, so that no chunk's Vec grows
        // past MAX_CHUNK slots.
        if self.chunks[chunk].len() == MAX_CHUNK {
            let right = self.chunks[chunk].split_off(MAX_CHUNK / 2);
            self.chunks[chunk].shrink_to_fit();
            self.chunks.insert(chunk + 1, right);
            if at > MAX_CHUNK / 2 {
                chunk += 1;
                at -= MAX_CHUNK / 2;
            }
            self.chunks[chunk].insert(at, value);
            self.rebuild();
        } else {
            self.weights.add(chunk, value.weight() as isize);
            let before = self.chunks[chunk].capacity();
            self.chunks[chunk].insert(at, value);
            self.room += self.chunks[chunk].capacity() - before;
            self.lengths.add(chunk, 1);
        }
        self.len += 1;
        true
    }

    /// Removes the element `by` finds and answers it.
    pub fn remove_by(&mut self, by: impl Fn(&T) -> Ordering) -> Option<T> {
        let Some((chunk, Ok(at))) = self.find_by(by) else {
            return None;
        };
        let removed = self.chunks[chunk].remove(at);
        self.len -= 1;
        let left = self.chunks[chunk].len();
        if left == 0 {
            self.chunks.remove(chunk);
            self.rebuild();
        } else if left < MIN_CHUNK && self.chunks.len() > 1 {
            self.merge(chunk);
        } else {
            let before = self.chunks[chunk].capacity();
            if left * 4 < before {
                self.chunks[chunk].shrink_to(left * 2);
                self.room -= before - self.chunks[chunk].capacity();
            }
            self.lengths.add(chunk, -1);
            self.weights.add(chunk, -(removed.weight() as isize));
        }
        Some(removed)
    }

    /// Merges the short chunk `chunk` with a neighbour, split again in
    /// halves when the two are more than a chunk holds.
    fn merge(&mut self, chunk: usize) {
        let left = if chunk + 1 < self.chunks.len() {
            chunk
        } else {
            chunk - 1
        };
        let mut right = self.chunks.remove(left + 1);
        let merged = &mut self.chunks[left];
        merged.append(&mut right);
        if merged.len() > MAX_CHUNK {
            let half = merged.split_off(merged.len() / 2);
            merged.shrink_to_fit();
            self.chunks.insert(left + 1, half);
        }
        self.rebuild();
    }

    /// The chunk where the element `by` finds is or would go, and its
    /// position there (as `binary_search_by` answers); None when the
    /// sequence is empty.
    fn find_by(&self, by: impl Fn(&T) -> Ordering) -> Option<(usize, Result<usize, usize>)> {
        if self.chunks.is_empty() {
            return None;
        }
        let chunk = self
            .chunks
            .partition_point(|c| by(last(c)).is_lt())
            .min(self.chunks.len() - 1);
        Some((chunk, self.chunks[chunk].binary_search_by(by)))
    }
}

fn chunk_weight<T: Weighted>(chunk: &[T]) -> usize {
    chunk.iter().map(|element| element.weight() as usize).sum()
}

fn last<T>(chunk: &[T]) -> &T {
    chunk.last().expect("chunks are never empty")
}

/// A Fenwick (binary indexed) tree of chunk lengths (or weights). By hand: it is a dozen
/// lines, and the crates that offer one add nothing these need.
#[derive(Debug, Default)]
struct Fenwick {
    /// `tree[i - 1]` holds the sum of the `i & -i` lengths ending at chunk
    /// `i - 1`.
    tree: Vec<usize>,
}

impl Fenwick {
    /// Built in O(c) from the chunks' lengths (or weights).
    fn of(values: impl Iterator<Item = usize>) -> Fenwick {
        let mut tree: Vec<usize> = values.collect();
        for i in 1..=tree.len() {
            let parent = i + (i & i.wrapping_neg());
            if parent <= tree.len() {
                tree[parent - 1] += tree[i - 1];
            }
        }
        Fenwick { tree }
    }

    fn add(&mut self, chunk: usize, delta: isize) {
        let mut i = chunk + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] = self.tree[i - 1].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// The total length of the chunks before `chunk`.
    fn prefix(&self, chunk: usize) -> usize {
        let mut sum = 0;
        let mut i = chunk;
        while i > 0 {
            sum += self.tree[i - 1];
            i -= i & i.wrapping_neg();
        }
        sum
    }

    /// The chunk holding `index` and the position in it; `index` must be
    /// below the total length.
    fn locate(&self, mut index: usize) -> (usize, usize) {
        let mut chunk = 0;
        let mut step = self.tree.len().checked_ilog2().map_or(0, |b| 1 << b);
        while step > 0 {
            let next = chunk + step;
            if next <= self.tree.len() && self.tree[next - 1] <= index {
                chunk = next;
                index -= self.tree[next - 1];
            }
            step >>= 1;
        }
        (chunk, index)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    /// Uneven weights, so a range's weight depends on which elements it holds.
    impl Weighted for u16 {
        fn weight(&self) -> u64 {
            u64::from(self % 10) + 1
        }
    }

    fn assert_shape(ranked: &Ranked<u16>) {
        let mut total = 0;
        for (i, chunk) in ranked.chunks.iter().enumerate() {
            assert!(!chunk.is_empty());
            assert!(chunk.len() <= MAX_CHUNK);
            if ranked.chunks.len() > 1 {
                assert!(chunk.len() >= MIN_CHUNK, "chunk {i} of {}", chunk.len());
            }
            assert!(chunk.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(ranked.lengths.prefix(i), total);
            let weight: usize = ranked.chunks[..i].iter().map(|c| chunk_weight(c)).sum();
            assert_eq!(ranked.weights.prefix(i), weight);
            total += chunk.len();
        }
        assert_eq!(total, ranked.len());
        let room: usize = ranked.chunks.iter().map(Vec::capacity).sum();
        assert_eq!(ranked.room, room);
        for pair in ranked.chunks.windows(2) {
            assert!(last(&pair[0]) < &pair[1][0]);
        }
    }

    #[test]
    fn empty_answers_nothing() {
        let ranked: Ranked<u16> = Ranked::default();
        assert_eq!(ranked.len(), 0);
        assert_eq!(ranked.rank(&1), None);
        assert_eq!(ranked.count_below(|_| true), 0);
        assert_eq!(ranked.range(0, 10).count(), 0);
        assert_eq!(ranked.weight(0, 10), 0);
    }

    proptest! {
        /// Against a BTreeSet: thousands of inserts (so chunks split), then
        /// removals (so they merge), checking the shape, every rank, ranges
        /// both ways, their weights and counts.
        #[test]
        fn agrees_with_a_btree_set(
            inserts in prop::collection::vec(0u16..4000, 0..3000),
            removes in prop::collection::vec(0u16..4000, 0..3000),
            probes in prop::collection::vec((0usize..3100, 0usize..3100, 0u16..4000), 8),
        ) {
            let mut ranked = Ranked::default();
            let mut model = BTreeSet::new();
            for value in inserts {
                prop_assert_eq!(ranked.insert(value), model.insert(value));
            }
            assert_shape(&ranked);
            let check = |ranked: &Ranked<u16>, model: &BTreeSet<u16>| -> Result<(), TestCaseError> {
                let all: Vec<u16> = model.iter().copied().collect();
                prop_assert_eq!(ranked.iter().copied().collect::<Vec<_>>(), all.clone());
                for (start, end, bound) in &probes {
                    let want: Vec<u16> = all.iter().copied().skip(*start).take(end.saturating_sub(*start)).collect();
                    prop_assert_eq!(ranked.range(*start, *end).copied().collect::<Vec<_>>(), want.clone());
                    prop_assert_eq!(ranked.weight(*start, *end), want.iter().map(Weighted::weight).sum::<u64>());
                    let back: Vec<u16> = want.into_iter().rev().collect();
                    prop_assert_eq!(ranked.range(*start, *end).rev().copied().collect::<Vec<_>>(), back);
                    prop_assert_eq!(ranked.count_below(|v| v < bound), model.range(..*bound).count());
                    prop_assert_eq!(ranked.rank(bound), model.contains(bound).then(|| model.range(..*bound).count()));
                }
                Ok(())
            };
            check(&ranked, &model)?;
            for value in removes {
                prop_assert_eq!(ranked.remove(&value), model.remove(&value));
            }
            assert_shape(&ranked);
            check(&ranked, &model)?;
            for (i, value) in model.iter().enumerate() {
                prop_assert_eq!(ranked.rank(value), Some(i));
            }
        }
    }
}
