//! Bad input of each dictionary call: its status, and that nothing changed.

use std::time::Duration;

use jiffy_server::proto::cache_client::*;
use tonic::{Code, Status};

use super::support::*;
use crate::common::stores::{on_both_stores, SMALL_LIMITS};
use crate::common::stores::{RedisNode, Store};
use crate::common::{self, assert_status, TestServer};

on_both_stores!(
    names_must_be_nonempty_and_within_the_key_limit,
    a_field_or_value_over_the_limit_refuses_the_whole_write,
    a_request_over_the_item_limit_is_refused,
    a_write_past_the_element_limit_is_refused,
    calls_need_fields_to_work_on,
    writes_need_a_ttl_within_the_limit,
    a_missing_cache_is_not_found,
    an_answer_over_the_response_limit_is_refused,
);

const HELD: &[(&str, &str)] = &[("a", "1"), ("b", "2"), ("c", "3")];

async fn start(store: Store) -> (TestServer, Option<RedisNode>, Dictionaries) {
    let (server, redis) = store.start(SMALL_LIMITS).await;
    let mut d = Dictionaries::new(&server).await;
    d.set("d", HELD).await;
    (server, redis, d)
}

/// The dictionary still holds [`HELD`], with its TTL of a minute.
async fn assert_unchanged(d: &mut Dictionaries) {
    assert_eq!(d.fetch("d").await, entries(HELD));
    assert!(d.remaining_ttl("d").await.unwrap() > Duration::from_secs(50));
}

fn invalid(result: Result<(), Status>) -> Status {
    assert_status(result, Code::InvalidArgument, None)
}

