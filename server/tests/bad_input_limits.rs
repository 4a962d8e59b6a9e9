//! Well-formed calls carrying keys, values, batches, requests or TTLs
//! over a limit: each is answered with its status (and `err` trailer) on
//! the same connection, and afterwards every cache, item and TTL of a known
//! baseline is as it was, over that connection and a new one.
//!
//! `limits.rs` covers the first case of each limit (Set with a large value,
//! Get with a large key, ...); this file covers every other call that carries
//! the same field.

use crate::common;

use bytes::Bytes;
use common::assert_status;
use common::bad_calls::*;
use common::baseline::{Baseline, TTL_MS};
use jiffy_server::proto::cache_client::*;
use tonic::Code;

/// Sends every call that carries a key with `key` and asserts each answers
/// INVALID_ARGUMENT with a message containing `words`.
async fn every_keyed_call_refuses(baseline: &Baseline, key: &[u8], words: &str) {
    use update_ttl_request::UpdateTtl::OverwriteToMilliseconds;
    let mut c = baseline.data();
    let k = || bytes(key);
    let answers = [
        (
            "Get",
            c.get(in_c(GetRequest { cache_key: k() })).await.map(drop),
        ),
        ("Set", c.set(in_c(set(key, b"v", TTL_MS))).await.map(drop)),
        (
            "SetIf",
            c.set_if(in_c(set_if(key, b"v", TTL_MS))).await.map(drop),
        ),
        (
            "SetIfNotExists",
            c.set_if_not_exists(in_c(set_if_absent(key, b"v", TTL_MS)))
                .await
                .map(drop),
        ),
        (
            "Delete",
            c.delete(in_c(DeleteRequest { cache_key: k() }))
                .await
                .map(drop),
        ),
        (
            "Increment",
            c.increment(in_c(increment(key, 1, TTL_MS))).await.map(drop),
        ),
        (
            "UpdateTtl",
            c.update_ttl(in_c(update_ttl(key, OverwriteToMilliseconds(TTL_MS))))
                .await
                .map(drop),
        ),
        (
            "ItemGetTtl",
            c.item_get_ttl(in_c(ItemGetTtlRequest { cache_key: k() }))
                .await
                .map(drop),
        ),
        (
            "ItemGetType",
            c.item_get_type(in_c(ItemGetTypeRequest { cache_key: k() }))
                .await
                .map(drop),
        ),
        (
            "KeysExist",
            c.keys_exist(in_c(KeysExistRequest {
                cache_keys: vec![bytes(b"k"), k()],
            }))
            .await
            .map(drop),
        ),
        (
            "GetBatch",
            c.get_batch(in_c(GetBatchRequest {
                items: vec![
                    GetRequest {
                        cache_key: bytes(b"k"),
                    },
                    GetRequest { cache_key: k() },
                ],
            }))
            .await
            .map(drop),
        ),
        (
            "SetBatch",
            c.set_batch(in_c(SetBatchRequest {
                items: vec![set(b"k", b"new", TTL_MS), set(key, b"v", TTL_MS)],
            }))
            .await
            .map(drop),
        ),
    ];
    for (rpc, answer) in answers {
        let status = assert_status(answer, Code::InvalidArgument, None);
        assert!(status.message().contains(words), "{rpc}: {status:?}");
    }
}

#[tokio::test]
async fn oversized_key_in_every_call() {
    let (_server, baseline) = start().await;
    every_keyed_call_refuses(&baseline, &[b'k'; 17], "--max-key-size").await;
    assert_nothing_changed(&baseline).await;
}

#[tokio::test]
async fn empty_key_in_every_call() {
    let (_server, baseline) = start().await;
    every_keyed_call_refuses(&baseline, b"", "must not be empty").await;
    assert_nothing_changed(&baseline).await;
}

