//! The list calls over a real socket: every call, its edges (slices,
//! truncation, emptied lists), the collection TTL, wrong types, and bad
//! input of each call (its status, and that nothing changed, in
//! `list/bad_input.rs`). Every test runs on both stores.

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
    pushes_and_concatenations_answer_the_length_and_keep_order,
    truncation_happens_after_the_write_at_the_other_end,
    pops_answer_the_value_and_the_length_and_the_last_removes_the_list,
    fetch_slices_as_python_does_and_an_empty_slice_misses,
    retain_keeps_the_slice_and_retaining_nothing_removes_the_list,
    remove_takes_every_occurrence,
    erase_removes_positions_or_everything,
    a_new_list_gets_the_ttl_and_a_write_refreshes_it_only_when_asked,
    a_zero_ttl_that_is_not_refreshed_is_accepted_and_keeps_nothing_new,
    list_calls_on_a_scalar_fail_the_precondition_and_change_nothing,
    item_calls_see_a_list,
);

const TEN: &[&str] = &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

async fn pushes_and_concatenations_answer_the_length_and_keep_order(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    let c = &mut lists.0;
    let pushed = c
        .client
        .list_push_back(c.request(push_back("l", "b", 0)))
        .await;
    assert_eq!(pushed.unwrap().into_inner().list_length, 1);
    let pushed = c
        .client
        .list_push_front(c.request(push_front("l", "a", 0)))
        .await;
    assert_eq!(pushed.unwrap().into_inner().list_length, 2);
    let concat = c
        .client
        .list_concatenate_front(c.request(concat_front("l", &["x", "y"], 0)))
        .await;
    assert_eq!(concat.unwrap().into_inner().list_length, 4);
    assert_eq!(lists.concat_back("l", &["c", "d"]).await, 6);
    assert_eq!(
        lists.all("l").await,
        strings(&["x", "y", "a", "b", "c", "d"])
    );
    assert_eq!(lists.length("l").await, Some(6));
}

async fn truncation_happens_after_the_write_at_the_other_end(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    for value in ["one", "two", "three"] {
        let c = &mut lists.0;
        let back = c
            .client
            .list_push_back(c.request(push_back("back", value, 2)))
            .await;
        assert!(back.unwrap().into_inner().list_length <= 2);
        let front = c
            .client
            .list_push_front(c.request(push_front("front", value, 2)))
            .await;
        assert!(front.unwrap().into_inner().list_length <= 2);
    }
    assert_eq!(lists.all("back").await, strings(&["two", "three"]));
    assert_eq!(lists.all("front").await, strings(&["three", "two"]));

    let c = &mut lists.0;
    c.client
        .list_concatenate_front(c.request(concat_front("cf", &["one", "two", "three"], 0)))
        .await
        .unwrap();
    let capped = c
        .client
        .list_concatenate_front(c.request(concat_front("cf", &["four", "five", "six"], 4)))
        .await;
    assert_eq!(capped.unwrap().into_inner().list_length, 4);
    assert_eq!(
        lists.all("cf").await,
        strings(&["four", "five", "six", "one"])
    );

    // A cap below the values written keeps the last of them.
    let c = &mut lists.0;
    let capped = c
        .client
        .list_concatenate_back(c.request(concat_back("cb", &["a", "b", "c"], 2)))
        .await;
    assert_eq!(capped.unwrap().into_inner().list_length, 2);
    assert_eq!(lists.all("cb").await, strings(&["b", "c"]));
}

async fn pops_answer_the_value_and_the_length_and_the_last_removes_the_list(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    assert_eq!(lists.pop_front("l").await, None);
    lists.concat_back("l", &["a", "b", "c"]).await;
    assert_eq!(lists.pop_front("l").await, Some(("a".into(), 2)));
    assert_eq!(lists.pop_back("l").await, Some(("c".into(), 1)));
    assert_eq!(lists.pop_back("l").await, Some(("b".into(), 0)));
    assert_eq!(lists.pop_back("l").await, None);
    assert_eq!(lists.length("l").await, None);
    assert_eq!(
        lists.remaining_ttl("l").await,
        None,
        "the emptied list is gone"
    );
}

