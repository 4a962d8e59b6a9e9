//! Sorted sets in the embedded store, in one of two forms:
//!
//! - **packed** (`sorted_small.rs`) while a set holds at most
//!   [`SMALL_MAX_ELEMENTS`] members of at most [`SMALL_MAX_MEMBER`] bytes:
//!   each member and its score in one buffer, in the set's order, walked
//!   for every call (as Redis's listpack encoding, with its 128 / 64);
//! - **large** (`sorted_large.rs`) past either bound: a hash map from member
//!   to score beside an order-statistic sequence of (score, member).
//!
//! A set is packed again once removals leave it at most
//! [`SMALL_MAX_ELEMENTS`] / 2 members, all short (the half, so that a set
//! at the bound does not convert both ways on every put and removal).
//!
//! What each call costs, for a set of n elements (none walks what it does
//! not answer; a packed set's n is at most 128, each call a walk of it):
//! - Put: O(k log n) for k elements; Increment: O(log n). A conversion
//!   between the forms is O(n), once per n / 2 changes at least.
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

use std::future::{ready, Future};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::answer::{repeated_len, AnswerSize, Copier, Reserved};
#[cfg(test)]
use super::cost::part_cost;
use super::dictionary::on_blocking_pool;
use super::sorted_large::Large;
use super::sorted_small::{packed_len, Small};
use super::{CacheId, Store};
use crate::backend::{
    canonical, union, CollectionTtl, ScoreBound, ScoreRange, ScoredValue, SortOrder,
    SortedSetRange, SortedSetRemove, SortedSetStorage, SortedSetUnion,
};
use crate::error::Error;

/// Past this many elements a fetch is copied on tokio's blocking pool, as
/// a dictionary's is past as many fields.
const INLINE_FETCH_ELEMENTS: usize = 4096;

/// The most members a packed set holds, and the longest member it takes
/// (Redis's `zset-max-listpack-entries` and `-value`): a walk of 128
/// elements of up to 64 bytes reads at most about 9 KiB, and no more than
/// a few hundred bytes at the sizes sorted sets usually hold.
pub const SMALL_MAX_ELEMENTS: usize = 128;
pub const SMALL_MAX_MEMBER: usize = 64;

/// At most what one element of `value` adds to the large form, for the
/// store's check before a write (what it is charged is what the structures
/// allocate, see `sorted_large.rs`): its entry in a page (score, length and
/// bytes), an index bucket (a slot and a control byte, at a load as low as
/// 7/16: 12), an order key (16 bytes, in chunks as little as half full:
/// 32) and an offset (4, in a vector half full: 8).
fn element_cost(value: &[u8]) -> u64 {
    (value.len() + LARGE_ELEMENT_OVERHEAD) as u64
}

const LARGE_ELEMENT_OVERHEAD: usize = 8 + 10 + 12 + 32 + 8;

/// The bytes one element takes in a SortedSetFetch answer of values alone;
/// with scores it takes more, so this is the answer's size, or a few bytes
/// per element under it (see `store/answer.rs`).
pub fn element_encoded_len(value: &[u8]) -> u64 {
    repeated_len(value.len())
}

/// Whether `len` members, the longest `longest` bytes, fit the packed form.
fn fits_small(len: usize, longest: usize) -> bool {
    len <= SMALL_MAX_ELEMENTS && longest <= SMALL_MAX_MEMBER
}

/// What a write adds, as [`SortedSetValue::growth`] reckons it before the
/// write, without holding on to the elements.
pub struct Adding {
    count: usize,
    longest: usize,
    /// Their charge in the large form.
    large: u64,
    /// At most the bytes they take packed (a score takes at most nine).
    packed: usize,
}

impl Adding {
    pub fn of<'a>(members: impl Iterator<Item = &'a [u8]>) -> Adding {
        let mut adding = Adding {
            count: 0,
            longest: 0,
            large: 0,
            packed: 0,
        };
        for member in members {
            adding.count += 1;
            adding.longest = adding.longest.max(member.len());
            adding.large += element_cost(member);
            adding.packed += packed_len(member, f64::MIN_POSITIVE);
        }
        adding
    }
}

