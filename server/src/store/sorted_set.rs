//! Sorted sets in the embedded store: a hash map from value to score, for
//! the score of a value in O(1), beside an order-statistic sequence of
//! (score, value) in the set's order ([`Ranked`]), for positions and ordered
//! walks both ways. Both share each value's bytes (a `Bytes` clone), and
//! every change keeps the two and the cost in step.
//!
//! What each call costs, for a set of n elements (none walks what it does
//! not answer):
//! - Put: O(k log n) for k elements; Increment: O(log n).
//! - GetScore: O(k) for k values; Length: O(1).
//! - Fetch by index or by score: O(log n + m) for m answered, wherever the
//!   range starts (the offset of a fetch by score is skipped by position);
//!   past `INLINE_FETCH_ELEMENTS` the copy runs on tokio's blocking pool.
//! - GetRank: O(log n). LengthByScore: O(log n).
//! - Remove: O(k log n); UnionStore: O(total elements of the sources, a
//!   source named twice counted twice), at most `--max-collection-elements`.
//!
//! Every method checks what can fail before it changes anything, so a
//! refused call leaves the set as it was.

use std::cmp::Ordering;
use std::future::{ready, Future};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hashbrown::HashMap;

use super::answer::{repeated_len, AnswerSize, Copier, Kept, Reserved};
use super::cost::{part_cost, shrunk_room, SHARED_HEADER, SORTED_SET_ELEMENT_OVERHEAD};
use super::dictionary::on_blocking_pool;
use super::ranked::{Ranked, Weighted};
use super::{CacheId, Store};
use crate::backend::{
    canonical, union, CollectionTtl, ScoreBound, ScoreRange, ScoredValue, SortOrder,
    SortedSetRange, SortedSetRemove, SortedSetStorage, SortedSetUnion,
};
use crate::error::Error;

/// Past this many elements a fetch is copied on tokio's blocking pool, as
/// a dictionary's is past as many fields.
const INLINE_FETCH_ELEMENTS: usize = 4096;

/// The charge of one element holding `value`: its bytes once (shared by
/// both structures) and a slot in each, a hash-map entry and a chunk slot.
fn element_cost(value: &[u8]) -> u64 {
    part_cost(value.len()) + SHARED_HEADER + SORTED_SET_ELEMENT_OVERHEAD
}

/// The bytes one element takes in a SortedSetFetch answer of values alone;
/// with scores it takes more, so this is the answer's size, or a few bytes
/// per element under it (see `store/answer.rs`).
fn element_encoded_len(value: &[u8]) -> u64 {
    repeated_len(value.len())
}

/// What one element adds to what a set keeps: its charge, and its size in
/// a fetch of all of it.
fn element_kept(value: &[u8]) -> Kept {
    Kept {
        cost: element_cost(value),
        encoded: element_encoded_len(value),
    }
}

/// A key of the order: the score, then the value. `Low` and `High` are
/// never stored: they bound a range of scores, before and after every value
/// of their score.
#[derive(Clone, Debug)]
struct Key {
    score: f64,
    tail: Tail,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tail {
    Low,
    Value(Bytes),
    High,
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    /// Scores are finite and never -0.0 (see `backend::sorted_set`), so
    /// `total_cmp` is the numeric order.
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| self.tail.cmp(&other.tail))
    }
}

/// The order's weights are the elements' sizes in a fetch's answer, so
/// that a range's size is known before it is copied.
impl Weighted for Key {
    fn weight(&self) -> u64 {
        match &self.tail {
            Tail::Value(value) => element_encoded_len(value),
            Tail::Low | Tail::High => 0,
        }
    }
}

impl Key {
    fn element(value: &Bytes, score: f64) -> Key {
        Key {
            score,
            tail: Tail::Value(value.clone()),
        }
    }

    fn value(&self) -> &Bytes {
        match &self.tail {
            Tail::Value(value) => value,
            Tail::Low | Tail::High => unreachable!("bounds are never stored"),
        }
    }

    fn scored(&self) -> ScoredValue {
        (self.value().clone(), self.score)
    }
}

#[derive(Debug, Default)]
pub struct SortedSetValue {
    scores: HashMap<Bytes, f64>,
    order: Ranked<Key>,
    /// The sums of [`element_kept`] over the elements.
    kept: Kept,
}

impl SortedSetValue {
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    pub fn cost(&self) -> u64 {
        self.kept.cost
    }

