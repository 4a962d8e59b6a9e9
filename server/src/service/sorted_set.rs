//! `cache_client.Scs`: the sorted set calls. `scs.rs` routes them here.
//!
//! Each handler checks the whole request (name, values, scores, ranges,
//! TTL) before the store sees it, so a refused call changes nothing:
//! - a score, amount or score bound that is NaN, and a score, amount or
//!   weight that is infinite, is INVALID_ARGUMENT (a sorted set holds
//!   finite scores only; an infinite bound is allowed, it bounds nothing);
//! - a range the wrong way round is INVALID_ARGUMENT, as the official JS
//!   SDK refuses it before sending: by index, a positive start after a
//!   positive end, or a negative start not before a negative end; by
//!   score, a min over the max; and a count of 0;
//! - an increment or union whose score would not be finite is
//!   FAILED_PRECONDITION (the store checks it, see `Error::ScoreNotFinite`).
//!
//! A range that selects nothing in an existing set answers it found with
//! no elements, as the official suites expect; a missing set is missing,
//! SortedSetGetRank's included, as the Momento service answers.
//! Scores are stored with -0.0 as 0.0.

use tonic::{Request, Response};

use super::{collection_ttl, finite, Answer, DataPlane};
use crate::backend::{
    canonical, Aggregate, ScoreBound, ScoreRange, SortOrder, SortedSetRange, SortedSetRemove,
    SortedSetUnion, Storage,
};
use crate::error::Error;
use crate::proto::cache_client::*;
use crate::proto::common::Unbounded;

pub(super) async fn sorted_set_put<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SortedSetPutRequest>,
) -> Answer<SortedSetPutResponse> {
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let limits = &plane.limits;
    limits.check_key(&r.set_name)?;
    if r.elements.is_empty() {
        return Err(
            Error::InvalidArgument("SortedSetPut needs at least one element".into()).into(),
        );
    }
    limits.check_request_items(r.elements.len())?;
    for element in &r.elements {
        limits.check_element("a sorted set value", &element.value)?;
        finite("a score", element.score)?;
    }
    let ttl = collection_ttl(limits, r.ttl_milliseconds, r.refresh_ttl)?;
    let elements = r
        .elements
        .into_iter()
        .map(|e| (e.value, canonical(e.score)))
        .collect();
    plane
        .store
        .sorted_set_put(
            &cache,
            &r.set_name,
            elements,
            ttl,
            limits.max_collection_elements,
        )
        .await?;
    Ok(Response::new(SortedSetPutResponse {}))
}

