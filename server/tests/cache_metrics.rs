//! Per-cache metrics: calls, hits and misses by the cache they named, on
//! both ports, for caches that exist only, gone with their cache.

use crate::common;

use common::protosocket::{get, Client};
use common::stores::{on_both_stores, Store};
use common::{in_cache, sample, TestServer};
use jiffy_server::proto::cache_client::{GetBatchRequest, GetRequest, SetRequest};
use jiffy_server::proto::control_client::DeleteCacheRequest;

const CALLS: &str = "jiffy_cache_calls_total";
const LOOKUPS: &str = "jiffy_cache_lookups_total";

fn calls(text: &str, cache: &str) -> Option<f64> {
    sample(text, &format!("{CALLS}{{cache=\"{cache}\"}}"))
}

fn lookups(text: &str, cache: &str, result: &str) -> Option<f64> {
    sample(
        text,
        &format!("{LOOKUPS}{{cache=\"{cache}\",result=\"{result}\"}}"),
    )
}

fn get_request(key: &str) -> GetRequest {
    GetRequest {
        cache_key: key.as_bytes().to_vec().into(),
    }
}

#[tokio::test]
async fn calls_hits_and_misses_are_counted_by_cache_on_both_ports() {
    let server = TestServer::with_args(&["--protosocket-listen", "127.0.0.1:0"]).await;
    let mut a = server.cache("a").await;
    let mut b = server.cache("b").await;
    // a: Set, Get (hit), Get (miss), GetBatch of 3 keys (2 hits, 1 miss).
    a.put(b"k", b"v").await;
    a.client.get(a.request(get_request("k"))).await.unwrap();
    a.client.get(a.request(get_request("x"))).await.unwrap();
    let items = ["k", "x", "k"].map(get_request).to_vec();
    let mut batch = a
        .client
        .get_batch(a.request(GetBatchRequest { items }))
        .await
        .unwrap()
        .into_inner();
    while batch.message().await.unwrap().is_some() {}
    // b: one miss over gRPC, one over protosocket.
    b.client.get(b.request(get_request("k"))).await.unwrap();
    let port = server.protosocket_addr.unwrap();
    let mut protosocket = Client::open(port, "any token, auth is off").await;
    protosocket.call(1, get("b", "k")).await;

    let text = server.metrics().await;
    assert_eq!(calls(&text, "a"), Some(4.0), "{text}");
    assert_eq!(lookups(&text, "a", "hit"), Some(3.0), "{text}");
    assert_eq!(lookups(&text, "a", "miss"), Some(2.0), "{text}");
    assert_eq!(calls(&text, "b"), Some(2.0), "{text}");
    assert_eq!(lookups(&text, "b", "hit"), Some(0.0), "{text}");
    assert_eq!(lookups(&text, "b", "miss"), Some(2.0), "{text}");
    // The totals over all caches are as before.
    assert_eq!(sample(&text, "jiffy_cache_hits_total"), Some(3.0));
    assert_eq!(sample(&text, "jiffy_cache_misses_total"), Some(4.0));
}

#[tokio::test]
async fn deleting_a_cache_removes_its_series() {
    let server = TestServer::start().await;
    let mut kept = server.cache("kept").await;
    let mut gone = server.cache("gone").await;
    kept.put(b"k", b"v").await;
    gone.put(b"k", b"v").await;
    gone.client
        .get(gone.request(get_request("k")))
        .await
        .unwrap();
    let text = server.metrics().await;
    assert_eq!(calls(&text, "gone"), Some(2.0), "{text}");
    assert_eq!(lookups(&text, "gone", "hit"), Some(1.0), "{text}");

    server
        .control()
        .await
        .delete_cache(DeleteCacheRequest {
            cache_name: "gone".into(),
        })
        .await
        .unwrap();
    let text = server.metrics().await;
    assert!(!text.contains("cache=\"gone\""), "{text}");
    assert_eq!(calls(&text, "kept"), Some(1.0), "{text}");
}

/// Calls naming a cache that does not exist make no series, on either
/// store (over Redis a name resolves before the store is asked whether
/// the cache exists).
async fn calls_on_a_missing_cache_make_no_series(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut c = server.cache("c").await;
    c.put(b"k", b"v").await;
    let set = SetRequest {
        cache_key: "k".into(),
        cache_body: "v".into(),
        ttl_milliseconds: 60_000,
    };
    let missing = c.client.set(in_cache("no-such-cache", set)).await;
    assert_eq!(missing.unwrap_err().code(), tonic::Code::NotFound);
    let missing = c
        .client
        .get(in_cache("no-such-cache", get_request("k")))
        .await;
    assert_eq!(missing.unwrap_err().code(), tonic::Code::NotFound);

    let text = server.metrics().await;
    assert!(!text.contains("no-such-cache"), "{text}");
    assert_eq!(calls(&text, "c"), Some(1.0), "{text}");
    assert_eq!(lookups(&text, "c", "miss"), Some(0.0), "{text}");
}

on_both_stores!(calls_on_a_missing_cache_make_no_series);