#[derive(Debug)]
enum Form {
    Small(Small),
    /// Boxed, so that a packed set (the most common) keeps the item small.
    Large(Box<Large>),
}

#[derive(Debug)]
pub struct SortedSetValue(Form);

impl Default for SortedSetValue {
    fn default() -> Self {
        SortedSetValue(Form::Small(Small::default()))
    }
}

impl SortedSetValue {
    pub fn len(&self) -> usize {
        match &self.0 {
            Form::Small(small) => small.len(),
            Form::Large(large) => large.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn cost(&self) -> u64 {
        match &self.0 {
            Form::Small(small) => small.cost(),
            Form::Large(large) => large.cost(),
        }
    }

    /// At most what adding `adding` adds to [`Self::cost`], for the
    /// store's check before the write: every element counted as new, and
    /// a packed set that would convert counted whole in the large form.
    pub fn growth(&self, adding: &Adding) -> u64 {
        match &self.0 {
            Form::Large(_) => adding.large,
            Form::Small(small) if fits_small(small.len() + adding.count, adding.longest) => {
                small.growth(adding.packed)
            }
            Form::Small(small) => {
                let held = small.iter().map(|pair| element_cost(pair.member));
                adding.large + held.sum::<u64>()
            }
        }
    }

    /// Sets the score of each value (the last wins for a value given
    /// twice); answers the length after, or [`Error::CollectionTooLarge`]
    /// and changes nothing when it would be over `max_len`.
    pub fn put(&mut self, elements: Vec<ScoredValue>, max_len: usize) -> Result<usize, Error> {
        let added = {
            let mut new: hashbrown::HashSet<&Bytes> = hashbrown::HashSet::new();
            for (value, _) in &elements {
                if self.score(value).is_none() {
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
        for (value, score) in &elements {
            self.set(value, *score);
        }
        Ok(len)
    }

    /// Adds `amount` to the score of `value` (absent: 0); answers the new
    /// score. Refused, changing nothing, when the sum is not finite or a
    /// new value would take the set over `max_len`.
    pub fn increment(&mut self, value: Bytes, amount: f64, max_len: usize) -> Result<f64, Error> {
        let held = self.score(&value);
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
        self.set(&value, score);
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
        let longest = elements.iter().map(|(value, _)| value.len()).max();
        // A fresh structure rather than a cleared one, which would keep
        // the room of a larger set replaced by a smaller one.
        *self = if fits_small(elements.len(), longest.unwrap_or(0)) {
            let room = elements.iter().map(|(v, s)| packed_len(v, *s)).sum();
            SortedSetValue(Form::Small(Small::with_room(room)))
        } else {
            SortedSetValue(Form::Large(Box::new(Large::with_capacity(elements.len()))))
        };
        for (value, score) in &elements {
            self.set(value, *score);
        }
        Ok(self.len())
    }

    pub fn score(&self, value: &[u8]) -> Option<f64> {
        match &self.0 {
            Form::Small(small) => small.score(value),
            Form::Large(large) => large.score(value),
        }
    }

    /// Every element, ascending.
    pub fn elements(&self) -> Vec<ScoredValue> {
        self.copy(0, self.len(), SortOrder::Ascending)
    }

    pub fn fetch(&self, range: SortedSetRange, order: SortOrder) -> Vec<ScoredValue> {
        let (start, end) = self.answered(range, order);
        self.copy(start, end, order)
    }

    /// The bytes of the elements of a fetch's answer at ascending positions
    /// `start..end`: O(1) for the whole set, else O(log n) and a walk of at
    /// most two of the order's chunks (a packed set: a walk of it).
    fn encoded_len(&self, start: usize, end: usize) -> u64 {
        match &self.0 {
            Form::Small(small) if start == 0 && end >= small.len() => small.encoded(),
            Form::Small(small) => small.weight(start, end),
            Form::Large(large) if start == 0 && end >= large.len() => large.encoded(),
            Form::Large(large) => large.weight(start, end),
        }
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

    /// The elements at ascending positions `start..end`, in `order`.
    fn copy(&self, start: usize, end: usize, order: SortOrder) -> Vec<ScoredValue> {
        let mut copied = match &self.0 {
            Form::Small(small) => copy_pairs(small.pairs(start, end)),
            Form::Large(large) => copy_pairs(large.pairs(start, end)),
        };
        if matches!(order, SortOrder::Descending) {
            copied.reverse();
        }
        copied
    }

    pub fn rank(&self, value: &[u8], order: SortOrder) -> Option<u64> {
        let rank = match &self.0 {
            Form::Small(small) => small.rank(value),
            Form::Large(large) => large.rank(value),
        }?;
        Some(match order {
            SortOrder::Ascending => rank,
            SortOrder::Descending => self.len() - 1 - rank,
        } as u64)
    }

    pub fn count(&self, scores: ScoreRange) -> usize {
        let (low, high) = self.positions(scores);
        high - low
    }

    /// Removes the values named, or all; answers the length after.
    pub fn remove(&mut self, remove: &SortedSetRemove) -> usize {
        match remove {
            SortedSetRemove::All => *self = SortedSetValue::default(),
            SortedSetRemove::Values(values) => match &mut self.0 {
                Form::Small(small) => {
                    for value in values {
                        small.remove(value);
                    }
                    small.fit();
                }
                Form::Large(large) => {
                    for value in values {
                        large.remove(value);
                    }
                    if large.all_short() && large.len() <= SMALL_MAX_ELEMENTS / 2 {
                        self.pack();
                    } else {
                        large.fit();
                    }
                }
            },
        }
        self.len()
    }

    /// The ascending positions `low..high` of the elements with a score in
    /// `scores`, in O(log n). A bound of -0.0 is 0.0 here, as stored scores
    /// are, so it compares as a number does. A range the wrong way round
    /// (refused by the handler, or empty by exclusion) holds none.
    fn positions(&self, scores: ScoreRange) -> (usize, usize) {
        // The first position in the range, and the first past it.
        let low = match scores.min {
            ScoreBound::Unbounded => 0,
            ScoreBound::Inclusive(min) => self.count_below(min, false),
            ScoreBound::Exclusive(min) => self.count_below(min, true),
        };
        let high = match scores.max {
            ScoreBound::Unbounded => self.len(),
            ScoreBound::Inclusive(max) => self.count_below(max, true),
            ScoreBound::Exclusive(max) => self.count_below(max, false),
        };
        (low, high.max(low))
    }

    /// How many elements score below `score` (or at most, when `or_equal`).
    fn count_below(&self, score: f64, or_equal: bool) -> usize {
        let score = canonical(score);
        match &self.0 {
            Form::Small(small) => small.count_below(score, or_equal),
            Form::Large(large) => large.count_below(score, or_equal),
        }
    }

    fn set(&mut self, value: &[u8], score: f64) {
        let score = canonical(score);
        match &mut self.0 {
            Form::Small(small) => {
                let grows = small.score(value).is_none();
                if fits_small(small.len() + usize::from(grows), value.len()) {
                    small.set(value, score);
                    return;
                }
                self.unpack();
                self.set(value, score);
            }
            Form::Large(large) => {
                large.set(value, score);
            }
        }
    }

    /// A packed set into the large form.
    fn unpack(&mut self) {
        let Form::Small(small) = &self.0 else {
            return;
        };
        let mut large = Large::with_capacity(small.len() + 1);
        for pair in small.iter() {
            large.set(pair.member, pair.score);
        }
        self.0 = Form::Large(Box::new(large));
    }

    /// A large set, small enough again, into the packed form.
    fn pack(&mut self) {
        let Form::Large(large) = &self.0 else {
            return;
        };
        let pairs = large.pairs(0, large.len());
        let room = pairs
            .clone()
            .map(|(member, score)| packed_len(member, score));
        let mut small = Small::with_room(room.sum());
        for (member, score) in pairs {
            small.append_sorted(member, score);
        }
        self.0 = Form::Small(small);
    }
}

/// The elements of `pairs` copied out, in one buffer (see [`Copier`]).
fn copy_pairs<'a>(pairs: impl Iterator<Item = (&'a [u8], f64)> + Clone) -> Vec<ScoredValue> {
    let mut copier = Copier::new(pairs.clone().map(|(member, _)| member.len()).sum());
    pairs
        .map(|(member, score)| (copier.copy(member), score))
        .collect()
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
        // Not copied before the lock, as a list's values are: the store
        // copies each member into its own buffers (`sorted_small.rs`,
        // `sorted_members.rs`) and keeps no handle on the request.
        let adding = Adding::of(elements.iter().map(|(value, _)| &value[..]));
        let put = self.grow(
            *cache,
            key,
            Some(ttl),
            |set: &SortedSetValue| set.growth(&adding),
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
        let adding = Adding::of([&value[..]].into_iter());
        let score = self.grow(
            *cache,
            key,
            Some(ttl),
            |set: &SortedSetValue| set.growth(&adding),
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

    /// Panics unless the set's form holds together: a packed set in order,
    /// within the bounds, what it keeps matching its elements.
    fn assert_consistent(set: &SortedSetValue) {
        match &set.0 {
            Form::Small(small) => {
                let pairs: Vec<(&[u8], f64)> = small.pairs(0, small.len()).collect();
                assert_eq!(pairs.len(), small.len());
                let ordered = |a: &(&[u8], f64), b: &(&[u8], f64)| {
                    a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)).is_lt()
                };
                assert!(pairs.windows(2).all(|w| ordered(&w[0], &w[1])));
                let encoded: u64 = pairs.iter().map(|(m, _)| element_encoded_len(m)).sum();
                assert_eq!(small.encoded(), encoded);
                let longest = pairs.iter().map(|(m, _)| m.len()).max();
                assert!(fits_small(small.len(), longest.unwrap_or(0)));
                assert_eq!(small.cost(), part_cost(small.bytes_len()).max(small.cost()));
            }
            Form::Large(large) => large.assert_consistent(),
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
        assert!(s.is_empty());
    }

    /// Grown to 10,000 elements and cut to 100 by removals, a sorted set is
    /// charged about as much per element as before, and holds a table and
    /// members' slots for a few hundred, not the 10,000's; cut to 3, or
    /// replaced by a union of 100, it is packed.
    #[test]
    fn a_sorted_set_cut_to_a_few_elements_gives_its_room_back() {
        let value = |i: usize| Bytes::from(format!("value-{i}"));
        let grown = || {
            let mut s = SortedSetValue::default();
            let elements = (0..10_000).map(|i| (value(i), i as f64)).collect();
            s.put(elements, NO_LIMIT).unwrap();
            assert!(large(&s).capacity() >= 10_000);
            s
        };
        let packed_cost = |n: usize| part_cost((0..n).map(|i| packed_len(&value(i), 1.0)).sum());
        let mut s = grown();
        let full = s.cost();
        s.remove(&SortedSetRemove::Values((100..10_000).map(value).collect()));
        assert_eq!(s.len(), 100);
        assert_consistent(&s);
        assert!(s.cost() * 10_000 < full * 100 * 2, "{} of {full}", s.cost());
        let room = large(&s).capacity();
        assert!(room < 512, "room for {room}");
        assert_eq!(large(&s).slots(), 100);
        // Renumbered, it takes new members and new scores as before.
        let more = (20_000..20_050).map(|i| (value(i), -(i as f64)));
        let rescored = (0..10).map(|i| (value(i), 0.5));
        s.put(more.chain(rescored).collect(), NO_LIMIT).unwrap();
        assert_eq!(s.len(), 150);
        assert_consistent(&s);
        let cut = (3..100).chain(20_000..20_050).map(value);
        s.remove(&SortedSetRemove::Values(cut.collect()));
        assert!(matches!(s.0, Form::Small(_)));
        assert_consistent(&s);
        assert!(s.cost() <= 2 * packed_cost(3), "{}", s.cost());

        let mut replaced = grown();
        let few = (0..100).map(|i| (value(i), 1.0)).collect();
        replaced.replace(few, NO_LIMIT).unwrap();
        assert!(matches!(replaced.0, Form::Small(_)));
        assert_consistent(&replaced);
        assert_eq!(replaced.cost(), packed_cost(100));
    }

    fn large(s: &SortedSetValue) -> &Large {
        match &s.0 {
            Form::Large(large) => large,
            Form::Small(_) => panic!("a packed set"),
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
        /// Values past `VALUES`: enough to take a set past the packed
        /// form's bounds, some of them longer than a packed member may be.
        const MANY: usize = 200;

        fn value(v: usize) -> Bytes {
            match v {
                v if v < VALUES.len() => Bytes::from_static(VALUES[v]),
                v if v % 40 == 0 => Bytes::from(format!("{v:0>70}")),
                v => Bytes::from(format!("m{v}")),
            }
        }
        const SCORES: &[f64] = &[0.0, -0.0, 1.0, -1.0, 0.5, 1e300, f64::MAX, -f64::MAX];

        #[derive(Clone, Debug)]
        enum Op {
            Put(Vec<(usize, usize)>),
            Increment(usize, usize),
            Remove(Option<Vec<usize>>),
        }

        /// Up to `n` values from `v` on: enough to cross the bounds.
        fn many(v: usize, n: usize) -> std::ops::Range<usize> {
            v..(v + n).min(MANY)
        }

        fn op() -> impl Strategy<Value = Op> {
            let value = 0..VALUES.len();
            prop_oneof![
                3 => prop::collection::vec((value.clone(), 0..SCORES.len()), 1..4).prop_map(Op::Put),
                2 => (value.clone(), 0..SCORES.len()).prop_map(|(v, a)| Op::Increment(v, a)),
                1 => prop::option::of(prop::collection::vec(value, 0..3)).prop_map(Op::Remove),
                1 => (0..MANY, 0..MANY, 0..SCORES.len())
                    .prop_map(|(v, n, s)| Op::Put(many(v, n).map(|v| (v, s)).collect())),
                1 => (0..MANY, 0..MANY).prop_map(|(v, n)| Op::Remove(Some(many(v, n).collect()))),
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
                                .map(|(v, s)| (value(v), canonical(SCORES[s])))
                                .collect();
                            for (value, score) in &elements {
                                model.retain(|(v, _)| v != value);
                                model.push((value.clone(), *score));
                            }
                            prop_assert_eq!(set.put(elements, NO_LIMIT), Ok(model.len()));
                        }
                        Op::Increment(v, a) => {
                            let value = value(v);
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
                                values.into_iter().map(|v| value(v)).collect();
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
        let packed = packed_len(b"a", 1.0) + packed_len(b"bb", 2.0);
        assert_eq!(packed, 9);
        // Packed: 9 bytes, then 15, in a buffer of 16.
        assert_eq!(put(&[("ccc", 3.0)]).await, Ok(3));
        let three = store.stats().bytes;
        assert_eq!(three, two);
        // A member past the packed form's bound: every element is charged
        // as the large form charges it, and the buffer is freed.
        let long = "l".repeat(SMALL_MAX_MEMBER + 1);
        assert_eq!(put(&[(&long, 4.0)]).await, Ok(4));
        let four = store.stats().bytes;
        let mut same = set(&[("a", 1.0), ("bb", 2.0), ("ccc", 3.0)]);
        assert_eq!(same.cost(), part_cost(15));
        same.put(elements(&[(&long, 4.0)]), NO_LIMIT).unwrap();
        assert!(matches!(same.0, Form::Large(_)));
        assert_eq!(four - three, same.cost() - part_cost(15));
        // A new score for a value held costs nothing more.
        assert_eq!(put(&[("a", 9.0)]).await, Ok(4));
        assert_eq!(store.stats().bytes, four);
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
