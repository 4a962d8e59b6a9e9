//! The embedded store behind [`Storage`]: each call is the store's own,
//! synchronous and lock-bounded, answered as a ready future. The
//! collection calls' impls are beside each type, in `store/<type>.rs`.

use std::future::{ready, Future};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::{
    Caches, Condition, ItemStorage, ItemType, ScalarStorage, StoreStats, TtlOutcome, TtlUpdate,
};
use crate::error::Error;
use crate::store::{CacheId, Store};

impl Caches for Arc<Store> {
    type Cache = CacheId;

    fn create_cache(&self, name: &str) -> impl Future<Output = Result<(), Error>> + Send {
        ready(Store::create_cache(self, name))
    }

    fn delete_cache(&self, name: &str) -> impl Future<Output = Result<(), Error>> + Send {
        ready(Store::delete_cache(self, name))
    }

    fn flush_cache(&self, name: &str) -> impl Future<Output = Result<(), Error>> + Send {
        ready(Store::flush_cache(self, name))
    }

    fn list_caches(&self) -> impl Future<Output = Result<Vec<String>, Error>> + Send {
        ready(Ok(Store::list_caches(self)))
    }

    fn cache(&self, name: &str) -> Result<CacheId, Error> {
        self.cache_id(name)
    }

    fn check_exists(&self, _: &CacheId) -> impl Future<Output = Result<(), Error>> + Send {
        // Resolving the name in `cache` already found it.
        ready(Ok(()))
    }

    fn stats(&self) -> Option<StoreStats> {
        Some(Store::stats(self))
    }
}

impl ScalarStorage for Arc<Store> {
    fn get(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<Bytes>, Error>> + Send {
        ready(Store::get(self, *cache, key))
    }

    fn get_many(
        &self,
        cache: &CacheId,
        keys: &[&[u8]],
    ) -> impl Future<Output = Result<Vec<Option<Bytes>>, Error>> + Send {
        ready(Store::get_many(self, *cache, keys))
    }

    fn set(
        &self,
        cache: &CacheId,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        Store::set(self, *cache, key, value, ttl);
        ready(Ok(()))
    }

    fn set_if(
        &self,
        cache: &CacheId,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
        condition: &Condition,
    ) -> impl Future<Output = Result<bool, Error>> + Send {
        ready(Store::set_if(self, *cache, key, value, ttl, condition))
    }

    fn increment(
        &self,
        cache: &CacheId,
        key: &[u8],
        amount: i64,
        ttl: Duration,
    ) -> impl Future<Output = Result<i64, Error>> + Send {
        ready(Store::increment(self, *cache, key, amount, ttl))
    }
}

impl ItemStorage for Arc<Store> {
    fn delete(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<(), Error>> + Send {
        Store::delete(self, *cache, key);
        ready(Ok(()))
    }

    fn contains(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<bool, Error>> + Send {
        ready(Ok(Store::contains(self, *cache, key)))
    }

    fn item_type(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<ItemType>, Error>> + Send {
        ready(Ok(Store::item_type(self, *cache, key)))
    }

    fn update_ttl(
        &self,
        cache: &CacheId,
        key: &[u8],
        update: TtlUpdate,
    ) -> impl Future<Output = Result<TtlOutcome, Error>> + Send {
        ready(Ok(Store::update_ttl(self, *cache, key, update)))
    }

    fn remaining_ttl(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<Duration>, Error>> + Send {
        ready(Ok(Store::remaining_ttl(self, *cache, key)))
    }
}
