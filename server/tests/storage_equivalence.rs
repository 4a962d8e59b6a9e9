//! The Redis backend answers every call exactly as the embedded store does.
//!
//! Random sequences of calls (writes, conditional writes, increments around
//! the i64 limits and on text that is not quite an integer, TTL updates,
//! batches, flushes, deletes and re-creations of the cache) go to two real
//! servers over gRPC: one with the embedded store, one over a real
//! `redis-server` started here. Every answer, status code and message
//! included, must be the same. TTLs are compared to the nearest minute; the
//! test's TTLs are whole tens of minutes and its TTL updates fall between,
//! so no comparison sits on a boundary.
//!
//! Also here, the Redis store's own edges: a full Redis that may not evict,
//! and a cache a dead front-end left half-created.
//!
//! The long run: `PROPTEST_CASES=2000 cargo test --release -p jiffy-server --test integration --
//! storage_equivalence::`.

use crate::common;
mod answer_limit;
mod dictionary;
mod leaderboard;
mod markers;
use markers::Kind;
mod sorted_set;

use std::cell::{Cell, RefCell};
use std::net::TcpListener as StdListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::{in_cache, TestServer};
use jiffy_server::proto::cache_client as cc;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::common as cm;
use jiffy_server::proto::control_client as ctl;
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::leaderboard::leaderboard_client::LeaderboardClient;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use tonic::transport::Channel;

use dictionary::{dictionary_answer, dictionary_call, DictionaryCall};

const CACHE: &str = "equivalence";
const TEN_MINUTES: u64 = 600_000;

/// A `redis-server` on a free loopback port, killed when dropped.
struct RedisNode {
    port: u16,
    child: Child,
}

impl RedisNode {
    fn start() -> RedisNode {
        RedisNode::with_args(&[])
    }

    fn with_args(extra: &[&str]) -> RedisNode {
        let port = StdListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .args(extra)
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is needed (apt-get install redis-server)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        RedisNode { port, child }
    }
}

impl Drop for RedisNode {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Clone, Debug)]
enum Call {
    Get(usize),
    Set(usize, usize, u64),
    SetIf(usize, usize, usize, usize),
    SetIfNotExists(usize, usize),
    GetWithHash(usize),
    /// Key, value, condition, and the value whose hash the condition checks.
    SetIfHash(usize, usize, usize, usize),
    Delete(usize),
    KeysExist(Vec<usize>),
    Increment(usize, usize),
    UpdateTtl(usize, usize, u64),
    ItemGetTtl(usize),
    ItemGetType(usize),
    GetBatch(Vec<usize>),
    SetBatch(Vec<(usize, usize)>),
    GetFromMissingCache(usize),
    Flush,
    DeleteCache,
    CreateCache,
    ListCaches,
    List(ListCall),
    SetCollection(SetCall),
    Dictionary(DictionaryCall),
    SortedSet(sorted_set::SortedSetCall),
    Leaderboard(leaderboard::LeaderboardCall),
}

const KEYS: &[&[u8]] = &[b"a", b"b", b"counter", b"\x00\xff", b"{tag}"];
/// Integers at and near the i64 limits, and text Rust's parser accepts or refuses.
const VALUES: &[&[u8]] = &[
    b"",
    b"x",
    b"0",
    b"12",
    b"-3",
    b"+5",
    b"007",
    b"-0",
    b" 1",
    b"1.5",
    b"9223372036854775806",
    b"9223372036854775807",
    b"-9223372036854775807",
    b"-9223372036854775808",
    b"9223372036854775808",
    b"00000000000000000000042",
    b"999999999",
    b"-1000000000",
    b"\xd9\xa1",
];
const AMOUNTS: &[i64] = &[1, -1, 2, 0, 999_999_999, -1_000_000_001, i64::MAX, i64::MIN];

