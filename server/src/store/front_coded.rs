//! A run of byte strings in one buffer, front coded: each entry stores how
//! many leading bytes its value shares with the value before it in the
//! run, then the rest. Neighbouring list values often share a prefix (ids,
//! keys, JSON), and `member:123456` after `member:123455` takes 3 bytes
//! rather than 14. The first entry of a run shares nothing, so each run
//! decodes on its own.
//!
//! An entry is a varint header, `rest length * 2 + 1` if it shares a
//! prefix (then a varint of the bytes shared) or `value length * 2` if not,
//! then the rest of its bytes. A value shares only when at least
//! [`MIN_SHARED`] bytes match, so a value sharing nothing takes what it
//! takes in `packed.rs` (a header of one byte under 64 bytes, against
//! 128 there): front coding costs a value with nothing to share at most
//! one byte more than packing, and only at 64 to 127 bytes.
//!
//! Bounds: a value is rebuilt by walking the run from its first entry,
//! each step truncating the value before it to the bytes shared and
//! appending the rest, so a walk costs the run's encoded bytes (plus the
//! one value it rebuilds), not its decoded bytes. What compares or copies
//! every value of a run costs its decoded bytes, which the caller caps
//! (`list::CHUNK_VALUE_BYTES`, 8 KiB, beside `list::CHUNK_BYTES`), as it caps
//! the encoded bytes and so the entries (each at least one byte).
//!
//! The buffer is allocated at an allocator size class, as `packed.rs`'s
//! is, so [`FrontCoded::cost`] is what it really holds.
//!
//! Written here rather than taken from a crate: front coding is found
//! inside storage engines' block formats (sorted-string tables), not as a
//! maintained crate for a run edited at both ends; the varint is prost's.

use bytes::Bytes;
use prost::encoding::{decode_varint, encode_varint, encoded_len_varint};

use super::cost::{allocation_size, shrunk_room};

/// The fewest leading bytes shared that an entry records: one shared byte
/// saves no more than the byte it takes to say so.
pub const MIN_SHARED: usize = 2;

/// The bytes a value of `len` bytes takes as the first entry of a run (or
/// after one it shares nothing with).
pub fn plain_len(len: usize) -> usize {
    encoded_len_varint(len as u64 * 2) + len
}

/// The leading bytes `value` records as shared with `previous`.
fn shared_len(previous: &[u8], value: &[u8]) -> usize {
    let shared = previous
        .iter()
        .zip(value)
        .take_while(|(a, b)| a == b)
        .count();
    if shared >= MIN_SHARED {
        shared
    } else {
        0
    }
}

/// The bytes an entry sharing `shared` bytes and holding `rest` takes.
fn entry_len(shared: usize, rest: usize) -> usize {
    match shared {
        0 => plain_len(rest),
        _ => encoded_len_varint(rest as u64 * 2 + 1) + encoded_len_varint(shared as u64) + rest,
    }
}

/// The bytes `value` takes as the entry after `previous` in a run.
pub fn following_len(previous: &[u8], value: &[u8]) -> usize {
    let shared = shared_len(previous, value);
    entry_len(shared, value.len() - shared)
}

/// Writes the entries of `values`, in order, the first after `previous`
/// (the run's last value, if it has one).
fn encode<'a, P: AsRef<[u8]>>(mut previous: Option<&'a [u8]>, values: &'a [P], out: &mut Vec<u8>) {
    for value in values {
        let value = value.as_ref();
        let shared = previous.map_or(0, |previous| shared_len(previous, value));
        let rest = &value[shared..];
        if shared == 0 {
            encode_varint(rest.len() as u64 * 2, out);
        } else {
            encode_varint(rest.len() as u64 * 2 + 1, out);
            encode_varint(shared as u64, out);
        }
        out.extend_from_slice(rest);
        previous = Some(value);
    }
}

/// The bytes of `values`, as a run's count of them.
fn values_len<P: AsRef<[u8]>>(values: &[P]) -> u32 {
    values.iter().map(|value| value.as_ref().len() as u32).sum()
}

