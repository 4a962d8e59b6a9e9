//! One webhook's delivery: read its topic through a subscription, POST each
//! message in order, signed, retrying with exponential backoff, and give up
//! on a message after [`MAX_ATTEMPTS`]; subscribe again from the next
//! message if the subscription ends, and forget the webhook once its cache
//! is gone. One loop for both stores: a [`Source`] says whether this
//! process delivers the webhook and from which message (over Redis, the
//! front-end holding its lease, from the position recorded there).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use futures_util::StreamExt;
use http::{header, Method, Request, StatusCode};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::sync::Semaphore;

use super::allow::{AllowList, AllowedResolver};
use super::registry::{Hook, Webhooks};
use super::sign::signature;
use super::{
    WebhookMetrics, FIRST_BACKOFF, MAX_ATTEMPTS, MAX_BACKOFF, MAX_CONCURRENT_POSTS, POST_TIMEOUT,
};
use crate::error::Error;
use crate::proto::cache_client::pubsub::subscription_item::Kind as ItemKind;
use crate::proto::cache_client::pubsub::topic_value::Kind;
use crate::proto::cache_client::pubsub::TopicItem;
use crate::topics::{Resume, Subscription, TopicStore};

/// The wait before subscribing again after a subscription ended for another
/// reason than a deleted cache (a full server, a slow-subscriber cut).
const RESUBSCRIBE_DELAY: Duration = Duration::from_millis(500);

type HttpClient = Client<HttpsConnector<HttpConnector<AllowedResolver>>, String>;

/// What every webhook's task shares: the HTTP client (its connections
/// pooled per destination), the cap on POSTs in flight, the metrics.
pub struct Poster {
    client: HttpClient,
    allow: Arc<AllowList>,
    permits: Semaphore,
    metrics: WebhookMetrics,
}

/// How one message ended.
enum Outcome {
    Delivered,
    Failed,
    Refused,
}

impl Poster {
    pub fn new(allow: Arc<AllowList>, metrics: WebhookMetrics) -> Poster {
        let mut http = HttpConnector::new_with_resolver(AllowedResolver(allow.clone()));
        http.enforce_http(false);
        http.set_connect_timeout(Some(POST_TIMEOUT));
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_native_roots()
            .unwrap_or_else(|error| {
                tracing::warn!(%error, "no system roots: webhooks over https will fail");
                hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(
                    rustls::ClientConfig::builder()
                        .with_root_certificates(rustls::RootCertStore::empty())
                        .with_no_client_auth(),
                )
            })
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Poster {
            client: Client::builder(TokioExecutor::new()).build(https),
            allow,
            permits: Semaphore::new(MAX_CONCURRENT_POSTS),
            metrics,
        }
    }

    /// Delivers one message, retrying until it is answered 2xx, refused by
    /// the receiver or [`MAX_ATTEMPTS`] have failed.
    async fn deliver(&self, hook: &Hook, body: String) -> Outcome {
        let mut backoff = FIRST_BACKOFF;
        for attempt in 1..=MAX_ATTEMPTS {
            if attempt > 1 {
                // A guard: a task aborted while it waits (its webhook
                // deleted) is not left counted.
                let _waiting = Retrying::new(&self.metrics.retrying);
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            // Checked here to tell a refusal from a failure; the resolver
            // checks again at the connect itself.
            let host = hook.uri.host().unwrap_or_default();
            if let Err(error) = self.allow.resolve(host, 0).await {
                if error.kind() == std::io::ErrorKind::PermissionDenied {
                    tracing::warn!(cache = %hook.cache, webhook = %hook.name, %error, "webhook refused");
                    return Outcome::Refused;
                }
                continue;
            }
            match self.post(hook, body.clone()).await {
                Ok(status) if status.is_success() => return Outcome::Delivered,
                Ok(status) if status.is_client_error() && !retried(status) => {
                    tracing::debug!(cache = %hook.cache, webhook = %hook.name, %status, "webhook refused the message");
                    return Outcome::Failed;
                }
                Ok(status) => {
                    tracing::debug!(cache = %hook.cache, webhook = %hook.name, %status, attempt, "webhook POST failed")
                }
                Err(error) => {
                    tracing::debug!(cache = %hook.cache, webhook = %hook.name, %error, attempt, "webhook POST failed")
                }
            }
        }
        Outcome::Failed
    }

    async fn post(&self, hook: &Hook, body: String) -> Result<StatusCode, String> {
        let _permit = self.permits.acquire().await.map_err(|e| e.to_string())?;
        let request = Request::builder()
            .method(Method::POST)
            .uri(hook.uri.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .header(
                header::USER_AGENT,
                concat!("jiffy-server/", env!("CARGO_PKG_VERSION")),
            )
            .header(
                "momento-signature",
                signature(&hook.secret(), body.as_bytes()),
            )
            .body(body)
            .map_err(|e| e.to_string())?;
        match tokio::time::timeout(POST_TIMEOUT, self.client.request(request)).await {
            Ok(Ok(answer)) => Ok(answer.status()),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err(format!("no answer within {POST_TIMEOUT:?}")),
        }
    }
}

/// Counts one webhook in `jiffy_webhook_retrying` while it lives.
struct Retrying<'a>(&'a prometheus::IntGauge);

impl<'a> Retrying<'a> {
    fn new(gauge: &'a prometheus::IntGauge) -> Self {
        gauge.inc();
        Retrying(gauge)
    }
}

impl Drop for Retrying<'_> {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// 408 and 429 say "later", not "never".
fn retried(status: StatusCode) -> bool {
    status == StatusCode::REQUEST_TIMEOUT || status == StatusCode::TOO_MANY_REQUESTS
}

/// The body Momento POSTs: the message and where it came from.
pub fn event(hook: &Hook, item: &TopicItem) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64);
    let mut body = serde_json::json!({
        "cache": hook.cache,
        "topic": hook.topic,
        "event_timestamp": now,
        "publish_timestamp": now,
        "topic_sequence_number": item.topic_sequence_number,
        "token_id": item.publisher_id,
    });
    match item.value.as_ref().and_then(|value| value.kind.as_ref()) {
        Some(Kind::Text(text)) => body["text"] = text.clone().into(),
        Some(Kind::Binary(bytes)) => {
            body["binary"] = base64::engine::general_purpose::STANDARD
                .encode(bytes)
                .into()
        }
        None => {}
    }
    body.to_string()
}

