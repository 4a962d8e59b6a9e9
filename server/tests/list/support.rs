//! What the list tests share: request builders, a client that reduces
//! each answer to what the tests check, and the two stores a test runs on.

use std::time::Duration;

use bytes::Bytes;
use jiffy_server::proto::cache_client::*;
use jiffy_server::proto::common::Unbounded;

pub use crate::common::stores::{RedisNode, Store};
use crate::common::{Data, TestServer};

pub const MINUTE_MS: u64 = 60_000;

pub fn bytes(value: &str) -> Bytes {
    Bytes::copy_from_slice(value.as_bytes())
}

pub fn texts(values: Vec<Bytes>) -> Vec<String> {
    values
        .into_iter()
        .map(|v| String::from_utf8(v.to_vec()).unwrap())
        .collect()
}

/// A slice as the wire carries it; `None` is the unbounded end.
pub fn fetch_request(list: &str, start: Option<i32>, end: Option<i32>) -> ListFetchRequest {
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

pub fn retain_request(list: &str, start: Option<i32>, end: Option<i32>) -> ListRetainRequest {
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

pub fn concat_back(list: &str, values: &[&str], truncate: u32) -> ListConcatenateBackRequest {
    ListConcatenateBackRequest {
        list_name: bytes(list),
        values: values.iter().map(|v| bytes(v)).collect(),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
        truncate_front_to_size: truncate,
    }
}

pub fn concat_front(list: &str, values: &[&str], truncate: u32) -> ListConcatenateFrontRequest {
    ListConcatenateFrontRequest {
        list_name: bytes(list),
        values: values.iter().map(|v| bytes(v)).collect(),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
        truncate_back_to_size: truncate,
    }
}

pub fn push_back(list: &str, value: &str, truncate: u32) -> ListPushBackRequest {
    ListPushBackRequest {
        list_name: bytes(list),
        value: bytes(value),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
        truncate_front_to_size: truncate,
    }
}

pub fn push_front(list: &str, value: &str, truncate: u32) -> ListPushFrontRequest {
    ListPushFrontRequest {
        list_name: bytes(list),
        value: bytes(value),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
        truncate_back_to_size: truncate,
    }
}

pub fn erase_ranges(list: &str, ranges: &[(u32, u32)]) -> ListEraseRequest {
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

pub fn erase_all(list: &str) -> ListEraseRequest {
    ListEraseRequest {
        list_name: bytes(list),
        erase: Some(list_erase_request::Erase::All(list_erase_request::All {})),
    }
}

pub fn remove(list: &str, value: &str) -> ListRemoveRequest {
    ListRemoveRequest {
        list_name: bytes(list),
        remove: Some(list_remove_request::Remove::AllElementsWithValue(bytes(
            value,
        ))),
    }
}

/// The list calls of one cache, each answer reduced to what the test checks:
/// `None` for a missing list.
pub struct Lists(pub Data);

impl Lists {
    pub async fn new(server: &TestServer) -> Lists {
        Lists(server.cache("c").await)
    }

    pub async fn concat_back(&mut self, list: &str, values: &[&str]) -> u32 {
        let request = self.0.request(concat_back(list, values, 0));
        let answer = self.0.client.list_concatenate_back(request).await;
        answer.unwrap().into_inner().list_length
    }

    pub async fn fetch(
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

    pub async fn all(&mut self, list: &str) -> Option<Vec<String>> {
        self.fetch(list, None, None).await
    }

    pub async fn length(&mut self, list: &str) -> Option<u32> {
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

    pub async fn pop_front(&mut self, list: &str) -> Option<(String, u32)> {
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

    pub async fn pop_back(&mut self, list: &str) -> Option<(String, u32)> {
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

    pub async fn retain(
        &mut self,
        list: &str,
        start: Option<i32>,
        end: Option<i32>,
    ) -> Option<u32> {
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

    pub async fn erase(&mut self, request: ListEraseRequest) -> Option<u32> {
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

    pub async fn remove(&mut self, list: &str, value: &str) -> Option<u32> {
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

    pub async fn remaining_ttl(&mut self, key: &str) -> Option<Duration> {
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

/// What `Lists::all` answers for a list holding `values`.
pub fn strings(values: &[&str]) -> Option<Vec<String>> {
    Some(values.iter().map(|v| v.to_string()).collect())
}
