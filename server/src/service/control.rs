//! `control_client.ScsControl`: create, delete, list and flush caches.
//! Deleting and flushing also tell the cache's topics (`crate::topics`).
//! And the signing keys of presigned URLs (`crate::auth::signing_keys`).

use std::sync::Arc;

use tonic::{Request, Response, Status};

use crate::auth::signing_keys::SigningKeys;
use crate::auth::{self, CacheScope, Claims, Grant, Role, Scope};
use crate::backend::Storage;
use crate::cache_limits::CacheLimits;
use crate::limits::{check_cache_name, Limits};
use crate::metrics::Lookups;
use crate::proto::control_client::scs_control_server::ScsControl;
use crate::proto::control_client::{
    Cache, CacheLimits as ProtoCacheLimits, CreateCacheRequest, CreateCacheResponse,
    CreateSigningKeyRequest, CreateSigningKeyResponse, DeleteCacheRequest, DeleteCacheResponse,
    FlushCacheRequest, FlushCacheResponse, ListCachesRequest, ListCachesResponse,
    ListSigningKeysRequest, ListSigningKeysResponse, RevokeSigningKeyRequest,
    RevokeSigningKeyResponse, SigningKey, TopicLimits,
};
use crate::topics::{CacheEvents, TopicSettings};

type Answer<T> = Result<Response<T>, Status>;

#[derive(Clone)]
pub struct ControlPlane<S> {
    store: S,
    limits: Limits,
    topics: Arc<dyn CacheEvents>,
    topic_settings: TopicSettings,
    /// The per-cache metrics, made and dropped with their cache.
    lookups: Lookups,
    /// Each cache's rate limits, reported by ListCaches.
    cache_limits: Arc<CacheLimits>,
    /// The signing keys of presigned URLs; without them their calls answer
    /// UNIMPLEMENTED.
    signing_keys: Option<Arc<SigningKeys>>,
}

impl<S: Storage> ControlPlane<S> {
    pub fn new(
        store: S,
        limits: Limits,
        topics: Arc<dyn CacheEvents>,
        topic_settings: TopicSettings,
        lookups: Lookups,
    ) -> Self {
        ControlPlane {
            store,
            limits,
            topics,
            topic_settings,
            lookups,
            cache_limits: CacheLimits::unlimited(),
            signing_keys: None,
        }
    }

    /// The signing keys the signing-key calls make, list and revoke.
    pub fn with_signing_keys(mut self, signing_keys: Arc<SigningKeys>) -> Self {
        self.signing_keys = Some(signing_keys);
        self
    }

    /// The signing keys, for a token that may manage them.
    fn signing_keys<T>(&self, request: &Request<T>, rpc: &str) -> Result<&SigningKeys, Status> {
        if let Some(Grant(claims)) = request.extensions().get::<Grant>() {
            check_every_cache(claims, rpc)?;
        }
        self.signing_keys
            .as_deref()
            .ok_or_else(|| Status::unimplemented(format!("{rpc} is not served here")))
    }

    /// The per-cache rate limits ListCaches reports; none by default.
    pub fn with_cache_limits(mut self, cache_limits: Arc<CacheLimits>) -> Self {
        self.cache_limits = cache_limits;
        self
    }

    /// The topic limits of the cache `name`, as ListCaches reports them
    /// (a rate of 0: unlimited).
    fn topic_limits(&self, name: &str) -> TopicLimits {
        let settings = &self.topic_settings;
        let rates = self.cache_limits.of(name);
        TopicLimits {
            max_publish_rate: saturate(rates.max_publishes_per_second.unwrap_or(0)),
            // The cache's own limit, or this server's per-cache bound if lower.
            max_subscription_count: saturate(
                rates
                    .max_subscriptions
                    .unwrap_or(u64::MAX)
                    .min(settings.max_subscriptions as u64),
            ),
            max_publish_message_size_kb: u32::try_from(settings.max_message_size / 1024)
                .unwrap_or(u32::MAX),
        }
    }

    /// The limits of the cache `name`, as ListCaches reports them (a rate
    /// of 0: unlimited; bytes a second in whole KiB, at least 1).
    fn limits_of(&self, name: &str) -> ProtoCacheLimits {
        let rates = self.cache_limits.of(name);
        ProtoCacheLimits {
            max_traffic_rate: saturate(rates.max_calls_per_second.unwrap_or(0)),
            max_throughput_kbps: saturate(
                rates
                    .max_bytes_per_second
                    .map_or(0, |bytes| bytes.div_ceil(1024)),
            ),
            max_item_size_kb: u32::try_from(self.limits.max_value_size / 1024).unwrap_or(u32::MAX),
            max_ttl_seconds: self.limits.max_ttl.as_secs(),
        }
    }
}

