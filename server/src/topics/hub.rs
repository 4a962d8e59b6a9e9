//! Every topic this process holds, by cache and name.
//!
//! A topic exists while it has subscribers here or (embedded) messages in
//! its ring; publishing or subscribing makes it. The hub counts subscriptions per
//! cache (`--max-topic-subscriptions`) and in all (`--max-subscriptions`),
//! keeps the topics themselves and all rings together under
//! `--max-topic-memory` (the rings of the topics published to least
//! recently are emptied first), and carries out what deleting or flushing a
//! cache means for its topics.
//!
//! Locks: the hub's map, then a topic's; never the other way round.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use hashbrown::HashMap;
use parking_lot::RwLock;
use tokio::sync::watch;

use super::heartbeat::Heartbeats;
use super::topic::{Charge, Message, Topic};
use super::{TopicSettings, TOPIC_OVERHEAD};
use crate::error::Error;
use crate::metrics::TopicMetrics;
use crate::proto::cache_client::pubsub::topic_value::Kind;

/// What a control-plane call on a cache means for its topics. The control
/// plane calls these after the store has made the change.
pub trait CacheEvents: Send + Sync {
    /// Subscriptions to the cache's topics end with NOT_FOUND; its topics
    /// are forgotten.
    fn cache_deleted(&self, cache: &str);
    /// The cache's topics start their numbering again on a new page, their
    /// rings emptied; subscriptions stay open.
    fn cache_flushed(&self, cache: &str);
}

/// Told when a topic starts or stops being held here: a front-end over
/// Redis listens to the topic's channel while it does.
pub trait TopicWatch: Send + Sync {
    fn opened(&self, cache: &str, topic: &str, handle: &Arc<Topic>);
    fn closed(&self, cache: &str, topic: &str, handle: &Arc<Topic>);
}

/// A topic as the memory cap sees it.
struct Held {
    last_publish: u64,
    cache: Box<str>,
    name: Box<str>,
    topic: Arc<Topic>,
}

struct CacheTopics {
    topics: HashMap<Box<str>, Arc<Topic>>,
    /// Subscriptions open on the cache; a new incarnation of the cache (after
    /// a delete) counts from 0 while the old subscriptions' guards still
    /// hold the old counter.
    subscriptions: Arc<AtomicUsize>,
}

pub struct Hub {
    caches: RwLock<HashMap<Box<str>, CacheTopics>>,
    settings: TopicSettings,
    pub(super) metrics: TopicMetrics,
    /// The last page handed out: microseconds since the epoch when the
    /// process started, then one more each time, so that a page is larger
    /// than any before it, across restarts too.
    last_page: AtomicU64,
    /// Publishes so far, to order topics by their last one.
    stamps: AtomicU64,
    reclaiming: AtomicBool,
    /// Subscriptions open on every cache together (`--max-subscriptions`):
    /// the per-cache cap alone let a client holding many caches open
    /// subscriptions without end.
    subscriptions: Arc<AtomicUsize>,
    /// The one clock that sends every subscription its heartbeats.
    pub(super) heartbeats: Arc<Heartbeats>,
    /// Embedded: topics start ready, and a topic's ring is the only copy
    /// of its recent messages, kept for later subscribers. Over Redis:
    /// topics wait for a load from the stream, which also serves later
    /// subscribers, so a topic without subscribers here is forgotten.
    topics_start_ready: bool,
    watch: Option<Arc<dyn TopicWatch>>,
}

/// A subscription's hold on its topic and its cache's count; released
/// when the subscription's stream is dropped.
pub struct SubscriberGuard {
    hub: Arc<Hub>,
    cache: Box<str>,
    topic_name: Box<str>,
    topic: Arc<Topic>,
    cache_count: Arc<AtomicUsize>,
    total: Arc<AtomicUsize>,
}

impl SubscriberGuard {
    pub fn topic(&self) -> &Arc<Topic> {
        &self.topic
    }

    pub(super) fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }
}

impl Drop for SubscriberGuard {
    fn drop(&mut self) {
        self.cache_count.fetch_sub(1, Ordering::AcqRel);
        self.total.fetch_sub(1, Ordering::AcqRel);
        self.topic.subscribers().fetch_sub(1, Ordering::AcqRel);
        self.hub.metrics.subscribers.dec();
        self.hub
            .forget_if_idle(&self.cache, &self.topic_name, &self.topic);
    }
}

