//! ListFetch and SortedSetFetch at the edge of `--max-response-size`: the
//! Redis store sizes the answer before it reads it, as the embedded store
//! does (its elements as they encode, `store/answer.rs`), so both refuse
//! the same fetches with the same message; and the handler's check of the
//! built answer passes one exactly at the limit and refuses one a byte
//! over.

use prost::Message;

use super::markers::{marker_size, remark, walked_size, OverRedis};
use super::sorted_set::{fetch_request, sorted_set_answer, SortedSetCall};
use super::*;

/// A fetch of list 0 or of sorted set 1, as `setup` leaves them.
#[derive(Clone, Debug)]
enum Fetch {
    List(usize, Option<i32>, Option<i32>),
    SortedSet(SortedSetCall),
}

impl Fetch {
    /// Whether it fetches the whole collection: a refusal names the size
    /// of such an answer, and of a part only the limit.
    fn whole(&self) -> bool {
        use SortedSetCall::{FetchByIndex, FetchByScore};
        matches!(
            self,
            Fetch::List(_, None, None)
                | Fetch::SortedSet(FetchByIndex(_, None, None, _))
                | Fetch::SortedSet(FetchByScore(_, None, None, 0, -1, _))
        )
    }
}

/// Both collections, and the fetches tried on them: of the whole (sized by
/// the marker) and of parts, walked, or sized by the marker less a walk of
/// the rest when the rest is shorter; by index both ways and by score with
/// an offset and a count.
fn fetches() -> Vec<Fetch> {
    use SortedSetCall::{FetchByIndex, FetchByScore};
    vec![
        Fetch::List(0, None, None),
        Fetch::List(0, Some(2), Some(-3)),
        Fetch::List(0, Some(0), Some(20)),
        Fetch::SortedSet(FetchByIndex(1, None, None, false)),
        Fetch::SortedSet(FetchByIndex(1, Some(1), Some(-1), true)),
        Fetch::SortedSet(FetchByScore(
            1,
            Some((2, false)),
            Some((5, true)),
            1,
            8,
            true,
        )),
        Fetch::SortedSet(FetchByScore(1, None, None, 1, -1, false)),
    ]
}

/// List 0: 40 values of 16 bytes; sorted set 1: 30 of them, scored from
/// -2 by quarters.
async fn setup(data: &mut ScsClient<Channel>) {
    let value = |i: usize| Bytes::from(format!("value-{i:010}"));
    let push = cc::ListConcatenateBackRequest {
        list_name: Bytes::from_static(KEYS[0]),
        values: (0..40).map(value).collect(),
        ttl_milliseconds: TEN_MINUTES,
        refresh_ttl: false,
        truncate_front_to_size: 0,
    };
    data.list_concatenate_back(request(push)).await.unwrap();
    let put = cc::SortedSetPutRequest {
        set_name: Bytes::from_static(KEYS[1]),
        elements: (0..30)
            .map(|i| cc::SortedSetElement {
                value: value(i),
                score: -2.0 + i as f64 / 4.0,
            })
            .collect(),
        ttl_milliseconds: TEN_MINUTES,
        refresh_ttl: false,
    };
    data.sorted_set_put(request(put)).await.unwrap();
}

async fn answer(data: &mut ScsClient<Channel>, fetch: &Fetch) -> String {
    match fetch.clone() {
        Fetch::List(k, start, end) => list_answer(data, ListCall::Fetch(k, start, end)).await,
        Fetch::SortedSet(call) => sorted_set_answer(data, call).await,
    }
}

/// The size of a fetch's answer as the stores count it (its elements, as
/// they encode, without scores), and the size of the whole encoded answer.
async fn sizes(data: &mut ScsClient<Channel>, fetch: &Fetch) -> (usize, usize) {
    let element = |len: usize| 1 + prost::encoding::encoded_len_varint(len as u64) + len;
    match fetch.clone() {
        Fetch::List(k, start, end) => {
            use cc::list_fetch_response::List;
            let answer = data
                .list_fetch(request(list_fetch_request(k, start, end)))
                .await
                .unwrap()
                .into_inner();
            let Some(List::Found(found)) = &answer.list else {
                panic!("{answer:?}");
            };
            let counted = found.values.iter().map(|v| element(v.len())).sum();
            (counted, answer.encoded_len())
        }
        Fetch::SortedSet(call) => {
            use cc::sorted_set_fetch_response::{found::Elements, SortedSet};
            let answer = data
                .sorted_set_fetch(request(fetch_request(call).unwrap()))
                .await
                .unwrap()
                .into_inner();
            let Some(SortedSet::Found(found)) = &answer.sorted_set else {
                panic!("{answer:?}");
            };
            let Some(Elements::ValuesWithScores(elements)) = &found.elements else {
                panic!("{answer:?}");
            };
            let counted = elements
                .elements
                .iter()
                .map(|e| element(e.value.len()))
                .sum();
            (counted, answer.encoded_len())
        }
    }
}