pub(super) async fn sorted_set_fetch<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SortedSetFetchRequest>,
) -> Answer<SortedSetFetchResponse> {
    use sorted_set_fetch_request::{by_index, by_score, Order, Range};
    use sorted_set_fetch_response::{found, Found, Missing, SortedSet};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.set_name)?;
    let order = match Order::try_from(r.order) {
        Ok(Order::Ascending) => SortOrder::Ascending,
        Ok(Order::Descending) => SortOrder::Descending,
        Err(_) => return Err(unknown("order", r.order).into()),
    };
    let range = match &r.range {
        Some(Range::ByIndex(by_index)) => {
            let start = match by_index.start {
                Some(by_index::Start::InclusiveStartIndex(start)) => Some(start),
                Some(by_index::Start::UnboundedStart(Unbounded {})) | None => None,
            };
            let end = match by_index.end {
                Some(by_index::End::ExclusiveEndIndex(end)) => Some(end),
                Some(by_index::End::UnboundedEnd(Unbounded {})) | None => None,
            };
            check_ranks(start, end)?;
            SortedSetRange::ByIndex { start, end }
        }
        Some(Range::ByScore(by_score)) => {
            let bound = |score: &by_score::Score| {
                if score.exclusive {
                    ScoreBound::Exclusive(score.score)
                } else {
                    ScoreBound::Inclusive(score.score)
                }
            };
            let scores = ScoreRange {
                min: match &by_score.min {
                    Some(by_score::Min::MinScore(score)) => bound(score),
                    Some(by_score::Min::UnboundedMin(Unbounded {})) | None => ScoreBound::Unbounded,
                },
                max: match &by_score.max {
                    Some(by_score::Max::MaxScore(score)) => bound(score),
                    Some(by_score::Max::UnboundedMax(Unbounded {})) | None => ScoreBound::Unbounded,
                },
            };
            check_scores(scores)?;
            let count = match by_score.count {
                0 => {
                    return Err(Error::InvalidArgument(
                        "count must be strictly positive, or negative for every element".into(),
                    )
                    .into())
                }
                count if count < 0 => None,
                count => Some(count as u32),
            };
            SortedSetRange::ByScore {
                scores,
                offset: by_score.offset,
                count,
            }
        }
        None => SortedSetRange::ByIndex {
            start: None,
            end: None,
        },
    };
    let sorted_set = match plane
        .store
        .sorted_set_fetch(
            &cache,
            &r.set_name,
            range,
            order,
            plane.limits.max_response_size,
        )
        .await?
    {
        Some(elements) => {
            let elements = if r.with_scores {
                found::Elements::ValuesWithScores(found::ValuesWithScores {
                    elements: elements
                        .into_iter()
                        .map(|(value, score)| SortedSetElement { value, score })
                        .collect(),
                })
            } else {
                found::Elements::Values(found::Values {
                    values: elements.into_iter().map(|(value, _)| value).collect(),
                })
            };
            SortedSet::Found(Found {
                elements: Some(elements),
            })
        }
        None => SortedSet::Missing(Missing {}),
    };
    let answer = SortedSetFetchResponse {
        sorted_set: Some(sorted_set),
    };
    plane.limits.check_answer(&answer)?;
    Ok(Response::new(answer))
}

pub(super) async fn sorted_set_get_score<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SortedSetGetScoreRequest>,
) -> Answer<SortedSetGetScoreResponse> {
    use sorted_set_get_score_response::{
        SortedSet, SortedSetFound, SortedSetGetScoreResponsePart, SortedSetMissing,
    };
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    let limits = &plane.limits;
    limits.check_key(&r.set_name)?;
    limits.check_request_items(r.values.len())?;
    for value in &r.values {
        limits.check_element("a sorted set value", value)?;
    }
    let sorted_set = match plane
        .store
        .sorted_set_get_scores(&cache, &r.set_name, &r.values)
        .await?
    {
        Some(scores) => SortedSet::Found(SortedSetFound {
            elements: scores
                .into_iter()
                .map(|score| match score {
                    Some(score) => SortedSetGetScoreResponsePart {
                        result: ECacheResult::Hit as i32,
                        score,
                    },
                    None => SortedSetGetScoreResponsePart {
                        result: ECacheResult::Miss as i32,
                        score: 0.0,
                    },
                })
                .collect(),
        }),
        None => SortedSet::Missing(SortedSetMissing {}),
    };
    let answer = SortedSetGetScoreResponse {
        sorted_set: Some(sorted_set),
    };
    plane.limits.check_answer(&answer)?;
    Ok(Response::new(answer))
}

pub(super) async fn sorted_set_get_rank<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SortedSetGetRankRequest>,
) -> Answer<SortedSetGetRankResponse> {
    use sorted_set_get_rank_request::Order;
    use sorted_set_get_rank_response::{Rank, RankResponsePart, SortedSetMissing};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.set_name)?;
    plane.limits.check_element("a sorted set value", &r.value)?;
    let order = match Order::try_from(r.order) {
        Ok(Order::Ascending) => SortOrder::Ascending,
        Ok(Order::Descending) => SortOrder::Descending,
        Err(_) => return Err(unknown("order", r.order).into()),
    };
    let rank = match plane
        .store
        .sorted_set_get_rank(&cache, &r.set_name, &r.value, order)
        .await?
    {
        Some(Some(rank)) => Rank::ElementRank(RankResponsePart {
            result: ECacheResult::Hit as i32,
            rank,
        }),
        // A value the set lacks: a MISS part, which the official Python,
        // JavaScript and Go SDKs read as a miss.
        Some(None) => Rank::ElementRank(RankResponsePart {
            result: ECacheResult::Miss as i32,
            rank: 0,
        }),
        // A missing set: `missing`, as the Momento service answers (the
        // official Java SDK's own tests expect a miss there, and it reads
        // any rank part as a hit).
        None => Rank::Missing(SortedSetMissing {}),
    };
    Ok(Response::new(SortedSetGetRankResponse { rank: Some(rank) }))
}