impl Hub {
    pub fn new(
        settings: TopicSettings,
        metrics: TopicMetrics,
        shutdown: watch::Receiver<bool>,
        watch: Option<Arc<dyn TopicWatch>>,
    ) -> Arc<Hub> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |since| since.as_micros() as u64);
        metrics.memory_limit.set(settings.max_memory as i64);
        Arc::new(Hub {
            caches: RwLock::new(HashMap::new()),
            settings,
            metrics,
            last_page: AtomicU64::new(now),
            stamps: AtomicU64::new(0),
            reclaiming: AtomicBool::new(false),
            subscriptions: Arc::new(AtomicUsize::new(0)),
            heartbeats: Heartbeats::new(settings.heartbeat_interval, shutdown),
            topics_start_ready: watch.is_none(),
            watch,
        })
    }

    pub fn settings(&self) -> &TopicSettings {
        &self.settings
    }

    /// A page number larger than every one this process handed out.
    pub fn fresh_page(&self) -> u64 {
        self.last_page.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn stamp(&self) -> u64 {
        self.stamps.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The topic, made if it does not exist.
    fn topic(&self, cache: &str, name: &str) -> (Arc<Topic>, Arc<AtomicUsize>) {
        if let Some(entry) = self.caches.read().get(cache) {
            if let Some(topic) = entry.topics.get(name) {
                return (topic.clone(), entry.subscriptions.clone());
            }
        }
        let mut caches = self.caches.write();
        let entry = caches.entry_ref(cache).or_insert_with(|| CacheTopics {
            topics: HashMap::new(),
            subscriptions: Arc::new(AtomicUsize::new(0)),
        });
        let count = entry.subscriptions.clone();
        if let Some(topic) = entry.topics.get(name) {
            return (topic.clone(), count);
        }
        let charge = Charge::new(&self.metrics.memory, TOPIC_OVERHEAD + name.len());
        let topic = Arc::new(Topic::new(
            self.fresh_page(),
            self.topics_start_ready,
            charge,
        ));
        entry.topics.insert(name.into(), topic.clone());
        if let Some(watch) = &self.watch {
            watch.opened(cache, name, &topic);
        }
        (topic, count)
    }

    /// The topic if this process holds it.
    pub fn existing(&self, cache: &str, name: &str) -> Option<Arc<Topic>> {
        self.caches.read().get(cache)?.topics.get(name).cloned()
    }

    /// Numbers and appends a message here (the embedded store).
    pub fn publish(
        &self,
        cache: &str,
        name: &str,
        value: Kind,
        publisher: String,
    ) -> Result<u64, Error> {
        let (topic, _) = self.topic(cache, name);
        let seq = topic.append(
            value,
            publisher,
            self.stamp(),
            &self.settings,
            &self.metrics.memory,
        )?;
        self.reclaim_if_over();
        Ok(seq)
    }

    /// Appends a message numbered elsewhere (Redis) to the topic, if this
    /// process holds it.
    pub fn deliver(&self, topic: &Topic, seq: u64, page: u64, value: Kind, publisher: String) {
        let message = Message::new(seq, page, value, publisher, &self.metrics.memory);
        topic.insert(message, self.stamp(), &self.settings);
        self.reclaim_if_over();
    }

    /// A message numbered elsewhere, charged like the others, for [`Topic::load`].
    pub fn message(&self, seq: u64, page: u64, value: Kind, publisher: String) -> Message {
        Message::new(seq, page, value, publisher, &self.metrics.memory)
    }

    /// Registers a subscriber of `name` in `cache`, within the server's
    /// limit and the cache's.
    pub fn subscribe(self: &Arc<Self>, cache: &str, name: &str) -> Result<SubscriberGuard, Error> {
        let total = &self.subscriptions;
        let limit = self.settings.max_subscriptions_total;
        // Counted before the topic is made: past the limit, nothing is.
        if !take_one(total, limit) {
            return Err(Error::TooManySubscriptionsTotal { limit });
        }
        let (topic, cache_count) = self.topic(cache, name);
        let limit = self.settings.max_subscriptions;
        if !take_one(&cache_count, limit) {
            total.fetch_sub(1, Ordering::AcqRel);
            self.forget_if_idle(cache, name, &topic);
            return Err(Error::TooManySubscriptions {
                cache: cache.to_owned(),
                limit,
            });
        }
        topic.subscribers().fetch_add(1, Ordering::AcqRel);
        self.metrics.subscribers.inc();
        Ok(SubscriberGuard {
            hub: self.clone(),
            cache: cache.into(),
            topic_name: name.into(),
            topic,
            cache_count,
            total: total.clone(),
        })
    }

    /// Forgets a topic nothing holds any more (no subscriber, empty ring).
    fn forget_if_idle(&self, cache: &str, name: &str, topic: &Arc<Topic>) {
        let buffer_counts = self.topics_start_ready;
        if !topic.is_idle(buffer_counts) {
            return;
        }
        let mut caches = self.caches.write();
        let Some(entry) = caches.get_mut(cache) else {
            return;
        };
        // Still this topic, and still idle now that no one can take it.
        let same = entry
            .topics
            .get(name)
            .is_some_and(|held| Arc::ptr_eq(held, topic) && held.is_idle(buffer_counts));
        if !same {
            return;
        }
        entry.topics.remove(name);
        if entry.topics.is_empty() && entry.subscriptions.load(Ordering::Acquire) == 0 {
            caches.remove(cache);
        }
        drop(caches);
        if let Some(watch) = &self.watch {
            watch.closed(cache, name, topic);
        }
    }

    /// Empties the rings of the topics published to least recently until
    /// the topics hold under three quarters of `--max-topic-memory`, then
    /// forgets the topics left idle. One scan of every topic, only when
    /// the cap is passed, and one scan at a time.
    fn reclaim_if_over(&self) {
        let cap = self.settings.max_memory as i64;
        if self.metrics.memory.get() <= cap || self.reclaiming.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut held: Vec<Held> = Vec::new();
        for (cache, entry) in self.caches.read().iter() {
            for (name, topic) in &entry.topics {
                held.push(Held {
                    last_publish: topic.with_state(|state| state.last_publish),
                    cache: cache.clone(),
                    name: name.clone(),
                    topic: topic.clone(),
                });
            }
        }
        held.sort_unstable_by_key(|held| held.last_publish);
        let target = cap / 4 * 3;
        for held in &held {
            if self.metrics.memory.get() <= target {
                break;
            }
            held.topic.clear();
            self.forget_if_idle(&held.cache, &held.name, &held.topic);
        }
        self.reclaiming.store(false, Ordering::Release);
    }

    /// Ends every subscription to the cache's topics with NOT_FOUND and
    /// forgets them.
    pub fn cache_deleted(&self, cache: &str) {
        let removed = self.caches.write().remove(cache);
        let Some(entry) = removed else {
            return;
        };
        for (name, topic) in entry.topics {
            topic.end(cache);
            if let Some(watch) = &self.watch {
                watch.closed(cache, &name, &topic);
            }
        }
    }

    /// Starts every topic of the cache again on a new page.
    pub fn cache_flushed(&self, cache: &str) {
        let topics: Vec<Arc<Topic>> = match self.caches.read().get(cache) {
            Some(entry) => entry.topics.values().cloned().collect(),
            None => return,
        };
        for topic in topics {
            topic.restart(self.fresh_page());
        }
    }

    /// Topics held here, for tests and the Redis bridge: (cache, topic).
    pub fn topic_names(&self) -> Vec<(String, String)> {
        let caches = self.caches.read();
        caches
            .iter()
            .flat_map(|(cache, entry)| {
                entry
                    .topics
                    .keys()
                    .map(|name| (cache.to_string(), name.to_string()))
            })
            .collect()
    }
}

/// One more on `count` if it is under `limit`.
fn take_one(count: &AtomicUsize, limit: usize) -> bool {
    count
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |open| {
            (open < limit).then_some(open + 1)
        })
        .is_ok()
}

