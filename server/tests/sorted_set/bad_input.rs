//! Bad input of each sorted set call: its status, and that nothing changed.

use std::time::Duration;

use jiffy_server::proto::cache_client::*;
use tonic::{Code, Status};

use super::support::*;
use crate::common::stores::{on_both_stores, SMALL_LIMITS};
use crate::common::{self, assert_status, TestServer};

on_both_stores!(
    names_must_be_nonempty_and_within_the_key_limit,
    scores_and_amounts_must_be_finite,
    a_value_over_the_limit_refuses_the_whole_write,
    a_request_over_the_item_limit_is_refused,
    a_write_past_the_element_limit_is_refused,
    ranges_the_wrong_way_round_and_a_zero_count_are_refused,
    a_union_needs_sources_with_finite_weights,
    a_union_past_the_finite_scores_changes_nothing,
    writes_need_a_ttl_within_the_limit,
    a_missing_cache_is_not_found,
    a_union_reading_past_the_element_limit_changes_nothing,
);

async fn start(store: Store) -> (TestServer, Option<RedisNode>, Zsets) {
    let (server, redis) = store.start(SMALL_LIMITS).await;
    let mut sets = Zsets::new(&server).await;
    sets.put("s", &[("a", 1.0), ("b", 2.0), ("c", 3.0)]).await;
    (server, redis, sets)
}

