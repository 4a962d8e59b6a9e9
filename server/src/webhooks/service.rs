//! `webhook.Webhook`: the management calls. The catalogue (`sdk/spec.json`)
//! classes them `control`: only an admin token reaches them (the auth
//! layer), and one scoped to some caches manages only those caches'
//! webhooks (checked here, as the cache is named in the message).

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::registry::Webhooks;
use crate::auth::{self, Grant};
use crate::backend::Storage;
use crate::error::Error;
use crate::limits::check_cache_name;
use crate::proto::webhook as pb;
use crate::proto::webhook::webhook_destination::Kind;
use crate::proto::webhook::webhook_server::Webhook;
use crate::topics::TopicStore;

type Answer<T> = Result<Response<T>, Status>;

pub struct WebhookService<S, T> {
    store: S,
    webhooks: Arc<Webhooks<T>>,
}

impl<S, T> WebhookService<S, T> {
    pub fn new(store: S, webhooks: Arc<Webhooks<T>>) -> Self {
        WebhookService { store, webhooks }
    }
}

impl<S: Storage, T> WebhookService<S, T> {
    /// The token may manage `cache`, and it exists.
    async fn cache<'a, R>(
        &self,
        request: &'a Request<R>,
        rpc: &str,
        cache: &'a str,
    ) -> Result<&'a str, Status> {
        auth::check_cache(request.extensions().get::<Grant>(), rpc, cache)?;
        check_cache_name(cache)?;
        let resolved = self.store.cache(cache)?;
        self.store.check_exists(&resolved).await?;
        Ok(cache)
    }
}

fn id(id: Option<&pb::WebhookId>) -> Result<&pb::WebhookId, Status> {
    id.ok_or_else(|| Error::InvalidArgument("the call needs a webhook_id".to_owned()).into())
}

#[tonic::async_trait]
impl<S, T> Webhook for WebhookService<S, T>
where
    S: Storage + Clone,
    T: TopicStore + Clone,
{
    async fn put_webhook(
        &self,
        request: Request<pb::PutWebhookRequest>,
    ) -> Answer<pb::PutWebhookResponse> {
        let message = request.get_ref();
        let webhook = message
            .webhook
            .as_ref()
            .ok_or_else(|| Error::InvalidArgument("PutWebhook needs a webhook".to_owned()))?;
        let webhook_id = id(webhook.webhook_id.as_ref())?;
        let Some(Kind::PostUrl(url)) = webhook.destination.as_ref().and_then(|d| d.kind.as_ref())
        else {
            return Err(Error::InvalidArgument("the webhook needs a post_url".to_owned()).into());
        };
        let cache = self
            .cache(&request, "PutWebhook", &webhook_id.cache_name)
            .await?;
        let secret_string = self
            .webhooks
            .put(cache, &webhook_id.webhook_name, &webhook.topic_name, url)
            .await?;
        tracing::info!(cache = %cache, webhook = %webhook_id.webhook_name, "webhook put");
        Ok(Response::new(pb::PutWebhookResponse { secret_string }))
    }

    async fn delete_webhook(
        &self,
        request: Request<pb::DeleteWebhookRequest>,
    ) -> Answer<pb::DeleteWebhookResponse> {
        let webhook_id = id(request.get_ref().webhook_id.as_ref())?;
        let cache = self
            .cache(&request, "DeleteWebhook", &webhook_id.cache_name)
            .await?;
        self.webhooks
            .delete(cache, &webhook_id.webhook_name)
            .await?;
        Ok(Response::new(pb::DeleteWebhookResponse {}))
    }

    async fn list_webhooks(
        &self,
        request: Request<pb::ListWebhookRequest>,
    ) -> Answer<pb::ListWebhooksResponse> {
        let cache = self
            .cache(&request, "ListWebhooks", &request.get_ref().cache_name)
            .await?;
        let webhook = self
            .webhooks
            .list(cache)
            .await?
            .into_iter()
            .map(|(webhook_name, topic_name, url)| pb::Webhook {
                webhook_id: Some(pb::WebhookId {
                    cache_name: cache.to_owned(),
                    webhook_name,
                }),
                topic_name,
                destination: Some(pb::WebhookDestination {
                    kind: Some(Kind::PostUrl(url)),
                }),
            })
            .collect();
        Ok(Response::new(pb::ListWebhooksResponse { webhook }))
    }

    async fn get_webhook_secret(
        &self,
        request: Request<pb::GetWebhookSecretRequest>,
    ) -> Answer<pb::GetWebhookSecretResponse> {
        let message = request.get_ref();
        let cache = self
            .cache(&request, "GetWebhookSecret", &message.cache_name)
            .await?;
        let secret_string = self.webhooks.secret(cache, &message.webhook_name).await?;
        Ok(Response::new(pb::GetWebhookSecretResponse {
            cache_name: cache.to_owned(),
            webhook_name: message.webhook_name.clone(),
            secret_string,
        }))
    }

    async fn rotate_webhook_secret(
        &self,
        request: Request<pb::RotateWebhookSecretRequest>,
    ) -> Answer<pb::RotateWebhookSecretResponse> {
        let webhook_id = id(request.get_ref().webhook_id.as_ref())?;
        let cache = self
            .cache(&request, "RotateWebhookSecret", &webhook_id.cache_name)
            .await?;
        let secret_string = self
            .webhooks
            .rotate(cache, &webhook_id.webhook_name)
            .await?;
        tracing::info!(cache = %cache, webhook = %webhook_id.webhook_name, "webhook secret rotated");
        Ok(Response::new(pb::RotateWebhookSecretResponse {
            secret_string,
        }))
    }
}
