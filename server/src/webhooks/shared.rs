//! Webhooks shared by front-ends over a Redis Cluster: their definitions
//! kept in the store ([`SharedWebhooks`], implemented by
//! `backend::redis::webhooks`), and the lease by which one front-end at a
//! time delivers each webhook ([`Lease`], the shared store's
//! [`Source`](super::deliver::Source)).
//!
//! # What holds
//!
//! - **One holder**: a front-end delivers a webhook only while it holds its
//!   lease: a key set with `SET NX PX` and a random token, renewed every
//!   [`RENEW_INTERVAL`] for [`LEASE_TTL`]. It stops before its next POST
//!   once [`LEASE_TTL`] less [`LEASE_MARGIN`] has passed since it last sent
//!   a renewal that succeeded, so it stops before Redis lets the lease go.
//! - **A position**: each renewal also records the next message to deliver
//!   (one script, one write a second per webhook however many messages
//!   pass). A holder that stops cleanly (shutdown) records the exact
//!   position; a new holder reads the topic from there.
//! - **Takeover**: the other front-ends try to take a lease every
//!   [`TAKE_INTERVAL`]; a holder that dies lets its lease lapse after
//!   [`LEASE_TTL`], so delivery goes on within about
//!   `LEASE_TTL + TAKE_INTERVAL`. What the dead holder delivered after its
//!   last renewal (at most [`RENEW_INTERVAL`] of messages, and the message
//!   it was sending) is delivered again by the new one: at least once at a
//!   takeover, exactly once otherwise.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use parking_lot::Mutex;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::deliver::Source;
use super::sign::new_secret;
use super::WebhookMetrics;
use crate::error::Error;
use crate::topics::Resume;

/// How long a lease lasts unless renewed.
pub const LEASE_TTL: Duration = Duration::from_secs(3);
/// How often its holder renews it (and records its position).
pub const RENEW_INTERVAL: Duration = Duration::from_secs(1);
/// How much sooner than Redis the holder counts its lease as gone: room
/// for clocks that run at slightly different rates.
pub const LEASE_MARGIN: Duration = Duration::from_millis(500);
/// How often a front-end that does not hold a lease tries to take it.
pub const TAKE_INTERVAL: Duration = Duration::from_secs(1);
/// How often each front-end reads every webhook's definition from the
/// store: how soon it starts competing for a new one, stops for a deleted
/// one, and signs with a rotated secret.
pub const SYNC_INTERVAL: Duration = Duration::from_secs(1);

/// A webhook as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    pub cache: String,
    pub name: String,
    pub topic: String,
    pub url: String,
    pub secret: String,
    /// Fresh at each put that changes the topic or the URL: a lease and a
    /// position belong to one definition, and end with it.
    pub id: String,
}

/// What taking a lease answered.
#[derive(Debug, PartialEq, Eq)]
pub enum Taken {
    /// This front-end holds it; delivery resumes at the position; `true`
    /// if the last holder did not hand it over (it died or lost Redis).
    Held(Resume, bool),
    /// Another front-end holds it.
    Busy,
    /// The webhook was deleted or replaced.
    Gone,
}

/// Webhooks kept by the store, so that every front-end answers alike.
pub trait SharedWebhooks: Send + Sync {
    /// Creates or replaces `definition` (its secret and id are used only for
    /// a new one, its id for a changed one), delivering from the messages
    /// published after it; answers the secret and the id it has. At most
    /// `max` a cache.
    fn put<'a>(
        &'a self,
        definition: &'a Definition,
        max: usize,
    ) -> BoxFuture<'a, Result<(String, String), Error>>;
    fn delete<'a>(&'a self, cache: &'a str, name: &'a str) -> BoxFuture<'a, Result<(), Error>>;
    /// The webhooks of one cache.
    fn of_cache<'a>(&'a self, cache: &'a str) -> BoxFuture<'a, Result<Vec<Definition>, Error>>;
    /// The webhooks of every cache.
    fn all(&self) -> BoxFuture<'_, Result<Vec<Definition>, Error>>;
    /// Gives the webhook `secret`; WebhookNotFound if there is none.
    fn rotate<'a>(
        &'a self,
        cache: &'a str,
        name: &'a str,
        secret: &'a str,
    ) -> BoxFuture<'a, Result<(), Error>>;
    /// Takes the lease of `definition` for `token` if no one holds it.
    fn take<'a>(
        &'a self,
        definition: &'a Definition,
        token: &'a str,
    ) -> BoxFuture<'a, Result<Taken, Error>>;
    /// Renews the lease `token` holds and records `position`; `false` if it
    /// no longer holds it.
    fn renew<'a>(
        &'a self,
        definition: &'a Definition,
        token: &'a str,
        position: Resume,
    ) -> BoxFuture<'a, Result<bool, Error>>;
    /// Gives the lease up, recording `position`.
    fn release<'a>(
        &'a self,
        definition: &'a Definition,
        token: &'a str,
        position: Resume,
    ) -> BoxFuture<'a, Result<(), Error>>;
}

