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
//!
//! An answer allowed is then charged to the call in the in-flight budget
//! (`--max-in-flight-bytes`) before it is copied: the copy of its parts and
//! a handle per element ([`AnswerSize::held`]). The charge passes to the
//! encoded answer as it is encoded (`in_flight::CallCharges`), so the
//! bytes are counted from the copy until the socket takes them, once.
//! Without it, clients that open wide windows and never read had every
//! fetch copied, each up to `--max-response-size`, before any budget saw
//! it. A read refused for lack of budget is RESOURCE_EXHAUSTED, as any
//! in-flight refusal.

use bytes::{Bytes, BytesMut};
use prost::encoding::encoded_len_varint;

use super::value::Collection;
use super::{CacheId, Store};
use crate::error::Error;
use crate::in_flight::{reserve_store_answer, SMALL_ANSWER};

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

    /// One part made of `head` then `tail`, copied straight from both.
    pub fn copy_joined(&mut self, head: &[u8], tail: &[u8]) -> Bytes {
        self.0.extend_from_slice(head);
        self.copy(tail)
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

/// What an answer weighs before it is built: its encoded size, checked
/// against `--max-response-size`, and the memory its copy holds until it
/// is encoded, charged to the in-flight budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnswerSize {
    pub encoded: u64,
    /// The copied parts (within the encoded size) and the answer's list
    /// of `elements` handles of type `E`.
    pub held: u64,
    /// Whether a refusal names the size: not for a part of a list or a
    /// sorted set ([`Error::PartTooLarge`]), which the Redis store sizes
    /// by a walk that stops once past the limit, so that both stores
    /// answer the same.
    pub named: bool,
}

impl AnswerSize {
    /// An answer of `elements` elements, each held as an `E` (a `Bytes`, a
    /// pair of them, a scored value), encoded in `encoded` bytes.
    pub fn of<E>(encoded: u64, elements: usize) -> AnswerSize {
        AnswerSize {
            encoded,
            held: encoded + (elements * size_of::<E>()) as u64,
            named: true,
        }
    }

    /// [`AnswerSize::of`] the `elements` of a range of a list or sorted
    /// set of `len`: a part of it, refused, is not named by its size.
    pub fn of_range<E>(encoded: u64, elements: usize, len: usize) -> AnswerSize {
        AnswerSize {
            named: elements == len,
            ..AnswerSize::of::<E>(encoded, elements)
        }
    }

    /// [`check`]: over `max_answer`, refused naming the size, or for a
    /// part [`Error::PartTooLarge`].
    fn check(&self, max_answer: usize) -> Result<(), Error> {
        match check(self.encoded, max_answer) {
            Err(Error::AnswerTooLarge { limit, .. }) if !self.named => {
                Err(Error::PartTooLarge { limit })
            }
            checked => checked,
        }
    }
}

/// What one read has charged to its call for its answer, carried from the
/// pass that sizes it to the one that copies it, so that it is charged
/// once whatever the passes.
#[derive(Debug, Default)]
pub struct Reserved(u64);

impl Reserved {
    /// Charges what `size` holds beyond what is charged already, unless the
    /// whole is small enough for the call's own overhead to pay for it
    /// (`in_flight::SMALL_ANSWER`). [`Error::InFlightFull`] if the budget
    /// has no room for it.
    fn cover(&mut self, size: AnswerSize) -> Result<(), Error> {
        if size.held <= self.0.max(SMALL_ANSWER as u64) {
            return Ok(());
        }
        reserve_store_answer((size.held - self.0) as usize)?;
        self.0 = size.held;
        Ok(())
    }
}

/// Charges an answer already built to its call, for a read whose answer is
/// only known once made (a sample of random elements): it is uncounted only
/// for the moment between the copy and this, in one step of its call, so
/// at most one such answer per runtime worker at once. Past the budget
/// [`Error::InFlightFull`], and the caller drops what it copied.
pub fn charge_built(size: AnswerSize) -> Result<(), Error> {
    Reserved::default().cover(size)
}

