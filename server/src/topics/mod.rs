//! Topics: publish and subscribe (`cache_client.pubsub.Pubsub`).
//!
//! # Layout
//!
//! - this file: the settings, the name and size rules, and [`TopicStore`],
//!   the two ways a message gets its number and reaches subscribers.
//! - `topic`: one topic: its page, its numbering and the ring of its newest
//!   messages, which serves both live delivery and resuming.
//! - `hub`: every topic of this process, by cache and name; subscription
//!   counts, the memory cap, and what deleting or flushing a cache does.
//! - `subscription`: one subscriber's stream: the first heartbeat, replay,
//!   live items, discontinuities, heartbeats, and how it ends.
//! - `local`: the embedded store's [`TopicStore`]: this process numbers.
//!   Over Redis, `backend::redis::topics` numbers in the cluster and feeds
//!   the same hub.
//!
//! # Why one ring per topic, read by cursors
//!
//! A topic keeps its newest messages (`--topic-buffer-messages` and
//! `--topic-buffer-bytes`) in one ring of shared (`Arc`) messages, and each
//! subscriber holds only a cursor: the sequence number it wants next. A
//! publish appends to the ring and wakes the subscribers waiting on it
//! (`signal`); each subscriber copies what it has not
//! sent yet, when HTTP/2 asks its stream for more. A subscriber that reads
//! slower than the topic is published to finds its cursor behind the ring's
//! oldest message: it is sent a discontinuity and goes on from there, so it
//! never makes the server hold more, and never slows the publisher or the
//! other subscribers.
//!
//! tokio's `broadcast` channel does the same fan-out, but its ring can be
//! read only from its newest end and is bounded in messages, not bytes: a
//! subscriber coming back with `resume_at_topic_sequence_number` could not
//! be served from it, and a second buffer for resuming would hold every
//! message twice. The ring here is both, bounded in bytes, under one lock
//! held for a copy of an `Arc` at a time.

mod heartbeat;
mod hub;
mod local;
mod signal;
mod subscription;
mod topic;

use std::time::Duration;

use bytes::Bytes;

use crate::error::Error;
use crate::proto::cache_client::pubsub::topic_value::Kind;
use crate::proto::cache_client::pubsub::TopicValue;

pub use hub::{CacheEvents, Hub, SubscriberGuard, TopicWatch};
pub use local::LocalTopics;
pub use subscription::{BudgetShare, Resume, Subscription, SubscriptionStream};
pub use topic::{Message, Topic};

/// Subscriptions open at once on one cache (in this process). The official
/// SDKs open up to 100 per channel and their own tests hold 2,000 on one
/// cache; each costs a cursor, a stream and its HTTP/2 buffers.
pub const DEFAULT_MAX_SUBSCRIPTIONS: usize = 10_000;
/// Subscriptions open at once on all caches together (in this process).
/// Each holds [`SUBSCRIPTION_CHARGE`] of `--max-in-flight-bytes` while it
/// is open: 20,000 are 80 MiB of resident memory and of that budget (the
/// default budget, 256 MiB, keeps the rest for calls).
pub const DEFAULT_MAX_SUBSCRIPTIONS_TOTAL: usize = 20_000;
/// What an open subscription is charged in the in-flight budget for as long
/// as it is open: what it holds at rest, measured at 2.9 KiB each with
/// 6,000 open over 60 connections and with 95,000 over 950
/// (tests/attacks_budget/topics.rs, `JIFFY_ATTACK_SUBSCRIPTIONS`): h2's
/// stream, hyper's task for it and its share of its connection about
/// 2.2 KiB, its own stream, cursor and wake-ups about 0.7 KiB. Kept above
/// what was measured for the allocator's slack.
pub const SUBSCRIPTION_CHARGE: usize = 4 << 10;
/// Newest messages a topic keeps for subscribers that fall behind or come
/// back, by count and by bytes (whichever is reached first).
pub const DEFAULT_BUFFER_MESSAGES: usize = 1_000;
pub const DEFAULT_BUFFER_BYTES: u64 = 1 << 20;
/// The largest message: far above what invalidations and live updates
/// carry, small enough that a full buffer holds ten of them.
pub const DEFAULT_MAX_MESSAGE_SIZE: u64 = 100 << 10;
/// Bytes the buffers of every topic may hold together, beside
/// `--max-memory` (which is for items).
pub const DEFAULT_MAX_MEMORY: u64 = 64 << 20;
/// How long a subscription may stay silent before it is sent a heartbeat:
/// well inside load balancers' idle timeouts (tens of seconds) and our SDKs'
/// 30 s, yet rare enough that 100,000 idle subscriptions cost a fraction of
/// a core, not most of one, as 1 s did. The official SDKs never time out
/// on heartbeats (JS hands them to `onHeartbeat`, Python skips them).
pub const DEFAULT_HEARTBEAT_INTERVAL: Duration = Duration::from_secs(5);