/// What a lease's holder and its renewal task share.
#[derive(Default)]
struct Held {
    /// When the holder must stop, if it holds the lease.
    until: Option<Instant>,
    /// The next message to deliver.
    position: Resume,
}

/// One front-end's claim on one webhook.
pub struct Lease {
    shared: Arc<dyn SharedWebhooks>,
    definition: Definition,
    metrics: WebhookMetrics,
    token: String,
    held: Arc<Mutex<Held>>,
    /// While held: the task that renews it.
    renewal: Option<AbortHandle>,
}

impl Lease {
    pub fn new(
        shared: Arc<dyn SharedWebhooks>,
        definition: Definition,
        metrics: WebhookMetrics,
    ) -> Lease {
        Lease {
            shared,
            definition,
            metrics,
            token: new_secret(),
            held: Arc::default(),
            renewal: None,
        }
    }

    /// Stops renewing; the gauge no longer counts this lease.
    fn stop_renewing(&mut self) {
        if let Some(renewal) = self.renewal.take() {
            renewal.abort();
            self.metrics.leases.dec();
        }
        self.held.lock().until = None;
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.stop_renewing();
    }
}

/// Renews the lease every [`RENEW_INTERVAL`] until it is lost (another
/// holder, the webhook gone) or has lapsed without a renewal answered.
async fn renew(
    shared: Arc<dyn SharedWebhooks>,
    definition: Definition,
    token: String,
    held: Arc<Mutex<Held>>,
) {
    loop {
        tokio::time::sleep(RENEW_INTERVAL).await;
        let (until, position) = {
            let held = held.lock();
            (held.until, held.position)
        };
        let sent = Instant::now();
        match until {
            Some(until) if sent < until => {}
            _ => return,
        }
        match shared.renew(&definition, &token, position).await {
            Ok(true) => held.lock().until = Some(sent + LEASE_TTL - LEASE_MARGIN),
            Ok(false) => {
                held.lock().until = None;
                return;
            }
            // Tried again; the holder stops on its own if none succeeds in time.
            Err(error) => {
                tracing::debug!(cache = %definition.cache, webhook = %definition.name, %error, "webhook lease renewal failed")
            }
        }
    }
}

impl Source for Lease {
    async fn acquire(&mut self) -> Resume {
        self.stop_renewing();
        loop {
            let sent = Instant::now();
            match self.shared.take(&self.definition, &self.token).await {
                Ok(Taken::Held(position, takeover)) => {
                    if takeover {
                        self.metrics.takeovers.inc();
                        tracing::info!(cache = %self.definition.cache, webhook = %self.definition.name, "webhook lease taken over");
                    }
                    *self.held.lock() = Held {
                        until: Some(sent + LEASE_TTL - LEASE_MARGIN),
                        position,
                    };
                    self.metrics.leases.inc();
                    self.renewal = Some(
                        tokio::spawn(renew(
                            self.shared.clone(),
                            self.definition.clone(),
                            self.token.clone(),
                            self.held.clone(),
                        ))
                        .abort_handle(),
                    );
                    return position;
                }
                // Busy: someone delivers it. Gone: the next sync ends this task.
                Ok(Taken::Busy | Taken::Gone) => {}
                Err(error) => {
                    tracing::debug!(cache = %self.definition.cache, webhook = %self.definition.name, %error, "taking a webhook lease failed")
                }
            }
            tokio::time::sleep(TAKE_INTERVAL).await;
        }
    }

    fn holds(&self) -> bool {
        self.held
            .lock()
            .until
            .is_some_and(|until| Instant::now() < until)
    }

    fn advance(&mut self, next: Resume) {
        self.held.lock().position = next;
    }

    async fn release(&mut self) {
        let holds = self.holds();
        let position = self.held.lock().position;
        if let Some(renewal) = &self.renewal {
            renewal.abort();
        }
        if holds {
            if let Err(error) = self
                .shared
                .release(&self.definition, &self.token, position)
                .await
            {
                tracing::debug!(cache = %self.definition.cache, webhook = %self.definition.name, %error, "releasing a webhook lease failed; it lapses");
            }
        }
        // Counted until handed over: shutdown waits for the gauge to reach 0.
        self.stop_renewing();
    }
}