    /// Sets the score of each value (the last wins for a value given
    /// twice); answers the length after, or [`Error::CollectionTooLarge`]
    /// and changes nothing when it would be over `max_len`.
    pub fn put(&mut self, elements: Vec<ScoredValue>, max_len: usize) -> Result<usize, Error> {
        let added = {
            let mut new: hashbrown::HashSet<&Bytes> = hashbrown::HashSet::new();
            for (value, _) in &elements {
                if !self.scores.contains_key(value) {
                    new.insert(value);
                }
            }
            new.len()
        };
        let len = self.len() + added;
        if len > max_len {
            return Err(Error::CollectionTooLarge {
                elements: len,
                limit: max_len,
            });
        }
        for (value, score) in elements {
            self.set(value, score);
        }
        Ok(len)
    }

    /// Adds `amount` to the score of `value` (absent: 0); answers the new
    /// score. Refused, changing nothing, when the sum is not finite or a
    /// new value would take the set over `max_len`.
    pub fn increment(&mut self, value: Bytes, amount: f64, max_len: usize) -> Result<f64, Error> {
        let held = self.scores.get(&value).copied();
        let score = canonical(held.unwrap_or(0.0) + amount);
        if !score.is_finite() {
            return Err(Error::ScoreNotFinite);
        }
        if held.is_none() && self.len() + 1 > max_len {
            return Err(Error::CollectionTooLarge {
                elements: self.len() + 1,
                limit: max_len,
            });
        }
        self.set(value, score);
        Ok(score)
    }

    /// Makes the set hold exactly `elements` (distinct values); answers
    /// its length, or [`Error::CollectionTooLarge`] and changes nothing.
    pub fn replace(&mut self, elements: Vec<ScoredValue>, max_len: usize) -> Result<usize, Error> {
        if elements.len() > max_len {
            return Err(Error::CollectionTooLarge {
                elements: elements.len(),
                limit: max_len,
            });
        }
        // A fresh table rather than a cleared one, which would keep the
        // room of a larger set replaced by a smaller one.
        self.scores = HashMap::with_capacity(elements.len());
        self.order.clear();
        self.kept = Kept::default();
        for (value, score) in elements {
            self.set(value, score);
        }
        Ok(self.len())
    }

    pub fn score(&self, value: &[u8]) -> Option<f64> {
        self.scores.get(value).copied()
    }

    /// Every element, ascending.
    pub fn elements(&self) -> Vec<ScoredValue> {
        self.order.iter().map(Key::scored).collect()
    }

    pub fn fetch(&self, range: SortedSetRange, order: SortOrder) -> Vec<ScoredValue> {
        let (start, end) = self.answered(range, order);
        self.copy(start, end, order)
    }

    /// The bytes of the elements of a fetch's answer at ascending positions
    /// `start..end`: O(1) for the whole set, else O(log n) and a walk of at
    /// most two of the order's chunks.
    fn encoded_len(&self, start: usize, end: usize) -> u64 {
        if start == 0 && end >= self.len() {
            return self.kept.encoded;
        }
        self.order.weight(start, end)
    }

    /// The ascending positions `start..end` a fetch answers, in O(log n);
    /// `order` only says which way they are walked.
    fn answered(&self, range: SortedSetRange, order: SortOrder) -> (usize, usize) {
        let len = self.len();
        match range {
            SortedSetRange::ByIndex { start, end } => {
                let bounds = SortedSetRange::index_bounds(start, end, len);
                match order {
                    SortOrder::Ascending => (bounds.start, bounds.end),
                    SortOrder::Descending => (len - bounds.end, len - bounds.start),
                }
            }
            SortedSetRange::ByScore {
                scores,
                offset,
                count,
            } => {
                let (low, high) = self.positions(scores);
                let count = count.map_or(usize::MAX, |c| c as usize);
                let offset = offset as usize;
                match order {
                    SortOrder::Ascending => {
                        let start = low.saturating_add(offset).min(high);
                        (start, start.saturating_add(count).min(high))
                    }
                    SortOrder::Descending => {
                        let end = high.saturating_sub(offset).max(low);
                        (end.saturating_sub(count).max(low), end)
                    }
                }
            }
        }
    }

    /// The elements at ascending positions `start..end`, walked in `order`.
    fn copy(&self, start: usize, end: usize, order: SortOrder) -> Vec<ScoredValue> {
        let range = self.order.range(start, end);
        let mut copier = Copier::of(range.clone().map(Key::value));
        let copy = |key: &Key| (copier.copy(key.value()), key.score);
        match order {
            SortOrder::Ascending => range.map(copy).collect(),
            SortOrder::Descending => range.rev().map(copy).collect(),
        }
    }

