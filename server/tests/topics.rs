//! Topics on one server, over each store: order and numbering, two
//! subscribers, where a subscription starts and resumes, discontinuities,
//! heartbeats, and what deleting and flushing a cache do.

use crate::common;

use std::time::{Duration, Instant};

use common::stores::{on_both_stores, Store};
use common::topics::{
    binary, publish, publish_request, subscription_request, text, Got, Pubsub, Reader,
};
use common::{assert_status, create_cache, TestServer};
use jiffy_server::proto::cache_client::pubsub::pubsub_client::PubsubClient;
use jiffy_server::proto::cache_client::pubsub::topic_value::Kind;
use jiffy_server::proto::control_client::{DeleteCacheRequest, FlushCacheRequest};
use tonic::{Code, Request};

const CACHE: &str = "topics";

/// A server on `store` with `args`, its cache made, and a topic client.
async fn start(
    store: Store,
    args: &[&str],
) -> (TestServer, Option<common::stores::RedisNode>, Pubsub) {
    let (server, redis) = store.start(args).await;
    create_cache(&mut server.control().await, CACHE).await;
    let client = PubsubClient::new(server.channel().await);
    (server, redis, client)
}

async fn resume_at(client: &mut Pubsub, topic: &str, seq: u64, page: u64) -> Reader {
    let request = Request::new(subscription_request(CACHE, topic, seq, page));
    Reader::open(client, request).await.unwrap()
}

async fn messages_arrive_in_order_numbered_from_one(store: Store) {
    let (_server, _redis, mut client) = start(store, &[]).await;
    let mut reader = Reader::subscribe(&mut client, CACHE, "orders").await;
    for n in 1..=50 {
        let value = if n % 2 == 0 {
            text(&format!("m{n}"))
        } else {
            binary(format!("m{n}").as_bytes())
        };
        client
            .publish(publish_request(CACHE, "orders", value))
            .await
            .unwrap();
    }
    let mut page = None;
    for n in 1..=50u64 {
        match reader.next_event().await.unwrap() {
            Some(Got::Item {
                seq,
                page: p,
                value,
            }) => {
                assert_eq!(seq, n);
                assert_eq!(*page.get_or_insert(p), p, "one page");
                let expected = format!("m{n}");
                match value {
                    Kind::Text(text) => assert!(n % 2 == 0 && text == expected),
                    Kind::Binary(bytes) => assert!(n % 2 == 1 && bytes == expected.as_bytes()),
                }
            }
            other => panic!("expected item {n}, got {other:?}"),
        }
    }
    assert!(page.unwrap() > 0);
}

async fn two_subscribers_see_the_same_numbers(store: Store) {
    let (server, _redis, mut client) = start(store, &[]).await;
    let mut other_client = PubsubClient::new(server.channel().await);
    let mut first = Reader::subscribe(&mut client, CACHE, "t").await;
    let mut second = Reader::subscribe(&mut other_client, CACHE, "t").await;
    for n in 0..20 {
        publish(&mut client, CACHE, "t", &n.to_string())
            .await
            .unwrap();
    }
    for _ in 0..20 {
        assert_eq!(first.item().await, second.item().await);
    }
    // Another topic of the cache numbers its own messages.
    publish(&mut client, CACHE, "other", "x").await.unwrap();
    let mut elsewhere = Reader::subscribe(&mut client, CACHE, "other").await;
    assert_eq!(elsewhere.item().await.0, 1);
}

async fn a_new_subscription_starts_with_the_newest_message(store: Store) {
    let (_server, _redis, mut client) = start(store, &[]).await;
    for value in ["a", "b", "c"] {
        publish(&mut client, CACHE, "t", value).await.unwrap();
    }
    let mut reader = Reader::subscribe(&mut client, CACHE, "t").await;
    let (seq, _, value) = reader.item().await;
    assert_eq!((seq, value.as_str()), (3, "c"));
    publish(&mut client, CACHE, "t", "d").await.unwrap();
    assert_eq!(reader.item().await.0, 4);
}

async fn resuming_replays_from_the_number_asked(store: Store) {
    let (_server, _redis, mut client) = start(store, &[]).await;
    for n in 1..=10 {
        publish(&mut client, CACHE, "t", &format!("m{n}"))
            .await
            .unwrap();
    }
    let page = Reader::subscribe(&mut client, CACHE, "t")
        .await
        .item()
        .await
        .1;
    let mut reader = resume_at(&mut client, "t", 4, page).await;
    for n in 4..=10 {
        assert_eq!(reader.item().await, (n, page, format!("m{n}")));
    }
    // Page 0 means the current page.
    let mut reader = resume_at(&mut client, "t", 9, 0).await;
    assert_eq!(reader.item().await.0, 9);
    // The next number: nothing replayed, the next publish comes.
    let mut reader = resume_at(&mut client, "t", 11, page).await;
    publish(&mut client, CACHE, "t", "m11").await.unwrap();
    assert_eq!(reader.item().await.0, 11);
}

