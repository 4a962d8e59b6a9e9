//! Topics over Redis: a message published through one front-end reaches the
//! subscribers of every front-end, in order and numbered alike.
//!
//! # How
//!
//! - **Numbering and the resume buffer live in Redis.** A Publish is one
//!   Lua script (`lua/topic_publish.lua`) on the topic's slot: it checks
//!   the cache exists (the bucket's generation, as the item scripts do),
//!   takes the next number (`HSET seq`), appends the message to a stream
//!   capped at `--topic-buffer-messages` (`XADD MAXLEN`) and publishes it
//!   on the topic's shard channel (`SPUBLISH`), all atomically: every
//!   front-end sees the same numbers, in the order the script ran.
//! - **Delivery is sharded pub/sub.** Each front-end holds one
//!   `SSUBSCRIBE` per topic it has subscribers for, on one RESP3 connection
//!   per node (redis-rs's cluster client routes each shard channel to the
//!   node of its slot, follows the slot map and subscribes again after a
//!   reconnection). What arrives is appended, by one task in arrival
//!   order, to the topic's ring in the front-end's own hub, whose
//!   subscribers then read it exactly as over the embedded store
//!   (`crate::topics`). Redis sends each message once per front-end, not
//!   once per subscriber.
//! - **Why sharded pub/sub and a stream, not streams alone.** A blocking
//!   `XREAD` per topic would hold a connection per topic per front-end and
//!   poll; classic `PUBLISH` is broadcast to every node of the cluster.
//!   `SPUBLISH` stays on the topic's shard, and the stream gives what
//!   pub/sub cannot: the messages a front-end missed, and a new
//!   subscriber's resume point, read back with `XRANGE`
//!   (`lua/topic_read.lua`, with the page and last number, atomically).
//! - **Missed messages.** A front-end that opens a topic subscribes first,
//!   then loads the stream; a message numbered past the next one expected
//!   (pub/sub lost some, e.g. while a connection was re-made) empties the
//!   ring there, and subscribers behind are sent a discontinuity. Every
//!   second the front-end also reads each of its topics from the next
//!   number it expects, and appends what it missed: pub/sub's losses are
//!   recovered from the stream within a second. The same read finds a
//!   deleted cache (its subscriptions end NOT_FOUND everywhere, within a
//!   second; at once on the front-end that deleted it).
//! - **Failover.** Redis replicates asynchronously, so a replica that takes
//!   over may lack the last numbers its master handed out. The publish
//!   script records the node's replication id with the page, and a new one
//!   (a replica promoted, a node restarted empty) starts the numbering
//!   again at 1 on a new page, so no number is ever handed out twice. A
//!   subscriber then sees: no messages while the topic's slot has no
//!   master (Publish answers UNAVAILABLE meanwhile), then a discontinuity
//!   naming the new page, then the messages published since, in order.
//!   Messages the old master acknowledged but never replicated are gone;
//!   those its replica had are still in the stream, but under the old page.
//! - **Flush** gives the cache's buckets a new generation, which the next
//!   Publish to each topic sees: its numbering starts again on a new page,
//!   and its stream is emptied. Subscriptions stay open.
//! - `--max-topic-subscriptions` is counted per front-end. A topic's keys
//!   expire a day after its last Publish, so that Redis may evict them
//!   (`volatile-lru`) and abandoned topics go.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use bytes::Bytes;
use redis::aio::ConnectionManagerConfig;
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::{PushInfo, PushKind, Script, Value};
use tokio::sync::{mpsc, watch};

use super::connection::Target;
use super::{keys, scripts, unexpected, RedisStore};
use crate::backend::Caches;
use crate::error::Error;
use crate::metrics::TopicMetrics;
use crate::proto::cache_client::pubsub::topic_value::Kind;
use crate::topics::{
    CacheEvents, Hub, Resume, Subscription, Topic, TopicSettings, TopicStore, TopicWatch,
};

/// How long a topic's keys stay after its last Publish.
const IDLE_TTL_MS: u64 = 24 * 3600 * 1000;
/// How often each front-end reads its topics back from Redis.
const SWEEP_INTERVAL: Duration = Duration::from_secs(1);