    pub fn rank(&self, value: &[u8], order: SortOrder) -> Option<u64> {
        let score = self.score(value)?;
        let key = Key::element(&Bytes::copy_from_slice(value), score);
        let rank = self.order.rank(&key)?;
        Some(match order {
            SortOrder::Ascending => rank,
            SortOrder::Descending => self.order.len() - 1 - rank,
        } as u64)
    }

    pub fn count(&self, scores: ScoreRange) -> usize {
        let (low, high) = self.positions(scores);
        high - low
    }

    /// Removes the values named, or all; answers the length after.
    pub fn remove(&mut self, remove: &SortedSetRemove) -> usize {
        match remove {
            SortedSetRemove::All => {
                self.scores = HashMap::new();
                self.order.clear();
                self.kept = Kept::default();
            }
            SortedSetRemove::Values(values) => {
                for value in values {
                    if let Some((value, score)) = self.scores.remove_entry(&value[..]) {
                        self.order.remove(&Key::element(&value, score));
                        self.kept -= element_kept(&value);
                    }
                }
                // As a dictionary's table (see `dictionary::shrink`).
                if let Some(room) = shrunk_room(self.scores.len(), self.scores.capacity()) {
                    self.scores.shrink_to(room);
                }
            }
        }
        self.len()
    }

    /// The ascending positions `low..high` of the elements with a score in
    /// `scores`, in O(log n). A bound of -0.0 is 0.0 here, as stored scores
    /// are, so it compares as a number does. A range the wrong way round
    /// (refused by the handler, or empty by exclusion) holds none.
    fn positions(&self, scores: ScoreRange) -> (usize, usize) {
        let bound = |score: f64, tail: Tail| Key {
            score: canonical(score),
            tail,
        };
        // The first position in the range, and the first past it.
        let low = match scores.min {
            ScoreBound::Unbounded => 0,
            ScoreBound::Inclusive(min) => self.below(&bound(min, Tail::Low)),
            ScoreBound::Exclusive(min) => self.below(&bound(min, Tail::High)),
        };
        let high = match scores.max {
            ScoreBound::Unbounded => self.len(),
            ScoreBound::Inclusive(max) => self.below(&bound(max, Tail::High)),
            ScoreBound::Exclusive(max) => self.below(&bound(max, Tail::Low)),
        };
        (low, high.max(low))
    }

    /// How many elements order before `bound`.
    fn below(&self, bound: &Key) -> usize {
        self.order.count_below(|key| key < bound)
    }

    fn set(&mut self, value: Bytes, score: f64) {
        let score = canonical(score);
        match self.scores.get_mut(&value) {
            Some(held) => {
                if *held != score {
                    self.order.remove(&Key::element(&value, *held));
                    *held = score;
                    self.order.insert(Key::element(&value, score));
                }
            }
            None => {
                self.kept += element_kept(&value);
                self.order.insert(Key::element(&value, score));
                self.scores.insert(value, score);
            }
        }
    }
}