/// The bytes the entries of `values` take, the first after `previous`.
fn run_len<'a, P: AsRef<[u8]>>(mut previous: Option<&'a [u8]>, values: &'a [P]) -> usize {
    let mut len = 0;
    for value in values {
        let value = value.as_ref();
        len += previous.map_or(plain_len(value.len()), |p| following_len(p, value));
        previous = Some(value);
    }
    len
}

#[derive(Debug, Default)]
pub struct FrontCoded {
    bytes: Vec<u8>,
    count: u32,
    /// The bytes of its values, decoded: kept rather than walked for, as
    /// a push lays its values out against them. It fills what would
    /// otherwise be padding, so a run stays 32 bytes in a list's queue; a
    /// run over 4 GiB of values would take a request far past any limit.
    values: u32,
}

/// One entry as stored: the bytes its value shares with the value before
/// it, and the rest.
#[derive(Clone, Copy, Debug)]
pub struct Entry<'a> {
    shared: usize,
    rest: &'a [u8],
}

impl Entry<'_> {
    /// The length of its value.
    pub fn len(&self) -> usize {
        self.shared + self.rest.len()
    }

    /// Turns `value`, the value of the entry before it in its run (any,
    /// for the first), into its own.
    pub fn decode_into(&self, value: &mut Vec<u8>) {
        value.truncate(self.shared);
        value.extend_from_slice(self.rest);
    }

    /// Its value in two parts, given the value of the entry before it in
    /// its run (any, for the first): the bytes it shares with that one,
    /// then its own.
    pub fn parts<'p>(&self, previous: &'p [u8]) -> (&'p [u8], &[u8]) {
        (&previous[..self.shared], self.rest)
    }
}

impl FrontCoded {
    /// An empty run with room for `bytes` bytes of entries.
    pub fn with_room(bytes: usize) -> FrontCoded {
        FrontCoded {
            bytes: Vec::with_capacity(allocation_size(bytes)),
            count: 0,
            values: 0,
        }
    }

    /// How many values it holds.
    pub fn count(&self) -> usize {
        self.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The bytes its entries take.
    pub fn bytes_len(&self) -> usize {
        self.bytes.len()
    }

    /// The bytes of its values, decoded.
    pub fn values_len(&self) -> usize {
        self.values as usize
    }

    /// What its buffer really takes: its capacity, a size class.
    pub fn cost(&self) -> u64 {
        allocation_size(self.bytes.capacity()) as u64
    }

    /// What its buffer's cost grows by to take `added` more bytes.
    pub fn growth(&self, added: usize) -> u64 {
        let needed = allocation_size(self.bytes.len() + added);
        needed.saturating_sub(self.bytes.capacity()) as u64
    }

    pub fn entries(&self) -> Entries<'_> {
        Entries(&self.bytes)
    }

    /// Its first value (stored whole), if any.
    pub fn first(&self) -> Option<&[u8]> {
        self.entries().next().map(|entry| entry.rest)
    }

    /// Its last value (empty when it holds none): a walk of the run.
    pub fn last(&self) -> Vec<u8> {
        self.last_and_offset().0
    }

    /// Its last value and the offset of its entry, in one walk.
    fn last_and_offset(&self) -> (Vec<u8>, usize) {
        let (mut value, mut offset) = (Vec::new(), 0);
        let mut entries = self.entries();
        loop {
            let at = self.bytes.len() - entries.0.len();
            let Some(entry) = entries.next() else { break };
            entry.decode_into(&mut value);
            offset = at;
        }
        (value, offset)
    }

    /// Room for `added` more bytes: the smallest size class that holds
    /// them, so the buffer grows class by class.
    fn reserve(&mut self, added: usize) {
        let needed = self.bytes.len() + added;
        if needed > self.bytes.capacity() {
            self.bytes
                .reserve_exact(allocation_size(needed) - self.bytes.len());
        }
    }

    /// Adds `values` after its entries, in order.
    pub fn append<P: AsRef<[u8]>>(&mut self, values: &[P]) {
        let last = self.last();
        let previous = (!self.is_empty()).then_some(&last[..]);
        self.append_after(previous, values, run_len(previous, values));
    }

