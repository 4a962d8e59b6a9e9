//! `cache_client.Scs`: the single-item calls on scalar values. Batches live
//! in `batch.rs`; `scs.rs` routes the calls here.

use bytes::Bytes;
use futures_util::future::try_join_all;
use tonic::{Request, Response};

use super::{Answer, DataPlane};
use crate::backend::{Condition, Storage, TtlOutcome, TtlUpdate};
use crate::error::Error;
use crate::proto::cache_client::{
    item_get_ttl_response, item_get_type_response, set_if_not_exists_response, set_if_request,
    set_if_response, update_ttl_request, update_ttl_response, DeleteRequest, DeleteResponse,
    ECacheResult, GetRequest, GetResponse, IncrementRequest, IncrementResponse, ItemGetTtlRequest,
    ItemGetTtlResponse, ItemGetTypeRequest, ItemGetTypeResponse, KeysExistRequest,
    KeysExistResponse, SetIfNotExistsRequest, SetIfNotExistsResponse, SetIfRequest, SetIfResponse,
    SetRequest, SetResponse, UpdateTtlRequest, UpdateTtlResponse,
};

pub(super) async fn get<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<GetRequest>,
) -> Answer<GetResponse> {
    let cache = plane.cache(&request)?;
    let name = super::cache_name(&request);
    let value = get_item(plane, &cache, name, &request.get_ref().cache_key).await?;
    let answer = super::batch::get_response(value);
    // Only over it when --max-value-size was raised past it with values
    // stored before (the configuration refuses a smaller one).
    plane.limits.check_answer(&answer)?;
    Ok(Response::new(answer))
}

/// Get on either port: the key checked, the item looked up and counted.
pub(crate) async fn get_item<S: Storage>(
    plane: &DataPlane<S>,
    cache: &S::Cache,
    name: &str,
    key: &[u8],
) -> Result<Option<Bytes>, Error> {
    plane.limits.check_key(key)?;
    plane.lookup(cache, name, key).await
}

pub(super) async fn set<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetRequest>,
) -> Answer<SetResponse> {
    let cache = plane.cache(&request)?;
    let item = request.get_ref();
    set_item(
        plane,
        &cache,
        &item.cache_key,
        &item.cache_body,
        item.ttl_milliseconds,
    )
    .await?;
    Ok(Response::new(SetResponse {
        result: ECacheResult::Ok.into(),
        message: String::new(),
    }))
}

/// Set on either port: the item checked against the limits, then stored.
pub(crate) async fn set_item<S: Storage>(
    plane: &DataPlane<S>,
    cache: &S::Cache,
    key: &[u8],
    value: &[u8],
    ttl_milliseconds: u64,
) -> Result<(), Error> {
    let ttl = plane.limits.check_item(key, value, ttl_milliseconds)?;
    plane.store.set(cache, key, value, ttl).await
}

pub(super) async fn set_if<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetIfRequest>,
) -> Answer<SetIfResponse> {
    use set_if_request::Condition as Wire;
    let cache = plane.cache(&request)?;
    let item = request.into_inner();
    let ttl = plane
        .limits
        .check_item(&item.cache_key, &item.cache_body, item.ttl_milliseconds)?;
    let condition = match item.condition {
        Some(Wire::Present(_)) => Condition::Present,
        Some(Wire::PresentAndNotEqual(c)) => Condition::PresentAndNotEqual(c.value_to_check),
        Some(Wire::Absent(_)) => Condition::Absent,
        Some(Wire::Equal(c)) => Condition::Equal(c.value_to_check),
        Some(Wire::AbsentOrEqual(c)) => Condition::AbsentOrEqual(c.value_to_check),
        Some(Wire::NotEqual(c)) => Condition::NotEqual(c.value_to_check),
        None => return Err(Error::InvalidArgument("SetIf needs a condition".into()).into()),
    };
    let stored = plane
        .store
        .set_if(&cache, &item.cache_key, &item.cache_body, ttl, &condition)
        .await?;
    let result = if stored {
        set_if_response::Result::Stored(set_if_response::Stored {})
    } else {
        set_if_response::Result::NotStored(set_if_response::NotStored {})
    };
    Ok(Response::new(SetIfResponse {
        result: Some(result),
    }))
}

pub(super) async fn set_if_not_exists<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetIfNotExistsRequest>,
) -> Answer<SetIfNotExistsResponse> {
    use set_if_not_exists_response::{NotStored, Result, Stored};
    let cache = plane.cache(&request)?;
    let item = request.get_ref();
    let ttl = plane
        .limits
        .check_item(&item.cache_key, &item.cache_body, item.ttl_milliseconds)?;
    let stored = plane
        .store
        .set_if(
            &cache,
            &item.cache_key,
            &item.cache_body,
            ttl,
            &Condition::Absent,
        )
        .await?;
    let result = if stored {
        Result::Stored(Stored {})
    } else {
        Result::NotStored(NotStored {})
    };
    Ok(Response::new(SetIfNotExistsResponse {
        result: Some(result),
    }))
}

