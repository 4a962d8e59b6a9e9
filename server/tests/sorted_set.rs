//! The sorted set calls over a real socket: every call, its edges (ranges
//! both ways, ties, emptied sets, unions), the collection TTL, wrong
//! types, scores that round-trip exactly, and bad input of each call (its
//! status, and that nothing changed, in `sorted_set/bad_input.rs`). Every
//! test runs on both stores.

use std::time::Duration;

use common::assert_status;
use jiffy_server::proto::cache_client::*;
use support::*;
use tonic::Code;

use crate::common;
use common::stores::on_both_stores;
mod bad_input;
mod support;

on_both_stores!(
    fetch_by_index_in_either_order,
    fetch_by_score_with_bounds_offset_and_count,
    an_empty_range_is_found_empty_and_a_missing_set_misses,
    ties_are_ordered_by_value_bytes,
    scores_and_ranks_hit_or_miss,
    put_replaces_scores,
    increment_counts_an_absent_value_as_zero,
    remove_some_or_all_and_the_emptied_set_is_gone,
    lengths_whole_and_by_score,
    union_store_weighs_and_aggregates,
    union_store_of_nothing_removes_the_destination,
    a_source_named_again_counts_again,
    scores_round_trip_exactly,
    a_new_set_gets_the_ttl_and_a_write_refreshes_it_only_when_asked,
    calls_of_other_types_fail_the_precondition_and_change_nothing,
    item_calls_see_a_sorted_set,
);

/// The set of the official suites' examples.
const MENU: &[(&str, f64)] = &[
    ("bam", 1000.0),
    ("foo", 1.0),
    ("taco", 90210.0),
    ("bar", 2.0),
    ("burrito", 9000.0),
    ("baz", 42.0),
    ("habanero", 68.0),
    ("jalapeno", 1_000_000.0),
];

fn names(values: &[&str]) -> Option<Vec<String>> {
    Some(values.iter().map(|v| v.to_string()).collect())
}

