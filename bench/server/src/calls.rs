//! The calls the load can be made of (`--call`), each paired with the
//! redis-server command that does the same work, so `bench/server/run.sh`
//! and `bench/collections/run.sh` can set the two side by side.
//!
//! | `--call`           | jiffy-server                               | redis-server                         |
//! |--------------------|--------------------------------------------|--------------------------------------|
//! | `get-set`          | Get / Set (`--get-ratio`)                  | GET / SET                            |
//! | `dictionary-set`   | DictionarySet of 10 fields                 | HSET key f0 v .. f9 v                |
//! | `dictionary-get`   | DictionaryGet of those 10 fields           | HMGET key f0 .. f9                   |
//! | `list-push-back`   | ListPushBack of one value                  | RPUSH key v                          |
//! | `list-fetch`       | ListFetch of a 100-value list, whole       | LRANGE key 0 99                      |
//! | `set-union`        | SetUnion of one element                    | SADD key e                           |
//! | `sorted-set-put`   | SortedSetPut of one (value, score)         | ZADD key score value                 |
//! | `sorted-set-fetch` | SortedSetFetch, top 10 of 1,000 by rank    | ZREVRANGE key 0 9 WITHSCORES         |
//! | `leaderboard-upsert` | UpsertElements of one (id, score)        | ZADD key score id                    |
//! | `leaderboard-fetch`  | GetByRank, top 10 of 1,000               | ZREVRANGE key 0 9 WITHSCORES         |
//!
//! A leaderboard is named by the key; Redis has no leaderboard, and a sorted
//! set of numeric members is the structure one is built from there.
//!
//! The reads need their collections to exist: [`Call::prefill`] writes them
//! for every key before the warmup, as `run.sh` does for redis-server.
//! `get-set` is made of [`get`] and [`set`], which `load.rs` picks between.

use bytes::Bytes;
use clap::ValueEnum;
use jiffy_server::proto::cache_client::{
    dictionary_get_response, list_fetch_response, scs_client::ScsClient, sorted_set_fetch_request,
    sorted_set_fetch_response, DictionaryFieldValuePair, DictionaryGetRequest,
    DictionarySetRequest, ECacheResult, GetRequest, ListConcatenateBackRequest, ListFetchRequest,
    ListPushBackRequest, SetRequest, SetUnionRequest, SortedSetElement, SortedSetFetchRequest,
    SortedSetPutRequest,
};
use jiffy_server::proto::leaderboard::{
    leaderboard_client::LeaderboardClient, Element, GetByRankRequest, Order as LeaderboardOrder,
    RankRange, UpsertElementsRequest,
};
use tonic::{metadata::AsciiMetadataValue, transport::Channel, Request};

/// Fields per dictionary call.
pub const DICTIONARY_FIELDS: usize = 10;
/// Values in each list that `list-fetch` reads.
pub const LIST_LENGTH: usize = 100;
/// Elements in each sorted set that `sorted-set-fetch` reads.
pub const SORTED_SET_LENGTH: usize = 1_000;
/// Elements `sorted-set-fetch` and `leaderboard-fetch` take from the top.
pub const SORTED_SET_TOP: usize = 10;

/// The gRPC clients a worker sends its calls through, over one channel.
pub struct Grpc {
    pub scs: ScsClient<Channel>,
    pub leaderboard: LeaderboardClient<Channel>,
}