fn call() -> impl Strategy<Value = Call> {
    let key = 0..KEYS.len();
    let value = 0..VALUES.len();
    let ttl = (1..=3u64).prop_map(|n| n * TEN_MINUTES);
    // Between the set TTLs, so that no update compares equal TTLs.
    let ttl_update = (0..=3u64).prop_map(|n| n * TEN_MINUTES + TEN_MINUTES / 2);
    let keys = prop::collection::vec(0..KEYS.len(), 0..4);
    prop_oneof![
        4 => key.clone().prop_map(Call::Get),
        4 => (key.clone(), value.clone(), ttl.clone()).prop_map(|(k, v, t)| Call::Set(k, v, t)),
        3 => (key.clone(), value.clone(), 0..6usize, value.clone())
            .prop_map(|(k, v, c, w)| Call::SetIf(k, v, c, w)),
        1 => (key.clone(), value.clone()).prop_map(|(k, v)| Call::SetIfNotExists(k, v)),
        1 => key.clone().prop_map(Call::GetWithHash),
        2 => (key.clone(), value.clone(), 0..5usize, value.clone())
            .prop_map(|(k, v, c, w)| Call::SetIfHash(k, v, c, w)),
        2 => key.clone().prop_map(Call::Delete),
        1 => keys.clone().prop_map(Call::KeysExist),
        4 => (key.clone(), 0..AMOUNTS.len()).prop_map(|(k, a)| Call::Increment(k, a)),
        2 => (key.clone(), 0..3usize, ttl_update).prop_map(|(k, m, t)| Call::UpdateTtl(k, m, t)),
        2 => key.clone().prop_map(Call::ItemGetTtl),
        1 => key.clone().prop_map(Call::ItemGetType),
        1 => keys.prop_map(Call::GetBatch),
        1 => prop::collection::vec((key.clone(), value), 0..4).prop_map(Call::SetBatch),
        1 => key.prop_map(Call::GetFromMissingCache),
        1 => Just(Call::Flush),
        1 => Just(Call::DeleteCache),
        1 => Just(Call::CreateCache),
        1 => Just(Call::ListCaches),
        8 => list_call().prop_map(Call::List),
        8 => set_call().prop_map(Call::SetCollection),
        6 => dictionary_call().prop_map(Call::Dictionary),
        8 => sorted_set::sorted_set_call().prop_map(Call::SortedSet),
        6 => leaderboard::leaderboard_call().prop_map(Call::Leaderboard),
    ]
}

struct Clients {
    data: ScsClient<Channel>,
    control: ScsControlClient<Channel>,
    boards: LeaderboardClient<Channel>,
}

impl Clients {
    async fn of(server: &TestServer) -> Clients {
        Clients {
            data: server.data().await,
            control: server.control().await,
            boards: LeaderboardClient::new(server.channel().await),
        }
    }

