//! The dictionary calls, implemented by the embedded store in
//! `store/dictionary.rs` and by the Redis store in `backend/redis/dictionary.rs`,
//! and the arguments they take.
//!
//! A dictionary maps fields to values (both any bytes) and holds at least
//! one field: the write that removes its last field removes it, so no call
//! ever finds an empty dictionary. Calls answer `None` for a missing
//! dictionary; only the writes that add fields (set, increment) create one.

use std::future::Future;

use bytes::Bytes;

use super::{Caches, CollectionTtl};
use crate::error::Error;

pub trait DictionaryStorage: Caches {
    /// Sets each field to its value (a field given twice takes its last
    /// value), creating the dictionary. [`Error::CollectionTooLarge`], and
    /// nothing changes, when it would then hold more than `max_len` fields.
    fn dictionary_set(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        items: Vec<(Bytes, Bytes)>,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<(), Error>> + Send;
    /// Adds `amount` to the base-10 integer the field holds (absent counts
    /// as 0), creating the field and the dictionary; answers the new value.
    /// [`Error::NotAnInteger`], [`Error::IncrementOverflow`] or
    /// [`Error::CollectionTooLarge`] (a new field past `max_len`), and
    /// nothing changes.
    fn dictionary_increment(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        field: &[u8],
        amount: i64,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<i64, Error>> + Send;
    /// The value of each field asked, in the order asked (`None`: the
    /// dictionary lacks that field). [`Error::AnswerTooLarge`] when the
    /// answer would be over `max_answer` (`--max-response-size`), known
    /// before it is built.
    fn dictionary_get(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        fields: &[Bytes],
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<Option<Bytes>>>, Error>> + Send;
    /// Every field and its value, in no promised order (each store answers
    /// in its hash table's): the protocol answers a map, and a sort per call
    /// would cost O(n log n) for what the client puts in a map anyway.
    /// [`Error::AnswerTooLarge`] as for [`Self::dictionary_get`].
    fn dictionary_fetch(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<(Bytes, Bytes)>>, Error>> + Send;
    /// Removes the fields (absent ones are skipped) or the whole
    /// dictionary; a missing dictionary is not an error.
    fn dictionary_delete(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        delete: &DictionaryDelete,
    ) -> impl Future<Output = Result<(), Error>> + Send;
    fn dictionary_length(
        &self,
        cache: &Self::Cache,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send;
}

/// What DictionaryDelete removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DictionaryDelete {
    All,
    /// At least one field.
    Fields(Vec<Bytes>),
}