impl SortedSetStorage for Arc<Store> {
    fn sorted_set_put(
        &self,
        cache: &CacheId,
        key: &[u8],
        elements: Vec<ScoredValue>,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<usize, Error>> + Send {
        // Copied before the lock, as the list's values are.
        let elements: Vec<ScoredValue> = elements
            .into_iter()
            .map(|(value, score)| (Bytes::copy_from_slice(&value), score))
            .collect();
        let growth = elements.iter().map(|(value, _)| element_cost(value)).sum();
        let put = self.grow(
            *cache,
            key,
            Some(ttl),
            |_| growth,
            |set: &mut SortedSetValue| set.put(elements, max_len),
        );
        ready(put.map(Option::unwrap_or_default))
    }

    fn sorted_set_fetch(
        &self,
        cache: &CacheId,
        key: &[u8],
        range: SortedSetRange,
        order: SortOrder,
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<ScoredValue>>, Error>> + Send {
        let (store, cache, key) = (self.clone(), *cache, Bytes::copy_from_slice(key));
        async move {
            let size = move |set: &SortedSetValue| {
                let (start, end) = set.answered(range, order);
                let encoded = set.encoded_len(start, end);
                AnswerSize::of_range::<ScoredValue>(encoded, end - start, set.len())
            };
            let small = |set: &SortedSetValue| {
                let (start, end) = set.answered(range, order);
                (end - start <= INLINE_FETCH_ELEMENTS).then(|| set.copy(start, end, order))
            };
            let mut reserved = Reserved::default();
            match store.read_answer(&mut reserved, cache, &key, max_answer, size, small)? {
                None => Ok(None),
                Some(Some(elements)) => Ok(Some(elements)),
                // As a large dictionary's fetch (see `on_blocking_pool`),
                // sized again: the set may have grown in between.
                Some(None) => {
                    let fetch = move || {
                        let copy = |set: &SortedSetValue| set.fetch(range, order);
                        store.read_answer(&mut reserved, cache, &key, max_answer, size, copy)
                    };
                    on_blocking_pool(fetch).await
                }
            }
        }
    }

    fn sorted_set_get_scores(
        &self,
        cache: &CacheId,
        key: &[u8],
        values: &[Bytes],
    ) -> impl Future<Output = Result<Option<Vec<Option<f64>>>, Error>> + Send {
        ready(self.read(*cache, key, |set: &SortedSetValue| {
            values.iter().map(|value| set.score(value)).collect()
        }))
    }

    fn sorted_set_get_rank(
        &self,
        cache: &CacheId,
        key: &[u8],
        value: &[u8],
        order: SortOrder,
    ) -> impl Future<Output = Result<Option<Option<u64>>, Error>> + Send {
        ready(self.read(*cache, key, |set: &SortedSetValue| set.rank(value, order)))
    }

    fn sorted_set_increment(
        &self,
        cache: &CacheId,
        key: &[u8],
        value: Bytes,
        amount: f64,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<f64, Error>> + Send {
        let value = Bytes::copy_from_slice(&value);
        let growth = element_cost(&value);
        let score = self.grow(
            *cache,
            key,
            Some(ttl),
            |_| growth,
            |set: &mut SortedSetValue| set.increment(value, amount, max_len),
        );
        ready(score.map(Option::unwrap_or_default))
    }

    fn sorted_set_remove(
        &self,
        cache: &CacheId,
        key: &[u8],
        remove: &SortedSetRemove,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.write(*cache, key, None, |set: &mut SortedSetValue| {
            Ok(set.remove(remove))
        }))
    }

    fn sorted_set_length(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.read(*cache, key, SortedSetValue::len))
    }

    fn sorted_set_length_by_score(
        &self,
        cache: &CacheId,
        key: &[u8],
        range: ScoreRange,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.read(*cache, key, |set: &SortedSetValue| set.count(range)))
    }

    fn sorted_set_union_store(
        &self,
        cache: &CacheId,
        key: &[u8],
        spec: &SortedSetUnion,
        ttl: Duration,
        max_len: usize,
    ) -> impl Future<Output = Result<usize, Error>> + Send {
        ready(union_store(self, *cache, key, spec, ttl, max_len))
    }
}

/// Reads each source under its own shard's lock, in the request's order,
/// then writes the destination under its own: not one atomic step.
///
/// A source named more than once is read (copied) once and its elements
/// added once per naming, so the answer is exactly the unfolded union's.
/// The work is counted before any source is copied: the sources' lengths,
/// each naming counted, at most `max_len` ([`Error::UnionTooLarge`]).
/// Past [`UNION_INLINE_ELEMENTS`] the union runs with its worker handed
/// over to the runtime's other tasks (`block_in_place`): a union of a
/// million elements takes tens of milliseconds, which calls queued on that
/// worker would otherwise wait for.
fn union_store(
    store: &Store,
    cache: CacheId,
    key: &[u8],
    spec: &SortedSetUnion,
    ttl: Duration,
    max_len: usize,
) -> Result<usize, Error> {
    let mut distinct: Vec<&Bytes> = Vec::new();
    let mut slot_of: hashbrown::HashMap<&Bytes, usize> = hashbrown::HashMap::new();
    let slots: Vec<usize> = spec
        .sources
        .iter()
        .map(|(name, _)| {
            *slot_of.entry(name).or_insert_with(|| {
                distinct.push(name);
                distinct.len() - 1
            })
        })
        .collect();
    let mut lengths = Vec::with_capacity(distinct.len());
    for name in &distinct {
        let length = store.read(cache, name, SortedSetValue::len)?;
        lengths.push(length.unwrap_or_default());
    }
    let work = slots.iter().map(|&slot| lengths[slot]).sum::<usize>();
    if work > max_len {
        return Err(Error::UnionTooLarge {
            elements: work,
            limit: max_len,
        });
    }
    let run = || {
        let mut read = Vec::with_capacity(distinct.len());
        for name in &distinct {
            let elements = store
                .read(cache, name, SortedSetValue::elements)?
                .unwrap_or_default();
            read.push(elements);
        }
        let sources = spec
            .sources
            .iter()
            .zip(&slots)
            .map(|((_, weight), &slot)| (*weight, &read[slot][..]));
        let elements = union(sources, spec.aggregate)?;
        let ttl = CollectionTtl { ttl, refresh: true };
        let stored = store.write(cache, key, Some(ttl), |set: &mut SortedSetValue| {
            set.replace(elements, max_len)
        })?;
        Ok(stored.unwrap_or_default())
    };
    let on_workers = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    if work > UNION_INLINE_ELEMENTS && on_workers {
        tokio::task::block_in_place(run)
    } else {
        run()
    }
}

