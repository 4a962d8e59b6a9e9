//! `control_client.ScsControl`: create, delete, list and flush caches.
//! Deleting and flushing also tell the cache's topics (`crate::topics`).

use std::sync::Arc;

use tonic::{Request, Response, Status};

use crate::auth::{self, Grant};
use crate::backend::Storage;
use crate::cache_limits::CacheLimits;
use crate::limits::{check_cache_name, Limits};
use crate::metrics::Lookups;
use crate::proto::control_client::scs_control_server::ScsControl;
use crate::proto::control_client::{
    Cache, CacheLimits as ProtoCacheLimits, CreateCacheRequest, CreateCacheResponse,
    DeleteCacheRequest, DeleteCacheResponse, FlushCacheRequest, FlushCacheResponse,
    ListCachesRequest, ListCachesResponse, TopicLimits,
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
        }
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
}
