//! Random sorted set calls for `storage_equivalence.rs`, on the same keys
//! as the scalar and list calls (so on items of other types too): puts
//! with ties and repeated values, fetches by index and by score both ways,
//! scores, ranks, increments up to the edge of the finite scores, removes,
//! lengths, and unions of sources in and out of the destination's slot.
//! Only valid arguments, for the reason `ListCall` gives.

use bytes::Bytes;
use jiffy_server::proto::cache_client as cc;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::common as cm;
use proptest::prelude::*;
use tonic::transport::Channel;

use super::{request, shown, KEYS, TEN_MINUTES};

/// A score bound: the index of its score in `SCORES`, and whether exclusive.
type Bound = Option<(usize, bool)>;

#[derive(Clone, Debug)]
pub enum SortedSetCall {
    /// Key, (value, score) indices, TTL, refresh.
    Put(usize, Vec<(usize, usize)>, u64, bool),
    /// Key, start, end, descending.
    FetchByIndex(usize, Option<i32>, Option<i32>, bool),
    /// Key, min, max, offset, count, descending.
    FetchByScore(usize, Bound, Bound, u32, i32, bool),
    GetScores(usize, Vec<usize>),
    GetRank(usize, usize, bool),
    /// Key, value, amount, refresh.
    Increment(usize, usize, usize, bool),
    /// Key, the values to remove (none: all).
    Remove(usize, Option<Vec<usize>>),
    Length(usize),
    LengthByScore(usize, Bound, Bound),
    /// Destination, (source, weight) indices, aggregate.
    UnionStore(usize, Vec<(usize, usize)>, i32),
}

const VALUES: &[&[u8]] = &[b"", b"x", b"y", b"z", b"\x00\xff", b"X"];
/// Ties, fractions that do not round-trip through short text, and the
/// largest finite scores, which increments and unions can overflow.
pub(super) const SCORES: &[f64] = &[
    0.0,
    1.0,
    -1.0,
    0.1,
    1.0 / 3.0,
    2.5,
    1e300,
    f64::MAX,
    -f64::MAX,
    -0.0,
];
const WEIGHTS: &[f32] = &[1.0, 2.0, -1.0, 0.0, 0.5, 1e30];

fn bound() -> impl Strategy<Value = Bound> {
    prop::option::of((0..SCORES.len(), any::<bool>()))
}

fn score_of(bound: Bound) -> Option<f64> {
    bound.map(|(s, _)| SCORES[s])
}

/// The score bounds the handler accepts: the min not over the max.
fn in_order(min: Bound, max: Bound) -> bool {
    match (score_of(min), score_of(max)) {
        (Some(min), Some(max)) => min <= max,
        _ => true,
    }
}

/// The index ranges the handler accepts (see `service/sorted_set.rs`).
fn ranks_in_order(start: Option<i32>, end: Option<i32>) -> bool {
    match (start, end) {
        (Some(s), Some(e)) => {
            let positive_inverted = s > 0 && e > 0 && s > e;
            let negative_inverted = s < 0 && e < 0 && s >= e;
            !(positive_inverted || negative_inverted)
        }
        _ => true,
    }
}

pub fn sorted_set_call() -> impl Strategy<Value = SortedSetCall> {
    let key = 0..KEYS.len();
    let value = 0..VALUES.len();
    let ttl = (1..=3u64).prop_map(|n| n * TEN_MINUTES);
    let elements = prop::collection::vec((value.clone(), 0..SCORES.len()), 1..5);
    let index = prop::option::of(-6..6i32);
    let count = prop_oneof![Just(-1), 1..4i32];
    prop_oneof![
        6 => (key.clone(), elements, ttl, any::<bool>())
            .prop_map(|(k, e, t, r)| SortedSetCall::Put(k, e, t, r)),
        3 => (key.clone(), index.clone(), index, any::<bool>())
            .prop_filter("a valid rank range", |(_, s, e, _)| ranks_in_order(*s, *e))
            .prop_map(|(k, s, e, d)| SortedSetCall::FetchByIndex(k, s, e, d)),
        3 => (key.clone(), bound(), bound(), 0..4u32, count, any::<bool>())
            .prop_filter("a valid score range", |(_, min, max, ..)| in_order(*min, *max))
            .prop_map(|(k, min, max, o, c, d)| SortedSetCall::FetchByScore(k, min, max, o, c, d)),
        2 => (key.clone(), prop::collection::vec(value.clone(), 0..4))
            .prop_map(|(k, v)| SortedSetCall::GetScores(k, v)),
        2 => (key.clone(), value.clone(), any::<bool>())
            .prop_map(|(k, v, d)| SortedSetCall::GetRank(k, v, d)),
        3 => (key.clone(), value.clone(), 0..SCORES.len(), any::<bool>())
            .prop_map(|(k, v, a, r)| SortedSetCall::Increment(k, v, a, r)),
        1 => (key.clone(), prop::option::of(prop::collection::vec(value, 0..3)))
            .prop_map(|(k, v)| SortedSetCall::Remove(k, v)),
        1 => key.clone().prop_map(SortedSetCall::Length),
        1 => (key.clone(), bound(), bound())
            .prop_filter("a valid score range", |(_, min, max)| in_order(*min, *max))
            .prop_map(|(k, min, max)| SortedSetCall::LengthByScore(k, min, max)),
        2 => (key.clone(), prop::collection::vec((key, 0..WEIGHTS.len()), 1..4), 0..3i32)
            .prop_map(|(k, s, a)| SortedSetCall::UnionStore(k, s, a)),
    ]
}

