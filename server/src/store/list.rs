//! Lists in the embedded store: values in order in front-coded chunks (see
//! `front_coded.rs`: each value stores the bytes it shares with the one
//! before it, then the rest), a queue of runs of at most [`CHUNK_BYTES`]
//! bytes of entries, [`CHUNK_VALUE_BYTES`] of values and [`CHUNK_VALUES`]
//! values each, as Redis's quicklist of listpacks. A list of up to that much is one chunk, one
//! allocation; a larger one is many, so both ends push and pop in O(1)
//! (each touches one chunk of bounded size), and a position is found by
//! walking chunks from the nearer end, O(n / the values a chunk holds) as
//! in Redis. The charge (every chunk's buffer and the queue's slots, at
//! their allocator size class) and the size of a fetch of all of it are
//! kept up to date by every change.
//!
//! Every method checks what can fail before it changes anything, so a
//! refused call leaves the list as it was.

use std::collections::VecDeque;
use std::future::{ready, Future};
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;

use super::answer::{repeated_len, AnswerSize, Copier, Reserved};
use super::cost::{allocation_size, shrunk_room};
use super::front_coded::{following_len, plain_len, Entry, FrontCoded};
use super::{CacheId, Store};
use crate::backend::{CollectionTtl, End, ListErase, ListPush, ListSlice, ListStorage};
use crate::error::Error;

/// The bytes of entries a chunk takes at most (a value larger than that
/// has a chunk of its own): Redis's default `list-max-listpack-size -2`
/// is 8 KiB; under a third of that keeps the walk to a value at a pop
/// from the back, or within a chunk, short, for 32 bytes of queue slot
/// per chunk (under a byte a value).
///
/// 2,560 bytes is one of jemalloc's size classes whose slab of 5 pages
/// holds 8 chunks; the 2,048-byte class's slab is one page holding 2.
/// jemalloc keeps about 128 bytes of bookkeeping (its `edata_t`) per slab,
/// so a full chunk of 2 KiB cost 64 bytes more than its buffer (3%), one
/// of 2.5 KiB costs 16 (0.6%): 0.4 bytes a value less for values of 14
/// bytes sharing no prefix, with the queue's slot spread over a quarter
/// more values.
pub const CHUNK_BYTES: usize = 2560;

/// The bytes of values a chunk holds at most, decoded (a value larger
/// than that has a chunk of its own). Front coding lets 2.5 KiB of entries
/// stand for far more: a thousand entries of two bytes, each a copy of a
/// 1 KiB value before it. A walk that only rebuilds values costs the
/// entries' bytes, but one that compares or copies each value (a removal
/// by value, a fetch) costs the values' bytes, so these are capped too: at
/// 8 KiB, what a chunk of 14-byte values sharing all but three bytes holds
/// when 2 KiB of it is full.
pub const CHUNK_VALUE_BYTES: usize = 8192;

/// The values a chunk holds at most. A push at the back writes its
/// first value's entry against the chunk's last value, and a pop at the
/// back takes it: both rebuild it by walking the chunk's entries from
/// its first, so this bounds that walk. Without it, short values sharing
/// most of their bytes fill a chunk's 8 KiB of values with about 630 of
/// them (`member:N`), a walk 4 times as long; at 256, such a chunk's
/// queue slot costs an eighth of a byte a value, and its buffer is cut to
/// its size class once the list stops filling it.
pub const CHUNK_VALUES: usize = 256;

/// The charge of a queue of `capacity` chunks. The queue never shrinks by
/// itself, so one popped down gives back room (see [`ListValue::shrink`]).
fn queue_cost(capacity: usize) -> u64 {
    allocation_size(capacity * size_of::<FrontCoded>()) as u64
}

/// How a push lays its values out from the end it writes, outward: how
/// many join the chunk already there and the bytes it grows by, then the
/// values and bytes of each new chunk; and, for a push at the back, the
/// back chunk's last value, which its first entry is written against
/// (found by walking that chunk once, here rather than again to write).
#[derive(Debug, Default)]
struct Layout {
    into_end: (usize, usize),
    chunks: Vec<(usize, usize)>,
    back_last: Option<Vec<u8>>,
}

