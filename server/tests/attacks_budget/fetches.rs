//! Fetches of whole collections by clients that never read. Each fetch
//! answers a collection just under `--max-response-size`, at its default
//! of 5 MB (or a leaderboard's largest answer: 8,192 elements), so the
//! server allows it; a client that opens wide flow-control windows and never reads sends them by the
//! hundred. A store that copies each answer out before anything counts it
//! holds one copy per call, gigabytes at `--max-in-flight-bytes 32MiB`:
//! the copy must be charged to the budget before it is made, and past the
//! budget refused (or the connection holding the most closed).

use bytes::Bytes;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::sorted_set_fetch_request::{by_index, by_score};
use jiffy_server::proto::cache_client::sorted_set_fetch_request::{ByIndex, ByScore, Range};
use jiffy_server::proto::cache_client::{
    list_fetch_response, DictionaryFetchRequest, DictionaryFieldValuePair, DictionarySetRequest,
    ListConcatenateBackRequest, ListFetchRequest, SetFetchRequest, SetUnionRequest,
    SortedSetElement, SortedSetFetchRequest, SortedSetPutRequest,
};
use jiffy_server::proto::common::Unbounded;
use jiffy_server::proto::leaderboard::leaderboard_client::LeaderboardClient;
use jiffy_server::proto::leaderboard::{
    score_range, Element, GetByRankRequest, GetByScoreRequest, RankRange, ScoreRange,
    UpsertElementsRequest,
};
use prost::Message;
use tonic::transport::Channel;

use super::send_path::{wide_windows_never_read, CONNECTIONS};
use crate::common::attack::{self, Ctx, Setup, Target, CACHE};
use crate::common::in_cache;
use crate::common::raw_http2 as raw;

/// The attacks run at the default limits: answers up to
/// `--max-response-size` (5,243,000 bytes).
const LIMITS: &[&str] = &[];
/// Each collection: `ELEMENTS` parts of `ELEMENT_SIZE` bytes, 5.12 MB, an
/// answer (5.124-5.14 MB with its framing) just under the answer limit.
const ELEMENTS: usize = 1280;
const ELEMENT_SIZE: usize = 4000;
/// Elements per write: two writes a collection, each under
/// `--max-request-size`.
const WRITE: usize = ELEMENTS / 2;
/// The most elements a leaderboard answer carries.
const BOARD_ELEMENTS: usize = 8192;
const TTL_MS: u64 = 3_600_000;

const LIST: &[u8] = b"wide-list";
const SET: &[u8] = b"wide-set";
const SORTED_SET: &[u8] = b"wide-sorted-set";
const DICTIONARY: &[u8] = b"wide-dictionary";
const BOARD: &str = "wide-board";

/// Element `i`: distinct in its first bytes, `ELEMENT_SIZE` in all.
fn element(i: usize) -> Bytes {
    let mut part = format!("{i:08}").into_bytes();
    part.resize(ELEMENT_SIZE, b'e');
    Bytes::from(part)
}

fn part(range: std::ops::Range<usize>) -> Vec<Bytes> {
    range.map(element).collect()
}

/// Writes every collection the attacks fetch.
async fn fill(target: &Target) {
    let channel = target.channel().await;
    let mut data = ScsClient::new(channel.clone())
        .max_encoding_message_size(16 << 20)
        .max_decoding_message_size(16 << 20);
    for from in (0..ELEMENTS).step_by(WRITE) {
        let range = from..from + WRITE;
        let list = ListConcatenateBackRequest {
            list_name: Bytes::from_static(LIST),
            values: part(range.clone()),
            ttl_milliseconds: TTL_MS,
            refresh_ttl: false,
            truncate_front_to_size: 0,
        };
        data.list_concatenate_back(in_cache(CACHE, list))
            .await
            .unwrap();
        let set = SetUnionRequest {
            set_name: Bytes::from_static(SET),
            elements: part(range.clone()),
            ttl_milliseconds: TTL_MS,
            refresh_ttl: false,
        };
        data.set_union(in_cache(CACHE, set)).await.unwrap();
        let sorted = SortedSetPutRequest {
            set_name: Bytes::from_static(SORTED_SET),
            elements: range
                .clone()
                .map(|i| SortedSetElement {
                    value: element(i),
                    score: i as f64,
                })
                .collect(),
            ttl_milliseconds: TTL_MS,
            refresh_ttl: false,
        };
        data.sorted_set_put(in_cache(CACHE, sorted)).await.unwrap();
        let dictionary = DictionarySetRequest {
            dictionary_name: Bytes::from_static(DICTIONARY),
            items: range
                .map(|i| DictionaryFieldValuePair {
                    field: Bytes::from(format!("f{i}")),
                    value: element(i),
                })
                .collect(),
            ttl_milliseconds: TTL_MS,
            refresh_ttl: false,
        };
        data.dictionary_set(in_cache(CACHE, dictionary))
            .await
            .unwrap();
    }
    let upsert = UpsertElementsRequest {
        leaderboard: BOARD.into(),
        elements: (0..BOARD_ELEMENTS)
            .map(|i| Element {
                id: i as u32,
                score: i as f64,
            })
            .collect(),
    };
    LeaderboardClient::new(channel)
        .upsert_elements(in_cache(CACHE, upsert))
        .await
        .unwrap();
    assert_fetches_answer(&mut data).await;
}

