//! One subscriber's stream of `_SubscriptionItem`s.
//!
//! It opens with a heartbeat (the official Python SDK reads one as the
//! sign that the subscription is open, and the JS SDK takes any first
//! message), sent once the subscription's starting point is taken (over
//! Redis, once the topic is loaded), so that whatever is published after
//! the client sees it reaches the client. Then come the message the resume
//! point names, if the topic still holds it, and every message after, in
//! order. A quiet stream is sent a heartbeat once per
//! `--topic-heartbeat-interval`, by the process's one heartbeat clock
//! (`heartbeat`): no stream stays silent for two intervals. The stream is produced only as
//! fast as HTTP/2 takes it: a subscriber that reads slowly falls behind the
//! topic's ring and is sent a discontinuity, and one that keeps falling
//! behind ([`MAX_FALLS_BEHIND`] times without catching up) is ended with
//! RESOURCE_EXHAUSTED. The stream ends with NOT_FOUND when the cache is
//! deleted, and with UNAVAILABLE when the server shuts down.
//!
//! An open subscription holds [`SUBSCRIPTION_CHARGE`] of the in-flight
//! budget ([`BudgetShare`]) until its stream is dropped: the call's own
//! charge ends when the stream opens, and subscriptions that stay open for
//! hours would otherwise be memory no budget sees.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::Stream;
use tonic::Status;

use super::heartbeat::Beat;
use super::hub::{Hub, SubscriberGuard};
use super::signal::Wait;
use super::topic::{Cursor, Start, Step, Topic};
use super::{MAX_FALLS_BEHIND, SUBSCRIPTION_CHARGE};
use crate::error::Error;
use crate::in_flight::{ConnectionState, InFlight};
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

/// [`SUBSCRIPTION_CHARGE`] of the in-flight budget, held by an open
/// subscription and given back when it ends.
pub struct BudgetShare {
    budget: Arc<InFlight>,
    connection: Option<Arc<ConnectionState>>,
}

impl BudgetShare {
    /// The share, charged to `connection`; `None` if the budget is spent and
    /// no other connection can be closed to make room (the caller answers
    /// [`InFlight::full_status`]).
    pub fn take(budget: &Arc<InFlight>, connection: Option<Arc<ConnectionState>>) -> Option<Self> {
        budget
            .admit(SUBSCRIPTION_CHARGE, connection.as_deref())
            .then(|| BudgetShare {
                budget: budget.clone(),
                connection,
            })
    }
}

impl Drop for BudgetShare {
    fn drop(&mut self) {
        self.budget
            .release(SUBSCRIPTION_CHARGE, self.connection.as_deref());
    }
}

/// An open subscription, not yet streaming.
pub struct Subscription {
    hub: Arc<Hub>,
    topic: Arc<Topic>,
    guard: SubscriberGuard,
    resume: Resume,
    share: Option<BudgetShare>,
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
            share: None,
        }
    }

    /// Holds `share` of the in-flight budget for as long as the stream lives.
    pub fn holding(mut self, share: BudgetShare) -> Self {
        self.share = Some(share);
        self
    }

    /// The subscription as the stream Subscribe answers with.
    pub fn into_stream(self) -> SubscriptionStream {
        let changes = self.topic.changes().wait();
        // Heartbeats are grouped by connection (`heartbeat`).
        let connection = self
            .share
            .as_ref()
            .and_then(|share| share.connection.as_ref())
            .map(|state| Arc::as_ptr(state) as usize);
        let beat = self.hub.heartbeats.join(connection);
        Box::pin(Streaming {
            guard: self.guard,
            _share: self.share,
            resume: self.resume,
            cursor: None,
            told: None,
            changes,
            greeted: false,
            done: false,
            falls: 0,
            beat,
            sent_since_beat: false,
        })
    }
}