async fn fetch_slices_as_python_does_and_an_empty_slice_misses(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    assert_eq!(lists.all("l").await, None);
    lists.concat_back("l", TEN).await;
    let cases: &[(Option<i32>, Option<i32>, &[&str])] = &[
        (None, None, TEN),
        (Some(5), None, &TEN[5..]),
        (Some(-5), None, &TEN[5..]),
        (None, Some(5), &TEN[..5]),
        (Some(0), Some(-5), &TEN[..5]),
        (Some(2), Some(6), &TEN[2..6]),
        (Some(2), Some(-6), &TEN[2..4]),
        (Some(-7), Some(-2), &TEN[3..8]),
        (Some(-100), Some(2), &TEN[..2]),
        (Some(8), Some(100), &TEN[8..]),
        (Some(i32::MIN), Some(i32::MAX), TEN),
    ];
    for &(start, end, expected) in cases {
        assert_eq!(
            lists.fetch("l", start, end).await,
            strings(expected),
            "{start:?}..{end:?}"
        );
    }
    // Nothing selected: missing, as the official Go suite expects.
    for (start, end) in [
        (Some(5), Some(0)),
        (Some(-2), Some(-6)),
        (None, Some(0)),
        (Some(10), None),
    ] {
        assert_eq!(
            lists.fetch("l", start, end).await,
            None,
            "{start:?}..{end:?}"
        );
    }
    // No range fields at all (what the Python SDK sends): the whole list.
    let c = &mut lists.0;
    let request = c.request(ListFetchRequest {
        list_name: bytes("l"),
        start_index: None,
        end_index: None,
    });
    let whole = c.client.list_fetch(request).await.unwrap().into_inner();
    assert!(
        matches!(whole.list, Some(list_fetch_response::List::Found(f)) if f.values.len() == 10)
    );
}

async fn retain_keeps_the_slice_and_retaining_nothing_removes_the_list(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    assert_eq!(lists.retain("l", None, None).await, None);
    assert_eq!(lists.all("l").await, None, "retain creates nothing");
    lists.concat_back("l", TEN).await;
    assert_eq!(lists.retain("l", None, None).await, Some(10));
    assert_eq!(lists.retain("l", Some(1), Some(8)).await, Some(7));
    assert_eq!(lists.retain("l", Some(-3), None).await, Some(3));
    assert_eq!(lists.all("l").await, strings(&["5", "6", "7"]));
    assert_eq!(lists.retain("l", Some(999), Some(1000)).await, Some(0));
    assert_eq!(lists.length("l").await, None);
}

async fn remove_takes_every_occurrence(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    assert_eq!(lists.remove("l", "x").await, None);
    lists.concat_back("l", &["x", "a", "x", "b", "x"]).await;
    assert_eq!(lists.remove("l", "x").await, Some(2));
    assert_eq!(lists.remove("l", "absent").await, Some(2));
    assert_eq!(lists.all("l").await, strings(&["a", "b"]));
    assert_eq!(lists.remove("l", "a").await, Some(1));
    assert_eq!(lists.remove("l", "b").await, Some(0));
    assert_eq!(lists.all("l").await, None);
}

async fn erase_removes_positions_or_everything(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    assert_eq!(lists.erase(erase_all("l")).await, None);
    assert_eq!(lists.erase(erase_ranges("l", &[(0, 1)])).await, None);
    lists.concat_back("l", TEN).await;
    // Overlapping, unordered, past the end: positions in the list as it was.
    let erased = lists
        .erase(erase_ranges("l", &[(8, 5), (1, 2), (2, 2)]))
        .await;
    assert_eq!(erased, Some(5));
    assert_eq!(lists.all("l").await, strings(&["0", "4", "5", "6", "7"]));
    assert_eq!(lists.erase(erase_ranges("l", &[(100, 1)])).await, Some(5));
    assert_eq!(lists.erase(erase_all("l")).await, Some(0));
    assert_eq!(lists.all("l").await, None);
}