    /// The answer to `call`, as comparable text.
    async fn answer(&mut self, call: &Call) -> String {
        let key = |k: usize| Bytes::from_static(KEYS[k]);
        let value = |v: usize| Bytes::from_static(VALUES[v]);
        let data = &mut self.data;
        let control = &mut self.control;
        let outcome = match call.clone() {
            Call::Get(k) => shown(
                data.get(request(cc::GetRequest { cache_key: key(k) }))
                    .await,
            ),
            Call::Set(k, v, ttl) => shown(
                data.set(request(cc::SetRequest {
                    cache_key: key(k),
                    cache_body: value(v),
                    ttl_milliseconds: ttl,
                }))
                .await,
            ),
            Call::SetIf(k, v, condition, compared) => {
                use cc::set_if_request::Condition as C;
                let compared = value(compared);
                let condition = match condition {
                    0 => C::Present(cm::Present {}),
                    1 => C::PresentAndNotEqual(cm::PresentAndNotEqual {
                        value_to_check: compared,
                    }),
                    2 => C::Absent(cm::Absent {}),
                    3 => C::Equal(cm::Equal {
                        value_to_check: compared,
                    }),
                    4 => C::AbsentOrEqual(cm::AbsentOrEqual {
                        value_to_check: compared,
                    }),
                    _ => C::NotEqual(cm::NotEqual {
                        value_to_check: compared,
                    }),
                };
                shown(
                    data.set_if(request(cc::SetIfRequest {
                        cache_key: key(k),
                        cache_body: value(v),
                        ttl_milliseconds: TEN_MINUTES,
                        condition: Some(condition),
                    }))
                    .await,
                )
            }
            Call::GetWithHash(k) => shown(
                data.get_with_hash(request(cc::GetWithHashRequest { cache_key: key(k) }))
                    .await,
            ),
            Call::SetIfHash(k, v, condition, compared) => {
                use cc::set_if_hash_request::Condition as C;
                let hash_to_check = jiffy_server::backend::value_hash(VALUES[compared]);
                let condition = match condition {
                    0 => C::PresentAndHashEqual(cm::PresentAndHashEqual { hash_to_check }),
                    1 => C::PresentAndNotHashEqual(cm::PresentAndNotHashEqual { hash_to_check }),
                    2 => C::AbsentOrHashEqual(cm::AbsentOrHashEqual { hash_to_check }),
                    3 => C::AbsentOrNotHashEqual(cm::AbsentOrNotHashEqual { hash_to_check }),
                    _ => C::Unconditional(cm::Unconditional {}),
                };
                shown(
                    data.set_if_hash(request(cc::SetIfHashRequest {
                        cache_key: key(k),
                        cache_body: value(v),
                        ttl_milliseconds: TEN_MINUTES,
                        condition: Some(condition),
                    }))
                    .await,
                )
            }
            Call::SetIfNotExists(k, v) => shown(
                data.set_if_not_exists(request(cc::SetIfNotExistsRequest {
                    cache_key: key(k),
                    cache_body: value(v),
                    ttl_milliseconds: TEN_MINUTES,
                }))
                .await,
            ),
            Call::Delete(k) => shown(
                data.delete(request(cc::DeleteRequest { cache_key: key(k) }))
                    .await,
            ),
            Call::KeysExist(keys) => shown(
                data.keys_exist(request(cc::KeysExistRequest {
                    cache_keys: keys.into_iter().map(key).collect(),
                }))
                .await,
            ),
            Call::Increment(k, amount) => shown(
                data.increment(request(cc::IncrementRequest {
                    cache_key: key(k),
                    amount: AMOUNTS[amount],
                    ttl_milliseconds: 2 * TEN_MINUTES,
                }))
                .await,
            ),
            Call::UpdateTtl(k, mode, ttl) => {
                use cc::update_ttl_request::UpdateTtl as U;
                let update = match mode {
                    0 => U::IncreaseToMilliseconds(ttl),
                    1 => U::DecreaseToMilliseconds(ttl),
                    _ => U::OverwriteToMilliseconds(ttl),
                };
                shown(
                    data.update_ttl(request(cc::UpdateTtlRequest {
                        cache_key: key(k),
                        update_ttl: Some(update),
                    }))
                    .await,
                )
            }
            Call::ItemGetTtl(k) => {
                use cc::item_get_ttl_response::Result as R;
                let answer = data
                    .item_get_ttl(request(cc::ItemGetTtlRequest { cache_key: key(k) }))
                    .await
                    .map(|response| match response.into_inner().result {
                        Some(R::Found(found)) => {
                            let minutes = (found.remaining_ttl_millis + 30_000) / 60_000;
                            format!("found, {minutes} min")
                        }
                        other => format!("{other:?}"),
                    });
                format!(
                    "{:?}",
                    answer.map_err(|s| (s.code(), s.message().to_owned()))
                )
            }
            Call::ItemGetType(k) => shown(
                data.item_get_type(request(cc::ItemGetTypeRequest { cache_key: key(k) }))
                    .await,
            ),
            Call::GetBatch(keys) => {
                let items = keys
                    .into_iter()
                    .map(|k| cc::GetRequest { cache_key: key(k) })
                    .collect();
                match data.get_batch(request(cc::GetBatchRequest { items })).await {
                    Ok(stream) => collected(stream.into_inner()).await,
                    Err(status) => format!("{:?}", (status.code(), status.message())),
                }
            }
            Call::SetBatch(items) => {
                let items = items
                    .into_iter()
                    .map(|(k, v)| cc::SetRequest {
                        cache_key: key(k),
                        cache_body: value(v),
                        ttl_milliseconds: TEN_MINUTES,
                    })
                    .collect();
                match data.set_batch(request(cc::SetBatchRequest { items })).await {
                    Ok(stream) => collected(stream.into_inner()).await,
                    Err(status) => format!("{:?}", (status.code(), status.message())),
                }
            }
            Call::GetFromMissingCache(k) => shown(
                data.get(in_cache(
                    "no-such-cache",
                    cc::GetRequest { cache_key: key(k) },
                ))
                .await,
            ),
            Call::Flush => shown(
                control
                    .flush_cache(ctl::FlushCacheRequest {
                        cache_name: CACHE.into(),
                    })
                    .await,
            ),
            Call::DeleteCache => shown(
                control
                    .delete_cache(ctl::DeleteCacheRequest {
                        cache_name: CACHE.into(),
                    })
                    .await,
            ),
            Call::CreateCache => shown(
                control
                    .create_cache(ctl::CreateCacheRequest {
                        cache_name: CACHE.into(),
                    })
                    .await,
            ),
            Call::ListCaches => {
                let names = control
                    .list_caches(ctl::ListCachesRequest {
                        next_token: String::new(),
                    })
                    .await
                    .map(|r| {
                        let caches = r.into_inner().cache;
                        caches.into_iter().map(|c| c.cache_name).collect::<Vec<_>>()
                    });
                format!("{:?}", names.map_err(|s| s.code()))
            }
            Call::List(call) => list_answer(data, call).await,
            Call::SetCollection(call) => set_answer(data, call).await,
            Call::Dictionary(call) => dictionary_answer(data, call).await,
            Call::SortedSet(call) => sorted_set::sorted_set_answer(data, call).await,
            Call::Leaderboard(call) => {
                leaderboard::leaderboard_answer(&mut self.boards, call).await
            }
        };
        outcome
    }

    /// Starts a sequence from the same state on both servers: the cache
    /// exists and is empty.
    async fn reset(&mut self) {
        let _ = self
            .control
            .delete_cache(ctl::DeleteCacheRequest {
                cache_name: CACHE.into(),
            })
            .await;
        self.control
            .create_cache(ctl::CreateCacheRequest {
                cache_name: CACHE.into(),
            })
            .await
            .unwrap();
    }
}

fn request<T>(message: T) -> tonic::Request<T> {
    in_cache(CACHE, message)
}

fn shown<T: std::fmt::Debug>(answer: Result<tonic::Response<T>, tonic::Status>) -> String {
    match answer {
        Ok(response) => format!("{:?}", response.into_inner()),
        Err(status) => format!("{:?}", (status.code(), status.message())),
    }
}

