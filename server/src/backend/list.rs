//! The list calls, implemented by the embedded store in `store/list.rs`
//! and by the Redis store in `backend/redis/list.rs`, and the arguments
//! they take.
//!
//! A list holds at least one value: the write that empties a list removes
//! it, so no call ever finds an empty list. Calls answer `None` for a
//! missing list (none creates one but a push), and lengths after the call.

use std::future::Future;
use std::ops::Range;

use bytes::Bytes;

use super::{Caches, CollectionTtl};
use crate::error::Error;

pub trait ListStorage: Caches {
    /// Adds the values, creating the list; answers its length after.
    /// [`Error::CollectionTooLarge`], and nothing changes, when that length
    /// would be over `max_len`.
    fn list_push(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        push: ListPush,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<usize, Error>> + Send;
    /// The value taken from `end`, and the length after.
    fn list_pop(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        end: End,
    ) -> impl Future<Output = Result<Option<(Bytes, usize)>, Error>> + Send;
    /// The values of the slice, in order; empty when it selects none.
    /// [`Error::AnswerTooLarge`] when the answer would be over `max_answer`
    /// (`--max-response-size`), known before it is built.
    fn list_fetch(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        slice: ListSlice,
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, Error>> + Send;
    fn list_length(
        &self,
        cache: &Self::Cache,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send;
    /// Keeps only the slice (none of it: the list is removed); the TTL
    /// follows `ttl.refresh`. Answers the length after.
    fn list_retain(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        slice: ListSlice,
        ttl: CollectionTtl,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send;
    /// Removes every value equal to `value`; answers the length after.
    fn list_remove(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        value: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send;
    /// Answers the length after.
    fn list_erase(
        &self,
        cache: &Self::Cache,
        key: &[u8],
        erase: &ListErase,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send;
}

/// What the pushes and concatenations add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListPush {
    pub end: End,
    /// At least one, added in this order: a front push of `[a, b]` onto
    /// `[x]` makes `[a, b, x]`.
    pub values: Vec<Bytes>,
    /// After the write, values are dropped from the other end until at
    /// most this many remain; 0: no cap.
    pub truncate_to: u32,
}

/// The end of a list a call works at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Front,
    Back,
}

/// The values ListFetch and ListRetain select, as a Python slice does:
/// `start` inclusive (unbounded: 0), `end` exclusive (unbounded: the
/// length), a negative index counting back from the end. Indices past
/// either end are clipped, and a slice that ends where or before it starts
/// selects nothing; neither is an error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListSlice {
    pub start: Option<i32>,
    pub end: Option<i32>,
}

impl ListSlice {
    /// The positions the slice selects in a list of `len` values.
    pub fn bounds(self, len: usize) -> Range<usize> {
        let position = |index: i32| {
            if index < 0 {
                len.saturating_sub(index.unsigned_abs() as usize)
            } else {
                (index as usize).min(len)
            }
        };
        let start = self.start.map_or(0, position);
        let end = self.end.map_or(len, position);
        start..end.max(start)
    }
}

/// `count` positions from `begin`, as ListErase names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListRange {
    pub begin: u32,
    pub count: u32,
}

/// What ListErase removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListErase {
    All,
    /// Positions in the list as it was before the call; ranges may overlap,
    /// come in any order, and reach past the end (nothing is there to erase).
    Ranges(Vec<ListRange>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_bounds_clip_and_never_invert() {
        let bounds = |start, end, len| ListSlice { start, end }.bounds(len);
        assert_eq!(bounds(None, None, 4), 0..4);
        assert_eq!(bounds(Some(-1), None, 4), 3..4);
        assert_eq!(bounds(Some(-9), Some(-2), 4), 0..2);
        assert_eq!(bounds(Some(3), Some(1), 4), 3..3);
        assert_eq!(bounds(Some(9), None, 4), 4..4);
        assert_eq!(bounds(None, None, 0), 0..0);
        assert_eq!(bounds(Some(i32::MIN), Some(i32::MAX), 4), 0..4);
    }
}