/// A union reading more source elements than this hands its worker over
/// while it runs (about a millisecond of work).
const UNION_INLINE_ELEMENTS: usize = 10_000;

#[cfg(test)]
mod tests {
    use super::*;

    const NO_LIMIT: usize = usize::MAX;

    fn set(pairs: &[(&str, f64)]) -> SortedSetValue {
        let mut set = SortedSetValue::default();
        set.put(elements(pairs), NO_LIMIT).unwrap();
        set
    }

    fn elements(pairs: &[(&str, f64)]) -> Vec<ScoredValue> {
        pairs
            .iter()
            .map(|(v, s)| (Bytes::copy_from_slice(v.as_bytes()), *s))
            .collect()
    }

    fn names(elements: &[ScoredValue]) -> Vec<String> {
        elements
            .iter()
            .map(|(v, _)| String::from_utf8(v.to_vec()).unwrap())
            .collect()
    }

    fn assert_consistent(set: &SortedSetValue) {
        assert_eq!(set.scores.len(), set.order.len());
        let kept: Kept = set.scores.keys().map(|v| element_kept(v)).sum();
        assert_eq!(set.kept, kept);
        assert_eq!(set.order.weight(0, set.len()), kept.encoded);
        for key in set.order.iter() {
            let (value, score) = key.scored();
            assert_eq!(set.scores[&value], score);
        }
    }

    /// The set of the official suites' examples.
    fn menu() -> SortedSetValue {
        set(&[
            ("bam", 1000.0),
            ("foo", 1.0),
            ("taco", 90210.0),
            ("bar", 2.0),
            ("burrito", 9000.0),
            ("baz", 42.0),
            ("habanero", 68.0),
            ("jalapeno", 1_000_000.0),
        ])
    }

    fn by_index(start: Option<i32>, end: Option<i32>) -> SortedSetRange {
        SortedSetRange::ByIndex { start, end }
    }

    fn by_score(
        min: ScoreBound,
        max: ScoreBound,
        offset: u32,
        count: Option<u32>,
    ) -> SortedSetRange {
        SortedSetRange::ByScore {
            scores: ScoreRange { min, max },
            offset,
            count,
        }
    }

    #[test]
    fn fetch_by_index_both_ways() {
        let s = menu();
        let asc = |start, end| names(&s.fetch(by_index(start, end), SortOrder::Ascending));
        let desc = |start, end| names(&s.fetch(by_index(start, end), SortOrder::Descending));
        assert_eq!(asc(Some(4), None), ["bam", "burrito", "taco", "jalapeno"]);
        assert_eq!(asc(None, Some(3)), ["foo", "bar", "baz"]);
        assert_eq!(asc(Some(1), Some(5)), ["bar", "baz", "habanero", "bam"]);
        assert!(asc(Some(10), None).is_empty());
        assert_eq!(asc(Some(-5), Some(-2)), ["habanero", "bam", "burrito"]);
        assert_eq!(desc(Some(5), None), ["baz", "bar", "foo"]);
        assert_eq!(desc(None, Some(3)), ["jalapeno", "taco", "burrito"]);
        assert_eq!(desc(Some(3), Some(5)), ["bam", "habanero"]);
    }

    #[test]
    fn fetch_by_score_with_offset_and_count() {
        use ScoreBound::*;
        let s = menu();
        let fetch = |range, order| names(&s.fetch(range, order));
        let asc = SortOrder::Ascending;
        assert_eq!(
            fetch(by_score(Inclusive(100.0), Unbounded, 0, None), asc),
            ["bam", "burrito", "taco", "jalapeno"]
        );
        assert_eq!(
            fetch(by_score(Inclusive(10.0), Unbounded, 2, Some(3)), asc),
            ["bam", "burrito", "taco"]
        );
        assert_eq!(
            fetch(
                by_score(Inclusive(20.0), Inclusive(100_000.0), 2, Some(2)),
                SortOrder::Descending
            ),
            ["bam", "habanero"]
        );
        assert_eq!(
            fetch(by_score(Exclusive(2.0), Exclusive(1000.0), 0, None), asc),
            ["baz", "habanero"]
        );
        assert!(fetch(by_score(Inclusive(2e6), Unbounded, 0, None), asc).is_empty());
        assert!(fetch(by_score(Exclusive(1.0), Exclusive(1.0), 0, None), asc).is_empty());
        assert!(fetch(by_score(Inclusive(5.0), Inclusive(1.0), 0, None), asc).is_empty());
        assert_eq!(
            s.count(ScoreRange {
                min: Inclusive(2.0),
                max: Inclusive(68.0)
            }),
            3
        );
    }

