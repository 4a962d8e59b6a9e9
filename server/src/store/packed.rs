//! A packed run of byte strings in one buffer, each a varint length then
//! its bytes (as Redis's listpack, without its back-lengths): a collection
//! keeps its elements this way rather than as one `Bytes` each, a 32-byte
//! header and an allocation of its own per element.
//!
//! The buffer is allocated at exactly an allocator size class
//! ([`allocation_size`]), so [`Packed::cost`] is what it really holds.
//! Finding an entry walks the entries before it: callers keep runs short
//! (`packed_map::SMALL_BYTES`, `sorted_small.rs`), or index them.
//! Lists keep theirs front coded instead (`front_coded.rs`).
//!
//! Written here rather than taken from a crate: the few that pack byte
//! strings (listpack ports) are unmaintained bindings to Redis's C code;
//! the encoding itself is prost's varint.

use std::ops::Range;

use prost::encoding::{decode_varint, encode_varint, encoded_len_varint};

use super::cost::{allocation_size, shrunk_room};

/// The bytes one part of `len` bytes takes in a run: its length and itself.
pub fn entry_len(len: usize) -> usize {
    encoded_len_varint(len as u64) + len
}

#[derive(Debug, Default)]
pub struct Packed {
    bytes: Vec<u8>,
    count: u32,
}

impl Packed {
    /// An empty run with room for `bytes` bytes of entries.
    pub fn with_room(bytes: usize) -> Packed {
        Packed {
            bytes: Vec::with_capacity(allocation_size(bytes)),
            count: 0,
        }
    }

    /// How many parts it holds.
    pub fn count(&self) -> usize {
        self.count as usize
    }

    /// The bytes its entries take.
    pub fn bytes_len(&self) -> usize {
        self.bytes.len()
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

    /// Room for `added` more bytes: the smallest size class that holds
    /// them, so the buffer grows class by class.
    fn reserve(&mut self, added: usize) {
        let needed = self.bytes.len() + added;
        if needed > self.bytes.capacity() {
            self.bytes
                .reserve_exact(allocation_size(needed) - self.bytes.len());
        }
    }

    /// Adds `parts` after its entries, in order.
    pub fn append<P: AsRef<[u8]>>(&mut self, parts: &[P]) {
        let added = parts.iter().map(|p| entry_len(p.as_ref().len())).sum();
        self.reserve(added);
        for part in parts {
            let part = part.as_ref();
            encode_varint(part.len() as u64, &mut self.bytes);
            self.bytes.extend_from_slice(part);
        }
        self.count += parts.len() as u32;
    }

    /// Gives back room once it holds under a quarter of it (all when
    /// empty), as the other structures do ([`shrunk_room`]).
    pub fn fit(&mut self) {
        if let Some(room) = shrunk_room(self.bytes.len(), self.bytes.capacity()) {
            self.bytes.shrink_to(allocation_size(room));
        }
    }
}

/// What sets and dictionaries (`packed_map.rs`) need of a run: reading an
/// entry at a known offset, and changing entries in the middle.
impl Packed {
    /// The part whose entry starts at byte `at`, and where the next starts.
    pub fn part_at(&self, at: usize) -> (&[u8], usize) {
        let (len, start) = match self.bytes[at] {
            // A part under 128 bytes, the common case: a length of one byte.
            len @ 0..0x80 => (len as usize, at + 1),
            _ => {
                let mut rest = &self.bytes[at..];
                // Every offset a caller holds is an entry's start.
                let len = decode_varint(&mut rest).expect("a packed length") as usize;
                (len, self.bytes.len() - rest.len())
            }
        };
        (&self.bytes[start..start + len], start + len)
    }

    /// Replaces the `removed` entries that take bytes `range` with `parts`,
    /// in order: in place when they take as many bytes, else the entries
    /// after them move once.
    pub fn splice<P: AsRef<[u8]>>(&mut self, range: Range<usize>, removed: usize, parts: &[P]) {
        let added: usize = parts.iter().map(|p| entry_len(p.as_ref().len())).sum();
        let (len, end) = (self.bytes.len(), range.start + added);
        if end > range.end {
            self.reserve(end - range.end);
            self.bytes.resize(len + end - range.end, 0);
        }
        if end != range.end {
            self.bytes.copy_within(range.end..len, end);
            self.bytes.truncate(len + end - range.end);
        }
        let mut head = &mut self.bytes[range.start..end];
        for part in parts {
            let part = part.as_ref();
            encode_varint(part.len() as u64, &mut head);
            let (written, rest) = head.split_at_mut(part.len());
            written.copy_from_slice(part);
            head = rest;
        }
        self.count = self.count + parts.len() as u32 - removed as u32;
    }
}

/// Edits at a byte offset, for a collection that keeps its entries in an
/// order of its own (a small sorted set: each member, then its score, in
/// score order) and finds the offsets by walking [`Packed::as_bytes`].
impl Packed {
    /// Its entries as written: each a varint length, then the bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Adds `parts`, in order, at byte `offset`, where an entry starts (or
    /// the end): the entries after it move once.
    pub fn insert_at<P: AsRef<[u8]>>(&mut self, offset: usize, parts: &[P]) {
        self.splice(offset..offset, 0, parts);
    }

    /// Drops the `entries` entries that take bytes `range` (from where one
    /// starts to where one ends).
    pub fn remove_at(&mut self, range: Range<usize>, entries: usize) {
        self.splice::<&[u8]>(range, entries, &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Its parts, walked by offset as sets and dictionaries walk them.
    fn entries(packed: &Packed) -> Vec<&[u8]> {
        let (mut parts, mut at) = (Vec::new(), 0);
        while at < packed.bytes_len() {
            let (part, next) = packed.part_at(at);
            parts.push(part);
            at = next;
        }
        parts
    }

    /// The offset of its part `index`.
    fn offset(packed: &Packed, index: usize) -> usize {
        (0..index).fold(0, |at, _| packed.part_at(at).1)
    }

    #[test]
    fn parts_come_back_in_order_wherever_written() {
        let long = vec![7u8; 300];
        let mut p = Packed::default();
        p.append(&[&b"b"[..], b""]);
        p.insert_at(0, &[&long[..], b"a"]);
        p.append(&[b"c"]);
        assert_eq!(entries(&p), [&long[..], b"a", b"b", b"", b"c"]);
        assert_eq!(p.count(), 5);
        assert_eq!(p.bytes_len(), 302 + 2 + 2 + 1 + 2);
        p.remove_at(0..offset(&p, 1), 1);
        p.remove_at(offset(&p, 2)..offset(&p, 4), 2);
        assert_eq!(entries(&p), [b"a", b"b"]);
        p.remove_at(0..p.bytes_len(), 2);
        assert_eq!((p.count(), p.bytes_len()), (0, 0));
    }

    #[test]
    fn the_buffer_is_a_size_class_and_gives_room_back() {
        let mut p = Packed::default();
        for n in 0..200u32 {
            let part = n.to_string();
            let growth = p.growth(entry_len(part.len()));
            let before = p.cost();
            p.append(&[part]);
            assert_eq!(p.cost(), before + growth);
            assert_eq!(p.cost(), allocation_size(p.bytes_len()) as u64);
        }
        p.remove_at(0..offset(&p, 190), 190);
        p.fit();
        assert!(p.cost() <= 2 * allocation_size(p.bytes_len()) as u64);
        p.remove_at(0..p.bytes_len(), 10);
        p.fit();
        assert_eq!(p.cost(), 0);
    }
}
