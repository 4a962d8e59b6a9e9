//! `control_client.ScsControl`: create, delete, list and flush caches.
//! Deleting and flushing also tell the cache's topics (`crate::topics`).

use std::sync::Arc;

use tonic::{Request, Response, Status};

use crate::auth::{self, Grant};
use crate::backend::Storage;
use crate::limits::{check_cache_name, Limits};
use crate::metrics::Lookups;
use crate::proto::control_client::scs_control_server::ScsControl;
use crate::proto::control_client::{
    Cache, CacheLimits, CreateCacheRequest, CreateCacheResponse, DeleteCacheRequest,
    DeleteCacheResponse, FlushCacheRequest, FlushCacheResponse, ListCachesRequest,
    ListCachesResponse, TopicLimits,
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
        }
    }

    /// The topic limits every cache shares, as ListCaches reports them.
    fn topic_limits(&self) -> TopicLimits {
        let settings = &self.topic_settings;
        TopicLimits {
            max_publish_rate: 0,
            max_subscription_count: u32::try_from(settings.max_subscriptions).unwrap_or(u32::MAX),
            max_publish_message_size_kb: u32::try_from(settings.max_message_size / 1024)
                .unwrap_or(u32::MAX),
        }
    }

    /// The limits every cache shares, as ListCaches reports them.
    fn cache_limits(&self) -> CacheLimits {
        CacheLimits {
            max_traffic_rate: 0,
            max_throughput_kbps: 0,
            max_item_size_kb: u32::try_from(self.limits.max_value_size / 1024).unwrap_or(u32::MAX),
            max_ttl_seconds: self.limits.max_ttl.as_secs(),
        }
    }
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
                cache_name,
                cache_limits: Some(self.cache_limits()),
                topic_limits: Some(self.topic_limits()),
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
