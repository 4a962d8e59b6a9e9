//! GetBatch and SetBatch: one request, a stream of answers in request order.
//!
//! Every item is checked before any is written, so a batch with one bad item
//! is refused whole and changes nothing.

use bytes::Bytes;
use futures_util::future::try_join_all;
use tonic::{Request, Response, Status};

use super::{Answer, DataPlane};
use crate::backend::Storage;
use crate::proto::cache_client::{
    ECacheResult, GetBatchRequest, GetResponse, SetBatchRequest, SetResponse,
};

/// Answers are computed up front, all the items' calls in flight at once
/// (a Redis store pipelines them), then streamed.
pub type GetBatchStream = tokio_stream::Iter<std::vec::IntoIter<Result<GetResponse, Status>>>;
pub type SetBatchStream = tokio_stream::Iter<std::vec::IntoIter<Result<SetResponse, Status>>>;

/// A Get answer: Hit with the value, or Miss.
pub fn get_response(value: Option<Bytes>) -> GetResponse {
    match value {
        Some(body) => GetResponse {
            result: ECacheResult::Hit.into(),
            cache_body: body,
            message: String::new(),
        },
        None => GetResponse {
            result: ECacheResult::Miss.into(),
            cache_body: Bytes::new(),
            message: String::new(),
        },
    }
}

pub(super) async fn get_batch<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<GetBatchRequest>,
) -> Answer<GetBatchStream> {
    let cache = plane.cache(&request)?;
    let items = &request.get_ref().items;
    plane.limits.check_request_items(items.len())?;
    for item in items {
        plane.limits.check_key(&item.cache_key)?;
    }
    if items.is_empty() {
        plane.store.check_exists(&cache).await?;
    }
    let gets = items
        .iter()
        .map(|item| plane.lookup(&cache, &item.cache_key));
    let answers: Vec<_> = try_join_all(gets)
        .await?
        .into_iter()
        .map(|value| Ok(get_response(value)))
        .collect();
    Ok(Response::new(tokio_stream::iter(answers)))
}

pub(super) async fn set_batch<S: Storage>(
    plane: &DataPlane<S>,
    request: Request<SetBatchRequest>,
) -> Answer<SetBatchStream> {
    let cache = plane.cache(&request)?;
    let items = &request.get_ref().items;
    plane.limits.check_request_items(items.len())?;
    let ttls = items
        .iter()
        .map(|item| {
            plane
                .limits
                .check_item(&item.cache_key, &item.cache_body, item.ttl_milliseconds)
        })
        .collect::<Result<Vec<_>, _>>()?;
    if items.is_empty() {
        plane.store.check_exists(&cache).await?;
    }
    let sets = items.iter().zip(ttls).map(|(item, ttl)| {
        plane
            .store
            .set(&cache, &item.cache_key, &item.cache_body, ttl)
    });
    let answers: Vec<_> = try_join_all(sets)
        .await?
        .into_iter()
        .map(|()| {
            Ok(SetResponse {
                result: ECacheResult::Ok.into(),
                message: String::new(),
            })
        })
        .collect();
    Ok(Response::new(tokio_stream::iter(answers)))
}
