//! gRPC services: thin handlers that validate, call the store and map the result.
//!
//! - [`scs`] — `cache_client.Scs`: routes each data-plane call to its file.
//! - [`scalar`] — `cache_client.Scs`, single-item calls.
//! - [`batch`] — `cache_client.Scs`, GetBatch and SetBatch (server streams).
//! - [`dictionary`] — `cache_client.Scs`, the dictionary calls.
//! - [`list`] — `cache_client.Scs`, the list calls.
//! - [`set`] — `cache_client.Scs`, the set calls.
//! - [`sorted_set`] — `cache_client.Scs`, the sorted set calls.
//! - [`leaderboard`] — `leaderboard.Leaderboard`, served by the same `DataPlane`.
//! - [`control`] — `control_client.ScsControl`, the lifecycle of caches.
//! - [`ping`] — `cache_client.Ping`.
//! - [`pubsub`] — `cache_client.pubsub.Pubsub`, topics (over [`crate::topics`]).
//! - [`subscribe_route`] — Subscribe's route, its answer framed by hand.
//!
//! A path that is not declared in `proto/` never reaches a handler: the
//! router answers it UNIMPLEMENTED, and `rpc_layer` names the path.

pub mod batch;
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

use bytes::Bytes;
use tonic::{Request, Response, Status};

use crate::backend::Storage;
use crate::error::Error;
use crate::limits::{Limits, MAX_CACHE_NAME_LEN};
use crate::metrics::Lookups;

/// What every handler answers.
pub(crate) type Answer<T> = Result<Response<T>, Status>;

/// The header that names the cache of every data-plane call.
pub const CACHE_HEADER: &str = "cache";

/// What every data-plane handler needs: the store and the request limits.
#[derive(Clone)]
pub struct DataPlane<S> {
    pub store: S,
    pub limits: Limits,
    lookups: Lookups,
}

impl<S: Storage> DataPlane<S> {
    pub fn new(store: S, limits: Limits, lookups: Lookups) -> Self {
        DataPlane {
            store,
            limits,
            lookups,
        }
    }

    /// The item under `key`, counted as a hit or a miss.
    async fn lookup(&self, cache: &S::Cache, key: &[u8]) -> Result<Option<Bytes>, Error> {
        let value = self.store.get(cache, key).await?;
        self.lookups.record(value.is_some());
        Ok(value)
    }

    /// The cache named by the request's `cache` header.
    fn cache<T>(&self, request: &Request<T>) -> Result<S::Cache, Error> {
        let value = request
            .metadata()
            .get(CACHE_HEADER)
            .ok_or(Error::MissingCacheHeader)?;
        let name = value.to_str().map_err(|_| {
            Error::InvalidCacheName("the `cache` header is not printable ASCII".into())
        })?;
        if name.is_empty() {
            return Err(Error::MissingCacheHeader);
        }
        self.cache_named(name)
    }

    /// The cache called `name`, however the call named it (the `cache`
    /// header here, a field of the message on the protosocket port).
    pub(crate) fn cache_named(&self, name: &str) -> Result<S::Cache, Error> {
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
        self.store.cache(name)
    }
}
