//! Leaderboards in the embedded store: a hash map from id to score, for the
//! score of an id in O(1), beside the order-statistic sequence of (score,
//! id) the sorted set uses too ([`Ranked`]), for ranks and ordered walks.
//! Every change keeps the two in step.
//!
//! A board is an item of the store under its cache's leaderboard id
//! ([`CacheId::leaderboards`]), so it shares the memory cap, the charge and
//! the eviction of every item, goes with its cache's flush or deletion, and
//! never meets an item of the same name. It has no TTL: it is stored with
//! the longest deadline the store keeps.
//!
//! What each call costs, for a board of n elements (answers are at most
//! 8,192 elements, which the handler checks):
//! - Upsert, Remove: O(k log n) for k ids; Length: O(1); Delete: O(n) freed.
//! - GetByRank: O(log n + m) for m answered.
//! - GetByScore: O(log n + m), wherever the offset starts.
//! - GetRank, GetCompetitionRank: O(k log n) for k ids.

use std::cmp::Ordering;
use std::future::{ready, Future};
use std::sync::Arc;
use std::time::Duration;

use hashbrown::HashMap;

use super::answer::{AnswerSize, Reserved};
use super::cost::shrunk_room;
use super::heavy;
use super::ranked::{Ranked, Weighted};
use super::{CacheId, Store};
use crate::backend::{
    ranked_answer_bytes, CollectionTtl, LeaderboardStorage, RankKind, RankedElement, ScoreSpan,
    SortOrder, RANKED_ELEMENT_ENCODED_MAX,
};
use crate::error::Error;

/// Bytes charged per element: a `HashMap<u32, f64>` slot (16 bytes and a
/// control byte, at a load of 7/16 to 7/8: 18 to 37) and a 16-byte slot
/// in a chunk of the order (chunks half to wholly full: 16 to 32), rounded
/// up. An element has no parts of its own to charge.
const ELEMENT_COST: u64 = 72;

/// An element in the board's order: by score, then by id.
#[derive(Clone, Copy, Debug)]
struct Entry {
    score: f64,
    id: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    /// Scores are finite and never -0.0, so `total_cmp` is the numeric order.
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| self.id.cmp(&other.id))
    }
}

/// The order's weights are not used: every element of an answer is small
/// and an answer is at most 8,192 of them.
impl Weighted for Entry {
    fn weight(&self) -> u64 {
        0
    }
}

#[derive(Debug, Default)]
pub struct Leaderboard {
    scores: HashMap<u32, f64>,
    order: Ranked<Entry>,
}

impl Leaderboard {
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    pub fn cost(&self) -> u64 {
        self.len() as u64 * ELEMENT_COST
    }

    /// How many of `elements` the board does not hold yet (an id given
    /// twice counted once).
    fn new_ids(&self, elements: &[(u32, f64)]) -> usize {
        let mut new = hashbrown::HashSet::new();
        for (id, _) in elements {
            if !self.scores.contains_key(id) {
                new.insert(*id);
            }
        }
        new.len()
    }

    /// Sets each id's score (the last wins); refused, changing nothing,
    /// past `max_len` ids.
    fn upsert(&mut self, elements: &[(u32, f64)], max_len: usize) -> Result<(), Error> {
        let len = self.len() + self.new_ids(elements);
        if len > max_len {
            return Err(Error::CollectionTooLarge {
                elements: len,
                limit: max_len,
            });
        }
        for &(id, score) in elements {
            if let Some(old) = self.scores.insert(id, score) {
                self.order.remove(&Entry { score: old, id });
            }
            self.order.insert(Entry { score, id });
        }
        Ok(())
    }

    fn remove(&mut self, ids: &[u32]) {
        for &id in ids {
            if let Some(score) = self.scores.remove(&id) {
                self.order.remove(&Entry { score, id });
            }
        }
        if let Some(room) = shrunk_room(self.len(), self.scores.capacity()) {
            self.scores.shrink_to(room);
        }
    }

    /// The element at ascending position `at`, ranked in `order`.
    fn ranked(&self, entry: &Entry, at: usize, order: SortOrder) -> RankedElement {
        RankedElement {
            id: entry.id,
            rank: self.rank_in(at, order) as u32,
            score: entry.score,
        }
    }

    /// The rank in `order` of ascending position `at`.
    fn rank_in(&self, at: usize, order: SortOrder) -> usize {
        match order {
            SortOrder::Ascending => at,
            SortOrder::Descending => self.len() - 1 - at,
        }
    }

    /// The elements at ascending positions `start..end`, walked in `order`.
    fn walk(&self, start: usize, end: usize, order: SortOrder) -> Vec<RankedElement> {
        let range = self.order.range(start, end);
        let positions = start..end.min(self.len());
        match order {
            SortOrder::Ascending => range
                .zip(positions)
                .map(|(entry, at)| self.ranked(entry, at, order))
                .collect(),
            SortOrder::Descending => range
                .rev()
                .zip(positions.rev())
                .map(|(entry, at)| self.ranked(entry, at, order))
                .collect(),
        }
    }

