//! What the dictionary tests share: request builders, and a client that
//! reduces each answer to what the tests check (`None`: missing). The
//! stores a test runs on are the list tests' (`list/support.rs`).

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use jiffy_server::proto::cache_client::*;
use tonic::Status;

use crate::common::{Data, TestServer};

pub const MINUTE_MS: u64 = 60_000;

pub fn bytes(value: &str) -> Bytes {
    Bytes::copy_from_slice(value.as_bytes())
}

fn text(value: Bytes) -> String {
    String::from_utf8(value.to_vec()).unwrap()
}

pub fn set_request(name: &str, items: &[(&str, &str)]) -> DictionarySetRequest {
    DictionarySetRequest {
        dictionary_name: bytes(name),
        items: items
            .iter()
            .map(|(field, value)| DictionaryFieldValuePair {
                field: bytes(field),
                value: bytes(value),
            })
            .collect(),
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
    }
}

pub fn increment_request(name: &str, field: &str, amount: i64) -> DictionaryIncrementRequest {
    DictionaryIncrementRequest {
        dictionary_name: bytes(name),
        field: bytes(field),
        amount,
        ttl_milliseconds: MINUTE_MS,
        refresh_ttl: true,
    }
}

pub fn get_request(name: &str, fields: &[&str]) -> DictionaryGetRequest {
    DictionaryGetRequest {
        dictionary_name: bytes(name),
        fields: fields.iter().map(|f| bytes(f)).collect(),
    }
}

pub fn delete_fields(name: &str, fields: &[&str]) -> DictionaryDeleteRequest {
    use dictionary_delete_request::{Delete, Some as Fields};
    DictionaryDeleteRequest {
        dictionary_name: bytes(name),
        delete: Some(Delete::Some(Fields {
            fields: fields.iter().map(|f| bytes(f)).collect(),
        })),
    }
}

pub fn delete_all(name: &str) -> DictionaryDeleteRequest {
    use dictionary_delete_request::{All, Delete};
    DictionaryDeleteRequest {
        dictionary_name: bytes(name),
        delete: Some(Delete::All(All {})),
    }
}

pub fn fetch_request(name: &str) -> DictionaryFetchRequest {
    DictionaryFetchRequest {
        dictionary_name: bytes(name),
    }
}

pub fn length_request(name: &str) -> DictionaryLengthRequest {
    DictionaryLengthRequest {
        dictionary_name: bytes(name),
    }
}

/// What `Dictionaries::fetch` answers for a dictionary holding `items`.
pub fn entries(items: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
    let sorted: BTreeMap<String, String> = items
        .iter()
        .map(|(f, v)| (f.to_string(), v.to_string()))
        .collect();
    Some(sorted.into_iter().collect())
}

/// The dictionary calls of one cache, each answer reduced to what the test
/// checks: `None` for a missing dictionary.
pub struct Dictionaries(pub Data);

impl Dictionaries {
    pub async fn new(server: &TestServer) -> Dictionaries {
        Dictionaries(server.cache("c").await)
    }

    pub async fn set(&mut self, name: &str, items: &[(&str, &str)]) {
        let request = self.0.request(set_request(name, items));
        self.0.client.dictionary_set(request).await.unwrap();
    }

    pub async fn increment(&mut self, name: &str, field: &str, amount: i64) -> Result<i64, Status> {
        let request = self.0.request(increment_request(name, field, amount));
        let answer = self.0.client.dictionary_increment(request).await?;
        Ok(answer.into_inner().value)
    }

    /// The sum DictionaryIncrement answers; panics on an error.
    pub async fn add(&mut self, name: &str, field: &str, amount: i64) -> i64 {
        self.increment(name, field, amount).await.unwrap()
    }

    /// Each field's value, `None` for a miss.
    pub async fn get(&mut self, name: &str, fields: &[&str]) -> Option<Vec<Option<String>>> {
        use dictionary_get_response::Dictionary;
        let request = self.0.request(get_request(name, fields));
        let answer = self.0.client.dictionary_get(request).await.unwrap();
        match answer.into_inner().dictionary {
            Some(Dictionary::Found(found)) => Some(
                found
                    .items
                    .into_iter()
                    .map(|part| {
                        if part.result == ECacheResult::Hit as i32 {
                            Some(text(part.cache_body))
                        } else {
                            assert_eq!(part.result, ECacheResult::Miss as i32);
                            assert!(part.cache_body.is_empty());
                            None
                        }
                    })
                    .collect(),
            ),
            Some(Dictionary::Missing(_)) => None,
            None => panic!("DictionaryGet answered neither found nor missing"),
        }
    }

    /// Every field and value, sorted by field: the answer is a map, in no
    /// promised order.
    pub async fn fetch(&mut self, name: &str) -> Option<Vec<(String, String)>> {
        use dictionary_fetch_response::Dictionary;
        let request = self.0.request(fetch_request(name));
        let answer = self.0.client.dictionary_fetch(request).await.unwrap();
        match answer.into_inner().dictionary {
            Some(Dictionary::Found(found)) => {
                let mut entries: Vec<(String, String)> = found
                    .items
                    .into_iter()
                    .map(|item| (text(item.field), text(item.value)))
                    .collect();
                entries.sort();
                Some(entries)
            }
            Some(Dictionary::Missing(_)) => None,
            None => panic!("DictionaryFetch answered neither found nor missing"),
        }
    }

    pub async fn length(&mut self, name: &str) -> Option<u32> {
        use dictionary_length_response::Dictionary;
        let request = self.0.request(length_request(name));
        let answer = self.0.client.dictionary_length(request).await.unwrap();
        match answer.into_inner().dictionary {
            Some(Dictionary::Found(found)) => Some(found.length),
            Some(Dictionary::Missing(_)) => None,
            None => panic!("DictionaryLength answered neither found nor missing"),
        }
    }

    pub async fn delete(&mut self, request: DictionaryDeleteRequest) {
        let request = self.0.request(request);
        self.0.client.dictionary_delete(request).await.unwrap();
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
