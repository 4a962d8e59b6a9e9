//! The dictionary calls over a real socket: every call, its edges (order of
//! answers, repeated fields, emptied dictionaries, increments past 64 bits),
//! the collection TTL, wrong types, and bad input of each call (its status,
//! and that nothing changed, in `dictionary/bad_input.rs`). Every test runs
//! on both stores.

use std::time::Duration;

use common::assert_status;
use jiffy_server::proto::cache_client::*;
use support::*;
use tonic::{Code, Status};

use crate::common;
use common::stores::on_both_stores;
mod bad_input;
mod support;
use common::stores::Store;

on_both_stores!(
    set_get_and_fetch_answer_the_fields,
    a_field_set_twice_keeps_its_last_value,
    increment_counts_a_missing_field_as_zero_and_answers_the_sum,
    increment_refuses_text_and_overflow_as_increment_does,
    delete_removes_fields_and_the_last_removes_the_dictionary,
    a_new_dictionary_gets_the_ttl_and_a_write_refreshes_it_only_when_asked,
    dictionary_calls_on_another_type_fail_the_precondition_and_change_nothing,
    item_calls_see_a_dictionary,
);

async fn set_get_and_fetch_answer_the_fields(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut d = Dictionaries::new(&server).await;
    assert_eq!(d.get("d", &["a"]).await, None);
    assert_eq!(d.fetch("d").await, None);
    assert_eq!(d.length("d").await, None);
    d.set(
        "d",
        &[("b", "2"), ("a", "1"), ("", "empty field"), ("e", "")],
    )
    .await;
    assert_eq!(
        d.get("d", &["b", "x", "a", "b", ""]).await,
        Some(vec![
            Some("2".into()),
            None,
            Some("1".into()),
            Some("2".into()),
            Some("empty field".into())
        ])
    );
    assert_eq!(
        d.fetch("d").await,
        entries(&[("", "empty field"), ("a", "1"), ("b", "2"), ("e", "")])
    );
    assert_eq!(d.length("d").await, Some(4));
    d.set("d", &[("c", "3"), ("a", "one")]).await;
    assert_eq!(d.length("d").await, Some(5));
    assert_eq!(d.get("d", &["a"]).await, Some(vec![Some("one".into())]));
}

async fn a_field_set_twice_keeps_its_last_value(store: Store) {
    let (server, _redis) = store.start(&["--max-collection-elements", "2"]).await;
    let mut d = Dictionaries::new(&server).await;
    // Three pairs but two fields: within a limit of two.
    d.set("d", &[("a", "1"), ("b", "2"), ("a", "3")]).await;
    assert_eq!(d.fetch("d").await, entries(&[("a", "3"), ("b", "2")]));
}

async fn increment_counts_a_missing_field_as_zero_and_answers_the_sum(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut d = Dictionaries::new(&server).await;
    assert_eq!(d.add("d", "n", 1).await, 1);
    assert_eq!(d.add("d", "n", 41).await, 42);
    assert_eq!(d.add("d", "m", -5).await, -5);
    assert_eq!(d.add("d", "n", 0).await, 42);
    assert_eq!(
        d.get("d", &["n", "m"]).await,
        Some(vec![Some("42".into()), Some("-5".into())])
    );
    // Text an i64 parser accepts: a sign, leading zeros; the sum is plain.
    d.set("d", &[("plus", "+7"), ("zeros", "-007")]).await;
    assert_eq!(d.add("d", "plus", 1).await, 8);
    assert_eq!(d.add("d", "zeros", 1).await, -6);
    assert_eq!(d.get("d", &["zeros"]).await, Some(vec![Some("-6".into())]));
    // Across the 2^53 a double holds exactly, and to both ends of i64.
    let big = 9_007_199_254_740_993;
    assert_eq!(d.add("d", "big", big).await, big);
    assert_eq!(d.add("d", "big", big).await, 2 * big);
    assert_eq!(d.add("d", "max", i64::MAX).await, i64::MAX);
    assert_eq!(d.add("d", "min", i64::MIN).await, i64::MIN);
    assert_eq!(d.add("d", "min", i64::MAX).await, -1);
}

