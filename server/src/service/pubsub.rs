//! `cache_client.pubsub.Pubsub`: Publish and Subscribe.
//!
//! The cache is named in the message, not in a header (the official SDKs'
//! topic clients send none), so the token's scope is checked here, as for
//! the control plane; its role was checked by the auth layer.
//!
//! Subscribe is served by `subscribe_route` (its answer framed by hand), which
//! calls [`PubsubService::open`]; the trait's `subscribe` does the same for
//! a server built from tonic's generated router alone.

use std::sync::Arc;

use prost::Message;
use tonic::{Request, Response};

use super::Answer;
use crate::auth::{self, Grant, TopicOp};
use crate::cache_limits::CacheLimits;
use crate::error::Error;
use crate::in_flight::{ConnectionState, InFlight};
use crate::limits::{check_cache_name, MAX_CACHE_NAME_LEN};
use crate::metrics::TopicMetrics;
use crate::proto::cache_client::pubsub::pubsub_server::Pubsub;
use crate::proto::cache_client::pubsub::{PublishRequest, SubscriptionRequest};
use crate::proto::common::Empty;
use crate::topics::{
    check_topic_name, BudgetShare, Resume, SubscriptionStream, TopicSettings, TopicStore,
};

#[derive(Clone)]
pub struct PubsubService<T> {
    topics: T,
    settings: TopicSettings,
    metrics: TopicMetrics,
    /// The in-flight budget each open subscription holds a share of; none in
    /// tests that serve without one.
    budget: Option<Arc<InFlight>>,
    /// The per-cache rates Publish and Subscribe are admitted by.
    cache_limits: Arc<CacheLimits>,
}

impl<T: TopicStore> PubsubService<T> {
    pub fn new(topics: T, settings: TopicSettings, metrics: TopicMetrics) -> Self {
        PubsubService {
            topics,
            settings,
            metrics,
            budget: None,
            cache_limits: CacheLimits::unlimited(),
        }
    }

    /// The per-cache rate limits (`crate::cache_limits`); none by default.
    pub fn with_cache_limits(mut self, cache_limits: Arc<CacheLimits>) -> Self {
        self.cache_limits = cache_limits;
        self
    }

    /// Subscriptions hold a share of `budget` while they are open.
    pub fn with_budget(mut self, budget: Arc<InFlight>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Opens a subscription: names checked, a share of the in-flight budget
    /// taken (RESOURCE_EXHAUSTED naming `--max-in-flight-bytes` if none is
    /// left), then the subscription (within the cache's limit,
    /// `--max-subscriptions` and `--max-topic-subscriptions`).
    pub async fn open(
        &self,
        grant: Option<&Grant>,
        connection: Option<Arc<ConnectionState>>,
        message: &SubscriptionRequest,
    ) -> Result<SubscriptionStream, tonic::Status> {
        let (cache, topic) = names(
            grant,
            ("Subscribe", TopicOp::Subscribe),
            &message.cache_name,
            &message.topic,
        )?;
        self.cache_limits.admit_call(cache, message.encoded_len())?;
        let share = match &self.budget {
            Some(budget) => {
                Some(BudgetShare::take(budget, connection).ok_or_else(|| budget.full_status())?)
            }
            None => None,
        };
        let resume = Resume {
            seq: message.resume_at_topic_sequence_number,
            page: message.sequence_page,
        };
        let permit = self.cache_limits.admit_subscription(cache).await?;
        let mut subscription = self.topics.subscribe(cache, topic, resume).await?;
        if let Some(share) = share {
            subscription = subscription.holding(share);
        }
        Ok(Box::pin(permit.holding(subscription.into_stream())))
    }
}

/// The cache and topic of a call, checked: the token's scope, then the names.
fn names<'a>(
    grant: Option<&Grant>,
    (rpc, op): (&str, TopicOp),
    cache: &'a str,
    topic: &'a str,
) -> Result<(&'a str, &'a str), tonic::Status> {
    auth::check_topic(grant, rpc, op, cache, topic)?;
    if cache.is_empty() {
        return Err(Error::InvalidArgument(format!("{rpc} needs a cache_name")).into());
    }
    if check_cache_name(cache).is_err() {
        // No cache can have this name: NOT_FOUND, as for any unknown cache,
        // without echoing a name that may be megabytes long.
        let shown: String = cache.chars().take(32).collect();
        let name = if cache.len() > MAX_CACHE_NAME_LEN {
            format!("{shown}... ({} bytes)", cache.len())
        } else {
            cache.to_owned()
        };
        return Err(Error::CacheNotFound(name).into());
    }
    check_topic_name(topic)?;
    Ok((cache, topic))
}

#[tonic::async_trait]
impl<T: TopicStore + Clone> Pubsub for PubsubService<T> {
    async fn publish(&self, request: Request<PublishRequest>) -> Answer<Empty> {
        let grant = request.extensions().get::<Grant>().cloned();
        let message = request.get_ref();
        let (cache, topic) = names(
            grant.as_ref(),
            ("Publish", TopicOp::Publish),
            &message.cache_name,
            &message.topic,
        )?;
        let value = self.settings.check_message(message.value.as_ref())?;
        self.cache_limits
            .admit_publish(cache, message.encoded_len())?;
        let publisher = grant
            .and_then(|Grant(claims)| claims.sub.clone())
            .unwrap_or_default();
        self.topics.publish(cache, topic, value, &publisher).await?;
        self.metrics.published.inc();
        Ok(Response::new(Empty {}))
    }

    type SubscribeStream = SubscriptionStream;

    async fn subscribe(
        &self,
        request: Request<SubscriptionRequest>,
    ) -> Answer<Self::SubscribeStream> {
        let grant = request.extensions().get::<Grant>();
        let connection = request.extensions().get::<Arc<ConnectionState>>().cloned();
        let stream = self.open(grant, connection, request.get_ref()).await?;
        Ok(Response::new(stream))
    }
}
