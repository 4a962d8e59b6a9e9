//! One topic: its page, its numbering, and the ring of its newest messages.
//!
//! The ring holds consecutive sequence numbers: its oldest message is
//! `next - ring.len()`, its newest `next - 1`. Subscribers read it by
//! cursor (the number they want next, on the page they know); a cursor
//! behind the oldest message, or on another page, is answered with a
//! discontinuity saying where the subscriber goes on from.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use prometheus::IntGauge;

use super::signal::Signal;
use super::{value_len, TopicSettings, MESSAGE_OVERHEAD};
use crate::error::Error;
use crate::proto::cache_client::pubsub::topic_value::Kind;
use crate::proto::cache_client::pubsub::Discontinuity;

/// Bytes counted in the topics' memory gauge while the holder lives.
pub(super) struct Charge {
    gauge: IntGauge,
    bytes: usize,
}

impl Charge {
    pub(super) fn new(gauge: &IntGauge, bytes: usize) -> Charge {
        gauge.add(bytes as i64);
        Charge {
            gauge: gauge.clone(),
            bytes,
        }
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.gauge.sub(self.bytes as i64);
    }
}

/// A published message, shared by the ring and the subscribers copying it.
pub struct Message {
    pub seq: u64,
    pub page: u64,
    pub value: Kind,
    /// The subject of the publisher's token, or empty.
    pub publisher: String,
    /// Released when the last holder drops the message.
    charge: Charge,
}

impl Message {
    pub(super) fn new(
        seq: u64,
        page: u64,
        value: Kind,
        publisher: String,
        gauge: &IntGauge,
    ) -> Self {
        let bytes = value_len(&value) + publisher.len() + MESSAGE_OVERHEAD;
        let value = owned(value);
        Message {
            seq,
            page,
            value,
            publisher,
            charge: Charge::new(gauge, bytes),
        }
    }

    /// What the message is charged, value and overhead.
    pub fn size(&self) -> usize {
        self.charge.bytes
    }
}

/// The value in memory of its own. A binary value decoded from a Publish is
/// a slice of the request's whole receive buffer (prost hands out `Bytes`
/// without copying, `build.rs`): kept in a ring as it is, it would keep
/// that buffer, padding and all, for as long as the ring holds the
/// message, while being charged for its own length only. Text is decoded
/// into a `String` of its own already.
fn owned(value: Kind) -> Kind {
    match value {
        Kind::Binary(bytes) => Kind::Binary(bytes::Bytes::copy_from_slice(&bytes)),
        text => text,
    }
}

/// Where a subscriber is: the page it knows and the number it wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cursor {
    pub page: u64,
    pub seq: u64,
}

/// Where a new subscriber starts.
pub(super) enum Start {
    /// The topic is loading (over Redis): wait.
    Waiting,
    /// The topic is gone with its cache: end with this error.
    Ended(Error),
    /// From this cursor, after this discontinuity, if any.
    At(Cursor, Option<Discontinuity>),
}

/// What a subscriber's cursor finds.
pub(super) enum Step {
    Item(Arc<Message>),
    /// Messages it wanted are gone; `fell_behind` when the page is the same
    /// (it read too slowly), not when the numbering started again.
    Gap {
        discontinuity: Discontinuity,
        fell_behind: bool,
    },
    /// The topic is gone with its cache: end with this error.
    Ended(Error),
    /// Nothing new yet.
    Idle,
}

pub(super) struct State {
    page: u64,
    next: u64,
    ring: VecDeque<Arc<Message>>,
    bytes: usize,
    /// The cache's name, once it is deleted: every subscriber ends with
    /// NOT_FOUND naming it.
    ended: Option<Box<str>>,
    /// False while a front-end over Redis loads the topic's stream; the
    /// subscribers wait before they take their starting point.
    ready: bool,
    /// When the topic was last published to, as the hub's publish counter:
    /// the memory cap empties the rings of the least recent first.
    pub(super) last_publish: u64,
}

impl State {
    fn first(&self) -> u64 {
        self.next - self.ring.len() as u64
    }