/// Where a topic lives: its bucket's generation key, its hash, its stream
/// and its channel, all under the hash tag of the bucket its name falls in.
pub(super) struct TopicKeys {
    generation: String,
    hash: Vec<u8>,
    stream: Vec<u8>,
    channel: Vec<u8>,
}

impl TopicKeys {
    pub(super) fn new(cache: &str, topic: &str) -> TopicKeys {
        let bucket = keys::bucket_of(topic.as_bytes());
        let named = |prefix: &str| {
            let mut name = format!("{prefix}:{{{cache}/{bucket}}}:").into_bytes();
            name.extend_from_slice(topic.as_bytes());
            name
        };
        TopicKeys {
            generation: keys::generation_key(cache, bucket),
            hash: named("jt"),
            stream: named("js"),
            channel: named("jc"),
        }
    }

    pub(super) fn invocation(&self, script: &'static Script) -> redis::ScriptInvocation<'static> {
        let mut invocation = script.prepare_invoke();
        invocation
            .key(self.generation.as_str())
            .key(self.hash.as_slice())
            .key(self.stream.as_slice());
        invocation
    }
}

/// A message as the stream and the channel carry it: `t` or `b`, the
/// publisher's length, `:`, the publisher, the value.
fn encode(value: &Kind, publisher: &str) -> Vec<u8> {
    let (tag, bytes): (u8, &[u8]) = match value {
        Kind::Text(text) => (b't', text.as_bytes()),
        Kind::Binary(bytes) => (b'b', bytes),
    };
    let mut encoded = Vec::with_capacity(bytes.len() + publisher.len() + 8);
    encoded.push(tag);
    encoded.extend_from_slice(format!("{}:", publisher.len()).as_bytes());
    encoded.extend_from_slice(publisher.as_bytes());
    encoded.extend_from_slice(bytes);
    encoded
}

fn decode(encoded: &[u8]) -> Option<(Kind, String)> {
    let (&tag, rest) = encoded.split_first()?;
    let colon = rest.iter().position(|&b| b == b':')?;
    let length: usize = std::str::from_utf8(&rest[..colon]).ok()?.parse().ok()?;
    let rest = &rest[colon + 1..];
    let publisher = String::from_utf8(rest.get(..length)?.to_vec()).ok()?;
    let value = &rest[length..];
    let kind = match tag {
        b't' => Kind::Text(String::from_utf8(value.to_vec()).ok()?),
        b'b' => Kind::Binary(Bytes::copy_from_slice(value)),
        _ => return None,
    };
    Some((kind, publisher))
}

/// `<number>:` at the front of `bytes`: the number and the rest.
fn number_prefix(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let colon = bytes.iter().position(|&b| b == b':')?;
    let number = std::str::from_utf8(&bytes[..colon]).ok()?.parse().ok()?;
    Some((number, &bytes[colon + 1..]))
}

/// What `topic_read.lua` answered.
pub(super) struct Read {
    /// 0: not published to in this generation of the cache.
    pub(super) page: u64,
    pub(super) last: u64,
    entries: Vec<(u64, Kind, String)>,
}

pub(super) fn parse_read(reply: Value) -> Result<Option<Read>, Error> {
    let parts = match reply {
        Value::Int(0) => return Ok(None),
        Value::Array(parts) => parts,
        other => return Err(unexpected("topic read", &other)),
    };
    let text = |value: &Value| match value {
        Value::BulkString(bytes) => Some(bytes.clone()),
        Value::SimpleString(text) => Some(text.clone().into_bytes()),
        _ => None,
    };
    let bad = || Error::StoreFailed("unexpected reply to topic read".into());
    let page = match parts.first().and_then(text) {
        Some(page) if page.is_empty() => 0,
        Some(page) => std::str::from_utf8(&page)
            .ok()
            .and_then(|page| page.parse().ok())
            .ok_or_else(bad)?,
        None => return Err(bad()),
    };
    let last = match parts.get(1) {
        Some(Value::Int(last)) => u64::try_from(*last).map_err(|_| bad())?,
        _ => return Err(bad()),
    };
    let mut entries = Vec::new();
    for pair in parts[2..].chunks(2) {
        let [id, message] = pair else {
            return Err(bad());
        };
        let id = text(id).ok_or_else(bad)?;
        let seq = std::str::from_utf8(&id)
            .ok()
            .and_then(|id| id.split('-').next()?.parse().ok())
            .ok_or_else(bad)?;
        let (kind, publisher) = text(message).as_deref().and_then(decode).ok_or_else(bad)?;
        entries.push((seq, kind, publisher));
    }
    Ok(Some(Read {
        page,
        last,
        entries,
    }))
}

/// Topics over a Redis store: the [`TopicStore`] of a front-end.
#[derive(Clone)]
pub struct RedisTopics {
    store: Arc<RedisStore>,
    hub: Arc<Hub>,
    settings: TopicSettings,
    /// SPUBLISH over a cluster; PUBLISH on one node, where the channel
    /// is a plain one.
    sharded: bool,
}

impl RedisTopics {
    /// The topics of a front-end over `store`, and its bridge task, which
    /// runs until `shutdown` is set.
    pub fn start(
        store: Arc<RedisStore>,
        target: Target,
        settings: TopicSettings,
        metrics: TopicMetrics,
        shutdown: watch::Receiver<bool>,
    ) -> (RedisTopics, Arc<dyn CacheEvents>) {
        let (commands, receiver) = mpsc::unbounded_channel();
        let watch: Arc<dyn TopicWatch> = Arc::new(Watch { commands });
        let hub = Hub::new(settings, metrics, shutdown.clone(), Some(watch));
        let sharded = matches!(target, Target::Cluster(_));
        let bridge = Bridge {
            store: store.clone(),
            hub: Arc::downgrade(&hub),
            target,
            connection: None,
            held: HashMap::new(),
        };
        tokio::spawn(bridge.run(receiver, shutdown));
        let topics = RedisTopics {
            store,
            hub: hub.clone(),
            settings,
            sharded,
        };
        let events: Arc<dyn CacheEvents> = Arc::new(Events { hub });
        (topics, events)
    }

