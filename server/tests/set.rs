//! The set calls over a real socket: every call, its edges (duplicates,
//! emptied sets, random pops and samples), the collection TTL, wrong types,
//! and bad input of each call (its status, and that nothing changed, in
//! `set/bad_input.rs`). Every test runs on both stores.

use std::collections::BTreeSet;
use std::time::Duration;

use common::assert_status;
use jiffy_server::proto::cache_client::*;
use support::*;
use tonic::{Code, Status};

use crate::common;
use common::stores::on_both_stores;
mod bad_input;
mod support;

on_both_stores!(
    union_adds_each_element_once_and_fetch_answers_them_all,
    a_union_of_nothing_creates_nothing,
    difference_removes_elements_or_the_whole_set,
    contains_answers_each_element_in_the_order_asked,
    pop_takes_random_elements_until_the_set_is_gone,
    a_pop_over_the_response_limit_is_refused_and_changes_nothing,
    large_pops_of_elements_of_many_sizes_succeed,
    sample_answers_distinct_elements_and_leaves_them,
    a_new_set_gets_the_ttl_and_a_union_refreshes_it_only_when_asked,
    set_calls_on_other_types_fail_the_precondition_and_change_nothing,
    item_calls_see_a_set,
    a_flushed_cache_has_no_sets,
);

const FIVE: &[&str] = &["apples", "bananas", "carrots", "dates", "elderberries"];

async fn union_adds_each_element_once_and_fetch_answers_them_all(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    assert_eq!(sets.fetch("s").await, None);
    assert_eq!(sets.length("s").await, None);
    sets.union("s", &["a", "b", "a"]).await;
    assert_eq!(sets.fetch("s").await, strings(&["a", "b"]));
    sets.union("s", &["b", "c", ""]).await;
    assert_eq!(sets.fetch("s").await, strings(&["a", "b", "c", ""]));
    assert_eq!(sets.length("s").await, Some(4));

    // Any bytes.
    let all: Vec<u8> = (0..=255).collect();
    let c = &mut sets.0;
    let binary = SetUnionRequest {
        set_name: bytes("binary"),
        elements: vec![all.clone().into(), vec![0xff, 0].into()],
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: false,
    };
    c.client.set_union(c.request(binary)).await.unwrap();
    let fetched = c
        .client
        .set_fetch(c.request(SetFetchRequest {
            set_name: bytes("binary"),
        }))
        .await
        .unwrap()
        .into_inner();
    let Some(set_fetch_response::Set::Found(found)) = fetched.set else {
        panic!("{fetched:?}")
    };
    let found: BTreeSet<Vec<u8>> = found.elements.iter().map(|e| e.to_vec()).collect();
    assert_eq!(found, BTreeSet::from([all, vec![0xff, 0]]));
}

async fn a_union_of_nothing_creates_nothing(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    sets.union("none", &[]).await;
    assert_eq!(sets.fetch("none").await, None);
    assert_eq!(sets.remaining_ttl("none").await, None);
    sets.union("s", &["a"]).await;
    sets.union("s", &[]).await;
    assert_eq!(sets.fetch("s").await, strings(&["a"]));
}

async fn difference_removes_elements_or_the_whole_set(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    assert!(!sets.difference(remove("s", &["a"])).await);
    assert!(!sets.difference(remove_all("s")).await);
    assert_eq!(sets.fetch("s").await, None, "difference creates nothing");

    sets.union("s", FIVE).await;
    assert!(
        sets.difference(remove("s", &["bananas", "figs", "dates"]))
            .await
    );
    assert_eq!(
        sets.fetch("s").await,
        strings(&["apples", "carrots", "elderberries"])
    );
    assert!(sets.difference(remove("s", &[])).await);
    assert_eq!(sets.length("s").await, Some(3));
    // Removing the last elements removes the set.
    assert!(
        sets.difference(remove("s", &["apples", "carrots", "elderberries"]))
            .await
    );
    assert_eq!(sets.fetch("s").await, None);
    assert_eq!(sets.remaining_ttl("s").await, None);
    assert!(!sets.difference(remove("s", &["apples"])).await);

    sets.union("s", FIVE).await;
    assert!(sets.difference(remove_all("s")).await);
    assert_eq!(sets.length("s").await, None);
}

