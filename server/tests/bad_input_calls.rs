//! Well-formed calls that are wrong in other ways: bad cache names and
//! headers, a missing oneof, Increment of a non-integer or past i64,
//! collection calls on a scalar key, unknown methods and services, bodies
//! that are not the message. Each is answered with its status on the same
//! connection, and afterwards every cache, item and TTL of a known baseline
//! is as it was, over that connection and a new one.

use crate::common;

use bytes::Bytes;
use common::bad_calls::*;
use common::baseline::{CACHE, TTL_MS};
use common::{assert_status, in_cache, raw_grpc};
use jiffy_server::proto::cache_client::*;
use jiffy_server::proto::control_client::{
    CreateCacheRequest, DeleteCacheRequest, FlushCacheRequest,
};
use tonic::Code;

#[tokio::test]
async fn invalid_cache_names_in_the_control_plane() {
    let (_server, baseline) = start().await;
    let mut control = baseline.control();
    let long = "x".repeat(256);
    for bad in [
        "",
        " ",
        "has space",
        "a/b",
        "ünï",
        "tab\there",
        "c\n",
        "*",
        &long,
    ] {
        let name = || bad.to_owned();
        let answers = [
            control
                .create_cache(CreateCacheRequest { cache_name: name() })
                .await
                .map(drop),
            control
                .delete_cache(DeleteCacheRequest { cache_name: name() })
                .await
                .map(drop),
            control
                .flush_cache(FlushCacheRequest { cache_name: name() })
                .await
                .map(drop),
        ];
        for answer in answers {
            let status = assert_status(answer, Code::InvalidArgument, None);
            assert!(
                status.message().contains("cache name"),
                "{bad:?}: {status:?}"
            );
        }
    }
    assert_nothing_changed(&baseline).await;
}

#[tokio::test]
async fn missing_empty_or_invalid_cache_header() {
    let (_server, baseline) = start().await;
    let mut c = baseline.data();
    // No header, an empty one, and one that is not ASCII text.
    let mut no_header = tonic::Request::new(set(b"k", b"new", TTL_MS));
    let status = assert_status(c.set(no_header).await, Code::InvalidArgument, None);
    assert!(status.message().contains("`cache`"), "{status:?}");
    no_header = tonic::Request::new(set(b"k", b"new", TTL_MS));
    no_header
        .metadata_mut()
        .insert("cache", "".parse().unwrap());
    assert_status(c.set(no_header).await, Code::InvalidArgument, None);
    let mut not_ascii = tonic::Request::new(set(b"k", b"new", TTL_MS));
    not_ascii.metadata_mut().insert(
        "cache",
        tonic::metadata::MetadataValue::try_from(&b"c\xff"[..]).unwrap(),
    );
    let status = assert_status(c.set(not_ascii).await, Code::InvalidArgument, None);
    assert!(
        status.message().contains("not printable ASCII"),
        "{status:?}"
    );
    // A name no cache can have cannot exist: NOT_FOUND, as for any unknown cache.
    for name in ["no-such-cache", "has space", &"x".repeat(300)] {
        let status = assert_status(
            c.set(in_cache(name, set(b"k", b"new", TTL_MS))).await,
            Code::NotFound,
            None,
        );
        // A name too long for any cache is cut short in the message, not echoed whole.
        assert!(status.message().len() < 200, "{status:?}");
    }
    assert_nothing_changed(&baseline).await;
}

#[tokio::test]
async fn calls_missing_their_oneof() {
    let (_server, baseline) = start().await;
    let mut c = baseline.data();
    let mut no_condition = set_if(b"k", b"new", TTL_MS);
    no_condition.condition = None;
    let status = assert_status(
        c.set_if(in_cache(CACHE, no_condition)).await,
        Code::InvalidArgument,
        None,
    );
    assert!(status.message().contains("condition"), "{status:?}");
    let no_ttl = UpdateTtlRequest {
        cache_key: bytes(b"k"),
        update_ttl: None,
    };
    let status = assert_status(
        c.update_ttl(in_cache(CACHE, no_ttl)).await,
        Code::InvalidArgument,
        None,
    );
    assert!(status.message().contains("TTL"), "{status:?}");
    assert_nothing_changed(&baseline).await;
}

#[tokio::test]
async fn increment_of_a_value_that_is_not_an_integer() {
    let (_server, baseline) = start().await;
    let mut c = baseline.data();
    let values: &[&[u8]] = &[
        b"abc",
        b"1.5",
        b" 1",
        b"1 ",
        b"",
        b"0x10",
        b"1e3",
        b"--1",
        b"99999999999999999999",
        "١٢".as_bytes(), // digits, but not ASCII ones
        b"\xff\xfe",
    ];
    for (i, value) in values.iter().enumerate() {
        let key = format!("text-{i}");
        c.set(in_cache(CACHE, set(key.as_bytes(), value, TTL_MS)))
            .await
            .unwrap();
        let status = assert_status(
            c.increment(in_cache(CACHE, increment(key.as_bytes(), 1, 1_000)))
                .await,
            Code::FailedPrecondition,
            None,
        );
        assert!(
            status.message().contains("not a base-10 integer"),
            "{status:?}"
        );
        let get = GetRequest {
            cache_key: bytes(key.as_bytes()),
        };
        let after = c.get(in_cache(CACHE, get)).await.unwrap().into_inner();
        assert_eq!(&after.cache_body[..], *value, "{key} changed");
        // The refused Increment must not have reset the TTL to its 1 s either.
        let ttl = ItemGetTtlRequest {
            cache_key: bytes(key.as_bytes()),
        };
        let left = c
            .item_get_ttl(in_cache(CACHE, ttl))
            .await
            .unwrap()
            .into_inner();
        let Some(item_get_ttl_response::Result::Found(found)) = left.result else {
            panic!("{key} lost its TTL");
        };
        assert!(found.remaining_ttl_millis > 1_000, "{key}: {found:?}");
        c.delete(in_cache(
            CACHE,
            DeleteRequest {
                cache_key: bytes(key.as_bytes()),
            },
        ))
        .await
        .unwrap();
    }
    assert_nothing_changed(&baseline).await;
}

