//! Topic clients for the tests: publish, subscribe, and a reader that tells
//! items, heartbeats and discontinuities apart, each read bounded in time.

use std::time::Duration;

use bytes::Bytes;
use jiffy_server::proto::cache_client::pubsub::pubsub_client::PubsubClient;
use jiffy_server::proto::cache_client::pubsub::subscription_item::Kind as ItemKind;
use jiffy_server::proto::cache_client::pubsub::topic_value::Kind;
use jiffy_server::proto::cache_client::pubsub::{
    PublishRequest, SubscriptionItem, SubscriptionRequest, TopicValue,
};
use tonic::transport::Channel;
use tonic::{Request, Status, Streaming};

/// How long a test waits for the next message of a stream.
pub const READ_WAIT: Duration = Duration::from_secs(5);

pub type Pubsub = PubsubClient<Channel>;

pub fn text(value: &str) -> Option<TopicValue> {
    Some(TopicValue {
        kind: Some(Kind::Text(value.to_owned())),
    })
}

pub fn binary(value: &[u8]) -> Option<TopicValue> {
    Some(TopicValue {
        kind: Some(Kind::Binary(Bytes::copy_from_slice(value))),
    })
}

pub fn publish_request(cache: &str, topic: &str, value: Option<TopicValue>) -> PublishRequest {
    PublishRequest {
        cache_name: cache.to_owned(),
        topic: topic.to_owned(),
        value,
    }
}

pub async fn publish(
    client: &mut Pubsub,
    cache: &str,
    topic: &str,
    value: &str,
) -> Result<(), Status> {
    client
        .publish(publish_request(cache, topic, text(value)))
        .await
        .map(drop)
}

pub fn subscription_request(
    cache: &str,
    topic: &str,
    resume: u64,
    page: u64,
) -> SubscriptionRequest {
    SubscriptionRequest {
        cache_name: cache.to_owned(),
        topic: topic.to_owned(),
        resume_at_topic_sequence_number: resume,
        sequence_page: page,
    }
}

/// What a stream sent, flattened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Got {
    Item { seq: u64, page: u64, value: Kind },
    Heartbeat,
    Discontinuity { last: u64, new: u64, page: u64 },
}

impl Got {
    pub fn of(item: SubscriptionItem) -> Got {
        match item.kind.expect("an item of some kind") {
            ItemKind::Item(item) => Got::Item {
                seq: item.topic_sequence_number,
                page: item.sequence_page,
                value: item.value.and_then(|value| value.kind).expect("a value"),
            },
            ItemKind::Heartbeat(_) => Got::Heartbeat,
            ItemKind::Discontinuity(gap) => Got::Discontinuity {
                last: gap.last_topic_sequence,
                new: gap.new_topic_sequence,
                page: gap.new_sequence_page,
            },
        }
    }
}

/// A subscription's stream.
pub struct Reader {
    pub stream: Streaming<SubscriptionItem>,
}

impl Reader {
    /// Subscribes; the stream's first message, a heartbeat, is read and checked.
    pub async fn open(
        client: &mut Pubsub,
        request: Request<SubscriptionRequest>,
    ) -> Result<Reader, Status> {
        let stream = client.subscribe(request).await?.into_inner();
        let mut reader = Reader { stream };
        assert_eq!(
            reader.next().await?,
            Some(Got::Heartbeat),
            "the first message"
        );
        Ok(reader)
    }

    pub async fn subscribe(client: &mut Pubsub, cache: &str, topic: &str) -> Reader {
        Reader::open(
            client,
            Request::new(subscription_request(cache, topic, 0, 0)),
        )
        .await
        .unwrap()
    }

    /// The next message, `None` at the end of the stream; panics past [`READ_WAIT`].
    pub async fn next(&mut self) -> Result<Option<Got>, Status> {
        let message = tokio::time::timeout(READ_WAIT, self.stream.message())
            .await
            .expect("a message within READ_WAIT");
        Ok(message?.map(Got::of))
    }

    /// The next message that is not a heartbeat; panics past [`READ_WAIT`].
    pub async fn next_event(&mut self) -> Result<Option<Got>, Status> {
        let deadline = tokio::time::Instant::now() + READ_WAIT;
        loop {
            assert!(
                tokio::time::Instant::now() < deadline,
                "only heartbeats for {READ_WAIT:?}"
            );
            match self.next().await? {
                Some(Got::Heartbeat) => continue,
                other => return Ok(other),
            }
        }
    }

    /// The next item: (sequence number, page, text or bytes as text).
    pub async fn item(&mut self) -> (u64, u64, String) {
        match self.next_event().await.unwrap() {
            Some(Got::Item { seq, page, value }) => (seq, page, as_text(&value)),
            other => panic!("expected an item, got {other:?}"),
        }
    }

    /// The status the stream ends with; panics past [`READ_WAIT`].
    pub async fn end(&mut self) -> Status {
        let deadline = tokio::time::Instant::now() + READ_WAIT;
        loop {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no end for {READ_WAIT:?}"
            );
            match self.next().await {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the stream ended without an error"),
                Err(status) => return status,
            }
        }
    }
}

pub fn as_text(value: &Kind) -> String {
    match value {
        Kind::Text(text) => text.clone(),
        Kind::Binary(bytes) => String::from_utf8_lossy(bytes).into_owned(),
    }
}
