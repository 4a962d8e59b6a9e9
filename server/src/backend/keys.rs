//! Listing the keys of a cache, a page at a time: what the admin call
//! `jiffy.admin.Admin/ListKeys` (`service/admin.rs`) asks of a store.
//!
//! A listing is a walk over the store in an order of its own, resumed from
//! an opaque cursor, as Redis's SCAN is: no snapshot is held between pages,
//! so listing a large cache costs nothing between calls, and each call does
//! bounded work. A key present from the first page to the last is answered
//! exactly once; one written or removed meanwhile may or may not be. A page
//! may hold fewer keys than asked, even none, before the walk is done: only
//! an empty cursor ends it.

use std::future::Future;

use bytes::Bytes;

use super::Caches;
use crate::error::Error;

/// Keys per page when the request says 0.
pub const DEFAULT_PAGE_KEYS: usize = 100;
/// The most keys per page: 1,000 keys of the default `--max-key-size`
/// (4 KiB) fit the default `--max-response-size` (5,243,000 bytes).
pub const MAX_PAGE_KEYS: usize = 1_000;

/// One page of a listing.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct KeysPage {
    pub keys: Vec<Bytes>,
    /// Where the next page starts; empty when the walk is done.
    pub next_cursor: Vec<u8>,
}

pub trait KeyStorage: Caches {
    /// At most `limit` keys of `cache` starting with `prefix`, from where
    /// `cursor` left off (empty: the start). [`Error::InvalidArgument`] for
    /// a cursor this store did not make.
    fn list_keys(
        &self,
        cache: &Self::Cache,
        prefix: &[u8],
        cursor: &[u8],
        limit: usize,
    ) -> impl Future<Output = Result<KeysPage, Error>> + Send;
}

/// [`Error::InvalidArgument`] for a cursor that is not one of ours.
pub fn bad_cursor() -> Error {
    Error::InvalidArgument(
        "cursor: not one a ListKeys answer gave; start again with an empty one".into(),
    )
}
