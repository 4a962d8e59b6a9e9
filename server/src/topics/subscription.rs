//! One subscriber's stream of `_SubscriptionItem`s.
//!
//! It opens with a heartbeat (the official Python SDK reads one as the
//! sign that the subscription is open, and the JS SDK takes any first
//! message), sent once the subscription's starting point is taken (over
//! Redis, once the topic is loaded), so that whatever is published after
//! the client sees it reaches the client. Then come the message the resume
//! point names, if the topic still holds it, and every message after, in
//! order. A heartbeat follows any
//! silence of `--topic-heartbeat-interval`. The stream is produced only as
//! fast as HTTP/2 takes it: a subscriber that reads slowly falls behind the
//! topic's ring and is sent a discontinuity, and one that keeps falling
//! behind ([`MAX_FALLS_BEHIND`] times without catching up) is ended with
//! RESOURCE_EXHAUSTED. The stream ends with NOT_FOUND when the cache is
//! deleted, and with UNAVAILABLE when the server shuts down.

use std::pin::Pin;
use std::sync::Arc;

use futures_util::Stream;
use tokio::sync::watch;
use tokio::time::Instant;
use tonic::Status;

use super::hub::{Hub, SubscriberGuard};
use super::topic::{Cursor, Start, Step, Topic};
use super::MAX_FALLS_BEHIND;
use crate::error::Error;
use crate::proto::cache_client::pubsub::subscription_item::Kind as ItemKind;
use crate::proto::cache_client::pubsub::{
    Discontinuity, Heartbeat, SubscriptionItem, TopicItem, TopicValue,
};

/// What a subscriber asked to start from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resume {
    /// The first sequence number wanted; 0 for the newest message.
    pub seq: u64,
    /// The page `seq` belongs to; 0 for whatever page is current.
    pub page: u64,
}

pub type SubscriptionStream =
    Pin<Box<dyn Stream<Item = Result<SubscriptionItem, Status>> + Send + 'static>>;

/// An open subscription, not yet streaming.
pub struct Subscription {
    hub: Arc<Hub>,
    topic: Arc<Topic>,
    guard: SubscriberGuard,
    resume: Resume,
}

impl Subscription {
    /// A subscription to `name` in `cache`, registered with `hub` between
    /// two checks that the cache exists (`exists`, the store's own): a
    /// DeleteCache between the first check and the registration would have
    /// found no subscriber to end, so the second catches it. Both stores
    /// subscribe this way.
    pub async fn checked<F: std::future::Future<Output = Result<(), Error>>>(
        hub: &Arc<Hub>,
        cache: &str,
        name: &str,
        resume: Resume,
        exists: impl Fn() -> F,
    ) -> Result<Self, Error> {
        exists().await?;
        let guard = hub.subscribe(cache, name)?;
        exists().await?;
        let topic = guard.topic().clone();
        Ok(Subscription::new(hub.clone(), topic, guard, resume))
    }

    pub fn new(hub: Arc<Hub>, topic: Arc<Topic>, guard: SubscriberGuard, resume: Resume) -> Self {
        Subscription {
            hub,
            topic,
            guard,
            resume,
        }
    }

    /// The subscription as the stream Subscribe answers with.
    pub fn into_stream(self) -> SubscriptionStream {
        let changes = self.topic.changes();
        let shutdown = self.hub.shutdown.clone();
        let state = Streaming {
            hub: self.hub,
            topic: self.topic,
            _guard: self.guard,
            resume: self.resume,
            cursor: None,
            told: None,
            changes,
            shutdown,
            greeted: false,
            done: false,
            falls: 0,
            last_sent: Instant::now(),
        };
        Box::pin(futures_util::stream::unfold(
            state,
            |mut state| async move {
                let item = state.next().await?;
                Some((item, state))
            },
        ))
    }
}

