//! `cache_client.Scs`: the dispatch of the data-plane calls. tonic wants
//! every call of the service in one `impl`, so this file is that impl and
//! nothing more: each call goes to its group's file (`scalar.rs`,
//! `batch.rs`, `hash.rs`, `list.rs`, `dictionary.rs`, `set.rs`,
//! `sorted_set.rs`), where the handler is.

use tonic::Request;

use super::{batch, hash, scalar, Answer, DataPlane};
use crate::backend::Storage;
use crate::proto::cache_client::scs_server::Scs;
// The request and response messages of every call.
use crate::proto::cache_client::*;

#[tonic::async_trait]
impl<S: Storage + Clone> Scs for DataPlane<S> {
    async fn get(&self, request: Request<GetRequest>) -> Answer<GetResponse> {
        scalar::get(self, request).await
    }

    type GetBatchStream = batch::GetBatchStream;

    async fn get_batch(&self, request: Request<GetBatchRequest>) -> Answer<Self::GetBatchStream> {
        batch::get_batch(self, request).await
    }

    async fn set(&self, request: Request<SetRequest>) -> Answer<SetResponse> {
        scalar::set(self, request).await
    }

    type SetBatchStream = batch::SetBatchStream;

    async fn set_batch(&self, request: Request<SetBatchRequest>) -> Answer<Self::SetBatchStream> {
        batch::set_batch(self, request).await
    }

    async fn set_if(&self, request: Request<SetIfRequest>) -> Answer<SetIfResponse> {
        scalar::set_if(self, request).await
    }

    async fn set_if_not_exists(
        &self,
        request: Request<SetIfNotExistsRequest>,
    ) -> Answer<SetIfNotExistsResponse> {
        scalar::set_if_not_exists(self, request).await
    }

    async fn delete(&self, request: Request<DeleteRequest>) -> Answer<DeleteResponse> {
        scalar::delete(self, request).await
    }

    async fn keys_exist(&self, request: Request<KeysExistRequest>) -> Answer<KeysExistResponse> {
        scalar::keys_exist(self, request).await
    }

    async fn increment(&self, request: Request<IncrementRequest>) -> Answer<IncrementResponse> {
        scalar::increment(self, request).await
    }

    async fn update_ttl(&self, request: Request<UpdateTtlRequest>) -> Answer<UpdateTtlResponse> {
        scalar::update_ttl(self, request).await
    }

    async fn item_get_ttl(
        &self,
        request: Request<ItemGetTtlRequest>,
    ) -> Answer<ItemGetTtlResponse> {
        scalar::item_get_ttl(self, request).await
    }

    async fn item_get_type(
        &self,
        request: Request<ItemGetTypeRequest>,
    ) -> Answer<ItemGetTypeResponse> {
        scalar::item_get_type(self, request).await
    }

    async fn get_with_hash(
        &self,
        request: Request<GetWithHashRequest>,
    ) -> Answer<GetWithHashResponse> {
        hash::get_with_hash(self, request).await
    }

    async fn set_if_hash(&self, request: Request<SetIfHashRequest>) -> Answer<SetIfHashResponse> {
        hash::set_if_hash(self, request).await
    }

    // Dictionaries: served, in dictionary.rs.

    async fn dictionary_get(
        &self,
        request: Request<DictionaryGetRequest>,
    ) -> Answer<DictionaryGetResponse> {
        super::dictionary::dictionary_get(self, request).await
    }

    async fn dictionary_fetch(
        &self,
        request: Request<DictionaryFetchRequest>,
    ) -> Answer<DictionaryFetchResponse> {
        super::dictionary::dictionary_fetch(self, request).await
    }

    async fn dictionary_set(
        &self,
        request: Request<DictionarySetRequest>,
    ) -> Answer<DictionarySetResponse> {
        super::dictionary::dictionary_set(self, request).await
    }

    async fn dictionary_increment(
        &self,
        request: Request<DictionaryIncrementRequest>,
    ) -> Answer<DictionaryIncrementResponse> {
        super::dictionary::dictionary_increment(self, request).await
    }

    async fn dictionary_delete(
        &self,
        request: Request<DictionaryDeleteRequest>,
    ) -> Answer<DictionaryDeleteResponse> {
        super::dictionary::dictionary_delete(self, request).await
    }

    async fn dictionary_length(
        &self,
        request: Request<DictionaryLengthRequest>,
    ) -> Answer<DictionaryLengthResponse> {
        super::dictionary::dictionary_length(self, request).await
    }

    // Sets, in set.rs.

    async fn set_fetch(&self, request: Request<SetFetchRequest>) -> Answer<SetFetchResponse> {
        super::set::set_fetch(self, request).await
    }

    async fn set_sample(&self, request: Request<SetSampleRequest>) -> Answer<SetSampleResponse> {
        super::set::set_sample(self, request).await
    }

    async fn set_union(&self, request: Request<SetUnionRequest>) -> Answer<SetUnionResponse> {
        super::set::set_union(self, request).await
    }

