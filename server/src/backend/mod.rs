//! Where caches and items live: the [`Storage`] trait and its two backends.
//!
//! - the embedded store ([`crate::store::Store`]): one process's memory, the
//!   default, and the fastest.
//! - [`redis::RedisStore`]: a Redis or Valkey Cluster (or one node). The
//!   front-end keeps nothing, so any number of jiffy-servers can serve the
//!   same caches.
//!
//! The gRPC handlers are generic over [`Storage`], so each backend is
//! compiled into its own copy of them and the embedded path pays nothing
//! for the other: no boxing, no dynamic dispatch.
//!
//! The values the calls take and answer ([`Condition`], [`TtlUpdate`],
//! [`TtlOutcome`], [`StoreStats`]) are defined here (`types.rs`), beside the
//! trait, not in either backend: both speak them and neither owns them.
//!
//! # How the trait grows for collections
//!
//! Dictionaries, sets, lists and sorted sets add some 35 calls, each built
//! twice. Added to this one trait they would make a wall of 60 methods that
//! every backend implements in one block of one file, where each new data
//! type edits the largest file of both backends. Instead `Storage` becomes
//! the sum of one trait per data type:
//!
//! ```text
//! trait Caches                     // type Cache; create, delete, flush, list,
//!                                  // resolve a cache; stats
//! trait ItemStorage: Caches        // any item: delete, contains, item type,
//!                                  // remaining TTL, update TTL
//! trait ScalarStorage: Caches      // get, set, set_if, increment
//! trait DictionaryStorage: Caches  // one method per dictionary call
//! trait SetStorage: Caches
//! trait ListStorage: Caches
//! trait SortedSetStorage: Caches
//! trait LeaderboardStorage: Caches  // beside the items, not among them
//! trait KeyStorage: Caches          // listing a cache's keys (admin)
//! trait Storage: ItemStorage + ScalarStorage + DictionaryStorage
//!     + SetStorage + ListStorage + SortedSetStorage {}  // blanket impl
//! ```
//!
//! - Each data type is one file per backend (`store/dictionary.rs` and
//!   `backend/redis/dictionary.rs`, then `list.rs`, ...) holding that type's
//!   impl: a new type is new files, not edits to shared ones, and its two
//!   implementations read side by side. Its call's arguments and answers
//!   (ranges, orders, the collection TTL) join the shared types here.
//! - Handlers keep the one bound `S: Storage`, so adding a trait changes
//!   none of them, and dispatch stays static.
//! - No default methods: a backend that lacks a call fails to compile,
//!   rather than answering UNIMPLEMENTED at run time.
//! - `tests/storage_equivalence.rs` grows the same way, one generator of
//!   calls per data type, every answer compared across the two backends.

mod dictionary;
mod embedded;
mod keys;
mod leaderboard;
mod list;
pub mod redis;
mod set;
mod sorted_set;
mod types;

use std::future::Future;
use std::time::Duration;

use bytes::Bytes;

use crate::error::Error;
pub use dictionary::{DictionaryDelete, DictionaryStorage};
pub use keys::{bad_cursor, KeyStorage, KeysPage, DEFAULT_PAGE_KEYS, MAX_PAGE_KEYS};
pub use leaderboard::{
    ranked_answer_bytes, LeaderboardStorage, RankKind, RankedElement, ScoreSpan,
    RANKED_ELEMENT_ENCODED_MAX,
};
pub use list::{End, ListErase, ListPush, ListRange, ListSlice, ListStorage};
pub use set::{pop_answer_size, SetRemove, SetStorage};
pub use sorted_set::{
    canonical, union, Aggregate, ScoreBound, ScoreRange, ScoredValue, SortOrder, SortedSetRange,
    SortedSetRemove, SortedSetStorage, SortedSetUnion,
};
pub use types::{
    value_hash, CacheUsage, CollectionTtl, Condition, ItemType, StoreStats, TtlOutcome, TtlUpdate,
};