async fn menu(store: Store) -> (crate::common::TestServer, Option<RedisNode>, Zsets) {
    let (server, redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    sets.put("menu", MENU).await;
    (server, redis, sets)
}

async fn fetch_by_index_in_either_order(store: Store) {
    let (_server, _redis, mut sets) = menu(store).await;
    let asc = [
        (
            None,
            None,
            &[
                "foo", "bar", "baz", "habanero", "bam", "burrito", "taco", "jalapeno",
            ][..],
        ),
        (Some(4), None, &["bam", "burrito", "taco", "jalapeno"]),
        (None, Some(3), &["foo", "bar", "baz"]),
        (Some(1), Some(5), &["bar", "baz", "habanero", "bam"]),
        (Some(5), Some(100), &["burrito", "taco", "jalapeno"]),
        (
            Some(-5),
            None,
            &["habanero", "bam", "burrito", "taco", "jalapeno"],
        ),
        (
            None,
            Some(-2),
            &["foo", "bar", "baz", "habanero", "bam", "burrito"],
        ),
        (Some(-5), Some(-2), &["habanero", "bam", "burrito"]),
    ];
    for (start, end, expected) in asc {
        let fetched = sets.values(by_index("menu", start, end, false)).await;
        assert_eq!(fetched, names(expected), "{start:?}..{end:?}");
    }
    let desc = [
        (
            None,
            None,
            &[
                "jalapeno", "taco", "burrito", "bam", "habanero", "baz", "bar", "foo",
            ][..],
        ),
        (Some(5), None, &["baz", "bar", "foo"]),
        (None, Some(3), &["jalapeno", "taco", "burrito"]),
        (Some(3), Some(5), &["bam", "habanero"]),
    ];
    for (start, end, expected) in desc {
        let fetched = sets.values(by_index("menu", start, end, true)).await;
        assert_eq!(fetched, names(expected), "desc {start:?}..{end:?}");
    }
    let with_scores = sets.fetch(by_index("menu", Some(0), Some(2), false)).await;
    assert_eq!(with_scores, Some(pairs(&[("foo", 1.0), ("bar", 2.0)])));
}

async fn fetch_by_score_with_bounds_offset_and_count(store: Store) {
    let (_server, _redis, mut sets) = menu(store).await;
    let inc = |s: f64| Some((s, false));
    let exc = |s: f64| Some((s, true));
    let cases = [
        (
            inc(100.0),
            None,
            0,
            -1,
            false,
            &["bam", "burrito", "taco", "jalapeno"][..],
        ),
        (
            None,
            inc(1000.0),
            0,
            -1,
            false,
            &["foo", "bar", "baz", "habanero", "bam"],
        ),
        (inc(100.0), inc(10_000.0), 0, -1, false, &["bam", "burrito"]),
        (inc(100.0), None, 2, -1, false, &["taco", "jalapeno"]),
        (inc(100.0), None, 0, 2, false, &["bam", "burrito"]),
        (inc(10.0), None, 2, 3, false, &["bam", "burrito", "taco"]),
        (
            inc(100.0),
            None,
            0,
            100,
            false,
            &["bam", "burrito", "taco", "jalapeno"],
        ),
        (
            inc(100.0),
            None,
            0,
            -1,
            true,
            &["jalapeno", "taco", "burrito", "bam"],
        ),
        (inc(20.0), inc(100_000.0), 2, 2, true, &["bam", "habanero"]),
        (exc(2.0), exc(1000.0), 0, -1, false, &["baz", "habanero"]),
        (
            exc(2.0),
            inc(1000.0),
            0,
            -1,
            true,
            &["bam", "habanero", "baz"],
        ),
        (inc(f64::NEG_INFINITY), inc(1.0), 0, -1, false, &["foo"]),
        (inc(1e6), inc(f64::INFINITY), 0, -1, false, &["jalapeno"]),
    ];
    for (min, max, offset, count, desc, expected) in cases {
        let fetched = sets
            .values(by_score("menu", min, max, offset, count, desc))
            .await;
        assert_eq!(
            fetched,
            names(expected),
            "{min:?}..{max:?} +{offset} x{count} desc {desc}"
        );
    }
}

async fn an_empty_range_is_found_empty_and_a_missing_set_misses(store: Store) {
    let (_server, _redis, mut sets) = menu(store).await;
    let empty = Some(Vec::new());
    assert_eq!(
        sets.fetch(by_index("menu", Some(10), None, false)).await,
        empty
    );
    assert_eq!(
        sets.fetch(by_index("menu", Some(3), Some(3), false)).await,
        empty
    );
    assert_eq!(
        sets.fetch(by_index("menu", Some(5), Some(-5), false)).await,
        empty
    );
    let above = by_score("menu", Some((2e6, false)), None, 0, -1, false);
    assert_eq!(sets.fetch(above).await, empty);
    let past = by_score("menu", Some((100.0, false)), None, 5, -1, false);
    assert_eq!(sets.fetch(past).await, empty);
    let nothing = by_score("menu", Some((1.0, true)), Some((1.0, true)), 0, -1, false);
    assert_eq!(sets.fetch(nothing).await, empty);
    assert_eq!(sets.all("nope").await, None);
    let missing = by_score("nope", None, None, 0, -1, false);
    assert_eq!(sets.fetch(missing).await, None);
    // No range at all: the whole set; without scores: the values only.
    let c = &mut sets.0;
    let request = c.request(SortedSetFetchRequest {
        set_name: bytes("menu"),
        order: 0,
        with_scores: false,
        range: None,
    });
    let answer = c
        .client
        .sorted_set_fetch(request)
        .await
        .unwrap()
        .into_inner();
    use sorted_set_fetch_response::{found::Elements, SortedSet};
    match answer.sorted_set {
        Some(SortedSet::Found(found)) => match found.elements {
            Some(Elements::Values(values)) => assert_eq!(values.values.len(), 8),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

async fn ties_are_ordered_by_value_bytes(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    sets.put(
        "t",
        &[
            ("b", 1.0),
            ("a", 1.0),
            ("\u{e9}", 1.0),
            ("B", 1.0),
            ("c", 0.5),
        ],
    )
    .await;
    assert_eq!(
        sets.values(by_index("t", None, None, false)).await,
        names(&["c", "B", "a", "b", "\u{e9}"])
    );
    assert_eq!(
        sets.values(by_index("t", None, None, true)).await,
        names(&["\u{e9}", "b", "a", "B", "c"])
    );
    assert_eq!(sets.rank("t", "a", false).await, Some(Some(2)));
    assert_eq!(sets.rank("t", "a", true).await, Some(Some(2)));
    assert_eq!(sets.rank("t", "B", true).await, Some(Some(3)));
}

async fn scores_and_ranks_hit_or_miss(store: Store) {
    let (_server, _redis, mut sets) = menu(store).await;
    assert_eq!(
        sets.scores("menu", &["bar", "taco", "nope", "bar"]).await,
        Some(vec![Some(2.0), Some(90210.0), None, Some(2.0)])
    );
    assert_eq!(sets.scores("nope", &["bar"]).await, None);
    assert_eq!(sets.rank("menu", "foo", false).await, Some(Some(0)));
    assert_eq!(sets.rank("menu", "bam", false).await, Some(Some(4)));
    assert_eq!(sets.rank("menu", "bam", true).await, Some(Some(3)));
    assert_eq!(sets.rank("menu", "jalapeno", true).await, Some(Some(0)));
    assert_eq!(sets.rank("menu", "nope", false).await, Some(None));
    // A missing set: `missing`, as the Momento service answers.
    assert_eq!(sets.rank("nope", "foo", false).await, None);
}

async fn put_replaces_scores(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    sets.put("s", &[("a", 1.0), ("b", 2.0)]).await;
    sets.put("s", &[("a", 3.0), ("c", 0.0), ("c", -4.0)]).await;
    assert_eq!(
        sets.all("s").await,
        Some(pairs(&[("c", -4.0), ("b", 2.0), ("a", 3.0)]))
    );
    assert_eq!(sets.length("s").await, Some(3));
}

async fn increment_counts_an_absent_value_as_zero(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    assert_eq!(sets.increment("s", "foo", 1.0).await, 1.0);
    assert_eq!(sets.increment("s", "bar", 42.0).await, 42.0);
    assert_eq!(sets.increment("s", "foo", -10.5).await, -9.5);
    assert_eq!(sets.increment("s", "foo", 9.5).await, 0.0);
    assert_eq!(
        sets.all("s").await,
        Some(pairs(&[("foo", 0.0), ("bar", 42.0)]))
    );
    // Past the largest finite score: refused, and nothing changes.
    sets.put("s", &[("big", f64::MAX)]).await;
    let c = &mut sets.0;
    let refused = c
        .client
        .sorted_set_increment(c.request(increment("s", "big", f64::MAX)))
        .await;
    let status = assert_status(refused, Code::FailedPrecondition, None);
    assert!(status.message().contains("finite"), "{status:?}");
    assert_eq!(sets.scores("s", &["big"]).await, Some(vec![Some(f64::MAX)]));
}

async fn remove_some_or_all_and_the_emptied_set_is_gone(store: Store) {
    let (_server, _redis, mut sets) = menu(store).await;
    sets.remove(remove_values("menu", &["foo", "nope", "taco"]))
        .await;
    assert_eq!(sets.length("menu").await, Some(6));
    assert_eq!(sets.scores("menu", &["foo"]).await, Some(vec![None]));
    sets.remove(remove_values("menu", &[])).await;
    assert_eq!(sets.length("menu").await, Some(6));
    sets.remove(remove_all("menu")).await;
    assert_eq!(sets.all("menu").await, None);
    assert_eq!(
        sets.remaining_ttl("menu").await,
        None,
        "the emptied set is gone"
    );
    // Removing from a missing set is no error.
    sets.remove(remove_all("menu")).await;
    sets.put("two", &[("a", 1.0), ("b", 2.0)]).await;
    sets.remove(remove_values("two", &["a", "b"])).await;
    assert_eq!(sets.length("two").await, None);
}

async fn lengths_whole_and_by_score(store: Store) {
    let (_server, _redis, mut sets) = menu(store).await;
    assert_eq!(sets.length("menu").await, Some(8));
    assert_eq!(sets.length("nope").await, None);
    assert_eq!(sets.length_by_score("menu", None, None).await, Some(8));
    let count = sets
        .length_by_score("menu", Some((2.0, false)), Some((68.0, false)))
        .await;
    assert_eq!(count, Some(3));
    let count = sets
        .length_by_score("menu", Some((2.0, true)), Some((68.0, true)))
        .await;
    assert_eq!(count, Some(1));
    let count = sets.length_by_score("menu", Some((2e6, false)), None).await;
    assert_eq!(count, Some(0));
    assert_eq!(sets.length_by_score("nope", None, None).await, None);
}

async fn union_store_weighs_and_aggregates(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    sets.put("a", &[("x", 1.0), ("y", 2.0)]).await;
    // Many names, so sources fall both in the destination's slot and in others.
    let names: Vec<String> = (0..12).map(|i| format!("b{i}")).collect();
    for name in &names {
        sets.put(name, &[("y", 10.0), ("z", 3.0)]).await;
    }
    for name in &names {
        let sources = [("a", 1.0), (name.as_str(), 2.0), ("missing", 5.0)];
        assert_eq!(sets.union_store("d", &sources, 0).await, 3);
        assert_eq!(
            sets.all("d").await,
            Some(pairs(&[("x", 1.0), ("z", 6.0), ("y", 22.0)])),
            "sum with {name}"
        );
        let dest = format!("d-{name}");
        assert_eq!(sets.union_store(&dest, &sources, 1).await, 3);
        assert_eq!(sets.scores(&dest, &["y"]).await, Some(vec![Some(2.0)]));
        assert_eq!(sets.union_store(&dest, &sources, 2).await, 3);
        assert_eq!(sets.scores(&dest, &["y"]).await, Some(vec![Some(20.0)]));
    }
    // The destination among the sources, weighed again; a negative weight.
    assert_eq!(
        sets.union_store("a", &[("a", 2.0), ("b0", -1.0)], 0).await,
        3
    );
    assert_eq!(
        sets.all("a").await,
        Some(pairs(&[("y", -6.0), ("z", -3.0), ("x", 2.0)]))
    );
    // A weight of 0 makes every score 0 (never -0).
    assert_eq!(sets.union_store("zero", &[("a", 0.0)], 0).await, 3);
    let zeros = sets.scores("zero", &["x", "y"]).await.unwrap();
    assert!(zeros.iter().all(|s| s.unwrap().to_bits() == 0), "{zeros:?}");
    assert!(sets.remaining_ttl("d").await.unwrap() > Duration::from_secs(50));
}

/// A source named twice is read once but counts once per naming, in
/// the sources' order, on either side of the destination's slot.
async fn a_source_named_again_counts_again(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    sets.put("a", &[("x", 1.0), ("y", 2.0)]).await;
    let names: Vec<String> = (0..12).map(|i| format!("b{i}")).collect();
    for name in &names {
        sets.put(name, &[("y", 10.0), ("z", 3.0)]).await;
        let b = name.as_str();
        let sources = [(b, 1.0), ("a", 1.0), (b, 2.0), ("a", 0.5)];
        assert_eq!(sets.union_store("d", &sources, 0).await, 3);
        assert_eq!(
            sets.all("d").await,
            Some(pairs(&[("x", 1.5), ("z", 9.0), ("y", 33.0)])),
            "sum with {name}"
        );
        assert_eq!(sets.union_store("d", &sources, 1).await, 3);
        assert_eq!(
            sets.all("d").await,
            Some(pairs(&[("x", 0.5), ("y", 1.0), ("z", 3.0)])),
            "min with {name}"
        );
        assert_eq!(sets.union_store("d", &sources, 2).await, 3);
        assert_eq!(
            sets.all("d").await,
            Some(pairs(&[("x", 1.0), ("z", 6.0), ("y", 20.0)])),
            "max with {name}"
        );
    }
}

async fn union_store_of_nothing_removes_the_destination(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    sets.put("d", &[("old", 1.0)]).await;
    assert_eq!(
        sets.union_store("d", &[("none", 1.0), ("nor", 2.0)], 0)
            .await,
        0
    );
    assert_eq!(sets.all("d").await, None);
    assert_eq!(sets.remaining_ttl("d").await, None);
    assert_eq!(sets.union_store("e", &[("none", 1.0)], 0).await, 0);
    assert_eq!(sets.length("e").await, None);
}

async fn scores_round_trip_exactly(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    let scores = [
        0.1,
        1.0 / 3.0,
        -2.5e-300,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f64::MIN,
        123_456_789.123_456_78,
        9_007_199_254_740_993.0,
        -0.0,
    ];
    let names: Vec<String> = (0..scores.len()).map(|i| format!("v{i}")).collect();
    let elements: Vec<(&str, f64)> = names.iter().map(|n| n.as_str()).zip(scores).collect();
    sets.put("s", &elements).await;
    let held = sets
        .scores("s", &names.iter().map(|n| n.as_str()).collect::<Vec<_>>())
        .await;
    let expected: Vec<Option<f64>> = scores
        .iter()
        .map(|s| Some(if *s == 0.0 { 0.0 } else { *s }))
        .collect();
    let bits = |v: &[Option<f64>]| v.iter().map(|s| s.map(f64::to_bits)).collect::<Vec<_>>();
    assert_eq!(bits(&held.unwrap()), bits(&expected));
    let fetched = sets.all("s").await.unwrap();
    for (value, score) in fetched {
        let i: usize = value[1..].parse().unwrap();
        assert_eq!(score.to_bits(), expected[i].unwrap().to_bits(), "{value}");
    }
    assert_eq!(sets.increment("s", "v0", 0.2).await, 0.1 + 0.2);
    assert_eq!(sets.increment("s", "v1", 1e-17).await, 1.0 / 3.0 + 1e-17);
}

async fn a_new_set_gets_the_ttl_and_a_write_refreshes_it_only_when_asked(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    let c = &mut sets.0;
    c.client
        .sorted_set_put(c.request(put("s", &[("a", 1.0)], 1_000, false)))
        .await
        .unwrap();
    c.client
        .sorted_set_put(c.request(put("s", &[("b", 2.0)], 10 * MINUTE_MS, false)))
        .await
        .unwrap();
    assert!(sets.remaining_ttl("s").await.unwrap() <= Duration::from_secs(1));
    let c = &mut sets.0;
    c.client
        .sorted_set_put(c.request(put("r", &[("a", 1.0)], 1_000, true)))
        .await
        .unwrap();
    c.client
        .sorted_set_put(c.request(put("r", &[("b", 2.0)], 10 * MINUTE_MS, true)))
        .await
        .unwrap();
    assert!(sets.remaining_ttl("r").await.unwrap() > Duration::from_secs(60));
    let c = &mut sets.0;
    let mut refresh = increment("r", "a", 1.0);
    refresh.ttl_milliseconds = 1_000;
    refresh.refresh_ttl = true;
    c.client
        .sorted_set_increment(c.request(refresh))
        .await
        .unwrap();
    assert!(sets.remaining_ttl("r").await.unwrap() <= Duration::from_secs(1));
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(sets.all("s").await, None, "read after its TTL: missing");
    assert_eq!(sets.length("r").await, None);
}

async fn calls_of_other_types_fail_the_precondition_and_change_nothing(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    sets.0.put(b"k", b"v").await;
    sets.put("z", &[("a", 1.0)]).await;
    let c = &mut sets.0;
    let failed = |result: Result<(), tonic::Status>| {
        let status = assert_status(result, Code::FailedPrecondition, None);
        assert!(status.message().contains("sorted set"), "{status:?}");
    };
    failed(
        c.client
            .sorted_set_put(c.request(put("k", &[("a", 1.0)], MINUTE_MS, true)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .sorted_set_fetch(c.request(by_index("k", None, None, false)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .sorted_set_fetch(c.request(by_score("k", None, None, 0, -1, false)))
            .await
            .map(drop),
    );
    let scores = SortedSetGetScoreRequest {
        set_name: bytes("k"),
        values: vec![bytes("a")],
    };
    failed(
        c.client
            .sorted_set_get_score(c.request(scores))
            .await
            .map(drop),
    );
    failed(
        c.client
            .sorted_set_get_rank(c.request(rank_request("k", "a", false)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .sorted_set_increment(c.request(increment("k", "a", 1.0)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .sorted_set_remove(c.request(remove_all("k")))
            .await
            .map(drop),
    );
    failed(
        c.client
            .sorted_set_remove(c.request(remove_values("k", &["a"])))
            .await
            .map(drop),
    );
    let length = SortedSetLengthRequest {
        set_name: bytes("k"),
    };
    failed(
        c.client
            .sorted_set_length(c.request(length))
            .await
            .map(drop),
    );
    failed(
        c.client
            .sorted_set_length_by_score(c.request(length_by_score("k", None, None)))
            .await
            .map(drop),
    );
    // As a destination, and as a source.
    failed(
        c.client
            .sorted_set_union_store(c.request(union_store("k", &[("z", 1.0)], 0)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .sorted_set_union_store(c.request(union_store("z", &[("z", 1.0), ("k", 1.0)], 0)))
            .await
            .map(drop),
    );
    assert_eq!(c.value_of(b"k").await, "v");
    assert_eq!(sets.all("z").await, Some(pairs(&[("a", 1.0)])));
    // A list call on the sorted set.
    let c = &mut sets.0;
    let pushed = c
        .client
        .list_push_back(c.request(ListPushBackRequest {
            list_name: bytes("z"),
            value: bytes("x"),
            ttl_milliseconds: MINUTE_MS,
            refresh_ttl: true,
            truncate_front_to_size: 0,
        }))
        .await;
    let status = assert_status(pushed, Code::FailedPrecondition, None);
    assert!(status.message().contains("a sorted set"), "{status:?}");
}

async fn item_calls_see_a_sorted_set(store: Store) {
    use item_get_type_response::{ItemType, Result};
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Zsets::new(&server).await;
    sets.put("z", &[("a", 1.0)]).await;
    let c = &mut sets.0;
    let kind = c
        .client
        .item_get_type(c.request(ItemGetTypeRequest {
            cache_key: bytes("z"),
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(
        matches!(kind.result, Some(Result::Found(f)) if f.item_type == ItemType::SortedSet as i32)
    );
    let left = sets.remaining_ttl("z").await.unwrap();
    assert!(left > Duration::from_secs(50) && left <= Duration::from_secs(60));
    let c = &mut sets.0;
    c.client
        .delete(c.request(DeleteRequest {
            cache_key: bytes("z"),
        }))
        .await
        .unwrap();
    assert_eq!(sets.all("z").await, None);
}
