//! What the sorted set tests share: request builders, and a client that
//! reduces each answer to what the tests check (`None`: a missing set).

use bytes::Bytes;
use jiffy_server::proto::cache_client::*;
use jiffy_server::proto::common::Unbounded;

use crate::common::{Data, TestServer};

pub use crate::common::stores::{RedisNode, Store};

pub const MINUTE_MS: u64 = 60_000;

pub fn bytes(value: &str) -> Bytes {
    Bytes::copy_from_slice(value.as_bytes())
}

/// Elements as (value, score) pairs of text.
pub type Pairs = Vec<(String, f64)>;

pub fn pairs(elements: &[(&str, f64)]) -> Pairs {
    elements.iter().map(|(v, s)| (v.to_string(), *s)).collect()
}

pub fn put(set: &str, elements: &[(&str, f64)], ttl_ms: u64, refresh: bool) -> SortedSetPutRequest {
    SortedSetPutRequest {
        set_name: bytes(set),
        elements: elements
            .iter()
            .map(|(value, score)| SortedSetElement {
                value: bytes(value),
                score: *score,
            })
            .collect(),
        ttl_milliseconds: ttl_ms,
        refresh_ttl: refresh,
    }
}

pub fn by_index(
    set: &str,
    start: Option<i32>,
    end: Option<i32>,
    descending: bool,
) -> SortedSetFetchRequest {
    use sorted_set_fetch_request::{by_index, ByIndex, Range};
    SortedSetFetchRequest {
        set_name: bytes(set),
        order: order(descending),
        with_scores: true,
        range: Some(Range::ByIndex(ByIndex {
            start: Some(
                start.map_or(by_index::Start::UnboundedStart(Unbounded {}), |s| {
                    by_index::Start::InclusiveStartIndex(s)
                }),
            ),
            end: Some(end.map_or(by_index::End::UnboundedEnd(Unbounded {}), |e| {
                by_index::End::ExclusiveEndIndex(e)
            })),
        })),
    }
}

/// A score bound: `None` unbounded, else (score, exclusive).
pub type Bound = Option<(f64, bool)>;

pub fn by_score(
    set: &str,
    min: Bound,
    max: Bound,
    offset: u32,
    count: i32,
    descending: bool,
) -> SortedSetFetchRequest {
    use sorted_set_fetch_request::{by_score, ByScore, Range};
    let score = |(score, exclusive): (f64, bool)| by_score::Score { score, exclusive };
    SortedSetFetchRequest {
        set_name: bytes(set),
        order: order(descending),
        with_scores: true,
        range: Some(Range::ByScore(ByScore {
            min: Some(min.map_or(by_score::Min::UnboundedMin(Unbounded {}), |m| {
                by_score::Min::MinScore(score(m))
            })),
            max: Some(max.map_or(by_score::Max::UnboundedMax(Unbounded {}), |m| {
                by_score::Max::MaxScore(score(m))
            })),
            offset,
            count,
        })),
    }
}

fn order(descending: bool) -> i32 {
    if descending {
        sorted_set_fetch_request::Order::Descending as i32
    } else {
        sorted_set_fetch_request::Order::Ascending as i32
    }
}

pub fn increment(set: &str, value: &str, amount: f64) -> SortedSetIncrementRequest {
    SortedSetIncrementRequest {
        set_name: bytes(set),
        value: bytes(value),
        amount,
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: false,
    }
}

pub fn length_by_score(set: &str, min: Bound, max: Bound) -> SortedSetLengthByScoreRequest {
    use sorted_set_length_by_score_request::{Max, Min};
    SortedSetLengthByScoreRequest {
        set_name: bytes(set),
        min: Some(match min {
            None => Min::UnboundedMin(Unbounded {}),
            Some((score, false)) => Min::InclusiveMin(score),
            Some((score, true)) => Min::ExclusiveMin(score),
        }),
        max: Some(match max {
            None => Max::UnboundedMax(Unbounded {}),
            Some((score, false)) => Max::InclusiveMax(score),
            Some((score, true)) => Max::ExclusiveMax(score),
        }),
    }
}

pub fn remove_values(set: &str, values: &[&str]) -> SortedSetRemoveRequest {
    use sorted_set_remove_request::{RemoveElements, Some as Values};
    SortedSetRemoveRequest {
        set_name: bytes(set),
        remove_elements: Some(RemoveElements::Some(Values {
            values: values.iter().map(|v| bytes(v)).collect(),
        })),
    }
}

pub fn remove_all(set: &str) -> SortedSetRemoveRequest {
    use sorted_set_remove_request::{All, RemoveElements};
    SortedSetRemoveRequest {
        set_name: bytes(set),
        remove_elements: Some(RemoveElements::All(All {})),
    }
}

/// `aggregate`: 0 sum, 1 min, 2 max.
pub fn union_store(
    set: &str,
    sources: &[(&str, f32)],
    aggregate: i32,
) -> SortedSetUnionStoreRequest {
    use sorted_set_union_store_request::Source;
    SortedSetUnionStoreRequest {
        set_name: bytes(set),
        sources: sources
            .iter()
            .map(|(name, weight)| Source {
                set_name: bytes(name),
                weight: *weight,
            })
            .collect(),
        aggregate,
        ttl_milliseconds: MINUTE_MS,
    }
}

