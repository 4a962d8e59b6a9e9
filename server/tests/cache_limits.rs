//! Per-cache limits (`--cache-calls-per-second`, ...,
//! `--cache-max-subscriptions` and the config file's `[caches.NAME]`): a
//! cache over its limit answers LIMIT_EXCEEDED with Momento's reason, on
//! every port, while other caches are served; ListCaches reports each
//! cache's limits; `jiffy_throttled_total` counts the refusals.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use jiffy_server::cache_limits::RateLimits;
use jiffy_server::proto::cache_client::{GetRequest, SetRequest};
use jiffy_server::proto::control_client::Cache;
use jiffy_server::proto::protosocket::cache::cache_response::Kind;
use tonic::Code;

use crate::common::protosocket::{get, Client};
use crate::common::redis_cluster::RedisCluster;
use crate::common::stores::{on_both_stores, RedisNode, Store};
use crate::common::topics::{publish, subscription_request, Pubsub, Reader};
use crate::common::{assert_status, config, create_cache, sample, Data, TestServer};

const OPERATIONS: &str = "operations_rate_limit_exceeded";
const THROUGHPUT: &str = "throughput_rate_limit_exceeded";
const SUBSCRIPTIONS: &str = "topic_subscriptions_limit_exceeded";

fn get_of(key: &str) -> GetRequest {
    GetRequest {
        cache_key: Bytes::copy_from_slice(key.as_bytes()),
    }
}

on_both_stores!(
    calls_over_a_caches_rate_are_refused_and_other_caches_served,
    subscriptions_over_a_caches_limit_are_refused_until_one_ends,
);

async fn calls_over_a_caches_rate_are_refused_and_other_caches_served(store: Store) {
    let (server, _redis) = store.start(&["--cache-calls-per-second", "5"]).await;
    let mut busy = server.cache("busy").await;
    let started = Instant::now();
    let mut admitted = 0;
    let mut refused = None;
    for _ in 0..50 {
        match busy.client.get(busy.request(get_of("k"))).await {
            Ok(_) => admitted += 1,
            Err(status) => refused = Some(status),
        }
    }
    // A bucket of 5, refilled at 5 a second while the loop ran.
    let allowed = 5 + (started.elapsed().as_secs_f64() * 5.0).ceil() as usize;
    assert!(
        admitted <= allowed,
        "{admitted} admitted, at most {allowed}"
    );
    let status = assert_status(
        Err::<(), _>(refused.expect("some refused")),
        Code::ResourceExhausted,
        Some(OPERATIONS),
    );
    assert!(status.message().contains("busy"), "{status:?}");
    // The other cache has its own bucket.
    let mut quiet = server.cache("quiet").await;
    quiet.client.get(quiet.request(get_of("k"))).await.unwrap();
    let metrics = server.metrics().await;
    let throttled = sample(
        &metrics,
        "jiffy_throttled_total{cache=\"busy\",limit=\"calls\"}",
    );
    assert_eq!(throttled, Some((50 - admitted) as f64), "{metrics}");
    assert_eq!(
        sample(
            &metrics,
            "jiffy_throttled_total{cache=\"quiet\",limit=\"calls\"}"
        ),
        None
    );
}

/// A server whose cache `small` may move 1 KiB a second and publish twice
/// a second, and `other` takes the unlimited defaults.
async fn small_cache_server(args: &[&str]) -> TestServer {
    let mut config = config(args);
    config.cache_limits.per_cache.insert(
        "small".into(),
        RateLimits {
            max_calls_per_second: None,
            max_bytes_per_second: Some(1024),
            max_publishes_per_second: Some(2),
            max_subscriptions: None,
        },
    );
    let server = TestServer::with_config(config).await;
    let mut control = server.control().await;
    create_cache(&mut control, "small").await;
    create_cache(&mut control, "other").await;
    server
}

/// The caches ListCaches answers, by name.
async fn listed(server: &TestServer) -> HashMap<String, Cache> {
    server
        .list_caches()
        .await
        .into_iter()
        .map(|cache| (cache.cache_name.clone(), cache))
        .collect()
}

/// A client of the cache `name`, made already.
async fn data(server: &TestServer, name: &str) -> Data {
    Data {
        client: server.data().await,
        cache: name.to_owned(),
    }
}