    #[test]
    fn ties_order_by_value_bytes_and_rank_counts_them() {
        let s = set(&[("b", 1.0), ("a", 1.0), ("c", 0.5), ("d", 1.0)]);
        assert_eq!(
            names(&s.fetch(by_index(None, None), SortOrder::Ascending)),
            ["c", "a", "b", "d"]
        );
        assert_eq!(s.rank(b"a", SortOrder::Ascending), Some(1));
        assert_eq!(s.rank(b"a", SortOrder::Descending), Some(2));
        assert_eq!(s.rank(b"d", SortOrder::Descending), Some(0));
        assert_eq!(s.rank(b"zz", SortOrder::Ascending), None);
    }

    #[test]
    fn put_replaces_scores_and_the_last_of_a_value_wins() {
        let mut s = set(&[("a", 1.0), ("b", 2.0)]);
        assert_eq!(
            s.put(elements(&[("a", 5.0), ("c", 0.0), ("c", 3.0)]), NO_LIMIT),
            Ok(3)
        );
        assert_eq!(s.score(b"a"), Some(5.0));
        assert_eq!(s.score(b"c"), Some(3.0));
        assert_consistent(&s);
        assert_eq!(
            s.put(elements(&[("a", 0.0), ("d", 1.0), ("e", 1.0)]), 4),
            Err(Error::CollectionTooLarge {
                elements: 5,
                limit: 4
            })
        );
        assert_eq!(s.score(b"a"), Some(5.0));
        assert_consistent(&s);
    }

    #[test]
    fn increment_counts_absent_as_zero_and_refuses_overflow() {
        let mut s = set(&[("a", 1.0)]);
        assert_eq!(
            s.increment(Bytes::from_static(b"a"), 2.5, NO_LIMIT),
            Ok(3.5)
        );
        assert_eq!(
            s.increment(Bytes::from_static(b"b"), -1.0, NO_LIMIT),
            Ok(-1.0)
        );
        assert_eq!(
            s.increment(Bytes::from_static(b"c"), 1.0, 2),
            Err(Error::CollectionTooLarge {
                elements: 3,
                limit: 2
            })
        );
        s.put(elements(&[("big", f64::MAX)]), NO_LIMIT).unwrap();
        assert_eq!(
            s.increment(Bytes::from_static(b"big"), f64::MAX, NO_LIMIT),
            Err(Error::ScoreNotFinite)
        );
        assert_eq!(s.score(b"big"), Some(f64::MAX));
        assert_consistent(&s);
    }

    #[test]
    fn remove_some_or_all() {
        let mut s = menu();
        let values = vec![Bytes::from_static(b"foo"), Bytes::from_static(b"nope")];
        assert_eq!(s.remove(&SortedSetRemove::Values(values)), 7);
        assert_eq!(s.score(b"foo"), None);
        assert_consistent(&s);
        assert_eq!(s.remove(&SortedSetRemove::All), 0);
        assert_eq!(s.cost(), 0);
        assert_eq!(s.order.len(), 0);
    }

    /// Grown to 10,000 elements and cut to 3 (by removals, or replaced by a
    /// union of 3), a sorted set is charged for 3 and holds a table for a
    /// few, not the 10,000's.
    #[test]
    fn a_sorted_set_cut_to_a_few_elements_gives_its_table_back() {
        let value = |i: usize| Bytes::from(format!("value-{i}"));
        let grown = || {
            let mut s = SortedSetValue::default();
            let elements = (0..10_000).map(|i| (value(i), i as f64)).collect();
            s.put(elements, NO_LIMIT).unwrap();
            assert!(s.scores.capacity() >= 10_000);
            s
        };
        let mut removed = grown();
        let full = removed.cost();
        removed.remove(&SortedSetRemove::Values((3..10_000).map(value).collect()));
        let mut replaced = grown();
        let few = (0..3).map(|i| (value(i), 1.0)).collect();
        replaced.replace(few, NO_LIMIT).unwrap();
        for s in [removed, replaced] {
            assert_eq!(s.len(), 3);
            assert_consistent(&s);
            assert_eq!(s.cost() * 10_000, full * 3);
            assert!(s.scores.capacity() < 16, "room for {}", s.scores.capacity());
        }
    }

