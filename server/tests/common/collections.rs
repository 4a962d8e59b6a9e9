//! Collections of each kind written whole, one call each: the memory tests
//! and the fill attacks write them the same way.

use bytes::Bytes;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::*;
use tonic::transport::Channel;
use tonic::Status;

use super::in_cache;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    List,
    Set,
    Dictionary,
    SortedSet,
}

pub const KINDS: [Kind; 4] = [Kind::List, Kind::Set, Kind::Dictionary, Kind::SortedSet];

/// Writes `elements` into the collection `name` of `kind` in `cache`, the
/// TTL refreshed: a list appends them, a set adds them, a dictionary stores
/// each as the value of the field `field_of` names, a sorted set scores
/// each by its position.
pub async fn write(
    client: &mut ScsClient<Channel>,
    cache: &str,
    kind: Kind,
    name: Bytes,
    elements: Vec<Bytes>,
    ttl_milliseconds: u64,
    field_of: fn(&Bytes) -> Bytes,
) -> Result<(), Status> {
    let refresh_ttl = true;
    match kind {
        Kind::List => {
            let request = ListConcatenateBackRequest {
                list_name: name,
                values: elements,
                ttl_milliseconds,
                refresh_ttl,
                truncate_front_to_size: 0,
            };
            let answer = client.list_concatenate_back(in_cache(cache, request));
            answer.await.map(drop)
        }
        Kind::Set => {
            let request = SetUnionRequest {
                set_name: name,
                elements,
                ttl_milliseconds,
                refresh_ttl,
            };
            client.set_union(in_cache(cache, request)).await.map(drop)
        }
        Kind::Dictionary => {
            let items = elements
                .into_iter()
                .map(|value| DictionaryFieldValuePair {
                    field: field_of(&value),
                    value,
                })
                .collect();
            let request = DictionarySetRequest {
                dictionary_name: name,
                items,
                ttl_milliseconds,
                refresh_ttl,
            };
            let answer = client.dictionary_set(in_cache(cache, request));
            answer.await.map(drop)
        }
        Kind::SortedSet => {
            let elements = elements
                .into_iter()
                .enumerate()
                .map(|(i, value)| SortedSetElement {
                    value,
                    score: i as f64,
                })
                .collect();
            let request = SortedSetPutRequest {
                set_name: name,
                elements,
                ttl_milliseconds,
                refresh_ttl,
            };
            let answer = client.sorted_set_put(in_cache(cache, request));
            answer.await.map(drop)
        }
    }
}