#[tokio::test]
async fn bytes_over_a_caches_own_rate_are_refused() {
    let server = small_cache_server(&[]).await;
    let mut small = data(&server, "small").await;
    let set = SetRequest {
        cache_key: Bytes::from_static(b"k"),
        cache_body: Bytes::from(vec![7u8; 3000]),
        ttl_milliseconds: 60_000,
    };
    // Admitted while the bucket holds anything; the charge leaves it in debt.
    small.client.set(small.request(set.clone())).await.unwrap();
    let refused = small.client.get(small.request(get_of("k"))).await;
    let status = assert_status(refused, Code::ResourceExhausted, Some(THROUGHPUT));
    assert!(
        status.message().contains("1024 bytes a second"),
        "{status:?}"
    );
    let mut other = data(&server, "other").await;
    for _ in 0..5 {
        other.client.set(other.request(set.clone())).await.unwrap();
    }
}

#[tokio::test]
async fn publishes_over_a_caches_rate_are_refused() {
    let server = small_cache_server(&[]).await;
    let mut pubsub = Pubsub::new(server.channel().await);
    publish(&mut pubsub, "small", "t", "1").await.unwrap();
    publish(&mut pubsub, "small", "t", "2").await.unwrap();
    let refused = publish(&mut pubsub, "small", "t", "3").await;
    assert_status(refused, Code::ResourceExhausted, Some(OPERATIONS));
    for n in 0..5 {
        publish(&mut pubsub, "other", "t", &n.to_string())
            .await
            .unwrap();
    }
    let metrics = server.metrics().await;
    let throttled = sample(
        &metrics,
        "jiffy_throttled_total{cache=\"small\",limit=\"publishes\"}",
    );
    assert_eq!(throttled, Some(1.0), "{metrics}");
}

#[tokio::test]
async fn list_caches_reports_each_caches_limits() {
    let server = small_cache_server(&["--cache-calls-per-second", "300"]).await;
    let caches = listed(&server).await;
    let limits = |name: &str| {
        let cache = &caches[name];
        let own = cache.cache_limits.unwrap();
        let topics = cache.topic_limits.unwrap();
        (
            own.max_traffic_rate,
            own.max_throughput_kbps,
            topics.max_publish_rate,
        )
    };
    assert_eq!(limits("small"), (300, 1, 2));
    assert_eq!(limits("other"), (300, 0, 0), "0: unlimited");
}

#[tokio::test]
async fn the_protosocket_port_is_limited_alike() {
    let mut config = config(&[
        "--protosocket-listen",
        "127.0.0.1:0",
        "--cache-calls-per-second",
        "2",
    ]);
    config.cache_limits.per_cache.insert(
        "roomy".into(),
        RateLimits {
            max_calls_per_second: Some(1_000),
            ..RateLimits::default()
        },
    );
    let server = TestServer::with_config(config).await;
    let mut control = server.control().await;
    create_cache(&mut control, "tight").await;
    create_cache(&mut control, "roomy").await;
    let mut client = Client::open(server.protosocket_addr.unwrap(), "").await;
    let mut refusals = Vec::new();
    for id in 1..=10 {
        match client.call(id, get("tight", "k")).await {
            Kind::Error(error) if error.reason == OPERATIONS => refusals.push(error),
            Kind::Error(error) => assert_eq!(error.message, "Key not found"),
            other => panic!("{other:?}"),
        }
    }
    let admitted = 10 - refusals.len();
    assert!(admitted <= 3, "a bucket of 2 admitted {admitted} calls");
    assert!(refusals[0].message.contains("`tight`"), "{refusals:?}");
    for id in 11..=20 {
        let answer = client.call(id, get("roomy", "k")).await;
        let Kind::Error(error) = answer else { continue };
        assert_ne!(error.reason, OPERATIONS, "its own limit is 1,000 a second");
    }
}

