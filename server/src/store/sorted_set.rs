//! Sorted sets in the embedded store, in one of two forms:
//!
//! - **packed** (`sorted_small.rs`) while a set holds at most
//!   [`SMALL_MAX_ELEMENTS`] members of at most [`SMALL_MAX_MEMBER`] bytes:
//!   each member and its score in one buffer, in the set's order, walked
//!   for every call (as Redis's listpack encoding);
//! - **large** (`sorted_large.rs`) past either bound: each member stored
//!   once, a table of slots for its score, an order-statistic sequence of
//!   (score, slot) for positions.
//!
//! A set is packed again once removals leave it at most
//! [`SMALL_MAX_ELEMENTS`] / 2 members, all short (the half, so that a set
//! at the bound does not convert both ways on every put and removal).
//!
//! What each call costs, for a set of n elements (none walks what it does
//! not answer; a packed set's n is at most 32, each call a walk of it):
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
use super::dictionary::on_blocking_pool;
use super::heavy;
use super::sorted_large::Large;
#[cfg(test)]
use super::sorted_small::packed_len;
use super::sorted_small::{most_added, run_len, Small};
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
/// (Redis's `zset-max-listpack-entries` and `-value` are 128 and 64).
/// Chosen from callgrind's count of a call (`bench/README.md`, "Result
/// after lean sorted sets"): a packed set's walks cost a put or a fetch
/// of the top ten about 300 instructions a member over the large form
/// (+5% of a gRPC call at 10 members, +20% at 32, +70% at 120), a score
/// or a rank about 85; at 32 a set of ten, the common small set, is
/// packed, and the walk stays within a fifth of a call.
pub const SMALL_MAX_ELEMENTS: usize = 32;
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
    /// At most what they grow a packed run by (`most_added`).
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
            adding.packed += most_added(member);
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
            // The run's exact length: in order, as each score is written
            // after the one before it.
            let mut ordered: Vec<(&[u8], f64)> = elements
                .iter()
                .map(|(v, s)| (&v[..], canonical(*s)))
                .collect();
            ordered.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)));
            let room = run_len(ordered.into_iter());
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
        let mut small = Small::with_room(run_len(pairs.clone()));
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
        union_store(self, *cache, key, spec, ttl, max_len)
    }
}

/// Reads each source under its own shard's lock, in the request's order,
/// then writes the destination under its own: not one atomic step.
///
/// A source named more than once is read (copied) once and its elements
/// added once per naming, so the answer is exactly the unfolded union's.
/// The work is counted before any source is copied: the sources' lengths,
/// each naming counted, at most `max_len` ([`Error::UnionTooLarge`]).
/// Past [`UNION_INLINE_ELEMENTS`] the union runs as heavy work (in a turn
/// of its own, its worker handed over: `heavy.rs`): a union of a million
/// elements takes tens of milliseconds, which calls queued on that worker
/// would otherwise wait for.
async fn union_store(
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
    if work > UNION_INLINE_ELEMENTS {
        heavy::run(run).await
    } else {
        run()
    }
}

/// A union reading more source elements than this hands its worker over
/// while it runs (about a millisecond of work).
const UNION_INLINE_ELEMENTS: usize = 10_000;

#[cfg(test)]
#[path = "sorted_set_tests.rs"]
mod tests;