impl Store {
    /// Reads the collection at `key` as [`Store::read`] does, first sizing
    /// the answer with `size` under the same lock: over `max_answer`, it is
    /// refused and `build` never runs. An answer larger than a call's
    /// overhead is first charged to the call, added to `reserved` (a read
    /// whose first pass leaves the copy to another, see `on_blocking_pool`,
    /// hands it on), outside the shard's lock (making room may walk every
    /// connection), then sized again and built under the lock: the
    /// collection may have grown in between, and then the difference is
    /// charged and it is read again.
    pub fn read_answer<T: Collection, R>(
        &self,
        reserved: &mut Reserved,
        cache: CacheId,
        key: &[u8],
        max_answer: usize,
        size: impl Fn(&T) -> AnswerSize,
        build: impl FnOnce(&T) -> R,
    ) -> Result<Option<R>, Error> {
        let mut build = Some(build);
        loop {
            let covered = reserved.0.max(SMALL_ANSWER as u64);
            let answer = self.read(cache, key, |collection: &T| {
                let size = size(collection);
                size.check(max_answer)?;
                if size.held > covered {
                    return Ok(Err(size));
                }
                // Taken only here, and the loop ends once it has run.
                let build = build.take().expect("an answer is built once");
                Ok(Ok(build(collection)))
            })?;
            match answer.transpose()? {
                None => return Ok(None),
                Some(Ok(built)) => return Ok(Some(built)),
                Some(Err(size)) => reserved.cover(size)?,
            }
        }
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

    /// A fetch larger than a call's overhead is charged to its call before
    /// the copy (its parts and a handle each), the charge kept until the
    /// call's charges go; past the budget it is refused before the copy.
    #[tokio::test]
    async fn a_large_answer_is_charged_to_its_call_before_it_is_copied() {
        use std::future::Future;
        use std::sync::Arc;
        use std::task::{Context, Poll, Waker};

        use crate::backend::{End, ListPush, ListSlice, ListStorage};
        use crate::in_flight::{CallCharges, InFlight};
        use crate::store::tests::{store_with, MINUTE_TTL};

        /// The answer of a store's future, which is ready at once.
        fn now<T>(future: impl Future<Output = T>) -> T {
            let mut context = Context::from_waker(Waker::noop());
            match std::pin::pin!(future).poll(&mut context) {
                Poll::Ready(answer) => answer,
                Poll::Pending => panic!("the store's future was not ready"),
            }
        }

        let (store, c) = store_with(64 << 20);
        let push = |key: &'static [u8], values: usize| {
            let push = ListPush {
                end: End::Back,
                values: vec![Bytes::from(vec![7u8; 1000]); values],
                truncate_to: 0,
            };
            now(store.list_push(&c, key, push, MINUTE_TTL, usize::MAX)).unwrap();
        };
        push(b"large", 64);
        push(b"small", 4);
        let fetch = |charges: &Arc<CallCharges>, key: &'static [u8]| {
            let slice = ListSlice::default();
            charges.scope(|| now(store.list_fetch(&c, key, slice, usize::MAX)))
        };
        let gauge = || prometheus::IntGauge::new("in_flight", "bytes").unwrap();
        let budget = InFlight::new(1 << 20, gauge());
        let charges = CallCharges::new(budget.clone(), Some(budget.connection()));
        let values = fetch(&charges, b"small").unwrap().unwrap();
        assert_eq!(values.len(), 4);
        assert_eq!(budget.used(), 0, "a small answer is paid by its call");
        let values = fetch(&charges, b"large").unwrap().unwrap();
        assert_eq!(values.len(), 64);
        let held = 64 * (repeated_len(1000) + size_of::<Bytes>() as u64);
        assert_eq!(budget.used() as u64, held);
        drop(charges);
        assert_eq!(budget.used(), 0);

        let budget = InFlight::new(32 << 10, gauge());
        let charges = CallCharges::new(budget.clone(), Some(budget.connection()));
        let refused = fetch(&charges, b"large");
        assert!(
            matches!(refused, Err(Error::InFlightFull(_))),
            "{refused:?}"
        );
        assert_eq!(budget.used(), 0);
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