/// What `calls` answer on a server of `limits` over the embedded store,
/// and on one over `redis`, each on a fresh cache.
async fn on_both_stores<T>(
    redis: &RedisNode,
    limits: &[&str],
    mut calls: impl AsyncFnMut(&mut ScsClient<Channel>) -> T,
) -> (T, T) {
    let url = format!("redis://127.0.0.1:{}", redis.port);
    let embedded = TestServer::with_args(limits).await;
    let over_redis = TestServer::with_args(&[&["--store", &url][..], limits].concat()).await;
    let mut answered = Vec::new();
    for server in [&embedded, &over_redis] {
        let mut clients = Clients::of(server).await;
        clients.reset().await;
        answered.push(calls(&mut clients.data).await);
    }
    let over_redis = answered.pop().unwrap();
    (answered.pop().unwrap(), over_redis)
}

/// The answer to `fetch` of a server with `--max-response-size limit`,
/// over the embedded store and over `redis`.
async fn answers(redis: &RedisNode, limit: usize, fetch: &Fetch) -> (String, String) {
    let limit = limit.to_string();
    // Values of at most 16 bytes: a limit may then be as low as 80.
    let limits = ["--max-value-size", "16", "--max-response-size", &limit];
    on_both_stores(redis, &limits, async |data| {
        setup(data).await;
        answer(data, fetch).await
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn fetches_at_the_response_limit_are_answered_alike_by_both_stores() {
    let redis = RedisNode::start();
    let embedded = TestServer::start().await;
    let mut clients = Clients::of(&embedded).await;
    clients.reset().await;
    setup(&mut clients.data).await;
    for fetch in fetches() {
        let (counted, encoded) = sizes(&mut clients.data, &fetch).await;
        // The whole answer exactly at the limit passes; a byte over is
        // refused by the handler, which sizes the built answer.
        let (expected, actual) = answers(&redis, encoded, &fetch).await;
        assert!(expected.contains("Found"), "{fetch:?}: {expected}");
        assert_eq!(actual, expected, "{fetch:?} at {encoded}");
        let (expected, actual) = answers(&redis, encoded - 1, &fetch).await;
        let built = format!("be {encoded} bytes or more");
        assert!(expected.contains(&built), "{fetch:?}: {expected}");
        assert_eq!(actual, expected, "{fetch:?} at {}", encoded - 1);
        // The elements exactly at the limit pass the stores' own check
        // (then the handler's refuses the answer built); a byte over, the
        // stores refuse it before they read it, by its elements' size,
        // named for the whole and not for a part.
        let (expected, actual) = answers(&redis, counted, &fetch).await;
        assert!(expected.contains(&built), "{fetch:?}: {expected}");
        assert_eq!(actual, expected, "{fetch:?} at {counted}");
        let (expected, actual) = answers(&redis, counted - 1, &fetch).await;
        let sized = if fetch.whole() {
            format!("be {counted} bytes or more")
        } else {
            format!("be over the limit of {} bytes", counted - 1)
        };
        assert!(expected.contains(&sized), "{fetch:?}: {expected}");
        assert_eq!(actual, expected, "{fetch:?} at {}", counted - 1);
    }
}

/// Parts of list 0 and sorted set 1 over a `--max-response-size` of 200
/// bytes (each element 18 bytes as it encodes): the Redis store walks the
/// first four (no fewer elements lie outside them than a walk would read)
/// and stops once past the limit, after its first read (16 elements);
/// the last it sizes by the kept size less a walk of the four outside.
fn parts_over_200_bytes() -> Vec<Fetch> {
    use SortedSetCall::{FetchByIndex, FetchByScore};
    vec![
        Fetch::List(0, Some(0), Some(20)),
        Fetch::SortedSet(FetchByIndex(1, Some(0), Some(15), false)),
        Fetch::SortedSet(FetchByIndex(1, Some(0), Some(15), true)),
        Fetch::SortedSet(FetchByScore(1, None, None, 1, 16, false)),
        Fetch::List(0, Some(2), Some(-2)),
    ]
}

/// A part of a list or sorted set over `--max-response-size` is refused
/// alike by both stores: the Redis store's walk of a part stops once past
/// the limit, knowing only that the part is larger, so both name the limit
/// alone, whether the part was walked or sized from the kept size, and the
/// message depends neither on the store nor on where a walk stopped.
#[tokio::test(flavor = "multi_thread")]
async fn parts_over_the_response_limit_are_refused_alike_by_both_stores() {
    let redis = RedisNode::start();
    for fetch in parts_over_200_bytes() {
        let (expected, actual) = answers(&redis, 200, &fetch).await;
        assert_eq!(actual, expected, "{fetch:?}");
        assert!(
            expected.contains("ResourceExhausted"),
            "{fetch:?}: {expected}"
        );
        let named = "the answer would be over the limit of 200 bytes (--max-response-size)";
        assert!(expected.contains(named), "{fetch:?}: {expected}");
    }
}

/// The key of the collection of `kind` (a list or a sorted set) `setup`
/// writes, a fetch of all of it and one of a few of its elements.
fn whole(kind: Kind) -> (usize, Fetch, Fetch) {
    match kind {
        Kind::List => (
            0,
            Fetch::List(0, None, None),
            Fetch::List(0, Some(2), Some(6)),
        ),
        _ => (
            1,
            Fetch::SortedSet(SortedSetCall::FetchByIndex(1, None, None, false)),
            Fetch::SortedSet(SortedSetCall::FetchByIndex(1, Some(1), Some(5), true)),
        ),
    }
}

/// Two values of 1,000 bytes more in collection `k` of `kind`: over the
/// 1,100 bytes `OverRedis` answers.
async fn grow(data: &mut ScsClient<Channel>, kind: Kind, k: usize) {
    let big = |fill: u8| Bytes::from(vec![fill; 1000]);
    let name = Bytes::from_static(KEYS[k]);
    match kind {
        Kind::List => {
            let push = cc::ListConcatenateBackRequest {
                list_name: name,
                values: vec![big(b'a'), big(b'b')],
                ttl_milliseconds: TEN_MINUTES,
                refresh_ttl: false,
                truncate_front_to_size: 0,
            };
            data.list_concatenate_back(request(push)).await.unwrap();
        }
        _ => {
            let put = cc::SortedSetPutRequest {
                set_name: name,
                elements: [b'a', b'b']
                    .map(|fill| cc::SortedSetElement {
                        value: big(fill),
                        score: 7.0,
                    })
                    .into(),
                ttl_milliseconds: TEN_MINUTES,
                refresh_ttl: false,
            };
            data.sorted_set_put(request(put)).await.unwrap();
        }
    }
}

/// A fetch of a whole list or sorted set is refused by the size its marker
/// keeps, without a walk (a marker made to claim more than
/// `--max-response-size` refuses a small one), while a few of its elements
/// are walked;
/// without a size (an older front-end's marker) the whole is walked and
/// refused by the walk, named by the limit alone, and writes keep the
/// marker without one.
#[tokio::test(flavor = "multi_thread")]
async fn list_and_sorted_set_fetches_are_refused_by_the_kept_size_and_walk_without_one() {
    let over_redis = OverRedis::with_small_answers().await;
    let (mut clients, mut connection) = (over_redis.clients, over_redis.connection);
    setup(&mut clients.data).await;
    for kind in [Kind::List, Kind::SortedSet] {
        let (k, all, part) = whole(kind);
        let data = &mut clients.data;
        let fetched = answer(data, &all).await;
        assert!(fetched.contains("Found"), "{fetched}");
        let walked = walked_size(&mut connection, kind, KEYS[k]).await;
        let kept = marker_size(&mut connection, kind, KEYS[k]).await;
        assert_eq!(kept, Some(format!(":{walked}")), "{kind:?}");

        remark(&mut connection, kind, KEYS[k], ":5000").await;
        let refused = answer(data, &all).await;
        assert!(refused.contains("be 5000 bytes"), "{kind:?}: {refused}");
        let walked_part = answer(data, &part).await;
        assert!(walked_part.contains("Found"), "{kind:?}: {walked_part}");

        remark(&mut connection, kind, KEYS[k], "").await;
        assert_eq!(answer(data, &all).await, fetched, "{kind:?}");
        grow(data, kind, k).await;
        let kept = marker_size(&mut connection, kind, KEYS[k]).await;
        assert_eq!(kept, Some(String::new()), "{kind:?}");
        // Walked until past the limit, and named by the limit alone,
        // whatever the walk counted by then.
        let refused = answer(data, &all).await;
        let named = "be over the limit of 1100 bytes";
        assert!(refused.contains(named), "{kind:?}: {refused}");
        let walked = walked_size(&mut connection, kind, KEYS[k]).await;
        assert!(walked > 1101, "{kind:?}: {walked}");
    }
}

/// A SetPop or SetSample of the whole set is refused by the size the set's
/// marker keeps, as its answer encodes, without a pick (a marker made to
/// claim more than `--max-response-size` refuses a small set), and the set
/// stays whole; a part of it is still picked.
#[tokio::test(flavor = "multi_thread")]
async fn whole_set_pops_and_samples_are_refused_by_the_kept_size() {
    let over_redis = OverRedis::with_small_answers().await;
    let (mut clients, mut connection) = (over_redis.clients, over_redis.connection);
    let data = &mut clients.data;
    // "x", "y" and "007".
    set_answer(data, SetCall::Union(0, vec![1, 2, 6], TEN_MINUTES, false)).await;
    remark(&mut connection, Kind::Set, KEYS[0], ":5000").await;
    // The 5,000 bytes behind the answer's tag and two-byte length.
    let sampled = set_answer(data, SetCall::Sample(0, 3)).await;
    assert!(sampled.contains("be 5003 bytes"), "{sampled}");
    let popped = set_answer(data, SetCall::Pop(0, 5)).await;
    assert!(popped.contains("be 5003 bytes"), "{popped}");
    let length = set_answer(data, SetCall::Length(0)).await;
    assert!(length.contains("length: 3"), "{length}");
    let walked = walked_size(&mut connection, Kind::Set, KEYS[0]).await;
    remark(&mut connection, Kind::Set, KEYS[0], &format!(":{walked}")).await;
    let part = set_answer(data, SetCall::Sample(0, 2)).await;
    assert!(part.contains("found"), "{part}");
    // A size counted otherwise (an older front-end's bytes) that a pop
    // would take below zero is dropped from the marker, not kept wrong.
    remark(&mut connection, Kind::Set, KEYS[0], ":1").await;
    let part = set_answer(data, SetCall::Pop(0, 2)).await;
    assert!(part.contains("found"), "{part}");
    let kept = marker_size(&mut connection, Kind::Set, KEYS[0]).await;
    assert_eq!(kept, Some(String::new()));
    let length = set_answer(data, SetCall::Length(0)).await;
    assert!(length.contains("length: 1"), "{length}");
}

/// A whole set's SetFetch, SetPop and SetSample, and a DictionaryFetch,
/// over `--max-response-size`: refused by both stores with the same
/// message (the size as the answer encodes, which the Redis store keeps in
/// the marker), and nothing popped.
#[tokio::test(flavor = "multi_thread")]
async fn whole_set_and_dictionary_refusals_name_the_same_size_on_both_stores() {
    let redis = RedisNode::start();
    let limits = ["--max-value-size", "1000", "--max-response-size", "1100"];
    let (embedded, over_redis) = on_both_stores(&redis, &limits, async |data| {
        large_set_and_dictionary_refusals(data).await
    })
    .await;
    let refused = &embedded[..4];
    assert!(
        refused.iter().all(|a| a.contains("ResourceExhausted")),
        "{refused:?}"
    );
    assert!(embedded[4].contains("length: 2"), "{embedded:?}");
    assert_eq!(embedded, over_redis);
}

/// The answers to a SetFetch, SetPop and SetSample of a set of two
/// elements, of 1,000 bytes and 200, a DictionaryFetch of a dictionary of
/// such values (one under an empty field, which the answer leaves out),
/// and then the set's length.
async fn large_set_and_dictionary_refusals(data: &mut ScsClient<Channel>) -> Vec<String> {
    let name = || Bytes::from_static(KEYS[0]);
    let elements: Vec<Bytes> = [1000, 200].map(|len| Bytes::from(vec![b'e'; len])).into();
    let union = cc::SetUnionRequest {
        set_name: name(),
        elements: elements.clone(),
        ttl_milliseconds: TEN_MINUTES,
        refresh_ttl: false,
    };
    data.set_union(request(union)).await.unwrap();
    let items = elements
        .iter()
        .zip([&b"f"[..], b""])
        .map(|(value, field)| cc::DictionaryFieldValuePair {
            field: Bytes::from_static(field),
            value: value.clone(),
        })
        .collect();
    let set = cc::DictionarySetRequest {
        dictionary_name: Bytes::from_static(KEYS[1]),
        items,
        ttl_milliseconds: TEN_MINUTES,
        refresh_ttl: false,
    };
    data.dictionary_set(request(set)).await.unwrap();
    let fetch = cc::SetFetchRequest { set_name: name() };
    let pop = cc::SetPopRequest {
        set_name: name(),
        count: 3,
    };
    let sample = cc::SetSampleRequest {
        set_name: name(),
        limit: 3,
    };
    let dictionary = cc::DictionaryFetchRequest {
        dictionary_name: Bytes::from_static(KEYS[1]),
    };
    vec![
        shown(data.set_fetch(request(fetch)).await),
        shown(data.set_pop(request(pop)).await),
        shown(data.set_sample(request(sample)).await),
        shown(data.dictionary_fetch(request(dictionary)).await),
        set_answer(data, SetCall::Length(0)).await,
    ]
}

/// The elements of the collections whose refusals are measured, each of
/// 128 bytes: 8 MiB, over the default `--max-response-size`; written so
/// many a request.
const MEASURED: usize = 65_536;
const PER_REQUEST: usize = 8_192;

fn measured_value(i: usize) -> Bytes {
    Bytes::from(format!("{i:0128}"))
}

/// The Redis time of a refused SetPop of a whole set of 8 MiB (65,536
/// elements of 128 bytes, over the default `--max-response-size`), as Redis
/// counts it (`INFO commandstats`): sized by the marker, and with the
/// marker stripped of its size as an older front-end left it (the whole
/// set picked, then sized, as every whole-set pop was before). A figure to
/// read, not a bound:
///
/// ```sh
/// cargo test -p jiffy-server --test integration refused_set_pop_redis_time -- --ignored --nocapture
/// ```
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn refused_set_pop_redis_time() {
    let over_redis = OverRedis::with_time_to_walk().await;
    let (mut clients, mut connection) = (over_redis.clients, over_redis.connection);
    for start in (0..MEASURED).step_by(PER_REQUEST) {
        let union = cc::SetUnionRequest {
            set_name: Bytes::from_static(KEYS[0]),
            elements: (start..start + PER_REQUEST).map(measured_value).collect(),
            ttl_milliseconds: TEN_MINUTES,
            refresh_ttl: false,
        };
        clients.data.set_union(request(union)).await.unwrap();
    }
    let size = marker_size(&mut connection, Kind::Set, KEYS[0]).await;
    assert_eq!(size, Some(format!(":{}", MEASURED * (1 + 2 + 128))));
    let data = &mut clients.data;
    let mut pop = async || {
        let answer = set_answer(data, SetCall::Pop(0, u32::MAX)).await;
        assert!(answer.contains("ResourceExhausted"), "{answer}");
    };
    let what = "refused 8 MiB whole-set SetPop, size in the marker";
    markers::redis_time_per_call(&mut connection, what, &mut pop).await;
    remark(&mut connection, Kind::Set, KEYS[0], "").await;
    let what = "refused 8 MiB whole-set SetPop, no size (picked, as before)";
    markers::redis_time_per_call(&mut connection, what, &mut pop).await;
}

/// The Redis time of a refused ListFetch and SortedSetFetch of 8 MiB
/// (65,536 values of 128 bytes, over the default `--max-response-size`),
/// as Redis counts it (`INFO commandstats`): of the whole (sized by the
/// marker), of all but the first element (the marker's size less the
/// first's), and of the whole again with the marker stripped of its size
/// as an older front-end left it (walked until past the limit, then
/// refused). A figure to read, not a bound:
///
/// ```sh
/// cargo test -p jiffy-server --test integration refused_list_fetch -- --ignored --nocapture
/// ```
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn refused_list_fetch_and_sorted_set_fetch_redis_time() {
    let over_redis = OverRedis::with_time_to_walk().await;
    let (mut clients, mut connection) = (over_redis.clients, over_redis.connection);
    let value = measured_value;
    for start in (0..MEASURED).step_by(PER_REQUEST) {
        let push = cc::ListConcatenateBackRequest {
            list_name: Bytes::from_static(KEYS[0]),
            values: (start..start + PER_REQUEST).map(value).collect(),
            ttl_milliseconds: TEN_MINUTES,
            refresh_ttl: false,
            truncate_front_to_size: 0,
        };
        clients
            .data
            .list_concatenate_back(request(push))
            .await
            .unwrap();
        let put = cc::SortedSetPutRequest {
            set_name: Bytes::from_static(KEYS[1]),
            elements: (start..start + PER_REQUEST)
                .map(|i| cc::SortedSetElement {
                    value: value(i),
                    score: i as f64,
                })
                .collect(),
            ttl_milliseconds: TEN_MINUTES,
            refresh_ttl: false,
        };
        clients.data.sorted_set_put(request(put)).await.unwrap();
    }
    let by_score = |offset| SortedSetCall::FetchByScore(1, None, None, offset, -1, false);
    let cases = [
        (
            Kind::List,
            "ListFetch",
            Fetch::List(0, None, None),
            Fetch::List(0, Some(1), None),
        ),
        (
            Kind::SortedSet,
            "SortedSetFetch by score",
            Fetch::SortedSet(by_score(0)),
            Fetch::SortedSet(by_score(1)),
        ),
    ];
    for (kind, name, all, part) in cases {
        let key = KEYS[if let Kind::List = kind { 0 } else { 1 }];
        let size = marker_size(&mut connection, kind, key).await;
        assert_eq!(size, Some(format!(":{}", MEASURED * (1 + 2 + 128))));
        let tries = [
            (&all, "the whole, size in the marker"),
            (
                &part,
                "all but the first, the size less a walk of the first",
            ),
            (
                &all,
                "the whole, no size in the marker, walked up to the limit",
            ),
        ];
        for (i, (fetch, how)) in tries.into_iter().enumerate() {
            if i == 2 {
                remark(&mut connection, kind, key, "").await;
            }
            let data = &mut clients.data;
            let refused = async || {
                let answer = answer(data, fetch).await;
                assert!(answer.contains("ResourceExhausted"), "{answer}");
            };
            let what = format!("refused 8 MiB {name}, {how}");
            markers::redis_time_per_call(&mut connection, &what, refused).await;
        }
    }
}

/// Every write of a list or a sorted set keeps the size its marker
/// carries: after each, it is what a walk counts (pushes that truncate at
/// either end, pops, removes, retains, erases; puts and increments of new
/// and held values, removes of held, missing and repeated values, unions
/// into another set and into a source).
#[tokio::test(flavor = "multi_thread")]
async fn every_list_and_sorted_set_write_keeps_the_size() {
    use SortedSetCall::{Increment, Put, Remove, UnionStore};
    let over_redis = OverRedis::with_small_answers().await;
    let (mut clients, mut connection) = (over_redis.clients, over_redis.connection);
    let data = &mut clients.data;
    setup(data).await;
    let lists = [
        ListCall::Push(0, true, vec![1, 2, 3], 30, TEN_MINUTES, false),
        ListCall::Push(0, false, vec![0, 1, 1], 20, TEN_MINUTES, true),
        ListCall::Pop(0, true),
        ListCall::Pop(0, false),
        ListCall::Remove(0, 1),
        ListCall::Retain(0, Some(2), Some(-2), TEN_MINUTES, false),
        ListCall::Erase(0, Some(vec![(1, 2), (5, 1), (6, 3)])),
        ListCall::Push(0, false, vec![3, 0], 0, TEN_MINUTES, false),
    ];
    for call in lists {
        let answer = list_answer(data, call.clone()).await;
        assert!(!answer.contains("Err"), "{call:?}: {answer}");
        markers::check_size_count(&mut connection, Kind::List, 0)
            .await
            .unwrap_or_else(|failed| panic!("after {call:?}: {failed}"));
    }
    let sorted_sets = [
        Put(1, vec![(1, 1), (2, 2), (0, 0)], TEN_MINUTES, false),
        Put(1, vec![(1, 3), (1, 4)], TEN_MINUTES, true),
        Increment(1, 3, 1, false),
        Increment(1, 3, 2, false),
        Remove(1, Some(vec![1, 1, 4, 0])),
        UnionStore(2, vec![(1, 0), (1, 1)], 0),
        UnionStore(1, vec![(1, 0), (2, 1)], 1),
    ];
    for call in sorted_sets {
        let answer = sorted_set_answer(data, call.clone()).await;
        assert!(!answer.contains("Exhausted"), "{call:?}: {answer}");
        for k in [1, 2] {
            markers::check_size_count(&mut connection, Kind::SortedSet, k)
                .await
                .unwrap_or_else(|failed| panic!("after {call:?}: {failed}"));
        }
    }
}
