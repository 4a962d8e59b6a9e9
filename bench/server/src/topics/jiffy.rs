//! jiffy-server's side: Publish on one HTTP/2 connection, and one
//! Subscribe stream per subscriber, each on its own connection.
//!
//! A subscription is open once its first item, a heartbeat, has arrived:
//! the server sends it after taking the subscription's starting point, so
//! every message published after it reaches the subscriber (README,
//! Topics). The run starts publishing only when every subscriber has had
//! its heartbeat.

use std::rc::Rc;

use bytes::Bytes;
use jiffy_bench_server::grpc;
use jiffy_server::proto::cache_client::pubsub::{
    pubsub_client::PubsubClient, subscription_item, topic_value, PublishRequest, SubscriptionItem,
    SubscriptionRequest, TopicValue,
};
use tonic::{transport::Channel, Streaming};

use crate::{args::Args, message::Header, order::Order, stats::Shared};

/// Where messages go: the cache and topic of every call.
#[derive(Clone)]
pub struct Names {
    pub cache: String,
    pub topic: String,
}

pub struct Publisher {
    client: PubsubClient<Channel>,
    names: Names,
}

impl Publisher {
    /// Connects and creates the cache.
    pub async fn connect(args: &Args, names: Names) -> Result<Self, String> {
        let channel = grpc::connect(&grpc::uri(&args.endpoint)).await?;
        grpc::create_cache(channel.clone(), &names.cache).await?;
        Ok(Publisher {
            client: PubsubClient::new(channel),
            names,
        })
    }

    pub async fn publish(&self, message: Bytes) -> Result<(), String> {
        let request = PublishRequest {
            cache_name: self.names.cache.clone(),
            topic: self.names.topic.clone(),
            value: Some(TopicValue {
                kind: Some(topic_value::Kind::Binary(message)),
            }),
        };
        // A clone shares the connection: calls run concurrently on it.
        let mut client = self.client.clone();
        match client.publish(request).await {
            Ok(_) => Ok(()),
            Err(status) => Err(format!("{:?}", status.code())),
        }
    }
}

/// A subscriber whose subscription is open (its heartbeat has arrived).
pub struct Subscriber {
    client: PubsubClient<Channel>,
    names: Names,
    stream: Streaming<SubscriptionItem>,
}

impl Subscriber {
    pub async fn open(args: &Args, names: Names) -> Result<Self, String> {
        let channel = grpc::connect(&grpc::uri(&args.endpoint)).await?;
        let mut client = PubsubClient::new(channel);
        let stream = subscribe(&mut client, &names, 0, 0).await?;
        Ok(Subscriber {
            client,
            names,
            stream,
        })
    }

    /// Reads until the run is done. A stream the server ends (a subscriber
    /// too slow, say) is counted and opened again where it stopped, as the
    /// SDKs resume.
    pub async fn run(mut self, shared: Rc<Shared>) {
        let mut order = Order::default();
        let mut page = 0;
        loop {
            let kind = match self.stream.message().await {
                Ok(Some(item)) => item.kind,
                Ok(None) => {
                    shared.stream_ended("ended by the server without a status".into());
                    return;
                }
                Err(status) => {
                    if shared.done() {
                        return;
                    }
                    shared.stream_ended(format!("{:?}: {}", status.code(), status.message()));
                    let resume = order.last().map_or(0, |last| last + 1);
                    match subscribe(&mut self.client, &self.names, resume, page).await {
                        Ok(stream) => self.stream = stream,
                        Err(error) => {
                            shared.stream_ended(format!("subscribing again: {error}"));
                            return;
                        }
                    }
                    continue;
                }
            };
            match kind {
                Some(subscription_item::Kind::Item(item)) => {
                    if item.sequence_page != page {
                        // A new numbering (only at the first item here).
                        page = item.sequence_page;
                        order = Order::default();
                    }
                    shared.numbered(&mut order, item.topic_sequence_number);
                    let value = item.value.and_then(|value| value.kind);
                    let header = match &value {
                        Some(topic_value::Kind::Binary(bytes)) => {
                            Header::decode(shared.base, bytes)
                        }
                        _ => None,
                    };
                    match header {
                        Some(header) => shared.delivered(header.due, header.sent),
                        None => shared.malformed(),
                    }
                }
                Some(subscription_item::Kind::Discontinuity(gap)) => {
                    let missed = gap
                        .new_topic_sequence
                        .saturating_sub(gap.last_topic_sequence);
                    shared.discontinuity(missed);
                    order.jump(gap.new_topic_sequence);
                    page = gap.new_sequence_page;
                }
                Some(subscription_item::Kind::Heartbeat(_)) => shared.heartbeat(),
                None => shared.malformed(),
            }
        }
    }
}

/// A Subscribe stream whose first item, the heartbeat, has been read.
async fn subscribe(
    client: &mut PubsubClient<Channel>,
    names: &Names,
    resume: u64,
    page: u64,
) -> Result<Streaming<SubscriptionItem>, String> {
    let request = SubscriptionRequest {
        cache_name: names.cache.clone(),
        topic: names.topic.clone(),
        resume_at_topic_sequence_number: resume,
        sequence_page: page,
    };
    let mut stream = client
        .subscribe(request)
        .await
        .map_err(|status| format!("Subscribe: {status}"))?
        .into_inner();
    match stream.message().await {
        Ok(Some(SubscriptionItem {
            kind: Some(subscription_item::Kind::Heartbeat(_)),
        })) => Ok(stream),
        Ok(other) => Err(format!("Subscribe: first item {other:?}, not a heartbeat")),
        Err(status) => Err(format!("Subscribe: {status}")),
    }
}
