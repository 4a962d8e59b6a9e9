//! What the set tests share: request builders, a client that reduces each
//! answer to what the tests check, and the two stores a test runs on.

use std::collections::BTreeSet;
use std::time::Duration;

use bytes::Bytes;
use jiffy_server::proto::cache_client::*;
use tonic::Status;

pub use crate::common::stores::{RedisNode, Store};
use crate::common::{Data, TestServer};

pub const MINUTE_MS: u64 = 60_000;

pub fn bytes(value: &str) -> Bytes {
    Bytes::copy_from_slice(value.as_bytes())
}

fn all_bytes(values: &[&str]) -> Vec<Bytes> {
    values.iter().map(|v| bytes(v)).collect()
}

pub fn texts(values: Vec<Bytes>) -> Vec<String> {
    values
        .into_iter()
        .map(|v| String::from_utf8(v.to_vec()).unwrap())
        .collect()
}

/// What `Sets::fetch` answers for a set holding `values`.
pub fn strings(values: &[&str]) -> Option<BTreeSet<String>> {
    Some(values.iter().map(|v| v.to_string()).collect())
}

/// A SetUnion with a minute's TTL, refreshed.
pub fn union(set: &str, elements: &[&str]) -> SetUnionRequest {
    SetUnionRequest {
        set_name: bytes(set),
        elements: all_bytes(elements),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
    }
}

/// A SetDifference removing `elements`.
pub fn remove(set: &str, elements: &[&str]) -> SetDifferenceRequest {
    use set_difference_request::subtrahend::{Set, SubtrahendSet};
    use set_difference_request::{Difference, Subtrahend};
    SetDifferenceRequest {
        set_name: bytes(set),
        difference: Some(Difference::Subtrahend(Subtrahend {
            subtrahend_set: Some(SubtrahendSet::Set(Set {
                elements: all_bytes(elements),
            })),
        })),
    }
}

/// A SetDifference removing the whole set.
pub fn remove_all(set: &str) -> SetDifferenceRequest {
    use set_difference_request::subtrahend::{Identity, SubtrahendSet};
    use set_difference_request::{Difference, Subtrahend};
    SetDifferenceRequest {
        set_name: bytes(set),
        difference: Some(Difference::Subtrahend(Subtrahend {
            subtrahend_set: Some(SubtrahendSet::Identity(Identity {})),
        })),
    }
}

pub fn contains(set: &str, elements: &[&str]) -> SetContainsRequest {
    SetContainsRequest {
        set_name: bytes(set),
        elements: all_bytes(elements),
    }
}

/// The set calls of one cache, each answer reduced to what the test checks:
/// `None` for a missing set.
pub struct Sets(pub Data);

impl Sets {
    pub async fn new(server: &TestServer) -> Sets {
        Sets(server.cache("c").await)
    }

    pub async fn try_union(&mut self, request: SetUnionRequest) -> Result<(), Status> {
        let request = self.0.request(request);
        self.0.client.set_union(request).await.map(drop)
    }

    pub async fn union(&mut self, set: &str, elements: &[&str]) {
        self.try_union(union(set, elements)).await.unwrap();
    }

    /// Whether the set was found.
    pub async fn difference(&mut self, request: SetDifferenceRequest) -> bool {
        use set_difference_response::Set;
        let request = self.0.request(request);
        let answer = self.0.client.set_difference(request).await.unwrap();
        match answer.into_inner().set {
            Some(Set::Found(_)) => true,
            Some(Set::Missing(_)) => false,
            None => panic!("SetDifference answered neither found nor missing"),
        }
    }

    pub async fn fetch(&mut self, set: &str) -> Option<BTreeSet<String>> {
        use set_fetch_response::Set;
        let request = self.0.request(SetFetchRequest {
            set_name: bytes(set),
        });
        let answer = self.0.client.set_fetch(request).await.unwrap();
        match answer.into_inner().set {
            Some(Set::Found(found)) => {
                let elements = texts(found.elements);
                let distinct: BTreeSet<String> = elements.iter().cloned().collect();
                assert_eq!(distinct.len(), elements.len(), "an element twice");
                Some(distinct)
            }
            Some(Set::Missing(_)) => None,
            None => panic!("SetFetch answered neither found nor missing"),
        }
    }

    pub async fn contains(&mut self, set: &str, elements: &[&str]) -> Option<Vec<bool>> {
        use set_contains_response::Set;
        let request = self.0.request(contains(set, elements));
        let answer = self.0.client.set_contains(request).await.unwrap();
        match answer.into_inner().set {
            Some(Set::Found(found)) => Some(found.contains),
            Some(Set::Missing(_)) => None,
            None => panic!("SetContains answered neither found nor missing"),
        }
    }

    pub async fn length(&mut self, set: &str) -> Option<u32> {
        use set_length_response::Set;
        let request = self.0.request(SetLengthRequest {
            set_name: bytes(set),
        });
        let answer = self.0.client.set_length(request).await.unwrap();
        match answer.into_inner().set {
            Some(Set::Found(found)) => Some(found.length),
            Some(Set::Missing(_)) => None,
            None => panic!("SetLength answered neither found nor missing"),
        }
    }

    pub async fn pop(&mut self, set: &str, count: u32) -> Option<Vec<String>> {
        use set_pop_response::Set;
        let request = self.0.request(SetPopRequest {
            set_name: bytes(set),
            count,
        });
        let answer = self.0.client.set_pop(request).await.unwrap();
        match answer.into_inner().set {
            Some(Set::Found(found)) => Some(texts(found.elements)),
            Some(Set::Missing(_)) => None,
            None => panic!("SetPop answered neither found nor missing"),
        }
    }

    pub async fn sample(&mut self, set: &str, limit: u64) -> Option<Vec<String>> {
        use set_sample_response::Set;
        let request = self.0.request(SetSampleRequest {
            set_name: bytes(set),
            limit,
        });
        let answer = self.0.client.set_sample(request).await.unwrap();
        match answer.into_inner().set {
            Some(Set::Found(found)) => Some(texts(found.elements)),
            Some(Set::Missing(_)) => None,
            None => panic!("SetSample answered neither found nor missing"),
        }
    }

    pub async fn remaining_ttl(&mut self, key: &str) -> Option<Duration> {
        use item_get_ttl_response::Result;
        let request = self.0.request(ItemGetTtlRequest {
            cache_key: bytes(key),
        });
        let answer = self.0.client.item_get_ttl(request).await.unwrap();
        match answer.into_inner().result {
            Some(Result::Found(found)) => Some(Duration::from_millis(found.remaining_ttl_millis)),
            _ => None,
        }
    }
}