/// Who may deliver a webhook, and from where. The embedded store's webhooks
/// are always delivered by this process ([`Always`]); over Redis, by the
/// front-end that holds the webhook's lease (`shared::Lease`).
pub trait Source: Send {
    /// Waits until this process is the one to deliver; answers the first
    /// message to read.
    fn acquire(&mut self) -> impl std::future::Future<Output = Resume> + Send;
    /// Whether it still is, asked before each message is sent.
    fn holds(&self) -> bool;
    /// Every message before `next` is delivered or given up.
    fn advance(&mut self, next: Resume);
    /// The server stops: hands delivery over.
    fn release(&mut self) -> impl std::future::Future<Output = ()> + Send;
}

/// The embedded store's webhooks: this process is the only one.
pub struct Always;

impl Source for Always {
    async fn acquire(&mut self) -> Resume {
        Resume::default()
    }

    fn holds(&self) -> bool {
        true
    }

    fn advance(&mut self, _next: Resume) {}

    async fn release(&mut self) {}
}

/// The task of one webhook, until it is deleted (aborted), its cache is
/// deleted, or the server stops. `first` is the subscription its put
/// opened, if any; otherwise it reads from where `source` says.
pub async fn run<T: TopicStore + Clone, S: Source>(
    webhooks: Arc<Webhooks<T>>,
    hook: Arc<Hook>,
    generation: u64,
    mut source: S,
    first: Option<Subscription>,
) {
    let mut stop = webhooks.stop.clone();
    let mut holding = first.is_some();
    let mut subscription = first;
    let mut next = Resume::default();
    loop {
        if !holding {
            next = tokio::select! {
                start = source.acquire() => start,
                _ = stop.wait_for(|stopped| *stopped) => return,
            };
            holding = true;
        }
        let current = match subscription.take() {
            Some(current) => current,
            None => match webhooks
                .topics()
                .subscribe(&hook.cache, &hook.topic, next)
                .await
            {
                Ok(current) => current,
                Err(Error::CacheNotFound(_)) => {
                    webhooks.forget(&hook.cache, &hook.name, generation);
                    return;
                }
                Err(error) => {
                    tracing::debug!(cache = %hook.cache, webhook = %hook.name, %error, "webhook subscription refused");
                    if stopped(&mut stop, RESUBSCRIBE_DELAY).await {
                        return source.release().await;
                    }
                    continue;
                }
            },
        };
        let mut stream = current.into_stream();
        loop {
            let item = tokio::select! {
                item = stream.next() => Some(item),
                _ = stop.wait_for(|stopped| *stopped) => None,
            };
            let Some(item) = item else {
                return source.release().await;
            };
            let Some(Ok(item)) = item else { break };
            match item.kind {
                Some(ItemKind::Item(item)) => {
                    if !source.holds() {
                        // Another front-end delivers it from now on, from
                        // the position last recorded.
                        holding = false;
                        break;
                    }
                    let metrics = &webhooks.poster().metrics;
                    match webhooks.poster().deliver(&hook, event(&hook, &item)).await {
                        Outcome::Delivered => metrics.delivered.inc(),
                        Outcome::Failed => metrics.failed.inc(),
                        Outcome::Refused => metrics.refused.inc(),
                    }
                    next = Resume {
                        seq: item.topic_sequence_number + 1,
                        page: item.sequence_page,
                    };
                    source.advance(next);
                }
                Some(ItemKind::Discontinuity(gap)) => {
                    if gap.last_topic_sequence > 0 {
                        let lost = gap
                            .new_topic_sequence
                            .saturating_sub(gap.last_topic_sequence);
                        webhooks.poster().metrics.dropped.inc_by(lost);
                    }
                }
                Some(ItemKind::Heartbeat(_)) | None => {}
            }
        }
        if holding && stopped(&mut stop, RESUBSCRIBE_DELAY).await {
            return source.release().await;
        }
    }
}

/// Waits `delay`; `true` if the server began to stop meanwhile.
async fn stopped(stop: &mut tokio::sync::watch::Receiver<bool>, delay: Duration) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(delay) => false,
        _ = stop.wait_for(|stopped| *stopped) => true,
    }
}
