//! Every limit over the wire: the right status, and nothing in the cache changes.

use crate::common;

use bytes::Bytes;
use common::{assert_status, TestServer};
use jiffy_server::proto::cache_client::*;
use jiffy_server::proto::control_client::CreateCacheRequest;
use tonic::Code;

const SMALL: &[&str] = &[
    "--max-key-size",
    "16B",
    "--max-value-size",
    "1KiB",
    "--max-request-size",
    "4KiB",
    "--max-memory",
    "1MiB",
    "--max-ttl",
    "1h",
    "--max-caches",
    "2",
];

fn set(key: &[u8], value: &[u8], ttl_ms: u64) -> SetRequest {
    SetRequest {
        cache_key: Bytes::copy_from_slice(key),
        cache_body: Bytes::copy_from_slice(value),
        ttl_milliseconds: ttl_ms,
    }
}

#[tokio::test]
async fn oversized_value_is_refused_and_the_old_value_stays() {
    let server = TestServer::with_args(SMALL).await;
    let mut c = server.cache("c").await;
    c.put(b"k", b"old").await;
    let status = assert_status(
        c.client.set(c.request(set(b"k", &[7; 1025], 60_000))).await,
        Code::ResourceExhausted,
        Some("item_size_limit_exceeded"),
    );
    assert!(status.message().contains("--max-value-size"));
    assert_eq!(c.value_of(b"k").await, "old");
    // Exactly at the limit is fine.
    c.put(b"k", &[7; 1024]).await;
}

#[tokio::test]
async fn oversized_key_is_invalid() {
    let server = TestServer::with_args(SMALL).await;
    let mut c = server.cache("c").await;
    let status = assert_status(
        c.client
            .set(c.request(set(&[b'k'; 17], b"v", 60_000)))
            .await,
        Code::InvalidArgument,
        None,
    );
    assert!(status.message().contains("--max-key-size"));
    let get = GetRequest {
        cache_key: Bytes::from_static(&[b'k'; 17]),
    };
    assert_status(
        c.client.get(c.request(get)).await,
        Code::InvalidArgument,
        None,
    );
    let empty = set(b"", b"v", 60_000);
    assert_status(
        c.client.set(c.request(empty)).await,
        Code::InvalidArgument,
        None,
    );
}

#[tokio::test]
async fn oversized_request_is_resource_exhausted() {
    let server = TestServer::with_args(SMALL).await;
    let mut c = server.cache("c").await;
    let items = (0..8u8)
        .map(|i| set(&[b'k', i], &[i; 1000], 60_000))
        .collect();
    let status = assert_status(
        c.client
            .set_batch(c.request(SetBatchRequest { items }))
            .await,
        Code::ResourceExhausted,
        Some("request_size_limit_exceeded"),
    );
    assert!(
        status.message().contains("--max-request-size"),
        "{status:?}"
    );
    assert_eq!(c.value_of(&[b'k', 0]).await, "");
    // The connection is still good for the next call.
    c.put(b"k", b"v").await;
}

#[tokio::test]
async fn a_batch_with_one_bad_item_changes_nothing() {
    let server = TestServer::with_args(SMALL).await;
    let mut c = server.cache("c").await;
    let items = vec![set(b"good", b"v", 60_000), set(b"bad", &[0; 2000], 60_000)];
    assert_status(
        c.client
            .set_batch(c.request(SetBatchRequest { items }))
            .await,
        Code::ResourceExhausted,
        Some("item_size_limit_exceeded"),
    );
    assert_eq!(c.value_of(b"good").await, "");
}

#[tokio::test]
async fn ttl_must_be_positive_and_within_the_limit() {
    let server = TestServer::with_args(SMALL).await;
    let mut c = server.cache("c").await;
    c.put(b"k", b"old").await;
    for ttl in [0, 3_600_001, u64::MAX] {
        let status = assert_status(
            c.client.set(c.request(set(b"k", b"new", ttl))).await,
            Code::InvalidArgument,
            None,
        );
        assert!(status.message().contains("TTL"), "{status:?}");
    }
    let increment = IncrementRequest {
        cache_key: "n".into(),
        amount: 1,
        ttl_milliseconds: 0,
    };
    assert_status(
        c.client.increment(c.request(increment)).await,
        Code::InvalidArgument,
        None,
    );
    assert_eq!(c.value_of(b"k").await, "old");
    assert_eq!(c.value_of(b"n").await, "");
}

#[tokio::test]
async fn cache_names_and_count_are_limited() {
    let server = TestServer::with_args(SMALL).await;
    let mut control = server.control().await;
    let create = |name: &str| CreateCacheRequest {
        cache_name: name.into(),
    };
    for bad in ["", "has space", "slash/name", &"x".repeat(256)] {
        assert_status(
            control.create_cache(create(bad)).await,
            Code::InvalidArgument,
            None,
        );
    }
    control.create_cache(create("one")).await.unwrap();
    control.create_cache(create("two")).await.unwrap();
    let status = assert_status(
        control.create_cache(create("three")).await,
        Code::ResourceExhausted,
        None,
    );
    assert!(status.message().contains("--max-caches"));
}

#[tokio::test]
async fn increment_overflow_changes_nothing() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    let max = i64::MAX.to_string();
    c.put(b"n", max.as_bytes()).await;
    let increment = IncrementRequest {
        cache_key: "n".into(),
        amount: 1,
        ttl_milliseconds: 60_000,
    };
    assert_status(
        c.client.increment(c.request(increment)).await,
        Code::FailedPrecondition,
        None,
    );
    assert_eq!(c.value_of(b"n").await, max.as_str());
}