async fn increment_refuses_text_and_overflow_as_increment_does(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut d = Dictionaries::new(&server).await;
    d.set(
        "d",
        &[
            ("t", "abcxyz"),
            ("max", "9223372036854775807"),
            ("sp", " 1"),
        ],
    )
    .await;
    let scalar_message = |status: Status| status.message().to_string();
    // The scalar Increment's answers, for the same values.
    d.0.put(b"t", b"abcxyz").await;
    d.0.put(b"max", b"9223372036854775807").await;
    let c = &mut d.0;
    let increment = |key: &str, amount| IncrementRequest {
        cache_key: bytes(key),
        amount,
        ttl_milliseconds: MINUTE_MS,
    };
    let text = c.client.increment(c.request(increment("t", 1))).await;
    let text = scalar_message(assert_status(text, Code::FailedPrecondition, None));
    let over = c.client.increment(c.request(increment("max", 1))).await;
    let over = scalar_message(assert_status(over, Code::FailedPrecondition, None));

    let refused = assert_status(
        d.increment("d", "t", 1).await,
        Code::FailedPrecondition,
        None,
    );
    assert_eq!(refused.message(), text);
    let refused = assert_status(
        d.increment("d", "sp", 1).await,
        Code::FailedPrecondition,
        None,
    );
    assert_eq!(refused.message(), text);
    let refused = assert_status(
        d.increment("d", "max", 1).await,
        Code::FailedPrecondition,
        None,
    );
    assert_eq!(refused.message(), over);
    d.increment("d", "min", i64::MIN).await.unwrap();
    assert_status(
        d.increment("d", "min", -1).await,
        Code::FailedPrecondition,
        None,
    );
    assert_eq!(
        d.get("d", &["t", "max", "min", "sp"]).await,
        Some(vec![
            Some("abcxyz".into()),
            Some(i64::MAX.to_string()),
            Some(i64::MIN.to_string()),
            Some(" 1".into())
        ])
    );
}

async fn delete_removes_fields_and_the_last_removes_the_dictionary(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut d = Dictionaries::new(&server).await;
    // A missing dictionary: nothing to do, not an error.
    d.delete(delete_fields("d", &["a"])).await;
    d.delete(delete_all("d")).await;
    assert_eq!(d.fetch("d").await, None);

    d.set("d", &[("a", "1"), ("b", "2"), ("c", "3")]).await;
    d.delete(delete_fields("d", &["a", "absent", "a"])).await;
    assert_eq!(d.fetch("d").await, entries(&[("b", "2"), ("c", "3")]));
    d.delete(delete_fields("d", &["b", "c"])).await;
    assert_eq!(d.length("d").await, None);
    assert_eq!(
        d.remaining_ttl("d").await,
        None,
        "the emptied dictionary is gone"
    );

    d.set("d", &[("a", "1"), ("b", "2")]).await;
    d.delete(delete_all("d")).await;
    assert_eq!(d.fetch("d").await, None);
    assert_eq!(d.remaining_ttl("d").await, None);
}

async fn a_new_dictionary_gets_the_ttl_and_a_write_refreshes_it_only_when_asked(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut d = Dictionaries::new(&server).await;
    let c = &mut d.0;
    let mut first = set_request("d", &[("a", "1")]);
    first.ttl_milliseconds = 300;
    first.refresh_ttl = false;
    c.client.dictionary_set(c.request(first)).await.unwrap();
    assert!(d.remaining_ttl("d").await.unwrap() <= Duration::from_millis(300));

    // Without refresh the TTL stays, for a set and for an increment.
    let c = &mut d.0;
    let mut kept = set_request("d", &[("b", "2")]);
    kept.refresh_ttl = false;
    c.client.dictionary_set(c.request(kept)).await.unwrap();
    let mut kept = increment_request("d", "n", 1);
    kept.refresh_ttl = false;
    c.client
        .dictionary_increment(c.request(kept))
        .await
        .unwrap();
    assert!(d.remaining_ttl("d").await.unwrap() <= Duration::from_millis(300));
    // Deleting a field keeps it too.
    d.delete(delete_fields("d", &["b"])).await;
    assert!(d.remaining_ttl("d").await.unwrap() <= Duration::from_millis(300));

    // With refresh it becomes the request's.
    let c = &mut d.0;
    c.client
        .dictionary_increment(c.request(increment_request("d", "n", 1)))
        .await
        .unwrap();
    assert!(d.remaining_ttl("d").await.unwrap() > Duration::from_secs(50));

    // An increment that creates the dictionary gives it its TTL, refresh
    // or not; past it, the dictionary is a miss.
    let c = &mut d.0;
    let mut short = increment_request("short", "n", 1);
    short.ttl_milliseconds = 100;
    short.refresh_ttl = false;
    c.client
        .dictionary_increment(c.request(short))
        .await
        .unwrap();
    assert!(d.remaining_ttl("short").await.unwrap() <= Duration::from_millis(100));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(d.fetch("short").await, None);
    assert_eq!(d.get("short", &["n"]).await, None);
    assert_eq!(d.length("short").await, None);
    // And it starts again from nothing.
    assert_eq!(d.add("short", "n", 5).await, 5);
}

