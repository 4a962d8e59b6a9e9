//! Calls whose cost grows with a collection's size, made in a loop on a
//! large collection: tiny requests that cost the server a walk of the whole
//! collection each (a rank near the end, a count over every score, a fetch
//! that starts deep, a fetch of every field of a dictionary, the ranks of
//! 8,192 ids of a leaderboard). Each must cost what it answers plus
//! O(log n), so the well-behaved client is not held up.
//!
//! The collections hold `JIFFY_ATTACK_COLLECTION_ELEMENTS` elements
//! (by default 200,000 in the sorted set and 100,000 in the dictionary,
//! each built in under a second with the largest batches
//! `--max-request-items` allows; bench/reliability may run 1,000,000). Embedded
//! store only: on the Redis store these calls run in Redis (ZRANK and ZCOUNT
//! are O(log n) there, HGETALL is O(n) in Redis, bounded by
//! `--max-collection-elements`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::sorted_set_fetch_request::{by_index, by_score};
use jiffy_server::proto::cache_client::sorted_set_fetch_request::{ByIndex, ByScore, Range};
use jiffy_server::proto::cache_client::{
    sorted_set_length_by_score_request as length_by_score, DictionaryFetchRequest,
    DictionaryFieldValuePair, DictionarySetRequest, SortedSetElement, SortedSetFetchRequest,
    SortedSetGetRankRequest, SortedSetLengthByScoreRequest, SortedSetPutRequest,
};
use jiffy_server::proto::common::Unbounded;
use jiffy_server::proto::leaderboard::leaderboard_client::LeaderboardClient;
use jiffy_server::proto::leaderboard::{Element, GetRankRequest, UpsertElementsRequest};
use prost::Message;
use tonic::transport::{Channel, Endpoint};

use crate::common::attack::{self, Ctx, Outcome, Setup, Target, CACHE};
use crate::common::in_cache;
use crate::common::raw_http2 as raw;

/// The largest batch a write may carry (`--max-request-items`' default).
const BATCH: usize = 10_000;
const DICTIONARY: &[u8] = b"big-dictionary";
const SORTED_SET: &[u8] = b"big-sorted-set";
/// The normal client's p99 during these attacks: a call that costs the
/// server O(log n) leaves it near its idle latency (1-10 ms), while calls
/// that walk the collection hold both cores for 100s of ms. Tighter than
/// the harness's bound, which allows for attacks that close connections by
/// the thousand.
const P99_BOUND: Duration = Duration::from_millis(100);
/// The server's CPU per attacking call, on average: tens of microseconds
/// for an O(log n) call and its HTTP/2 framing; a walk of 200,000 elements
/// costs over a millisecond, of 1,000,000 several.
const CPU_PER_CALL_BOUND: Duration = Duration::from_micros(250);
const MIB: u64 = 1 << 20;
/// What fetches may leave resident once they are over: allocator slack.
const LEFT_BEHIND_BOUND: u64 = 3 * MIB;