    /// Adds `values` after its entries, given its last value (`None` when
    /// empty) and the bytes their entries take, both known to a caller
    /// that laid them out: no walk of the run.
    pub fn append_after<P: AsRef<[u8]>>(
        &mut self,
        last: Option<&[u8]>,
        values: &[P],
        bytes: usize,
    ) {
        debug_assert_eq!(last.is_some(), !self.is_empty());
        self.reserve(bytes);
        let start = self.bytes.len();
        encode(last, values, &mut self.bytes);
        debug_assert_eq!(self.bytes.len() - start, bytes);
        self.count += values.len() as u32;
        self.values += values_len(values);
    }

    /// Adds `values` before its entries, in order: its first value, stored
    /// whole until now, is written again after the last of them, and the
    /// entries after it move once.
    pub fn prepend<P: AsRef<[u8]>>(&mut self, values: &[P]) {
        let (Some(first), Some(last)) = (self.first(), values.last()) else {
            return self.append(values);
        };
        let mut head = Vec::with_capacity(run_len(None, values) + plain_len(first.len()));
        encode(None, values, &mut head);
        encode(Some(last.as_ref()), &[first], &mut head);
        let first_end = plain_len(first.len());
        self.replace_head(first_end, &head);
        self.count += values.len() as u32;
        self.values += values_len(values);
    }

    /// Replaces the entries in bytes `..end` with `head`.
    fn replace_head(&mut self, end: usize, head: &[u8]) {
        let len = self.bytes.len();
        let new_len = len - end + head.len();
        if new_len > len {
            self.reserve(new_len - len);
            self.bytes.resize(new_len, 0);
        }
        self.bytes.copy_within(end..len, head.len());
        self.bytes.truncate(new_len);
        self.bytes[..head.len()].copy_from_slice(head);
    }

    /// Takes its first value out.
    pub fn pop_front(&mut self) -> Option<Bytes> {
        let first = Bytes::copy_from_slice(self.first()?);
        self.drop_front(1);
        Some(first)
    }

    /// Takes its last value out: one walk of the run.
    pub fn pop_back(&mut self) -> Option<Bytes> {
        if self.is_empty() {
            return None;
        }
        let (value, start) = self.last_and_offset();
        self.bytes.truncate(start);
        self.count -= 1;
        self.values -= value.len() as u32;
        Some(Bytes::from(value))
    }

    /// The offset of entry `index` (the end past the last), and the bytes
    /// of the values before it.
    fn offset_and_len(&self, index: usize) -> (usize, usize) {
        let mut entries = self.entries();
        let len = entries.by_ref().take(index).map(|entry| entry.len()).sum();
        (self.bytes.len() - entries.0.len(), len)
    }

    /// Drops its first `n` values (all, if it holds fewer): the value
    /// after them, which may share bytes with the last one dropped, is
    /// written whole in their place.
    pub fn drop_front(&mut self, n: usize) {
        if n >= self.count() {
            self.bytes.clear();
            self.count = 0;
            self.values = 0;
            return;
        }
        let mut entries = self.entries();
        let (mut value, mut dropped) = (Vec::new(), 0);
        for entry in entries.by_ref().take(n) {
            entry.decode_into(&mut value);
            dropped += value.len() as u32;
        }
        if let Some(entry) = entries.next() {
            entry.decode_into(&mut value);
        }
        let end = self.bytes.len() - entries.0.len();
        self.values -= dropped;
        let mut head = Vec::with_capacity(plain_len(value.len()));
        encode(None, &[&value], &mut head);
        self.replace_head(end, &head);
        self.count -= n as u32;
    }

    /// Drops its last `n` values (all, if it holds fewer).
    pub fn drop_back(&mut self, n: usize) {
        let kept = self.count().saturating_sub(n);
        let (end, values) = self.offset_and_len(kept);
        self.bytes.truncate(end);
        self.count = kept as u32;
        self.values = values as u32;
    }

