//! `cache_client.Scs`: the dictionary calls. `scs.rs` routes them here.
//!
//! Each handler checks the whole request (name, fields, values, TTL)
//! before the store sees it, so a refused call changes nothing.

use bytes::Bytes;
use tonic::{Request, Response};

use super::{collection_ttl, Answer, DataPlane};
use crate::backend::{DictionaryDelete, Storage};
use crate::error::Error;
use crate::proto::cache_client::*;

pub(super) async fn dictionary_set<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<DictionarySetRequest>,
) -> Answer<DictionarySetResponse> {
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    let limits = &plane.limits;
    limits.check_key(&r.dictionary_name)?;
    if r.items.is_empty() {
        return Err(Error::InvalidArgument("DictionarySet needs at least one field".into()).into());
    }
    limits.check_request_items(r.items.len())?;
    for item in &r.items {
        limits.check_element("a dictionary field", &item.field)?;
        limits.check_element("a dictionary value", &item.value)?;
    }
    let ttl = collection_ttl(limits, r.ttl_milliseconds, r.refresh_ttl)?;
    let items = r
        .items
        .into_iter()
        .map(|item| (item.field, item.value))
        .collect();
    plane
        .store
        .dictionary_set(
            &cache,
            &r.dictionary_name,
            items,
            ttl,
            limits.max_collection_elements,
        )
        .await?;
    Ok(Response::new(DictionarySetResponse {}))
}

pub(super) async fn dictionary_increment<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<DictionaryIncrementRequest>,
) -> Answer<DictionaryIncrementResponse> {
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    let limits = &plane.limits;
    limits.check_key(&r.dictionary_name)?;
    limits.check_element("a dictionary field", &r.field)?;
    let ttl = collection_ttl(limits, r.ttl_milliseconds, r.refresh_ttl)?;
    let value = plane
        .store
        .dictionary_increment(
            &cache,
            &r.dictionary_name,
            &r.field,
            r.amount,
            ttl,
            limits.max_collection_elements,
        )
        .await?;
    Ok(Response::new(DictionaryIncrementResponse { value }))
}

pub(super) async fn dictionary_get<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<DictionaryGetRequest>,
) -> Answer<DictionaryGetResponse> {
    use dictionary_get_response::{Dictionary, DictionaryGetResponsePart, Found, Missing};
    let cache = plane.cache(&request)?;
    let r = request.get_ref();
    plane.limits.check_key(&r.dictionary_name)?;
    check_fields(plane, "DictionaryGet", &r.fields)?;
    let dictionary = match plane
        .store
        .dictionary_get(
            &cache,
            &r.dictionary_name,
            &r.fields,
            plane.limits.max_response_size,
        )
        .await?
    {
        Some(values) => Dictionary::Found(Found {
            items: values
                .into_iter()
                .map(|value| match value {
                    Some(cache_body) => DictionaryGetResponsePart {
                        result: ECacheResult::Hit.into(),
                        cache_body,
                    },
                    None => DictionaryGetResponsePart {
                        result: ECacheResult::Miss.into(),
                        cache_body: Bytes::new(),
                    },
                })
                .collect(),
        }),
        None => Dictionary::Missing(Missing {}),
    };
    // The store sized the answer before it shared a value out; this checks
    // the answer as built (the envelope's bytes besides).
    let answer = DictionaryGetResponse {
        dictionary: Some(dictionary),
    };
    plane.limits.check_answer(&answer)?;
    Ok(Response::new(answer))
}

pub(super) async fn dictionary_fetch<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<DictionaryFetchRequest>,
) -> Answer<DictionaryFetchResponse> {
    use dictionary_fetch_response::{Dictionary, Found, Missing};
    let cache = plane.cache(&request)?;
    let name = &request.get_ref().dictionary_name;
    plane.limits.check_key(name)?;
    let max_answer = plane.limits.max_response_size;
    let dictionary = match plane
        .store
        .dictionary_fetch(&cache, name, max_answer)
        .await?
    {
        Some(entries) => Dictionary::Found(Found {
            items: entries
                .into_iter()
                .map(|(field, value)| DictionaryFieldValuePair { field, value })
                .collect(),
        }),
        None => Dictionary::Missing(Missing {}),
    };
    let answer = DictionaryFetchResponse {
        dictionary: Some(dictionary),
    };
    plane.limits.check_answer(&answer)?;
    Ok(Response::new(answer))
}

pub(super) async fn dictionary_delete<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<DictionaryDeleteRequest>,
) -> Answer<DictionaryDeleteResponse> {
    use dictionary_delete_request::Delete;
    let cache = plane.cache(&request)?;
    let r = request.into_inner();
    plane.limits.check_key(&r.dictionary_name)?;
    let delete = match r.delete {
        Some(Delete::All(_)) => DictionaryDelete::All,
        Some(Delete::Some(some)) => {
            check_fields(plane, "DictionaryDelete of `some`", &some.fields)?;
            DictionaryDelete::Fields(some.fields)
        }
        None => {
            return Err(Error::InvalidArgument(
                "DictionaryDelete needs `all` or `some` fields to delete".into(),
            )
            .into())
        }
    };
    plane
        .store
        .dictionary_delete(&cache, &r.dictionary_name, &delete)
        .await?;
    Ok(Response::new(DictionaryDeleteResponse {}))
}

pub(super) async fn dictionary_length<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<DictionaryLengthRequest>,
) -> Answer<DictionaryLengthResponse> {
    use dictionary_length_response::{Dictionary, Found, Missing};
    let cache = plane.cache(&request)?;
    let name = &request.get_ref().dictionary_name;
    plane.limits.check_key(name)?;
    let dictionary = match plane.store.dictionary_length(&cache, name).await? {
        Some(length) => Dictionary::Found(Found {
            // `--max-collection-elements` keeps lengths far below u32::MAX.
            length: u32::try_from(length).unwrap_or(u32::MAX),
        }),
        None => Dictionary::Missing(Missing {}),
    };
    Ok(Response::new(DictionaryLengthResponse {
        dictionary: Some(dictionary),
    }))
}

/// The fields a read or a delete names: at least one, and no more than a
/// request may carry.
fn check_fields<S: Storage>(
    plane: &DataPlane<S>,
    call: &str,
    fields: &[Bytes],
) -> Result<(), Error> {
    if fields.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{call} needs at least one field"
        )));
    }
    plane.limits.check_request_items(fields.len())
}
