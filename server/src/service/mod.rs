//! gRPC services: thin handlers that validate, call the store and map the result.
//!
//! - [`scs`] — `cache_client.Scs`: routes each data-plane call to its file.
//! - [`scalar`] — `cache_client.Scs`, single-item calls.
//! - [`batch`] — `cache_client.Scs`, GetBatch and SetBatch (server streams).
//! - [`codec`] — the codec of every generated service: answers encoded into room of their size.
//! - [`dictionary`] — `cache_client.Scs`, the dictionary calls.
//! - [`list`] — `cache_client.Scs`, the list calls.
//! - [`set`] — `cache_client.Scs`, the set calls.
//! - [`sorted_set`] — `cache_client.Scs`, the sorted set calls.
//! - [`leaderboard`] — `leaderboard.Leaderboard`, served by the same `DataPlane`.
//! - [`control`] — `control_client.ScsControl`, the lifecycle of caches.
//! - [`ping`] — `cache_client.Ping`.
//! - [`admin`] — `jiffy.admin.Admin`, Jiffy's own admin calls (ListKeys).
//! - [`pubsub`] — `cache_client.pubsub.Pubsub`, topics (over [`crate::topics`]).
//! - [`subscribe_route`] — Subscribe's route, its answer framed by hand.
//! - [`tokens`] — `token.Token` and `auth.Auth`, minting tokens.
//!
//! A path that is not declared in `proto/` never reaches a handler: the
//! router answers it UNIMPLEMENTED, and `rpc_layer` names the path.

pub mod admin;
pub mod batch;
pub mod codec;
pub mod control;
pub mod dictionary;
pub mod hash;
pub mod leaderboard;
pub mod list;
pub mod ping;
pub mod pubsub;
pub mod scalar;
pub mod scs;
pub mod set;
pub mod sorted_set;
pub mod subscribe_route;
pub mod tokens;

use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use tonic::metadata::{Ascii, MetadataKey};
use tonic::{Request, Response, Status};

use crate::auth::{ItemKeys, KeyCheck};
use crate::backend::{CollectionTtl, Storage};
use crate::cache_limits::CacheLimits;
use crate::error::Error;
use crate::limits::{Limits, MAX_CACHE_NAME_LEN};
use crate::metrics::Lookups;

/// What every handler answers.
pub(crate) type Answer<T> = Result<Response<T>, Status>;

/// The TTL of a collection write, from its `ttl_milliseconds` and
/// `refresh_ttl`. Zero is accepted only when it is not refreshed: the
/// official Java SDK's ListRetain always sends 0 with no refresh, which
/// the Momento service accepts, as a TTL that only a new collection would
/// take (a new one written with it is gone at once; ListRetain makes none).
pub(crate) fn collection_ttl(
    limits: &Limits,
    milliseconds: u64,
    refresh: bool,
) -> Result<CollectionTtl, Error> {
    let ttl = match milliseconds {
        0 if !refresh => std::time::Duration::ZERO,
        _ => limits.ttl(milliseconds)?,
    };
    Ok(CollectionTtl { ttl, refresh })
}

/// A score, amount or score bound: a finite number, answered as it came.
pub(crate) fn finite(what: &str, score: f64) -> Result<f64, Error> {
    if score.is_finite() {
        Ok(score)
    } else {
        Err(Error::InvalidArgument(format!(
            "{what} must be a finite number, not {score}"
        )))
    }
}

/// The header that names the cache of every data-plane call.
pub const CACHE_HEADER: &str = "cache";

/// [`CACHE_HEADER`] as a key, made once: a lookup by a key skips parsing
/// the name, which a lookup by `&str` repeats on every call.
static CACHE_KEY: LazyLock<MetadataKey<Ascii>> =
    LazyLock::new(|| MetadataKey::from_static(CACHE_HEADER));

/// What every data-plane handler needs: the store and the request limits.
#[derive(Clone)]
pub struct DataPlane<S> {
    pub store: S,
    pub limits: Limits,
    lookups: Lookups,
    /// The per-cache rates every call is admitted by, on every port.
    pub cache_limits: Arc<CacheLimits>,
}