/// A signing key signs URLs for any cache, so managing keys takes a token
/// that reaches every cache: a super user, or `admin` over all caches.
fn check_every_cache(claims: &Claims, rpc: &str) -> Result<(), Status> {
    let every_cache = claims.is_super_user()
        || matches!(
            &claims.scope,
            Scope::Role {
                role: Role::Admin,
                caches: CacheScope::All,
            }
        );
    if every_cache {
        return Ok(());
    }
    Err(Status::permission_denied(format!(
        "{rpc} needs a token over every cache (`--role admin --caches all`, or a super user): a signing key signs URLs for any cache"
    )))
}

/// A rate as the protocol's `u32`, the largest if over it.
fn saturate(rate: u64) -> u32 {
    u32::try_from(rate).unwrap_or(u32::MAX)
}

#[tonic::async_trait]
impl<S: Storage + Clone> ScsControl for ControlPlane<S> {
    async fn create_cache(
        &self,
        request: Request<CreateCacheRequest>,
    ) -> Answer<CreateCacheResponse> {
        let name = &request.get_ref().cache_name;
        auth::check_cache(request.extensions().get::<Grant>(), "CreateCache", name)?;
        check_cache_name(name)?;
        self.store.create_cache(name).await?;
        self.lookups.cache_created(name);
        tracing::info!(cache = %name, "cache created");
        Ok(Response::new(CreateCacheResponse {}))
    }

    async fn delete_cache(
        &self,
        request: Request<DeleteCacheRequest>,
    ) -> Answer<DeleteCacheResponse> {
        let name = &request.get_ref().cache_name;
        auth::check_cache(request.extensions().get::<Grant>(), "DeleteCache", name)?;
        check_cache_name(name)?;
        self.store.delete_cache(name).await?;
        self.topics.cache_deleted(name);
        self.lookups.cache_deleted(name);
        self.cache_limits.forget(name);
        tracing::info!(cache = %name, "cache deleted");
        Ok(Response::new(DeleteCacheResponse {}))
    }

    async fn list_caches(&self, request: Request<ListCachesRequest>) -> Answer<ListCachesResponse> {
        let grant = request.extensions().get::<Grant>();
        let cache = self
            .store
            .list_caches()
            .await?
            .into_iter()
            .filter(|name| auth::may_see(grant, name))
            .map(|cache_name| Cache {
                cache_limits: Some(self.limits_of(&cache_name)),
                topic_limits: Some(self.topic_limits(&cache_name)),
                cache_name,
            })
            .collect();
        Ok(Response::new(ListCachesResponse {
            cache,
            next_token: String::new(),
        }))
    }

    async fn flush_cache(&self, request: Request<FlushCacheRequest>) -> Answer<FlushCacheResponse> {
        let name = &request.get_ref().cache_name;
        auth::check_cache(request.extensions().get::<Grant>(), "FlushCache", name)?;
        check_cache_name(name)?;
        self.store.flush_cache(name).await?;
        self.topics.cache_flushed(name);
        tracing::info!(cache = %name, "cache flushed");
        Ok(Response::new(FlushCacheResponse {}))
    }

    async fn create_signing_key(
        &self,
        request: Request<CreateSigningKeyRequest>,
    ) -> Answer<CreateSigningKeyResponse> {
        let keys = self.signing_keys(&request, "CreateSigningKey")?;
        let (key, expires_at) = keys.create(request.get_ref().ttl_minutes).await?;
        tracing::info!(expires_at, "signing key created");
        Ok(Response::new(CreateSigningKeyResponse { key, expires_at }))
    }

    async fn revoke_signing_key(
        &self,
        request: Request<RevokeSigningKeyRequest>,
    ) -> Answer<RevokeSigningKeyResponse> {
        let keys = self.signing_keys(&request, "RevokeSigningKey")?;
        let id = &request.get_ref().key_id;
        keys.revoke(id).await?;
        tracing::info!(key_id = %id, "signing key revoked");
        Ok(Response::new(RevokeSigningKeyResponse {}))
    }

    async fn list_signing_keys(
        &self,
        request: Request<ListSigningKeysRequest>,
    ) -> Answer<ListSigningKeysResponse> {
        let keys = self.signing_keys(&request, "ListSigningKeys")?;
        let signing_key = keys
            .list()
            .await?
            .into_iter()
            .map(|(key_id, expires_at)| SigningKey { key_id, expires_at })
            .collect();
        Ok(Response::new(ListSigningKeysResponse {
            signing_key,
            next_token: String::new(),
        }))
    }
}