/// A fetch the attack makes is answered whole to a client that reads: the
/// attack's calls are allowed, not refused by their size.
async fn assert_fetches_answer(data: &mut ScsClient<Channel>) {
    let answer = data
        .list_fetch(in_cache(CACHE, list_fetch()))
        .await
        .unwrap();
    let Some(list_fetch_response::List::Found(found)) = answer.into_inner().list else {
        panic!("the list was not found");
    };
    assert_eq!(found.values.len(), ELEMENTS);
    assert_eq!(found.values[ELEMENTS - 1], element(ELEMENTS - 1));
}

fn list_fetch() -> ListFetchRequest {
    ListFetchRequest {
        list_name: Bytes::from_static(LIST),
        start_index: None,
        end_index: None,
    }
}

fn sorted_set_by_index() -> SortedSetFetchRequest {
    SortedSetFetchRequest {
        set_name: Bytes::from_static(SORTED_SET),
        order: 0,
        with_scores: true,
        range: Some(Range::ByIndex(ByIndex {
            start: Some(by_index::Start::UnboundedStart(Unbounded {})),
            end: Some(by_index::End::UnboundedEnd(Unbounded {})),
        })),
    }
}

fn sorted_set_by_score() -> SortedSetFetchRequest {
    SortedSetFetchRequest {
        set_name: Bytes::from_static(SORTED_SET),
        order: 1,
        with_scores: true,
        range: Some(Range::ByScore(ByScore {
            offset: 0,
            count: -1,
            min: Some(by_score::Min::UnboundedMin(Unbounded {})),
            max: Some(by_score::Max::UnboundedMax(Unbounded {})),
        })),
    }
}

fn board_by_rank() -> GetByRankRequest {
    GetByRankRequest {
        leaderboard: BOARD.into(),
        rank_range: Some(RankRange {
            start_inclusive: 0,
            end_exclusive: BOARD_ELEMENTS as u32,
        }),
        order: 0,
    }
}

fn board_by_score() -> GetByScoreRequest {
    GetByScoreRequest {
        leaderboard: BOARD.into(),
        score_range: Some(ScoreRange {
            min: Some(score_range::Min::UnboundedMin(Unbounded {})),
            max: Some(score_range::Max::UnboundedMax(Unbounded {})),
        }),
        offset: 0,
        limit_elements: BOARD_ELEMENTS as u32,
        order: 1,
    }
}

/// The attack's calls: a path (a method of `cache_client.Scs` by its name)
/// and a request.
type Calls = Vec<(&'static str, Vec<u8>)>;

fn list_fetches() -> Calls {
    vec![("ListFetch", list_fetch().encode_to_vec())]
}

fn set_fetches() -> Calls {
    let fetch = SetFetchRequest {
        set_name: Bytes::from_static(SET),
    };
    vec![("SetFetch", fetch.encode_to_vec())]
}

fn sorted_set_fetches() -> Calls {
    vec![
        ("SortedSetFetch", sorted_set_by_index().encode_to_vec()),
        ("SortedSetFetch", sorted_set_by_score().encode_to_vec()),
    ]
}

fn dictionary_fetches() -> Calls {
    let fetch = DictionaryFetchRequest {
        dictionary_name: Bytes::from_static(DICTIONARY),
    };
    vec![("DictionaryFetch", fetch.encode_to_vec())]
}

fn leaderboard_fetches() -> Calls {
    vec![
        (
            "/leaderboard.Leaderboard/GetByRank",
            board_by_rank().encode_to_vec(),
        ),
        (
            "/leaderboard.Leaderboard/GetByScore",
            board_by_score().encode_to_vec(),
        ),
    ]
}

/// Header blocks and framed messages of `calls`, for this attack's server.
fn framed(ctx: &Ctx, calls: &Calls) -> Vec<(Vec<u8>, Bytes)> {
    calls
        .iter()
        .map(|(path, message)| {
            let block = if path.starts_with('/') {
                raw::grpc_request_block(ctx.scheme, &ctx.authority(), path, CACHE)
            } else {
                ctx.request_block(path)
            };
            (block, Bytes::from(raw::grpc_message(message)))
        })
        .collect()
}

/// Embedded store only: over Redis a collection's answer is announced by
/// its size and charged before it leaves Redis (`RedisStore::run_read`).
async fn attack_fetches(what: &str, calls: Calls) {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(LIMITS)).await;
    fill(&target).await;
    let name = format!("wide windows, {CONNECTIONS}x100 {what} never read");
    let outcome = attack::run(&mut target, &name, move |ctx| {
        let calls = framed(&ctx, &calls);
        wide_windows_never_read(ctx, calls)
    })
    .await;
    outcome.assert_bounded();
}

/// ListFetch of a whole list of 5.12 MB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_windows_list_fetches_never_read() {
    attack_fetches("ListFetch of 5.12 MB", list_fetches()).await;
}

/// SetFetch of a whole set of 5.12 MB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_windows_set_fetches_never_read() {
    attack_fetches("SetFetch of 5.12 MB", set_fetches()).await;
}

/// SortedSetFetch of a whole sorted set of 5.14 MB, by index and by score.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_windows_sorted_set_fetches_never_read() {
    let what = "SortedSetFetch of 5.14 MB by index and by score";
    attack_fetches(what, sorted_set_fetches()).await;
}

/// DictionaryFetch of a whole dictionary of 1,280 fields, 5.13 MB.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_windows_dictionary_fetches_never_read() {
    let what = "DictionaryFetch of 5.13 MB";
    attack_fetches(what, dictionary_fetches()).await;
}

/// GetByRank and GetByScore of 8,192 elements, a leaderboard's largest
/// answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_windows_leaderboard_fetches_never_read() {
    let what = "leaderboard fetches of 8,192 elements by rank and by score";
    attack_fetches(what, leaderboard_fetches()).await;
}