    fn push(&mut self, message: Arc<Message>, settings: &TopicSettings) {
        self.bytes += message.size();
        self.next = message.seq + 1;
        self.ring.push_back(message);
        // The newest message always stays, whatever its size.
        while self.ring.len() > 1
            && (self.ring.len() > settings.buffer_messages || self.bytes > settings.buffer_bytes)
        {
            self.pop();
        }
    }

    fn pop(&mut self) {
        if let Some(message) = self.ring.pop_front() {
            self.bytes -= message.size();
        }
    }

    fn clear(&mut self) {
        self.ring.clear();
        self.bytes = 0;
    }
}

pub struct Topic {
    state: Mutex<State>,
    /// Notified on every change of the ring, the page or the state.
    changed: Signal,
    /// Subscriptions open on this topic: a topic with none and an empty
    /// ring is forgotten.
    subscribers: AtomicUsize,
    _charge: Charge,
}

impl Topic {
    pub(super) fn new(page: u64, ready: bool, charge: Charge) -> Topic {
        Topic {
            state: Mutex::new(State {
                page,
                next: 1,
                ring: VecDeque::new(),
                bytes: 0,
                ended: None,
                ready,
                last_publish: 0,
            }),
            changed: Signal::default(),
            subscribers: AtomicUsize::new(0),
            _charge: charge,
        }
    }

    /// What subscribers wait on for the topic to change.
    pub(super) fn changes(&self) -> &Signal {
        &self.changed
    }

    fn notify(&self) {
        self.changed.notify();
    }

    /// Whether the topic is ready, its page (0: not numbered yet, over
    /// Redis), and the number its next message gets.
    pub fn position(&self) -> (bool, u64, u64) {
        let state = self.state.lock();
        (state.ready, state.page, state.next)
    }

    pub(super) fn subscribers(&self) -> &AtomicUsize {
        &self.subscribers
    }