/// The set is still {a: 1, b: 2, c: 3}, with its TTL of a minute.
async fn assert_unchanged(sets: &mut Zsets) {
    assert_eq!(
        sets.all("s").await,
        Some(pairs(&[("a", 1.0), ("b", 2.0), ("c", 3.0)]))
    );
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
                .sorted_set_put(c.request(put(name, &[("x", 1.0)], MINUTE_MS, false)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .sorted_set_fetch(c.request(by_index(name, None, None, false)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .sorted_set_increment(c.request(increment(name, "x", 1.0)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .sorted_set_remove(c.request(remove_all(name)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .sorted_set_get_rank(c.request(rank_request(name, "a", false)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .sorted_set_union_store(c.request(union_store(name, &[("s", 1.0)], 0)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .sorted_set_union_store(c.request(union_store("d", &[("s", 1.0), (name, 1.0)], 0)))
                .await
                .map(drop),
        );
    }
    assert_unchanged(&mut sets).await;
}

async fn scores_and_amounts_must_be_finite(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let c = &mut sets.0;
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let status = invalid(
            c.client
                .sorted_set_put(c.request(put("s", &[("a", 9.0), ("x", bad)], MINUTE_MS, true)))
                .await
                .map(drop),
        );
        assert!(status.message().contains("finite"), "{status:?}");
        invalid(
            c.client
                .sorted_set_increment(c.request(increment("s", "a", bad)))
                .await
                .map(drop),
        );
    }
    invalid(
        c.client
            .sorted_set_fetch(c.request(by_score("s", Some((f64::NAN, false)), None, 0, -1, false)))
            .await
            .map(drop),
    );
    invalid(
        c.client
            .sorted_set_length_by_score(c.request(length_by_score(
                "s",
                None,
                Some((f64::NAN, true)),
            )))
            .await
            .map(drop),
    );
    assert_unchanged(&mut sets).await;
}

async fn a_value_over_the_limit_refuses_the_whole_write(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let big = "v".repeat(1025);
    let c = &mut sets.0;
    let too_big = |result: Result<(), Status>| {
        assert_status(
            result,
            Code::ResourceExhausted,
            Some(jiffy_server::error::reason::ELEMENT_SIZE_LIMIT_EXCEEDED),
        )
    };
    too_big(
        c.client
            .sorted_set_put(c.request(put("s", &[("a", 5.0), (&big, 1.0)], MINUTE_MS, true)))
            .await
            .map(drop),
    );
    too_big(
        c.client
            .sorted_set_increment(c.request(increment("s", &big, 1.0)))
            .await
            .map(drop),
    );
    assert_unchanged(&mut sets).await;
}

async fn a_request_over_the_item_limit_is_refused(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let c = &mut sets.0;
    let five = [("a", 9.0), ("v", 1.0), ("w", 1.0), ("x", 1.0), ("y", 1.0)];
    let over = |result: Result<(), Status>| {
        assert_status(
            result,
            Code::ResourceExhausted,
            Some(jiffy_server::error::reason::REQUEST_SIZE_LIMIT_EXCEEDED),
        )
    };
    over(
        c.client
            .sorted_set_put(c.request(put("s", &five, MINUTE_MS, true)))
            .await
            .map(drop),
    );
    over(
        c.client
            .sorted_set_remove(c.request(remove_values("s", &["a", "b", "c", "d", "e"])))
            .await
            .map(drop),
    );
    let scores = SortedSetGetScoreRequest {
        set_name: bytes("s"),
        values: ["a", "b", "c", "d", "e"].iter().map(|v| bytes(v)).collect(),
    };
    over(
        c.client
            .sorted_set_get_score(c.request(scores))
            .await
            .map(drop),
    );
    let sources = [("s", 1.0), ("t", 1.0), ("u", 1.0), ("v", 1.0), ("w", 1.0)];
    over(
        c.client
            .sorted_set_union_store(c.request(union_store("s", &sources, 0)))
            .await
            .map(drop),
    );
    assert_unchanged(&mut sets).await;
}

async fn a_write_past_the_element_limit_is_refused(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    sets.put("s", &[("d", 4.0), ("e", 5.0)]).await;
    sets.remove(remove_values("s", &["d", "e"])).await;
    let c = &mut sets.0;
    let full = |result: Result<(), Status>| assert_status(result, Code::ResourceExhausted, None);
    // Three new values onto three: six, over five; a value given twice counts once.
    let status = full(
        c.client
            .sorted_set_put(c.request(put(
                "s",
                &[("a", 7.0), ("x", 1.0), ("y", 1.0), ("z", 1.0)],
                MINUTE_MS,
                true,
            )))
            .await
            .map(drop),
    );
    assert!(
        status.message().contains("--max-collection-elements"),
        "{status:?}"
    );
    c.client
        .sorted_set_put(c.request(put(
            "full",
            &[("1", 1.0), ("2", 2.0), ("3", 3.0), ("4", 4.0)],
            MINUTE_MS,
            false,
        )))
        .await
        .unwrap();
    c.client
        .sorted_set_put(c.request(put(
            "full",
            &[("5", 5.0), ("5", 6.0), ("1", 0.0)],
            MINUTE_MS,
            false,
        )))
        .await
        .unwrap();
    full(
        c.client
            .sorted_set_increment(c.request(increment("full", "6", 1.0)))
            .await
            .map(drop),
    );
    c.client
        .sorted_set_increment(c.request(increment("full", "5", 1.0)))
        .await
        .unwrap();
    // A union of six values.
    let sources = [("full", 1.0), ("s", 1.0)];
    full(
        c.client
            .sorted_set_union_store(c.request(union_store("s", &sources, 0)))
            .await
            .map(drop),
    );
    assert_eq!(sets.length("full").await, Some(5));
    assert_eq!(
        sets.scores("full", &["5", "1"]).await,
        Some(vec![Some(7.0), Some(0.0)])
    );
    assert_unchanged(&mut sets).await;
}

async fn ranges_the_wrong_way_round_and_a_zero_count_are_refused(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let c = &mut sets.0;
    for (start, end) in [(5, 3), (-3, -5), (-2, -2)] {
        invalid(
            c.client
                .sorted_set_fetch(c.request(by_index("s", Some(start), Some(end), false)))
                .await
                .map(drop),
        );
        invalid(
            c.client
                .sorted_set_fetch(c.request(by_index("nope", Some(start), Some(end), true)))
                .await
                .map(drop),
        );
    }
    let inverted = by_score("s", Some((10.0, false)), Some((1.0, false)), 0, -1, false);
    invalid(
        c.client
            .sorted_set_fetch(c.request(inverted))
            .await
            .map(drop),
    );
    let zero = by_score("s", None, None, 0, 0, false);
    invalid(c.client.sorted_set_fetch(c.request(zero)).await.map(drop));
    let inverted = length_by_score("s", Some((3.0, true)), Some((1.0, false)));
    invalid(
        c.client
            .sorted_set_length_by_score(c.request(inverted))
            .await
            .map(drop),
    );
    let mut unknown = by_index("s", None, None, false);
    unknown.order = 7;
    invalid(
        c.client
            .sorted_set_fetch(c.request(unknown))
            .await
            .map(drop),
    );
    let no_remove = SortedSetRemoveRequest {
        set_name: bytes("s"),
        remove_elements: None,
    };
    invalid(
        c.client
            .sorted_set_remove(c.request(no_remove))
            .await
            .map(drop),
    );
    invalid(
        c.client
            .sorted_set_put(c.request(put("s", &[], MINUTE_MS, true)))
            .await
            .map(drop),
    );
    assert_unchanged(&mut sets).await;
}

async fn a_union_needs_sources_with_finite_weights(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let c = &mut sets.0;
    invalid(
        c.client
            .sorted_set_union_store(c.request(union_store("s", &[], 0)))
            .await
            .map(drop),
    );
    for weight in [f32::NAN, f32::INFINITY] {
        invalid(
            c.client
                .sorted_set_union_store(c.request(union_store("s", &[("s", weight)], 0)))
                .await
                .map(drop),
        );
    }
    invalid(
        c.client
            .sorted_set_union_store(c.request(union_store("s", &[("s", 1.0)], 3)))
            .await
            .map(drop),
    );
    assert_unchanged(&mut sets).await;
}

async fn a_union_past_the_finite_scores_changes_nothing(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    sets.put("big", &[("a", f64::MAX)]).await;
    let c = &mut sets.0;
    let sources = [("big", 1.0), ("big", 1.0), ("s", 1.0)];
    let refused = c
        .client
        .sorted_set_union_store(c.request(union_store("s", &sources, 0)))
        .await;
    assert_status(refused, Code::FailedPrecondition, None);
    let sources = [("big", 2.0)];
    let refused = c
        .client
        .sorted_set_union_store(c.request(union_store("s", &sources, 2)))
        .await;
    assert_status(refused, Code::FailedPrecondition, None);
    assert_unchanged(&mut sets).await;
}

async fn writes_need_a_ttl_within_the_limit(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let c = &mut sets.0;
    for ttl in [0, 2 * 3_600_000] {
        invalid(
            c.client
                .sorted_set_put(c.request(put("s", &[("a", 9.0)], ttl, true)))
                .await
                .map(drop),
        );
        let mut inc = increment("s", "a", 1.0);
        // A zero TTL is refused when it is refreshed.
        (inc.ttl_milliseconds, inc.refresh_ttl) = (ttl, true);
        invalid(
            c.client
                .sorted_set_increment(c.request(inc))
                .await
                .map(drop),
        );
        let mut union = union_store("s", &[("s", 2.0)], 0);
        union.ttl_milliseconds = ttl;
        invalid(
            c.client
                .sorted_set_union_store(c.request(union))
                .await
                .map(drop),
        );
    }
    assert_unchanged(&mut sets).await;
}

async fn a_missing_cache_is_not_found(store: Store) {
    let (server, _redis, _sets) = start(store).await;
    let mut client = server.data().await;
    let not_found = |result: Result<(), Status>| assert_status(result, Code::NotFound, None);
    not_found(
        client
            .sorted_set_put(common::in_cache(
                "nope",
                put("s", &[("a", 1.0)], MINUTE_MS, false),
            ))
            .await
            .map(drop),
    );
    not_found(
        client
            .sorted_set_fetch(common::in_cache("nope", by_index("s", None, None, false)))
            .await
            .map(drop),
    );
    not_found(
        client
            .sorted_set_union_store(common::in_cache("nope", union_store("s", &[("s", 1.0)], 0)))
            .await
            .map(drop),
    );
    not_found(
        client
            .sorted_set_length(common::in_cache(
                "nope",
                SortedSetLengthRequest {
                    set_name: bytes("s"),
                },
            ))
            .await
            .map(drop),
    );
}

/// A union's work is the sources' elements, each naming counted: the set
/// of three named twice is six, over the limit of five, refused before any
/// source is read, though the union itself would hold three.
async fn a_union_reading_past_the_element_limit_changes_nothing(store: Store) {
    let (_server, _redis, mut sets) = start(store).await;
    let c = &mut sets.0;
    let status = assert_status(
        c.client
            .sorted_set_union_store(c.request(union_store("s", &[("s", 1.0), ("s", 2.0)], 0)))
            .await
            .map(drop),
        Code::ResourceExhausted,
        None,
    );
    assert!(
        status.message().contains("--max-collection-elements"),
        "{status:?}"
    );
    assert_unchanged(&mut sets).await;
}