    #[test]
    fn minus_zero_is_zero() {
        let s = set(&[("a", -0.0), ("b", 0.0)]);
        assert_eq!(s.score(b"a").unwrap().to_bits(), 0.0f64.to_bits());
        assert_eq!(
            names(&s.fetch(by_index(None, None), SortOrder::Ascending)),
            ["a", "b"]
        );
    }
    /// The structure against a plain model: a list of (value, score)
    /// sorted by score then value bytes, rebuilt by brute force each step.
    mod model {
        use proptest::prelude::*;

        use super::*;

        const VALUES: &[&[u8]] = &[b"", b"a", b"b", b"B", b"\xff", b"ab"];
        const SCORES: &[f64] = &[0.0, -0.0, 1.0, -1.0, 0.5, 1e300, f64::MAX, -f64::MAX];

        #[derive(Clone, Debug)]
        enum Op {
            Put(Vec<(usize, usize)>),
            Increment(usize, usize),
            Remove(Option<Vec<usize>>),
        }

        fn op() -> impl Strategy<Value = Op> {
            let value = 0..VALUES.len();
            prop_oneof![
                3 => prop::collection::vec((value.clone(), 0..SCORES.len()), 1..4).prop_map(Op::Put),
                2 => (value.clone(), 0..SCORES.len()).prop_map(|(v, a)| Op::Increment(v, a)),
                1 => prop::option::of(prop::collection::vec(value, 0..3)).prop_map(Op::Remove),
            ]
        }

        fn bound() -> impl Strategy<Value = ScoreBound> {
            prop_oneof![
                Just(ScoreBound::Unbounded),
                (0..SCORES.len()).prop_map(|s| ScoreBound::Inclusive(SCORES[s])),
                (0..SCORES.len()).prop_map(|s| ScoreBound::Exclusive(SCORES[s])),
            ]
        }

        fn sorted(model: &[(Bytes, f64)]) -> Vec<ScoredValue> {
            let mut all = model.to_vec();
            all.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
            all
        }

        proptest! {
            #[test]
            fn agrees_with_a_sorted_list(
                ops in prop::collection::vec(op(), 1..30),
                min in bound(),
                max in bound(),
                offset in 0..4u32,
                count in prop::option::of(0..4u32),
                start in prop::option::of(-8..8i32),
                end in prop::option::of(-8..8i32),
            ) {
                let mut set = SortedSetValue::default();
                let mut model: Vec<(Bytes, f64)> = Vec::new();
                for op in ops {
                    match op {
                        Op::Put(elements) => {
                            let elements: Vec<ScoredValue> = elements
                                .into_iter()
                                .map(|(v, s)| (Bytes::from_static(VALUES[v]), canonical(SCORES[s])))
                                .collect();
                            for (value, score) in &elements {
                                model.retain(|(v, _)| v != value);
                                model.push((value.clone(), *score));
                            }
                            prop_assert_eq!(set.put(elements, NO_LIMIT), Ok(model.len()));
                        }
                        Op::Increment(v, a) => {
                            let value = Bytes::from_static(VALUES[v]);
                            let held = model.iter().find(|(m, _)| *m == value).map(|(_, s)| *s);
                            let sum = canonical(held.unwrap_or(0.0) + SCORES[a]);
                            let answer = set.increment(value.clone(), canonical(SCORES[a]), NO_LIMIT);
                            if sum.is_finite() {
                                prop_assert_eq!(answer, Ok(sum));
                                model.retain(|(m, _)| *m != value);
                                model.push((value, sum));
                            } else {
                                prop_assert_eq!(answer, Err(Error::ScoreNotFinite));
                            }
                        }
                        Op::Remove(None) => {
                            model.clear();
                            prop_assert_eq!(set.remove(&SortedSetRemove::All), 0);
                        }
                        Op::Remove(Some(values)) => {
                            let values: Vec<Bytes> =
                                values.into_iter().map(|v| Bytes::from_static(VALUES[v])).collect();
                            model.retain(|(m, _)| !values.contains(m));
                            prop_assert_eq!(set.remove(&SortedSetRemove::Values(values)), model.len());
                        }
                    }
                    assert_consistent(&set);
                }
                let ascending = sorted(&model);
                prop_assert_eq!(set.elements(), ascending.clone());
                let descending: Vec<ScoredValue> = ascending.iter().rev().cloned().collect();
                for (i, (value, _)) in ascending.iter().enumerate() {
                    prop_assert_eq!(set.rank(value, SortOrder::Ascending), Some(i as u64));
                    let reversed = (ascending.len() - 1 - i) as u64;
                    prop_assert_eq!(set.rank(value, SortOrder::Descending), Some(reversed));
                }
                let scores = ScoreRange { min, max };
                let within: Vec<ScoredValue> =
                    ascending.iter().filter(|(_, s)| scores.contains(*s)).cloned().collect();
                prop_assert_eq!(set.count(scores), within.len());
                let count = count.filter(|c| *c > 0);
                for (order, all) in [(SortOrder::Ascending, &ascending), (SortOrder::Descending, &descending)] {
                    let picked: Vec<ScoredValue> = all
                        .iter()
                        .filter(|(_, s)| scores.contains(*s))
                        .skip(offset as usize)
                        .take(count.map_or(usize::MAX, |c| c as usize))
                        .cloned()
                        .collect();
                    let range = SortedSetRange::ByScore { scores, offset, count };
                    prop_assert_eq!(set.fetch(range, order), picked);
                    let bounds = SortedSetRange::index_bounds(start, end, all.len());
                    let range = SortedSetRange::ByIndex { start, end };
                    prop_assert_eq!(set.fetch(range, order), all[bounds].to_vec());
                }
            }
        }
    }

