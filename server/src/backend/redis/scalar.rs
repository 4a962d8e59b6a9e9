//! The scalar calls of the Redis store.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use redis::Value;

use super::{millis, scripts, strip_generation, unexpected, RedisCache, RedisStore};
use crate::backend::{Condition, ScalarStorage};
use crate::error::Error;

impl ScalarStorage for Arc<RedisStore> {
    async fn get(&self, cache: &RedisCache, key: &[u8]) -> Result<Option<Bytes>, Error> {
        match self.run_read(&scripts::GET, cache, key, &[]).await? {
            Value::Nil => Ok(None),
            Value::BulkString(raw) => strip_generation(raw).map(Some),
            other => Err(unexpected("get", &other)),
        }
    }

    async fn set(
        &self,
        cache: &RedisCache,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
    ) -> Result<(), Error> {
        let ttl = millis(ttl);
        match self
            .run_item(&scripts::SET, cache, key, &[value, ttl.as_bytes()])
            .await?
        {
            Value::Int(1) => Ok(()),
            other => Err(unexpected("set", &other)),
        }
    }

    async fn set_if(
        &self,
        cache: &RedisCache,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
        condition: &Condition,
    ) -> Result<bool, Error> {
        let (name, compared): (&str, &[u8]) = match condition {
            Condition::Present => ("present", b""),
            Condition::PresentAndNotEqual(v) => ("present_and_not_equal", v),
            Condition::Absent => ("absent", b""),
            Condition::Equal(v) => ("equal", v),
            Condition::AbsentOrEqual(v) => ("absent_or_equal", v),
            Condition::NotEqual(v) => ("not_equal", v),
            Condition::PresentAndHashEqual(h) => ("present_and_hash_equal", h),
            Condition::PresentAndNotHashEqual(h) => ("present_and_not_hash_equal", h),
            Condition::AbsentOrHashEqual(h) => ("absent_or_hash_equal", h),
            Condition::AbsentOrNotHashEqual(h) => ("absent_or_not_hash_equal", h),
            Condition::Always => ("always", b""),
        };
        let ttl = millis(ttl);
        let args = [value, ttl.as_bytes(), name.as_bytes(), compared];
        match self.run_item(&scripts::SET_IF, cache, key, &args).await? {
            Value::Int(1) => Ok(true),
            Value::Int(2) => Ok(false),
            other => Err(unexpected("set_if", &other)),
        }
    }

    async fn increment(
        &self,
        cache: &RedisCache,
        key: &[u8],
        amount: i64,
        ttl: Duration,
    ) -> Result<i64, Error> {
        let amount = amount.to_string();
        let ttl = millis(ttl);
        let args = [amount.as_bytes(), ttl.as_bytes()];
        match self
            .run_item(&scripts::INCREMENT, cache, key, &args)
            .await?
        {
            Value::BulkString(total) => std::str::from_utf8(&total)
                .ok()
                .and_then(|text| text.parse().ok())
                .ok_or_else(|| unexpected("increment", &Value::BulkString(total))),
            Value::Int(2) => Err(Error::NotAnInteger),
            Value::Int(3) => Err(Error::IncrementOverflow),
            other => Err(unexpected("increment", &other)),
        }
    }
}
