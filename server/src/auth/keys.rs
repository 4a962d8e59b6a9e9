//! The item keys each data call names, for tokens that reach only some
//! keys of a cache. A collection's name is its key, as in Momento; a
//! leaderboard's name is its key too.

use crate::proto::cache_client::*;
use crate::proto::leaderboard::{
    DeleteLeaderboardRequest, GetByRankRequest, GetByScoreRequest, GetCompetitionRankRequest,
    GetLeaderboardLengthRequest, GetRankRequest, RemoveElementsRequest, UpsertElementsRequest,
};

/// The keys a request names, every one of them.
pub trait ItemKeys {
    fn item_keys(&self) -> Vec<&[u8]>;
}

/// Requests that name one item, in the field given.
macro_rules! one_key {
    ($($request:ty => $field:ident),* $(,)?) => {
        $(impl ItemKeys for $request {
            fn item_keys(&self) -> Vec<&[u8]> {
                vec![self.$field.as_ref()]
            }
        })*
    };
}

one_key! {
    GetRequest => cache_key,
    SetRequest => cache_key,
    SetIfRequest => cache_key,
    SetIfNotExistsRequest => cache_key,
    SetIfHashRequest => cache_key,
    GetWithHashRequest => cache_key,
    DeleteRequest => cache_key,
    IncrementRequest => cache_key,
    UpdateTtlRequest => cache_key,
    ItemGetTtlRequest => cache_key,
    ItemGetTypeRequest => cache_key,
    DictionaryFetchRequest => dictionary_name,
    DictionaryGetRequest => dictionary_name,
    DictionarySetRequest => dictionary_name,
    DictionaryIncrementRequest => dictionary_name,
    DictionaryDeleteRequest => dictionary_name,
    DictionaryLengthRequest => dictionary_name,
    SetFetchRequest => set_name,
    SetSampleRequest => set_name,
    SetUnionRequest => set_name,
    SetDifferenceRequest => set_name,
    SetContainsRequest => set_name,
    SetLengthRequest => set_name,
    SetPopRequest => set_name,
    ListConcatenateFrontRequest => list_name,
    ListConcatenateBackRequest => list_name,
    ListPushFrontRequest => list_name,
    ListPushBackRequest => list_name,
    ListPopFrontRequest => list_name,
    ListPopBackRequest => list_name,
    ListEraseRequest => list_name,
    ListRemoveRequest => list_name,
    ListFetchRequest => list_name,
    ListLengthRequest => list_name,
    ListRetainRequest => list_name,
    SortedSetPutRequest => set_name,
    SortedSetFetchRequest => set_name,
    SortedSetGetScoreRequest => set_name,
    SortedSetRemoveRequest => set_name,
    SortedSetIncrementRequest => set_name,
    SortedSetGetRankRequest => set_name,
    SortedSetLengthRequest => set_name,
    SortedSetLengthByScoreRequest => set_name,
    UpsertElementsRequest => leaderboard,
    RemoveElementsRequest => leaderboard,
    GetByRankRequest => leaderboard,
    GetByScoreRequest => leaderboard,
    GetRankRequest => leaderboard,
    GetCompetitionRankRequest => leaderboard,
    GetLeaderboardLengthRequest => leaderboard,
    DeleteLeaderboardRequest => leaderboard,
}

impl ItemKeys for GetBatchRequest {
    fn item_keys(&self) -> Vec<&[u8]> {
        self.items
            .iter()
            .map(|item| item.cache_key.as_ref())
            .collect()
    }
}

impl ItemKeys for SetBatchRequest {
    fn item_keys(&self) -> Vec<&[u8]> {
        self.items
            .iter()
            .map(|item| item.cache_key.as_ref())
            .collect()
    }
}

impl ItemKeys for KeysExistRequest {
    fn item_keys(&self) -> Vec<&[u8]> {
        self.cache_keys.iter().map(AsRef::as_ref).collect()
    }
}

/// The set written and every set it reads.
impl ItemKeys for SortedSetUnionStoreRequest {
    fn item_keys(&self) -> Vec<&[u8]> {
        std::iter::once(self.set_name.as_ref())
            .chain(self.sources.iter().map(|source| source.set_name.as_ref()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    #[test]
    fn batches_and_unions_name_every_key() {
        let batch = GetBatchRequest {
            items: vec![
                GetRequest {
                    cache_key: Bytes::from_static(b"a"),
                },
                GetRequest {
                    cache_key: Bytes::from_static(b"b"),
                },
            ],
        };
        assert_eq!(batch.item_keys(), [b"a", b"b"]);
        let union = SortedSetUnionStoreRequest {
            set_name: Bytes::from_static(b"d"),
            sources: vec![sorted_set_union_store_request::Source {
                set_name: Bytes::from_static(b"s"),
                weight: 1.0,
            }],
            ..Default::default()
        };
        assert_eq!(union.item_keys(), [b"d", b"s"]);
    }
}