/// What an open subscription holds for as long as it lives; kept small,
/// since 100,000 idle ones hold it 100,000 times. The hub and the topic are
/// the guard's. It is the stream itself, polled by hand rather than an
/// `async` block: the state machine of one waiting on two things was
/// larger than all of this.
struct Streaming {
    guard: SubscriberGuard,
    _share: Option<BudgetShare>,
    resume: Resume,
    /// `None` until the topic is ready and the starting point is taken.
    cursor: Option<Cursor>,
    /// A discontinuity to send before anything else.
    told: Option<Discontinuity>,
    /// What it has seen of the topic's changes.
    changes: Wait,
    greeted: bool,
    done: bool,
    /// Falls behind the ring since the subscriber last caught up.
    falls: u32,
    /// Its heartbeat group, notified once per interval and at shutdown.
    beat: Beat,
    /// Whether anything was sent since the clock last woke this stream.
    sent_since_beat: bool,
}

fn item(kind: ItemKind) -> SubscriptionItem {
    SubscriptionItem { kind: Some(kind) }
}

impl Stream for Streaming {
    type Item = Result<SubscriptionItem, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().poll_item(cx)
    }
}

impl Drop for Streaming {
    fn drop(&mut self) {
        let hub = self.guard.hub();
        hub.heartbeats.group(&self.beat).forget(&mut self.beat.wait);
        self.guard.topic().changes().forget(&mut self.changes);
    }
}

impl Streaming {
    fn poll_item(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<SubscriptionItem, Status>>> {
        if self.done {
            return Poll::Ready(None);
        }
        loop {
            if let Some(discontinuity) = self.told.take() {
                self.guard.hub().metrics.discontinuities.inc();
                return self.ready(ItemKind::Discontinuity(discontinuity));
            }
            if self.guard.hub().heartbeats.stopping() {
                return self.end(Error::ShuttingDown);
            }
            // Seen before looking, so that a change made after the look wakes us.
            self.guard.topic().changes().mark_seen(&mut self.changes);
            if self.cursor.is_none() {
                match self.guard.topic().start(self.resume.seq, self.resume.page) {
                    Start::At(cursor, told) => {
                        self.cursor = Some(cursor);
                        self.told = told;
                        if !self.greeted {
                            self.greeted = true;
                            return self.ready(ItemKind::Heartbeat(Heartbeat {}));
                        }
                        continue;
                    }
                    Start::Ended(error) => return self.end(error),
                    Start::Waiting => {}
                }
            }
            let step = match &mut self.cursor {
                Some(cursor) => self.guard.topic().read(cursor),
                None => Step::Idle,
            };
            match step {
                Step::Item(message) => {
                    self.guard.hub().metrics.delivered.inc();
                    let value = TopicValue {
                        kind: Some(message.value.clone()),
                    };
                    return self.ready(ItemKind::Item(TopicItem {
                        topic_sequence_number: message.seq,
                        value: Some(value),
                        publisher_id: message.publisher.clone(),
                        sequence_page: message.page,
                    }));
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
                    let topic = self.guard.topic().changes();
                    if topic.poll_changed(&mut self.changes, cx).is_ready() {
                        continue;
                    }
                    let heartbeats = &self.guard.hub().heartbeats;
                    let group = heartbeats.group(&self.beat);
                    if group.poll_changed(&mut self.beat.wait, cx).is_pending() {
                        return Poll::Pending;
                    }
                    // Stopping: said at the top of the loop.
                    if heartbeats.stopping() {
                        continue;
                    }
                    let quiet = !std::mem::take(&mut self.sent_since_beat);
                    // No heartbeat before the first one, which says
                    // the subscription is open.
                    if quiet && self.greeted {
                        return Poll::Ready(Some(Ok(item(ItemKind::Heartbeat(Heartbeat {})))));
                    }
                }
            }
        }
    }

    /// An item, a discontinuity or the first heartbeat: the stream is not
    /// quiet. (The clock's own heartbeats do not count, so a quiet stream
    /// gets one per interval.)
    fn ready(&mut self, kind: ItemKind) -> Poll<Option<Result<SubscriptionItem, Status>>> {
        self.sent_since_beat = true;
        Poll::Ready(Some(Ok(item(kind))))
    }

    fn end(&mut self, error: Error) -> Poll<Option<Result<SubscriptionItem, Status>>> {
        self.done = true;
        Poll::Ready(Some(Err(Status::from(error))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_subscription_holds_little_of_its_own() {
        // What each of 100,000 idle subscriptions holds in its one
        // allocation; the `async` stream it replaced held about 520 bytes.
        let size = std::mem::size_of::<Streaming>();
        assert!(size <= 224, "{size} bytes");
    }
}