/// The longest topic name, in bytes.
pub const MAX_TOPIC_NAME_LEN: usize = 255;

/// A subscriber that falls behind the ring more than this many times
/// without once catching up in between is ended with RESOURCE_EXHAUSTED:
/// it reads slower than the topic is published to, and would keep losing
/// messages. Each fall up to this many is told by a discontinuity.
pub const MAX_FALLS_BEHIND: u32 = 3;

/// The topic settings (`--max-topic-subscriptions` and the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopicSettings {
    /// Subscriptions open at once per cache, in this process.
    pub max_subscriptions: usize,
    /// Subscriptions open at once on every cache, in this process.
    pub max_subscriptions_total: usize,
    /// Messages a topic's ring keeps.
    pub buffer_messages: usize,
    /// Bytes a topic's ring keeps (values, plus [`MESSAGE_OVERHEAD`] each).
    pub buffer_bytes: usize,
    /// The largest value a Publish may carry.
    pub max_message_size: usize,
    /// Bytes all topics may hold together; past it the rings of the topics
    /// published to least recently are emptied first.
    pub max_memory: usize,
    /// Silence after which a subscription is sent a heartbeat.
    pub heartbeat_interval: Duration,
}

impl Default for TopicSettings {
    fn default() -> Self {
        TopicSettings {
            max_subscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
            max_subscriptions_total: DEFAULT_MAX_SUBSCRIPTIONS_TOTAL,
            buffer_messages: DEFAULT_BUFFER_MESSAGES,
            buffer_bytes: DEFAULT_BUFFER_BYTES as usize,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE as usize,
            max_memory: DEFAULT_MAX_MEMORY as usize,
            heartbeat_interval: DEFAULT_HEARTBEAT_INTERVAL,
        }
    }
}

/// What each buffered message is charged beyond its value: its header, the
/// `Arc`, its slot in the ring and the publisher's id.
pub const MESSAGE_OVERHEAD: usize = 128;
/// What each topic is charged while it exists: its map entry, lock, ring
/// and wake-up channel, beside its name. 512 left a third of what topics
/// hold uncounted: 32 MiB charged was 42 MiB resident with 200,000 topics
/// made (tests/attacks_budget/topics.rs), when the wake-up channel was
/// tokio's `watch`, over 400 bytes alone.
pub const TOPIC_OVERHEAD: usize = 1024;

impl TopicSettings {
    /// The settings' own consistency, for `config.rs`.
    pub fn check(&self) -> Result<(), String> {
        if self.max_subscriptions == 0
            || self.max_subscriptions_total == 0
            || self.buffer_messages == 0
        {
            return Err(
                "--max-topic-subscriptions, --max-subscriptions and --topic-buffer-messages must be above zero".into(),
            );
        }
        if self.heartbeat_interval.is_zero() {
            return Err("--topic-heartbeat-interval must be above zero".into());
        }
        if self.buffer_bytes < self.max_message_size + MESSAGE_OVERHEAD {
            return Err(
                "--topic-buffer-bytes must hold one message of --max-topic-message-size".into(),
            );
        }
        if self.max_memory < 2 * self.buffer_bytes {
            return Err("--max-topic-memory must be at least twice --topic-buffer-bytes".into());
        }
        Ok(())
    }