/// `JIFFY_ATTACK_COLLECTION_ELEMENTS`, else `default`.
fn elements(default: usize) -> usize {
    std::env::var("JIFFY_ATTACK_COLLECTION_ELEMENTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The sorted set's elements by default: enough that a walk of it costs
/// over a millisecond.
const SORTED_SET_ELEMENTS: usize = 200_000;
/// The dictionary's fields by default: four answers of 1.6 MB at once keep
/// well under the memory bound, and the shared headers a cloning fetch
/// leaves behind (6 MiB) well over `LEFT_BEHIND_BOUND`.
const DICTIONARY_FIELDS: usize = 100_000;

/// The leaderboard's elements by default, as the sorted set's.
const LEADERBOARD_ELEMENTS: usize = 200_000;
const LEADERBOARD: &str = "big-leaderboard";
/// The most ids one GetRank may name, and the most an upsert may carry.
const MOST_IDS: usize = 8192;
/// The server's CPU per id of a GetRank, on average: a hash lookup and an
/// O(log n) rank, a few microseconds even in a debug build; a walk of the
/// board per id (200,000 elements) would cost hundreds.
const CPU_PER_ID_BOUND: Duration = Duration::from_micros(20);

fn member(i: usize) -> Bytes {
    Bytes::from(format!("m{i:08}"))
}

async fn client(endpoint: Endpoint) -> ScsClient<Channel> {
    ScsClient::new(endpoint.connect().await.unwrap())
        .max_decoding_message_size(256 << 20)
        .max_encoding_message_size(16 << 20)
}

/// The server's user and system CPU time so far, from /proc.
fn cpu_time(target: &Target) -> Duration {
    cpu_time_of(&target.server.child.id().to_string())
}

/// A process's user and system CPU time so far (`self`: this one's).
fn cpu_time_of(pid: &str) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command's closing parenthesis: field 3 on, utime is 14.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // The kernel's USER_HZ is 100 on every Linux this runs on.
    Duration::from_millis(ticks * 10)
}

/// Runs `attack` and prints the server's CPU per attacking call (the calls
/// counted in `calls`); with `tight`, requires it under
/// `CPU_PER_CALL_BOUND` and the normal client's p99 under `P99_BOUND`.
async fn run_counted<F, Fut>(
    target: &mut Target,
    name: &str,
    calls: Arc<AtomicU64>,
    tight: bool,
    attack: F,
) -> Outcome
where
    F: FnOnce(Ctx) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let cpu_before = cpu_time(target);
    let ours_before = cpu_time_of("self");
    let mut outcome = attack::run(target, name, attack).await;
    let cpu = cpu_time(target).saturating_sub(cpu_before);
    let ours = cpu_time_of("self").saturating_sub(ours_before);
    let calls = calls.load(Ordering::Relaxed);
    let per_call = cpu / calls.max(1) as u32;
    eprintln!(
        "ATTACK {name}: {calls} calls, server CPU {:.2} s, {:.3} ms per call (the test's own CPU {:.2} s)",
        cpu.as_secs_f64(),
        per_call.as_secs_f64() * 1000.0,
        ours.as_secs_f64()
    );
    outcome.require(calls > 0, "the attack made no call");
    if !tight {
        return outcome;
    }
    outcome.require(
        per_call <= CPU_PER_CALL_BOUND,
        format!("the server spent {per_call:?} of CPU per call, over {CPU_PER_CALL_BOUND:?}"),
    );
    if let Some(p99) = outcome.quantile(0.99) {
        outcome.require(
            p99 <= P99_BOUND,
            format!("normal-call p99 {p99:?} is over {P99_BOUND:?}"),
        );
    }
    outcome
}

