//! Bad input of each list call: its status, and that nothing changed.

use std::time::Duration;

use jiffy_server::proto::cache_client::*;
use tonic::{Code, Status};

use super::support::*;
use crate::common::stores::{on_both_stores, SMALL_LIMITS};
use crate::common::{self, assert_status, TestServer};

on_both_stores!(
    names_must_be_nonempty_and_within_the_key_limit,
    a_value_over_the_limit_refuses_the_whole_write,
    a_request_over_the_item_limit_is_refused,
    a_write_past_the_element_limit_is_refused_unless_truncated,
    a_concatenation_needs_values,
    writes_need_a_ttl_within_the_limit,
    erase_and_remove_need_what_to_remove,
    a_missing_cache_is_not_found,
);

async fn start(store: Store) -> (TestServer, Option<RedisNode>, Lists) {
    let (server, redis) = store.start(SMALL_LIMITS).await;
    let mut lists = Lists::new(&server).await;
    lists.concat_back("l", &["a", "b", "c"]).await;
    (server, redis, lists)
}

/// The list is still `[a, b, c]`, with its TTL of a minute.
async fn assert_unchanged(lists: &mut Lists) {
    assert_eq!(lists.all("l").await, strings(&["a", "b", "c"]));
    assert!(lists.remaining_ttl("l").await.unwrap() > Duration::from_secs(50));
}

fn invalid(result: Result<(), Status>) -> Status {
    assert_status(result, Code::InvalidArgument, None)
}

async fn names_must_be_nonempty_and_within_the_key_limit(store: Store) {
    let (_server, _redis, mut lists) = start(store).await;
    let c = &mut lists.0;
    for name in ["", "a-list-name-over-16-bytes"] {
        invalid(
            c.client
                .list_push_back(c.request(push_back(name, "x", 0)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .list_fetch(c.request(fetch_request(name, None, None)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .list_erase(c.request(erase_all(name)))
                .await
                .map(drop),
        );
    }
    assert_unchanged(&mut lists).await;
}

async fn a_value_over_the_limit_refuses_the_whole_write(store: Store) {
    let (_server, _redis, mut lists) = start(store).await;
    let big = "x".repeat(1025);
    let c = &mut lists.0;
    let refused = c
        .client
        .list_concatenate_back(c.request(concat_back("l", &["fits", &big], 0)))
        .await;
    let status = assert_status(refused, Code::ResourceExhausted, refused_reason());
    assert!(status.message().contains("--max-value-size"), "{status:?}");
    let refused = c
        .client
        .list_push_front(c.request(push_front("l", &big, 0)))
        .await;
    assert_status(refused, Code::ResourceExhausted, refused_reason());
    assert_unchanged(&mut lists).await;
}

/// The `err` reason of a value over `--max-value-size` in a collection.
fn refused_reason() -> Option<&'static str> {
    Some(jiffy_server::error::reason::ELEMENT_SIZE_LIMIT_EXCEEDED)
}

async fn a_request_over_the_item_limit_is_refused(store: Store) {
    let (_server, _redis, mut lists) = start(store).await;
    let c = &mut lists.0;
    let refused = c
        .client
        .list_concatenate_back(c.request(concat_back("l", &["1", "2", "3", "4", "5"], 0)))
        .await;
    let status = assert_status(
        refused.map(drop),
        Code::ResourceExhausted,
        Some("request_size_limit_exceeded"),
    );
    assert!(
        status.message().contains("--max-request-items"),
        "{status:?}"
    );
    assert_unchanged(&mut lists).await;
}

async fn a_write_past_the_element_limit_is_refused_unless_truncated(store: Store) {
    let (_server, _redis, mut lists) = start(store).await;
    let c = &mut lists.0;
    let refused = c
        .client
        .list_concatenate_back(c.request(concat_back("l", &["d", "e", "f"], 0)))
        .await;
    let status = assert_status(refused.map(drop), Code::ResourceExhausted, None);
    assert!(
        status.message().contains("--max-collection-elements"),
        "{status:?}"
    );
    assert_unchanged(&mut lists).await;
    // Capped by truncation, the same write fits.
    let c = &mut lists.0;
    let capped = c
        .client
        .list_concatenate_back(c.request(concat_back("l", &["d", "e", "f"], 5)))
        .await;
    assert_eq!(capped.unwrap().into_inner().list_length, 5);
}

async fn a_concatenation_needs_values(store: Store) {
    let (_server, _redis, mut lists) = start(store).await;
    let c = &mut lists.0;
    invalid(
        c.client
            .list_concatenate_back(c.request(concat_back("l", &[], 0)))
            .await
            .map(drop),
    );
    invalid(
        c.client
            .list_concatenate_front(c.request(concat_front("new", &[], 0)))
            .await
            .map(drop),
    );
    assert_unchanged(&mut lists).await;
    assert_eq!(lists.all("new").await, None);
}

async fn writes_need_a_ttl_within_the_limit(store: Store) {
    let (_server, _redis, mut lists) = start(store).await;
    for ttl in [0, 3_600_001] {
        let c = &mut lists.0;
        let mut push = push_back("l", "x", 0);
        push.ttl_milliseconds = ttl;
        invalid(c.client.list_push_back(c.request(push)).await.map(drop));
        let mut retain = retain_request("l", Some(1), None);
        // Zero is refused when refreshed; `list.rs` accepts it otherwise.
        (retain.ttl_milliseconds, retain.refresh_ttl) = (ttl, true);
        invalid(c.client.list_retain(c.request(retain)).await.map(drop));
    }
    assert_unchanged(&mut lists).await;
}

async fn erase_and_remove_need_what_to_remove(store: Store) {
    let (_server, _redis, mut lists) = start(store).await;
    let c = &mut lists.0;
    let no_erase = ListEraseRequest {
        list_name: bytes("l"),
        erase: None,
    };
    invalid(c.client.list_erase(c.request(no_erase)).await.map(drop));
    invalid(
        c.client
            .list_erase(c.request(erase_ranges("l", &[])))
            .await
            .map(drop),
    );
    invalid(
        c.client
            .list_erase(c.request(erase_ranges("l", &[(0, 1), (1, 0)])))
            .await
            .map(drop),
    );
    let no_value = ListRemoveRequest {
        list_name: bytes("l"),
        remove: None,
    };
    invalid(c.client.list_remove(c.request(no_value)).await.map(drop));
    assert_unchanged(&mut lists).await;
}

async fn a_missing_cache_is_not_found(store: Store) {
    let (_server, _redis, mut lists) = start(store).await;
    let c = &mut lists.0;
    let request = common::in_cache("no-such-cache", push_back("l", "x", 0));
    assert_status(c.client.list_push_back(request).await, Code::NotFound, None);
    let request = common::in_cache("no-such-cache", fetch_request("l", None, None));
    assert_status(c.client.list_fetch(request).await, Code::NotFound, None);
}
