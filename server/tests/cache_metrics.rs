//! Per-cache metrics: calls, hits and misses by the cache they named, on
//! both ports, for caches that exist only, gone with their cache.

use crate::common;

use common::protosocket::{get, Client};
use common::stores::{on_both_stores, Store};
use common::{in_cache, sample, TestServer};
use jiffy_server::proto::cache_client::{DeleteRequest, ListPushBackRequest};
use jiffy_server::proto::cache_client::{GetBatchRequest, GetRequest, SetRequest};
use jiffy_server::proto::control_client::{DeleteCacheRequest, FlushCacheRequest};

const CALLS: &str = "jiffy_cache_calls_total";
const LOOKUPS: &str = "jiffy_cache_lookups_total";
const ITEMS: &str = "jiffy_cache_items";
const BYTES: &str = "jiffy_cache_memory_bytes";

fn usage(text: &str, cache: &str) -> (Option<f64>, Option<f64>) {
    let series = |name: &str| sample(text, &format!("{name}{{cache=\"{cache}\"}}"));
    (series(ITEMS), series(BYTES))
}

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

/// Items and charged bytes by cache add up to the store's totals, follow
/// writes, deletes and a flush, and go with a deleted cache.
#[tokio::test]
async fn items_and_bytes_are_reported_by_cache() {
    let server = TestServer::start().await;
    let mut a = server.cache("a").await;
    let mut b = server.cache("b").await;
    let _empty = server.cache("empty").await;
    a.put(b"k1", &[7; 1000]).await;
    a.put(b"k2", b"v").await;
    let push = ListPushBackRequest {
        list_name: "list".into(),
        value: "element".into(),
        ttl_milliseconds: 60_000,
        refresh_ttl: true,
        truncate_front_to_size: 0,
    };
    a.client.list_push_back(a.request(push)).await.unwrap();
    b.put(b"k", b"v").await;

    let text = server.metrics().await;
    let (a_items, a_bytes) = usage(&text, "a");
    let (b_items, b_bytes) = usage(&text, "b");
    assert_eq!(a_items, Some(3.0), "{text}");
    assert_eq!(b_items, Some(1.0), "{text}");
    assert_eq!(usage(&text, "empty"), (Some(0.0), Some(0.0)), "{text}");
    let (a_bytes, b_bytes) = (a_bytes.unwrap(), b_bytes.unwrap());
    assert!(a_bytes > b_bytes + 1000.0 && b_bytes > 0.0, "{text}");
    assert_eq!(Some(a_bytes + b_bytes), sample(&text, "jiffy_memory_bytes"));
    assert_eq!(Some(4.0), sample(&text, "jiffy_items"));

    let delete = DeleteRequest {
        cache_key: "k1".into(),
    };
    a.client.delete(a.request(delete)).await.unwrap();
    let text = server.metrics().await;
    assert_eq!(usage(&text, "a").0, Some(2.0), "{text}");
    assert!(usage(&text, "a").1.unwrap() < a_bytes - 1000.0, "{text}");

    let mut control = server.control().await;
    let flush = FlushCacheRequest {
        cache_name: "a".into(),
    };
    control.flush_cache(flush).await.unwrap();
    let text = server.metrics().await;
    assert_eq!(usage(&text, "a"), (Some(0.0), Some(0.0)), "{text}");
    assert_eq!(usage(&text, "b"), (Some(1.0), Some(b_bytes)), "{text}");

    let delete = DeleteCacheRequest {
        cache_name: "b".into(),
    };
    control.delete_cache(delete).await.unwrap();
    let text = server.metrics().await;
    assert_eq!(usage(&text, "b"), (None, None), "{text}");
}
