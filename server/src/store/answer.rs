//! The one check every fetch-like read of a collection makes: the size of
//! its answer, known from what the collection keeps (O(1), or O(log n) and
//! the elements answered for a part of it) before anything is copied, and
//! an answer over `--max-response-size` refused before it is built.
//!
//! The size is the encoded size of the elements the answer carries (the
//! envelope around them adds a few bytes more), so it never refuses what
//! the handler's own check of the built answer (`Limits::check_answer`)
//! would let through, and what it lets through is within those few bytes of
//! the limit.

use std::iter::Sum;
use std::ops::{AddAssign, SubAssign};

use bytes::{Bytes, BytesMut};
use prost::encoding::encoded_len_varint;

use super::value::Collection;
use super::{CacheId, Store};
use crate::error::Error;

/// The encoded size of one element of a repeated `bytes` field (a list's
/// values, a set's elements, a sorted set's values): a tag, a length and
/// the bytes, even when empty.
pub fn repeated_len(len: usize) -> u64 {
    (1 + encoded_len_varint(len as u64) + len) as u64
}

/// The encoded size of a singular `bytes` field: left out when empty
/// (proto3's default), else as a repeated one.
pub fn singular_len(len: usize) -> u64 {
    match len {
        0 => 0,
        len => repeated_len(len),
    }
}

/// Copies the stored parts an answer carries into one buffer and hands
/// them out as slices of it, rather than as clones of the stored `Bytes`:
/// the first clone of a stored part allocates its 32-byte shared header,
/// which then lives as long as the element, uncharged (one fetch of
/// 1,000,000 dictionary fields left +61 MiB behind), and each clone and its
/// drop touch every part's header, two cache misses a part where one copy
/// costs one. Sized up front, the buffer never grows.
pub struct Copier(BytesMut);

impl Copier {
    /// For parts of `size` bytes in all.
    pub fn new(size: usize) -> Copier {
        Copier(BytesMut::with_capacity(size))
    }

    /// For every part of `parts`, each `&[u8]`-like.
    pub fn of<'a, P: AsRef<[u8]> + 'a>(parts: impl Iterator<Item = &'a P>) -> Copier {
        Copier::new(parts.map(|part| part.as_ref().len()).sum())
    }

    pub fn copy(&mut self, part: &[u8]) -> Bytes {
        self.0.extend_from_slice(part);
        self.0.split().freeze()
    }
}

/// What a collection keeps up to date of its elements, so that neither is
/// a walk: their charge (see `value::Collection::cost`) and their encoded
/// size in the answer that fetches them all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    pub cost: u64,
    pub encoded: u64,
}

impl AddAssign for Kept {
    fn add_assign(&mut self, other: Kept) {
        self.cost += other.cost;
        self.encoded += other.encoded;
    }
}

impl SubAssign for Kept {
    fn sub_assign(&mut self, other: Kept) {
        self.cost -= other.cost;
        self.encoded -= other.encoded;
    }
}

impl Sum for Kept {
    fn sum<I: Iterator<Item = Kept>>(iter: I) -> Kept {
        iter.fold(Kept::default(), |mut total, kept| {
            total += kept;
            total
        })
    }
}

/// [`Error::AnswerTooLarge`] when `size` is over `max_answer`.
pub fn check(size: u64, max_answer: usize) -> Result<(), Error> {
    if size > max_answer as u64 {
        return Err(Error::AnswerTooLarge {
            size: usize::try_from(size).unwrap_or(usize::MAX),
            limit: max_answer,
        });
    }
    Ok(())
}

impl Store {
    /// Reads the collection at `key` as [`Store::read`] does, first sizing
    /// the answer with `size`, under the same lock: over `max_answer`, it is
    /// refused and `build` never runs.
    pub fn read_answer<T: Collection, R>(
        &self,
        cache: CacheId,
        key: &[u8],
        max_answer: usize,
        size: impl FnOnce(&T) -> u64,
        build: impl FnOnce(&T) -> R,
    ) -> Result<Option<R>, Error> {
        let answer = self.read(cache, key, |collection: &T| {
            check(size(collection), max_answer).map(|()| build(collection))
        })?;
        answer.transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_sizes_are_as_prost_encodes_them() {
        use crate::proto::cache_client::{set_fetch_response, DictionaryFieldValuePair};
        use prost::Message;
        for len in [0, 1, 127, 128, 20_000] {
            let found = set_fetch_response::Found {
                elements: vec![vec![7; len].into()],
            };
            assert_eq!(repeated_len(len), found.encoded_len() as u64, "{len}");
            let pair = DictionaryFieldValuePair {
                field: vec![7; len].into(),
                value: Default::default(),
            };
            assert_eq!(singular_len(len), pair.encoded_len() as u64, "{len}");
        }
    }

    #[test]
    fn the_check_refuses_only_past_the_limit() {
        assert!(check(16, 16).is_ok());
        assert_eq!(
            check(17, 16),
            Err(Error::AnswerTooLarge {
                size: 17,
                limit: 16
            })
        );
    }
}
