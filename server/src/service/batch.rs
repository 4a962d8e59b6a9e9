//! GetBatch and SetBatch: one request, a stream of answers in request order.
//!
//! Every item is checked before any is written, so a batch with one bad item
//! is refused whole and changes nothing.

use bytes::Bytes;
use futures_util::future::try_join_all;
use tonic::{Request, Response, Status};

use super::{Answer, DataPlane};
use crate::backend::Storage;
use crate::error::Error;
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
    // Each key looked up once, however often it is named: the answers
    // share its value.
    let mut index: hashbrown::HashMap<&[u8], usize> = hashbrown::HashMap::new();
    let mut distinct: Vec<&[u8]> = Vec::new();
    let slots: Vec<usize> = items
        .iter()
        .map(|item| {
            *index.entry(&item.cache_key[..]).or_insert_with(|| {
                distinct.push(&item.cache_key[..]);
                distinct.len() - 1
            })
        })
        .collect();
    let values = plane.store.get_many(&cache, &distinct).await?;
    let hits = slots.iter().filter(|&&slot| values[slot].is_some()).count() as u64;
    let misses = slots.len() as u64 - hits;
    plane
        .lookups
        .record(super::cache_name(&request), hits, misses);
    let answers: Vec<GetResponse> = slots
        .into_iter()
        .map(|slot| get_response(values[slot].clone()))
        .collect();
    // The whole stream is one answer: a key of 4 MiB named 10,000 times is
    // a 30 KB request that would have the server encode and send 40 GB.
    // Counted before any item is encoded; the values are shared.
    let size = answers
        .iter()
        .map(prost::Message::encoded_len)
        .sum::<usize>();
    plane
        .cache_limits
        .charge_answer(super::cache_name(&request), size);
    if size > plane.limits.max_response_size {
        return Err(Error::AnswerTooLarge {
            size,
            limit: plane.limits.max_response_size,
        }
        .into());
    }
    let answers: Vec<_> = answers.into_iter().map(Ok).collect();
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