    async fn check_exists(&self, cache: &str) -> Result<(), Error> {
        let resolved = self.store.cache(cache)?;
        self.store.check_exists(&resolved).await
    }
}

impl TopicStore for RedisTopics {
    async fn publish(
        &self,
        cache: &str,
        topic: &str,
        value: Kind,
        publisher: &str,
    ) -> Result<(), Error> {
        self.store.cache(cache)?;
        let keys = TopicKeys::new(cache, topic);
        let mut invocation = keys.invocation(&scripts::TOPIC_PUBLISH);
        invocation
            .arg(keys.channel.as_slice())
            .arg(encode(&value, publisher))
            .arg(self.settings.buffer_messages)
            .arg(IDLE_TTL_MS)
            .arg(if self.sharded { "SPUBLISH" } else { "PUBLISH" });
        match self.store.run(invocation).await? {
            Value::Int(0) => Err(Error::CacheNotFound(cache.to_owned())),
            Value::Array(_) => Ok(()),
            other => Err(unexpected("topic publish", &other)),
        }
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

/// What the control plane's calls mean for this front-end's topics. A flush
/// needs nothing here: the next Publish starts each topic's new page, and
/// every front-end learns it from that message.
struct Events {
    hub: Arc<Hub>,
}

impl CacheEvents for Events {
    fn cache_deleted(&self, cache: &str) {
        self.hub.cache_deleted(cache);
    }

    fn cache_flushed(&self, _cache: &str) {}
}

/// Tells the bridge task which topics this front-end holds.
struct Watch {
    commands: mpsc::UnboundedSender<Command>,
}

enum Command {
    Open {
        cache: String,
        topic: String,
        handle: Weak<Topic>,
    },
    Close {
        cache: String,
        topic: String,
        handle: Weak<Topic>,
    },
}

impl TopicWatch for Watch {
    fn opened(&self, cache: &str, topic: &str, handle: &Arc<Topic>) {
        let _ = self.commands.send(Command::Open {
            cache: cache.to_owned(),
            topic: topic.to_owned(),
            handle: Arc::downgrade(handle),
        });
    }

    fn closed(&self, cache: &str, topic: &str, handle: &Arc<Topic>) {
        let _ = self.commands.send(Command::Close {
            cache: cache.to_owned(),
            topic: topic.to_owned(),
            handle: Arc::downgrade(handle),
        });
    }
}

/// A topic this front-end listens to.
struct Held {
    cache: String,
    topic: String,
    handle: Weak<Topic>,
    /// Whether its channel subscription went through.
    subscribed: bool,
}

/// The connection pushes arrive on: RESP3, subscriptions re-made by
/// redis-rs after a reconnection.
enum PubsubConnection {
    Cluster(ClusterConnection),
    Single(redis::aio::ConnectionManager),
}

impl PubsubConnection {
    async fn open(
        target: &Target,
        pushes: mpsc::UnboundedSender<PushInfo>,
    ) -> redis::RedisResult<Self> {
        match target {
            Target::Cluster(nodes) => {
                let client = ClusterClient::builder(nodes.iter().map(String::as_str))
                    .use_protocol(redis::ProtocolVersion::RESP3)
                    .push_sender(pushes)
                    .connection_timeout(SWEEP_INTERVAL)
                    .build()?;
                Ok(PubsubConnection::Cluster(
                    client.get_async_connection().await?,
                ))
            }
            Target::Single(url) => {
                let separator = if url.contains('?') { '&' } else { '?' };
                let client = redis::Client::open(format!("{url}{separator}protocol=resp3"))?;
                let config = ConnectionManagerConfig::new()
                    .set_push_sender(pushes)
                    .set_automatic_resubscription()
                    .set_connection_timeout(Some(SWEEP_INTERVAL));
                Ok(PubsubConnection::Single(
                    client.get_connection_manager_with_config(config).await?,
                ))
            }
        }
    }

    async fn subscribe(&mut self, channel: &[u8]) -> redis::RedisResult<()> {
        match self {
            PubsubConnection::Cluster(connection) => connection.ssubscribe(channel).await,
            PubsubConnection::Single(connection) => connection.subscribe(channel).await,
        }
    }

    async fn unsubscribe(&mut self, channel: &[u8]) -> redis::RedisResult<()> {
        match self {
            PubsubConnection::Cluster(connection) => connection.sunsubscribe(channel).await,
            PubsubConnection::Single(connection) => connection.unsubscribe(channel).await,
        }
    }
}

/// The one task of a front-end that moves messages from Redis into its hub:
/// one at a time, so that each topic's messages are appended in order.
struct Bridge {
    store: Arc<RedisStore>,
    hub: Weak<Hub>,
    target: Target,
    connection: Option<PubsubConnection>,
    /// By channel.
    held: HashMap<Vec<u8>, Held>,
}

impl Bridge {
    async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut shutdown: watch::Receiver<bool>,
    ) {
        let (pushes_sender, mut pushes) = mpsc::unbounded_channel();
        let mut sweep = tokio::time::interval(SWEEP_INTERVAL);
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                stopping = shutdown.changed() => {
                    if stopping.is_err() || *shutdown.borrow() {
                        return;
                    }
                }
                command = commands.recv() => match command {
                    Some(command) => self.command(command, &pushes_sender).await,
                    // The hub is gone with its server.
                    None => return,
                },
                push = pushes.recv() => {
                    if let Some(push) = push {
                        self.push(push).await;
                    }
                }
                _ = sweep.tick() => self.sweep(&pushes_sender).await,
            }
        }
    }