pub(super) async fn delete<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<DeleteRequest>,
) -> Answer<DeleteResponse> {
    let cache = plane.cache(&request)?;
    delete_item(plane, &cache, &request.get_ref().cache_key).await?;
    Ok(Response::new(DeleteResponse {}))
}

/// Delete on either port.
pub(crate) async fn delete_item<S: Storage>(
    plane: &DataPlane<S>,
    cache: &S::Cache,
    key: &[u8],
) -> Result<(), Error> {
    plane.limits.check_key(key)?;
    plane.store.delete(cache, key).await
}

pub(super) async fn keys_exist<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<KeysExistRequest>,
) -> Answer<KeysExistResponse> {
    let cache = plane.cache(&request)?;
    let keys = &request.get_ref().cache_keys;
    for key in keys {
        plane.limits.check_key(key)?;
    }
    if keys.is_empty() {
        plane.store.check_exists(&cache).await?;
    }
    let checks = keys.iter().map(|key| plane.store.contains(&cache, key));
    let exists = try_join_all(checks).await?;
    Ok(Response::new(KeysExistResponse { exists }))
}

pub(super) async fn increment<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<IncrementRequest>,
) -> Answer<IncrementResponse> {
    let cache = plane.cache(&request)?;
    let item = request.get_ref();
    plane.limits.check_key(&item.cache_key)?;
    let ttl = plane.limits.ttl(item.ttl_milliseconds)?;
    let value = plane
        .store
        .increment(&cache, &item.cache_key, item.amount, ttl)
        .await?;
    Ok(Response::new(IncrementResponse { value }))
}

pub(super) async fn update_ttl<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<UpdateTtlRequest>,
) -> Answer<UpdateTtlResponse> {
    use update_ttl_request::UpdateTtl as Wire;
    use update_ttl_response::{Missing, NotSet, Result, Set};
    let cache = plane.cache(&request)?;
    let item = request.get_ref();
    plane.limits.check_key(&item.cache_key)?;
    let update = match item.update_ttl {
        Some(Wire::IncreaseToMilliseconds(ms)) => TtlUpdate::IncreaseTo(plane.limits.ttl(ms)?),
        Some(Wire::DecreaseToMilliseconds(ms)) => TtlUpdate::DecreaseTo(plane.limits.ttl(ms)?),
        Some(Wire::OverwriteToMilliseconds(ms)) => TtlUpdate::Overwrite(plane.limits.ttl(ms)?),
        None => return Err(Error::InvalidArgument("UpdateTtl needs a new TTL".into()).into()),
    };
    let result = match plane
        .store
        .update_ttl(&cache, &item.cache_key, update)
        .await?
    {
        TtlOutcome::Set => Result::Set(Set {}),
        TtlOutcome::NotSet => Result::NotSet(NotSet {}),
        TtlOutcome::Missing => Result::Missing(Missing {}),
    };
    Ok(Response::new(UpdateTtlResponse {
        result: Some(result),
    }))
}

pub(super) async fn item_get_ttl<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ItemGetTtlRequest>,
) -> Answer<ItemGetTtlResponse> {
    use item_get_ttl_response::{Found, Missing, Result};
    let cache = plane.cache(&request)?;
    let key = &request.get_ref().cache_key;
    plane.limits.check_key(key)?;
    let result = match plane.store.remaining_ttl(&cache, key).await? {
        Some(left) => Result::Found(Found {
            remaining_ttl_millis: left.as_millis() as u64,
        }),
        None => Result::Missing(Missing {}),
    };
    Ok(Response::new(ItemGetTtlResponse {
        result: Some(result),
    }))
}

pub(super) async fn item_get_type<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ItemGetTypeRequest>,
) -> Answer<ItemGetTypeResponse> {
    use item_get_type_response::{Found, Missing, Result};
    let cache = plane.cache(&request)?;
    let key = &request.get_ref().cache_key;
    plane.limits.check_key(key)?;
    let result = match plane.store.item_type(&cache, key).await? {
        Some(found) => Result::Found(Found {
            item_type: wire_item_type(found).into(),
        }),
        None => Result::Missing(Missing {}),
    };
    Ok(Response::new(ItemGetTypeResponse {
        result: Some(result),
    }))
}

fn wire_item_type(found: crate::backend::ItemType) -> item_get_type_response::ItemType {
    use crate::backend::ItemType as Stored;
    use item_get_type_response::ItemType as Wire;
    match found {
        Stored::Scalar => Wire::Scalar,
        Stored::Dictionary => Wire::Dictionary,
        Stored::Set => Wire::Set,
        Stored::List => Wire::List,
        Stored::SortedSet => Wire::SortedSet,
        Stored::Leaderboard => unreachable!("leaderboards are not items"),
    }
}
