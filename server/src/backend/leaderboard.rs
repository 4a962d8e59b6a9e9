//! The leaderboard calls, implemented by the embedded store in
//! `store/leaderboard.rs` and by the Redis store in
//! `backend/redis/leaderboard.rs`, and the values they take and answer.
//!
//! A leaderboard holds (id, score) elements, one score per id, in the order
//! of (score, id): ascending puts the lowest score at rank 0, descending is
//! the exact reverse (ties then run from the highest id down). Scores are
//! finite and never -0.0 (the handler stores -0.0 as 0.0).
//!
//! Leaderboards live beside a cache's items, in a namespace of their own:
//! a leaderboard and an item may share a name and never meet. Like items
//! they go with a flush or a deletion of their cache, and count against
//! `--max-memory` and its eviction; unlike items they have no TTL (the
//! protocol gives them none).
//!
//! The handler has checked every argument before a store sees it (counts,
//! ranges, finite scores); a store checks only what depends on what the
//! board holds, before changing anything, so a refused call changes
//! nothing. A board that does not exist reads as empty.

use std::future::Future;

use super::{Caches, SortOrder};
use crate::error::Error;

/// The most bytes one element of an answer takes encoded: an id and a rank
/// of up to 5 bytes each and a score of 8, each behind a tag, and the
/// element's own tag and length.
pub const RANKED_ELEMENT_ENCODED_MAX: usize = 2 + 6 + 6 + 9;

/// The memory an answer of `elements` elements holds until it is encoded,
/// at most: its list and its encoding. Charged to the call before the
/// answer is built (embedded store) or as Redis's reply is read, before it
/// is turned into one (`in_flight::reserve_store_answer`).
pub fn ranked_answer_bytes(elements: usize) -> usize {
    elements * (size_of::<RankedElement>() + RANKED_ELEMENT_ENCODED_MAX)
}

/// One element of an answer: its id, its rank in the order of the call
/// (0-based) and its score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankedElement {
    pub id: u32,
    pub rank: u32,
    pub score: f64,
}

/// Scores `[min, max)`; `None` leaves that end open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreSpan {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl ScoreSpan {
    pub fn holds(&self, score: f64) -> bool {
        self.min.is_none_or(|min| score >= min) && self.max.is_none_or(|max| score < max)
    }
}

/// How GetRank counts: by position (every element its own rank), or by
/// competition (tied scores share the rank of the first of them: the number
/// of elements scored strictly ahead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankKind {
    Position,
    Competition,
}

pub trait LeaderboardStorage: Caches {
    /// Sets the score of each id (the last wins for an id given twice),
    /// creating the board. [`Error::CollectionTooLarge`], and nothing
    /// changes, when the board would hold more than `max_len` ids.
    fn leaderboard_upsert(
        &self,
        cache: &Self::Cache,
        name: &[u8],
        elements: Vec<(u32, f64)>,
        max_len: usize,
    ) -> impl Future<Output = Result<(), Error>> + Send;
    /// Removes the ids named; those the board lacks are ignored.
    fn leaderboard_remove(
        &self,
        cache: &Self::Cache,
        name: &[u8],
        ids: &[u32],
    ) -> impl Future<Output = Result<(), Error>> + Send;
    fn leaderboard_delete(
        &self,
        cache: &Self::Cache,
        name: &[u8],
    ) -> impl Future<Output = Result<(), Error>> + Send;
    fn leaderboard_length(
        &self,
        cache: &Self::Cache,
        name: &[u8],
    ) -> impl Future<Output = Result<u32, Error>> + Send;
    /// The elements at ranks `start..end` in `order` (fewer past the end).
    fn leaderboard_by_rank(
        &self,
        cache: &Self::Cache,
        name: &[u8],
        start: u32,
        end: u32,
        order: SortOrder,
    ) -> impl Future<Output = Result<Vec<RankedElement>, Error>> + Send;
    /// The elements scored in `span`, in `order`, skipping the first
    /// `offset` of them and answering at most `limit`; each with its rank
    /// in the whole board.
    fn leaderboard_by_score(
        &self,
        cache: &Self::Cache,
        name: &[u8],
        span: ScoreSpan,
        offset: u32,
        limit: u32,
        order: SortOrder,
    ) -> impl Future<Output = Result<Vec<RankedElement>, Error>> + Send;
    /// The rank and score of each id the board holds, in the order asked;
    /// ids it lacks are left out.
    fn leaderboard_rank(
        &self,
        cache: &Self::Cache,
        name: &[u8],
        ids: &[u32],
        order: SortOrder,
        kind: RankKind,
    ) -> impl Future<Output = Result<Vec<RankedElement>, Error>> + Send;
}