async fn collected<T: std::fmt::Debug>(mut stream: tonic::Streaming<T>) -> String {
    let mut items = Vec::new();
    loop {
        match stream.message().await {
            Ok(Some(item)) => items.push(format!("{item:?}")),
            Ok(None) => return items.join("; "),
            Err(status) => {
                items.push(format!("{:?}", (status.code(), status.message())));
                return items.join("; ");
            }
        }
    }
}

#[test]
fn the_redis_store_answers_every_call_as_the_embedded_one_does() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let redis = RedisNode::start();
    let url = format!("redis://127.0.0.1:{}", redis.port);
    let (embedded, over_redis) = runtime.block_on(async {
        (
            TestServer::start().await,
            TestServer::with_args(&["--store", &url]).await,
        )
    });
    let (expected, actual) =
        runtime.block_on(async { (Clients::of(&embedded).await, Clients::of(&over_redis).await) });
    // Cloned for each check: it multiplexes one connection.
    let counting = runtime.block_on(markers::redis_connection(redis.port));
    // proptest wants a `Fn`; the clients and the count change inside it.
    let (expected, actual) = (RefCell::new(expected), RefCell::new(actual));
    let calls = Cell::new(0);
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(48);
    let mut runner = TestRunner::new(Config {
        cases,
        // A failure prints its sequence; there is no source file to save it beside.
        failure_persistence: None,
        ..Config::default()
    });
    let sequence = prop::collection::vec(call(), 1..40);
    runner
        .run(&sequence, |sequence| {
            let (mut expected, mut actual) = (expected.borrow_mut(), actual.borrow_mut());
            runtime.block_on(async {
                expected.reset().await;
                actual.reset().await;
                for (step, call) in sequence.iter().enumerate() {
                    let want = expected.answer(call).await;
                    let got = actual.answer(call).await;
                    prop_assert_eq!(&got, &want, "step {} of {:?}", step, sequence);
                    if let Call::Dictionary(call) = call {
                        let mut counting = counting.clone();
                        markers::check_size_count(&mut counting, Kind::Dictionary, call.key())
                            .await?;
                    }
                    if let Call::List(call) = call {
                        let mut counting = counting.clone();
                        markers::check_size_count(&mut counting, Kind::List, call.key()).await?;
                    }
                    if let Call::SortedSet(call) = call {
                        let mut counting = counting.clone();
                        markers::check_size_count(&mut counting, Kind::SortedSet, call.key())
                            .await?;
                    }
                    if let Call::SetCollection(call) = call {
                        let mut counting = counting.clone();
                        // The size kept by the call itself, before any sync.
                        markers::check_size_count(&mut counting, Kind::Set, call.key()).await?;
                        if let SetCall::Pop(k, _) = call {
                            // The stores popped different elements: carry on
                            // from the embedded store's set.
                            sync_set(&mut expected.data, &mut actual.data, *k).await;
                        }
                    }
                    calls.set(calls.get() + 1);
                }
                Ok(())
            })
        })
        .unwrap();
    println!("{} calls answered alike by both stores", calls.get());
}

/// A Redis that is full and may not evict refuses writes: RESOURCE_EXHAUSTED
/// with a message that says what to change, and what was stored stays.
#[tokio::test(flavor = "multi_thread")]
async fn a_full_redis_that_may_not_evict_is_resource_exhausted() {
    let redis = RedisNode::with_args(&["--maxmemory", "4mb", "--maxmemory-policy", "noeviction"]);
    let url = format!("redis://127.0.0.1:{}", redis.port);
    let server = TestServer::with_args(&["--store", &url]).await;
    let mut clients = Clients::of(&server).await;
    clients.reset().await;
    let value = Bytes::from(vec![b'v'; 64 << 10]);
    let mut stored = 0;
    let refusal = loop {
        let set = clients
            .data
            .set(request(cc::SetRequest {
                cache_key: Bytes::from(format!("key-{stored}")),
                cache_body: value.clone(),
                ttl_milliseconds: TEN_MINUTES,
            }))
            .await;
        match set {
            Ok(_) => stored += 1,
            Err(status) => break status,
        }
        assert!(
            stored < 1000,
            "4 MiB of Redis took {stored} values of 64 KiB"
        );
    };
    assert_eq!(
        refusal.code(),
        tonic::Code::ResourceExhausted,
        "{refusal:?}"
    );
    assert!(
        refusal.message().contains("maxmemory-policy"),
        "{refusal:?}"
    );
    let first = clients
        .data
        .get(request(cc::GetRequest {
            cache_key: Bytes::from_static(b"key-0"),
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first.cache_body, value);
}

/// A front-end that dies while creating a cache leaves some of its buckets
/// unwritten (simulated here by removing them). CreateCache on the existing
/// cache answers ALREADY_EXISTS and completes them, as applications that
/// create their caches at start-up do anyway.
#[tokio::test(flavor = "multi_thread")]
async fn create_cache_completes_a_half_created_cache() {
    let redis = RedisNode::start();
    let url = format!("redis://127.0.0.1:{}", redis.port);
    let server = TestServer::with_args(&["--store", &url]).await;
    let mut clients = Clients::of(&server).await;
    clients.reset().await;
    // The layout of server/src/backend/redis/keys.rs: bucket generations
    // are `jg:{<cache>/<bucket>}`.
    let removed = Command::new("redis-cli")
        .args(["-p", &redis.port.to_string(), "--no-raw", "EVAL"])
        .arg(
            "local keys = redis.call('KEYS', ARGV[1]) \
             for _, key in ipairs(keys) do redis.call('DEL', key) end \
             return #keys",
        )
        .args(["0", &format!("jg:{{{CACHE}/*")])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&removed.stdout).trim(),
        "(integer) 1024"
    );
    let get = Call::Get(0);
    assert!(clients.answer(&get).await.contains("NotFound"));
    assert!(clients
        .answer(&Call::CreateCache)
        .await
        .contains("AlreadyExists"));
    assert!(
        clients.answer(&get).await.contains("Miss"),
        "{}",
        clients.answer(&get).await
    );
}