pub async fn sorted_set_answer(data: &mut ScsClient<Channel>, call: SortedSetCall) -> String {
    let name = |k: usize| Bytes::from_static(KEYS[k]);
    let value = |v: usize| Bytes::from_static(VALUES[v]);
    let unbounded = cm::Unbounded {};
    match call {
        SortedSetCall::Put(k, elements, ttl, refresh) => shown(
            data.sorted_set_put(request(cc::SortedSetPutRequest {
                set_name: name(k),
                elements: elements
                    .into_iter()
                    .map(|(v, s)| cc::SortedSetElement {
                        value: value(v),
                        score: SCORES[s],
                    })
                    .collect(),
                ttl_milliseconds: ttl,
                refresh_ttl: refresh,
            }))
            .await,
        ),
        SortedSetCall::FetchByIndex(k, start, end, descending) => {
            use cc::sorted_set_fetch_request::{by_index, ByIndex, Range};
            shown(
                data.sorted_set_fetch(request(cc::SortedSetFetchRequest {
                    set_name: name(k),
                    order: i32::from(descending),
                    with_scores: true,
                    range: Some(Range::ByIndex(ByIndex {
                        start: Some(start.map_or(
                            by_index::Start::UnboundedStart(unbounded),
                            by_index::Start::InclusiveStartIndex,
                        )),
                        end: Some(end.map_or(
                            by_index::End::UnboundedEnd(unbounded),
                            by_index::End::ExclusiveEndIndex,
                        )),
                    })),
                }))
                .await,
            )
        }
        SortedSetCall::FetchByScore(k, min, max, offset, count, descending) => {
            use cc::sorted_set_fetch_request::{by_score, ByScore, Range};
            let score = |(s, exclusive): (usize, bool)| by_score::Score {
                score: SCORES[s],
                exclusive,
            };
            shown(
                data.sorted_set_fetch(request(cc::SortedSetFetchRequest {
                    set_name: name(k),
                    order: i32::from(descending),
                    with_scores: true,
                    range: Some(Range::ByScore(ByScore {
                        min: Some(min.map_or(by_score::Min::UnboundedMin(unbounded), |m| {
                            by_score::Min::MinScore(score(m))
                        })),
                        max: Some(max.map_or(by_score::Max::UnboundedMax(unbounded), |m| {
                            by_score::Max::MaxScore(score(m))
                        })),
                        offset,
                        count,
                    })),
                }))
                .await,
            )
        }
        SortedSetCall::GetScores(k, values) => shown(
            data.sorted_set_get_score(request(cc::SortedSetGetScoreRequest {
                set_name: name(k),
                values: values.into_iter().map(value).collect(),
            }))
            .await,
        ),
        SortedSetCall::GetRank(k, v, descending) => shown(
            data.sorted_set_get_rank(request(cc::SortedSetGetRankRequest {
                set_name: name(k),
                value: value(v),
                order: i32::from(descending),
            }))
            .await,
        ),
        SortedSetCall::Increment(k, v, amount, refresh) => shown(
            data.sorted_set_increment(request(cc::SortedSetIncrementRequest {
                set_name: name(k),
                value: value(v),
                amount: SCORES[amount],
                ttl_milliseconds: TEN_MINUTES,
                refresh_ttl: refresh,
            }))
            .await,
        ),
        SortedSetCall::Remove(k, values) => {
            use cc::sorted_set_remove_request::{All, RemoveElements, Some as Values};
            let remove = match values {
                None => RemoveElements::All(All {}),
                Some(values) => RemoveElements::Some(Values {
                    values: values.into_iter().map(value).collect(),
                }),
            };
            shown(
                data.sorted_set_remove(request(cc::SortedSetRemoveRequest {
                    set_name: name(k),
                    remove_elements: Some(remove),
                }))
                .await,
            )
        }
        SortedSetCall::Length(k) => shown(
            data.sorted_set_length(request(cc::SortedSetLengthRequest { set_name: name(k) }))
                .await,
        ),
        SortedSetCall::LengthByScore(k, min, max) => {
            use cc::sorted_set_length_by_score_request::{Max, Min};
            shown(
                data.sorted_set_length_by_score(request(cc::SortedSetLengthByScoreRequest {
                    set_name: name(k),
                    min: Some(match min {
                        None => Min::UnboundedMin(unbounded),
                        Some((s, false)) => Min::InclusiveMin(SCORES[s]),
                        Some((s, true)) => Min::ExclusiveMin(SCORES[s]),
                    }),
                    max: Some(match max {
                        None => Max::UnboundedMax(unbounded),
                        Some((s, false)) => Max::InclusiveMax(SCORES[s]),
                        Some((s, true)) => Max::ExclusiveMax(SCORES[s]),
                    }),
                }))
                .await,
            )
        }
        SortedSetCall::UnionStore(k, sources, aggregate) => shown(
            data.sorted_set_union_store(request(cc::SortedSetUnionStoreRequest {
                set_name: name(k),
                sources: sources
                    .into_iter()
                    .map(|(s, w)| cc::sorted_set_union_store_request::Source {
                        set_name: name(s),
                        weight: WEIGHTS[w],
                    })
                    .collect(),
                aggregate,
                ttl_milliseconds: TEN_MINUTES,
            }))
            .await,
        ),
    }
}