impl<S: Storage> DataPlane<S> {
    pub fn new(store: S, limits: Limits, lookups: Lookups) -> Self {
        DataPlane {
            store,
            limits,
            lookups,
            cache_limits: CacheLimits::unlimited(),
        }
    }

    /// The per-cache rate limits (`crate::cache_limits`); none by default.
    pub fn with_cache_limits(mut self, cache_limits: Arc<CacheLimits>) -> Self {
        self.cache_limits = cache_limits;
        self
    }

    /// The item under `key` of the cache `name`, counted as a hit or a miss.
    async fn lookup(
        &self,
        cache: &S::Cache,
        name: &str,
        key: &[u8],
    ) -> Result<Option<Bytes>, Error> {
        let value = self.store.get(cache, key).await?;
        if let Some(value) = &value {
            self.cache_limits.charge_answer(name, value.len());
        }
        let hit = u64::from(value.is_some());
        self.lookups.record(name, hit, 1 - hit);
        Ok(value)
    }

    /// The cache named by the request's `cache` header; with a token that
    /// reaches only some keys of it, every key the call names checked.
    fn cache<T: ItemKeys + prost::Message>(
        &self,
        request: &Request<T>,
    ) -> Result<S::Cache, Status> {
        let cache = self.named_cache(request)?;
        if let Some(check) = request.extensions().get::<KeyCheck>() {
            check.check(cache_name(request), &request.get_ref().item_keys())?;
        }
        Ok(cache)
    }

    fn named_cache<T: prost::Message>(&self, request: &Request<T>) -> Result<S::Cache, Error> {
        let value = request
            .metadata()
            .get(&*CACHE_KEY)
            .ok_or(Error::MissingCacheHeader)?;
        let name = value.to_str().map_err(|_| {
            Error::InvalidCacheName("the `cache` header is not printable ASCII".into())
        })?;
        if name.is_empty() {
            return Err(Error::MissingCacheHeader);
        }
        self.cache_named(name, request.get_ref().encoded_len())
    }

    /// The cache called `name`, however the call named it (the `cache`
    /// header here, a field of the message on the protosocket port), the
    /// call of `request_bytes` admitted by the cache's rate limits.
    pub(crate) fn cache_named(&self, name: &str, request_bytes: usize) -> Result<S::Cache, Error> {
        if name.is_empty() {
            return Err(Error::InvalidCacheName("it must not be empty".into()));
        }
        if name.len() > MAX_CACHE_NAME_LEN {
            // No cache can have this name. Still NOT_FOUND, as for any unknown
            // cache (the official SDKs expect it), but without echoing a name
            // of up to 16 KiB back into the message and the client's logs.
            let end = (0..=32).rev().find(|&i| name.is_char_boundary(i));
            let end = end.unwrap_or(0);
            return Err(Error::CacheNotFound(format!(
                "{}... ({} bytes)",
                &name[..end],
                name.len()
            )));
        }
        let cache = self.store.cache(name)?;
        self.lookups.count_call(name);
        self.cache_limits.admit_call(name, request_bytes)?;
        Ok(cache)
    }
}

/// The cache a gRPC request names in its header, `""` if none.
fn cache_name<T>(request: &Request<T>) -> &str {
    let name = request.metadata().get(&*CACHE_KEY);
    name.and_then(|name| name.to_str().ok()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::collection_ttl;
    use crate::error::Error;
    use crate::limits::tests::LIMITS;

    #[test]
    fn a_collection_ttl_may_be_zero_only_when_it_is_not_refreshed() {
        assert_eq!(collection_ttl(&LIMITS, 0, true).err(), Some(Error::ZeroTtl));
        let kept = collection_ttl(&LIMITS, 0, false).unwrap();
        assert_eq!((kept.ttl, kept.refresh), (Duration::ZERO, false));
        let refreshed = collection_ttl(&LIMITS, 1_000, true).unwrap();
        assert_eq!(
            (refreshed.ttl, refreshed.refresh),
            (Duration::from_secs(1), true)
        );
        for refresh in [false, true] {
            assert!(matches!(
                collection_ttl(&LIMITS, 60_001, refresh),
                Err(Error::TtlTooLong { .. })
            ));
        }
    }
}