    fn by_rank(&self, start: u32, end: u32, order: SortOrder) -> Vec<RankedElement> {
        let len = self.len();
        let (start, end) = (start as usize, (end as usize).min(len));
        if start >= end {
            return Vec::new();
        }
        match order {
            SortOrder::Ascending => self.walk(start, end, order),
            SortOrder::Descending => self.walk(len - end, len - start, order),
        }
    }

    /// How many elements score below `score`.
    fn below(&self, score: f64) -> usize {
        self.order.count_below(|e| e.score < score)
    }

    fn by_score(
        &self,
        span: ScoreSpan,
        offset: u32,
        limit: u32,
        order: SortOrder,
    ) -> Vec<RankedElement> {
        let low = span.min.map_or(0, |min| self.below(min));
        let high = span.max.map_or(self.len(), |max| self.below(max));
        let (offset, limit) = (offset as usize, limit as usize);
        if high <= low + offset {
            return Vec::new();
        }
        match order {
            SortOrder::Ascending => {
                let start = low + offset;
                self.walk(start, high.min(start + limit), order)
            }
            SortOrder::Descending => {
                let end = high - offset;
                self.walk(end.saturating_sub(limit).max(low), end, order)
            }
        }
    }

    fn rank(&self, ids: &[u32], order: SortOrder, kind: RankKind) -> Vec<RankedElement> {
        ids.iter()
            .filter_map(|&id| {
                let score = *self.scores.get(&id)?;
                let rank = match kind {
                    RankKind::Position => {
                        let at = self.order.rank(&Entry { score, id })?;
                        self.rank_in(at, order)
                    }
                    RankKind::Competition => match order {
                        SortOrder::Ascending => self.below(score),
                        SortOrder::Descending => {
                            self.len() - self.order.count_below(|e| e.score <= score)
                        }
                    },
                };
                Some(RankedElement {
                    id,
                    rank: rank as u32,
                    score,
                })
            })
            .collect()
    }
}

/// A GetRank naming more ids than this runs as heavy work (`heavy.rs`):
/// about a millisecond of lookups in a board of a million.
const RANK_INLINE_IDS: usize = 512;

/// What creates a board: no TTL, so the longest the store keeps, never
/// refreshed.
const NO_TTL: CollectionTtl = CollectionTtl {
    ttl: Duration::MAX,
    refresh: false,
};

impl Store {
    /// Reads the board `name` of `cache`; an absent board reads as empty.
    fn read_board<R>(
        &self,
        cache: CacheId,
        name: &[u8],
        read: impl Fn(&Leaderboard) -> R,
    ) -> Result<R, Error> {
        let answer = self.read(cache.leaderboards(), name, |board| read(board))?;
        Ok(answer.unwrap_or_else(|| read(&Leaderboard::default())))
    }

    /// Reads an answer of at most `most` elements (known in O(1)) from the
    /// board `name` of `cache`, charged to the call before it is built as a
    /// collection's answer is (`answer.rs`); the handler holds the built
    /// answer to `--max-response-size`. An absent board answers nothing.
    fn read_board_answer(
        &self,
        cache: CacheId,
        name: &[u8],
        most: impl Fn(&Leaderboard) -> usize,
        read: impl FnOnce(&Leaderboard) -> Vec<RankedElement>,
    ) -> Result<Vec<RankedElement>, Error> {
        let size = |board: &Leaderboard| {
            let most = most(board);
            AnswerSize {
                encoded: (most * RANKED_ELEMENT_ENCODED_MAX) as u64,
                held: ranked_answer_bytes(most) as u64,
                named: true,
            }
        };
        let answer = self.read_answer(
            &mut Reserved::default(),
            cache.leaderboards(),
            name,
            usize::MAX,
            size,
            read,
        )?;
        Ok(answer.unwrap_or_default())
    }
}

impl LeaderboardStorage for Arc<Store> {
    fn leaderboard_upsert(
        &self,
        cache: &CacheId,
        name: &[u8],
        elements: Vec<(u32, f64)>,
        max_len: usize,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let growth = |board: &Leaderboard| board.new_ids(&elements) as u64 * ELEMENT_COST;
        let written = self.grow(
            cache.leaderboards(),
            name,
            Some(NO_TTL),
            growth,
            |board: &mut Leaderboard| board.upsert(&elements, max_len),
        );
        ready(written.map(|_| ()))
    }

    fn leaderboard_remove(
        &self,
        cache: &CacheId,
        name: &[u8],
        ids: &[u32],
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let removed = self.write(
            cache.leaderboards(),
            name,
            None,
            |board: &mut Leaderboard| {
                board.remove(ids);
                Ok(())
            },
        );
        ready(removed.map(|_| ()))
    }

    fn leaderboard_delete(
        &self,
        cache: &CacheId,
        name: &[u8],
    ) -> impl Future<Output = Result<(), Error>> + Send {
        Store::delete(self, cache.leaderboards(), name);
        ready(Ok(()))
    }

    fn leaderboard_length(
        &self,
        cache: &CacheId,
        name: &[u8],
    ) -> impl Future<Output = Result<u32, Error>> + Send {
        ready(self.read_board(*cache, name, |board| board.len() as u32))
    }