async fn contains_answers_each_element_in_the_order_asked(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    assert_eq!(sets.contains("s", &["a"]).await, None);
    sets.union("s", &["a", "c", ""]).await;
    assert_eq!(
        sets.contains("s", &["c", "b", "", "a", "a"]).await,
        Some(vec![true, false, true, true, true])
    );
    assert_eq!(sets.contains("s", &[]).await, Some(vec![]));
}

async fn pop_takes_random_elements_until_the_set_is_gone(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    assert_eq!(sets.pop("s", 1).await, None);
    let ten: Vec<String> = (0..10).map(|n| format!("#{n}")).collect();
    let ten: Vec<&str> = ten.iter().map(String::as_str).collect();
    sets.union("s", &ten).await;
    let mut taken = BTreeSet::new();
    for (count, answered, left) in [(1, 1, 9), (4, 4, 5), (9, 5, 0)] {
        let popped = sets.pop("s", count).await.unwrap();
        assert_eq!(popped.len(), answered);
        assert_eq!(sets.length("s").await.unwrap_or(0), left);
        let rest = sets.fetch("s").await.unwrap_or_default();
        for element in popped {
            assert!(!rest.contains(&element), "{element} popped, still there");
            assert!(taken.insert(element), "popped twice");
        }
    }
    assert_eq!(Some(taken), strings(&ten));
    assert_eq!(sets.pop("s", 1).await, None);
    assert_eq!(sets.remaining_ttl("s").await, None);

    // A pop of more elements than one script call can pass at once.
    let many: Vec<String> = (0..2500).map(|n| n.to_string()).collect();
    for slice in many.chunks(500) {
        let slice: Vec<&str> = slice.iter().map(String::as_str).collect();
        sets.union("many", &slice).await;
    }
    assert_eq!(sets.pop("many", 2400).await.map(|e| e.len()), Some(2400));
    assert_eq!(sets.length("many").await, Some(100));
}

/// A pop whose answer would pass `--max-response-size` is refused, naming
/// the flag, before it removes anything: the set keeps every element (a
/// check after the pop would lose them with the answer).
async fn a_pop_over_the_response_limit_is_refused_and_changes_nothing(store: Store) {
    let limits = ["--max-value-size", "1KiB", "--max-response-size", "4KiB"];
    let (server, _redis) = store.start(&limits).await;
    let mut sets = Sets::new(&server).await;
    // Five elements of 1,000 bytes: 5,018 bytes encoded, three are 3,012.
    let five: Vec<String> = (0..5).map(|n| n.to_string().repeat(1000)).collect();
    let five: Vec<&str> = five.iter().map(String::as_str).collect();
    sets.union("s", &five).await;
    let refusals = || async {
        let text = server.metrics().await;
        let series = r#"jiffy_answers_refused_total{reason="max_response_size"}"#;
        common::sample(&text, series).expect("the refusal counter is served")
    };
    let refused_before = refusals().await;
    for count in [5, 6, u32::MAX] {
        let c = &mut sets.0;
        let refused = c
            .client
            .set_pop(c.request(SetPopRequest {
                set_name: bytes("s"),
                count,
            }))
            .await
            .map(drop);
        let status = assert_status(refused, Code::ResourceExhausted, None);
        assert!(
            status.message().contains("5018 bytes")
                && status.message().contains("--max-response-size"),
            "{status:?}"
        );
        assert_eq!(sets.length("s").await, Some(5), "pop of {count}");
        assert_eq!(sets.contains("s", &five).await, Some(vec![true; 5]));
    }
    // At least these three: the counter is the process's, other tests add.
    assert!(refusals().await >= refused_before + 3.0);
    let three = sets.pop("s", 3).await.unwrap();
    assert_eq!(three.len(), 3);
    assert_eq!(sets.length("s").await, Some(2));
    assert_eq!(sets.pop("s", 5).await.map(|e| e.len()), Some(2));
    assert_eq!(sets.length("s").await, None);
}

