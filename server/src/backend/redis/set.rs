//! The set calls of the Redis store: each one script (`lua/set_collection_*.lua`)
//! on a Redis set, so the type check, the change and the TTL are one atomic
//! step. Samples are Redis's own SRANDMEMBER; pops too, then SREM of what
//! it picked, so a pop can be sized, and refused, before it removes.
//!
//! Scripts answer 2 for a missing set, else an array: `{length}`, the
//! elements, or one 1 or 0 per element asked about; SetDifference answers 1.

use std::sync::Arc;

use bytes::Bytes;
use redis::Value;

use super::replies::{length, too_large, MISSING};
use super::{millis, scripts, unexpected, RedisCache, RedisStore};
use crate::backend::{CollectionTtl, SetRemove, SetStorage};
use crate::error::Error;

impl SetStorage for Arc<RedisStore> {
    async fn set_union(
        &self,
        cache: &RedisCache,
        key: &[u8],
        elements: Vec<Bytes>,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> Result<usize, Error> {
        let (max, ttl_ms) = (max_len.to_string(), millis(ttl.ttl));
        let refresh: &[u8] = if ttl.refresh { b"1" } else { b"0" };
        let mut args: Vec<&[u8]> = vec![max.as_bytes(), ttl_ms.as_bytes(), refresh];
        args.extend(elements.iter().map(|element| &element[..]));
        let reply = self
            .run_item(&scripts::SET_COLLECTION_UNION, cache, key, &args)
            .await?;
        too_large(&reply, max_len)?;
        length("set_union", reply)
    }

    async fn set_difference(
        &self,
        cache: &RedisCache,
        key: &[u8],
        remove: &SetRemove,
    ) -> Result<bool, Error> {
        let args: Vec<&[u8]> = match remove {
            SetRemove::All => vec![b"all"],
            SetRemove::Elements(elements) => std::iter::once(&b"elements"[..])
                .chain(elements.iter().map(|element| &element[..]))
                .collect(),
        };
        match self
            .run_item(&scripts::SET_COLLECTION_DIFFERENCE, cache, key, &args)
            .await?
        {
            Value::Int(1) => Ok(true),
            Value::Int(MISSING) => Ok(false),
            other => Err(unexpected("set_difference", &other)),
        }
    }

    async fn set_fetch(
        &self,
        cache: &RedisCache,
        key: &[u8],
        max_answer: usize,
    ) -> Result<Option<Vec<Bytes>>, Error> {
        let script = &scripts::SET_COLLECTION_FETCH;
        let reply = self
            .run_read_within(script, cache, key, &[], max_answer)
            .await?;
        elements("set_fetch", reply)
    }

    async fn set_contains(
        &self,
        cache: &RedisCache,
        key: &[u8],
        elements: &[Bytes],
    ) -> Result<Option<Vec<bool>>, Error> {
        let args: Vec<&[u8]> = elements.iter().map(|element| &element[..]).collect();
        match self
            .run_item(&scripts::SET_COLLECTION_CONTAINS, cache, key, &args)
            .await?
        {
            Value::Int(MISSING) => Ok(None),
            Value::Array(answers) => answers
                .into_iter()
                .map(|answer| match answer {
                    Value::Int(member) => Ok(member == 1),
                    other => Err(unexpected("set_contains", &other)),
                })
                .collect::<Result<_, _>>()
                .map(Some),
            other => Err(unexpected("set_contains", &other)),
        }
    }

    async fn set_length(&self, cache: &RedisCache, key: &[u8]) -> Result<Option<usize>, Error> {
        let reply = self
            .run_item(&scripts::SET_COLLECTION_LENGTH, cache, key, &[])
            .await?;
        match &reply {
            Value::Int(MISSING) => Ok(None),
            Value::Array(parts) => match parts.as_slice() {
                [Value::Int(len)] => Ok(Some(*len as usize)),
                _ => Err(unexpected("set_length", &reply)),
            },
            _ => Err(unexpected("set_length", &reply)),
        }
    }

    async fn set_pop(
        &self,
        cache: &RedisCache,
        key: &[u8],
        count: u32,
        max_answer: usize,
    ) -> Result<Option<Vec<Bytes>>, Error> {
        // A read script: the elements are sized before they are removed, a
        // pop over `max_answer` is refused in Redis and changes nothing, and
        // a large answer is charged to the in-flight budget before it
        // leaves Redis (a retried pop picks again).
        let count = count.to_string();
        let reply = self
            .run_read_within(
                &scripts::SET_COLLECTION_POP,
                cache,
                key,
                &[count.as_bytes()],
                max_answer,
            )
            .await?;
        elements("set_pop", reply)
    }

    async fn set_sample(
        &self,
        cache: &RedisCache,
        key: &[u8],
        limit: u64,
    ) -> Result<Option<Vec<Bytes>>, Error> {
        // SRANDMEMBER takes a signed count; no set comes near either limit.
        let limit = limit.min(i64::MAX as u64).to_string();
        let reply = self
            .run_read(
                &scripts::SET_COLLECTION_SAMPLE,
                cache,
                key,
                &[limit.as_bytes()],
            )
            .await?;
        elements("set_sample", reply)
    }
}

/// A reply of elements, or 2 for a missing set.
fn elements(call: &str, reply: Value) -> Result<Option<Vec<Bytes>>, Error> {
    match reply {
        Value::Int(MISSING) => Ok(None),
        Value::Array(elements) => elements
            .into_iter()
            .map(|element| match element {
                Value::BulkString(element) => Ok(Bytes::from(element)),
                other => Err(unexpected(call, &other)),
            })
            .collect::<Result<_, _>>()
            .map(Some),
        other => Err(unexpected(call, &other)),
    }
}