/// Two front-ends over one Redis draw on one bucket per cache: together
/// they admit the limit, not twice it (`cache_limits/lease.rs` has the
/// tolerance: a lease of a tenth of a second each on credit).
#[tokio::test(flavor = "multi_thread")]
async fn front_ends_over_one_redis_share_a_caches_limit() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _redis = RedisNode::start(port).await;
    let url = format!("redis://127.0.0.1:{port}");
    let args = ["--store", &url, "--cache-calls-per-second", "20"];
    let first = TestServer::with_args(&args).await;
    let second = TestServer::with_args(&args).await;
    let mut clients = [first.cache("shared").await, data(&second, "shared").await];
    let started = Instant::now();
    let mut admitted = [0, 0];
    for n in 0..400 {
        let client = &mut clients[n % 2];
        match client.client.get(client.request(get_of("k"))).await {
            Ok(_) => admitted[n % 2] += 1,
            Err(status) => {
                assert_status(
                    Err::<(), _>(status),
                    Code::ResourceExhausted,
                    Some(OPERATIONS),
                );
            }
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    // One second's burst, the refill, and each front-end's lease on credit.
    let allowed = 20 + (elapsed * 20.0).ceil() as usize + 2 * 2 + 2;
    let total = admitted[0] + admitted[1];
    assert!(
        total <= allowed,
        "{admitted:?} admitted in {elapsed:.2} s, at most {allowed} together"
    );
    assert!(admitted.iter().all(|&n| n > 0), "{admitted:?}");
}

/// Subscribes to `topic` of `cache`; the refusal, if any.
async fn subscribe(client: &mut Pubsub, cache: &str, topic: &str) -> Result<Reader, tonic::Status> {
    Reader::open(
        client,
        tonic::Request::new(subscription_request(cache, topic, 0, 0)),
    )
    .await
}

/// Subscribes until admitted: a slot given back is counted as free once
/// the count has been lowered (over Redis, by a script run after the
/// stream ends).
async fn subscribe_once_free(client: &mut Pubsub, cache: &str) -> Reader {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match subscribe(client, cache, "t").await {
            Ok(reader) => return reader,
            Err(status) if Instant::now() < deadline => {
                assert_status(
                    Err::<(), _>(status),
                    Code::ResourceExhausted,
                    Some(SUBSCRIPTIONS),
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(status) => panic!("the slot was not given back: {status:?}"),
        }
    }
}

async fn subscriptions_over_a_caches_limit_are_refused_until_one_ends(store: Store) {
    let (server, _redis) = store.start(&["--cache-max-subscriptions", "2"]).await;
    let mut control = server.control().await;
    create_cache(&mut control, "busy").await;
    create_cache(&mut control, "quiet").await;
    let mut client = Pubsub::new(server.channel().await);
    let first = subscribe(&mut client, "busy", "a").await.unwrap();
    let _second = subscribe(&mut client, "busy", "b").await.unwrap();
    // The limit is the cache's, whatever the topic.
    let refused = subscribe(&mut client, "busy", "c").await.map(drop);
    let status = assert_status(refused, Code::ResourceExhausted, Some(SUBSCRIPTIONS));
    assert!(status.message().contains("`busy`"), "{status:?}");
    assert!(status.message().contains("subscribers"), "{status:?}");
    // Another cache has its own count.
    let _quiet = subscribe(&mut client, "quiet", "a").await.unwrap();
    let metrics = server.metrics().await;
    let throttled = sample(
        &metrics,
        "jiffy_throttled_total{cache=\"busy\",limit=\"subscriptions\"}",
    );
    assert_eq!(throttled, Some(1.0), "{metrics}");
    // A subscription that ends gives its slot back.
    drop(first);
    let _again = subscribe_once_free(&mut client, "busy").await;
    let busy = &listed(&server).await["busy"];
    assert_eq!(busy.topic_limits.unwrap().max_subscription_count, 2);
}

/// Two front-ends over one Redis Cluster count a cache's subscriptions
/// together: what one holds open, the other cannot open, and a slot one
/// gives back the other can take.
#[tokio::test(flavor = "multi_thread")]
async fn front_ends_over_a_redis_cluster_share_a_caches_subscriptions() {
    let cluster = RedisCluster::start().await;
    let url = cluster.store_url();
    let args = ["--store", &url, "--cache-max-subscriptions", "3"];
    let servers = [
        TestServer::with_args(&args).await,
        TestServer::with_args(&args).await,
    ];
    create_cache(&mut servers[0].control().await, "shared").await;
    let mut first = Pubsub::new(servers[0].channel().await);
    let mut second = Pubsub::new(servers[1].channel().await);
    let held = [
        subscribe(&mut first, "shared", "a").await.unwrap(),
        subscribe(&mut first, "shared", "b").await.unwrap(),
    ];
    let _third = subscribe(&mut second, "shared", "a").await.unwrap();
    for client in [&mut first, &mut second] {
        let refused = subscribe(client, "shared", "c").await.map(drop);
        assert_status(refused, Code::ResourceExhausted, Some(SUBSCRIPTIONS));
    }
    drop(held);
    let _again = [
        subscribe_once_free(&mut second, "shared").await,
        subscribe_once_free(&mut second, "shared").await,
    ];
    let refused = subscribe(&mut first, "shared", "c").await.map(drop);
    assert_status(refused, Code::ResourceExhausted, Some(SUBSCRIPTIONS));
}