async fn names_must_be_nonempty_and_within_the_key_limit(store: Store) {
    let (_server, _redis, mut d) = start(store).await;
    let c = &mut d.0;
    for name in ["", "a-dictionary-over-16-bytes"] {
        invalid(
            c.client
                .dictionary_set(c.request(set_request(name, &[("f", "v")])))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .dictionary_increment(c.request(increment_request(name, "f", 1)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .dictionary_get(c.request(get_request(name, &["f"])))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .dictionary_fetch(c.request(fetch_request(name)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .dictionary_length(c.request(length_request(name)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .dictionary_delete(c.request(delete_all(name)))
                .await
                .map(drop),
        );
    }
    assert_unchanged(&mut d).await;
}

async fn a_field_or_value_over_the_limit_refuses_the_whole_write(store: Store) {
    let (_server, _redis, mut d) = start(store).await;
    let big = "x".repeat(1025);
    let c = &mut d.0;
    let reason = Some(jiffy_server::error::reason::ELEMENT_SIZE_LIMIT_EXCEEDED);
    let refused = c
        .client
        .dictionary_set(c.request(set_request("d", &[("a", "new"), ("f", &big)])))
        .await;
    let status = assert_status(refused, Code::ResourceExhausted, reason);
    assert!(status.message().contains("dictionary value"), "{status:?}");
    assert!(status.message().contains("--max-value-size"), "{status:?}");
    let refused = c
        .client
        .dictionary_set(c.request(set_request("d", &[("a", "new"), (&big, "v")])))
        .await;
    let status = assert_status(refused, Code::ResourceExhausted, reason);
    assert!(status.message().contains("dictionary field"), "{status:?}");
    let refused = c
        .client
        .dictionary_increment(c.request(increment_request("d", &big, 1)))
        .await;
    assert_status(refused, Code::ResourceExhausted, reason);
    // Exactly at the limit fits.
    let at = "y".repeat(1024);
    c.client
        .dictionary_set(c.request(set_request("e", &[(&at, &at)])))
        .await
        .unwrap();
    assert_unchanged(&mut d).await;
}

async fn a_request_over_the_item_limit_is_refused(store: Store) {
    let (_server, _redis, mut d) = start(store).await;
    let c = &mut d.0;
    let five = [("a", "x"), ("b", "x"), ("c", "x"), ("d", "x"), ("e", "x")];
    let refused = c
        .client
        .dictionary_set(c.request(set_request("d", &five)))
        .await;
    let reason = Some("request_size_limit_exceeded");
    let status = assert_status(refused.map(drop), Code::ResourceExhausted, reason);
    assert!(
        status.message().contains("--max-request-items"),
        "{status:?}"
    );
    let fields = ["a", "b", "c", "d", "e"];
    let refused = c
        .client
        .dictionary_get(c.request(get_request("d", &fields)))
        .await;
    assert_status(refused.map(drop), Code::ResourceExhausted, reason);
    let refused = c
        .client
        .dictionary_delete(c.request(delete_fields("d", &fields)))
        .await;
    assert_status(refused.map(drop), Code::ResourceExhausted, reason);
    assert_unchanged(&mut d).await;
}

async fn a_write_past_the_element_limit_is_refused(store: Store) {
    let (_server, _redis, mut d) = start(store).await;
    let c = &mut d.0;
    // 3 held + 3 new = 6 > 5; fields already held do not count again.
    let refused = c
        .client
        .dictionary_set(c.request(set_request(
            "d",
            &[("a", "x"), ("x", "1"), ("y", "2"), ("z", "3")],
        )))
        .await;
    let status = assert_status(refused.map(drop), Code::ResourceExhausted, None);
    assert!(
        status.message().contains("would hold 6 elements"),
        "{status:?}"
    );
    assert!(
        status.message().contains("--max-collection-elements"),
        "{status:?}"
    );
    assert_unchanged(&mut d).await;
    d.set("d", &[("a", "1"), ("x", "1"), ("y", "2")]).await;
    assert_eq!(d.length("d").await, Some(5));
    // Full: a new field is refused, a field held still increments.
    let refused = d.increment("d", "n", 1).await;
    let status = assert_status(refused, Code::ResourceExhausted, None);
    assert!(
        status.message().contains("would hold 6 elements"),
        "{status:?}"
    );
    assert_eq!(d.add("d", "x", 1).await, 2);
    assert_eq!(d.length("d").await, Some(5));
}

async fn calls_need_fields_to_work_on(store: Store) {
    let (_server, _redis, mut d) = start(store).await;
    let c = &mut d.0;
    invalid(
        c.client
            .dictionary_set(c.request(set_request("d", &[])))
            .await
            .map(drop),
    );
    invalid(
        c.client
            .dictionary_set(c.request(set_request("new", &[])))
            .await
            .map(drop),
    );
    invalid(
        c.client
            .dictionary_get(c.request(get_request("d", &[])))
            .await
            .map(drop),
    );
    invalid(
        c.client
            .dictionary_delete(c.request(delete_fields("d", &[])))
            .await
            .map(drop),
    );
    let nothing = DictionaryDeleteRequest {
        dictionary_name: bytes("d"),
        delete: None,
    };
    invalid(
        c.client
            .dictionary_delete(c.request(nothing))
            .await
            .map(drop),
    );
    assert_unchanged(&mut d).await;
    assert_eq!(d.fetch("new").await, None);
}

async fn writes_need_a_ttl_within_the_limit(store: Store) {
    let (_server, _redis, mut d) = start(store).await;
    for ttl in [0, 3_600_001] {
        let c = &mut d.0;
        let mut set = set_request("d", &[("a", "x")]);
        set.ttl_milliseconds = ttl;
        invalid(c.client.dictionary_set(c.request(set)).await.map(drop));
        let mut increment = increment_request("d", "n", 1);
        increment.ttl_milliseconds = ttl;
        invalid(
            c.client
                .dictionary_increment(c.request(increment))
                .await
                .map(drop),
        );
    }
    assert_unchanged(&mut d).await;
}

async fn a_missing_cache_is_not_found(store: Store) {
    let (_server, _redis, mut d) = start(store).await;
    let c = &mut d.0;
    let request = common::in_cache("no-such-cache", set_request("d", &[("a", "x")]));
    assert_status(c.client.dictionary_set(request).await, Code::NotFound, None);
    let request = common::in_cache("no-such-cache", get_request("d", &["a"]));
    assert_status(c.client.dictionary_get(request).await, Code::NotFound, None);
    let request = common::in_cache("no-such-cache", delete_all("d"));
    assert_status(
        c.client.dictionary_delete(request).await,
        Code::NotFound,
        None,
    );
}

/// A field named many times is answered as often as named, and the
/// answer's size counts each: past `--max-response-size` the call is
/// refused before the answer is built, naming the flag.
async fn an_answer_over_the_response_limit_is_refused(store: Store) {
    let limits = ["--max-value-size", "1KiB", "--max-response-size", "4KiB"];
    let (server, _redis) = store.start(&limits).await;
    let mut d = Dictionaries::new(&server).await;
    let value = "v".repeat(1 << 10);
    d.set("big", &[("f", &value), ("g", "small")]).await;
    let three = d.get("big", &["f", "g", "f", "f"]).await.unwrap();
    assert_eq!(
        three
            .iter()
            .filter(|v| v.as_deref() == Some(&value[..]))
            .count(),
        3
    );
    let c = &mut d.0;
    for fields in [&["f"; 4][..], &["f"; 10_000][..]] {
        let status = assert_status(
            c.client
                .dictionary_get(c.request(get_request("big", fields)))
                .await
                .map(drop),
            Code::ResourceExhausted,
            None,
        );
        assert!(
            status.message().contains("--max-response-size"),
            "{status:?}"
        );
    }
    // The dictionary, whole, is under the limit: fetched as before.
    assert_eq!(d.fetch("big").await.map(|e| e.len()), Some(2));
    // Five such values are over it: the Redis store refuses it in its
    // script, by the values' size, before any leaves Redis.
    let five: Vec<(String, &str)> = (0..5).map(|i| (format!("f{i}"), &value[..])).collect();
    let five: Vec<(&str, &str)> = five.iter().map(|(f, v)| (&f[..], *v)).collect();
    d.set("bigger", &five).await;
    let c = &mut d.0;
    let status = assert_status(
        c.client
            .dictionary_fetch(c.request(fetch_request("bigger")))
            .await
            .map(drop),
        Code::ResourceExhausted,
        None,
    );
    assert!(
        status.message().contains("--max-response-size"),
        "{status:?}"
    );
    assert_eq!(d.length("bigger").await, Some(5));
}