pub(super) async fn sorted_set_increment<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SortedSetIncrementRequest>,
) -> Answer<SortedSetIncrementResponse> {
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let limits = &plane.limits;
    limits.check_key(&r.set_name)?;
    limits.check_element("a sorted set value", &r.value)?;
    finite("the amount", r.amount)?;
    let ttl = collection_ttl(limits, r.ttl_milliseconds, r.refresh_ttl)?;
    let score = plane
        .store
        .sorted_set_increment(
            &cache,
            &r.set_name,
            r.value,
            canonical(r.amount),
            ttl,
            limits.max_collection_elements,
        )
        .await?;
    Ok(Response::new(SortedSetIncrementResponse { score }))
}

pub(super) async fn sorted_set_remove<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SortedSetRemoveRequest>,
) -> Answer<SortedSetRemoveResponse> {
    use sorted_set_remove_request::RemoveElements;
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let limits = &plane.limits;
    limits.check_key(&r.set_name)?;
    let remove = match r.remove_elements {
        Some(RemoveElements::All(_)) => SortedSetRemove::All,
        Some(RemoveElements::Some(some)) => {
            limits.check_request_items(some.values.len())?;
            for value in &some.values {
                limits.check_element("a sorted set value", value)?;
            }
            SortedSetRemove::Values(some.values)
        }
        None => {
            return Err(Error::InvalidArgument(
                "SortedSetRemove needs `all` or `some` values to remove".into(),
            )
            .into())
        }
    };
    plane
        .store
        .sorted_set_remove(&cache, &r.set_name, &remove)
        .await?;
    Ok(Response::new(SortedSetRemoveResponse {}))
}

pub(super) async fn sorted_set_length<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SortedSetLengthRequest>,
) -> Answer<SortedSetLengthResponse> {
    use sorted_set_length_response::{Found, Missing, SortedSet};
    let cache = plane.cache(&request)?;
    let name = &request.get_ref().set_name;
    plane.limits.check_key(name)?;
    let sorted_set = match plane.store.sorted_set_length(&cache, name).await? {
        Some(length) => SortedSet::Found(Found {
            length: wire_length(length),
        }),
        None => SortedSet::Missing(Missing {}),
    };
    Ok(Response::new(SortedSetLengthResponse {
        sorted_set: Some(sorted_set),
    }))
}

pub(super) async fn sorted_set_length_by_score<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SortedSetLengthByScoreRequest>,
) -> Answer<SortedSetLengthByScoreResponse> {
    use sorted_set_length_by_score_request::{Max, Min};
    use sorted_set_length_by_score_response::{Found, Missing, SortedSet};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.set_name)?;
    let scores = ScoreRange {
        min: match r.min {
            Some(Min::InclusiveMin(min)) => ScoreBound::Inclusive(min),
            Some(Min::ExclusiveMin(min)) => ScoreBound::Exclusive(min),
            Some(Min::UnboundedMin(Unbounded {})) | None => ScoreBound::Unbounded,
        },
        max: match r.max {
            Some(Max::InclusiveMax(max)) => ScoreBound::Inclusive(max),
            Some(Max::ExclusiveMax(max)) => ScoreBound::Exclusive(max),
            Some(Max::UnboundedMax(Unbounded {})) | None => ScoreBound::Unbounded,
        },
    };
    check_scores(scores)?;
    let sorted_set = match plane
        .store
        .sorted_set_length_by_score(&cache, &r.set_name, scores)
        .await?
    {
        Some(length) => SortedSet::Found(Found {
            length: wire_length(length),
        }),
        None => SortedSet::Missing(Missing {}),
    };
    Ok(Response::new(SortedSetLengthByScoreResponse {
        sorted_set: Some(sorted_set),
    }))
}

