//! `cache_client.Scs`: the list calls. `scs.rs` routes them here.
//!
//! Each handler checks the whole request (name, values, TTL, ranges)
//! before the store sees it, so a refused call changes nothing. A slice
//! that selects nothing answers ListFetch as a missing list, as the
//! service does (the official Go SDK's suite expects it).

use tonic::{Request, Response};

use super::{collection_ttl, Answer, DataPlane};
use crate::backend::{self, End, ListErase, ListPush, ListSlice, Storage};
use crate::error::Error;
use crate::proto::cache_client::*;
use crate::proto::common::Unbounded;

pub(super) async fn list_push_front<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListPushFrontRequest>,
) -> Answer<ListPushFrontResponse> {
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let push = ListPush {
        end: End::Front,
        values: vec![r.value],
        truncate_to: r.truncate_back_to_size,
    };
    let list_length = push_values(
        plane,
        &cache,
        &r.list_name,
        push,
        r.ttl_milliseconds,
        r.refresh_ttl,
    )
    .await?;
    Ok(Response::new(ListPushFrontResponse { list_length }))
}

pub(super) async fn list_push_back<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListPushBackRequest>,
) -> Answer<ListPushBackResponse> {
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let push = ListPush {
        end: End::Back,
        values: vec![r.value],
        truncate_to: r.truncate_front_to_size,
    };
    let list_length = push_values(
        plane,
        &cache,
        &r.list_name,
        push,
        r.ttl_milliseconds,
        r.refresh_ttl,
    )
    .await?;
    Ok(Response::new(ListPushBackResponse { list_length }))
}

pub(super) async fn list_concatenate_front<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListConcatenateFrontRequest>,
) -> Answer<ListConcatenateFrontResponse> {
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let push = ListPush {
        end: End::Front,
        values: r.values,
        truncate_to: r.truncate_back_to_size,
    };
    let list_length = push_values(
        plane,
        &cache,
        &r.list_name,
        push,
        r.ttl_milliseconds,
        r.refresh_ttl,
    )
    .await?;
    Ok(Response::new(ListConcatenateFrontResponse { list_length }))
}

pub(super) async fn list_concatenate_back<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListConcatenateBackRequest>,
) -> Answer<ListConcatenateBackResponse> {
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let push = ListPush {
        end: End::Back,
        values: r.values,
        truncate_to: r.truncate_front_to_size,
    };
    let list_length = push_values(
        plane,
        &cache,
        &r.list_name,
        push,
        r.ttl_milliseconds,
        r.refresh_ttl,
    )
    .await?;
    Ok(Response::new(ListConcatenateBackResponse { list_length }))
}

/// The four writes that add values: checked whole, then one store call.
async fn push_values<S: Storage>(
    plane: &DataPlane<S>,
    cache: &S::Cache,
    name: &[u8],
    push: ListPush,
    ttl_ms: u64,
    refresh: bool,
) -> Result<u32, Error> {
    let limits = &plane.limits;
    limits.check_key(name)?;
    if push.values.is_empty() {
        return Err(Error::InvalidArgument(
            "a list concatenation needs at least one value".into(),
        ));
    }
    limits.check_request_items(push.values.len())?;
    for value in &push.values {
        limits.check_element("a list value", value)?;
    }
    let ttl = collection_ttl(limits, ttl_ms, refresh)?;
    let length = plane
        .store
        .list_push(cache, name, push, ttl, limits.max_collection_elements)
        .await?;
    Ok(wire_length(length))
}

pub(super) async fn list_pop_front<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListPopFrontRequest>,
) -> Answer<ListPopFrontResponse> {
    use list_pop_front_response::{Found, List, Missing};
    let cache = plane.cache(&request)?;
    let name = &request.get_ref().list_name;
    plane.limits.check_key(name)?;
    let list = match plane.store.list_pop(&cache, name, End::Front).await? {
        Some((front, length)) => List::Found(Found {
            front,
            list_length: wire_length(length),
        }),
        None => List::Missing(Missing {}),
    };
    Ok(Response::new(ListPopFrontResponse { list: Some(list) }))
}

pub(super) async fn list_pop_back<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListPopBackRequest>,
) -> Answer<ListPopBackResponse> {
    use list_pop_back_response::{Found, List, Missing};
    let cache = plane.cache(&request)?;
    let name = &request.get_ref().list_name;
    plane.limits.check_key(name)?;
    let list = match plane.store.list_pop(&cache, name, End::Back).await? {
        Some((back, length)) => List::Found(Found {
            back,
            list_length: wire_length(length),
        }),
        None => List::Missing(Missing {}),
    };
    Ok(Response::new(ListPopBackResponse { list: Some(list) }))
}

