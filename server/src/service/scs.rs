//! `cache_client.Scs`: the dispatch of the data-plane calls. tonic wants
//! every call of the service in one `impl`, so this file is that impl and
//! nothing more: each call goes to its group's file (`scalar.rs`,
//! `batch.rs`), where the handler is.

use tonic::Request;

use super::{batch, scalar, Answer, DataPlane};
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
}
