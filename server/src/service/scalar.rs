//! `cache_client.Scs`: the single-item calls. Batches live in `batch.rs`.

use futures_util::future::try_join_all;
use tonic::{Request, Response, Status};

use super::DataPlane;
use crate::backend::Storage;
use crate::backend::{Condition, TtlOutcome, TtlUpdate};
use crate::error::Error;
use crate::proto::cache_client::scs_server::Scs;
use crate::proto::cache_client::{
    item_get_ttl_response, item_get_type_response, set_if_not_exists_response, set_if_request,
    set_if_response, update_ttl_request, update_ttl_response, DeleteRequest, DeleteResponse,
    ECacheResult, GetBatchRequest, GetRequest, GetResponse, IncrementRequest, IncrementResponse,
    ItemGetTtlRequest, ItemGetTtlResponse, ItemGetTypeRequest, ItemGetTypeResponse,
    KeysExistRequest, KeysExistResponse, SetBatchRequest, SetIfNotExistsRequest,
    SetIfNotExistsResponse, SetIfRequest, SetIfResponse, SetRequest, SetResponse, UpdateTtlRequest,
    UpdateTtlResponse,
};

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl<S: Storage + Clone> Scs for DataPlane<S> {
    async fn get(&self, request: Request<GetRequest>) -> Answer<GetResponse> {
        let cache = self.cache(&request)?;
        let key = &request.get_ref().cache_key;
        self.limits.check_key(key)?;
        let value = self.store.get(&cache, key).await?;
        Ok(Response::new(super::batch::get_response(value)))
    }

    type GetBatchStream = super::batch::GetBatchStream;

    async fn get_batch(&self, request: Request<GetBatchRequest>) -> Answer<Self::GetBatchStream> {
        self.batch_get(request).await
    }

    async fn set(&self, request: Request<SetRequest>) -> Answer<SetResponse> {
        let cache = self.cache(&request)?;
        let item = request.get_ref();
        let ttl =
            self.limits
                .check_item(&item.cache_key, &item.cache_body, item.ttl_milliseconds)?;
        self.store
            .set(&cache, &item.cache_key, &item.cache_body, ttl)
            .await?;
        Ok(Response::new(SetResponse {
            result: ECacheResult::Ok.into(),
            message: String::new(),
        }))
    }

    type SetBatchStream = super::batch::SetBatchStream;

    async fn set_batch(&self, request: Request<SetBatchRequest>) -> Answer<Self::SetBatchStream> {
        self.batch_set(request).await
    }

    async fn set_if(&self, request: Request<SetIfRequest>) -> Answer<SetIfResponse> {
        use set_if_request::Condition as Wire;
        let cache = self.cache(&request)?;
        let item = request.into_inner();
        let ttl =
            self.limits
                .check_item(&item.cache_key, &item.cache_body, item.ttl_milliseconds)?;
        let condition = match item.condition {
            Some(Wire::Present(_)) => Condition::Present,
            Some(Wire::PresentAndNotEqual(c)) => Condition::PresentAndNotEqual(c.value_to_check),
            Some(Wire::Absent(_)) => Condition::Absent,
            Some(Wire::Equal(c)) => Condition::Equal(c.value_to_check),
            Some(Wire::AbsentOrEqual(c)) => Condition::AbsentOrEqual(c.value_to_check),
            Some(Wire::NotEqual(c)) => Condition::NotEqual(c.value_to_check),
            None => return Err(Error::InvalidArgument("SetIf needs a condition".into()).into()),
        };
        let stored = self
            .store
            .set_if(&cache, &item.cache_key, &item.cache_body, ttl, &condition)
            .await?;
        let result = if stored {
            set_if_response::Result::Stored(set_if_response::Stored {})
        } else {
            set_if_response::Result::NotStored(set_if_response::NotStored {})
        };
        Ok(Response::new(SetIfResponse {
            result: Some(result),
        }))
    }

    async fn set_if_not_exists(
        &self,
        request: Request<SetIfNotExistsRequest>,
    ) -> Answer<SetIfNotExistsResponse> {
        use set_if_not_exists_response::{NotStored, Result, Stored};
        let cache = self.cache(&request)?;
        let item = request.get_ref();
        let ttl =
            self.limits
                .check_item(&item.cache_key, &item.cache_body, item.ttl_milliseconds)?;
        let stored = self
            .store
            .set_if(
                &cache,
                &item.cache_key,
                &item.cache_body,
                ttl,
                &Condition::Absent,
            )
            .await?;
        let result = if stored {
            Result::Stored(Stored {})
        } else {
            Result::NotStored(NotStored {})
        };
        Ok(Response::new(SetIfNotExistsResponse {
            result: Some(result),
        }))
    }

    async fn delete(&self, request: Request<DeleteRequest>) -> Answer<DeleteResponse> {
        let cache = self.cache(&request)?;
        let key = &request.get_ref().cache_key;
        self.limits.check_key(key)?;
        self.store.delete(&cache, key).await?;
        Ok(Response::new(DeleteResponse {}))
    }

    async fn keys_exist(&self, request: Request<KeysExistRequest>) -> Answer<KeysExistResponse> {
        let cache = self.cache(&request)?;
        let keys = &request.get_ref().cache_keys;
        for key in keys {
            self.limits.check_key(key)?;
        }
        if keys.is_empty() {
            self.store.check_exists(&cache).await?;
        }
        let checks = keys.iter().map(|key| self.store.contains(&cache, key));
        let exists = try_join_all(checks).await?;
        Ok(Response::new(KeysExistResponse { exists }))
    }

    async fn increment(&self, request: Request<IncrementRequest>) -> Answer<IncrementResponse> {
        let cache = self.cache(&request)?;
        let item = request.get_ref();
        self.limits.check_key(&item.cache_key)?;
        let ttl = self.limits.ttl(item.ttl_milliseconds)?;
        let value = self
            .store
            .increment(&cache, &item.cache_key, item.amount, ttl)
            .await?;
        Ok(Response::new(IncrementResponse { value }))
    }

    async fn update_ttl(&self, request: Request<UpdateTtlRequest>) -> Answer<UpdateTtlResponse> {
        use update_ttl_request::UpdateTtl as Wire;
        use update_ttl_response::{Missing, NotSet, Result, Set};
        let cache = self.cache(&request)?;
        let item = request.get_ref();
        self.limits.check_key(&item.cache_key)?;
        let update = match item.update_ttl {
            Some(Wire::IncreaseToMilliseconds(ms)) => TtlUpdate::IncreaseTo(self.limits.ttl(ms)?),
            Some(Wire::DecreaseToMilliseconds(ms)) => TtlUpdate::DecreaseTo(self.limits.ttl(ms)?),
            Some(Wire::OverwriteToMilliseconds(ms)) => TtlUpdate::Overwrite(self.limits.ttl(ms)?),
            None => return Err(Error::InvalidArgument("UpdateTtl needs a new TTL".into()).into()),
        };
        let result = match self
            .store
            .update_ttl(&cache, &item.cache_key, update)
            .await?
        {
            TtlOutcome::Set => Result::Set(Set {}),
            TtlOutcome::NotSet => Result::NotSet(NotSet {}),
            TtlOutcome::Missing => Result::Missing(Missing {}),
        };
        Ok(Response::new(UpdateTtlResponse {
            result: Some(result),
        }))
    }

    async fn item_get_ttl(
        &self,
        request: Request<ItemGetTtlRequest>,
    ) -> Answer<ItemGetTtlResponse> {
        use item_get_ttl_response::{Found, Missing, Result};
        let cache = self.cache(&request)?;
        let key = &request.get_ref().cache_key;
        self.limits.check_key(key)?;
        let result = match self.store.remaining_ttl(&cache, key).await? {
            Some(left) => Result::Found(Found {
                remaining_ttl_millis: left.as_millis() as u64,
            }),
            None => Result::Missing(Missing {}),
        };
        Ok(Response::new(ItemGetTtlResponse {
            result: Some(result),
        }))
    }

    async fn item_get_type(
        &self,
        request: Request<ItemGetTypeRequest>,
    ) -> Answer<ItemGetTypeResponse> {
        use item_get_type_response::{Found, ItemType, Missing, Result};
        let cache = self.cache(&request)?;
        let key = &request.get_ref().cache_key;
        self.limits.check_key(key)?;
        // Only scalar items exist until the collection calls are built.
        let result = if self.store.contains(&cache, key).await? {
            Result::Found(Found {
                item_type: ItemType::Scalar.into(),
            })
        } else {
            Result::Missing(Missing {})
        };
        Ok(Response::new(ItemGetTypeResponse {
            result: Some(result),
        }))
    }
}