    pub(super) fn with_state<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock())
    }

    /// Whether nothing holds the topic: no subscriber, and nothing buffered
    /// unless `buffer_counts`.
    pub(super) fn is_idle(&self, buffer_counts: bool) -> bool {
        self.subscribers.load(Ordering::Acquire) == 0
            && (!buffer_counts || self.state.lock().ring.is_empty())
    }

    /// Numbers `value` as the next message and appends it; answers its
    /// sequence number.
    pub(super) fn append(
        &self,
        value: Kind,
        publisher: String,
        stamp: u64,
        settings: &TopicSettings,
        gauge: &IntGauge,
    ) -> Result<u64, Error> {
        let mut state = self.state.lock();
        if let Some(cache) = &state.ended {
            return Err(Error::CacheNotFound(cache.to_string()));
        }
        let seq = state.next;
        let message = Arc::new(Message::new(seq, state.page, value, publisher, gauge));
        state.push(message, settings);
        state.last_publish = stamp;
        drop(state);
        self.notify();
        Ok(seq)
    }

    /// Appends a message numbered elsewhere (by Redis). A new page starts
    /// the ring again; a number past the next one empties it first (the
    /// messages between were lost, and subscribers behind are told); a
    /// number already seen is ignored.
    pub(super) fn insert(&self, message: Message, stamp: u64, settings: &TopicSettings) {
        let mut state = self.state.lock();
        if state.ended.is_some() {
            return;
        }
        if message.page != state.page {
            state.page = message.page;
            state.clear();
            state.next = message.seq;
        } else if message.seq < state.next {
            return;
        } else if message.seq > state.next {
            state.clear();
            state.next = message.seq;
        }
        state.push(Arc::new(message), settings);
        state.last_publish = stamp;
        drop(state);
        self.notify();
    }

    /// Replaces the topic's page and ring (a front-end over Redis loading
    /// the stream), and marks the topic ready for its subscribers.
    pub fn load(&self, page: u64, next: u64, messages: Vec<Message>, settings: &TopicSettings) {
        let mut state = self.state.lock();
        if state.ended.is_none() {
            state.page = page;
            state.clear();
            state.next = messages.first().map_or(next, |message| message.seq);
            for message in messages {
                if message.seq < state.next {
                    continue;
                }
                if message.seq > state.next {
                    // A hole in what was loaded: the ring holds consecutive numbers.
                    state.clear();
                    state.next = message.seq;
                }
                state.push(Arc::new(message), settings);
            }
            if next > state.next {
                state.clear();
                state.next = next;
            }
        }
        state.ready = true;
        drop(state);
        self.notify();
    }

    /// Numbers up to `next` were handed out on `page` but are not here
    /// (nor anywhere a front-end over Redis can read them): the ring is
    /// emptied and the numbering goes on from `next`; subscribers behind
    /// are told.
    pub fn skip_to(&self, page: u64, next: u64) {
        let mut state = self.state.lock();
        if page != state.page || next <= state.next {
            return;
        }
        state.clear();
        state.next = next;
        drop(state);
        self.notify();
    }

    /// The numbering starts again at 1 on `page`, the ring emptied: what
    /// FlushCache does.
    pub(super) fn restart(&self, page: u64) {
        let mut state = self.state.lock();
        state.page = page;
        state.next = 1;
        state.clear();
        drop(state);
        self.notify();
    }

    /// Empties the ring (the memory cap); subscribers behind are told.
    pub(super) fn clear(&self) {
        self.state.lock().clear();
        self.notify();
    }

    /// The cache is gone: every subscriber ends with NOT_FOUND.
    pub(super) fn end(&self, cache: &str) {
        let mut state = self.state.lock();
        state.ended = Some(cache.into());
        state.clear();
        drop(state);
        self.notify();
    }

    /// Where a new subscription starts, and the discontinuity it is told
    /// first, if any; [`Start::Waiting`] until the topic is ready.
    ///
    /// - no resume point (0): with the newest message, if any, then on;
    /// - a resume point on the current page (or page 0) that the ring
    ///   still holds, or the next number: from there, nothing missed;
    /// - one the ring no longer holds: a discontinuity, then the oldest
    ///   message held;
    /// - one on another page, or past the next number (the numbering
    ///   started again since): a discontinuity naming the page, then the
    ///   oldest message held.
    pub(super) fn start(&self, resume: u64, page: u64) -> Start {
        let state = self.state.lock();
        if let Some(cache) = &state.ended {
            return Start::Ended(Error::CacheNotFound(cache.to_string()));
        }
        if !state.ready {
            return Start::Waiting;
        }
        let first = state.first();
        let at = |seq| Cursor {
            page: state.page,
            seq,
        };
        if resume == 0 {
            return Start::At(at(first.max(state.next.saturating_sub(1)).max(1)), None);
        }
        let same_page = page == 0 || page == state.page;
        if same_page && resume >= first && resume <= state.next {
            return Start::At(at(resume), None);
        }
        let discontinuity = Discontinuity {
            last_topic_sequence: resume - 1,
            new_topic_sequence: first - 1,
            new_sequence_page: state.page,
        };
        Start::At(at(first), Some(discontinuity))
    }

    /// The next thing a subscriber at `cursor` is sent; moves the cursor.
    pub(super) fn read(&self, cursor: &mut Cursor) -> Step {
        let state = self.state.lock();
        if let Some(cache) = &state.ended {
            return Step::Ended(Error::CacheNotFound(cache.to_string()));
        }
        let first = state.first();
        if cursor.page == 0 && cursor.seq == 1 {
            // It started before the topic had a page (over Redis, a topic not
            // published to yet), wanting everything from the first number.
            cursor.page = state.page;
        }
        let same_page = cursor.page == state.page && cursor.seq <= state.next;
        if !same_page || cursor.seq < first {
            let discontinuity = Discontinuity {
                last_topic_sequence: cursor.seq.saturating_sub(1),
                new_topic_sequence: first - 1,
                new_sequence_page: state.page,
            };
            *cursor = Cursor {
                page: state.page,
                seq: first,
            };
            return Step::Gap {
                discontinuity,
                fell_behind: same_page,
            };
        }
        match state.ring.get((cursor.seq - first) as usize) {
            Some(message) => {
                cursor.seq += 1;
                Step::Item(message.clone())
            }
            None => Step::Idle,
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn settings(messages: usize) -> TopicSettings {
        TopicSettings {
            buffer_messages: messages,
            ..TopicSettings::default()
        }
    }

    fn topic() -> (Topic, IntGauge) {
        let gauge = IntGauge::new("t", "t").unwrap();
        (Topic::new(7, true, Charge::new(&gauge, 0)), gauge)
    }

    fn publish(topic: &Topic, gauge: &IntGauge, settings: &TopicSettings, text: &str) -> u64 {
        topic
            .append(Kind::Text(text.into()), String::new(), 0, settings, gauge)
            .unwrap()
    }

    pub(crate) fn started(start: Start) -> (Cursor, Option<Discontinuity>) {
        match start {
            Start::At(cursor, told) => (cursor, told),
            _ => panic!("the topic is not ready"),
        }
    }

    fn item(step: Step) -> (u64, String) {
        match step {
            Step::Item(message) => match &message.value {
                Kind::Text(text) => (message.seq, text.clone()),
                Kind::Binary(_) => panic!("binary"),
            },
            _ => panic!("not an item"),
        }
    }

    #[test]
    fn a_kept_binary_value_does_not_keep_the_buffer_it_was_decoded_from() {
        let (topic, gauge) = topic();
        let request = bytes::Bytes::from(vec![7u8; 64 << 10]);
        let value = Kind::Binary(request.slice(100..101));
        topic
            .append(value, String::new(), 0, &settings(10), &gauge)
            .unwrap();
        let (mut cursor, _) = started(topic.start(1, 0));
        let Step::Item(message) = topic.read(&mut cursor) else {
            panic!("not an item");
        };
        let Kind::Binary(kept) = &message.value else {
            panic!("not binary");
        };
        assert_eq!(&kept[..], &[7]);
        let within = request.as_ptr_range().contains(&kept.as_ptr());
        assert!(!within, "the ring keeps a slice of the request's buffer");
    }

    #[test]
    fn messages_are_numbered_from_one_and_read_in_order() {
        let (topic, gauge) = topic();
        let settings = settings(10);
        let (mut cursor, told) = started(topic.start(0, 0));
        assert!(told.is_none());
        assert!(matches!(topic.read(&mut cursor), Step::Idle));
        assert_eq!(publish(&topic, &gauge, &settings, "a"), 1);
        assert_eq!(publish(&topic, &gauge, &settings, "b"), 2);
        assert_eq!(item(topic.read(&mut cursor)), (1, "a".into()));
        assert_eq!(item(topic.read(&mut cursor)), (2, "b".into()));
        assert!(matches!(topic.read(&mut cursor), Step::Idle));
    }

    #[test]
    fn a_fresh_subscription_starts_with_the_newest_message() {
        let (topic, gauge) = topic();
        let settings = settings(10);
        for text in ["a", "b", "c"] {
            publish(&topic, &gauge, &settings, text);
        }
        let (mut cursor, _) = started(topic.start(0, 0));
        assert_eq!(item(topic.read(&mut cursor)), (3, "c".into()));
    }

    #[test]
    fn resuming_replays_what_the_ring_holds_and_says_what_it_does_not() {
        let (topic, gauge) = topic();
        let settings = settings(3);
        for n in 1..=5 {
            publish(&topic, &gauge, &settings, &n.to_string());
        }
        // Held: 3, 4, 5.
        let (mut cursor, told) = started(topic.start(4, 7));
        assert!(told.is_none());
        assert_eq!(item(topic.read(&mut cursor)).0, 4);
        let (mut cursor, told) = started(topic.start(2, 0));
        let told = told.unwrap();
        assert_eq!(
            (
                told.last_topic_sequence,
                told.new_topic_sequence,
                told.new_sequence_page
            ),
            (1, 2, 7)
        );
        assert_eq!(item(topic.read(&mut cursor)).0, 3);
        // Another page: told, then everything held.
        let (mut cursor, told) = started(topic.start(300, 99));
        assert_eq!(told.unwrap().last_topic_sequence, 299);
        assert_eq!(item(topic.read(&mut cursor)).0, 3);
        // The next number: nothing missed, nothing to read yet.
        let (mut cursor, told) = started(topic.start(6, 7));
        assert!(told.is_none());
        assert!(matches!(topic.read(&mut cursor), Step::Idle));
    }

    #[test]
    fn a_slow_reader_is_told_what_it_lost_and_goes_on_from_the_oldest() {
        let (topic, gauge) = topic();
        let settings = settings(2);
        let (mut cursor, _) = started(topic.start(0, 0));
        for n in 1..=5 {
            publish(&topic, &gauge, &settings, &n.to_string());
        }
        match topic.read(&mut cursor) {
            Step::Gap {
                discontinuity,
                fell_behind,
            } => {
                assert!(fell_behind);
                assert_eq!(discontinuity.last_topic_sequence, 0);
                assert_eq!(discontinuity.new_topic_sequence, 3);
            }
            _ => panic!("expected a gap"),
        }
        assert_eq!(item(topic.read(&mut cursor)).0, 4);
    }

    #[test]
    fn a_restart_is_a_new_page_from_one() {
        let (topic, gauge) = topic();
        let settings = settings(10);
        let (mut cursor, _) = started(topic.start(0, 0));
        publish(&topic, &gauge, &settings, "a");
        assert_eq!(item(topic.read(&mut cursor)).0, 1);
        topic.restart(8);
        assert_eq!(publish(&topic, &gauge, &settings, "b"), 1);
        match topic.read(&mut cursor) {
            Step::Gap {
                discontinuity,
                fell_behind,
            } => {
                assert!(!fell_behind);
                assert_eq!(discontinuity.new_sequence_page, 8);
                assert_eq!(discontinuity.new_topic_sequence, 0);
            }
            _ => panic!("expected a gap"),
        }
        assert_eq!(item(topic.read(&mut cursor)), (1, "b".into()));
    }

    #[test]
    fn the_ring_is_bounded_in_bytes_and_releases_its_memory() {
        let (topic, gauge) = topic();
        let settings = TopicSettings {
            buffer_bytes: 3 * (MESSAGE_OVERHEAD + 10),
            ..TopicSettings::default()
        };
        for _ in 0..10 {
            publish(&topic, &gauge, &settings, "0123456789");
        }
        assert_eq!(gauge.get() as usize, 3 * (MESSAGE_OVERHEAD + 10));
        topic.clear();
        assert_eq!(gauge.get(), 0);
    }

    #[test]
    fn an_ended_topic_ends_its_readers_and_refuses_publishes() {
        let (topic, gauge) = topic();
        let settings = settings(10);
        let (mut cursor, _) = started(topic.start(0, 0));
        topic.end("c");
        assert!(matches!(topic.read(&mut cursor), Step::Ended(_)));
        let refused = topic.append(Kind::Text("x".into()), String::new(), 0, &settings, &gauge);
        assert!(refused.is_err());
    }

    #[test]
    fn inserts_keep_the_numbers_they_were_given() {
        let (topic, gauge) = topic();
        let settings = settings(10);
        let (mut cursor, _) = started(topic.start(0, 0));
        let message =
            |seq, page| Message::new(seq, page, Kind::Text("x".into()), String::new(), &gauge);
        topic.insert(message(1, 7), 0, &settings);
        topic.insert(message(1, 7), 0, &settings); // a repeat
        topic.insert(message(2, 7), 0, &settings);
        assert_eq!(item(topic.read(&mut cursor)).0, 1);
        assert_eq!(item(topic.read(&mut cursor)).0, 2);
        topic.insert(message(5, 7), 0, &settings); // 3 and 4 were lost
        match topic.read(&mut cursor) {
            Step::Gap { discontinuity, .. } => {
                assert_eq!(discontinuity.last_topic_sequence, 2);
                assert_eq!(discontinuity.new_topic_sequence, 4);
            }
            _ => panic!("expected a gap"),
        }
        assert_eq!(item(topic.read(&mut cursor)).0, 5);
    }
}
