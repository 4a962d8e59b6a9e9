//! GetWithHash and SetIfHash: scalar reads and conditional writes that
//! carry a hash of the value (`backend::value_hash`), so a client can
//! write back only if nobody changed the value since it read it, without
//! sending the value to compare.

use tonic::{Request, Response};

use super::{Answer, DataPlane};
use crate::backend::{value_hash, Condition, Storage};
use crate::error::Error;
use crate::proto::cache_client::{
    get_with_hash_response, set_if_hash_request, set_if_hash_response, GetWithHashRequest,
    GetWithHashResponse, SetIfHashRequest, SetIfHashResponse,
};

pub(super) async fn get_with_hash<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<GetWithHashRequest>,
) -> Answer<GetWithHashResponse> {
    use get_with_hash_response::{Found, Missing, Result};
    let cache = plane.cache(&request)?;
    let key = &request.get_ref().cache_key;
    plane.limits.check_key(key)?;
    let result = match plane
        .lookup(&cache, super::cache_name(&request), key)
        .await?
    {
        Some(value) => Result::Found(Found {
            hash: value_hash(&value),
            value,
        }),
        None => Result::Missing(Missing {}),
    };
    Ok(Response::new(GetWithHashResponse {
        result: Some(result),
    }))
}

pub(super) async fn set_if_hash<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetIfHashRequest>,
) -> Answer<SetIfHashResponse> {
    use set_if_hash_request::Condition as Wire;
    use set_if_hash_response::{NotStored, Result, Stored};
    let cache = plane.cache(&request)?;
    let item = request.into_inner();
    let ttl = plane
        .limits
        .check_item(&item.cache_key, &item.cache_body, item.ttl_milliseconds)?;
    let condition = match item.condition {
        Some(Wire::PresentAndHashEqual(c)) => Condition::PresentAndHashEqual(c.hash_to_check),
        Some(Wire::PresentAndNotHashEqual(c)) => Condition::PresentAndNotHashEqual(c.hash_to_check),
        Some(Wire::AbsentOrHashEqual(c)) => Condition::AbsentOrHashEqual(c.hash_to_check),
        Some(Wire::AbsentOrNotHashEqual(c)) => Condition::AbsentOrNotHashEqual(c.hash_to_check),
        Some(Wire::Unconditional(_)) => Condition::Always,
        None => return Err(Error::InvalidArgument("SetIfHash needs a condition".into()).into()),
    };
    let stored = plane
        .store
        .set_if(&cache, &item.cache_key, &item.cache_body, ttl, &condition)
        .await?;
    let result = if stored {
        Result::Stored(Stored {
            new_hash: value_hash(&item.cache_body),
        })
    } else {
        Result::NotStored(NotStored {})
    };
    Ok(Response::new(SetIfHashResponse {
        result: Some(result),
    }))
}