/// List calls on the same keys as the scalar ones (so on scalars too):
/// pushes and concatenations with and without truncation, pops, slices in
/// and past range, retains, removes, erases. Only valid arguments: the
/// handlers refuse bad ones before either store sees them (`tests/list.rs`
/// checks that on both), and on a deleted cache the embedded store, which
/// resolves the cache first, answers NOT_FOUND where Redis finds the bad
/// argument first.
#[derive(Clone, Debug)]
enum ListCall {
    /// Key, front, values, truncate to, TTL, refresh.
    Push(usize, bool, Vec<usize>, u32, u64, bool),
    Pop(usize, bool),
    Fetch(usize, Option<i32>, Option<i32>),
    Length(usize),
    Retain(usize, Option<i32>, Option<i32>, u64, bool),
    Remove(usize, usize),
    /// Key, and the (first position, count) ranges; none: erase all.
    Erase(usize, Option<Vec<(u32, u32)>>),
}

impl ListCall {
    fn key(&self) -> usize {
        match self {
            ListCall::Push(k, ..)
            | ListCall::Pop(k, _)
            | ListCall::Fetch(k, ..)
            | ListCall::Length(k)
            | ListCall::Retain(k, ..)
            | ListCall::Remove(k, _)
            | ListCall::Erase(k, _) => *k,
        }
    }
}

/// Few, so that lists repeat values for ListRemove to find.
const LIST_VALUES: &[&[u8]] = &[b"", b"x", b"y", b"\x00\xff"];

fn list_call() -> impl Strategy<Value = ListCall> {
    let key = 0..KEYS.len();
    let front = any::<bool>();
    let values = prop::collection::vec(0..LIST_VALUES.len(), 1..5);
    let ttl = (1..=3u64).prop_map(|n| n * TEN_MINUTES);
    let index = prop::option::of(-6..6i32);
    let ranges = prop::option::of(prop::collection::vec((0..6u32, 1..4u32), 1..3));
    prop_oneof![
        6 => (key.clone(), front, values, 0..4u32, ttl.clone(), any::<bool>())
            .prop_map(|(k, f, v, t, ttl, r)| ListCall::Push(k, f, v, t, ttl, r)),
        2 => (key.clone(), front).prop_map(|(k, f)| ListCall::Pop(k, f)),
        3 => (key.clone(), index.clone(), index.clone())
            .prop_map(|(k, s, e)| ListCall::Fetch(k, s, e)),
        1 => key.clone().prop_map(ListCall::Length),
        1 => (key.clone(), index.clone(), index, ttl, any::<bool>())
            .prop_map(|(k, s, e, ttl, r)| ListCall::Retain(k, s, e, ttl, r)),
        1 => (key.clone(), 0..LIST_VALUES.len()).prop_map(|(k, v)| ListCall::Remove(k, v)),
        1 => (key, ranges).prop_map(|(k, r)| ListCall::Erase(k, r)),
    ]
}