    async fn command(&mut self, command: Command, pushes: &mpsc::UnboundedSender<PushInfo>) {
        match command {
            Command::Open {
                cache,
                topic,
                handle,
            } => {
                let channel = TopicKeys::new(&cache, &topic).channel;
                self.held.insert(
                    channel.clone(),
                    Held {
                        cache,
                        topic,
                        handle,
                        subscribed: false,
                    },
                );
                self.listen(&channel, pushes).await;
                self.catch_up(&channel).await;
            }
            Command::Close {
                cache,
                topic,
                handle,
            } => {
                let channel = TopicKeys::new(&cache, &topic).channel;
                // Only if it is still that topic: a new one of the same name
                // may have been opened since.
                let same = self
                    .held
                    .get(&channel)
                    .is_some_and(|held| Weak::ptr_eq(&held.handle, &handle));
                if !same {
                    return;
                }
                self.held.remove(&channel);
                if let Some(connection) = &mut self.connection {
                    let unsubscribed =
                        tokio::time::timeout(SWEEP_INTERVAL, connection.unsubscribe(&channel))
                            .await;
                    if !matches!(unsubscribed, Ok(Ok(()))) {
                        // Start over with a fresh connection, subscribed to what is held.
                        tracing::debug!("unsubscribing from a topic channel failed");
                        self.reset();
                    }
                }
            }
        }
    }