impl Grpc {
    pub fn new(channel: Channel) -> Grpc {
        Grpc {
            scs: ScsClient::new(channel.clone()),
            leaderboard: LeaderboardClient::new(channel),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Call {
    GetSet,
    DictionarySet,
    DictionaryGet,
    ListPushBack,
    ListFetch,
    SetUnion,
    SortedSetPut,
    SortedSetFetch,
    LeaderboardUpsert,
    LeaderboardFetch,
}

/// What a collection call answered, as the load loop counts it.
pub enum Answer {
    /// A read found its collection: how many values it answered.
    Hit(usize),
    Miss,
    Stored,
    /// The call and what it answered that the protocol does not allow.
    Unexpected(&'static str, String),
}

/// What one request needs besides its key.
pub struct Inputs<'a> {
    pub value: &'a Bytes,
    /// A second random key index, for the element a set or sorted-set write
    /// adds (as redis-benchmark fills a second `__rand_int__`).
    pub member: usize,
    pub ttl_ms: u64,
}

impl Call {
    /// True for the calls that only read.
    pub fn is_read(self) -> bool {
        matches!(
            self,
            Call::DictionaryGet | Call::ListFetch | Call::SortedSetFetch | Call::LeaderboardFetch
        )
    }

    /// How many values a read answers when its collection is whole.
    pub fn expected_hit_len(self) -> usize {
        match self {
            Call::DictionaryGet => DICTIONARY_FIELDS,
            Call::ListFetch => LIST_LENGTH,
            Call::SortedSetFetch | Call::LeaderboardFetch => SORTED_SET_TOP,
            _ => 0,
        }
    }

    /// One collection call on `key`; `get-set` is not one (see `load.rs`).
    pub async fn send(
        self,
        clients: &mut Grpc,
        cache: &AsciiMetadataValue,
        key: Bytes,
        inputs: Inputs<'_>,
    ) -> Result<Answer, tonic::Status> {
        let member = || Bytes::from(format!("{:012}", inputs.member));
        let client = &mut clients.scs;
        match self {
            Call::GetSet => unreachable!("get-set is `get` and `set`, picked by load.rs"),
            Call::DictionarySet => {
                let message = dictionary_set(key, inputs.value, inputs.ttl_ms);
                client.dictionary_set(request(message, cache)).await?;
                Ok(Answer::Stored)
            }
            Call::DictionaryGet => {
                let message = DictionaryGetRequest {
                    dictionary_name: key,
                    fields: fields().collect(),
                };
                let reply = client.dictionary_get(request(message, cache)).await?;
                use dictionary_get_response::Dictionary;
                match reply.into_inner().dictionary {
                    Some(Dictionary::Found(found)) => {
                        let hits = found
                            .items
                            .iter()
                            .filter(|item| item.result == ECacheResult::Hit as i32)
                            .count();
                        Ok(Answer::Hit(hits))
                    }
                    Some(Dictionary::Missing(_)) => Ok(Answer::Miss),
                    None => Ok(Answer::Unexpected("dictionary-get", "nothing".into())),
                }
            }
            Call::ListPushBack => {
                let message = ListPushBackRequest {
                    list_name: key,
                    value: inputs.value.clone(),
                    ttl_milliseconds: inputs.ttl_ms,
                    refresh_ttl: true,
                    truncate_front_to_size: 0,
                };
                client.list_push_back(request(message, cache)).await?;
                Ok(Answer::Stored)
            }
            Call::ListFetch => {
                let message = ListFetchRequest {
                    list_name: key,
                    start_index: None,
                    end_index: None,
                };
                let reply = client.list_fetch(request(message, cache)).await?;
                use list_fetch_response::List;
                match reply.into_inner().list {
                    Some(List::Found(found)) => Ok(Answer::Hit(found.values.len())),
                    Some(List::Missing(_)) => Ok(Answer::Miss),
                    None => Ok(Answer::Unexpected("list-fetch", "nothing".into())),
                }
            }
            Call::SetUnion => {
                let message = SetUnionRequest {
                    set_name: key,
                    elements: vec![member()],
                    ttl_milliseconds: inputs.ttl_ms,
                    refresh_ttl: true,
                };
                client.set_union(request(message, cache)).await?;
                Ok(Answer::Stored)
            }
            Call::SortedSetPut => {
                let message = SortedSetPutRequest {
                    set_name: key,
                    elements: vec![SortedSetElement {
                        value: member(),
                        score: inputs.member as f64,
                    }],
                    ttl_milliseconds: inputs.ttl_ms,
                    refresh_ttl: true,
                };
                client.sorted_set_put(request(message, cache)).await?;
                Ok(Answer::Stored)
            }
            Call::SortedSetFetch => {
                use sorted_set_fetch_request::{by_index, ByIndex, Order, Range};
                let message = SortedSetFetchRequest {
                    set_name: key,
                    order: Order::Descending as i32,
                    with_scores: true,
                    range: Some(Range::ByIndex(ByIndex {
                        start: Some(by_index::Start::InclusiveStartIndex(0)),
                        end: Some(by_index::End::ExclusiveEndIndex(SORTED_SET_TOP as i32)),
                    })),
                };
                let reply = client.sorted_set_fetch(request(message, cache)).await?;
                use sorted_set_fetch_response::{found::Elements, SortedSet};
                match reply.into_inner().sorted_set {
                    Some(SortedSet::Found(found)) => match found.elements {
                        Some(Elements::ValuesWithScores(v)) => Ok(Answer::Hit(v.elements.len())),
                        other => Ok(Answer::Unexpected("sorted-set-fetch", format!("{other:?}"))),
                    },
                    Some(SortedSet::Missing(_)) => Ok(Answer::Miss),
                    None => Ok(Answer::Unexpected("sorted-set-fetch", "nothing".into())),
                }
            }
            Call::LeaderboardUpsert => {
                let message = UpsertElementsRequest {
                    leaderboard: leaderboard_name(&key)?,
                    elements: vec![Element {
                        id: inputs.member as u32,
                        score: inputs.member as f64,
                    }],
                };
                clients
                    .leaderboard
                    .upsert_elements(request(message, cache))
                    .await?;
                Ok(Answer::Stored)
            }
            Call::LeaderboardFetch => {
                let message = GetByRankRequest {
                    leaderboard: leaderboard_name(&key)?,
                    rank_range: Some(RankRange {
                        start_inclusive: 0,
                        end_exclusive: SORTED_SET_TOP as u32,
                    }),
                    order: LeaderboardOrder::Descending as i32,
                };
                let reply = clients
                    .leaderboard
                    .get_by_rank(request(message, cache))
                    .await?;
                // A board that does not exist answers no elements.
                match reply.into_inner().elements.len() {
                    0 => Ok(Answer::Miss),
                    n => Ok(Answer::Hit(n)),
                }
            }
        }
    }

    /// Writes the collection a read of `key` expects, whole; nothing for
    /// the writes.
    pub async fn prefill(
        self,
        clients: &mut Grpc,
        cache: &AsciiMetadataValue,
        key: Bytes,
        value: &Bytes,
        ttl_ms: u64,
    ) -> Result<(), tonic::Status> {
        let client = &mut clients.scs;
        match self {
            Call::DictionaryGet => {
                let message = dictionary_set(key, value, ttl_ms);
                client.dictionary_set(request(message, cache)).await?;
            }
            Call::ListFetch => {
                let message = ListConcatenateBackRequest {
                    list_name: key,
                    values: vec![value.clone(); LIST_LENGTH],
                    ttl_milliseconds: ttl_ms,
                    refresh_ttl: true,
                    truncate_front_to_size: LIST_LENGTH as u32,
                };
                client
                    .list_concatenate_back(request(message, cache))
                    .await?;
            }
            Call::SortedSetFetch => {
                let message = SortedSetPutRequest {
                    set_name: key,
                    elements: (0..SORTED_SET_LENGTH)
                        .map(|i| SortedSetElement {
                            value: Bytes::from(format!("{i:012}")),
                            score: i as f64,
                        })
                        .collect(),
                    ttl_milliseconds: ttl_ms,
                    refresh_ttl: true,
                };
                client.sorted_set_put(request(message, cache)).await?;
            }
            Call::LeaderboardFetch => {
                let message = UpsertElementsRequest {
                    leaderboard: leaderboard_name(&key)?,
                    elements: (0..SORTED_SET_LENGTH)
                        .map(|i| Element {
                            id: i as u32,
                            score: i as f64,
                        })
                        .collect(),
                };
                clients
                    .leaderboard
                    .upsert_elements(request(message, cache))
                    .await?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// The Get of `get-set`.
pub async fn get(
    client: &mut ScsClient<Channel>,
    cache: &AsciiMetadataValue,
    key: Bytes,
) -> Result<Answer, tonic::Status> {
    let message = GetRequest { cache_key: key };
    let reply = client.get(request(message, cache)).await?.into_inner();
    match ECacheResult::try_from(reply.result) {
        Ok(ECacheResult::Hit) => Ok(Answer::Hit(reply.cache_body.len())),
        Ok(ECacheResult::Miss) => Ok(Answer::Miss),
        _ => Ok(Answer::Unexpected(
            "get",
            format!("ECacheResult {}", reply.result),
        )),
    }
}

/// The Set of `get-set`.
pub async fn set(
    client: &mut ScsClient<Channel>,
    cache: &AsciiMetadataValue,
    key: Bytes,
    value: Bytes,
    ttl_ms: u64,
) -> Result<Answer, tonic::Status> {
    let message = SetRequest {
        cache_key: key,
        cache_body: value,
        ttl_milliseconds: ttl_ms,
    };
    let reply = client.set(request(message, cache)).await?.into_inner();
    match ECacheResult::try_from(reply.result) {
        Ok(ECacheResult::Ok) => Ok(Answer::Stored),
        _ => Ok(Answer::Unexpected(
            "set",
            format!("ECacheResult {}", reply.result),
        )),
    }
}

fn request<T>(message: T, cache: &AsciiMetadataValue) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert("cache", cache.clone());
    request
}

/// A leaderboard is named by a string; the bench's keys are ASCII.
fn leaderboard_name(key: &Bytes) -> Result<String, tonic::Status> {
    String::from_utf8(key.to_vec())
        .map_err(|_| tonic::Status::invalid_argument("a leaderboard name must be UTF-8"))
}

/// `f0` .. `f9`, as the redis-server commands name them.
fn fields() -> impl Iterator<Item = Bytes> {
    (0..DICTIONARY_FIELDS).map(|i| Bytes::from(format!("f{i}")))
}

fn dictionary_set(key: Bytes, value: &Bytes, ttl_ms: u64) -> DictionarySetRequest {
    DictionarySetRequest {
        dictionary_name: key,
        items: fields()
            .map(|field| DictionaryFieldValuePair {
                field,
                value: value.clone(),
            })
            .collect(),
        ttl_milliseconds: ttl_ms,
        refresh_ttl: true,
    }
}