async fn list_answer(data: &mut ScsClient<Channel>, call: ListCall) -> String {
    use cc::list_erase_request::{All, Erase, ListRanges};
    let name = |k: usize| Bytes::from_static(KEYS[k]);
    let value = |v: usize| Bytes::from_static(LIST_VALUES[v]);
    let unbounded = cm::Unbounded {};
    match call {
        ListCall::Push(k, true, values, truncate, ttl, refresh) => shown(
            data.list_concatenate_front(request(cc::ListConcatenateFrontRequest {
                list_name: name(k),
                values: values.into_iter().map(value).collect(),
                ttl_milliseconds: ttl,
                refresh_ttl: refresh,
                truncate_back_to_size: truncate,
            }))
            .await,
        ),
        ListCall::Push(k, false, values, truncate, ttl, refresh) => shown(
            data.list_concatenate_back(request(cc::ListConcatenateBackRequest {
                list_name: name(k),
                values: values.into_iter().map(value).collect(),
                ttl_milliseconds: ttl,
                refresh_ttl: refresh,
                truncate_front_to_size: truncate,
            }))
            .await,
        ),
        ListCall::Pop(k, true) => shown(
            data.list_pop_front(request(cc::ListPopFrontRequest { list_name: name(k) }))
                .await,
        ),
        ListCall::Pop(k, false) => shown(
            data.list_pop_back(request(cc::ListPopBackRequest { list_name: name(k) }))
                .await,
        ),
        ListCall::Fetch(k, start, end) => shown(
            data.list_fetch(request(list_fetch_request(k, start, end)))
                .await,
        ),
        ListCall::Length(k) => shown(
            data.list_length(request(cc::ListLengthRequest { list_name: name(k) }))
                .await,
        ),
        ListCall::Retain(k, start, end, ttl, refresh) => {
            use cc::list_retain_request::{EndIndex, StartIndex};
            shown(
                data.list_retain(request(cc::ListRetainRequest {
                    list_name: name(k),
                    start_index: Some(start.map_or(
                        StartIndex::UnboundedStart(unbounded),
                        StartIndex::InclusiveStart,
                    )),
                    end_index: Some(
                        end.map_or(EndIndex::UnboundedEnd(unbounded), EndIndex::ExclusiveEnd),
                    ),
                    ttl_milliseconds: ttl,
                    refresh_ttl: refresh,
                }))
                .await,
            )
        }
        ListCall::Remove(k, v) => shown(
            data.list_remove(request(cc::ListRemoveRequest {
                list_name: name(k),
                remove: Some(cc::list_remove_request::Remove::AllElementsWithValue(
                    value(v),
                )),
            }))
            .await,
        ),
        ListCall::Erase(k, ranges) => {
            let erase = match ranges {
                None => Erase::All(All {}),
                Some(ranges) => Erase::Some(ListRanges {
                    ranges: ranges
                        .into_iter()
                        .map(|(begin_index, count)| cc::ListRange { begin_index, count })
                        .collect(),
                }),
            };
            shown(
                data.list_erase(request(cc::ListEraseRequest {
                    list_name: name(k),
                    erase: Some(erase),
                }))
                .await,
            )
        }
    }
}

/// The ListFetch of `ListCall::Fetch(k, start, end)`.
fn list_fetch_request(k: usize, start: Option<i32>, end: Option<i32>) -> cc::ListFetchRequest {
    use cc::list_fetch_request::{EndIndex, StartIndex};
    let unbounded = cm::Unbounded {};
    cc::ListFetchRequest {
        list_name: Bytes::from_static(KEYS[k]),
        start_index: Some(start.map_or(
            StartIndex::UnboundedStart(unbounded),
            StartIndex::InclusiveStart,
        )),
        end_index: Some(end.map_or(EndIndex::UnboundedEnd(unbounded), EndIndex::ExclusiveEnd)),
    }
}

/// Set calls on the same keys as the scalar and list ones (so on other
/// types too): unions with and without TTL refresh, removals of elements or
/// of the whole set, fetches, membership, lengths, pops and samples. The
/// stores pick pops and samples with their own random sources, so those
/// answers are compared by what both must agree on (how many elements, each
/// distinct and from the set, the rest of the set after a pop), and after a
/// pop the Redis store's set is made the embedded one's again.
#[derive(Clone, Debug)]
enum SetCall {
    /// Key, elements, TTL, refresh.
    Union(usize, Vec<usize>, u64, bool),
    /// Key, and the elements to remove; none: the whole set.
    Difference(usize, Option<Vec<usize>>),
    Fetch(usize),
    Contains(usize, Vec<usize>),
    Length(usize),
    Pop(usize, u32),
    Sample(usize, u64),
}

impl SetCall {
    fn key(&self) -> usize {
        match self {
            SetCall::Union(k, ..)
            | SetCall::Difference(k, _)
            | SetCall::Fetch(k)
            | SetCall::Contains(k, _)
            | SetCall::Length(k)
            | SetCall::Pop(k, _)
            | SetCall::Sample(k, _) => *k,
        }
    }
}

