//! The list calls over a real socket: every call, its edges (slices,
//! truncation, emptied lists), the collection TTL, wrong types, and bad
//! input of each call (its status, and that nothing changed).

mod common;

use std::net::TcpListener as StdListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{assert_status, Data, TestServer};
use jiffy_server::proto::cache_client::*;
use jiffy_server::proto::common::Unbounded;
use tonic::{Code, Status};

/// Runs each test once on the embedded store and once over a real
/// redis-server: the two must answer every list call alike.
macro_rules! on_both_stores {
    ($($test:ident),* $(,)?) => {
        mod embedded {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $test() {
                    super::$test(super::Store::Embedded).await
                }
            )*
        }
        mod over_redis {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $test() {
                    super::$test(super::Store::Redis).await
                }
            )*
        }
    };
}

const MINUTE_MS: u64 = 60_000;

fn bytes(value: &str) -> Bytes {
    Bytes::copy_from_slice(value.as_bytes())
}

fn texts(values: Vec<Bytes>) -> Vec<String> {
    values
        .into_iter()
        .map(|v| String::from_utf8(v.to_vec()).unwrap())
        .collect()
}

/// A slice as the wire carries it; `None` is the unbounded end.
fn fetch_request(list: &str, start: Option<i32>, end: Option<i32>) -> ListFetchRequest {
    use list_fetch_request::{EndIndex, StartIndex};
    ListFetchRequest {
        list_name: bytes(list),
        start_index: Some(start.map_or(StartIndex::UnboundedStart(Unbounded {}), |s| {
            StartIndex::InclusiveStart(s)
        })),
        end_index: Some(end.map_or(EndIndex::UnboundedEnd(Unbounded {}), |e| {
            EndIndex::ExclusiveEnd(e)
        })),
    }
}

fn retain_request(list: &str, start: Option<i32>, end: Option<i32>) -> ListRetainRequest {
    use list_retain_request::{EndIndex, StartIndex};
    ListRetainRequest {
        list_name: bytes(list),
        start_index: Some(start.map_or(StartIndex::UnboundedStart(Unbounded {}), |s| {
            StartIndex::InclusiveStart(s)
        })),
        end_index: Some(end.map_or(EndIndex::UnboundedEnd(Unbounded {}), |e| {
            EndIndex::ExclusiveEnd(e)
        })),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: false,
    }
}

fn concat_back(list: &str, values: &[&str], truncate: u32) -> ListConcatenateBackRequest {
    ListConcatenateBackRequest {
        list_name: bytes(list),
        values: values.iter().map(|v| bytes(v)).collect(),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
        truncate_front_to_size: truncate,
    }
}

fn concat_front(list: &str, values: &[&str], truncate: u32) -> ListConcatenateFrontRequest {
    ListConcatenateFrontRequest {
        list_name: bytes(list),
        values: values.iter().map(|v| bytes(v)).collect(),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
        truncate_back_to_size: truncate,
    }
}

fn push_back(list: &str, value: &str, truncate: u32) -> ListPushBackRequest {
    ListPushBackRequest {
        list_name: bytes(list),
        value: bytes(value),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
        truncate_front_to_size: truncate,
    }
}

fn push_front(list: &str, value: &str, truncate: u32) -> ListPushFrontRequest {
    ListPushFrontRequest {
        list_name: bytes(list),
        value: bytes(value),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
        truncate_back_to_size: truncate,
    }
}

fn erase_ranges(list: &str, ranges: &[(u32, u32)]) -> ListEraseRequest {
    let ranges = ranges
        .iter()
        .map(|&(begin_index, count)| ListRange { begin_index, count })
        .collect();
    ListEraseRequest {
        list_name: bytes(list),
        erase: Some(list_erase_request::Erase::Some(
            list_erase_request::ListRanges { ranges },
        )),
    }
}

fn erase_all(list: &str) -> ListEraseRequest {
    ListEraseRequest {
        list_name: bytes(list),
        erase: Some(list_erase_request::Erase::All(list_erase_request::All {})),
    }
}

fn remove(list: &str, value: &str) -> ListRemoveRequest {
    ListRemoveRequest {
        list_name: bytes(list),
        remove: Some(list_remove_request::Remove::AllElementsWithValue(bytes(
            value,
        ))),
    }
}

/// The list calls of one cache, each answer reduced to what the test checks:
/// `None` for a missing list.
struct Lists(Data);

impl Lists {
    async fn new(server: &TestServer) -> Lists {
        Lists(server.cache("c").await)
    }

    async fn concat_back(&mut self, list: &str, values: &[&str]) -> u32 {
        let request = self.0.request(concat_back(list, values, 0));
        let answer = self.0.client.list_concatenate_back(request).await;
        answer.unwrap().into_inner().list_length
    }

    async fn fetch(
        &mut self,
        list: &str,
        start: Option<i32>,
        end: Option<i32>,
    ) -> Option<Vec<String>> {
        use list_fetch_response::List;
        let request = self.0.request(fetch_request(list, start, end));
        match self
            .0
            .client
            .list_fetch(request)
            .await
            .unwrap()
            .into_inner()
            .list
        {
            Some(List::Found(found)) => Some(texts(found.values)),
            Some(List::Missing(_)) => None,
            None => panic!("ListFetch answered neither found nor missing"),
        }
    }

    async fn all(&mut self, list: &str) -> Option<Vec<String>> {
        self.fetch(list, None, None).await
    }

