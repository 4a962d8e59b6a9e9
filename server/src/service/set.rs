//! `cache_client.Scs`: the set calls. `scs.rs` routes them here.
//!
//! Each handler checks the whole request (name, elements, TTL, count)
//! before the store sees it, so a refused call changes nothing.
//!
//! Two requests the official SDKs never send have an answer of our own:
//! SetPop of count 0 is INVALID_ARGUMENT (the JS SDK refuses it itself
//! with that code; the Go SDK sends 1 when no count is given), and
//! SetDifference with a `minuend` (request minus stored, a result the
//! response has no room for) is INVALID_ARGUMENT too. SetSample of limit 0
//! is a hit with no elements on an existing set, as the JS SDK's suite
//! expects of the service.
//!
//! Answers that can be large are held to `--max-response-size`: fetch and
//! sample once built (nothing changed yet), pop inside the store, before
//! it removes the elements it would answer.

use tonic::{Request, Response};

use super::{collection_ttl, Answer, DataPlane};
use crate::backend::{SetRemove, Storage};
use crate::error::Error;
use crate::proto::cache_client::*;

pub(super) async fn set_union<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetUnionRequest>,
) -> Answer<SetUnionResponse> {
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let limits = &plane.limits;
    limits.check_key(&r.set_name)?;
    limits.check_request_items(r.elements.len())?;
    for element in &r.elements {
        limits.check_element("a set element", element)?;
    }
    let ttl = collection_ttl(limits, r.ttl_milliseconds, r.refresh_ttl)?;
    plane
        .store
        .set_union(
            &cache,
            &r.set_name,
            r.elements,
            ttl,
            limits.max_collection_elements,
        )
        .await?;
    Ok(Response::new(SetUnionResponse {}))
}

pub(super) async fn set_difference<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetDifferenceRequest>,
) -> Answer<SetDifferenceResponse> {
    use set_difference_request::subtrahend::SubtrahendSet;
    use set_difference_request::{Difference, Subtrahend};
    use set_difference_response::{Found, Missing, Set};
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    plane.limits.check_key(&r.set_name)?;
    let remove = match r.difference {
        Some(Difference::Subtrahend(Subtrahend {
            subtrahend_set: Some(SubtrahendSet::Set(set)),
        })) => {
            plane.limits.check_request_items(set.elements.len())?;
            SetRemove::Elements(set.elements)
        }
        Some(Difference::Subtrahend(Subtrahend {
            subtrahend_set: Some(SubtrahendSet::Identity(_)),
        })) => SetRemove::All,
        Some(Difference::Subtrahend(Subtrahend {
            subtrahend_set: None,
        })) => {
            return Err(Error::InvalidArgument(
                "SetDifference's subtrahend needs `set` (the elements to remove) or `identity` (the whole set)".into(),
            )
            .into())
        }
        Some(Difference::Minuend(_)) => {
            return Err(Error::InvalidArgument(
                "SetDifference with a `minuend` is not supported: send a `subtrahend` to remove elements from the set".into(),
            )
            .into())
        }
        None => {
            return Err(Error::InvalidArgument(
                "SetDifference needs a `subtrahend`: the elements to remove, or `identity`".into(),
            )
            .into())
        }
    };
    let set = match plane
        .store
        .set_difference(&cache, &r.set_name, &remove)
        .await?
    {
        true => Set::Found(Found {}),
        false => Set::Missing(Missing {}),
    };
    Ok(Response::new(SetDifferenceResponse { set: Some(set) }))
}

pub(super) async fn set_fetch<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetFetchRequest>,
) -> Answer<SetFetchResponse> {
    use set_fetch_response::{Found, Missing, Set};
    let cache = plane.cache(&request)?;
    let name = &request.get_ref().set_name;
    plane.limits.check_key(name)?;
    let max_answer = plane.limits.max_response_size;
    let set = match plane.store.set_fetch(&cache, name, max_answer).await? {
        Some(elements) => Set::Found(Found { elements }),
        None => Set::Missing(Missing {}),
    };
    let answer = SetFetchResponse { set: Some(set) };
    plane.limits.check_answer(&answer)?;
    Ok(Response::new(answer))
}

pub(super) async fn set_contains<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetContainsRequest>,
) -> Answer<SetContainsResponse> {
    use set_contains_response::{Found, Missing, Set};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.set_name)?;
    plane.limits.check_request_items(r.elements.len())?;
    let set = match plane
        .store
        .set_contains(&cache, &r.set_name, &r.elements)
        .await?
    {
        Some(contains) => Set::Found(Found { contains }),
        None => Set::Missing(Missing {}),
    };
    Ok(Response::new(SetContainsResponse { set: Some(set) }))
}

pub(super) async fn set_length<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetLengthRequest>,
) -> Answer<SetLengthResponse> {
    use set_length_response::{Found, Missing, Set};
    let cache = plane.cache(&request)?;
    let name = &request.get_ref().set_name;
    plane.limits.check_key(name)?;
    let set = match plane.store.set_length(&cache, name).await? {
        // `--max-collection-elements` keeps lengths far below u32::MAX.
        Some(length) => Set::Found(Found {
            length: u32::try_from(length).unwrap_or(u32::MAX),
        }),
        None => Set::Missing(Missing {}),
    };
    Ok(Response::new(SetLengthResponse { set: Some(set) }))
}

pub(super) async fn set_pop<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetPopRequest>,
) -> Answer<SetPopResponse> {
    use set_pop_response::{Found, Missing, Set};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.set_name)?;
    if r.count == 0 {
        return Err(Error::InvalidArgument("SetPop's count must be at least 1".into()).into());
    }
    // The store sizes the answer before it removes anything: checked here,
    // after the pop, the elements of a refused answer would be lost.
    let max_answer = plane.limits.max_response_size;
    let set = match plane
        .store
        .set_pop(&cache, &r.set_name, r.count, max_answer)
        .await?
    {
        Some(elements) => Set::Found(Found { elements }),
        None => Set::Missing(Missing {}),
    };
    Ok(Response::new(SetPopResponse { set: Some(set) }))
}

pub(super) async fn set_sample<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetSampleRequest>,
) -> Answer<SetSampleResponse> {
    use set_sample_response::{Found, Missing, Set};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.set_name)?;
    let set = match plane.store.set_sample(&cache, &r.set_name, r.limit).await? {
        Some(elements) => Set::Found(Found { elements }),
        None => Set::Missing(Missing {}),
    };
    let answer = SetSampleResponse { set: Some(set) };
    plane.limits.check_answer(&answer)?;
    Ok(Response::new(answer))
}