/// A SetFetch is refused by the size the set's marker carries, without a
/// walk (a marker made to claim more than `--max-response-size` refuses a
/// small set); without a size it is walked as before, and writes keep it
/// without one.
#[tokio::test(flavor = "multi_thread")]
async fn a_set_fetch_is_refused_by_the_kept_size_and_walks_without_one() {
    let over_redis = markers::OverRedis::with_small_answers().await;
    let (mut clients, mut connection) = (over_redis.clients, over_redis.connection);
    let key = KEYS[0];
    // "x", "y" and "007": 3 + 3 + 5 bytes as a fetch's answer encodes them.
    let union = SetCall::Union(0, vec![1, 2, 6, 1], TEN_MINUTES, false);
    set_answer(&mut clients.data, union).await;
    let fetched = set_answer(&mut clients.data, SetCall::Fetch(0)).await;
    assert!(fetched.starts_with("found"), "{fetched}");
    let size = markers::marker_size(&mut connection, Kind::Set, key).await;
    assert_eq!(size, Some(":11".into()));

    markers::remark(&mut connection, Kind::Set, key, ":5000").await;
    let refused = set_answer(&mut clients.data, SetCall::Fetch(0)).await;
    assert!(
        refused.contains("ResourceExhausted") && refused.contains("5000"),
        "{refused}"
    );

    markers::remark(&mut connection, Kind::Set, key, "").await;
    assert_eq!(
        set_answer(&mut clients.data, SetCall::Fetch(0)).await,
        fetched
    );
    set_answer(&mut clients.data, SetCall::Difference(0, Some(vec![1]))).await;
    let size = markers::marker_size(&mut connection, Kind::Set, key).await;
    assert_eq!(size, Some(String::new()));
}

/// Few, so that unions meet elements already there; some look like
/// integers, which Redis stores in a compact encoding of its own.
const SET_ELEMENTS: &[&[u8]] = &[b"", b"x", b"y", b"\x00\xff", b"12", b"-0", b"007"];

fn set_call() -> impl Strategy<Value = SetCall> {
    let key = 0..KEYS.len();
    let elements = prop::collection::vec(0..SET_ELEMENTS.len(), 0..5);
    let ttl = (1..=3u64).prop_map(|n| n * TEN_MINUTES);
    let limit = prop_oneof![4 => 0..8u64, 1 => Just(u64::MAX)];
    prop_oneof![
        6 => (key.clone(), elements.clone(), ttl, any::<bool>())
            .prop_map(|(k, e, ttl, r)| SetCall::Union(k, e, ttl, r)),
        2 => (key.clone(), prop::option::of(elements.clone()))
            .prop_map(|(k, e)| SetCall::Difference(k, e)),
        2 => key.clone().prop_map(SetCall::Fetch),
        2 => (key.clone(), elements).prop_map(|(k, e)| SetCall::Contains(k, e)),
        1 => key.clone().prop_map(SetCall::Length),
        2 => (key.clone(), 1..8u32).prop_map(|(k, c)| SetCall::Pop(k, c)),
        2 => (key, limit).prop_map(|(k, l)| SetCall::Sample(k, l)),
    ]
}

async fn set_answer(data: &mut ScsClient<Channel>, call: SetCall) -> String {
    use cc::set_difference_request::subtrahend::{Identity, Set, SubtrahendSet};
    use cc::set_difference_request::{Difference, Subtrahend};
    let name = |k: usize| Bytes::from_static(KEYS[k]);
    let elements = |e: Vec<usize>| -> Vec<Bytes> {
        e.into_iter()
            .map(|e| Bytes::from_static(SET_ELEMENTS[e]))
            .collect()
    };
    match call {
        SetCall::Union(k, e, ttl, refresh) => shown(
            data.set_union(request(cc::SetUnionRequest {
                set_name: name(k),
                elements: elements(e),
                ttl_milliseconds: ttl,
                refresh_ttl: refresh,
            }))
            .await,
        ),
        SetCall::Difference(k, e) => {
            let subtrahend_set = match e {
                None => SubtrahendSet::Identity(Identity {}),
                Some(e) => SubtrahendSet::Set(Set {
                    elements: elements(e),
                }),
            };
            shown(
                data.set_difference(request(cc::SetDifferenceRequest {
                    set_name: name(k),
                    difference: Some(Difference::Subtrahend(Subtrahend {
                        subtrahend_set: Some(subtrahend_set),
                    })),
                }))
                .await,
            )
        }
        SetCall::Fetch(k) => match set_elements(data, k).await {
            Ok(Some(elements)) => format!("found {elements:?}"),
            other => format!("{other:?}"),
        },
        SetCall::Contains(k, e) => shown(
            data.set_contains(request(cc::SetContainsRequest {
                set_name: name(k),
                elements: elements(e),
            }))
            .await,
        ),
        SetCall::Length(k) => shown(
            data.set_length(request(cc::SetLengthRequest { set_name: name(k) }))
                .await,
        ),
        SetCall::Pop(k, count) => {
            use cc::set_pop_response::Set;
            let before = set_elements(data, k).await;
            let popped = data
                .set_pop(request(cc::SetPopRequest {
                    set_name: name(k),
                    count,
                }))
                .await;
            let popped = match popped {
                Ok(answer) => match answer.into_inner().set {
                    Some(Set::Found(found)) => found.elements,
                    other => return format!("{other:?}"),
                },
                Err(status) => return format!("{:?}", (status.code(), status.message())),
            };
            let before = before.unwrap().unwrap();
            let after = set_elements(data, k).await.unwrap().unwrap_or_default();
            let mut put_back: Vec<Bytes> = after.iter().chain(&popped).cloned().collect();
            put_back.sort();
            assert_eq!(put_back, before, "popped {popped:?}, left {after:?}");
            assert_eq!(popped.len(), before.len().min(count as usize));
            format!("found {} popped, {} left", popped.len(), after.len())
        }
        SetCall::Sample(k, limit) => {
            use cc::set_sample_response::Set;
            let sample = data
                .set_sample(request(cc::SetSampleRequest {
                    set_name: name(k),
                    limit,
                }))
                .await;
            let mut sample = match sample {
                Ok(answer) => match answer.into_inner().set {
                    Some(Set::Found(found)) => found.elements,
                    other => return format!("{other:?}"),
                },
                Err(status) => return format!("{:?}", (status.code(), status.message())),
            };
            let set = set_elements(data, k).await.unwrap().unwrap();
            let answered = sample.len();
            sample.sort();
            sample.dedup();
            assert_eq!(sample.len(), answered, "an element sampled twice");
            assert!(
                sample.iter().all(|element| set.contains(element)),
                "sampled {sample:?} from {set:?}"
            );
            format!("found {} distinct of the set", sample.len())
        }
    }
}