struct Streaming {
    hub: Arc<Hub>,
    topic: Arc<Topic>,
    _guard: SubscriberGuard,
    resume: Resume,
    /// `None` until the topic is ready and the starting point is taken.
    cursor: Option<Cursor>,
    /// A discontinuity to send before anything else.
    told: Option<Discontinuity>,
    changes: watch::Receiver<()>,
    shutdown: watch::Receiver<bool>,
    greeted: bool,
    done: bool,
    /// Falls behind the ring since the subscriber last caught up.
    falls: u32,
    last_sent: Instant,
}

/// Far enough to mean never, for a timer that must not fire.
const NOT_YET: std::time::Duration = std::time::Duration::from_secs(365 * 24 * 3600);

/// What ended a subscriber's wait.
enum Wake {
    Changed,
    Stopped,
    Heartbeat,
}

fn item(kind: ItemKind) -> SubscriptionItem {
    SubscriptionItem { kind: Some(kind) }
}

impl Streaming {
    async fn next(&mut self) -> Option<Result<SubscriptionItem, Status>> {
        if self.done {
            return None;
        }
        loop {
            if let Some(discontinuity) = self.told.take() {
                self.hub.metrics.discontinuities.inc();
                return Some(Ok(self.sent(ItemKind::Discontinuity(discontinuity))));
            }
            if *self.shutdown.borrow() {
                return self.end(Error::ShuttingDown);
            }
            // Seen before looking, so that a change made after the look wakes us.
            let _ = self.changes.borrow_and_update();
            if self.cursor.is_none() {
                match self.topic.start(self.resume.seq, self.resume.page) {
                    Start::At(cursor, told) => {
                        self.cursor = Some(cursor);
                        self.told = told;
                        if !self.greeted {
                            self.greeted = true;
                            return Some(Ok(self.sent(ItemKind::Heartbeat(Heartbeat {}))));
                        }
                        continue;
                    }
                    Start::Ended(error) => return self.end(error),
                    Start::Waiting => {}
                }
            }
            let step = match &mut self.cursor {
                Some(cursor) => self.topic.read(cursor),
                None => Step::Idle,
            };
            match step {
                Step::Item(message) => {
                    self.hub.metrics.delivered.inc();
                    let value = TopicValue {
                        kind: Some(message.value.clone()),
                    };
                    return Some(Ok(self.sent(ItemKind::Item(TopicItem {
                        topic_sequence_number: message.seq,
                        value: Some(value),
                        publisher_id: message.publisher.clone(),
                        sequence_page: message.page,
                    }))));
                }
                Step::Gap {
                    discontinuity,
                    fell_behind,
                } => {
                    if fell_behind {
                        self.falls += 1;
                        if self.falls > MAX_FALLS_BEHIND {
                            return self.end(Error::SubscriberTooSlow { falls: self.falls });
                        }
                    }
                    self.told = Some(discontinuity);
                }
                Step::Ended(error) => return self.end(error),
                Step::Idle => {
                    if self.cursor.is_some() {
                        self.falls = 0;
                    }
                    // No heartbeat before the first one, which says the
                    // subscription is open.
                    let heartbeat_due = if self.greeted {
                        self.last_sent + self.hub.settings().heartbeat_interval
                    } else {
                        self.last_sent + NOT_YET
                    };
                    let woken = tokio::select! {
                        _ = self.changes.changed() => Wake::Changed,
                        stopping = self.shutdown.changed() => match stopping {
                            Ok(()) => Wake::Changed,
                            // The server is gone with its sender.
                            Err(_) => Wake::Stopped,
                        },
                        () = tokio::time::sleep_until(heartbeat_due) => Wake::Heartbeat,
                    };
                    match woken {
                        Wake::Changed => {}
                        Wake::Stopped => return self.end(Error::ShuttingDown),
                        Wake::Heartbeat => {
                            return Some(Ok(self.sent(ItemKind::Heartbeat(Heartbeat {}))));
                        }
                    }
                }
            }
        }
    }

    fn sent(&mut self, kind: ItemKind) -> SubscriptionItem {
        self.last_sent = Instant::now();
        item(kind)
    }

    fn end(&mut self, error: Error) -> Option<Result<SubscriptionItem, Status>> {
        self.done = true;
        Some(Err(Status::from(error)))
    }
}