async fn resuming_on_another_page_says_so_and_replays_what_is_held(store: Store) {
    let (_server, _redis, mut client) = start(store, &[]).await;
    publish(&mut client, CACHE, "t", "first").await.unwrap();
    let mut reader = resume_at(&mut client, "t", 300, 5_435_435).await;
    match reader.next_event().await.unwrap() {
        Some(Got::Discontinuity { last, new, page }) => {
            assert_eq!((last, new), (299, 0));
            assert_ne!(page, 5_435_435);
        }
        other => panic!("expected a discontinuity, got {other:?}"),
    }
    assert_eq!(reader.item().await.2, "first");
}

async fn resuming_past_the_buffer_is_a_discontinuity(store: Store) {
    let (_server, _redis, mut client) = start(store, &["--topic-buffer-messages", "5"]).await;
    for n in 1..=20 {
        publish(&mut client, CACHE, "t", &format!("m{n}"))
            .await
            .unwrap();
    }
    let mut reader = resume_at(&mut client, "t", 3, 0).await;
    match reader.next_event().await.unwrap() {
        Some(Got::Discontinuity { last, new, .. }) => assert_eq!((last, new), (2, 15)),
        other => panic!("expected a discontinuity, got {other:?}"),
    }
    for n in 16..=20 {
        assert_eq!(reader.item().await.0, n);
    }
}

async fn quiet_subscriptions_get_heartbeats(store: Store) {
    let (_server, _redis, mut client) =
        start(store, &["--topic-heartbeat-interval", "200ms"]).await;
    let mut reader = Reader::subscribe(&mut client, CACHE, "t").await;
    let started = Instant::now();
    for _ in 0..5 {
        assert_eq!(reader.next().await.unwrap(), Some(Got::Heartbeat));
    }
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900),
        "5 heartbeats in {took:?}"
    );
    assert!(took < Duration::from_secs(4), "5 heartbeats in {took:?}");
    // A busy topic needs none: once items flow, every message is one.
    for n in 0..20 {
        publish(&mut client, CACHE, "t", &n.to_string())
            .await
            .unwrap();
    }
    assert_eq!(reader.item().await.0, 1);
    for n in 2..=20 {
        match reader.next().await.unwrap() {
            Some(Got::Item { seq, .. }) => assert_eq!(seq, n),
            other => panic!("expected item {n}, got {other:?}"),
        }
    }
}

async fn deleting_the_cache_ends_subscriptions_with_not_found(store: Store) {
    let (server, _redis, mut client) = start(store, &[]).await;
    let mut reader = Reader::subscribe(&mut client, CACHE, "t").await;
    let deleted = DeleteCacheRequest {
        cache_name: CACHE.to_owned(),
    };
    server.control().await.delete_cache(deleted).await.unwrap();
    let status = reader.end().await;
    assert_status::<()>(Err(status), Code::NotFound, None);
    // A missing cache: NOT_FOUND for both calls, no `err` trailer.
    assert_status(
        publish(&mut client, CACHE, "t", "x").await,
        Code::NotFound,
        None,
    );
    let request = Request::new(subscription_request(CACHE, "t", 0, 0));
    assert_status(client.subscribe(request).await, Code::NotFound, None);
    // A cache made again starts its topics afresh.
    create_cache(&mut server.control().await, CACHE).await;
    publish(&mut client, CACHE, "t", "new").await.unwrap();
    let mut reader = Reader::subscribe(&mut client, CACHE, "t").await;
    assert_eq!(reader.item().await.0, 1);
}

async fn flushing_the_cache_starts_its_topics_on_a_new_page(store: Store) {
    let (server, _redis, mut client) = start(store, &[]).await;
    let mut reader = Reader::subscribe(&mut client, CACHE, "t").await;
    publish(&mut client, CACHE, "t", "before").await.unwrap();
    let (seq, old_page, _) = reader.item().await;
    assert_eq!(seq, 1);
    let flush = FlushCacheRequest {
        cache_name: CACHE.to_owned(),
    };
    server.control().await.flush_cache(flush).await.unwrap();
    publish(&mut client, CACHE, "t", "after").await.unwrap();
    match reader.next_event().await.unwrap() {
        Some(Got::Discontinuity { last, page, .. }) => {
            assert_eq!(last, 1);
            assert!(page > old_page, "pages grow: {page} after {old_page}");
        }
        other => panic!("expected a discontinuity, got {other:?}"),
    }
    let (seq, page, value) = reader.item().await;
    assert_eq!((seq, value.as_str()), (1, "after"));
    assert!(page > old_page);
}

on_both_stores!(
    messages_arrive_in_order_numbered_from_one,
    two_subscribers_see_the_same_numbers,
    a_new_subscription_starts_with_the_newest_message,
    resuming_replays_from_the_number_asked,
    resuming_on_another_page_says_so_and_replays_what_is_held,
    resuming_past_the_buffer_is_a_discontinuity,
    quiet_subscriptions_get_heartbeats,
    deleting_the_cache_ends_subscriptions_with_not_found,
    flushing_the_cache_starts_its_topics_on_a_new_page,
);