/// The chunk a layout is filling: its bytes of entries and of values,
/// its count of values, and the value at its edge (its last at the back,
/// its first at the front), which the next value's entry is written
/// against.
struct Filling<'a> {
    bytes: usize,
    values: usize,
    count: usize,
    edge: &'a [u8],
}

impl<'a> Filling<'a> {
    fn of(chunk: &FrontCoded, edge: &'a [u8]) -> Filling<'a> {
        Filling {
            bytes: chunk.bytes_len(),
            values: chunk.values_len(),
            count: chunk.count(),
            edge,
        }
    }

    fn alone(value: &'a [u8]) -> Filling<'a> {
        Filling {
            bytes: plain_len(value.len()),
            values: value.len(),
            count: 1,
            edge: value,
        }
    }

    /// Takes `value` at its edge if it fits, answering the bytes added.
    fn take(&mut self, end: End, value: &'a [u8]) -> Option<usize> {
        let added = match end {
            End::Back => following_len(self.edge, value),
            // The old first value, stored whole, is written again after it.
            End::Front => {
                plain_len(value.len()) + following_len(value, self.edge)
                    - plain_len(self.edge.len())
            }
        };
        let fits = self.bytes + added <= CHUNK_BYTES
            && self.values + value.len() <= CHUNK_VALUE_BYTES
            && self.count < CHUNK_VALUES;
        fits.then(|| {
            self.bytes += added;
            self.values += value.len();
            self.count += 1;
            self.edge = value;
            added
        })
    }
}

#[derive(Debug, Default)]
pub struct ListValue {
    chunks: VecDeque<FrontCoded>,
    len: usize,
    /// The sum of the chunks' [`FrontCoded::cost`].
    room: u64,
    /// The size of a ListFetch answer of every value.
    encoded: u64,
}

impl ListValue {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn cost(&self) -> u64 {
        self.room + queue_cost(self.chunks.capacity())
    }

    /// What pushing `values` at `end` adds to a list's [`Self::cost`]: the
    /// room the end chunk grows by, the new chunks, and the queue's growth,
    /// so that the store can refuse a push before it is made. It holds
    /// handles on the values (not copies) until then, since what an entry
    /// takes depends on the value before it.
    pub fn growth(end: End, values: &[Bytes]) -> impl FnOnce(&ListValue) -> u64 {
        let values = values.to_vec();
        move |list| list.layout_cost(end, list.layout(end, &values))
    }

    fn end(&self, end: End) -> Option<&FrontCoded> {
        match end {
            End::Front => self.chunks.front(),
            End::Back => self.chunks.back(),
        }
    }

    /// How `values` are laid out outward from `end`: into the end chunk
    /// while they fit in it, then chunks of up to [`CHUNK_BYTES`] of
    /// entries and [`CHUNK_VALUE_BYTES`] of values. Exact: it writes each
    /// entry's size against the value next to it, as [`Self::extend`]
    /// will.
    fn layout<P: AsRef<[u8]>>(&self, end: End, values: &[P]) -> Layout {
        // The back chunk's last value is found by walking it; the front
        // chunk's first is stored whole.
        let back_last = match end {
            End::Back => self.chunks.back().map(FrontCoded::last),
            End::Front => None,
        };
        let mut filling = match end {
            End::Back => self
                .chunks
                .back()
                .zip(back_last.as_deref())
                .map(|(chunk, last)| Filling::of(chunk, last)),
            End::Front => self
                .chunks
                .front()
                .and_then(|chunk| Some(Filling::of(chunk, chunk.first()?))),
        };
        let mut layout = Layout::default();
        let n = values.len();
        for at in 0..n {
            let value = match end {
                End::Back => values[at].as_ref(),
                End::Front => values[n - 1 - at].as_ref(),
            };
            let added = filling.as_mut().and_then(|f| f.take(end, value));
            match (added, layout.chunks.last_mut()) {
                (Some(added), None) => {
                    layout.into_end.0 += 1;
                    layout.into_end.1 += added;
                }
                (Some(added), Some((count, bytes))) => {
                    *count += 1;
                    *bytes += added;
                }
                (None, _) => {
                    let chunk = Filling::alone(value);
                    layout.chunks.push((1, chunk.bytes));
                    filling = Some(chunk);
                }
            }
        }
        layout.back_last = back_last;
        layout
    }

    /// The room new chunk `at` (counted outward) of `bytes` of `layout`
    /// is allocated with: just those bytes for a list of one chunk, which
    /// grows class by class, and for a chunk that a later one of the
    /// layout closes; else, at the list's new end, a whole chunk at once,
    /// so a large list's chunks are allocated once rather than through
    /// every size class below (whose freed buffers stay resident until the
    /// allocator purges them), then cut to size when the next chunk
    /// starts (see [`Self::extend`]).
    fn chunk_room(&self, layout: &Layout, at: usize, bytes: usize) -> usize {
        let outermost = at + 1 == layout.chunks.len();
        if !outermost || (self.chunks.is_empty() && layout.chunks.len() == 1) {
            bytes
        } else {
            bytes.max(CHUNK_BYTES)
        }
    }

    /// What `layout` adds to the list's cost. (When the layout starts a
    /// chunk, the end chunk is then cut to size, which can only lower the
    /// cost: not counted, so this is an upper bound.)
    fn layout_cost(&self, end: End, layout: Layout) -> u64 {
        let end_growth = self
            .end(end)
            .map_or(0, |chunk| chunk.growth(layout.into_end.1));
        let chunks: u64 = layout
            .chunks
            .iter()
            .enumerate()
            .map(|(at, &(_, bytes))| allocation_size(self.chunk_room(&layout, at, bytes)) as u64)
            .sum();
        end_growth + chunks + self.queue_growth(layout.chunks.len())
    }

    /// What the queue grows by to take `added` more chunks: exactly that
    /// when empty (a small list's one chunk takes one 32-byte slot, not
    /// the four a growing queue starts with), else it at least doubles.
    fn queue_growth(&self, added: usize) -> u64 {
        let (len, capacity) = (self.chunks.len(), self.chunks.capacity());
        let needed = len + added;
        let grown = if needed <= capacity {
            capacity
        } else if len == 0 {
            needed
        } else {
            needed.max(2 * capacity).max(4)
        };
        queue_cost(grown) - queue_cost(capacity)
    }

    /// Adds `values` at `end`, keeping their order.
    fn extend<P: AsRef<[u8]>>(&mut self, end: End, values: &[P]) {
        let layout = self.layout(end, values);
        self.len += values.len();
        self.encoded += values
            .iter()
            .map(|v| repeated_len(v.as_ref().len()))
            .sum::<u64>();
        let n = values.len();
        let (joining, joining_bytes) = layout.into_end;
        let closed = !layout.chunks.is_empty();
        if joining > 0 || closed {
            let back_last = layout.back_last.as_deref();
            self.change(end, |chunk| {
                match end {
                    _ if joining == 0 => {}
                    End::Back => chunk.append_after(back_last, &values[..joining], joining_bytes),
                    End::Front => chunk.prepend(&values[n - joining..]),
                }
                // A chunk the list stops filling keeps no spare room.
                if closed {
                    chunk.fit_exactly();
                }
            });
        }
        // Outward from the end chunk: the next values in order at the
        // back, the ones before them at the front.
        // Room for them all at once, as `queue_growth` reckons.
        if self.chunks.is_empty() {
            self.chunks.reserve_exact(layout.chunks.len());
        } else {
            self.chunks.reserve(layout.chunks.len());
        }
        let mut done = joining;
        for (at, &(count, bytes)) in layout.chunks.iter().enumerate() {
            let part = match end {
                End::Back => &values[done..done + count],
                End::Front => &values[n - done - count..n - done],
            };
            let mut chunk = FrontCoded::with_room(self.chunk_room(&layout, at, bytes));
            chunk.append(part);
            debug_assert_eq!(chunk.bytes_len(), bytes);
            self.room += chunk.cost();
            match end {
                End::Back => self.chunks.push_back(chunk),
                End::Front => self.chunks.push_front(chunk),
            }
            done += count;
        }
    }

    /// Applies `change` to the chunk at `end`, keeping the charge, and
    /// drops it if that empties it.
    fn change<R>(&mut self, end: End, change: impl FnOnce(&mut FrontCoded) -> R) -> Option<R> {
        let chunk = match end {
            End::Front => self.chunks.front_mut(),
            End::Back => self.chunks.back_mut(),
        }?;
        self.room -= chunk.cost();
        let changed = change(chunk);
        chunk.fit();
        self.room += chunk.cost();
        if chunk.is_empty() {
            match end {
                End::Front => self.chunks.pop_front(),
                End::Back => self.chunks.pop_back(),
            };
        }
        Some(changed)
    }

    /// A list that shrank to a quarter of its queue's room gives half of it
    /// back (all of it when empty), so the room it keeps, charged, stays in
    /// proportion to what it holds.
    fn shrink(&mut self) {
        if let Some(room) = shrunk_room(self.chunks.len(), self.chunks.capacity()) {
            self.chunks.shrink_to(room);
        }
    }

    /// Adds the values of `push` at its end, keeping their order, then
    /// drops values from the other end down to its `truncate_to`. Answers
    /// the length after. O(values pushed + values dropped).
    ///
    /// [`Error::CollectionTooLarge`], and nothing changes, when that length
    /// would be over `max_len`.
    pub fn push(&mut self, push: ListPush, max_len: usize) -> Result<usize, Error> {
        let ListPush {
            end,
            values,
            truncate_to,
        } = push;
        let mut len = self.len + values.len();
        if truncate_to > 0 {
            len = len.min(truncate_to as usize);
        }
        if len > max_len {
            return Err(Error::CollectionTooLarge {
                elements: len,
                limit: max_len,
            });
        }
        self.extend(end, &values);
        // Truncation drops from the end opposite the one written.
        let other = match end {
            End::Back => End::Front,
            End::Front => End::Back,
        };
        self.drop_from(other, self.len - len);
        self.shrink();
        Ok(len)
    }

    /// The value taken from `end`, if any. O(1): it walks one chunk.
    pub fn pop(&mut self, end: End) -> Option<Bytes> {
        let value = self.change(end, |chunk| match end {
            End::Front => chunk.pop_front(),
            End::Back => chunk.pop_back(),
        })??;
        self.len -= 1;
        self.encoded -= repeated_len(value.len());
        self.shrink();
        Some(value)
    }

    /// Drops `n` values from `end`: whole chunks, then part of one.
    fn drop_from(&mut self, end: End, mut n: usize) {
        while n > 0 {
            let Some(chunk) = self.end(end) else { return };
            let count = chunk.count().min(n);
            let skipped = match end {
                End::Front => 0,
                End::Back => chunk.count() - count,
            };
            let freed: u64 = chunk
                .entries()
                .skip(skipped)
                .take(count)
                .map(|entry| repeated_len(entry.len()))
                .sum();
            self.encoded -= freed;
            self.change(end, |chunk| match end {
                End::Front => chunk.drop_front(count),
                End::Back => chunk.drop_back(count),
            });
            self.len -= count;
            n -= count;
        }
    }

    /// The chunk holding position `index` (< len) and the values before it
    /// in that chunk, walking chunks from the nearer end.
    fn locate(&self, index: usize) -> (usize, usize) {
        if index < self.len / 2 {
            let mut before = 0;
            for (at, chunk) in self.chunks.iter().enumerate() {
                if index < before + chunk.count() {
                    return (at, index - before);
                }
                before += chunk.count();
            }
        } else {
            let mut after = self.len;
            for (at, chunk) in self.chunks.iter().enumerate().rev() {
                after -= chunk.count();
                if index >= after {
                    return (at, index - after);
                }
            }
        }
        unreachable!("a position under the length is in a chunk")
    }

    /// The entries from the start of the chunk holding position
    /// `bounds.start` to the end of the list, and how many of them come
    /// before that position: a value is rebuilt from its chunk's first.
    fn entries(&self, bounds: &Range<usize>) -> (usize, impl Iterator<Item = Entry<'_>> + Clone) {
        let (chunk, skip) = if bounds.is_empty() {
            (self.chunks.len(), 0)
        } else {
            self.locate(bounds.start)
        };
        let entries = self.chunks.range(chunk..).flat_map(FrontCoded::entries);
        (skip, entries)
    }

    /// The lengths of the values at positions `bounds`, in order.
    fn lengths(&self, bounds: Range<usize>) -> impl Iterator<Item = usize> + '_ {
        let (skip, entries) = self.entries(&bounds);
        entries.skip(skip).take(bounds.len()).map(|e| e.len())
    }

    /// Hands each value at positions `bounds` to `f`, in order, rebuilt in
    /// one buffer (each chunk's first value is stored whole, so the buffer
    /// carries over from chunk to chunk).
    fn for_each_value(&self, bounds: Range<usize>, mut f: impl FnMut(&[u8])) {
        let (skip, entries) = self.entries(&bounds);
        let mut value = Vec::new();
        for (at, entry) in entries.take(skip + bounds.len()).enumerate() {
            entry.decode_into(&mut value);
            if at >= skip {
                f(&value);
            }
        }
    }

    /// Every value, in order.
    #[cfg(test)]
    fn values(&self) -> impl Iterator<Item = Vec<u8>> {
        let mut values = Vec::with_capacity(self.len);
        self.for_each_value(0..self.len, |value| values.push(value.to_vec()));
        values.into_iter()
    }

    /// The bytes of the values of a ListFetch answer for `slice`: O(1) for
    /// the whole list; else the slice's values' lengths are added up, a walk
    /// of what the answer would copy, which copies nothing. Exact either
    /// way: it is what the call is charged before the copy, and the whole
    /// list's size standing in for a slice's would refuse a small slice of
    /// a large list for lack of budget.
    pub fn fetch_encoded_len(&self, slice: ListSlice) -> u64 {
        let bounds = slice.bounds(self.len());
        if bounds.len() == self.len() {
            return self.encoded;
        }
        self.lengths(bounds).map(repeated_len).sum()
    }

    /// The values of the slice, in order; empty when it selects none.
    /// Each is rebuilt straight into the answer's one buffer, its shared
    /// bytes taken from the value before it there: one walk of the chunks
    /// and one copy of each value (the whole list's bytes are known
    /// without a walk).
    pub fn fetch(&self, slice: ListSlice) -> Vec<Bytes> {
        let bounds = slice.bounds(self.len());
        let size = if bounds.len() == self.len {
            self.chunks.iter().map(FrontCoded::values_len).sum()
        } else {
            self.lengths(bounds.clone()).sum()
        };
        let mut copier = Copier::new(size);
        let mut answer: Vec<Bytes> = Vec::with_capacity(bounds.len());
        let (skip, entries) = self.entries(&bounds);
        let mut entries = entries.take(skip + bounds.len());
        // The values before the slice in its first chunk are rebuilt only
        // for what the first value of the slice shares with them.
        let mut before = Vec::new();
        for entry in entries.by_ref().take(skip) {
            entry.decode_into(&mut before);
        }
        for entry in entries {
            let previous = answer.last().map_or(&before[..], |value| &value[..]);
            let (shared, rest) = entry.parts(previous);
            let value = copier.copy_joined(shared, rest);
            answer.push(value);
        }
        answer
    }

    /// Keeps only the values of the slice; answers how many remain.
    /// O(values dropped).
    pub fn retain(&mut self, slice: ListSlice) -> usize {
        let bounds = slice.bounds(self.len());
        self.drop_from(End::Back, self.len - bounds.end);
        self.drop_from(End::Front, bounds.start);
        self.shrink();
        self.len
    }

    /// Keeps the values `keep` says to, given each one's position; O(n),
    /// and the list is packed afresh only if one goes (the values kept are
    /// copied out into one buffer first).
    fn keep(&mut self, mut keep: impl FnMut(usize, &[u8]) -> bool) -> usize {
        let (mut kept, mut ends) = (Vec::new(), Vec::new());
        let mut at = 0;
        self.for_each_value(0..self.len, |value| {
            if keep(at, value) {
                kept.extend_from_slice(value);
                ends.push(kept.len());
            }
            at += 1;
        });
        if ends.len() < self.len {
            let starts = std::iter::once(0).chain(ends.iter().copied());
            let values: Vec<&[u8]> = starts.zip(&ends).map(|(s, &e)| &kept[s..e]).collect();
            let mut packed = ListValue::default();
            packed.extend(End::Back, &values);
            *self = packed;
        }
        self.len
    }

    /// Removes every value equal to `value`; answers how many remain.
    pub fn remove_value(&mut self, value: &[u8]) -> usize {
        self.keep(|_, kept| kept != value)
    }

    /// Removes the values at the positions `erase` names (positions in the
    /// list as it was before the call; past the end, nothing); answers how
    /// many remain.
    pub fn erase(&mut self, erase: &ListErase) -> usize {
        let ranges = match erase {
            ListErase::All => {
                *self = ListValue::default();
                return 0;
            }
            ListErase::Ranges(ranges) => ranges,
        };
        let len = self.len;
        let mut erased = vec![false; len];
        for range in ranges {
            let start = (range.begin as usize).min(len);
            let end = (range.begin as usize)
                .saturating_add(range.count as usize)
                .min(len);
            erased[start..end].fill(true);
        }
        self.keep(|at, _| !erased[at])
    }
}

impl ListStorage for Arc<Store> {
    fn list_push(
        &self,
        cache: &CacheId,
        key: &[u8],
        push: ListPush,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<usize, Error>> + Send {
        // Not copied first: the values are copied into the list's chunks,
        // so the request's buffer is never pinned.
        let growth = ListValue::growth(push.end, &push.values);
        let pushed = self.grow(*cache, key, Some(ttl), growth, |list: &mut ListValue| {
            list.push(push, max_len)
        });
        ready(pushed.map(Option::unwrap_or_default))
    }

    fn list_pop(
        &self,
        cache: &CacheId,
        key: &[u8],
        end: End,
    ) -> impl Future<Output = Result<Option<(Bytes, usize)>, Error>> + Send {
        let popped = self.write(*cache, key, None, |list: &mut ListValue| {
            Ok(list.pop(end).map(|value| (value, list.len())))
        });
        ready(popped.map(Option::flatten))
    }

    fn list_fetch(
        &self,
        cache: &CacheId,
        key: &[u8],
        slice: ListSlice,
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, Error>> + Send {
        ready(self.read_answer(
            &mut Reserved::default(),
            *cache,
            key,
            max_answer,
            |list: &ListValue| {
                let elements = slice.bounds(list.len()).len();
                let encoded = list.fetch_encoded_len(slice);
                AnswerSize::of_range::<Bytes>(encoded, elements, list.len())
            },
            |list| list.fetch(slice),
        ))
    }

    fn list_length(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.read(*cache, key, ListValue::len))
    }

    fn list_retain(
        &self,
        cache: &CacheId,
        key: &[u8],
        slice: ListSlice,
        ttl: CollectionTtl,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        // With a TTL, `write` hands a missing list over empty (and stores
        // nothing if it stays so): that is how the refresh applies to an
        // existing list while a missing one stays missing.
        let retained = self.write(*cache, key, Some(ttl), |list: &mut ListValue| {
            Ok((!list.is_empty()).then(|| list.retain(slice)))
        });
        ready(retained.map(Option::flatten))
    }

    fn list_remove(
        &self,
        cache: &CacheId,
        key: &[u8],
        value: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.write(*cache, key, None, |list: &mut ListValue| {
            Ok(list.remove_value(value))
        }))
    }

    fn list_erase(
        &self,
        cache: &CacheId,
        key: &[u8],
        erase: &ListErase,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.write(*cache, key, None, |list: &mut ListValue| {
            Ok(list.erase(erase))
        }))
    }
}

#[cfg(test)]
#[path = "list_tests.rs"]
mod tests;