    /// The value of a Publish, checked against `--max-topic-message-size`.
    pub fn check_message(&self, value: Option<&TopicValue>) -> Result<Kind, Error> {
        let kind = value.and_then(|value| value.kind.clone()).ok_or_else(|| {
            Error::InvalidArgument("Publish needs a value: text or binary".into())
        })?;
        let size = value_len(&kind);
        if size > self.max_message_size {
            return Err(Error::TopicMessageTooLarge {
                size,
                limit: self.max_message_size,
            });
        }
        Ok(kind)
    }
}

/// The bytes of a message's value.
pub fn value_len(kind: &Kind) -> usize {
    match kind {
        Kind::Text(text) => text.len(),
        Kind::Binary(bytes) => bytes.len(),
    }
}

/// A value as one byte string plus whether it is text, for stores that keep
/// bytes (Redis).
pub fn value_parts(kind: &Kind) -> (bool, Bytes) {
    match kind {
        Kind::Text(text) => (true, Bytes::copy_from_slice(text.as_bytes())),
        Kind::Binary(bytes) => (false, bytes.clone()),
    }
}

/// Topic names are 1 to 255 bytes of UTF-8 without control characters:
/// anything an application may name a channel (`orders/created`, a UUID,
/// words with spaces), nothing that garbles a log line.
pub fn check_topic_name(name: &str) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::InvalidTopicName("it must not be empty".into()));
    }
    if name.len() > MAX_TOPIC_NAME_LEN {
        return Err(Error::InvalidTopicName(format!(
            "it is {} bytes, over the limit of {MAX_TOPIC_NAME_LEN}",
            name.len()
        )));
    }
    if let Some(bad) = name.chars().find(|c| c.is_control()) {
        return Err(Error::InvalidTopicName(format!(
            "{bad:?} is a control character"
        )));
    }
    Ok(())
}

/// Publishing and subscribing over one store: who numbers a message, and how
/// it reaches the subscribers of every front-end.
pub trait TopicStore: Send + Sync + 'static {
    /// Numbers `value` in `topic` of `cache` and hands it to the topic's
    /// subscribers. [`Error::CacheNotFound`] for a missing cache.
    fn publish(
        &self,
        cache: &str,
        topic: &str,
        value: Kind,
        publisher: &str,
    ) -> impl std::future::Future<Output = Result<(), Error>> + Send;

    /// A subscription to `topic` of `cache`, from `resume`.
    /// [`Error::CacheNotFound`] for a missing cache, and
    /// [`Error::TooManySubscriptions`] past `--max-topic-subscriptions`.
    fn subscribe(
        &self,
        cache: &str,
        topic: &str,
        resume: Resume,
    ) -> impl std::future::Future<Output = Result<Subscription, Error>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names() {
        assert!(check_topic_name("orders/created v2").is_ok());
        assert!(check_topic_name("ünï-cödé").is_ok());
        assert!(check_topic_name(&"t".repeat(255)).is_ok());
        for bad in ["", "tab\there", "new\nline", "nul\0"] {
            assert!(check_topic_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_topic_name(&"t".repeat(256)).is_err());
    }

    #[test]
    fn messages_need_a_value_within_the_limit() {
        let settings = TopicSettings {
            max_message_size: 4,
            ..TopicSettings::default()
        };
        let text = |t: &str| TopicValue {
            kind: Some(Kind::Text(t.into())),
        };
        assert!(settings.check_message(Some(&text("four"))).is_ok());
        assert!(matches!(
            settings.check_message(Some(&text("fives"))),
            Err(Error::TopicMessageTooLarge { size: 5, limit: 4 })
        ));
        assert!(matches!(
            settings.check_message(None),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            settings.check_message(Some(&TopicValue { kind: None })),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn the_defaults_fit_together() {
        assert_eq!(TopicSettings::default().check(), Ok(()));
        let small_buffer = TopicSettings {
            buffer_bytes: 1024,
            ..TopicSettings::default()
        };
        assert!(small_buffer
            .check()
            .unwrap_err()
            .contains("--topic-buffer-bytes"));
    }
}
