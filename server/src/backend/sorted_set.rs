//! The sorted set calls, implemented by the embedded store in
//! `store/sorted_set.rs` and by the Redis store in
//! `backend/redis/sorted_set.rs`, and the arguments they take.
//!
//! A sorted set holds distinct values (any bytes), each with a finite
//! score (an `f64`). Its order is by score, ties by value bytes compared
//! lexicographically, as Redis orders them; descending is that order
//! reversed. As every collection, a sorted set holds at least one element:
//! the write that empties one removes it. Calls answer `None` for a
//! missing set; only Put, Increment and UnionStore create one.
//!
//! The handler checks the arguments (finite scores, ranges the right way
//! round, a count that is not zero) before a store sees them; the stores
//! check only what depends on what they hold (the type, the element limit,
//! a score that an increment or a union would take out of the finite).

use std::future::Future;
use std::ops::Range;

use bytes::Bytes;

use super::{Caches, CollectionTtl};
use crate::error::Error;

/// A value and its score.
pub type ScoredValue = (Bytes, f64);

pub trait SortedSetStorage: Caches {
    /// Adds the elements, or sets the scores of the values already held
    /// (the last of a value given twice wins), creating the set. Answers
    /// its length after. [`Error::CollectionTooLarge`], and nothing
    /// changes, when that length would be over `max_len`.
    fn sorted_set_put(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        elements: Vec<ScoredValue>,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<usize, Error>> + Send;
    /// The elements `range` selects, in `order`; empty when it selects none.
    /// [`Error::AnswerTooLarge`] when the answer would be over `max_answer`
    /// (`--max-response-size`), known before it is built.
    fn sorted_set_fetch(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        range: SortedSetRange,
        order: SortOrder,
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<ScoredValue>>, Error>> + Send;
    /// The score of each value, in the order given; `None` for a value
    /// the set does not hold.
    fn sorted_set_get_scores(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        values: &[Bytes],
    ) -> impl Future<Output = Result<Option<Vec<Option<f64>>>, Error>> + Send;
    /// The 0-based position of `value` in `order`; `Some(None)` when the
    /// set exists but does not hold it.
    fn sorted_set_get_rank(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        value: &[u8],
        order: SortOrder,
    ) -> impl Future<Output = Result<Option<Option<u64>>, Error>> + Send;
    /// Adds `amount` to the score of `value` (absent: 0), creating the
    /// set; answers the new score. [`Error::ScoreNotFinite`] when the sum
    /// is not a finite number; [`Error::CollectionTooLarge`] when a new
    /// value would take the set over `max_len`. Either changes nothing.
    fn sorted_set_increment(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        value: Bytes,
        amount: f64,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<f64, Error>> + Send;
    /// Removes the values named (those not held are ignored), or all.
    /// Answers the length after; `None` for a missing set.
    fn sorted_set_remove(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        remove: &SortedSetRemove,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send;
    fn sorted_set_length(
        &self,
        cache: &Self::Cache,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send;
    /// How many elements have a score within `range`.
    fn sorted_set_length_by_score(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        range: ScoreRange,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send;
    /// Replaces the set at `key` with the union of `sources` (see
    /// [`union`]), with `ttl`; an empty union removes it. Answers its
    /// length after. The destination must be missing or a sorted set;
    /// each source too (a missing one counts as empty).
    fn sorted_set_union_store(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        union: &SortedSetUnion,
        ttl: std::time::Duration,
        max_len: usize,
    ) -> impl Future<Output = Result<usize, Error>> + Send;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortOrder {
    Ascending,
    Descending,
}

/// What SortedSetFetch selects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SortedSetRange {
    /// Positions in the set in the fetch's order, as a list slice: `start`
    /// inclusive, `end` exclusive, negative counting from the end, clipped.
    ByIndex {
        start: Option<i32>,
        end: Option<i32>,
    },
    /// The elements with a score within `scores`, in the fetch's order;
    /// then `offset` of them skipped and at most `count` answered (`None`:
    /// all that are left).
    ByScore {
        scores: ScoreRange,
        offset: u32,
        count: Option<u32>,
    },
}

impl SortedSetRange {
    /// The positions `ByIndex` selects in a set of `len` elements.
    pub fn index_bounds(start: Option<i32>, end: Option<i32>, len: usize) -> Range<usize> {
        super::ListSlice { start, end }.bounds(len)
    }
}

/// One end of a score range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScoreBound {
    Unbounded,
    Inclusive(f64),
    Exclusive(f64),
}

/// The scores between `min` and `max`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreRange {
    pub min: ScoreBound,
    pub max: ScoreBound,
}

impl ScoreRange {
    pub const ALL: ScoreRange = ScoreRange {
        min: ScoreBound::Unbounded,
        max: ScoreBound::Unbounded,
    };

    pub fn contains(&self, score: f64) -> bool {
        let above = match self.min {
            ScoreBound::Unbounded => true,
            ScoreBound::Inclusive(min) => score >= min,
            ScoreBound::Exclusive(min) => score > min,
        };
        let below = match self.max {
            ScoreBound::Unbounded => true,
            ScoreBound::Inclusive(max) => score <= max,
            ScoreBound::Exclusive(max) => score < max,
        };
        above && below
    }
}

/// What SortedSetRemove removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SortedSetRemove {
    All,
    Values(Vec<Bytes>),
}

/// How SortedSetUnionStore combines the weighted scores of a value found
/// in several sources.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    Sum,
    Min,
    Max,
}

/// A SortedSetUnionStore's sources and how their scores combine.
#[derive(Clone, Debug, PartialEq)]
pub struct SortedSetUnion {
    /// Each source's name and weight, in the request's order.
    pub sources: Vec<(Bytes, f32)>,
    pub aggregate: Aggregate,
}

/// The union of the sources' elements: each value's score is its score in
/// each source holding it times that source's weight, combined by
/// `aggregate` in the order of the sources (a sum adds them left to right,
/// so both stores round alike). [`Error::ScoreNotFinite`] when a combined
/// score is not finite. `sources` yields each source's elements (empty for
/// a missing source), in the request's order.
pub fn union<'a>(
    sources: impl IntoIterator<Item = (f32, &'a [ScoredValue])>,
    aggregate: Aggregate,
) -> Result<Vec<ScoredValue>, Error> {
    let mut scores: hashbrown::HashMap<Bytes, f64> = hashbrown::HashMap::new();
    for (weight, elements) in sources {
        let weight = f64::from(weight);
        for (value, score) in elements {
            let weighted = weighted(*score, weight);
            scores
                .entry(value.clone())
                .and_modify(|held| *held = combine(aggregate, *held, weighted))
                .or_insert(weighted);
        }
    }
    if scores.values().any(|score| !score.is_finite()) {
        return Err(Error::ScoreNotFinite);
    }
    Ok(scores.into_iter().collect())
}

/// A score times a weight, a zero product as 0.0 (never -0.0: see
/// [`canonical`]).
pub fn weighted(score: f64, weight: f64) -> f64 {
    canonical(score * weight)
}

fn combine(aggregate: Aggregate, held: f64, next: f64) -> f64 {
    match aggregate {
        Aggregate::Sum => held + next,
        Aggregate::Min => held.min(next),
        Aggregate::Max => held.max(next),
    }
}

/// A score as stored: -0.0 as 0.0, so both zeros sort and answer alike.
pub fn canonical(score: f64) -> f64 {
    if score == 0.0 {
        0.0
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elements(pairs: &[(&str, f64)]) -> Vec<ScoredValue> {
        pairs
            .iter()
            .map(|(v, s)| (Bytes::copy_from_slice(v.as_bytes()), *s))
            .collect()
    }

    fn sorted(mut union: Vec<ScoredValue>) -> Vec<(String, f64)> {
        union.sort_by(|a, b| a.0.cmp(&b.0));
        union
            .into_iter()
            .map(|(v, s)| (String::from_utf8(v.to_vec()).unwrap(), s))
            .collect()
    }

    #[test]
    fn union_weights_and_combines() {
        let a = elements(&[("x", 1.0), ("y", 2.0)]);
        let b = elements(&[("y", 10.0), ("z", 3.0)]);
        let sources = || [(1.0, &a[..]), (2.0, &b[..])];
        let sum = union(sources(), Aggregate::Sum).unwrap();
        assert_eq!(
            sorted(sum),
            [("x".into(), 1.0), ("y".into(), 22.0), ("z".into(), 6.0)]
        );
        let min = union(sources(), Aggregate::Min).unwrap();
        assert_eq!(sorted(min)[1], ("y".into(), 2.0));
        let max = union(sources(), Aggregate::Max).unwrap();
        assert_eq!(sorted(max)[1], ("y".into(), 20.0));
        assert!(union([(1.0, &[][..])], Aggregate::Sum).unwrap().is_empty());
    }

    #[test]
    fn a_union_that_overflows_is_refused() {
        let a = elements(&[("x", f64::MAX)]);
        let sources = [(2.0, &a[..])];
        assert_eq!(union(sources, Aggregate::Sum), Err(Error::ScoreNotFinite));
        let sources = [(1.0, &a[..]), (1.0, &a[..])];
        assert_eq!(union(sources, Aggregate::Sum), Err(Error::ScoreNotFinite));
        assert!(union(sources, Aggregate::Max).is_ok());
        assert_eq!(union([(0.0, &a[..])], Aggregate::Sum).unwrap()[0].1, 0.0);
    }

    #[test]
    fn score_ranges_honour_exclusive_bounds() {
        let range = ScoreRange {
            min: ScoreBound::Exclusive(1.0),
            max: ScoreBound::Inclusive(2.0),
        };
        assert!(!range.contains(1.0));
        assert!(range.contains(1.5));
        assert!(range.contains(2.0));
        assert!(!range.contains(2.5));
        assert!(ScoreRange::ALL.contains(f64::MIN));
    }

    #[test]
    fn minus_zero_is_stored_as_zero() {
        assert_eq!(canonical(-0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(weighted(0.0, -1.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(canonical(-1.5), -1.5);
    }
}
