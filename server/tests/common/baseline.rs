//! A known state to check bad requests against: two caches and a few items,
//! set up before the bad request and checked, all of it, afterwards.

use std::net::SocketAddr;

use bytes::Bytes;
use jiffy_server::proto::cache_client::ping_client::PingClient;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{
    item_get_ttl_response, GetRequest, ItemGetTtlRequest, PingRequest, SetRequest,
};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::ListCachesRequest;
use tonic::transport::{Channel, Endpoint};

use super::{create_cache, in_cache, sample, scrape};

pub const CACHE: &str = "c";
pub const OTHER_CACHE: &str = "other";
/// The TTL of every baseline item: within the tests' `--max-ttl 1h`.
pub const TTL_MS: u64 = 600_000;

/// (cache, key, value) of every baseline item.
pub const ITEMS: &[(&str, &str, &str)] = &[
    (CACHE, "k", "old"),
    (CACHE, "n", "10"),
    (OTHER_CACHE, "k", "other-value"),
];

/// The baseline, and the connection it was written over (kept open so the
/// check can tell whether a bad request broke the connection it came on).
pub struct Baseline {
    url: String,
    metrics: Option<SocketAddr>,
    pub channel: Channel,
    /// `jiffy_connections_total` once the baseline was written.
    connections: Option<f64>,
}

async fn connections_accepted(metrics: SocketAddr) -> f64 {
    sample(&scrape(metrics).await, "jiffy_connections_total").expect("jiffy_connections_total")
}

pub async fn connect(url: &str) -> Channel {
    Endpoint::from_shared(url.to_owned())
        .unwrap()
        .connect()
        .await
        .unwrap()
}

impl Baseline {
    /// Creates the caches and items on the server at `url`; `metrics` is its
    /// metrics address, when it has one, for the item count.
    pub async fn create(url: &str, metrics: Option<SocketAddr>) -> Baseline {
        let channel = connect(url).await;
        let mut control = ScsControlClient::new(channel.clone());
        create_cache(&mut control, CACHE).await;
        create_cache(&mut control, OTHER_CACHE).await;
        let mut data = ScsClient::new(channel.clone());
        for (cache, key, value) in ITEMS {
            let set = SetRequest {
                cache_key: Bytes::from_static(key.as_bytes()),
                cache_body: Bytes::from_static(value.as_bytes()),
                ttl_milliseconds: TTL_MS,
            };
            data.set(in_cache(cache, set)).await.unwrap();
        }
        let connections = match metrics {
            Some(metrics) => Some(connections_accepted(metrics).await),
            None => None,
        };
        Baseline {
            url: url.to_owned(),
            metrics,
            channel,
            connections,
        }
    }

    /// Panics if the server has accepted a connection since the baseline was
    /// written: every call since came, and was answered, on the baseline's
    /// connection, which a bad request did not break (a channel reconnects
    /// silently, so only the server's count can tell).
    pub async fn assert_connection_kept(&self) {
        let metrics = self.metrics.expect("the server's metrics address");
        let now = connections_accepted(metrics).await;
        assert_eq!(
            Some(now),
            self.connections,
            "the server accepted new connections"
        );
    }

    /// A data-plane client on the baseline's connection.
    pub fn data(&self) -> ScsClient<Channel> {
        ScsClient::new(self.channel.clone())
    }

    pub fn control(&self) -> ScsControlClient<Channel> {
        ScsControlClient::new(self.channel.clone())
    }

    /// Panics unless everything is as [`Baseline::create`] left it, read over
    /// the baseline's connection and over a new one.
    pub async fn assert_unchanged(&self) {
        self.assert_unchanged_over(self.channel.clone()).await;
        self.assert_unchanged_over(connect(&self.url).await).await;
    }

    async fn assert_unchanged_over(&self, channel: Channel) {
        PingClient::new(channel.clone())
            .ping(PingRequest {})
            .await
            .expect("the server should still answer a ping");
        let mut data = ScsClient::new(channel.clone());
        for (cache, key, value) in ITEMS {
            let get = GetRequest {
                cache_key: Bytes::from_static(key.as_bytes()),
            };
            let got = data.get(in_cache(cache, get)).await.unwrap().into_inner();
            assert_eq!(got.cache_body, value.as_bytes(), "{cache}/{key} changed");
            let ttl = ItemGetTtlRequest {
                cache_key: Bytes::from_static(key.as_bytes()),
            };
            let left = match data
                .item_get_ttl(in_cache(cache, ttl))
                .await
                .unwrap()
                .into_inner()
                .result
            {
                Some(item_get_ttl_response::Result::Found(found)) => found.remaining_ttl_millis,
                other => panic!("{cache}/{key} has no TTL: {other:?}"),
            };
            // A test takes seconds, so a TTL outside this range was changed.
            assert!(
                (TTL_MS - 60_000..=TTL_MS).contains(&left),
                "the TTL of {cache}/{key} changed: {left} ms left"
            );
        }
        let caches = ScsControlClient::new(channel)
            .list_caches(ListCachesRequest::default())
            .await
            .unwrap()
            .into_inner()
            .cache;
        let names: Vec<_> = caches.iter().map(|c| c.cache_name.as_str()).collect();
        assert_eq!(names, [CACHE, OTHER_CACHE], "the caches changed");
        if let Some(metrics) = self.metrics {
            let items = sample(&scrape(metrics).await, "jiffy_items");
            assert_eq!(items, Some(ITEMS.len() as f64), "items were added or lost");
        }
    }
}