async fn a_new_list_gets_the_ttl_and_a_write_refreshes_it_only_when_asked(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    let c = &mut lists.0;
    let mut first = push_back("l", "a", 0);
    first.ttl_milliseconds = 200;
    first.refresh_ttl = false;
    c.client.list_push_back(c.request(first)).await.unwrap();
    let left = lists.remaining_ttl("l").await.unwrap();
    assert!(left <= Duration::from_millis(200), "{left:?}");

    // Without refresh the TTL stays; with it, it becomes the request's.
    let c = &mut lists.0;
    let mut kept = push_back("l", "b", 0);
    kept.refresh_ttl = false;
    c.client.list_push_back(c.request(kept)).await.unwrap();
    assert!(lists.remaining_ttl("l").await.unwrap() <= Duration::from_millis(200));
    let c = &mut lists.0;
    let mut retained = retain_request("l", None, None);
    retained.refresh_ttl = true;
    c.client.list_retain(c.request(retained)).await.unwrap();
    assert!(lists.remaining_ttl("l").await.unwrap() > Duration::from_secs(50));

    // A list past its TTL is a miss.
    let c = &mut lists.0;
    let mut short = push_back("short", "a", 0);
    short.ttl_milliseconds = 100;
    c.client.list_push_back(c.request(short)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(lists.all("short").await, None);
    assert_eq!(lists.length("short").await, None);
}

/// The official Java SDK's ListRetain always sends a zero TTL that it does
/// not refresh, and the Momento service accepts it; so does every
/// collection write (`list/bad_input.rs` refuses a refreshed zero). An
/// existing list keeps its TTL; a new one written with it is gone at once.
async fn a_zero_ttl_that_is_not_refreshed_is_accepted_and_keeps_nothing_new(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    lists.concat_back("l", TEN).await;
    let c = &mut lists.0;
    let mut retain = retain_request("l", Some(1), Some(4));
    retain.ttl_milliseconds = 0;
    let retained = c.client.list_retain(c.request(retain)).await.unwrap();
    assert!(matches!(
        retained.into_inner().list,
        Some(list_retain_response::List::Found(found)) if found.list_length == 3
    ));
    let c = &mut lists.0;
    let mut push = push_back("l", "x", 0);
    (push.ttl_milliseconds, push.refresh_ttl) = (0, false);
    c.client.list_push_back(c.request(push)).await.unwrap();
    assert_eq!(lists.all("l").await, strings(&["1", "2", "3", "x"]));
    assert!(lists.remaining_ttl("l").await.unwrap() > Duration::from_secs(50));

    let c = &mut lists.0;
    let mut retain = retain_request("missing", None, None);
    retain.ttl_milliseconds = 0;
    let retained = c.client.list_retain(c.request(retain)).await.unwrap();
    assert!(matches!(
        retained.into_inner().list,
        Some(list_retain_response::List::Missing(_))
    ));
    let c = &mut lists.0;
    let mut push = push_back("new", "x", 0);
    (push.ttl_milliseconds, push.refresh_ttl) = (0, false);
    let pushed = c.client.list_push_back(c.request(push)).await.unwrap();
    assert_eq!(pushed.into_inner().list_length, 1);
    assert_eq!(lists.all("new").await, None);
    assert_eq!(lists.remaining_ttl("new").await, None);
}

async fn list_calls_on_a_scalar_fail_the_precondition_and_change_nothing(store: Store) {
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    lists.0.put(b"k", b"v").await;
    let c = &mut lists.0;
    let failed = |result: Result<(), Status>| {
        assert_status(result, Code::FailedPrecondition, None);
    };
    failed(
        c.client
            .list_push_back(c.request(push_back("k", "x", 0)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_push_front(c.request(push_front("k", "x", 0)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_concatenate_back(c.request(concat_back("k", &["x"], 0)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_concatenate_front(c.request(concat_front("k", &["x"], 0)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_fetch(c.request(fetch_request("k", None, None)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_length(c.request(ListLengthRequest {
                list_name: bytes("k"),
            }))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_pop_front(c.request(ListPopFrontRequest {
                list_name: bytes("k"),
            }))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_pop_back(c.request(ListPopBackRequest {
                list_name: bytes("k"),
            }))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_retain(c.request(retain_request("k", None, None)))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_remove(c.request(remove("k", "v")))
            .await
            .map(drop),
    );
    failed(
        c.client
            .list_erase(c.request(erase_all("k")))
            .await
            .map(drop),
    );
    assert_eq!(c.value_of(b"k").await, "v");
}

async fn item_calls_see_a_list(store: Store) {
    use item_get_type_response::{ItemType, Result};
    let (server, _redis) = store.start(&[]).await;
    let mut lists = Lists::new(&server).await;
    lists.concat_back("l", &["a"]).await;
    let c = &mut lists.0;
    let kind = c
        .client
        .item_get_type(c.request(ItemGetTypeRequest {
            cache_key: bytes("l"),
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(kind.result, Some(Result::Found(f)) if f.item_type == ItemType::List as i32));
    let exists = c
        .client
        .keys_exist(c.request(KeysExistRequest {
            cache_keys: vec![bytes("l"), bytes("m")],
        }))
        .await
        .unwrap();
    assert_eq!(exists.into_inner().exists, [true, false]);
    let left = lists.remaining_ttl("l").await.unwrap();
    assert!(left > Duration::from_secs(50) && left <= Duration::from_secs(60));
    let c = &mut lists.0;
    c.client
        .delete(c.request(DeleteRequest {
            cache_key: bytes("l"),
        }))
        .await
        .unwrap();
    assert_eq!(lists.all("l").await, None);
}
