//! Bad input of each set call: its status, and that nothing changed.

use std::time::Duration;

use jiffy_server::proto::cache_client::*;
use tonic::{Code, Status};

use super::support::*;
use crate::common::stores::{on_both_stores, SMALL_LIMITS};
use crate::common::{self, assert_status, TestServer};

on_both_stores!(
    names_must_be_nonempty_and_within_the_key_limit,
    an_element_over_the_limit_refuses_the_whole_union,
    a_request_over_the_item_limit_is_refused,
    a_union_past_the_element_limit_is_refused,
    a_union_needs_a_ttl_within_the_limit,
    pop_needs_a_count_and_difference_a_subtrahend,
    a_missing_cache_is_not_found,
);

async fn start(store: Store) -> (TestServer, Option<RedisNode>, Sets) {
    let (server, redis) = store.start(SMALL_LIMITS).await;
    let mut sets = Sets::new(&server).await;
    sets.union("s", &["a", "b", "c"]).await;
    (server, redis, sets)
}

/// The set is still `{a, b, c}`, with its TTL of a minute.
async fn assert_unchanged(sets: &mut Sets) {
    assert_eq!(sets.fetch("s").await, strings(&["a", "b", "c"]));
    assert!(sets.remaining_ttl("s").await.unwrap() > Duration::from_secs(50));
}

fn invalid(result: Result<(), Status>) -> Status {
    assert_status(result, Code::InvalidArgument, None)
}

async fn names_must_be_nonempty_and_within_the_key_limit(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let c = &mut sets.0;
    for name in ["", "a-set-name-over-16-bytes"] {
        invalid(
            c.client
                .set_union(c.request(union(name, &["x"])))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .set_difference(c.request(remove_all(name)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .set_fetch(c.request(SetFetchRequest {
                    set_name: bytes(name),
                }))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .set_contains(c.request(contains(name, &["a"])))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .set_length(c.request(SetLengthRequest {
                    set_name: bytes(name),
                }))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .set_pop(c.request(SetPopRequest {
                    set_name: bytes(name),
                    count: 1,
                }))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .set_sample(c.request(SetSampleRequest {
                    set_name: bytes(name),
                    limit: 1,
                }))
                .await
                .map(drop),
        );
    }
    assert_unchanged(&mut sets).await;
}

async fn an_element_over_the_limit_refuses_the_whole_union(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let big = "x".repeat(1025);
    let refused = sets.try_union(union("s", &["fits", &big])).await;
    let status = assert_status(
        refused,
        Code::ResourceExhausted,
        Some(jiffy_server::error::reason::ELEMENT_SIZE_LIMIT_EXCEEDED),
    );
    assert!(status.message().contains("--max-value-size"), "{status:?}");
    assert_unchanged(&mut sets).await;
    // At the limit, it fits.
    sets.union("t", &[&"x".repeat(1024)]).await;
    assert_eq!(sets.length("t").await, Some(1));
}

async fn a_request_over_the_item_limit_is_refused(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let five = &["1", "2", "3", "4", "5"];
    let over = |result: Result<(), Status>| {
        let status = assert_status(
            result,
            Code::ResourceExhausted,
            Some("request_size_limit_exceeded"),
        );
        assert!(
            status.message().contains("--max-request-items"),
            "{status:?}"
        );
    };
    over(sets.try_union(union("s", five)).await);
    let c = &mut sets.0;
    over(
        c.client
            .set_difference(c.request(remove("s", &["a", "b", "c", "d", "e"])))
            .await
            .map(drop),
    );
    over(
        c.client
            .set_contains(c.request(contains("s", five)))
            .await
            .map(drop),
    );
    assert_unchanged(&mut sets).await;
    // Pops and samples answer at most the set, whatever the count.
    assert_eq!(sets.sample("s", 1_000).await.map(|s| s.len()), Some(3));
}

async fn a_union_past_the_element_limit_is_refused(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let refused = sets.try_union(union("s", &["d", "e", "f"])).await;
    let status = assert_status(refused, Code::ResourceExhausted, None);
    assert!(
        status.message().contains("6 elements")
            && status.message().contains("--max-collection-elements"),
        "{status:?}"
    );
    assert_unchanged(&mut sets).await;
    // Elements already there, or given twice, do not count.
    sets.union("s", &["a", "d", "d", "e"]).await;
    assert_eq!(sets.length("s").await, Some(5));
    sets.union("s", &["a", "b", "c", "e"]).await;
    assert_eq!(sets.length("s").await, Some(5));
}

async fn a_union_needs_a_ttl_within_the_limit(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    for ttl in [0, 3_600_001] {
        let mut request = union("s", &["x"]);
        request.ttl_milliseconds = ttl;
        invalid(sets.try_union(request).await);
    }
    assert_unchanged(&mut sets).await;
}

async fn pop_needs_a_count_and_difference_a_subtrahend(store: Store) {
    use set_difference_request::{Difference, Minuend, Subtrahend};
    let (_server, _redis, mut sets) = start(store).await;
    let c = &mut sets.0;
    let status = invalid(
        c.client
            .set_pop(c.request(SetPopRequest {
                set_name: bytes("s"),
                count: 0,
            }))
            .await
            .map(drop),
    );
    assert!(status.message().contains("count"), "{status:?}");
    for difference in [
        None,
        Some(Difference::Subtrahend(Subtrahend {
            subtrahend_set: None,
        })),
        Some(Difference::Minuend(Minuend {
            elements: vec![bytes("a")],
        })),
    ] {
        let request = SetDifferenceRequest {
            set_name: bytes("s"),
            difference,
        };
        invalid(c.client.set_difference(c.request(request)).await.map(drop));
    }
    assert_unchanged(&mut sets).await;
}

async fn a_missing_cache_is_not_found(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let c = &mut sets.0;
    let request = common::in_cache("no-such-cache", union("s", &["x"]));
    assert_status(c.client.set_union(request).await, Code::NotFound, None);
    let request = common::in_cache(
        "no-such-cache",
        SetFetchRequest {
            set_name: bytes("s"),
        },
    );
    assert_status(c.client.set_fetch(request).await, Code::NotFound, None);
    let request = common::in_cache(
        "no-such-cache",
        SetPopRequest {
            set_name: bytes("s"),
            count: 1,
        },
    );
    assert_status(c.client.set_pop(request).await, Code::NotFound, None);
}
