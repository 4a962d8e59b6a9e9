//! `jiffy.admin.Admin`: Jiffy's own administration calls, beside the
//! Momento protocol. The catalogue (`sdk/spec.json`) classes them `control`,
//! so only an admin token reaches them; a token scoped to some caches lists
//! only those.
//!
//! ListKeys: the keys of a cache by prefix, a page at a time
//! (`backend/keys.rs` says what a listing promises). Bounded three ways: at
//! most [`MAX_PAGE_KEYS`] keys per answer, a bounded walk per call in the
//! store, and the answer checked against `--max-response-size`.

use tonic::{Request, Response, Status};

use crate::auth::{self, Grant};
use crate::backend::{Storage, DEFAULT_PAGE_KEYS, MAX_PAGE_KEYS};
use crate::error::Error;
use crate::limits::{check_cache_name, Limits};
use crate::proto::admin::admin_server::Admin;
use crate::proto::admin::{ListKeysRequest, ListKeysResponse};

#[derive(Clone)]
pub struct AdminService<S> {
    store: S,
    limits: Limits,
}

impl<S: Storage> AdminService<S> {
    pub fn new(store: S, limits: Limits) -> Self {
        AdminService { store, limits }
    }
}

/// The page size a request asks for: 0 is the default, and more than the
/// most is refused rather than cut, so a client never mistakes a short page
/// for what it asked.
fn page_keys(limit: u32) -> Result<usize, Error> {
    match limit as usize {
        0 => Ok(DEFAULT_PAGE_KEYS),
        limit if limit <= MAX_PAGE_KEYS => Ok(limit),
        limit => Err(Error::InvalidArgument(format!(
            "limit: {limit} keys per page asked, at most {MAX_PAGE_KEYS}"
        ))),
    }
}

#[tonic::async_trait]
impl<S: Storage + Clone> Admin for AdminService<S> {
    async fn list_keys(
        &self,
        request: Request<ListKeysRequest>,
    ) -> Result<Response<ListKeysResponse>, Status> {
        let grant = request.extensions().get::<Grant>().cloned();
        let request = request.into_inner();
        let name = &request.cache_name;
        auth::check_cache(grant.as_ref(), "ListKeys", name)?;
        check_cache_name(name)?;
        let limit = page_keys(request.limit)?;
        let cache = self.store.cache(name)?;
        let page = self
            .store
            .list_keys(&cache, &request.prefix, &request.cursor, limit)
            .await?;
        let answer = ListKeysResponse {
            keys: page.keys,
            next_cursor: page.next_cursor.into(),
        };
        self.limits.check_answer(&answer)?;
        Ok(Response::new(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_the_default_up_to_the_most_and_refused_beyond() {
        assert_eq!(page_keys(0).unwrap(), DEFAULT_PAGE_KEYS);
        assert_eq!(page_keys(1).unwrap(), 1);
        assert_eq!(page_keys(MAX_PAGE_KEYS as u32).unwrap(), MAX_PAGE_KEYS);
        assert!(matches!(
            page_keys(MAX_PAGE_KEYS as u32 + 1),
            Err(Error::InvalidArgument(_))
        ));
    }
}
