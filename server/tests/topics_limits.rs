//! Topics' limits and their statuses, the slow subscriber, auth, metrics,
//! fault injection and shutdown.

use crate::common;

use std::time::Duration;

use common::topics::{
    binary, publish, publish_request, subscription_request, text, Got, Pubsub, Reader,
};
use common::{assert_status, create_cache, sample, with_token, ServerProcess, TestServer};
use jiffy_server::auth::{CacheScope, Role, Secret};
use jiffy_server::proto::cache_client::pubsub::pubsub_client::PubsubClient;
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::CreateCacheRequest;
use jiffy_server::topics::SUBSCRIPTION_CHARGE;
use tonic::metadata::MetadataValue;
use tonic::transport::Endpoint;
use tonic::{Code, Request};

const CACHE: &str = "limits";

async fn start(args: &[&str]) -> (TestServer, Pubsub) {
    let server = TestServer::with_args(args).await;
    create_cache(&mut server.control().await, CACHE).await;
    let client = PubsubClient::new(server.channel().await);
    (server, client)
}

fn subscribe_request(
    cache: &str,
    topic: &str,
) -> Request<jiffy_server::proto::cache_client::pubsub::SubscriptionRequest> {
    Request::new(subscription_request(cache, topic, 0, 0))
}

#[tokio::test(flavor = "multi_thread")]
async fn subscriptions_per_cache_are_limited() {
    let (server, mut client) = start(&["--max-topic-subscriptions", "2"]).await;
    create_cache(&mut server.control().await, "other").await;
    let first = Reader::subscribe(&mut client, CACHE, "a").await;
    let _second = Reader::subscribe(&mut client, CACHE, "b").await;
    let refused = Reader::open(&mut client, subscribe_request(CACHE, "a")).await;
    let status = assert_status(
        refused.map(drop),
        Code::ResourceExhausted,
        Some("topic_subscriptions_limit_exceeded"),
    );
    assert!(
        status.message().contains("--max-topic-subscriptions"),
        "{status:?}"
    );
    // Each cache has its own count.
    let _elsewhere = Reader::subscribe(&mut client, "other", "a").await;
    // A closed subscription makes room, once the server has seen it go.
    drop(first);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        match Reader::open(&mut client, subscribe_request(CACHE, "c")).await {
            Ok(_) => break,
            Err(status) => assert_eq!(status.code(), Code::ResourceExhausted),
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the slot was not freed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn subscriptions_of_all_caches_are_limited_together() {
    let (server, mut client) = start(&["--max-subscriptions", "2"]).await;
    create_cache(&mut server.control().await, "other").await;
    let _first = Reader::subscribe(&mut client, CACHE, "a").await;
    let _second = Reader::subscribe(&mut client, "other", "a").await;
    let refused = Reader::open(&mut client, subscribe_request("other", "b")).await;
    let status = assert_status(
        refused.map(drop),
        Code::ResourceExhausted,
        Some("topic_subscriptions_limit_exceeded"),
    );
    assert!(
        status.message().contains("--max-subscriptions"),
        "{status:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn open_subscriptions_hold_their_share_of_the_in_flight_budget() {
    let (server, mut client) = start(&[
        "--max-in-flight-bytes",
        "256KiB",
        "--max-request-size",
        "64KiB",
    ])
    .await;
    let in_flight = |text: String| sample(&text, "jiffy_in_flight_bytes").unwrap_or(0.0);
    let before = in_flight(server.metrics().await);
    let mut open = Vec::new();
    let refused = loop {
        match Reader::open(&mut client, subscribe_request(CACHE, "t")).await {
            Ok(reader) => open.push(reader),
            Err(status) => break status,
        }
        // Before the 100 streams a connection may have open.
        assert!(open.len() < 90, "256 KiB never ran out");
    };
    // Held while the streams are open, not only until they opened.
    let held = in_flight(server.metrics().await) - before;
    assert!(
        held >= (open.len() * SUBSCRIPTION_CHARGE) as f64,
        "{held} bytes in flight for {} subscriptions",
        open.len()
    );
    assert!(open.len() * SUBSCRIPTION_CHARGE <= 256 << 10);
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert!(
        refused.message().contains("--max-in-flight-bytes"),
        "{refused:?}"
    );
    // Closed subscriptions give their share back.
    open.clear();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while in_flight(server.metrics().await) > before {
        assert!(
            std::time::Instant::now() < deadline,
            "shares never given back"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _again = Reader::subscribe(&mut client, CACHE, "t").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn messages_are_limited_in_size() {
    let (_server, mut client) = start(&["--max-topic-message-size", "1KiB"]).await;
    publish(&mut client, CACHE, "t", &"x".repeat(1024))
        .await
        .unwrap();
    for value in [text(&"x".repeat(1025)), binary(&[0; 1025])] {
        let refused = client.publish(publish_request(CACHE, "t", value)).await;
        let status = assert_status(
            refused,
            Code::ResourceExhausted,
            Some("request_size_limit_exceeded"),
        );
        assert!(
            status.message().contains("--max-topic-message-size"),
            "{status:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_buffer_is_limited_in_bytes() {
    let (_server, mut client) = start(&[
        "--topic-buffer-bytes",
        "4KiB",
        "--max-topic-message-size",
        "1KiB",
    ])
    .await;
    // 1,000 bytes and 128 of overhead each: three fit in 4 KiB, four do not.
    for _ in 0..10 {
        publish(&mut client, CACHE, "t", &"x".repeat(1000))
            .await
            .unwrap();
    }
    let request = Request::new(subscription_request(CACHE, "t", 1, 0));
    let mut reader = Reader::open(&mut client, request).await.unwrap();
    match reader.next_event().await.unwrap() {
        Some(Got::Discontinuity { last, new, .. }) => assert_eq!((last, new), (0, 7)),
        other => panic!("expected a discontinuity, got {other:?}"),
    }
    for n in 8..=10 {
        assert_eq!(reader.item().await.0, n);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn names_and_values_are_checked() {
    let (_server, mut client) = start(&[]).await;
    let long_topic = "t".repeat(256);
    for topic in ["", "new\nline", long_topic.as_str()] {
        let status = assert_status(
            publish(&mut client, CACHE, topic, "x").await,
            Code::InvalidArgument,
            None,
        );
        assert!(status.message().contains("topic name"), "{status:?}");
        let refused = client.subscribe(subscribe_request(CACHE, topic)).await;
        assert_status(refused, Code::InvalidArgument, None);
    }
    publish(&mut client, CACHE, &"t".repeat(255), "x")
        .await
        .unwrap();
    publish(&mut client, CACHE, "orders/created v2 ✓", "x")
        .await
        .unwrap();
    let no_value = client.publish(publish_request(CACHE, "t", None)).await;
    assert_status(no_value, Code::InvalidArgument, None);
    assert_status(
        publish(&mut client, "", "t", "x").await,
        Code::InvalidArgument,
        None,
    );
    // No cache can have this name: NOT_FOUND, as for any unknown cache,
    // without the whole name in the message.
    let huge = "c".repeat(10_000);
    let status = assert_status(
        publish(&mut client, &huge, "t", "x").await,
        Code::NotFound,
        None,
    );
    assert!(status.message().len() < 300, "{}", status.message().len());
}

#[tokio::test(flavor = "multi_thread")]
async fn list_caches_reports_the_topic_limits() {
    let (server, _client) = start(&[
        "--max-topic-subscriptions",
        "7",
        "--max-topic-message-size",
        "2KiB",
    ])
    .await;
    let caches = server.list_caches().await;
    let limits = caches[0].topic_limits.unwrap();
    assert_eq!(limits.max_subscription_count, 7);
    assert_eq!(limits.max_publish_message_size_kb, 2);
}

#[test]
fn the_limits_are_read_from_the_environment_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jiffy.toml");
    std::fs::write(&file, "max-topic-message-size = \"10B\"\n").unwrap();
    let file = file.to_str().unwrap().to_owned();
    let server = ServerProcess::spawn(
        &["--listen", "127.0.0.1:0", "--config", &file],
        &[("JIFFY_MAX_TOPIC_SUBSCRIPTIONS", "1")],
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let channel = Endpoint::from_shared(server.url())
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut control = ScsControlClient::new(channel.clone());
        let create = CreateCacheRequest {
            cache_name: CACHE.to_owned(),
        };
        control.create_cache(create).await.unwrap();
        let mut client = PubsubClient::new(channel);
        publish(&mut client, CACHE, "t", "0123456789")
            .await
            .unwrap();
        let refused = publish(&mut client, CACHE, "t", "0123456789a").await;
        assert_status(
            refused,
            Code::ResourceExhausted,
            Some("request_size_limit_exceeded"),
        );
        let _open = Reader::subscribe(&mut client, CACHE, "t").await;
        let refused = Reader::open(&mut client, subscribe_request(CACHE, "t")).await;
        assert_status(
            refused.map(drop),
            Code::ResourceExhausted,
            Some("topic_subscriptions_limit_exceeded"),
        );
    });
}

/// A subscriber that reads slower than the topic is published to: each
/// time it falls behind the buffer it is told by a discontinuity, and the
/// fourth time in a row its stream ends RESOURCE_EXHAUSTED. The publisher
/// is never held up. Its connection has a 64 KiB window, so the server
/// can push only about 16 of the 4 KiB messages ahead of its reading.
#[tokio::test(flavor = "multi_thread")]
async fn a_slow_subscriber_is_told_then_ended_and_never_slows_the_publisher() {
    let (server, mut publisher) = start(&["--topic-buffer-messages", "100"]).await;
    let channel = Endpoint::from_shared(server.url())
        .unwrap()
        .initial_stream_window_size(64 << 10)
        .initial_connection_window_size(64 << 10)
        .connect()
        .await
        .unwrap();
    let mut slow_client = PubsubClient::new(channel);
    let mut slow = Reader::subscribe(&mut slow_client, CACHE, "t").await;
    let value = "v".repeat(4 << 10);
    let mut falls = 0;
    for round in 0..4 {
        let started = std::time::Instant::now();
        for _ in 0..300 {
            publish(&mut publisher, CACHE, "t", &value).await.unwrap();
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "round {round}: the publisher was held up"
        );
        // Read until the server finds the subscriber behind its buffer.
        loop {
            match slow.next().await {
                Ok(Some(Got::Discontinuity { last, new, .. })) => {
                    assert!(new > last, "{last} -> {new}");
                    falls += 1;
                    break;
                }
                Ok(Some(_)) => continue,
                Ok(None) => panic!("the stream ended without a status"),
                Err(status) => {
                    assert_eq!(falls, 3, "ended after {falls} discontinuities");
                    assert_status::<()>(Err(status.clone()), Code::ResourceExhausted, None);
                    assert!(status.message().contains("too slow"), "{status:?}");
                    return;
                }
            }
        }
    }
    panic!("the slow subscriber was never ended ({falls} discontinuities)");
}

const SECRET: &[u8] = common::TEST_SECRET;

fn signed(caches: CacheScope, role: Role, subject: &str) -> String {
    common::signed_token(SECRET, caches, role, Some(subject))
}

#[tokio::test(flavor = "multi_thread")]
async fn publishing_needs_write_and_subscribing_read_on_the_cache() {
    let mut config = common::config(&[]);
    config.auth = Some(Secret::from_bytes(SECRET).unwrap());
    let server = TestServer::with_config(config).await;
    let admin = signed(CacheScope::All, Role::Admin, "ops");
    let mut control = server.control().await;
    for cache in [CACHE, "elsewhere"] {
        let create = CreateCacheRequest {
            cache_name: cache.to_owned(),
        };
        control
            .create_cache(with_token(create, &admin))
            .await
            .unwrap();
    }
    let mut client = PubsubClient::new(server.channel().await);
    let scope = || CacheScope::Names(vec![CACHE.to_owned()]);
    let reader = signed(scope(), Role::Read, "reader");
    let writer = signed(scope(), Role::Write, "writer");
    let publish_with =
        |cache: &str, token: &str| with_token(publish_request(cache, "t", text("x")), token);
    let subscribe_with =
        |cache: &str, token: &str| with_token(subscription_request(cache, "t", 0, 0), token);

    let mut stream = Reader::open(&mut client, subscribe_with(CACHE, &reader))
        .await
        .unwrap();
    let refused = client.publish(publish_with(CACHE, &reader)).await;
    assert_status(refused, Code::PermissionDenied, None);
    client.publish(publish_with(CACHE, &writer)).await.unwrap();
    match stream.next_event().await.unwrap() {
        Some(Got::Item { .. }) => {}
        other => panic!("expected the item, got {other:?}"),
    }
    // The publisher's id is its token's subject.
    let mut second = Reader::open(&mut client, subscribe_with(CACHE, &writer))
        .await
        .unwrap();
    let raw = second.stream.message().await.unwrap().unwrap();
    match raw.kind {
        Some(jiffy_server::proto::cache_client::pubsub::subscription_item::Kind::Item(item)) => {
            assert_eq!(item.publisher_id, "writer");
        }
        other => panic!("expected an item, got {other:?}"),
    }
    // Outside the token's caches; no token at all.
    let refused = client.publish(publish_with("elsewhere", &writer)).await;
    assert_status(refused, Code::PermissionDenied, None);
    let refused = client.subscribe(subscribe_with("elsewhere", &reader)).await;
    assert_status(refused, Code::PermissionDenied, None);
    let refused = client.publish(publish_request(CACHE, "t", text("x"))).await;
    assert_status(refused, Code::Unauthenticated, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_count_messages_subscribers_and_discontinuities() {
    let (server, mut client) = start(&["--topic-buffer-messages", "2"]).await;
    let metric = |text: &str, series: &str| sample(text, series).unwrap_or(0.0);
    let mut reader = Reader::subscribe(&mut client, CACHE, "t").await;
    let before = server.metrics().await;
    assert_eq!(metric(&before, "jiffy_topic_subscribers"), 1.0);
    for n in 1..=3 {
        publish(&mut client, CACHE, "t", &n.to_string())
            .await
            .unwrap();
        assert_eq!(reader.item().await.0, n);
    }
    // Resuming at 1 with 2 and 3 held: one discontinuity.
    let request = Request::new(subscription_request(CACHE, "t", 1, 0));
    let mut resumed = Reader::open(&mut client, request).await.unwrap();
    assert!(matches!(
        resumed.next_event().await.unwrap(),
        Some(Got::Discontinuity { .. })
    ));
    assert_eq!(resumed.item().await.0, 2);
    assert_eq!(resumed.item().await.0, 3);
    let after = server.metrics().await;
    assert_eq!(metric(&after, "jiffy_topic_messages_published_total"), 3.0);
    assert_eq!(metric(&after, "jiffy_topic_messages_delivered_total"), 5.0);
    assert_eq!(metric(&after, "jiffy_topic_discontinuities_total"), 1.0);
    assert_eq!(metric(&after, "jiffy_topic_subscribers"), 2.0);
    assert!(metric(&after, "jiffy_topic_memory_bytes") > 0.0);
    assert_eq!(
        metric(&after, "jiffy_topic_memory_limit_bytes"),
        (64 << 20) as f64
    );
    let published = r#"jiffy_requests_total{code="OK",rpc="Publish",transport="grpc"}"#;
    assert_eq!(metric(&after, published), 3.0);
    let subscribed = r#"jiffy_request_duration_seconds_count{rpc="Subscribe",transport="grpc"}"#;
    assert_eq!(metric(&after, subscribed), 2.0);
    drop((reader, resumed));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while metric(&server.metrics().await, "jiffy_topic_subscribers") != 0.0 {
        assert!(
            std::time::Instant::now() < deadline,
            "subscribers not released"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn with_headers<T>(message: T, headers: &[(&'static str, &str)]) -> Request<T> {
    let mut request = Request::new(message);
    for (name, value) in headers {
        request
            .metadata_mut()
            .insert(*name, MetadataValue::try_from(*value).unwrap());
    }
    request
}

#[tokio::test(flavor = "multi_thread")]
async fn fault_headers_fail_publishes_and_break_streams() {
    let (_server, mut client) = start(&["--enable-fault-injection"]).await;
    // momento-local's names for the calls.
    let failing = [
        ("return-error", "unavailable"),
        ("error-rpcs", "topic-publish"),
    ];
    let refused = client
        .publish(with_headers(
            publish_request(CACHE, "t", text("x")),
            &failing,
        ))
        .await;
    assert_status(refused, Code::Unavailable, None);
    // The first heartbeat and two items, then the stream ends UNAVAILABLE.
    let breaking = [
        ("stream-error", "unavailable"),
        ("stream-error-rpcs", "topic-subscribe"),
        ("stream-error-message-limit", "3"),
    ];
    let request = with_headers(subscription_request(CACHE, "t", 0, 0), &breaking);
    let mut reader = Reader::open(&mut client, request).await.unwrap();
    for n in 0..3 {
        publish(&mut client, CACHE, "t", &n.to_string())
            .await
            .unwrap();
    }
    assert_eq!(reader.item().await.0, 1);
    assert_eq!(reader.item().await.0, 2);
    assert_status::<()>(Err(reader.end().await), Code::Unavailable, None);
    // NOT_FOUND mid-stream, as a deleted cache would end it.
    let ending = [
        ("stream-error", "not-found"),
        ("stream-error-message-limit", "1"),
    ];
    let request = with_headers(subscription_request(CACHE, "t", 0, 0), &ending);
    let mut reader = Reader::open(&mut client, request).await.unwrap();
    assert_status::<()>(Err(reader.end().await), Code::NotFound, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_ends_open_subscriptions() {
    let (server, mut client) = start(&[]).await;
    let mut reader = Reader::subscribe(&mut client, CACHE, "t").await;
    let stopped = tokio::time::timeout(Duration::from_secs(5), server.stop()).await;
    assert!(stopped.is_ok(), "the server waited for the subscription");
    let status = reader.end().await;
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
}