    async fn set_difference(
        &self,
        request: Request<SetDifferenceRequest>,
    ) -> Answer<SetDifferenceResponse> {
        super::set::set_difference(self, request).await
    }

    async fn set_contains(
        &self,
        request: Request<SetContainsRequest>,
    ) -> Answer<SetContainsResponse> {
        super::set::set_contains(self, request).await
    }

    async fn set_length(&self, request: Request<SetLengthRequest>) -> Answer<SetLengthResponse> {
        super::set::set_length(self, request).await
    }

    async fn set_pop(&self, request: Request<SetPopRequest>) -> Answer<SetPopResponse> {
        super::set::set_pop(self, request).await
    }

    // Lists, in list.rs.

    async fn list_push_front(
        &self,
        request: Request<ListPushFrontRequest>,
    ) -> Answer<ListPushFrontResponse> {
        super::list::list_push_front(self, request).await
    }

    async fn list_push_back(
        &self,
        request: Request<ListPushBackRequest>,
    ) -> Answer<ListPushBackResponse> {
        super::list::list_push_back(self, request).await
    }

    async fn list_pop_front(
        &self,
        request: Request<ListPopFrontRequest>,
    ) -> Answer<ListPopFrontResponse> {
        super::list::list_pop_front(self, request).await
    }

    async fn list_pop_back(
        &self,
        request: Request<ListPopBackRequest>,
    ) -> Answer<ListPopBackResponse> {
        super::list::list_pop_back(self, request).await
    }

    async fn list_erase(&self, request: Request<ListEraseRequest>) -> Answer<ListEraseResponse> {
        super::list::list_erase(self, request).await
    }

    async fn list_remove(&self, request: Request<ListRemoveRequest>) -> Answer<ListRemoveResponse> {
        super::list::list_remove(self, request).await
    }

    async fn list_fetch(&self, request: Request<ListFetchRequest>) -> Answer<ListFetchResponse> {
        super::list::list_fetch(self, request).await
    }

    async fn list_length(&self, request: Request<ListLengthRequest>) -> Answer<ListLengthResponse> {
        super::list::list_length(self, request).await
    }

    async fn list_concatenate_front(
        &self,
        request: Request<ListConcatenateFrontRequest>,
    ) -> Answer<ListConcatenateFrontResponse> {
        super::list::list_concatenate_front(self, request).await
    }

    async fn list_concatenate_back(
        &self,
        request: Request<ListConcatenateBackRequest>,
    ) -> Answer<ListConcatenateBackResponse> {
        super::list::list_concatenate_back(self, request).await
    }

    async fn list_retain(&self, request: Request<ListRetainRequest>) -> Answer<ListRetainResponse> {
        super::list::list_retain(self, request).await
    }

    // Sorted sets: served, in sorted_set.rs.

    async fn sorted_set_put(
        &self,
        request: Request<SortedSetPutRequest>,
    ) -> Answer<SortedSetPutResponse> {
        super::sorted_set::sorted_set_put(self, request).await
    }

    async fn sorted_set_fetch(
        &self,
        request: Request<SortedSetFetchRequest>,
    ) -> Answer<SortedSetFetchResponse> {
        super::sorted_set::sorted_set_fetch(self, request).await
    }

    async fn sorted_set_get_score(
        &self,
        request: Request<SortedSetGetScoreRequest>,
    ) -> Answer<SortedSetGetScoreResponse> {
        super::sorted_set::sorted_set_get_score(self, request).await
    }

    async fn sorted_set_remove(
        &self,
        request: Request<SortedSetRemoveRequest>,
    ) -> Answer<SortedSetRemoveResponse> {
        super::sorted_set::sorted_set_remove(self, request).await
    }

    async fn sorted_set_increment(
        &self,
        request: Request<SortedSetIncrementRequest>,
    ) -> Answer<SortedSetIncrementResponse> {
        super::sorted_set::sorted_set_increment(self, request).await
    }

    async fn sorted_set_get_rank(
        &self,
        request: Request<SortedSetGetRankRequest>,
    ) -> Answer<SortedSetGetRankResponse> {
        super::sorted_set::sorted_set_get_rank(self, request).await
    }

    async fn sorted_set_length(
        &self,
        request: Request<SortedSetLengthRequest>,
    ) -> Answer<SortedSetLengthResponse> {
        super::sorted_set::sorted_set_length(self, request).await
    }

    async fn sorted_set_length_by_score(
        &self,
        request: Request<SortedSetLengthByScoreRequest>,
    ) -> Answer<SortedSetLengthByScoreResponse> {
        super::sorted_set::sorted_set_length_by_score(self, request).await
    }

    async fn sorted_set_union_store(
        &self,
        request: Request<SortedSetUnionStoreRequest>,
    ) -> Answer<SortedSetUnionStoreResponse> {
        super::sorted_set::sorted_set_union_store(self, request).await
    }
}