    /// Subscribes to a held topic's channel, opening the connection first
    /// if needed; a failure is tried again by the next sweep.
    async fn listen(&mut self, channel: &[u8], pushes: &mpsc::UnboundedSender<PushInfo>) {
        if self.connection.is_none() {
            match PubsubConnection::open(&self.target, pushes.clone()).await {
                Ok(connection) => self.connection = Some(connection),
                Err(error) => {
                    tracing::warn!(%error, "cannot open the topics' connection to Redis yet");
                    return;
                }
            }
        }
        let Some(connection) = &mut self.connection else {
            return;
        };
        let subscribed = tokio::time::timeout(SWEEP_INTERVAL, connection.subscribe(channel)).await;
        match subscribed {
            Ok(Ok(())) => {
                if let Some(held) = self.held.get_mut(channel) {
                    held.subscribed = true;
                }
            }
            Ok(Err(error)) => {
                tracing::warn!(%error, "subscribing to a topic channel failed; trying again");
                self.reset();
            }
            Err(_) => {
                tracing::warn!("subscribing to a topic channel timed out; trying again");
                self.reset();
            }
        }
    }

    /// Drops the connection: the next sweep opens a new one and subscribes
    /// to every held topic again, then reads back what was missed.
    fn reset(&mut self) {
        self.connection = None;
        for held in self.held.values_mut() {
            held.subscribed = false;
        }
    }

    /// Appends to a held topic what Redis has from the number it expects
    /// next; loads it whole if it is not ready yet.
    async fn catch_up(&mut self, channel: &[u8]) {
        let Some(hub) = self.hub.upgrade() else {
            return;
        };
        let Some(held) = self.held.get(channel) else {
            return;
        };
        let Some(topic) = held.handle.upgrade() else {
            self.held.remove(channel);
            return;
        };
        let (ready, page, next) = topic.position();
        let keys = TopicKeys::new(&held.cache, &held.topic);
        let mut read = self.read(&keys, if ready { next } else { 0 }).await;
        if let Ok(Some(numbered)) = &read {
            if ready && numbered.page != 0 && numbered.page != page {
                // The numbering started again (a flush, a failover): all of it.
                read = self.read(&keys, 0).await;
            }
        }
        let read = match read {
            Ok(read) => read,
            Err(error) => {
                tracing::debug!(%error, "reading a topic back from Redis failed; trying again");
                return;
            }
        };
        let Some(read) = read else {
            // The cache is gone: its subscriptions here end.
            hub.cache_deleted(&held.cache);
            return;
        };
        if !ready {
            let messages = read
                .entries
                .into_iter()
                .map(|(seq, kind, publisher)| hub.message(seq, read.page, kind, publisher))
                .collect();
            topic.load(read.page, read.last + 1, messages, hub.settings());
            return;
        }
        if read.page == 0 {
            return;
        }
        for (seq, kind, publisher) in read.entries {
            hub.deliver(&topic, seq, read.page, kind, publisher);
        }
        // Numbers the stream no longer holds: subscribers behind are told.
        if read.page == page && read.last >= topic.position().2 {
            topic.skip_to(read.page, read.last + 1);
        }
    }