    /// The store charges a sorted set's elements, frees them with it, and
    /// a sorted set past its TTL is missing.
    #[tokio::test]
    async fn the_store_charges_and_frees_a_sorted_set() {
        let (store, c) = crate::store::tests::store_with(1 << 26);
        let ttl = crate::store::tests::MINUTE_TTL;
        let put = |values: &[(&str, f64)]| {
            store.sorted_set_put(&c, b"z", elements(values), ttl, NO_LIMIT)
        };
        assert_eq!(put(&[("a", 1.0), ("bb", 2.0)]).await, Ok(2));
        let two = store.stats().bytes;
        assert_eq!(put(&[("ccc", 3.0)]).await, Ok(3));
        let three = store.stats().bytes;
        assert_eq!(three - two, element_cost(b"ccc"));
        // A new score for a value held costs nothing more.
        assert_eq!(put(&[("a", 9.0)]).await, Ok(3));
        assert_eq!(store.stats().bytes, three);
        let all = SortedSetRemove::All;
        assert_eq!(store.sorted_set_remove(&c, b"z", &all).await, Ok(Some(0)));
        assert_eq!(store.stats().items, 0);
        assert_eq!(store.stats().bytes, 0);

        let short = CollectionTtl {
            ttl: Duration::from_millis(20),
            refresh: false,
        };
        let one = elements(&[("a", 1.0)]);
        store
            .sorted_set_put(&c, b"z", one, short, NO_LIMIT)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert_eq!(store.sorted_set_length(&c, b"z").await, Ok(None));
    }

    /// A fetch small enough to copy in place and one copied on the blocking
    /// pool answer alike, in order both ways.
    #[tokio::test]
    async fn small_and_large_fetches_answer_in_order() {
        let (store, c) = crate::store::tests::store_with(1 << 26);
        let ttl = crate::store::tests::MINUTE_TTL;
        let n = INLINE_FETCH_ELEMENTS + 1;
        let all: Vec<ScoredValue> = (0..n)
            .map(|i| (Bytes::from(format!("m{i:06}")), i as f64))
            .collect();
        store
            .sorted_set_put(&c, b"z", all.clone(), ttl, NO_LIMIT)
            .await
            .unwrap();
        let fetch =
            |end, order| store.sorted_set_fetch(&c, b"z", by_index(None, end), order, usize::MAX);
        let reversed: Vec<ScoredValue> = all.iter().rev().cloned().collect();
        assert_eq!(
            fetch(None, SortOrder::Ascending).await,
            Ok(Some(all.clone()))
        );
        assert_eq!(
            fetch(None, SortOrder::Descending).await,
            Ok(Some(reversed.clone()))
        );
        assert_eq!(
            fetch(Some(3), SortOrder::Ascending).await,
            Ok(Some(all[..3].to_vec()))
        );
        assert_eq!(
            fetch(Some(3), SortOrder::Descending).await,
            Ok(Some(reversed[..3].to_vec()))
        );
    }
}