    fn leaderboard_by_rank(
        &self,
        cache: &CacheId,
        name: &[u8],
        start: u32,
        end: u32,
        order: SortOrder,
    ) -> impl Future<Output = Result<Vec<RankedElement>, Error>> + Send {
        let most = |board: &Leaderboard| {
            (end as usize)
                .min(board.len())
                .saturating_sub(start as usize)
        };
        let read = |board: &Leaderboard| board.by_rank(start, end, order);
        ready(self.read_board_answer(*cache, name, most, read))
    }

    fn leaderboard_by_score(
        &self,
        cache: &CacheId,
        name: &[u8],
        span: ScoreSpan,
        offset: u32,
        limit: u32,
        order: SortOrder,
    ) -> impl Future<Output = Result<Vec<RankedElement>, Error>> + Send {
        let most = |board: &Leaderboard| (limit as usize).min(board.len());
        let read = |board: &Leaderboard| board.by_score(span, offset, limit, order);
        ready(self.read_board_answer(*cache, name, most, read))
    }

    fn leaderboard_rank(
        &self,
        cache: &CacheId,
        name: &[u8],
        ids: &[u32],
        order: SortOrder,
        kind: RankKind,
    ) -> impl Future<Output = Result<Vec<RankedElement>, Error>> + Send {
        let most = |board: &Leaderboard| ids.len().min(board.len());
        let read = move |board: &Leaderboard| board.rank(ids, order, kind);
        let answer = move || self.read_board_answer(*cache, name, most, read);
        async move {
            if ids.len() > RANK_INLINE_IDS {
                heavy::run(answer).await
            } else {
                answer()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(elements: &[(u32, f64)]) -> Leaderboard {
        let mut board = Leaderboard::default();
        board.upsert(elements, usize::MAX).unwrap();
        board
    }

    fn ids(answer: &[RankedElement]) -> Vec<(u32, u32)> {
        answer.iter().map(|e| (e.id, e.rank)).collect()
    }

    #[test]
    fn ranks_both_ways_with_ties_by_id() {
        let b = board(&[(3, 10.0), (1, 10.0), (2, 5.0), (9, 20.0)]);
        let asc = b.by_rank(0, 10, SortOrder::Ascending);
        assert_eq!(ids(&asc), [(2, 0), (1, 1), (3, 2), (9, 3)]);
        let desc = b.by_rank(1, 3, SortOrder::Descending);
        assert_eq!(ids(&desc), [(3, 1), (1, 2)]);
        let rank = b.rank(&[1, 7, 9], SortOrder::Descending, RankKind::Position);
        assert_eq!(ids(&rank), [(1, 2), (9, 0)]);
        let competition = b.rank(&[1, 3, 2], SortOrder::Descending, RankKind::Competition);
        assert_eq!(ids(&competition), [(1, 1), (3, 1), (2, 3)]);
        let competition = b.rank(&[3, 9], SortOrder::Ascending, RankKind::Competition);
        assert_eq!(ids(&competition), [(3, 1), (9, 3)]);
    }

    #[test]
    fn by_score_pages_within_the_span_and_ranks_in_the_board() {
        let scores = [10.0, 100.0, 250.0, 500.0, 750.0, 1000.0, 1500.0, 2000.0];
        let elements: Vec<(u32, f64)> = (0..8).map(|i| (i, scores[i as usize])).collect();
        let b = board(&elements);
        let all = ScoreSpan {
            min: None,
            max: None,
        };
        assert_eq!(
            ids(&b.by_score(all, 2, 2, SortOrder::Ascending)),
            [(2, 2), (3, 3)]
        );
        let span = ScoreSpan {
            min: Some(0.0),
            max: Some(800.0),
        };
        assert_eq!(
            ids(&b.by_score(span, 2, 10, SortOrder::Descending)),
            [(2, 5), (1, 6), (0, 7)]
        );
        let span = ScoreSpan {
            min: Some(750.0),
            max: Some(1500.0),
        };
        assert_eq!(
            ids(&b.by_score(span, 0, 10, SortOrder::Ascending)),
            [(4, 4), (5, 5)]
        );
        assert!(b.by_score(span, 2, 10, SortOrder::Ascending).is_empty());
    }

    #[test]
    fn upsert_moves_an_id_and_a_refused_one_changes_nothing() {
        let mut b = board(&[(1, 1.0), (2, 2.0)]);
        b.upsert(&[(1, 3.0)], 2).unwrap();
        assert_eq!(
            ids(&b.by_rank(0, 2, SortOrder::Ascending)),
            [(2, 0), (1, 1)]
        );
        assert!(b.upsert(&[(2, 0.0), (3, 1.0)], 2).is_err());
        assert_eq!(
            ids(&b.by_rank(0, 3, SortOrder::Ascending)),
            [(2, 0), (1, 1)]
        );
        b.remove(&[1, 5]);
        assert_eq!(b.len(), 1);
        assert_eq!(b.cost(), ELEMENT_COST);
    }
}