pub fn rank_request(set: &str, value: &str, descending: bool) -> SortedSetGetRankRequest {
    use sorted_set_get_rank_request::Order;
    SortedSetGetRankRequest {
        set_name: bytes(set),
        value: bytes(value),
        order: if descending {
            Order::Descending as i32
        } else {
            Order::Ascending as i32
        },
    }
}

/// The sorted set calls of one cache, each answer reduced.
pub struct Zsets(pub Data);

impl Zsets {
    pub async fn new(server: &TestServer) -> Zsets {
        Zsets(server.cache("c").await)
    }

    pub async fn put(&mut self, set: &str, elements: &[(&str, f64)]) {
        let request = self.0.request(put(set, elements, MINUTE_MS, false));
        self.0.client.sorted_set_put(request).await.unwrap();
    }

    pub async fn fetch(&mut self, request: SortedSetFetchRequest) -> Option<Pairs> {
        use sorted_set_fetch_response::{found::Elements, SortedSet};
        let request = self.0.request(request);
        let answer = self.0.client.sorted_set_fetch(request).await.unwrap();
        match answer.into_inner().sorted_set {
            Some(SortedSet::Found(found)) => match found.elements {
                Some(Elements::ValuesWithScores(with)) => Some(
                    with.elements
                        .into_iter()
                        .map(|e| (String::from_utf8(e.value.to_vec()).unwrap(), e.score))
                        .collect(),
                ),
                other => panic!("asked with scores, answered {other:?}"),
            },
            Some(SortedSet::Missing(_)) => None,
            None => panic!("SortedSetFetch answered neither found nor missing"),
        }
    }

    pub async fn all(&mut self, set: &str) -> Option<Pairs> {
        self.fetch(by_index(set, None, None, false)).await
    }

    /// The values of a fetch, without their scores.
    pub async fn values(&mut self, request: SortedSetFetchRequest) -> Option<Vec<String>> {
        let fetched = self.fetch(request).await?;
        Some(fetched.into_iter().map(|(v, _)| v).collect())
    }

    pub async fn scores(&mut self, set: &str, values: &[&str]) -> Option<Vec<Option<f64>>> {
        use sorted_set_get_score_response::SortedSet;
        let request = self.0.request(SortedSetGetScoreRequest {
            set_name: bytes(set),
            values: values.iter().map(|v| bytes(v)).collect(),
        });
        let answer = self.0.client.sorted_set_get_score(request).await.unwrap();
        match answer.into_inner().sorted_set {
            Some(SortedSet::Found(found)) => Some(
                found
                    .elements
                    .into_iter()
                    .map(|part| (part.result == ECacheResult::Hit as i32).then_some(part.score))
                    .collect(),
            ),
            Some(SortedSet::Missing(_)) => None,
            None => panic!("SortedSetGetScore answered neither found nor missing"),
        }
    }

    /// `None`: missing set; `Some(None)`: the value is not in it.
    pub async fn rank(&mut self, set: &str, value: &str, descending: bool) -> Option<Option<u64>> {
        use sorted_set_get_rank_response::Rank;
        let request = self.0.request(rank_request(set, value, descending));
        let answer = self.0.client.sorted_set_get_rank(request).await.unwrap();
        match answer.into_inner().rank {
            Some(Rank::ElementRank(part)) if part.result == ECacheResult::Hit as i32 => {
                Some(Some(part.rank))
            }
            Some(Rank::ElementRank(part)) => {
                assert_eq!(part.result, ECacheResult::Miss as i32);
                Some(None)
            }
            Some(Rank::Missing(_)) => None,
            None => panic!("SortedSetGetRank answered neither a rank nor missing"),
        }
    }

    pub async fn length(&mut self, set: &str) -> Option<u32> {
        use sorted_set_length_response::SortedSet;
        let request = self.0.request(SortedSetLengthRequest {
            set_name: bytes(set),
        });
        let answer = self.0.client.sorted_set_length(request).await.unwrap();
        match answer.into_inner().sorted_set {
            Some(SortedSet::Found(found)) => Some(found.length),
            _ => None,
        }
    }

    pub async fn length_by_score(&mut self, set: &str, min: Bound, max: Bound) -> Option<u32> {
        use sorted_set_length_by_score_response::SortedSet;
        let request = self.0.request(length_by_score(set, min, max));
        let answer = self.0.client.sorted_set_length_by_score(request).await;
        match answer.unwrap().into_inner().sorted_set {
            Some(SortedSet::Found(found)) => Some(found.length),
            _ => None,
        }
    }

    pub async fn increment(&mut self, set: &str, value: &str, amount: f64) -> f64 {
        let request = self.0.request(increment(set, value, amount));
        let answer = self.0.client.sorted_set_increment(request).await;
        answer.unwrap().into_inner().score
    }

    pub async fn union_store(&mut self, set: &str, sources: &[(&str, f32)], aggregate: i32) -> u32 {
        let request = self.0.request(union_store(set, sources, aggregate));
        let answer = self.0.client.sorted_set_union_store(request).await;
        answer.unwrap().into_inner().length
    }

    pub async fn remove(&mut self, request: SortedSetRemoveRequest) {
        let request = self.0.request(request);
        self.0.client.sorted_set_remove(request).await.unwrap();
    }

    pub async fn remaining_ttl(&mut self, key: &str) -> Option<std::time::Duration> {
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
            Some(Result::Found(found)) => {
                Some(std::time::Duration::from_millis(found.remaining_ttl_millis))
            }
            _ => None,
        }
    }
}
