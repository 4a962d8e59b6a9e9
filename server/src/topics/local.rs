//! Topics numbered in this process: every subscriber is here, and the
//! store is asked only whether the cache exists. The embedded store's.

use std::sync::Arc;

use super::hub::Hub;
use super::subscription::{Resume, Subscription};
use super::TopicStore;
use crate::backend::Storage;
use crate::error::Error;
use crate::proto::cache_client::pubsub::topic_value::Kind;

#[derive(Clone)]
pub struct LocalTopics<S> {
    hub: Arc<Hub>,
    store: S,
}

impl<S: Storage> LocalTopics<S> {
    pub fn new(hub: Arc<Hub>, store: S) -> Self {
        LocalTopics { hub, store }
    }

    async fn check_exists(&self, cache: &str) -> Result<(), Error> {
        let resolved = self.store.cache(cache)?;
        self.store.check_exists(&resolved).await
    }
}

impl<S: Storage + Clone> TopicStore for LocalTopics<S> {
    async fn publish(
        &self,
        cache: &str,
        topic: &str,
        value: Kind,
        publisher: &str,
    ) -> Result<(), Error> {
        self.check_exists(cache).await?;
        self.hub
            .publish(cache, topic, value, publisher.to_owned())?;
        if self.check_exists(cache).await.is_err() {
            // Deleted meanwhile: what the publish made must not outlive it.
            self.hub.cache_deleted(cache);
        }
        Ok(())
    }

    async fn subscribe(
        &self,
        cache: &str,
        topic: &str,
        resume: Resume,
    ) -> Result<Subscription, Error> {
        Subscription::checked(&self.hub, cache, topic, resume, || self.check_exists(cache)).await
    }
}
