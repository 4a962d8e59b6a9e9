//! Listing a cache's keys (`backend/keys.rs` says what a listing promises):
//! a walk over the shards in order, and over each shard's slab slots in
//! order. An item keeps its slot for life, so the walk meets each item
//! present throughout exactly once. The cursor is the next (shard, slot),
//! as 12 bytes, big-endian.

use std::future::{ready, Future};
use std::sync::Arc;

use tokio::time::Instant;

use super::{CacheId, Store, SHARDS};
use crate::backend::{bad_cursor, KeyStorage, KeysPage};
use crate::error::Error;

/// Slab slots examined per hold of a shard's lock: other calls on the
/// shard wait at most this long (as a purge's chunk).
const SLOTS_PER_LOCK: usize = 4096;
/// Lock holds per call, so one call examines at most 128 x 4,096 slots
/// (about half a million items, a few milliseconds) whatever it finds.
const LOCKS_PER_CALL: usize = 128;

impl Store {
    pub fn keys_page(
        &self,
        cache: CacheId,
        prefix: &[u8],
        cursor: &[u8],
        limit: usize,
    ) -> Result<KeysPage, Error> {
        let (mut shard, mut slot) = decode(cursor)?;
        let now = Instant::now();
        let mut keys = Vec::new();
        let mut holds = 0;
        while shard < SHARDS && keys.len() < limit && holds < LOCKS_PER_CALL {
            holds += 1;
            let state = self.shards[shard].state.lock();
            match state.keys_from(cache, prefix, (slot, SLOTS_PER_LOCK), limit, now, &mut keys) {
                Some(next) => slot = next,
                None => (shard, slot) = (shard + 1, 0),
            }
        }
        let next_cursor = if shard < SHARDS {
            encode(shard, slot)
        } else {
            Vec::new()
        };
        Ok(KeysPage { keys, next_cursor })
    }
}

fn encode(shard: usize, slot: usize) -> Vec<u8> {
    let mut cursor = (shard as u32).to_be_bytes().to_vec();
    cursor.extend_from_slice(&(slot as u64).to_be_bytes());
    cursor
}

fn decode(cursor: &[u8]) -> Result<(usize, usize), Error> {
    if cursor.is_empty() {
        return Ok((0, 0));
    }
    let (shard, slot) = cursor.split_at_checked(4).ok_or_else(bad_cursor)?;
    let shard = u32::from_be_bytes(shard.try_into().map_err(|_| bad_cursor())?) as usize;
    let slot = u64::from_be_bytes(slot.try_into().map_err(|_| bad_cursor())?);
    if shard >= SHARDS {
        return Err(bad_cursor());
    }
    Ok((shard, usize::try_from(slot).map_err(|_| bad_cursor())?))
}

impl KeyStorage for Arc<Store> {
    fn list_keys(
        &self,
        cache: &CacheId,
        prefix: &[u8],
        cursor: &[u8],
        limit: usize,
    ) -> impl Future<Output = Result<KeysPage, Error>> + Send {
        ready(Store::keys_page(self, *cache, prefix, cursor, limit))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::time::Duration;

    use bytes::Bytes;

    use super::*;
    use crate::store::StoreConfig;

    fn store() -> Arc<Store> {
        Store::new(StoreConfig {
            max_memory: 64 << 20,
            max_caches: 10,
        })
    }

    /// Every page of a listing, until the cursor comes back empty.
    fn walk(store: &Store, cache: CacheId, prefix: &[u8], limit: usize) -> Vec<Bytes> {
        let (mut keys, mut cursor) = (Vec::new(), Vec::new());
        loop {
            let page = store.keys_page(cache, prefix, &cursor, limit).unwrap();
            assert!(page.keys.len() <= limit);
            keys.extend(page.keys);
            if page.next_cursor.is_empty() {
                return keys;
            }
            cursor = page.next_cursor;
        }
    }

    #[tokio::test]
    async fn a_walk_answers_each_key_of_the_cache_with_the_prefix_once() {
        let store = store();
        store.create_cache("a").unwrap();
        store.create_cache("b").unwrap();
        let (a, b) = (store.cache_id("a").unwrap(), store.cache_id("b").unwrap());
        let ttl = Duration::from_secs(60);
        for i in 0..2_500 {
            store.set(a, format!("user:{i}").as_bytes(), b"v", ttl);
            store.set(a, format!("order:{i}").as_bytes(), b"v", ttl);
            store.set(b, format!("user:b{i}").as_bytes(), b"v", ttl);
        }
        let users = walk(&store, a, b"user:", 7);
        let unique: BTreeSet<_> = users.iter().cloned().collect();
        assert_eq!(users.len(), 2_500);
        assert_eq!(unique.len(), 2_500);
        assert!(unique
            .iter()
            .all(|key| key.starts_with(b"user:") && !key.starts_with(b"user:b")));
        assert_eq!(walk(&store, a, b"", 1_000).len(), 5_000);
        assert_eq!(walk(&store, b, b"order:", 1_000), Vec::<Bytes>::new());
    }

    #[tokio::test]
    async fn a_page_holds_at_most_the_limit_and_the_cursor_resumes_after_it() {
        let store = store();
        store.create_cache("a").unwrap();
        let a = store.cache_id("a").unwrap();
        for i in 0..10 {
            store.set(a, format!("k{i}").as_bytes(), b"v", Duration::from_secs(60));
        }
        let first = store.keys_page(a, b"", &[], 4).unwrap();
        assert_eq!(first.keys.len(), 4);
        assert!(!first.next_cursor.is_empty());
        let rest = store.keys_page(a, b"", &first.next_cursor, 100).unwrap();
        assert_eq!(rest.keys.len(), 6);
        assert!(rest.keys.iter().all(|key| !first.keys.contains(key)));
        assert!(rest.next_cursor.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn expired_items_are_not_listed() {
        let store = store();
        store.create_cache("a").unwrap();
        let a = store.cache_id("a").unwrap();
        store.set(a, b"short", b"v", Duration::from_secs(1));
        store.set(a, b"long", b"v", Duration::from_secs(60));
        tokio::time::advance(Duration::from_secs(2)).await;
        assert_eq!(walk(&store, a, b"", 10), vec![Bytes::from_static(b"long")]);
    }

    #[tokio::test]
    async fn a_cursor_not_of_this_store_is_refused() {
        let store = store();
        store.create_cache("a").unwrap();
        let a = store.cache_id("a").unwrap();
        for cursor in [&b"x"[..], &[0; 11], &encode(SHARDS, 0)] {
            assert!(matches!(
                store.keys_page(a, b"", cursor, 10),
                Err(Error::InvalidArgument(_))
            ));
        }
        assert_eq!(decode(&encode(3, 77)).unwrap(), (3, 77));
    }
}