impl CacheEvents for Hub {
    fn cache_deleted(&self, cache: &str) {
        Hub::cache_deleted(self, cache);
    }

    fn cache_flushed(&self, cache: &str) {
        Hub::cache_flushed(self, cache);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;

    fn hub(settings: TopicSettings) -> Arc<Hub> {
        let metrics = Metrics::new(None, 1 << 20);
        let (_stop, shutdown) = watch::channel(false);
        Hub::new(settings, metrics.topics(), shutdown, None)
    }

    fn text(n: usize) -> Kind {
        Kind::Text("x".repeat(n))
    }

    #[test]
    fn subscriptions_per_cache_are_limited_and_released() {
        let hub = hub(TopicSettings {
            max_subscriptions: 2,
            ..TopicSettings::default()
        });
        let a = hub.subscribe("c", "t1").unwrap();
        let _b = hub.subscribe("c", "t2").unwrap();
        assert!(matches!(
            hub.subscribe("c", "t3"),
            Err(Error::TooManySubscriptions { limit: 2, .. })
        ));
        // Another cache has its own count.
        let _other = hub.subscribe("d", "t1").unwrap();
        drop(a);
        let _c = hub.subscribe("c", "t3").unwrap();
        assert_eq!(hub.metrics.subscribers.get(), 3);
    }

    #[test]
    fn subscriptions_of_all_caches_together_are_limited() {
        let hub = hub(TopicSettings {
            max_subscriptions_total: 2,
            ..TopicSettings::default()
        });
        let a = hub.subscribe("c", "t").unwrap();
        let _b = hub.subscribe("d", "t").unwrap();
        assert!(matches!(
            hub.subscribe("e", "t"),
            Err(Error::TooManySubscriptionsTotal { limit: 2 })
        ));
        // Refused before anything was made for it.
        assert!(hub.existing("e", "t").is_none());
        drop(a);
        let _c = hub.subscribe("e", "t").unwrap();
    }

    #[test]
    fn idle_topics_are_forgotten_and_their_memory_released() {
        let hub = hub(TopicSettings::default());
        let guard = hub.subscribe("c", "t").unwrap();
        assert!(hub.metrics.memory.get() > 0);
        drop(guard);
        assert!(hub.topic_names().is_empty());
        assert_eq!(hub.metrics.memory.get(), 0);
    }

    #[test]
    fn the_memory_cap_empties_the_least_recently_published_first() {
        let settings = TopicSettings {
            max_message_size: 1024,
            buffer_bytes: 64 << 10,
            max_memory: 128 << 10,
            ..TopicSettings::default()
        };
        let hub = hub(settings);
        hub.publish("c", "old", text(1000), String::new()).unwrap();
        for n in 0..200 {
            hub.publish("c", &format!("t{}", n % 4), text(1000), String::new())
                .unwrap();
            assert!(hub.metrics.memory.get() <= settings.max_memory as i64 + 2048);
        }
        assert!(
            hub.existing("c", "old").is_none(),
            "the oldest topic goes first"
        );
        assert!(hub.existing("c", "t3").is_some());
    }

    #[test]
    fn deleting_a_cache_ends_its_topics_and_a_new_one_starts_fresh() {
        let hub = hub(TopicSettings {
            max_subscriptions: 1,
            ..TopicSettings::default()
        });
        let old = hub.subscribe("c", "t").unwrap();
        hub.publish("c", "t", text(1), String::new()).unwrap();
        hub.cache_deleted("c");
        assert!(hub.existing("c", "t").is_none());
        assert!(matches!(
            old.topic.append(
                text(1),
                String::new(),
                0,
                &TopicSettings::default(),
                &hub.metrics.memory
            ),
            Err(Error::CacheNotFound(_))
        ));
        // The old subscription still holds its count, not the new cache's.
        let _new = hub.subscribe("c", "t").unwrap();
        assert_eq!(hub.publish("c", "t", text(1), String::new()).unwrap(), 1);
    }

    #[test]
    fn flushing_starts_the_numbering_again_on_a_larger_page() {
        let hub = hub(TopicSettings::default());
        hub.publish("c", "t", text(1), String::new()).unwrap();
        assert_eq!(hub.publish("c", "t", text(1), String::new()).unwrap(), 2);
        let page = |hub: &Hub| {
            let topic = hub.existing("c", "t").unwrap();
            crate::topics::topic::tests::started(topic.start(0, 0))
                .0
                .page
        };
        let before = page(&hub);
        hub.cache_flushed("c");
        assert!(page(&hub) > before);
        assert_eq!(hub.publish("c", "t", text(1), String::new()).unwrap(), 1);
    }
}