async fn dictionary_calls_on_another_type_fail_the_precondition_and_change_nothing(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut d = Dictionaries::new(&server).await;
    d.0.put(b"k", b"v").await;
    let c = &mut d.0;
    let failed = |result: Result<(), Status>| {
        let status = assert_status(result, Code::FailedPrecondition, None);
        assert!(status.message().contains("not a dictionary"), "{status:?}");
    };
    failed(
        c.client
            .dictionary_set(c.request(set_request("k", &[("f", "x")])))
            .await
            .map(drop),
    );
    failed(
        c.client
            .dictionary_increment(c.request(increment_request("k", "f", 1)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .dictionary_get(c.request(get_request("k", &["f"])))
            .await
            .map(drop),
    );
    failed(
        c.client
            .dictionary_fetch(c.request(fetch_request("k")))
            .await
            .map(drop),
    );
    failed(
        c.client
            .dictionary_length(c.request(length_request("k")))
            .await
            .map(drop),
    );
    failed(
        c.client
            .dictionary_delete(c.request(delete_fields("k", &["f"])))
            .await
            .map(drop),
    );
    failed(
        c.client
            .dictionary_delete(c.request(delete_all("k")))
            .await
            .map(drop),
    );
    assert_eq!(c.value_of(b"k").await, "v");

    // And the other way: scalar and list calls on a dictionary.
    d.set("d", &[("f", "1")]).await;
    let c = &mut d.0;
    let get = c
        .client
        .get(c.request(GetRequest {
            cache_key: bytes("d"),
        }))
        .await;
    assert_status(get, Code::FailedPrecondition, None);
    let increment = c
        .client
        .increment(c.request(IncrementRequest {
            cache_key: bytes("d"),
            amount: 1,
            ttl_milliseconds: MINUTE_MS,
        }))
        .await;
    assert_status(increment, Code::FailedPrecondition, None);
    let push = c
        .client
        .list_push_back(c.request(ListPushBackRequest {
            list_name: bytes("d"),
            value: bytes("x"),
            ttl_milliseconds: MINUTE_MS,
            refresh_ttl: true,
            truncate_front_to_size: 0,
        }))
        .await;
    let status = assert_status(push, Code::FailedPrecondition, None);
    assert!(status.message().contains("a dictionary"), "{status:?}");
    assert_eq!(d.fetch("d").await, entries(&[("f", "1")]));
}

async fn item_calls_see_a_dictionary(store: Store) {
    use item_get_type_response::{ItemType, Result};
    let (server, _redis) = store.start(&[]).await;
    let mut d = Dictionaries::new(&server).await;
    d.set("d", &[("f", "1")]).await;
    let c = &mut d.0;
    let kind = c
        .client
        .item_get_type(c.request(ItemGetTypeRequest {
            cache_key: bytes("d"),
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(
        matches!(kind.result, Some(Result::Found(f)) if f.item_type == ItemType::Dictionary as i32)
    );
    let exists = c
        .client
        .keys_exist(c.request(KeysExistRequest {
            cache_keys: vec![bytes("d"), bytes("e")],
        }))
        .await
        .unwrap();
    assert_eq!(exists.into_inner().exists, [true, false]);
    let left = d.remaining_ttl("d").await.unwrap();
    assert!(left > Duration::from_secs(50) && left <= Duration::from_secs(60));
    let c = &mut d.0;
    c.client
        .delete(c.request(DeleteRequest {
            cache_key: bytes("d"),
        }))
        .await
        .unwrap();
    assert_eq!(d.fetch("d").await, None);
    // The key is free for another type, and then for a dictionary again.
    d.0.put(b"d", b"scalar").await;
    let c = &mut d.0;
    c.client
        .delete(c.request(DeleteRequest {
            cache_key: bytes("d"),
        }))
        .await
        .unwrap();
    assert_eq!(d.add("d", "f", 2).await, 2);
}
