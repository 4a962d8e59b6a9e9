//! Random leaderboard calls for `storage_equivalence.rs`, on boards named
//! as the items of the other calls are (which must never meet them):
//! upserts with ties and ids given twice, removals, fetches by rank and by
//! score both ways with offsets and limits, ranks and competition ranks of
//! ids held and not, and lengths and deletions. Only valid arguments, for
//! the reason `ListCall` gives.

use jiffy_server::proto::common::Unbounded;
use jiffy_server::proto::leaderboard as lb;
use jiffy_server::proto::leaderboard::leaderboard_client::LeaderboardClient;
use proptest::prelude::*;
use tonic::transport::Channel;

use super::sorted_set::SCORES;
use super::{request, shown, KEYS};

/// A score bound: the index of its score in `SCORES` (the sorted sets'
/// ties, fractions that do not round-trip through short text, extremes).
type Bound = Option<usize>;

#[derive(Clone, Debug)]
pub enum LeaderboardCall {
    /// Board, (id, score) indices.
    Upsert(usize, Vec<(u32, usize)>),
    Remove(usize, Vec<u32>),
    /// Board, start, end, descending.
    ByRank(usize, u32, u32, bool),
    /// Board, min, max, offset, limit, descending.
    ByScore(usize, Bound, Bound, u32, u32, bool),
    /// Board, ids, descending.
    Rank(usize, Vec<u32>, bool),
    /// Board, ids, order (None: the default).
    CompetitionRank(usize, Vec<u32>, Option<bool>),
    Length(usize),
    Delete(usize),
}

/// Ids: few, so ties and repeats are common, and the largest.
const IDS: std::ops::Range<u32> = 0..6;
const LARGEST_ID: u32 = u32::MAX;

fn id() -> impl Strategy<Value = u32> {
    prop_oneof![9 => IDS, 1 => Just(LARGEST_ID)]
}

fn bound() -> impl Strategy<Value = Bound> {
    prop::option::of(0..SCORES.len())
}

/// The score ranges the handler accepts: the min not over the max.
fn in_order(min: Bound, max: Bound) -> bool {
    match (min, max) {
        (Some(min), Some(max)) => SCORES[min] <= SCORES[max],
        _ => true,
    }
}

pub fn leaderboard_call() -> impl Strategy<Value = LeaderboardCall> {
    let board = 0..KEYS.len();
    let order = any::<bool>();
    prop_oneof![
        6 => (board.clone(), prop::collection::vec((id(), 0..SCORES.len()), 1..6))
            .prop_map(|(b, e)| LeaderboardCall::Upsert(b, e)),
        2 => (board.clone(), prop::collection::vec(id(), 0..4))
            .prop_map(|(b, i)| LeaderboardCall::Remove(b, i)),
        3 => (board.clone(), 0..6u32, 1..8u32, order)
            .prop_map(|(b, s, width, d)| LeaderboardCall::ByRank(b, s, s + width, d)),
        3 => (board.clone(), bound(), bound(), 0..4u32, 1..4u32, order)
            .prop_filter("a valid score range", |(_, min, max, ..)| in_order(*min, *max))
            .prop_map(|(b, min, max, o, l, d)| LeaderboardCall::ByScore(b, min, max, o, l, d)),
        2 => (board.clone(), prop::collection::vec(id(), 0..4), order)
            .prop_map(|(b, i, d)| LeaderboardCall::Rank(b, i, d)),
        2 => (board.clone(), prop::collection::vec(id(), 0..4), prop::option::of(order))
            .prop_map(|(b, i, d)| LeaderboardCall::CompetitionRank(b, i, d)),
        1 => board.clone().prop_map(LeaderboardCall::Length),
        1 => board.prop_map(LeaderboardCall::Delete),
    ]
}

fn wire_order(descending: bool) -> i32 {
    if descending {
        lb::Order::Descending as i32
    } else {
        lb::Order::Ascending as i32
    }
}

pub async fn leaderboard_answer(
    boards: &mut LeaderboardClient<Channel>,
    call: LeaderboardCall,
) -> String {
    use lb::score_range::{Max, Min};
    let name = |b: usize| String::from_utf8_lossy(KEYS[b]).into_owned();
    match call {
        LeaderboardCall::Upsert(b, elements) => shown(
            boards
                .upsert_elements(request(lb::UpsertElementsRequest {
                    leaderboard: name(b),
                    elements: elements
                        .into_iter()
                        .map(|(id, s)| lb::Element {
                            id,
                            score: SCORES[s],
                        })
                        .collect(),
                }))
                .await,
        ),
        LeaderboardCall::Remove(b, ids) => shown(
            boards
                .remove_elements(request(lb::RemoveElementsRequest {
                    leaderboard: name(b),
                    ids,
                }))
                .await,
        ),
        LeaderboardCall::ByRank(b, start, end, descending) => shown(
            boards
                .get_by_rank(request(lb::GetByRankRequest {
                    leaderboard: name(b),
                    rank_range: Some(lb::RankRange {
                        start_inclusive: start,
                        end_exclusive: end,
                    }),
                    order: wire_order(descending),
                }))
                .await,
        ),
        LeaderboardCall::ByScore(b, min, max, offset, limit, descending) => shown(
            boards
                .get_by_score(request(lb::GetByScoreRequest {
                    leaderboard: name(b),
                    score_range: Some(lb::ScoreRange {
                        min: Some(min.map_or(Min::UnboundedMin(Unbounded {}), |s| {
                            Min::MinInclusive(SCORES[s])
                        })),
                        max: Some(max.map_or(Max::UnboundedMax(Unbounded {}), |s| {
                            Max::MaxExclusive(SCORES[s])
                        })),
                    }),
                    offset,
                    limit_elements: limit,
                    order: wire_order(descending),
                }))
                .await,
        ),
        LeaderboardCall::Rank(b, ids, descending) => shown(
            boards
                .get_rank(request(lb::GetRankRequest {
                    leaderboard: name(b),
                    ids,
                    order: wire_order(descending),
                }))
                .await,
        ),
        LeaderboardCall::CompetitionRank(b, ids, order) => shown(
            boards
                .get_competition_rank(request(lb::GetCompetitionRankRequest {
                    leaderboard: name(b),
                    ids,
                    order: order.map(wire_order),
                }))
                .await,
        ),
        LeaderboardCall::Length(b) => shown(
            boards
                .get_leaderboard_length(request(lb::GetLeaderboardLengthRequest {
                    leaderboard: name(b),
                }))
                .await,
        ),
        LeaderboardCall::Delete(b) => shown(
            boards
                .delete_leaderboard(request(lb::DeleteLeaderboardRequest {
                    leaderboard: name(b),
                }))
                .await,
        ),
    }
}