/// Pops whose answers are large enough to be charged before they leave the
/// store (over 16 KiB), of elements of many sizes: each pick differs in
/// size, and none may fail for it (the Redis store announces a large pick's
/// size, then picks again with that much charged).
async fn large_pops_of_elements_of_many_sizes_succeed(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    let elements: Vec<String> = (0..300)
        .map(|n| format!("{n:04}{}", "x".repeat(n * 37 % 3000)))
        .collect();
    let elements: Vec<&str> = elements.iter().map(String::as_str).collect();
    for round in 0..3 {
        sets.union("s", &elements).await;
        let mut taken = 0;
        while let Some(popped) = sets.pop("s", 20).await {
            taken += popped.len();
        }
        assert_eq!(taken, 300, "round {round}");
    }
}

async fn sample_answers_distinct_elements_and_leaves_them(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    assert_eq!(sets.sample("s", 10).await, None);
    assert_eq!(sets.sample("s", 0).await, None);
    sets.union("s", FIVE).await;
    assert_eq!(sets.sample("s", 0).await, Some(vec![]));
    let mut seen = BTreeSet::new();
    for _ in 0..50 {
        for (limit, answered) in [(1, 1), (3, 3), (5, 5), (10, 5), (u64::MAX, 5)] {
            let sample = sets.sample("s", limit).await.unwrap();
            assert_eq!(sample.len(), answered, "limit {limit}");
            let distinct: BTreeSet<String> = sample.into_iter().collect();
            assert_eq!(distinct.len(), answered, "distinct");
            assert!(strings(FIVE).unwrap().is_superset(&distinct));
            if limit == 1 {
                seen.extend(distinct);
            }
        }
    }
    assert_eq!(
        Some(seen),
        strings(FIVE),
        "samples of one reach each element"
    );
    assert_eq!(sets.fetch("s").await, strings(FIVE));
}

async fn a_new_set_gets_the_ttl_and_a_union_refreshes_it_only_when_asked(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    let mut first = union("s", &["a"]);
    first.ttl_milliseconds = 200;
    first.refresh_ttl = false;
    sets.try_union(first).await.unwrap();
    let left = sets.remaining_ttl("s").await.unwrap();
    assert!(left <= Duration::from_millis(200), "{left:?}");

    // Without refresh the TTL stays; with it, it becomes the request's.
    let mut kept = union("s", &["b"]);
    kept.refresh_ttl = false;
    sets.try_union(kept).await.unwrap();
    assert!(sets.remaining_ttl("s").await.unwrap() <= Duration::from_millis(200));
    sets.union("s", &["c"]).await;
    assert!(sets.remaining_ttl("s").await.unwrap() > Duration::from_secs(50));

    // Removals and pops keep the TTL.
    let mut short = union("short", &["a", "b", "c"]);
    short.ttl_milliseconds = 300;
    sets.try_union(short).await.unwrap();
    sets.difference(remove("short", &["a"])).await;
    sets.pop("short", 1).await.unwrap();
    assert!(sets.remaining_ttl("short").await.unwrap() <= Duration::from_millis(300));

    // A set past its TTL is a miss.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(sets.fetch("short").await, None);
    assert_eq!(sets.length("short").await, None);
    assert_eq!(sets.contains("short", &["c"]).await, None);
    assert_eq!(sets.sample("short", 1).await, None);
}

