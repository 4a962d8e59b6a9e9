//! redis-server's side, driven as jiffy-server is: PUBLISH on one
//! connection with up to `--publishers-in-flight` commands pipelined on it
//! (a multiplexed connection), and one SUBSCRIBE connection per subscriber.
//!
//! SUBSCRIBE is open once redis-server has confirmed it; the run also waits
//! until `PUBSUB NUMSUB` counts every subscriber before it publishes.
//! Neither side has a response timeout, as tonic's calls have none.

use std::{rc::Rc, time::Duration};

use bytes::Bytes;
use futures_util::StreamExt;
use redis::{aio::MultiplexedConnection, aio::PubSubStream, AsyncConnectionConfig, Client};

use crate::{args::Args, message::Header, order::Order, stats::Shared};

fn client(args: &Args) -> Result<Client, String> {
    Client::open(format!("redis://{}/", args.endpoint))
        .map_err(|e| format!("--endpoint {}: {e}", args.endpoint))
}

pub struct Publisher {
    connection: MultiplexedConnection,
    channel: String,
}

impl Publisher {
    pub async fn connect(args: &Args, channel: String) -> Result<Self, String> {
        let config = AsyncConnectionConfig::new().set_response_timeout(None);
        let connection = client(args)?
            .get_multiplexed_async_connection_with_config(&config)
            .await
            .map_err(|e| format!("connecting to {}: {e}", args.endpoint))?;
        Ok(Publisher {
            connection,
            channel,
        })
    }

    pub async fn publish(&self, message: Bytes) -> Result<(), String> {
        // A clone shares the connection: commands are pipelined on it, in
        // the order they are sent.
        let mut connection = self.connection.clone();
        redis::cmd("PUBLISH")
            .arg(&self.channel)
            .arg(message.as_ref())
            .query_async::<i64>(&mut connection)
            .await
            .map(|_receivers| ())
            .map_err(|e| format!("{:?}", e.kind()))
    }

    /// Waits (up to 10 s) until redis-server counts `subscribers` on the
    /// channel.
    pub async fn wait_for(&self, subscribers: usize) -> Result<(), String> {
        let mut connection = self.connection.clone();
        for _ in 0..1000 {
            let (_, count): (String, usize) = redis::cmd("PUBSUB")
                .arg("NUMSUB")
                .arg(&self.channel)
                .query_async(&mut connection)
                .await
                .map_err(|e| format!("PUBSUB NUMSUB: {e}"))?;
            if count >= subscribers {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        Err(format!(
            "redis-server never counted {subscribers} subscribers"
        ))
    }
}

/// A subscriber whose SUBSCRIBE redis-server has confirmed.
pub struct Subscriber {
    client: Client,
    channel: String,
    stream: PubSubStream,
}

impl Subscriber {
    pub async fn open(args: &Args, channel: String) -> Result<Self, String> {
        let client = client(args)?;
        let stream = subscribe(&client, &channel).await?;
        Ok(Subscriber {
            client,
            channel,
            stream,
        })
    }

    /// Reads until the run is done. A connection that closes under it
    /// (redis-server's output buffer limit for a slow subscriber, say) is
    /// counted and opened again; what was published meanwhile shows as a
    /// gap in the publisher's numbering.
    pub async fn run(mut self, shared: Rc<Shared>) {
        let mut order = Order::default();
        loop {
            let Some(message) = self.stream.next().await else {
                if shared.done() {
                    return;
                }
                shared.stream_ended("connection closed".into());
                match subscribe(&self.client, &self.channel).await {
                    Ok(stream) => self.stream = stream,
                    Err(error) => {
                        shared.stream_ended(format!("subscribing again: {error}"));
                        return;
                    }
                }
                continue;
            };
            match Header::decode(shared.base, message.get_payload_bytes()) {
                Some(header) => {
                    shared.numbered(&mut order, header.number);
                    shared.delivered(header.due, header.sent);
                }
                None => shared.malformed(),
            }
        }
    }
}

async fn subscribe(client: &Client, channel: &str) -> Result<PubSubStream, String> {
    let mut pubsub = client
        .get_async_pubsub()
        .await
        .map_err(|e| format!("connecting: {e}"))?;
    pubsub
        .subscribe(channel)
        .await
        .map_err(|e| format!("SUBSCRIBE: {e}"))?;
    Ok(pubsub.into_on_message())
}