pub(super) async fn sorted_set_union_store<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SortedSetUnionStoreRequest>,
) -> Answer<SortedSetUnionStoreResponse> {
    use sorted_set_union_store_request::AggregateFunction;
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let limits = &plane.limits;
    limits.check_key(&r.set_name)?;
    if r.sources.is_empty() {
        return Err(
            Error::InvalidArgument("SortedSetUnionStore needs at least one source".into()).into(),
        );
    }
    limits.check_request_items(r.sources.len())?;
    for source in &r.sources {
        limits.check_key(&source.set_name)?;
        if !source.weight.is_finite() {
            return Err(Error::InvalidArgument("a weight must be a finite number".into()).into());
        }
    }
    let aggregate = match AggregateFunction::try_from(r.aggregate) {
        Ok(AggregateFunction::Sum) => Aggregate::Sum,
        Ok(AggregateFunction::Min) => Aggregate::Min,
        Ok(AggregateFunction::Max) => Aggregate::Max,
        Err(_) => return Err(unknown("aggregate function", r.aggregate).into()),
    };
    let ttl = limits.ttl(r.ttl_milliseconds)?;
    let union = SortedSetUnion {
        sources: r
            .sources
            .into_iter()
            .map(|source| (source.set_name, source.weight))
            .collect(),
        aggregate,
    };
    let length = plane
        .store
        .sorted_set_union_store(
            &cache,
            &r.set_name,
            &union,
            ttl,
            limits.max_collection_elements,
        )
        .await?;
    Ok(Response::new(SortedSetUnionStoreResponse {
        length: wire_length(length),
    }))
}

/// Ranks the wrong way round, as the official JS SDK refuses them (mixed
/// signs depend on the length, so they are left to select what they do).
fn check_ranks(start: Option<i32>, end: Option<i32>) -> Result<(), Error> {
    let (Some(start), Some(end)) = (start, end) else {
        return Ok(());
    };
    if start > 0 && end > 0 && start > end {
        return Err(Error::InvalidArgument(
            "start rank must be less than end rank".into(),
        ));
    }
    if start < 0 && end < 0 && start >= end {
        return Err(Error::InvalidArgument(
            "negative start rank must be less than negative end rank".into(),
        ));
    }
    Ok(())
}

/// Score bounds: not NaN, the min not over the max.
fn check_scores(range: ScoreRange) -> Result<(), Error> {
    let value = |bound| match bound {
        ScoreBound::Unbounded => None,
        ScoreBound::Inclusive(score) | ScoreBound::Exclusive(score) => Some(score),
    };
    let (min, max) = (value(range.min), value(range.max));
    if min.is_some_and(f64::is_nan) || max.is_some_and(f64::is_nan) {
        return Err(Error::InvalidArgument(
            "a score bound must be a number, not NaN".into(),
        ));
    }
    if let (Some(min), Some(max)) = (min, max) {
        if min > max {
            return Err(Error::InvalidArgument(
                "min score must be less than or equal to max score".into(),
            ));
        }
    }
    Ok(())
}

fn unknown(what: &str, value: i32) -> Error {
    Error::InvalidArgument(format!("{value} is not a known {what}"))
}

/// A length as the wire's `uint32` (`--max-collection-elements` keeps
/// lengths far below its limit).
fn wire_length(length: usize) -> u32 {
    u32::try_from(length).unwrap_or(u32::MAX)
}