async fn set_calls_on_other_types_fail_the_precondition_and_change_nothing(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    sets.0.put(b"k", b"v").await;
    let c = &mut sets.0;
    c.client
        .list_push_back(c.request(ListPushBackRequest {
            list_name: bytes("l"),
            value: bytes("x"),
            ttl_milliseconds: MINUTE_MS,
            refresh_ttl: false,
            truncate_front_to_size: 0,
        }))
        .await
        .unwrap();
    for key in ["k", "l"] {
        let failed = |result: Result<(), Status>| {
            let status = assert_status(result, Code::FailedPrecondition, None);
            assert!(status.message().contains("not a set"), "{status:?}");
        };
        failed(
            c.client
                .set_union(c.request(union(key, &["x"])))
                .await
                .map(drop),
        );
        failed(
            c.client
                .set_union(c.request(union(key, &[])))
                .await
                .map(drop),
        );
        failed(
            c.client
                .set_difference(c.request(remove(key, &["v"])))
                .await
                .map(drop),
        );
        failed(
            c.client
                .set_difference(c.request(remove_all(key)))
                .await
                .map(drop),
        );
        let name = bytes(key);
        failed(
            c.client
                .set_fetch(c.request(SetFetchRequest {
                    set_name: name.clone(),
                }))
                .await
                .map(drop),
        );
        failed(
            c.client
                .set_contains(c.request(contains(key, &["v"])))
                .await
                .map(drop),
        );
        failed(
            c.client
                .set_length(c.request(SetLengthRequest {
                    set_name: name.clone(),
                }))
                .await
                .map(drop),
        );
        failed(
            c.client
                .set_pop(c.request(SetPopRequest {
                    set_name: name.clone(),
                    count: 1,
                }))
                .await
                .map(drop),
        );
        failed(
            c.client
                .set_sample(c.request(SetSampleRequest {
                    set_name: name,
                    limit: 1,
                }))
                .await
                .map(drop),
        );
    }
    assert_eq!(c.value_of(b"k").await, "v");
    let list = c
        .client
        .list_length(c.request(ListLengthRequest {
            list_name: bytes("l"),
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(list.list, Some(list_length_response::List::Found(f)) if f.length == 1));

    // And the other way: a list call on a set.
    sets.union("s", &["a"]).await;
    let c = &mut sets.0;
    let status = assert_status(
        c.client
            .list_length(c.request(ListLengthRequest {
                list_name: bytes("s"),
            }))
            .await,
        Code::FailedPrecondition,
        None,
    );
    assert!(status.message().contains("is a set"), "{status:?}");
    let status = assert_status(
        c.client
            .get(c.request(GetRequest {
                cache_key: bytes("s"),
            }))
            .await,
        Code::FailedPrecondition,
        None,
    );
    assert!(status.message().contains("is a set"), "{status:?}");
    assert_eq!(sets.fetch("s").await, strings(&["a"]));
}

async fn item_calls_see_a_set(store: Store) {
    use item_get_type_response::{ItemType, Result};
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    sets.union("s", &["a"]).await;
    let c = &mut sets.0;
    let kind = c
        .client
        .item_get_type(c.request(ItemGetTypeRequest {
            cache_key: bytes("s"),
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(kind.result, Some(Result::Found(f)) if f.item_type == ItemType::Set as i32));
    let exists = c
        .client
        .keys_exist(c.request(KeysExistRequest {
            cache_keys: vec![bytes("s"), bytes("t")],
        }))
        .await
        .unwrap();
    assert_eq!(exists.into_inner().exists, [true, false]);
    let left = sets.remaining_ttl("s").await.unwrap();
    assert!(left > Duration::from_secs(50) && left <= Duration::from_secs(60));
    let c = &mut sets.0;
    let update = UpdateTtlRequest {
        cache_key: bytes("s"),
        update_ttl: Some(update_ttl_request::UpdateTtl::OverwriteToMilliseconds(
            10 * MINUTE_MS,
        )),
    };
    c.client.update_ttl(c.request(update)).await.unwrap();
    assert!(sets.remaining_ttl("s").await.unwrap() > Duration::from_secs(500));
    let c = &mut sets.0;
    c.client
        .delete(c.request(DeleteRequest {
            cache_key: bytes("s"),
        }))
        .await
        .unwrap();
    assert_eq!(sets.fetch("s").await, None);
    // A set at the key of a deleted one starts afresh.
    sets.union("s", &["b"]).await;
    assert_eq!(sets.fetch("s").await, strings(&["b"]));
}

async fn a_flushed_cache_has_no_sets(store: Store) {
    use jiffy_server::proto::control_client::FlushCacheRequest;
    let (server, _redis) = store.start(&[]).await;
    let mut sets = Sets::new(&server).await;
    sets.union("s", FIVE).await;
    let flush = FlushCacheRequest {
        cache_name: "c".into(),
    };
    server.control().await.flush_cache(flush).await.unwrap();
    assert_eq!(sets.fetch("s").await, None);
    assert_eq!(sets.length("s").await, None);
    assert!(!sets.difference(remove_all("s")).await);
    // What the flushed set held does not come back with the next union.
    sets.union("s", &["new"]).await;
    assert_eq!(sets.fetch("s").await, strings(&["new"]));
    assert_eq!(sets.length("s").await, Some(1));
}