/// Caches: create, delete, flush, list, and resolving a name for the
/// data-plane calls. Every other trait builds on this one.
pub trait Caches: Send + Sync + 'static {
    /// A cache as the data-plane calls address it, resolved from its name.
    type Cache: Send + Sync;

    fn create_cache(&self, name: &str) -> impl Future<Output = Result<(), Error>> + Send;
    fn delete_cache(&self, name: &str) -> impl Future<Output = Result<(), Error>> + Send;
    /// Empties a cache. Items written before the flush are gone for every
    /// later call, through any front-end.
    fn flush_cache(&self, name: &str) -> impl Future<Output = Result<(), Error>> + Send;
    /// Names in ascending byte order.
    fn list_caches(&self) -> impl Future<Output = Result<Vec<String>, Error>> + Send;
    /// Resolves a name for the data-plane calls; [`Error::CacheNotFound`]
    /// here or from the call itself when the cache does not exist.
    fn cache(&self, name: &str) -> Result<Self::Cache, Error>;
    /// [`Error::CacheNotFound`] unless the cache exists; for calls that
    /// carry no key (an empty batch) and so would not otherwise check.
    fn check_exists(&self, cache: &Self::Cache) -> impl Future<Output = Result<(), Error>> + Send;
    /// Item and memory figures for `/metrics`, when this process knows them.
    fn stats(&self) -> Option<StoreStats>;
}

/// The calls on any item, whatever it holds: a scalar or a collection.
pub trait ItemStorage: Caches {
    fn delete(
        &self,
        cache: &Self::Cache,
        key: &[u8],
    ) -> impl Future<Output = Result<(), Error>> + Send;
    fn contains(
        &self,
        cache: &Self::Cache,
        key: &[u8],
    ) -> impl Future<Output = Result<bool, Error>> + Send;
    /// What the item holds; `None` when it does not exist.
    fn item_type(
        &self,
        cache: &Self::Cache,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<ItemType>, Error>> + Send;
    fn update_ttl(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        update: TtlUpdate,
    ) -> impl Future<Output = Result<TtlOutcome, Error>> + Send;
    fn remaining_ttl(
        &self,
        cache: &Self::Cache,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<Duration>, Error>> + Send;
}

/// The calls on scalar items. Set replaces whatever the key held; the
/// others answer [`Error::WrongType`] for a collection.
pub trait ScalarStorage: Caches {
    fn get(
        &self,
        cache: &Self::Cache,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<Bytes>, Error>> + Send;
    /// [`Self::get`] of each key, in order, all in flight at once (a Redis
    /// store pipelines them); the first error ends it.
    fn get_many(
        &self,
        cache: &Self::Cache,
        keys: &[&[u8]],
    ) -> impl Future<Output = Result<Vec<Option<Bytes>>, Error>> + Send {
        futures_util::future::try_join_all(keys.iter().map(|key| self.get(cache, key)))
    }
    fn set(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
    ) -> impl Future<Output = Result<(), Error>> + Send;
    /// True if stored. The check and the write are one atomic step.
    fn set_if(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        value: &[u8],
        ttl: Duration,
        condition: &Condition,
    ) -> impl Future<Output = Result<bool, Error>> + Send;
    /// Adds `amount` to the base-10 integer held (absent counts as 0) and
    /// resets the TTL; [`Error::NotAnInteger`] or [`Error::IncrementOverflow`].
    fn increment(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        amount: i64,
        ttl: Duration,
    ) -> impl Future<Output = Result<i64, Error>> + Send;
}

/// Every call of the Momento cache protocol that touches data, with the
/// semantics the embedded store defines (see `store/mod.rs`). Each backend
/// must answer them identically; `tests/storage_equivalence.rs` checks it.
pub trait Storage:
    ItemStorage
    + ScalarStorage
    + DictionaryStorage
    + SetStorage
    + ListStorage
    + SortedSetStorage
    + LeaderboardStorage
    + KeyStorage
{
}

impl<T> Storage for T where
    T: ItemStorage
        + ScalarStorage
        + DictionaryStorage
        + SetStorage
        + ListStorage
        + SortedSetStorage
        + LeaderboardStorage
        + KeyStorage
{
}