#[tokio::test]
async fn increment_past_either_end_of_i64() {
    let (_server, baseline) = start().await;
    let mut c = baseline.data();
    let cases = [
        (i64::MAX, 1),
        (i64::MIN, -1),
        (-2, i64::MIN),
        (1, i64::MAX),
        (10, i64::MAX), // the baseline's "n" holds 10
    ];
    for (i, (start, amount)) in cases.into_iter().enumerate() {
        let key = format!("edge-{i}");
        let key = key.as_bytes();
        c.set(in_cache(
            CACHE,
            set(key, start.to_string().as_bytes(), TTL_MS),
        ))
        .await
        .unwrap();
        let status = assert_status(
            c.increment(in_cache(CACHE, increment(key, amount, TTL_MS)))
                .await,
            Code::FailedPrecondition,
            None,
        );
        assert!(status.message().contains("overflow"), "{status:?}");
        let after = c
            .get(in_cache(
                CACHE,
                GetRequest {
                    cache_key: bytes(key),
                },
            ))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(after.cache_body, start.to_string().as_bytes());
        c.delete(in_cache(
            CACHE,
            DeleteRequest {
                cache_key: bytes(key),
            },
        ))
        .await
        .unwrap();
    }
    assert_status(
        c.increment(in_cache(CACHE, increment(b"n", i64::MAX, TTL_MS)))
            .await,
        Code::FailedPrecondition,
        None,
    );
    assert_nothing_changed(&baseline).await;
}

/// A collection call on a key that holds a scalar answers the wrong-type
/// status, whatever the collection type, and leaves the scalar alone. (Each
/// type's own tests try every call; this one keeps the types alike.)
#[tokio::test]
async fn collection_calls_on_a_scalar_key() {
    let (_server, baseline) = start().await;
    for method in [
        "DictionaryLength",
        "DictionaryFetch",
        "SetLength",
        "SetFetch",
        "ListLength",
        "ListFetch",
        "SortedSetLength",
    ] {
        // Field 1 of every collection request is the collection's name: "k".
        let body = Bytes::from_static(b"\x0a\x01k");
        let path = format!("/cache_client.Scs/{method}");
        let answer =
            raw_grpc::call(baseline.channel.clone(), &path, Some(CACHE), body, false).await;
        assert_status(answer, Code::FailedPrecondition, None);
    }
    let item_type = baseline
        .data()
        .item_get_type(in_cache(
            CACHE,
            ItemGetTypeRequest {
                cache_key: bytes(b"k"),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let Some(item_get_type_response::Result::Found(found)) = item_type.result else {
        panic!("k is gone: {item_type:?}");
    };
    assert_eq!(found.item_type(), item_get_type_response::ItemType::Scalar);
    assert_nothing_changed(&baseline).await;
}

#[tokio::test]
async fn unknown_methods_and_services() {
    let (_server, baseline) = start().await;
    for path in [
        "/cache_client.Scs/NoSuchMethod",
        "/cache_client.Scs/get", // names are case-sensitive
        "/control_client.ScsControl/NoSuchMethod",
        "/cache_client.Ping/NoSuchMethod",
        "/cache_client.pubsub.Pubsub/NoSuchMethod",
        "/no.such.Service/Call",
        "/cache_client.Scs",
        "/",
    ] {
        let body = Bytes::from_static(b"\x0a\x01k");
        let answer = raw_grpc::call(baseline.channel.clone(), path, Some(CACHE), body, false).await;
        assert_status(answer, Code::Unimplemented, None);
    }
    assert_nothing_changed(&baseline).await;
}

/// Bodies that are not the call's protobuf message: the decoder refuses them
/// with INTERNAL (as gRPC servers answer an undecodable request), before the
/// handler runs.
#[tokio::test]
async fn bodies_that_are_not_the_message() {
    let (_server, baseline) = start().await;
    let bodies: &[&[u8]] = &[
        b"\xff\xff\xff\xff", // field 0 / invalid wire type
        b"\x0a\x05k",        // field 1 says 5 bytes, 1 follows
        b"\x08\x01",         // field 1 (bytes) sent as a varint
        b"\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", // varint of 11 bytes
        b"\x0b",             // a start-group with no end
    ];
    for body in bodies {
        for (rpc, streaming) in [("Set", false), ("Get", false), ("SetBatch", true)] {
            let path = format!("/cache_client.Scs/{rpc}");
            let answer = raw_grpc::call(
                baseline.channel.clone(),
                &path,
                Some(CACHE),
                Bytes::from_static(body),
                streaming,
            )
            .await;
            let status = assert_status(answer, Code::Internal, None);
            assert!(
                status.message().contains("decode"),
                "{rpc} {body:?}: {status:?}"
            );
        }
    }
    // An empty body is a message with every field at its default: a valid
    // request with an empty key.
    let empty = raw_grpc::call(
        baseline.channel.clone(),
        "/cache_client.Scs/Set",
        Some(CACHE),
        Bytes::new(),
        false,
    )
    .await;
    assert_status(empty, Code::InvalidArgument, None);
    assert_nothing_changed(&baseline).await;
}