    /// Gives back room once it holds under a quarter of it (all when
    /// empty), as the other structures do ([`shrunk_room`]).
    pub fn fit(&mut self) {
        if let Some(room) = shrunk_room(self.bytes.len(), self.bytes.capacity()) {
            self.bytes.shrink_to(allocation_size(room));
        }
    }

    /// Gives back all the room past its entries' size class: for a chunk
    /// that a list has stopped filling.
    pub fn fit_exactly(&mut self) {
        let room = allocation_size(self.bytes.len());
        if room < self.bytes.capacity() {
            self.bytes.shrink_to(room);
        }
    }
}

/// The entries of a [`FrontCoded`] run, in order.
#[derive(Clone)]
pub struct Entries<'a>(&'a [u8]);

impl<'a> Iterator for Entries<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        let header = match *self.0.first()? {
            // A rest under 64 bytes, the common case: a header of one byte.
            header @ 0..0x80 => {
                self.0 = &self.0[1..];
                header as usize
            }
            // Written by `encode`, so always whole varints.
            _ => decode_varint(&mut self.0).expect("a front-coded header") as usize,
        };
        let shared = match header & 1 {
            0 => 0,
            _ => decode_varint(&mut self.0).expect("a front-coded prefix") as usize,
        };
        let (rest, after) = self.0.split_at(header >> 1);
        self.0 = after;
        Some(Entry { shared, rest })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(run: &FrontCoded) -> Vec<Vec<u8>> {
        let mut value = Vec::new();
        run.entries()
            .map(|entry| {
                entry.decode_into(&mut value);
                value.clone()
            })
            .collect()
    }

    fn run(values: &[&[u8]]) -> FrontCoded {
        let mut run = FrontCoded::default();
        run.append(values);
        run
    }

    #[test]
    fn shared_prefixes_take_a_few_bytes() {
        let r = run(&[b"member:123455", b"member:123456", b"member:123460"]);
        assert_eq!(
            values(&r),
            [&b"member:123455"[..], b"member:123456", b"member:123460"]
        );
        // 1 + 13, then a header, 12 shared and one byte, then 11 and two.
        assert_eq!(r.bytes_len(), 14 + 3 + 4);
        assert_eq!(r.values_len(), 39);
    }

    #[test]
    fn values_sharing_nothing_take_what_they_take_packed() {
        let r = run(&[b"abc", b"xyz", b"a", b"ab"]);
        assert_eq!(values(&r), [&b"abc"[..], b"xyz", b"a", b"ab"]);
        // One shared byte is not recorded: every entry a length and its bytes.
        assert_eq!(r.bytes_len(), 4 + 4 + 2 + 3);
        assert_eq!(plain_len(63), 64);
        assert_eq!(plain_len(64), 66);
    }

    #[test]
    fn equal_and_empty_values_come_back() {
        let long = vec![b'z'; 300];
        let r = run(&[&long, &long, b"", b"", &long, &long[..299]]);
        assert_eq!(
            values(&r),
            [&long[..], &long, b"", b"", &long, &long[..299]]
        );
        // 2 + 300, an equal value in 3 (its header and a two-byte count),
        // empty values in one byte, a long value again whole after an empty one.
        assert_eq!(r.bytes_len(), 302 + 3 + 1 + 1 + 302 + 3);
        assert_eq!(r.count(), 6);
    }

    #[test]
    fn push_front_writes_the_old_first_value_again() {
        let mut r = run(&[b"key:10", b"key:11"]);
        r.prepend(&[b"key:08", b"key:09"]);
        assert_eq!(
            values(&r),
            [&b"key:08"[..], b"key:09", b"key:10", b"key:11"]
        );
        // key:08 whole, then key:09 and key:11 share five bytes, key:10
        // (written again) four.
        assert_eq!(r.bytes_len(), 7 + 3 + 4 + 3);
        r.prepend(&[b"other"]);
        assert_eq!(values(&r)[..2], [&b"other"[..], b"key:08"]);
        assert_eq!(r.bytes_len(), 6 + 7 + 10);
    }

    #[test]
    fn removal_writes_the_next_value_whole() {
        let mut r = run(&[b"user:1", b"user:2", b"user:3", b"user:4"]);
        assert_eq!(r.pop_front().as_deref(), Some(&b"user:1"[..]));
        assert_eq!(values(&r), [&b"user:2"[..], b"user:3", b"user:4"]);
        assert_eq!(r.bytes_len(), 7 + 3 + 3);
        assert_eq!(r.pop_back().as_deref(), Some(&b"user:4"[..]));
        r.drop_front(1);
        assert_eq!(values(&r), [&b"user:3"[..]]);
        assert_eq!(r.bytes_len(), 7);
        r.append(&[b"user:5", b"user:6"]);
        r.drop_back(1);
        assert_eq!(values(&r), [&b"user:3"[..], b"user:5"]);
        r.drop_front(9);
        assert!(r.is_empty());
        assert_eq!((r.pop_front(), r.pop_back()), (None, None));
        r.fit();
        assert_eq!(r.cost(), 0);
    }

    #[test]
    fn the_buffer_grows_by_size_class() {
        let mut r = FrontCoded::default();
        for n in 0..500u32 {
            let value = format!("id:{n}");
            let previous = r.last();
            let added = if r.is_empty() {
                plain_len(value.len())
            } else {
                following_len(&previous, value.as_bytes())
            };
            let (before, growth) = (r.cost(), r.growth(added));
            r.append(&[value]);
            assert_eq!(r.cost(), before + growth);
            assert_eq!(r.cost(), allocation_size(r.bytes_len()) as u64);
        }
    }

    /// Random runs edited at both ends decode to what a plain queue holds,
    /// with every entry sharing as much as it may.
    #[test]
    fn a_run_follows_a_model_under_random_edits() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        use std::collections::VecDeque;
        #[derive(Clone, Debug)]
        enum Edit {
            Append(Vec<Vec<u8>>),
            Prepend(Vec<Vec<u8>>),
            DropFront(usize),
            DropBack(usize),
        }
        // Values from a small alphabet, so that neighbours often share
        // a prefix, sometimes all of it; now and then a long one.
        let value = prop_oneof![
            8 => prop::collection::vec(prop::sample::select(b"ab:".to_vec()), 0..8),
            1 => prop::collection::vec(Just(b'a'), 60..140),
        ];
        let batch = prop::collection::vec(value, 0..6);
        let edit = prop_oneof![
            batch.clone().prop_map(Edit::Append),
            batch.prop_map(Edit::Prepend),
            (0usize..4).prop_map(Edit::DropFront),
            (0usize..4).prop_map(Edit::DropBack),
        ];
        let config = Config {
            failure_persistence: None,
            ..Config::with_cases(256)
        };
        TestRunner::new(config)
            .run(&prop::collection::vec(edit, 1..30), |edits| {
                let mut r = FrontCoded::default();
                let mut model: VecDeque<Vec<u8>> = VecDeque::new();
                for edit in edits {
                    match edit {
                        Edit::Append(values) => {
                            r.append(&values);
                            model.extend(values);
                        }
                        Edit::Prepend(values) => {
                            r.prepend(&values);
                            values.into_iter().rev().for_each(|v| model.push_front(v));
                        }
                        Edit::DropFront(n) => {
                            r.drop_front(n);
                            model.drain(..n.min(model.len()));
                        }
                        Edit::DropBack(n) => {
                            r.drop_back(n);
                            model.truncate(model.len().saturating_sub(n));
                        }
                    }
                    prop_assert_eq!(values(&r), Vec::from(model.clone()));
                    let slices: Vec<&[u8]> = model.iter().map(Vec::as_slice).collect();
                    prop_assert_eq!(r.bytes_len(), run_len(None, &slices));
                    prop_assert_eq!(r.count(), model.len());
                    prop_assert_eq!(r.values_len(), model.iter().map(Vec::len).sum::<usize>());
                }
                Ok(())
            })
            .unwrap();
    }
}
