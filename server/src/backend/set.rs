//! The set calls, implemented by the embedded store in `store/set.rs` and
//! by the Redis store in `backend/redis/set.rs`, and the arguments they take.
//!
//! A set holds distinct elements (bytes, empty allowed), unordered, at
//! least one: the write that empties a set removes it, so no call ever
//! finds an empty set. Calls answer `None` for a missing set; only a union
//! creates one.
//!
//! Pops and samples choose at random, and each store has its own random
//! source: the two stores agree on how many elements such a call answers
//! and on what the set holds after it, not on which elements it picks.

use std::future::Future;

use bytes::Bytes;

use super::{Caches, CollectionTtl};
use crate::error::Error;

pub trait SetStorage: Caches {
    /// Adds the elements (one that is there already, or given twice, counts
    /// once), creating the set; answers its length after, 0 when no set
    /// exists (no elements added to a missing set).
    /// [`Error::CollectionTooLarge`], and nothing changes, when that length
    /// would be over `max_len`.
    fn set_union(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        elements: Vec<Bytes>,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<usize, Error>> + Send;
    /// Removes the elements named (those absent are ignored) or the whole
    /// set; the TTL is kept. Answers whether the set existed.
    fn set_difference(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        remove: &SetRemove,
    ) -> impl Future<Output = Result<bool, Error>> + Send;
    /// Every element, in no particular order. [`Error::AnswerTooLarge`]
    /// when the answer would be over `max_answer` (`--max-response-size`),
    /// known before it is built.
    fn set_fetch(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, Error>> + Send;
    /// Whether the set holds each element, in the order asked.
    fn set_contains(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        elements: &[Bytes],
    ) -> impl Future<Output = Result<Option<Vec<bool>>, Error>> + Send;
    fn set_length(
        &self,
        cache: &Self::Cache,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send;
    /// Removes and answers `count` (at least 1) elements chosen at random,
    /// or all of them when the set holds no more; the TTL is kept. The
    /// elements are chosen and their answer sized ([`pop_answer_size`])
    /// before any is removed: an answer over `max_answer`
    /// (`--max-response-size`) is refused ([`Error::AnswerTooLarge`]) and
    /// the set is left as it was.
    fn set_pop(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        count: u32,
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, Error>> + Send;
    /// Up to `limit` distinct elements chosen at random, left in the set:
    /// all of them when the set holds no more, none for a limit of 0.
    fn set_sample(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        limit: u64,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, Error>> + Send;
}

/// The encoded size of a SetPop answer of elements of these lengths: the
/// `found` message (tag, length, then per element a tag, a length and the
/// bytes) in the response. Exact, so what a store lets through the
/// service's own check (`Limits::check_answer`) lets through too. The Redis
/// store's `set_collection_pop.lua` counts the same way.
pub fn pop_answer_size(lengths: impl Iterator<Item = usize>) -> usize {
    use prost::encoding::encoded_len_varint;
    let found: usize = lengths
        .map(|len| 1 + encoded_len_varint(len as u64) + len)
        .sum();
    1 + encoded_len_varint(found as u64) + found
}

/// What SetDifference removes from the stored set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetRemove {
    /// The whole set (the wire's `identity` subtrahend).
    All,
    /// These elements, where present; none: nothing.
    Elements(Vec<Bytes>),
}