pub(super) async fn list_fetch<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListFetchRequest>,
) -> Answer<ListFetchResponse> {
    use list_fetch_request::{EndIndex, StartIndex};
    use list_fetch_response::{Found, List, Missing};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.list_name)?;
    let slice = ListSlice {
        start: match r.start_index {
            Some(StartIndex::InclusiveStart(start)) => Some(start),
            Some(StartIndex::UnboundedStart(Unbounded {})) | None => None,
        },
        end: match r.end_index {
            Some(EndIndex::ExclusiveEnd(end)) => Some(end),
            Some(EndIndex::UnboundedEnd(Unbounded {})) | None => None,
        },
    };
    let max_answer = plane.limits.max_response_size;
    let list = match plane
        .store
        .list_fetch(&cache, &r.list_name, slice, max_answer)
        .await?
    {
        Some(values) if !values.is_empty() => List::Found(Found { values }),
        _ => List::Missing(Missing {}),
    };
    let answer = ListFetchResponse { list: Some(list) };
    plane.limits.check_answer(&answer)?;
    Ok(Response::new(answer))
}

pub(super) async fn list_length<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListLengthRequest>,
) -> Answer<ListLengthResponse> {
    use list_length_response::{Found, List, Missing};
    let cache = plane.cache(&request)?;
    let name = &request.get_ref().list_name;
    plane.limits.check_key(name)?;
    let list = match plane.store.list_length(&cache, name).await? {
        Some(length) => List::Found(Found {
            length: wire_length(length),
        }),
        None => List::Missing(Missing {}),
    };
    Ok(Response::new(ListLengthResponse { list: Some(list) }))
}

pub(super) async fn list_retain<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListRetainRequest>,
) -> Answer<ListRetainResponse> {
    use list_retain_request::{EndIndex, StartIndex};
    use list_retain_response::{Found, List, Missing};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.list_name)?;
    let ttl = collection_ttl(&plane.limits, r.ttl_milliseconds, r.refresh_ttl)?;
    let slice = ListSlice {
        start: match r.start_index {
            Some(StartIndex::InclusiveStart(start)) => Some(start),
            Some(StartIndex::UnboundedStart(Unbounded {})) | None => None,
        },
        end: match r.end_index {
            Some(EndIndex::ExclusiveEnd(end)) => Some(end),
            Some(EndIndex::UnboundedEnd(Unbounded {})) | None => None,
        },
    };
    let list = match plane
        .store
        .list_retain(&cache, &r.list_name, slice, ttl)
        .await?
    {
        Some(length) => List::Found(Found {
            list_length: wire_length(length),
        }),
        None => List::Missing(Missing {}),
    };
    Ok(Response::new(ListRetainResponse { list: Some(list) }))
}

pub(super) async fn list_remove<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListRemoveRequest>,
) -> Answer<ListRemoveResponse> {
    use list_remove_request::Remove;
    use list_remove_response::{Found, List, Missing};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.list_name)?;
    let Some(Remove::AllElementsWithValue(value)) = &r.remove else {
        return Err(Error::InvalidArgument("ListRemove needs the value to remove".into()).into());
    };
    let list = match plane.store.list_remove(&cache, &r.list_name, value).await? {
        Some(length) => List::Found(Found {
            list_length: wire_length(length),
        }),
        None => List::Missing(Missing {}),
    };
    Ok(Response::new(ListRemoveResponse { list: Some(list) }))
}

pub(super) async fn list_erase<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<ListEraseRequest>,
) -> Answer<ListEraseResponse> {
    use list_erase_request::Erase;
    use list_erase_response::{Found, List, Missing};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.list_name)?;
    let erase = match &r.erase {
        Some(Erase::All(_)) => ListErase::All,
        Some(Erase::Some(some)) => ListErase::Ranges(ranges(plane, &some.ranges)?),
        None => {
            return Err(Error::InvalidArgument(
                "ListErase needs `all` or `some` ranges to erase".into(),
            )
            .into())
        }
    };
    let list = match plane.store.list_erase(&cache, &r.list_name, &erase).await? {
        Some(length) => List::Found(Found {
            list_length: wire_length(length),
        }),
        None => List::Missing(Missing {}),
    };
    Ok(Response::new(ListEraseResponse { list: Some(list) }))
}

/// The ranges of a ListErase: at least one, none of them empty.
fn ranges<S: Storage>(
    plane: &DataPlane<S>,
    wire: &[ListRange],
) -> Result<Vec<backend::ListRange>, Error> {
    if wire.is_empty() {
        return Err(Error::InvalidArgument(
            "ListErase of `some` needs at least one range".into(),
        ));
    }
    plane.limits.check_request_items(wire.len())?;
    wire.iter()
        .map(|range| match range.count {
            0 => Err(Error::InvalidArgument(format!(
                "ListErase range at {} erases nothing: its count must be at least 1",
                range.begin_index
            ))),
            count => Ok(backend::ListRange {
                begin: range.begin_index,
                count,
            }),
        })
        .collect()
}

/// A length as the wire's `uint32` (`--max-collection-elements` keeps
/// lengths far below its limit).
fn wire_length(length: usize) -> u32 {
    u32::try_from(length).unwrap_or(u32::MAX)
}
