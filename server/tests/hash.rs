//! GetWithHash and SetIfHash over real sockets: the hash each answers, every
//! condition stored and refused, and bad input refused with nothing changed.
//! (Both stores answer alike: `storage_equivalence.rs` generates these calls.)

use crate::common;

use bytes::Bytes;
use common::{assert_status, Data, TestServer};
use jiffy_server::backend::value_hash;
use jiffy_server::proto::cache_client::*;
use jiffy_server::proto::common as cm;
use set_if_hash_request::Condition as C;
use tonic::Code;

fn hash_of(value: &[u8]) -> Bytes {
    value_hash(value)
}

async fn get_with_hash(c: &mut Data, key: &[u8]) -> Option<(Bytes, Bytes)> {
    let request = GetWithHashRequest {
        cache_key: Bytes::copy_from_slice(key),
    };
    let answer = c.client.get_with_hash(c.request(request)).await.unwrap();
    match answer.into_inner().result.unwrap() {
        get_with_hash_response::Result::Found(found) => Some((found.value, found.hash)),
        get_with_hash_response::Result::Missing(_) => None,
    }
}

/// The new hash when stored, `None` when the condition refused.
async fn set_if_hash(
    c: &mut Data,
    key: &[u8],
    value: &[u8],
    condition: C,
) -> Result<Option<Bytes>, tonic::Status> {
    let request = SetIfHashRequest {
        cache_key: Bytes::copy_from_slice(key),
        cache_body: Bytes::copy_from_slice(value),
        ttl_milliseconds: 60_000,
        condition: Some(condition),
    };
    let answer = c.client.set_if_hash(c.request(request)).await?;
    Ok(match answer.into_inner().result.unwrap() {
        set_if_hash_response::Result::Stored(stored) => Some(stored.new_hash),
        set_if_hash_response::Result::NotStored(_) => None,
    })
}

fn present_equal(hash: &Bytes) -> C {
    C::PresentAndHashEqual(cm::PresentAndHashEqual {
        hash_to_check: hash.clone(),
    })
}
fn present_not_equal(hash: &Bytes) -> C {
    C::PresentAndNotHashEqual(cm::PresentAndNotHashEqual {
        hash_to_check: hash.clone(),
    })
}
fn absent_or_equal(hash: &Bytes) -> C {
    C::AbsentOrHashEqual(cm::AbsentOrHashEqual {
        hash_to_check: hash.clone(),
    })
}
fn absent_or_not_equal(hash: &Bytes) -> C {
    C::AbsentOrNotHashEqual(cm::AbsentOrNotHashEqual {
        hash_to_check: hash.clone(),
    })
}

#[test]
fn the_hash_is_sha1_in_lowercase_hex() {
    assert_eq!(
        &hash_of(b"abc")[..],
        b"a9993e364706816aba3e25717850c26c9cd0d89d"
    );
}

#[tokio::test]
async fn set_with_hash_and_get_with_hash_agree() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    let value = b"\x00\xffany bytes";
    let stored = set_if_hash(&mut c, b"k", value, C::Unconditional(cm::Unconditional {}))
        .await
        .unwrap();
    assert_eq!(stored, Some(hash_of(value)));
    let (got, hash) = get_with_hash(&mut c, b"k").await.unwrap();
    assert_eq!((&got[..], hash), (&value[..], hash_of(value)));
    assert_eq!(get_with_hash(&mut c, b"never-set").await, None);
    // The plain calls see the same item.
    assert_eq!(c.value_of(b"k").await, &value[..]);
}

#[tokio::test]
async fn each_condition_stores_only_when_it_holds() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    let (old, other) = (hash_of(b"old"), hash_of(b"other"));

    // Absent key: only the absent-or conditions store.
    assert_eq!(
        set_if_hash(&mut c, b"a", b"v", present_equal(&old))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        set_if_hash(&mut c, b"a", b"v", present_not_equal(&old))
            .await
            .unwrap(),
        None
    );
    assert!(get_with_hash(&mut c, b"a").await.is_none());
    assert!(set_if_hash(&mut c, b"a", b"v", absent_or_equal(&old))
        .await
        .unwrap()
        .is_some());
    assert!(set_if_hash(&mut c, b"b", b"v", absent_or_not_equal(&old))
        .await
        .unwrap()
        .is_some());

    // Present key holding "old".
    let cases = [
        (present_equal(&old), true),
        (present_equal(&other), false),
        (present_not_equal(&old), false),
        (present_not_equal(&other), true),
        (absent_or_equal(&old), true),
        (absent_or_equal(&other), false),
        (absent_or_not_equal(&old), false),
        (absent_or_not_equal(&other), true),
    ];
    for (condition, stores) in cases {
        c.put(b"k", b"old").await;
        let stored = set_if_hash(&mut c, b"k", b"new", condition.clone())
            .await
            .unwrap();
        assert_eq!(stored.is_some(), stores, "{condition:?}");
        let expected: &[u8] = if stores { b"new" } else { b"old" };
        assert_eq!(c.value_of(b"k").await, expected, "{condition:?}");
    }
}

#[tokio::test]
async fn bad_input_is_refused_and_changes_nothing() {
    let server = TestServer::with_args(&["--max-value-size", "1KiB"]).await;
    let mut c = server.cache("c").await;
    c.put(b"k", b"old").await;
    let always = || C::Unconditional(cm::Unconditional {});

    let status = assert_status(
        set_if_hash(&mut c, b"k", &[7; 1025], always()).await,
        Code::ResourceExhausted,
        Some("item_size_limit_exceeded"),
    );
    assert!(status.message().contains("--max-value-size"));
    assert_status(
        set_if_hash(&mut c, b"", b"v", always()).await,
        Code::InvalidArgument,
        None,
    );
    let no_condition = SetIfHashRequest {
        cache_key: Bytes::from_static(b"k"),
        cache_body: Bytes::from_static(b"new"),
        ttl_milliseconds: 60_000,
        condition: None,
    };
    assert_status(
        c.client.set_if_hash(c.request(no_condition)).await,
        Code::InvalidArgument,
        None,
    );
    let zero_ttl = SetIfHashRequest {
        cache_key: Bytes::from_static(b"k"),
        cache_body: Bytes::from_static(b"new"),
        ttl_milliseconds: 0,
        condition: Some(always()),
    };
    assert_status(
        c.client.set_if_hash(c.request(zero_ttl)).await,
        Code::InvalidArgument,
        None,
    );
    assert_eq!(c.value_of(b"k").await, "old");

    let mut missing = Data {
        client: c.client.clone(),
        cache: "no-such-cache".into(),
    };
    assert_status(
        set_if_hash(&mut missing, b"k", b"v", always()).await,
        Code::NotFound,
        None,
    );
    let get = GetWithHashRequest {
        cache_key: Bytes::from_static(b"k"),
    };
    assert_status(
        missing.client.get_with_hash(missing.request(get)).await,
        Code::NotFound,
        None,
    );
}
