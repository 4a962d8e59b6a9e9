//! Webhooks (`webhook.Webhook`): a topic's messages POSTed to a URL, each
//! signed as Momento signs them, so a serverless function or a chat
//! integration can subscribe without holding a stream open.
//!
//! # Layout
//!
//! - this file: the settings, the limits and the metrics.
//! - `service`: the five calls (put, delete, list, get secret, rotate).
//! - `registry`: the webhooks of this server, by cache, each with its
//!   secret and its delivery task.
//! - `deliver`: one webhook's delivery: its subscription, the POST, retries.
//! - `allow`: `--webhook-allow`, checked at put and at every connection.
//! - `sign`: secrets and the `momento-signature` header.
//! - `shared`: over Redis, the webhooks kept in the store and the lease by
//!   which one front-end at a time delivers each.
//!
//! # Why each webhook is a subscriber
//!
//! A webhook's delivery task reads its topic through an ordinary
//! subscription, as a client would: messages come in order, numbered, from
//! the topic's ring of newest messages. The ring is the webhook's queue:
//! while a POST is retried the task reads nothing, and the messages
//! published meanwhile wait in the ring, bounded by `--topic-buffer-messages`
//! and `--topic-buffer-bytes` and charged to `--max-topic-memory` once,
//! however many webhooks and subscribers read them. A webhook that falls
//! behind the ring is told so as a subscriber is (a discontinuity), and the
//! messages it lost are counted as `dropped`.

mod allow;
mod deliver;
mod registry;
mod service;
mod shared;
mod sign;

use std::time::Duration;

use prometheus::{IntCounter, IntCounterVec, IntGauge, Opts};

pub use allow::AllowList;
pub use registry::Webhooks;
pub use service::WebhookService;
pub use shared::{Definition, SharedWebhooks, Taken, LEASE_TTL};
pub use sign::signature;

/// Webhooks one cache may have.
pub const MAX_WEBHOOKS_PER_CACHE: usize = 10;
/// Longest webhook name (`webhook.proto`: "limited to 128 chars").
pub const MAX_NAME_LEN: usize = 128;
/// Longest destination URL.
pub const MAX_URL_LEN: usize = 2048;
/// How long a POST may take before it counts as failed: Momento's own
/// limit ("if confirmation is not received within 5 seconds").
pub const POST_TIMEOUT: Duration = Duration::from_secs(5);
/// Attempts at one message before it is given up (counted `failed`).
pub const MAX_ATTEMPTS: u32 = 8;
/// The wait before the second attempt; it doubles before each next one, up
/// to [`MAX_BACKOFF`]: 8 attempts span about 12 s.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(100);
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// POSTs in flight at once over all webhooks of the server.
pub const MAX_CONCURRENT_POSTS: usize = 64;

/// What the server's webhooks may do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebhookSettings {
    /// `--webhook-allow`: where they may POST, beside loopback.
    pub allow: AllowList,
}

/// `jiffy_webhook_*` (the registry adds the prefix): what happened to each message taken for a webhook.
#[derive(Clone)]
pub struct WebhookMetrics {
    /// A 2xx answer.
    delivered: IntCounter,
    /// Given up: MAX_ATTEMPTS failures, or a 4xx answer other than 408 and
    /// 429 (the receiver refused the message itself).
    failed: IntCounter,
    /// Refused by `--webhook-allow` when about to be sent.
    refused: IntCounter,
    /// Lost because the webhook fell behind its topic's ring.
    dropped: IntCounter,
    /// Webhooks whose current message waits for another attempt.
    pub retrying: IntGauge,
    /// Webhooks on this server (over Redis: in the store, as this
    /// front-end last read them).
    pub webhooks: IntGauge,
    /// Over Redis: webhooks whose lease this front-end holds (it delivers them).
    pub leases: IntGauge,
    /// Over Redis: leases this front-end took from a holder that did not
    /// hand them over (it died, or lost touch with Redis).
    pub takeovers: IntCounter,
    deliveries: IntCounterVec,
}

impl WebhookMetrics {
    pub fn new() -> WebhookMetrics {
        let deliveries = IntCounterVec::new(
            Opts::new(
                "webhook_deliveries_total",
                "messages taken for a webhook, by what became of them: delivered (2xx), failed (given up after retries, or refused by the receiver), refused (--webhook-allow), dropped (the webhook fell behind its topic's buffer)",
            ),
            &["result"],
        )
        .expect("valid metric");
        let gauge = |name: &str, help: &str| {
            IntGauge::with_opts(Opts::new(name, help)).expect("valid metric")
        };
        WebhookMetrics {
            delivered: deliveries.with_label_values(&["delivered"]),
            failed: deliveries.with_label_values(&["failed"]),
            refused: deliveries.with_label_values(&["refused"]),
            dropped: deliveries.with_label_values(&["dropped"]),
            retrying: gauge(
                "webhook_retrying",
                "webhooks whose current message waits for another attempt; what is published meanwhile waits in the topic's buffer",
            ),
            webhooks: gauge("webhooks", "webhooks on this server (over Redis: in the store)"),
            leases: gauge(
                "webhook_leases",
                "over Redis: webhooks whose lease this front-end holds, so delivers",
            ),
            takeovers: IntCounter::with_opts(Opts::new(
                "webhook_lease_takeovers_total",
                "over Redis: webhook leases taken from a front-end that did not hand them over (it died or lost Redis); what it delivered since its last renewal is delivered again",
            ))
            .expect("valid metric"),
            deliveries,
        }
    }

    /// Each metric, to register.
    pub fn collectors(&self) -> Vec<Box<dyn prometheus::core::Collector>> {
        vec![
            Box::new(self.deliveries.clone()),
            Box::new(self.retrying.clone()),
            Box::new(self.webhooks.clone()),
            Box::new(self.leases.clone()),
            Box::new(self.takeovers.clone()),
        ]
    }
}

impl Default for WebhookMetrics {
    fn default() -> Self {
        WebhookMetrics::new()
    }
}