#[tokio::test]
async fn oversized_value_in_every_write() {
    let (_server, baseline) = start().await;
    let mut c = baseline.data();
    let big = [7u8; 1025];
    let answers = [
        c.set_if(in_c(set_if(b"k", &big, TTL_MS))).await.map(drop),
        c.set_if_not_exists(in_c(set_if_absent(b"new", &big, TTL_MS)))
            .await
            .map(drop),
        c.set_batch(in_c(SetBatchRequest {
            items: vec![set(b"k", b"new", TTL_MS), set(b"n", &big, TTL_MS)],
        }))
        .await
        .map(drop),
    ];
    for answer in answers {
        let status = assert_status(
            answer,
            Code::ResourceExhausted,
            Some("item_size_limit_exceeded"),
        );
        assert!(status.message().contains("--max-value-size"), "{status:?}");
    }
    assert_nothing_changed(&baseline).await;
}

#[tokio::test]
async fn oversized_batches_and_requests() {
    let (_server, baseline) = start().await;
    let mut c = baseline.data();
    // Every item is within the limits; together they are over 4 KiB.
    let keys: Vec<Bytes> = (0..600).map(|i| Bytes::from(format!("key-{i}"))).collect();
    let gets = keys.iter().map(|k| GetRequest {
        cache_key: k.clone(),
    });
    let sets = keys.iter().take(8).map(|k| set(k, &[1; 1000], TTL_MS));
    let answers = [
        c.get_batch(in_c(GetBatchRequest {
            items: gets.collect(),
        }))
        .await
        .map(drop),
        c.keys_exist(in_c(KeysExistRequest {
            cache_keys: keys.clone(),
        }))
        .await
        .map(drop),
        c.set_batch(in_c(SetBatchRequest {
            items: sets.collect(),
        }))
        .await
        .map(drop),
        // One value over the request limit (and the value limit: the request
        // limit is checked first, before the message is even read).
        c.set(in_c(set(b"k", &[1; 5000], TTL_MS))).await.map(drop),
        // Far over: refused from the length prefix, before the body arrives.
        c.set(in_c(set(b"k", &vec![1; 4 << 20], TTL_MS)))
            .await
            .map(drop),
    ];
    for answer in answers {
        let status = assert_status(
            answer,
            Code::ResourceExhausted,
            Some("request_size_limit_exceeded"),
        );
        assert!(
            status.message().contains("--max-request-size"),
            "{status:?}"
        );
    }
    assert_nothing_changed(&baseline).await;
}

#[tokio::test]
async fn zero_and_overflowing_ttls_in_every_call() {
    use update_ttl_request::UpdateTtl::*;
    let (_server, baseline) = start().await;
    let mut c = baseline.data();
    for ttl in [0, MAX_TTL_MS + 1, u64::MAX / 2, u64::MAX] {
        let answers = [
            c.set_if(in_c(set_if(b"k", b"new", ttl))).await.map(drop),
            c.set_if_not_exists(in_c(set_if_absent(b"new", b"v", ttl)))
                .await
                .map(drop),
            c.increment(in_c(increment(b"n", 1, ttl))).await.map(drop),
            c.set_batch(in_c(SetBatchRequest {
                items: vec![set(b"k", b"new", TTL_MS), set(b"n", b"new", ttl)],
            }))
            .await
            .map(drop),
            c.update_ttl(in_c(update_ttl(b"k", IncreaseToMilliseconds(ttl))))
                .await
                .map(drop),
            c.update_ttl(in_c(update_ttl(b"k", DecreaseToMilliseconds(ttl))))
                .await
                .map(drop),
            c.update_ttl(in_c(update_ttl(b"k", OverwriteToMilliseconds(ttl))))
                .await
                .map(drop),
        ];
        for answer in answers {
            let status = assert_status(answer, Code::InvalidArgument, None);
            assert!(status.message().contains("TTL"), "ttl {ttl}: {status:?}");
        }
    }
    assert_nothing_changed(&baseline).await;
}