    /// `topic_read.lua` from number `from` on.
    async fn read(&self, keys: &TopicKeys, from: u64) -> Result<Option<Read>, Error> {
        let mut invocation = keys.invocation(&scripts::TOPIC_READ);
        invocation.arg(from);
        self.store.run(invocation).await.and_then(parse_read)
    }

    async fn push(&mut self, push: PushInfo) {
        match push.kind {
            PushKind::SMessage | PushKind::Message => {}
            PushKind::Disconnection => {
                // Subscriptions are made again by redis-rs; what was
                // published meanwhile comes back with the next sweep.
                for held in self.held.values_mut() {
                    held.subscribed = false;
                }
                return;
            }
            _ => return,
        }
        let [Value::BulkString(channel), Value::BulkString(message)] = push.data.as_slice() else {
            return;
        };
        let Some(hub) = self.hub.upgrade() else {
            return;
        };
        let Some(topic) = self
            .held
            .get(channel)
            .and_then(|held| held.handle.upgrade())
        else {
            return;
        };
        let parsed = number_prefix(message).and_then(|(page, rest)| {
            let (seq, rest) = number_prefix(rest)?;
            let (kind, publisher) = decode(rest)?;
            Some((page, seq, kind, publisher))
        });
        match parsed {
            Some((page, seq, kind, publisher)) => hub.deliver(&topic, seq, page, kind, publisher),
            None => tracing::warn!("a topic message from Redis could not be read; skipped"),
        }
    }

    /// Every held topic: subscribed again if it is not, then caught up.
    async fn sweep(&mut self, pushes: &mpsc::UnboundedSender<PushInfo>) {
        let channels: Vec<Vec<u8>> = self.held.keys().cloned().collect();
        for channel in channels {
            let subscribed = self.held.get(&channel).is_some_and(|held| held.subscribed);
            if !subscribed {
                self.listen(&channel, pushes).await;
            }
            self.catch_up(&channel).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_encode_and_decode() {
        for (kind, publisher) in [
            (Kind::Text("hé:llo".into()), ""),
            (
                Kind::Binary(Bytes::from_static(b"\0:\xff")),
                "team-a:writer",
            ),
        ] {
            let encoded = encode(&kind, publisher);
            assert_eq!(decode(&encoded), Some((kind, publisher.to_owned())));
        }
        assert_eq!(decode(b"x0:"), None);
        assert_eq!(decode(b"t5:ab"), None);
    }

    #[test]
    fn a_topic_lives_in_one_slot() {
        let keys = TopicKeys::new("cache", "orders/new {x}");
        let tag = |name: &[u8]| {
            let open = name.iter().position(|&b| b == b'{').unwrap();
            let close = name.iter().position(|&b| b == b'}').unwrap();
            name[open..=close].to_vec()
        };
        let bucket_tag = tag(keys.generation.as_bytes());
        for name in [&keys.hash, &keys.stream, &keys.channel] {
            assert_eq!(tag(name), bucket_tag);
        }
    }

    #[test]
    fn read_replies_parse() {
        let bulk = |text: &str| Value::BulkString(text.as_bytes().to_vec());
        let reply = Value::Array(vec![
            bulk("1700000000000000"),
            Value::Int(4),
            bulk("3-1"),
            Value::BulkString(encode(&Kind::Text("c".into()), "")),
            bulk("4-1"),
            Value::BulkString(encode(&Kind::Text("d".into()), "")),
        ]);
        let read = parse_read(reply).unwrap().unwrap();
        assert_eq!((read.page, read.last), (1_700_000_000_000_000, 4));
        let seqs: Vec<u64> = read.entries.iter().map(|(seq, ..)| *seq).collect();
        assert_eq!(seqs, [3, 4]);
        assert!(parse_read(Value::Int(0)).unwrap().is_none());
        let fresh = parse_read(Value::Array(vec![bulk(""), Value::Int(0)]))
            .unwrap()
            .unwrap();
        assert_eq!((fresh.page, fresh.last), (0, 0));
    }
}