/// `connections` HTTP/2 connections, each making the calls of `calls_made`
/// by turns in a loop until the attack's time is over, reading each answer
/// and dropping it (no decoding: the attacker should cost little CPU);
/// counts the calls answered, with any status.
async fn hammer(
    ctx: Ctx,
    connections: usize,
    answered: Arc<AtomicU64>,
    calls: Vec<(&'static str, Bytes)>,
) {
    let calls = Arc::new(calls);
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let (ctx, answered, calls) = (ctx.clone(), answered.clone(), calls.clone());
        tasks.push(tokio::spawn(async move {
            let mut builder = h2::client::Builder::new();
            builder
                .initial_window_size(16 << 20)
                .initial_connection_window_size(16 << 20);
            let Some((mut send, _closed)) = attack::h2_connect(&ctx, &builder).await else {
                return;
            };
            for turn in 0.. {
                if ctx.over() {
                    break;
                }
                let (method, message) = &calls[turn % calls.len()];
                let left = ctx.deadline - tokio::time::Instant::now();
                let call = raw_call(&ctx, &mut send, method, message.clone());
                match tokio::time::timeout(left + Duration::from_secs(5), call).await {
                    Ok(true) => {
                        answered.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(false) | Err(_) => break,
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
}

/// One call of `method` with `message` (framed here); true once its answer
/// has been read to its trailers.
async fn raw_call(
    ctx: &Ctx,
    send: &mut h2::client::SendRequest<Bytes>,
    method: &str,
    message: Bytes,
) -> bool {
    let Ok(ready) = send.clone().ready().await else {
        return false;
    };
    *send = ready;
    let request = attack::h2_request(ctx, method);
    let Ok((response, mut body)) = send.send_request(request, false) else {
        return false;
    };
    let framed = Bytes::from(raw::grpc_message(&message));
    if body.send_data(framed, true).is_err() {
        return false;
    }
    let Ok(response) = response.await else {
        return false;
    };
    let mut answer = response.into_body();
    while let Some(chunk) = answer.data().await {
        let Ok(chunk) = chunk else {
            return false;
        };
        let _ = answer.flow_control().release_capacity(chunk.len());
    }
    answer.trailers().await.is_ok()
}

/// Fills the dictionary and the sorted set in batches of `BATCH`.
async fn fill(target: &Target, dictionary: bool, n: usize) {
    let mut data = client(target.transport.endpoint(target.server.addr)).await;
    let started = std::time::Instant::now();
    for from in (0..n).step_by(BATCH) {
        let to = (from + BATCH).min(n);
        if dictionary {
            let items = (from..to)
                .map(|i| DictionaryFieldValuePair {
                    field: member(i),
                    value: Bytes::from_static(b"v"),
                })
                .collect();
            let set = DictionarySetRequest {
                dictionary_name: Bytes::from_static(DICTIONARY),
                items,
                ttl_milliseconds: 3_600_000,
                refresh_ttl: false,
            };
            data.dictionary_set(in_cache(CACHE, set)).await.unwrap();
        } else {
            let elements = (from..to)
                .map(|i| SortedSetElement {
                    value: member(i),
                    score: i as f64,
                })
                .collect();
            let put = SortedSetPutRequest {
                set_name: Bytes::from_static(SORTED_SET),
                elements,
                ttl_milliseconds: 3_600_000,
                refresh_ttl: false,
            };
            data.sorted_set_put(in_cache(CACHE, put)).await.unwrap();
        }
    }
    eprintln!(
        "filled a {} of {n} elements in {:.1} s",
        if dictionary {
            "dictionary"
        } else {
            "sorted set"
        },
        started.elapsed().as_secs_f64()
    );
}

/// Four connections fetching every field of a large dictionary, a few MB
/// an answer: each fetch is one copy of the fields and values (no sort, no
/// clone of the stored parts), charged to the in-flight budget before it is
/// made (refused past it), and nothing stays resident once they are over. A
/// whole fetch is O(n) by nature, so its CPU is only reported, and the
/// normal client is held to the harness's bound. An answer over
/// `--max-response-size` is refused before it is built, its size known in
/// O(1) (`Dictionary::fetch_encoded_len`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dictionary_fetch_of_a_large_dictionary_on_four_connections() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(&[])).await;
    let n = elements(DICTIONARY_FIELDS);
    fill(&target, true, n).await;
    let calls = Arc::new(AtomicU64::new(0));
    let counted = calls.clone();
    let name = format!("DictionaryFetch of {n} fields, 4 connections");
    let fetch = DictionaryFetchRequest {
        dictionary_name: Bytes::from_static(DICTIONARY),
    };
    // Answered or refused (a server may refuse an answer this large);
    // either way it must cost little.
    let calls_made = vec![("DictionaryFetch", Bytes::from(fetch.encode_to_vec()))];
    let mut outcome = run_counted(&mut target, &name, calls, false, |ctx| {
        hammer(ctx, 4, counted, calls_made)
    })
    .await;
    // The server frees freed pages at once (jemalloc's dirty_decay_ms:0), so
    // what stays resident after the cool-down is held: a fetch that clones
    // each stored part makes it allocate its shared header (32 bytes a part,
    // 6 MiB for 100,000 fields), kept as long as the dictionary.
    let left = attack::resident_of(target.server.child.id()).unwrap_or(0);
    let left = left.saturating_sub(outcome.idle);
    eprintln!(
        "ATTACK {name}: {:.1} MiB left resident after the fetches",
        left as f64 / MIB as f64
    );
    outcome.require(
        left <= LEFT_BEHIND_BOUND,
        format!(
            "the fetches left {:.1} MiB resident, over {} MiB",
            left as f64 / MIB as f64,
            LEFT_BEHIND_BOUND / MIB
        ),
    );
    outcome.assert_bounded();
}

/// Sixteen connections asking, by turns, the rank of the last element, the
/// count of every score, and fetches of ten elements at the far end by index
/// and by score offset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rank_count_and_deep_fetches_of_a_large_sorted_set_on_sixteen_connections() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(&[])).await;
    let n = elements(SORTED_SET_ELEMENTS);
    fill(&target, false, n).await;
    let calls = Arc::new(AtomicU64::new(0));
    let counted = calls.clone();
    let name = format!("rank, count and deep fetches of {n} elements, 16 connections");
    let outcome = run_counted(&mut target, &name, calls, true, |ctx| {
        hammer(ctx, 16, counted, deep_calls(n))
    })
    .await;
    assert_deep_calls_answer(&target, n).await;
    outcome.assert_bounded();
}

/// The four calls that walk a sorted set on a plain B-tree.
fn deep_calls(n: usize) -> Vec<(&'static str, Bytes)> {
    let rank = SortedSetGetRankRequest {
        set_name: Bytes::from_static(SORTED_SET),
        value: member(n - 1),
        order: 0,
    };
    let count = every_score();
    vec![
        ("SortedSetGetRank", Bytes::from(rank.encode_to_vec())),
        ("SortedSetLengthByScore", Bytes::from(count.encode_to_vec())),
        (
            "SortedSetFetch",
            Bytes::from(by_index_near_end(n).encode_to_vec()),
        ),
        (
            "SortedSetFetch",
            Bytes::from(by_score_near_end(n).encode_to_vec()),
        ),
    ]
}

fn every_score() -> SortedSetLengthByScoreRequest {
    SortedSetLengthByScoreRequest {
        set_name: Bytes::from_static(SORTED_SET),
        min: Some(length_by_score::Min::UnboundedMin(Unbounded {})),
        max: Some(length_by_score::Max::UnboundedMax(Unbounded {})),
    }
}

/// The last ten elements, ascending (a walk from the start on a B-tree).
fn by_index_near_end(n: usize) -> SortedSetFetchRequest {
    SortedSetFetchRequest {
        set_name: Bytes::from_static(SORTED_SET),
        order: 0,
        with_scores: true,
        range: Some(Range::ByIndex(ByIndex {
            start: Some(by_index::Start::InclusiveStartIndex(n as i32 - 10)),
            end: Some(by_index::End::UnboundedEnd(Unbounded {})),
        })),
    }
}

/// Every score, skipping all but the last ten.
fn by_score_near_end(n: usize) -> SortedSetFetchRequest {
    SortedSetFetchRequest {
        set_name: Bytes::from_static(SORTED_SET),
        order: 0,
        with_scores: true,
        range: Some(Range::ByScore(ByScore {
            offset: n as u32 - 10,
            count: 10,
            min: Some(by_score::Min::UnboundedMin(Unbounded {})),
            max: Some(by_score::Max::UnboundedMax(Unbounded {})),
        })),
    }
}

/// The calls the attack made answer what they should (so a cheap wrong
/// answer could not pass for a fast one).
async fn assert_deep_calls_answer(target: &Target, n: usize) {
    use jiffy_server::proto::cache_client::{
        sorted_set_fetch_response, sorted_set_get_rank_response,
        sorted_set_length_by_score_response,
    };
    let mut data = client(target.transport.endpoint(target.server.addr)).await;
    let rank = SortedSetGetRankRequest {
        set_name: Bytes::from_static(SORTED_SET),
        value: member(n - 1),
        order: 0,
    };
    let rank = data
        .sorted_set_get_rank(in_cache(CACHE, rank))
        .await
        .unwrap();
    match rank.into_inner().rank {
        Some(sorted_set_get_rank_response::Rank::ElementRank(found)) => {
            assert_eq!(found.rank, n as u64 - 1)
        }
        other => panic!("rank answered {other:?}"),
    }
    let count = data
        .sorted_set_length_by_score(in_cache(CACHE, every_score()))
        .await
        .unwrap();
    match count.into_inner().sorted_set {
        Some(sorted_set_length_by_score_response::SortedSet::Found(found)) => {
            assert_eq!(found.length, n as u32)
        }
        other => panic!("length by score answered {other:?}"),
    }
    for request in [by_index_near_end(n), by_score_near_end(n)] {
        let fetched = data
            .sorted_set_fetch(in_cache(CACHE, request))
            .await
            .unwrap();
        let values: Vec<Bytes> = match fetched.into_inner().sorted_set {
            Some(sorted_set_fetch_response::SortedSet::Found(found)) => match found.elements {
                Some(sorted_set_fetch_response::found::Elements::ValuesWithScores(v)) => {
                    v.elements.into_iter().map(|e| e.value).collect()
                }
                other => panic!("fetch answered {other:?}"),
            },
            other => panic!("fetch answered {other:?}"),
        };
        let want: Vec<Bytes> = (n - 10..n).map(member).collect();
        assert_eq!(values, want);
    }
}

/// Four connections each asking, in a loop, the ranks of 8,192 ids spread
/// over a large leaderboard (the most one GetRank may name): the dearest
/// leaderboard call, 8,192 lookups of O(log n) each, so its CPU per id is
/// held to `CPU_PER_ID_BOUND` and the normal client to the harness's bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_rank_of_8192_ids_on_a_large_leaderboard_on_four_connections() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(&[])).await;
    let n = elements(LEADERBOARD_ELEMENTS);
    let channel = target.transport.endpoint(target.server.addr);
    let mut boards = LeaderboardClient::new(channel.connect().await.unwrap());
    for from in (0..n).step_by(MOST_IDS) {
        let upsert = UpsertElementsRequest {
            leaderboard: LEADERBOARD.into(),
            elements: (from..(from + MOST_IDS).min(n))
                .map(|i| Element {
                    id: i as u32,
                    score: i as f64,
                })
                .collect(),
        };
        boards
            .upsert_elements(in_cache(CACHE, upsert))
            .await
            .unwrap();
    }
    let rank = GetRankRequest {
        leaderboard: LEADERBOARD.into(),
        ids: (0..MOST_IDS).map(|i| (i * n / MOST_IDS) as u32).collect(),
        order: 1,
    };
    let calls = Arc::new(AtomicU64::new(0));
    let counted = calls.clone();
    let name = format!("GetRank of {MOST_IDS} ids on a leaderboard of {n}, 4 connections");
    let calls_made = vec![(
        "/leaderboard.Leaderboard/GetRank",
        Bytes::from(rank.encode_to_vec()),
    )];
    let cpu_before = cpu_time(&target);
    let mut outcome = run_counted(&mut target, &name, calls.clone(), false, |ctx| {
        hammer(ctx, 4, counted, calls_made)
    })
    .await;
    let ids = calls.load(Ordering::Relaxed).max(1) * MOST_IDS as u64;
    let per_id = cpu_time(&target).saturating_sub(cpu_before) / ids as u32;
    eprintln!("ATTACK {name}: {per_id:?} of server CPU per id");
    outcome.require(
        per_id <= CPU_PER_ID_BOUND,
        format!("the server spent {per_id:?} of CPU per id, over {CPU_PER_ID_BOUND:?}"),
    );
    // Each GetRank of 8,192 ids ran as heavy work (`store/heavy.rs`), in a
    // turn of its own with its worker handed over, so the four loops never
    // held both workers from the normal client.
    let heavy = attack::try_metric(&target, "jiffy_heavy_calls_total").await;
    outcome.require(
        heavy.is_some_and(|heavy| heavy >= calls.load(Ordering::Relaxed) as f64),
        format!(
            "{heavy:?} heavy calls counted for {} GetRanks",
            calls.load(Ordering::Relaxed)
        ),
    );
    // The calls answered what they should: every id, ranked from the top.
    let answer = boards.get_rank(in_cache(CACHE, rank)).await.unwrap();
    let elements = answer.into_inner().elements;
    assert_eq!(elements.len(), MOST_IDS);
    let last = &elements[MOST_IDS - 1];
    assert_eq!(last.rank as usize, n - 1 - last.id as usize);
    outcome.assert_bounded();
}
