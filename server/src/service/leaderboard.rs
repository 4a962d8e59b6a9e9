//! `leaderboard.Leaderboard`: the leaderboard calls, dispatched to the
//! handlers below by the impl `build.rs` writes from the catalogue.
//!
//! Each handler checks the whole request before the store sees it, so a
//! refused call changes nothing; every refusal is INVALID_ARGUMENT:
//! - a leaderboard name that is empty, or longer than `--max-key-size`;
//! - an upsert of no elements; an upsert, removal or rank lookup of more
//!   than 8,192 elements or ids;
//! - a score, or a bound of a score range, that is NaN or infinite;
//! - a rank range that is missing, empty or the wrong way round, or wider
//!   than 8,192; a score range whose min is over its max;
//! - a limit of 0 or over 8,192; an order that is neither ascending nor
//!   descending.
//!
//! A board that does not exist reads as empty. No answer holds more than
//! 8,192 elements of at most 23 bytes each, so an answer is built whole and
//! then held to `--max-response-size` like any other.

use tonic::{Request, Response};

use super::{Answer, DataPlane};
use crate::backend::{canonical, RankKind, ScoreSpan, SortOrder, Storage};
use crate::error::Error;
use crate::proto::common::Empty;
use crate::proto::leaderboard::leaderboard_server::Leaderboard;
use crate::proto::leaderboard::score_range::{Max, Min};
// The request and response messages of every call.
use crate::proto::leaderboard::*;

include!(concat!(env!("OUT_DIR"), "/leaderboard_dispatch.rs"));

/// The most elements or ids a request names, and a query answers.
pub const MAX_ELEMENTS: usize = 8192;

/// The leaderboard's name, checked as a key is.
fn board<'a, S: Storage>(plane: &DataPlane<S>, name: &'a str) -> Result<&'a [u8], Error> {
    if name.is_empty() {
        return Err(Error::InvalidArgument(
            "a leaderboard name must not be empty".into(),
        ));
    }
    plane.limits.check_key(name.as_bytes())?;
    Ok(name.as_bytes())
}

/// At most [`MAX_ELEMENTS`] of `what` in one request.
fn at_most(what: &str, count: usize) -> Result<(), Error> {
    if count > MAX_ELEMENTS {
        return Err(Error::InvalidArgument(format!(
            "at most {MAX_ELEMENTS} {what} per call, not {count}"
        )));
    }
    Ok(())
}

/// A finite score, stored as [`canonical`] gives it.
fn finite(what: &str, score: f64) -> Result<f64, Error> {
    super::finite(what, score).map(canonical)
}

fn order(wire: i32) -> Result<SortOrder, Error> {
    match Order::try_from(wire) {
        Ok(Order::Ascending) => Ok(SortOrder::Ascending),
        Ok(Order::Descending) => Ok(SortOrder::Descending),
        Err(_) => Err(Error::InvalidArgument(format!("unknown order {wire}"))),
    }
}

fn ranked(elements: Vec<crate::backend::RankedElement>) -> Vec<RankedElement> {
    elements
        .into_iter()
        .map(|e| RankedElement {
            id: e.id,
            rank: e.rank,
            score: e.score,
        })
        .collect()
}

pub(super) async fn delete_leaderboard<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<DeleteLeaderboardRequest>,
) -> Answer<Empty> {
    let cache = plane.cache(&request)?;
    let name = board(plane, &request.get_ref().leaderboard)?;
    plane.store.leaderboard_delete(&cache, name).await?;
    Ok(Response::new(Empty {}))
}

pub(super) async fn upsert_elements<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<UpsertElementsRequest>,
) -> Answer<Empty> {
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    let name = board(plane, &r.leaderboard)?;
    if r.elements.is_empty() {
        return Err(
            Error::InvalidArgument("UpsertElements needs at least one element".into()).into(),
        );
    }
    at_most("elements", r.elements.len())?;
    let elements = r
        .elements
        .iter()
        .map(|e| Ok((e.id, finite("a score", e.score)?)))
        .collect::<Result<Vec<_>, Error>>()?;
    plane
        .store
        .leaderboard_upsert(&cache, name, elements, plane.limits.max_collection_elements)
        .await?;
    Ok(Response::new(Empty {}))
}

