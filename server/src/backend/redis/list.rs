//! The list calls of the Redis store: each one script (`lua/list_*.lua`)
//! on a Redis list, so the type check, the change, the truncation and the
//! TTL are one atomic step.
//!
//! Scripts answer 2 for a missing list, else an array: `{length}`, `{value,
//! length}` or the values.

use std::sync::Arc;

use bytes::Bytes;
use redis::Value;

use super::replies::{length, optional_length, too_large, MISSING};
use super::{millis, scripts, unexpected, RedisCache, RedisStore};
use crate::backend::{CollectionTtl, End, ListErase, ListPush, ListSlice, ListStorage};
use crate::error::Error;

impl ListStorage for Arc<RedisStore> {
    async fn list_push(
        &self,
        cache: &RedisCache,
        key: &[u8],
        push: ListPush,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> Result<usize, Error> {
        let (truncate, max, ttl_ms) = (
            push.truncate_to.to_string(),
            max_len.to_string(),
            millis(ttl.ttl),
        );
        let mut args: Vec<&[u8]> = vec![
            end_name(push.end),
            truncate.as_bytes(),
            max.as_bytes(),
            ttl_ms.as_bytes(),
            flag(ttl.refresh),
        ];
        args.extend(push.values.iter().map(|value| &value[..]));
        let reply = self
            .run_item(&scripts::LIST_CONCATENATE, cache, key, &args)
            .await?;
        too_large(&reply, max_len)?;
        length("list_push", reply)
    }

    async fn list_pop(
        &self,
        cache: &RedisCache,
        key: &[u8],
        end: End,
    ) -> Result<Option<(Bytes, usize)>, Error> {
        match self
            .run_item(&scripts::LIST_POP, cache, key, &[end_name(end)])
            .await?
        {
            Value::Int(MISSING) => Ok(None),
            Value::Array(reply) => match <[Value; 2]>::try_from(reply) {
                Ok([Value::BulkString(value), Value::Int(len)]) => {
                    Ok(Some((Bytes::from(value), len as usize)))
                }
                Ok(reply) => Err(unexpected("list_pop", &Value::Array(reply.into()))),
                Err(reply) => Err(unexpected("list_pop", &Value::Array(reply))),
            },
            other => Err(unexpected("list_pop", &other)),
        }
    }

    async fn list_fetch(
        &self,
        cache: &RedisCache,
        key: &[u8],
        slice: ListSlice,
        max_answer: usize,
    ) -> Result<Option<Vec<Bytes>>, Error> {
        let (start, end) = slice_args(slice);
        match self
            .run_read_within(
                &scripts::LIST_FETCH,
                cache,
                key,
                &[start.as_bytes(), end.as_bytes()],
                max_answer,
            )
            .await?
        {
            Value::Int(MISSING) => Ok(None),
            Value::Array(values) => values
                .into_iter()
                .map(|value| match value {
                    Value::BulkString(value) => Ok(Bytes::from(value)),
                    other => Err(unexpected("list_fetch", &other)),
                })
                .collect::<Result<_, _>>()
                .map(Some),
            other => Err(unexpected("list_fetch", &other)),
        }
    }

    async fn list_length(&self, cache: &RedisCache, key: &[u8]) -> Result<Option<usize>, Error> {
        let reply = self
            .run_item(&scripts::LIST_LENGTH, cache, key, &[])
            .await?;
        optional_length("list_length", reply)
    }

    async fn list_retain(
        &self,
        cache: &RedisCache,
        key: &[u8],
        slice: ListSlice,
        ttl: CollectionTtl,
    ) -> Result<Option<usize>, Error> {
        let (start, end) = slice_args(slice);
        let ttl_ms = millis(ttl.ttl);
        let args = [
            start.as_bytes(),
            end.as_bytes(),
            ttl_ms.as_bytes(),
            flag(ttl.refresh),
        ];
        let reply = self
            .run_item(&scripts::LIST_RETAIN, cache, key, &args)
            .await?;
        optional_length("list_retain", reply)
    }

    async fn list_remove(
        &self,
        cache: &RedisCache,
        key: &[u8],
        value: &[u8],
    ) -> Result<Option<usize>, Error> {
        let reply = self
            .run_item(&scripts::LIST_REMOVE, cache, key, &[value])
            .await?;
        optional_length("list_remove", reply)
    }

    async fn list_erase(
        &self,
        cache: &RedisCache,
        key: &[u8],
        erase: &ListErase,
    ) -> Result<Option<usize>, Error> {
        let numbers: Vec<String> = match erase {
            ListErase::All => Vec::new(),
            ListErase::Ranges(ranges) => ranges
                .iter()
                .flat_map(|range| [range.begin.to_string(), range.count.to_string()])
                .collect(),
        };
        let mode: &[u8] = match erase {
            ListErase::All => b"all",
            ListErase::Ranges(_) => b"ranges",
        };
        let mut args = vec![mode];
        args.extend(numbers.iter().map(|n| n.as_bytes()));
        let reply = self
            .run_item(&scripts::LIST_ERASE, cache, key, &args)
            .await?;
        optional_length("list_erase", reply)
    }
}

fn end_name(end: End) -> &'static [u8] {
    match end {
        End::Front => b"front",
        End::Back => b"back",
    }
}

fn flag(on: bool) -> &'static [u8] {
    if on {
        b"1"
    } else {
        b"0"
    }
}

/// A slice's ends as the scripts take them: the index, or '' when unbounded.
fn slice_args(slice: ListSlice) -> (String, String) {
    let text = |index: Option<i32>| index.map(|i| i.to_string()).unwrap_or_default();
    (text(slice.start), text(slice.end))
}