/// The elements of set `k`, sorted; `None` when missing.
async fn set_elements(
    data: &mut ScsClient<Channel>,
    k: usize,
) -> Result<Option<Vec<Bytes>>, (tonic::Code, String)> {
    use cc::set_fetch_response::Set;
    let answer = data
        .set_fetch(request(cc::SetFetchRequest {
            set_name: Bytes::from_static(KEYS[k]),
        }))
        .await
        .map_err(|status| (status.code(), status.message().to_owned()))?;
    Ok(match answer.into_inner().set {
        Some(Set::Found(found)) => {
            let mut elements = found.elements;
            elements.sort();
            Some(elements)
        }
        _ => None,
    })
}

/// Makes set `k` of `actual` hold what it holds in `expected`, keeping its
/// TTL: the elements missing are added before the extra ones are removed,
/// so the set is never emptied on the way.
async fn sync_set(expected: &mut ScsClient<Channel>, actual: &mut ScsClient<Channel>, k: usize) {
    use cc::set_difference_request::subtrahend::{Set, SubtrahendSet};
    use cc::set_difference_request::{Difference, Subtrahend};
    let (Ok(want), Ok(have)) = (
        set_elements(expected, k).await,
        set_elements(actual, k).await,
    ) else {
        return;
    };
    let (Some(want), Some(have)) = (want, have) else {
        assert_eq!(
            set_elements(expected, k).await,
            set_elements(actual, k).await
        );
        return;
    };
    actual
        .set_union(request(cc::SetUnionRequest {
            set_name: Bytes::from_static(KEYS[k]),
            elements: want.clone(),
            ttl_milliseconds: TEN_MINUTES,
            refresh_ttl: false,
        }))
        .await
        .unwrap();
    let extra = have.into_iter().filter(|e| !want.contains(e)).collect();
    actual
        .set_difference(request(cc::SetDifferenceRequest {
            set_name: Bytes::from_static(KEYS[k]),
            difference: Some(Difference::Subtrahend(Subtrahend {
                subtrahend_set: Some(SubtrahendSet::Set(Set { elements: extra })),
            })),
        }))
        .await
        .unwrap();
}

/// Mostly set calls, with the others between them: among all the calls of
/// the test above, a set seldom grows enough for a pop to leave part of it
/// and a later call to look at what is left; here that happens all the time.
#[test]
fn set_calls_are_answered_alike_by_both_stores() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let redis = RedisNode::start();
    let url = format!("redis://127.0.0.1:{}", redis.port);
    let (_embedded, _over_redis, expected, actual) = runtime.block_on(async {
        let embedded = TestServer::start().await;
        let over_redis = TestServer::with_args(&["--store", &url]).await;
        let (expected, actual) = (Clients::of(&embedded).await, Clients::of(&over_redis).await);
        (embedded, over_redis, expected, actual)
    });
    let (expected, actual) = (RefCell::new(expected), RefCell::new(actual));
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(48);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let set_heavy = prop_oneof![
        9 => set_call().prop_map(Call::SetCollection),
        1 => call(),
    ];
    runner
        .run(&prop::collection::vec(set_heavy, 1..60), |sequence| {
            let (mut expected, mut actual) = (expected.borrow_mut(), actual.borrow_mut());
            runtime.block_on(async {
                expected.reset().await;
                actual.reset().await;
                for (step, call) in sequence.iter().enumerate() {
                    let want = expected.answer(call).await;
                    let got = actual.answer(call).await;
                    prop_assert_eq!(&got, &want, "step {} of {:?}", step, sequence);
                    if let Call::SetCollection(SetCall::Pop(k, _)) = call {
                        sync_set(&mut expected.data, &mut actual.data, *k).await;
                    }
                }
                Ok(())
            })
        })
        .unwrap();
}