pub(super) async fn remove_elements<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<RemoveElementsRequest>,
) -> Answer<Empty> {
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    let name = board(plane, &r.leaderboard)?;
    at_most("ids", r.ids.len())?;
    plane.store.leaderboard_remove(&cache, name, &r.ids).await?;
    Ok(Response::new(Empty {}))
}

pub(super) async fn get_leaderboard_length<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<GetLeaderboardLengthRequest>,
) -> Answer<GetLeaderboardLengthResponse> {
    let cache = plane.cache(&request)?;
    let name = board(plane, &request.get_ref().leaderboard)?;
    let count = plane.store.leaderboard_length(&cache, name).await?;
    Ok(Response::new(GetLeaderboardLengthResponse { count }))
}

pub(super) async fn get_by_rank<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<GetByRankRequest>,
) -> Answer<GetByRankResponse> {
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    let name = board(plane, &r.leaderboard)?;
    let order = order(r.order)?;
    let range = r
        .rank_range
        .ok_or_else(|| Error::InvalidArgument("GetByRank needs a rank range".into()))?;
    let (start, end) = (range.start_inclusive, range.end_exclusive);
    if start >= end {
        return Err(Error::InvalidArgument(format!(
            "the rank range {start}..{end} is empty: its start must be below its end"
        ))
        .into());
    }
    at_most("ranks", (end - start) as usize)?;
    let elements = plane
        .store
        .leaderboard_by_rank(&cache, name, start, end, order)
        .await?;
    answer(
        plane,
        GetByRankResponse {
            elements: ranked(elements),
        },
    )
}

pub(super) async fn get_by_score<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<GetByScoreRequest>,
) -> Answer<GetByScoreResponse> {
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    let name = board(plane, &r.leaderboard)?;
    let order = order(r.order)?;
    let range = r.score_range.unwrap_or_default();
    let min = match range.min {
        Some(Min::MinInclusive(min)) => Some(finite("a score range's min", min)?),
        Some(Min::UnboundedMin(_)) | None => None,
    };
    let max = match range.max {
        Some(Max::MaxExclusive(max)) => Some(finite("a score range's max", max)?),
        Some(Max::UnboundedMax(_)) | None => None,
    };
    if let (Some(min), Some(max)) = (min, max) {
        if min > max {
            return Err(Error::InvalidArgument(format!(
                "the score range's min {min} is over its max {max}"
            ))
            .into());
        }
    }
    let limit = r.limit_elements;
    if limit == 0 || limit as usize > MAX_ELEMENTS {
        return Err(Error::InvalidArgument(format!(
            "limit_elements must be 1 to {MAX_ELEMENTS}, not {limit}"
        ))
        .into());
    }
    let span = ScoreSpan { min, max };
    let elements = plane
        .store
        .leaderboard_by_score(&cache, name, span, r.offset, limit, order)
        .await?;
    answer(
        plane,
        GetByScoreResponse {
            elements: ranked(elements),
        },
    )
}

pub(super) async fn get_rank<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<GetRankRequest>,
) -> Answer<GetRankResponse> {
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    let elements = rank(
        plane,
        &cache,
        &r.leaderboard,
        &r.ids,
        r.order,
        RankKind::Position,
    )
    .await?;
    answer(plane, GetRankResponse { elements })
}

pub(super) async fn get_competition_rank<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<GetCompetitionRankRequest>,
) -> Answer<GetCompetitionRankResponse> {
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    // Descending unless the request says otherwise.
    let wire = r.order.unwrap_or(Order::Descending as i32);
    let kind = RankKind::Competition;
    let elements = rank(plane, &cache, &r.leaderboard, &r.ids, wire, kind).await?;
    answer(plane, GetCompetitionRankResponse { elements })
}

/// GetRank and GetCompetitionRank, which differ in how they count.
async fn rank<S: Storage>(
    plane: &DataPlane<S>,
    cache: &S::Cache,
    leaderboard: &str,
    ids: &[u32],
    wire_order: i32,
    kind: RankKind,
) -> Result<Vec<RankedElement>, Error> {
    let name = board(plane, leaderboard)?;
    let order = order(wire_order)?;
    at_most("ids", ids.len())?;
    let elements = plane
        .store
        .leaderboard_rank(cache, name, ids, order, kind)
        .await?;
    Ok(ranked(elements))
}

fn answer<S: Storage, T: prost::Message>(plane: &DataPlane<S>, answer: T) -> Answer<T> {
    plane.limits.check_answer(&answer)?;
    Ok(Response::new(answer))
}