    async fn length(&mut self, list: &str) -> Option<u32> {
        use list_length_response::List;
        let request = self.0.request(ListLengthRequest {
            list_name: bytes(list),
        });
        match self
            .0
            .client
            .list_length(request)
            .await
            .unwrap()
            .into_inner()
            .list
        {
            Some(List::Found(found)) => Some(found.length),
            _ => None,
        }
    }

    async fn pop_front(&mut self, list: &str) -> Option<(String, u32)> {
        use list_pop_front_response::List;
        let request = self.0.request(ListPopFrontRequest {
            list_name: bytes(list),
        });
        match self
            .0
            .client
            .list_pop_front(request)
            .await
            .unwrap()
            .into_inner()
            .list
        {
            Some(List::Found(found)) => {
                Some((texts(vec![found.front]).remove(0), found.list_length))
            }
            _ => None,
        }
    }

    async fn pop_back(&mut self, list: &str) -> Option<(String, u32)> {
        use list_pop_back_response::List;
        let request = self.0.request(ListPopBackRequest {
            list_name: bytes(list),
        });
        match self
            .0
            .client
            .list_pop_back(request)
            .await
            .unwrap()
            .into_inner()
            .list
        {
            Some(List::Found(found)) => {
                Some((texts(vec![found.back]).remove(0), found.list_length))
            }
            _ => None,
        }
    }

    async fn retain(&mut self, list: &str, start: Option<i32>, end: Option<i32>) -> Option<u32> {
        use list_retain_response::List;
        let request = self.0.request(retain_request(list, start, end));
        match self
            .0
            .client
            .list_retain(request)
            .await
            .unwrap()
            .into_inner()
            .list
        {
            Some(List::Found(found)) => Some(found.list_length),
            _ => None,
        }
    }

    async fn erase(&mut self, request: ListEraseRequest) -> Option<u32> {
        use list_erase_response::List;
        let request = self.0.request(request);
        match self
            .0
            .client
            .list_erase(request)
            .await
            .unwrap()
            .into_inner()
            .list
        {
            Some(List::Found(found)) => Some(found.list_length),
            _ => None,
        }
    }

    async fn remove(&mut self, list: &str, value: &str) -> Option<u32> {
        use list_remove_response::List;
        let request = self.0.request(remove(list, value));
        match self
            .0
            .client
            .list_remove(request)
            .await
            .unwrap()
            .into_inner()
            .list
        {
            Some(List::Found(found)) => Some(found.list_length),
            _ => None,
        }
    }

    async fn remaining_ttl(&mut self, key: &str) -> Option<Duration> {
        use item_get_ttl_response::Result;
        let request = self.0.request(ItemGetTtlRequest {
            cache_key: bytes(key),
        });
        match self
            .0
            .client
            .item_get_ttl(request)
            .await
            .unwrap()
            .into_inner()
            .result
        {
            Some(Result::Found(found)) => Some(Duration::from_millis(found.remaining_ttl_millis)),
            _ => None,
        }
    }
}

on_both_stores!(
    pushes_and_concatenations_answer_the_length_and_keep_order,
    truncation_happens_after_the_write_at_the_other_end,
    pops_answer_the_value_and_the_length_and_the_last_removes_the_list,
    fetch_slices_as_python_does_and_an_empty_slice_misses,
    retain_keeps_the_slice_and_retaining_nothing_removes_the_list,
    remove_takes_every_occurrence,
    erase_removes_positions_or_everything,
    a_new_list_gets_the_ttl_and_a_write_refreshes_it_only_when_asked,
    list_calls_on_a_scalar_fail_the_precondition_and_change_nothing,
    item_calls_see_a_list,
);

const TEN: &[&str] = &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];

fn strings(values: &[&str]) -> Option<Vec<String>> {
    Some(values.iter().map(|v| v.to_string()).collect())
}

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

mod bad_input {
    use super::*;

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

    const LIMITS: &[&str] = &[
        "--max-key-size",
        "16B",
        "--max-value-size",
        "1KiB",
        "--max-ttl",
        "1h",
        "--max-collection-elements",
        "5",
        "--max-request-items",
        "4",
    ];

    async fn start(store: Store) -> (TestServer, Option<RedisNode>, Lists) {
        let (server, redis) = store.start(LIMITS).await;
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
            retain.ttl_milliseconds = ttl;
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
}

/// A `redis-server` on a free loopback port, killed when dropped.
struct RedisNode {
    child: Child,
}

impl Drop for RedisNode {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The store a test's server runs on.
#[derive(Clone, Copy)]
enum Store {
    Embedded,
    Redis,
}

impl Store {
    /// A server with `args` on this store, and the Redis it uses, if any.
    async fn start(self, args: &[&str]) -> (TestServer, Option<RedisNode>) {
        match self {
            Store::Embedded => (TestServer::with_args(args).await, None),
            Store::Redis => {
                let port = StdListener::bind("127.0.0.1:0")
                    .unwrap()
                    .local_addr()
                    .unwrap()
                    .port();
                let child = Command::new("redis-server")
                    .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                    .args(["--save", "", "--appendonly", "no"])
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("redis-server is needed (apt-get install redis-server)");
                let redis = RedisNode { child };
                let deadline = Instant::now() + Duration::from_secs(10);
                while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                    assert!(Instant::now() < deadline, "redis-server did not start");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                let url = format!("redis://127.0.0.1:{port}");
                let args: Vec<&str> = ["--store", &url]
                    .into_iter()
                    .chain(args.iter().copied())
                    .collect();
                (TestServer::with_args(&args).await, Some(redis))
            }
        }
    }
}
