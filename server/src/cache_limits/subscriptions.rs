//! The per-cache limit on subscriptions open at once
//! (`--cache-max-subscriptions`, or a cache's `max-subscriptions`).
//!
//! Each front-end counts the subscriptions it holds open per cache. With
//! the embedded store that count is the cache's. Over a Redis store the
//! count is shared: a hash per cache, in the cache's hash slot, of each
//! front-end's id to its count and a deadline (`lua/subscription_count.lua`).
//! A subscription is admitted by the script, which sums the live counts
//! and adds one if the sum is under the limit, so front-ends opening
//! subscriptions at once never pass it together. Each front-end rewrites
//! its counts every [`REFRESH`], pushing its deadline [`LEASE`] ahead:
//!
//! - a front-end that dies, or loses Redis, is forgotten within [`LEASE`]
//!   (15 s), and its subscriptions stop counting;
//! - a subscription opened or closed while a refresh is under way may be
//!   missed by it: the shared count is then off by that one until the next
//!   refresh, [`REFRESH`] (5 s) later. A close that Redis does not answer
//!   is healed the same way;
//! - a Subscribe while Redis does not answer fails UNAVAILABLE, as the
//!   subscription itself would.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use parking_lot::Mutex;

use super::{CacheLimits, SharedBuckets};
use crate::error::Error;

/// How long a front-end's count holds in Redis without a refresh.
pub const LEASE: Duration = Duration::from_secs(15);

/// How often each front-end rewrites its counts: a third of the lease, so
/// that two refreshes may fail before its subscriptions are forgotten.
const REFRESH: Duration = Duration::from_secs(5);

/// A change to one front-end's count of one cache's subscriptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tally {
    /// One more, if the caches' front-ends together hold fewer than `limit`.
    Open { limit: u64 },
    /// One fewer.
    Close,
    /// This front-end holds `open`, and is alive.
    Refresh { open: u64 },
}

/// The subscriptions this front-end holds open, per cache with a limit.
pub(super) struct OpenSubscriptions {
    /// Caches without subscriptions have no entry, so this holds no more
    /// caches than there are subscriptions (`--max-subscriptions`).
    open: Mutex<HashMap<Box<str>, u64>>,
    /// Over a Redis store: the shared count, and this front-end's id in it.
    shared: Option<(Arc<dyn SharedBuckets>, Arc<str>)>,
}

impl OpenSubscriptions {
    pub(super) fn new(shared: Option<Arc<dyn SharedBuckets>>) -> OpenSubscriptions {
        OpenSubscriptions {
            open: Mutex::new(HashMap::new()),
            shared: shared.map(|shared| (shared, front_end_id())),
        }
    }

    /// Counts one more subscription on `cache` if it holds fewer than
    /// `limit`; answers whether it was counted.
    pub(super) async fn open(&self, cache: &str, limit: u64) -> Result<bool, Error> {
        if let Some((shared, id)) = &self.shared {
            let tally = Tally::Open { limit };
            if !shared
                .clone()
                .tally(cache.to_owned(), id.clone(), tally)
                .await?
            {
                return Ok(false);
            }
        } else if self.open.lock().get(cache).copied().unwrap_or(0) >= limit {
            return Ok(false);
        }
        *self.open.lock().entry(cache.into()).or_default() += 1;
        Ok(true)
    }

    /// Counts one subscription on `cache` fewer.
    fn close(&self, cache: &str) {
        {
            let mut open = self.open.lock();
            if let Some(count) = open.get_mut(cache) {
                *count -= 1;
                if *count == 0 {
                    open.remove(cache);
                }
            }
        }
        if let Some((shared, id)) = &self.shared {
            let closing = shared
                .clone()
                .tally(cache.to_owned(), id.clone(), Tally::Close);
            let cache = cache.to_owned();
            tokio::spawn(async move {
                if let Err(error) = closing.await {
                    tracing::debug!(%error, cache, "subscription count not lowered: the next refresh will");
                }
            });
        }
    }

    /// Rewrites this front-end's count of every cache it holds
    /// subscriptions on, with a new deadline.
    async fn refresh(&self) {
        let Some((shared, id)) = &self.shared else {
            return;
        };
        let counts: Vec<(Box<str>, u64)> = self
            .open
            .lock()
            .iter()
            .map(|(cache, open)| (cache.clone(), *open))
            .collect();
        for (cache, open) in counts {
            let tally = Tally::Refresh { open };
            if let Err(error) = shared
                .clone()
                .tally(cache.to_string(), id.clone(), tally)
                .await
            {
                tracing::debug!(%error, cache = %cache, "subscription count not refreshed");
            }
        }
    }

    pub(super) fn is_shared(&self) -> bool {
        self.shared.is_some()
    }
}

/// Refreshes the shared counts of `limits` every [`REFRESH`], until it is
/// dropped.
pub(super) async fn keep_counts_alive(limits: Weak<CacheLimits>) {
    let mut ticks = tokio::time::interval(REFRESH);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let Some(limits) = limits.upgrade() else {
            return;
        };
        limits.subscriptions.refresh().await;
    }
}

/// A front-end's id in the shared counts: random, so that front-ends need
/// no configuration, and a restarted one starts a count of its own while
/// its old one expires.
fn front_end_id() -> Arc<str> {
    use ring::rand::{SecureRandom, SystemRandom};
    let mut bytes = [0u8; 8];
    SystemRandom::new()
        .fill(&mut bytes)
        .expect("the system's random source");
    bytes
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect::<String>()
        .into()
}

/// One subscription counted against its cache's limit, until dropped.
pub struct SubscriptionPermit {
    /// `None` when the cache has no limit: nothing was counted.
    counted: Option<(Arc<CacheLimits>, Box<str>)>,
}

impl SubscriptionPermit {
    pub(super) fn uncounted() -> SubscriptionPermit {
        SubscriptionPermit { counted: None }
    }

    pub(super) fn counted(limits: Arc<CacheLimits>, cache: &str) -> SubscriptionPermit {
        SubscriptionPermit {
            counted: Some((limits, cache.into())),
        }
    }

    /// `stream`, the subscription's, which holds this permit until it is
    /// dropped.
    pub fn holding<S: Stream + Unpin>(self, stream: S) -> Held<S> {
        Held {
            stream,
            _permit: self,
        }
    }
}

/// A subscription's stream and its permit.
pub struct Held<S> {
    stream: S,
    _permit: SubscriptionPermit,
}

impl<S: Stream + Unpin> Stream for Held<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        Pin::new(&mut self.stream).poll_next(cx)
    }
}

impl Drop for SubscriptionPermit {
    fn drop(&mut self) {
        if let Some((limits, cache)) = self.counted.take() {
            limits.subscriptions.close(&cache);
        }
    }
}
