//! The calls on any item of the Redis store, scalar or collection.

use std::sync::Arc;
use std::time::Duration;

use redis::Value;

use super::{millis, scripts, unexpected, RedisCache, RedisStore};
use crate::backend::{ItemStorage, ItemType, TtlOutcome, TtlUpdate};
use crate::error::Error;

impl ItemStorage for Arc<RedisStore> {
    async fn delete(&self, cache: &RedisCache, key: &[u8]) -> Result<(), Error> {
        match self.run_item(&scripts::DELETE, cache, key, &[]).await? {
            Value::Int(1) => Ok(()),
            other => Err(unexpected("delete", &other)),
        }
    }

    async fn contains(&self, cache: &RedisCache, key: &[u8]) -> Result<bool, Error> {
        match self.run_item(&scripts::EXISTS, cache, key, &[]).await? {
            Value::Int(1) => Ok(true),
            Value::Int(2) => Ok(false),
            other => Err(unexpected("exists", &other)),
        }
    }

    async fn update_ttl(
        &self,
        cache: &RedisCache,
        key: &[u8],
        update: TtlUpdate,
    ) -> Result<TtlOutcome, Error> {
        let (mode, ttl) = match update {
            TtlUpdate::IncreaseTo(ttl) => ("increase", ttl),
            TtlUpdate::DecreaseTo(ttl) => ("decrease", ttl),
            TtlUpdate::Overwrite(ttl) => ("overwrite", ttl),
        };
        let ttl = millis(ttl);
        let args = [mode.as_bytes(), ttl.as_bytes()];
        match self
            .run_item(&scripts::UPDATE_TTL, cache, key, &args)
            .await?
        {
            Value::Int(1) => Ok(TtlOutcome::Set),
            Value::Int(2) => Ok(TtlOutcome::NotSet),
            Value::Int(3) => Ok(TtlOutcome::Missing),
            other => Err(unexpected("update_ttl", &other)),
        }
    }

    async fn remaining_ttl(
        &self,
        cache: &RedisCache,
        key: &[u8],
    ) -> Result<Option<Duration>, Error> {
        match self
            .run_item(&scripts::REMAINING_TTL, cache, key, &[])
            .await?
        {
            Value::Int(2) => Ok(None),
            Value::Array(left) => match left.as_slice() {
                // The item expired between the check and PTTL: gone.
                [Value::Int(ms)] if *ms < 0 => Ok(None),
                [Value::Int(ms)] => Ok(Some(Duration::from_millis(*ms as u64))),
                _ => Err(unexpected("remaining_ttl", &Value::Array(left))),
            },
            other => Err(unexpected("remaining_ttl", &other)),
        }
    }

    async fn item_type(&self, cache: &RedisCache, key: &[u8]) -> Result<Option<ItemType>, Error> {
        match self.run_item(&scripts::ITEM_TYPE, cache, key, &[]).await? {
            Value::Int(2) => Ok(None),
            Value::BulkString(kind) => super::item_type_named(&kind)
                .map(Some)
                .ok_or_else(|| unexpected("item_type", &Value::BulkString(kind))),
            other => Err(unexpected("item_type", &other)),
        }
    }
}
