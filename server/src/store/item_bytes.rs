//! An item's own allocation: a varint of the key's length (and whether the
//! item is a collection), then the key, then a small scalar's value or the
//! item's collection itself; held as a pointer and a `u32` length in 12
//! bytes.
//!
//! Why by hand: a `Bytes` takes 32 bytes of every slab slot, a `Box<[u8]>`
//! 16 (with an 8-byte length no item needs), and a collection's box 8 more
//! beside it. Packed to 4-byte alignment, the pointer and a `u32` length
//! share a slot's words with its other 4-byte fields; the key's length (a
//! byte for a key under 64 bytes) rides in the allocation, usually within
//! its size class (`shard::Entry` is 40 bytes, where it was 72). No crate
//! keeps a boxed slice's length beside it in 4 bytes: `thin-vec` puts a
//! 16-byte header (length and capacity) in the allocation, which a small
//! item pays in full.
//!
//! A collection's [`Collections`] value lives in the same allocation, after
//! the key (aligned), rather than in a box of its own the allocation points
//! to: a key of up to 15 bytes and the 56-byte value take one 80-byte
//! allocation where the key and pointer took 32 and the box 64, 16 bytes
//! less for every collection item (the many small sets, dictionaries,
//! lists and sorted sets most of all).
//!
//! Never shared: reads copy a value out of it (at most
//! `cost::COPIED_VALUE` bytes); a larger value is kept apart, as a `Bytes`
//! that reads share (`value::Collections::Scalar`).

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::mem::{align_of, size_of};
use std::ptr::NonNull;

use prost::encoding::{encode_varint, encoded_len_varint};

use super::cost::allocation_size;
use super::value::Collections;

/// The owned allocation of one item. Unaligned fields (`packed(4)`) are
/// only ever read by value, never referenced.
#[repr(C, packed(4))]
pub struct ItemBytes {
    /// From `alloc` of [`layout`]`(head, len)`, owned; holds the head
    /// varint, the key, and a scalar's value or (at [`collection_at`]) a
    /// collection.
    ptr: NonNull<u8>,
    len: u32,
}

/// What an item holds, as [`ItemBytes::contents`] reads it.
pub(super) enum Contents<'a> {
    Scalar(&'a [u8]),
    Collection(&'a Collections),
}

/// The low bit of the leading varint: the item is a collection, held in
/// the allocation after the key.
const COLLECTION: u64 = 1;

/// Where a collection starts: past the varint and key, at its alignment.
fn collection_at(prefix: usize) -> usize {
    prefix.next_multiple_of(align_of::<Collections>())
}

/// The allocation's layout: a scalar's bytes need no alignment, a
/// collection's value needs its own.
fn layout(head: u64, len: usize) -> Layout {
    let align = match head & COLLECTION {
        0 => 1,
        _ => align_of::<Collections>(),
    };
    Layout::from_size_align(len, align).expect("an item is shorter than 4 GiB")
}

// SAFETY: `ItemBytes` owns its bytes as a `Box<[u8]>` does and its
// collection as a `Box<Collections>` does, both `Send`.
unsafe impl Send for ItemBytes {}

impl ItemBytes {
    /// A scalar item's: `key`, then `value`.
    pub(super) fn scalar(key: &[u8], value: &[u8]) -> ItemBytes {
        let head = (key.len() as u64) << 1;
        let len = encoded_len_varint(head) + key.len() + value.len();
        let bytes = ItemBytes::allocate(head, key, len);
        // SAFETY: `allocate` left `len` bytes, of which the value is the
        // last `value.len()`, unwritten.
        unsafe {
            let at = bytes.ptr.as_ptr().add(len - value.len());
            at.copy_from_nonoverlapping(value.as_ptr(), value.len());
        }
        bytes
    }

    /// A collection item's: `key`, then `collection`, owned from now on.
    pub(super) fn collection(key: &[u8], collection: Collections) -> ItemBytes {
        let head = (key.len() as u64) << 1 | COLLECTION;
        let at = collection_at(encoded_len_varint(head) + key.len());
        let bytes = ItemBytes::allocate(head, key, at + size_of::<Collections>());
        // SAFETY: `at` is within the allocation, aligned for `Collections`
        // (the allocation is, and `at` is a multiple of its alignment),
        // with room for one.
        unsafe {
            let at = bytes.ptr.as_ptr().add(at).cast::<Collections>();
            at.write(collection);
        }
        bytes
    }

    /// An allocation of `len` bytes that starts with `head` and `key`.
    fn allocate(head: u64, key: &[u8], len: usize) -> ItemBytes {
        let layout = layout(head, len);
        // SAFETY: `len` is at least the varint's byte, never 0.
        let ptr =
            NonNull::new(unsafe { alloc(layout) }).unwrap_or_else(|| handle_alloc_error(layout));
        let mut varint = [0; 10];
        let mut rest = &mut varint[..];
        encode_varint(head, &mut rest);
        let varint_len = 10 - rest.len();
        // SAFETY: the varint and the key are at most `len` bytes, written
        // into a fresh allocation.
        unsafe {
            let at = ptr.as_ptr();
            at.copy_from_nonoverlapping(varint.as_ptr(), varint_len);
            let at = at.add(varint_len);
            at.copy_from_nonoverlapping(key.as_ptr(), key.len());
        }
        let len = u32::try_from(len).expect("an item is shorter than 4 GiB");
        ItemBytes { ptr, len }
    }

    /// What the allocation of a scalar of a key of `key_len` and a value of
    /// `value_len` bytes takes, at allocator size class.
    pub(super) fn scalar_allocation(key_len: usize, value_len: usize) -> usize {
        allocation_size(encoded_len_varint((key_len as u64) << 1) + key_len + value_len)
    }

    /// What the allocation of a collection item of a key of `key_len`
    /// bytes takes, its collection's value included, at size class.
    pub(super) fn collection_allocation(key_len: usize) -> usize {
        let head = (key_len as u64) << 1 | COLLECTION;
        allocation_size(
            collection_at(encoded_len_varint(head) + key_len) + size_of::<Collections>(),
        )
    }

    /// Bytes allocated: what the item is charged for them.
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// The leading varint and its length in bytes. Read a byte at a time:
    /// past the key, a collection's bytes are not all initialized, so no
    /// slice may cover them.
    fn head(&self) -> (u64, usize) {
        let mut head = 0;
        for at in 0..10 {
            // SAFETY: within the varint `allocate` wrote first.
            let byte = unsafe { self.ptr.as_ptr().add(at).read() };
            head |= u64::from(byte & 0x7f) << (7 * at);
            if byte < 0x80 {
                return (head, at + 1);
            }
        }
        unreachable!("a varint of at most 10 bytes, written by `allocate`")
    }

    /// The leading varint, and the key with where it ends.
    fn split(&self) -> (u64, &[u8], usize) {
        let (head, start) = self.head();
        let end = start + (head >> 1) as usize;
        // SAFETY: the key `allocate` wrote after the varint, owned by `self`.
        let key = unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(start), end - start) };
        (head, key, end)
    }

    pub(super) fn key(&self) -> &[u8] {
        self.split().1
    }

    /// The collection's place, if the item is one.
    fn collection_ptr(&self) -> Option<*mut Collections> {
        let (head, _, end) = self.split();
        let at = collection_at(end);
        // SAFETY: where `collection` wrote it, within the allocation.
        (head & COLLECTION != 0).then(|| unsafe { self.ptr.as_ptr().add(at).cast() })
    }

    pub(super) fn contents(&self) -> Contents<'_> {
        let (head, _, end) = self.split();
        if head & COLLECTION != 0 {
            // SAFETY: the collection `collection` wrote, owned by `self`,
            // borrowed for as long as `self` is.
            return Contents::Collection(unsafe {
                &*self.ptr.as_ptr().add(collection_at(end)).cast()
            });
        }
        // SAFETY: the value `scalar` wrote after the key, to the end.
        let value =
            unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(end), self.len() - end) };
        Contents::Scalar(value)
    }

    pub(super) fn collection_mut(&mut self) -> Option<&mut Collections> {
        // SAFETY: as in `contents`, borrowed mutably for as long as `self` is.
        self.collection_ptr().map(|at| unsafe { &mut *at })
    }

    /// The start of the allocation, for asking the allocator where it lies.
    pub(super) fn address(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// Moves the bytes to a fresh allocation of the same layout and frees
    /// the old one: what defragmentation does to an item whose allocation
    /// sits in a mostly empty slab (`store/defrag.rs`). The collection, if
    /// any, moves with them as any Rust value moves, by its bytes: nothing
    /// points into the allocation, and `&mut self` means nothing borrows it.
    pub(super) fn relocate(&mut self) {
        let layout = layout(self.head().0, self.len());
        // SAFETY: `layout` is the allocation's own, never of size 0.
        let fresh =
            NonNull::new(unsafe { alloc(layout) }).unwrap_or_else(|| handle_alloc_error(layout));
        // SAFETY: both allocations are `len` bytes of this layout and
        // distinct; the old one is freed once, here, and never read again.
        // An untyped copy carries a collection's padding, uninitialized or not.
        unsafe {
            fresh
                .as_ptr()
                .copy_from_nonoverlapping(self.ptr.as_ptr(), self.len());
            dealloc(self.ptr.as_ptr(), layout);
        }
        self.ptr = fresh;
    }
}

impl Drop for ItemBytes {
    fn drop(&mut self) {
        if let Some(at) = self.collection_ptr() {
            // SAFETY: the collection `collection` wrote, dropped once, here.
            unsafe { at.drop_in_place() };
        }
        let layout = layout(self.head().0, self.len());
        // SAFETY: allocated by `allocate` with this layout, freed once, here.
        unsafe { dealloc(self.ptr.as_ptr(), layout) };
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_come_back_as_written_in_one_allocation_of_their_length() {
        for key_len in [0, 1, 63, 64, 300, 20_000] {
            for value_len in [0, 1, 8, 100, 2048] {
                let key = vec![1u8; key_len];
                let value = vec![2u8; value_len];
                let bytes = ItemBytes::scalar(&key, &value);
                assert_eq!(bytes.key(), &key[..], "{key_len} {value_len}");
                assert!(matches!(bytes.contents(), Contents::Scalar(v) if v == &value[..]));
                let prefix = if key_len < 64 {
                    1
                } else {
                    2 + usize::from(key_len >= 1 << 13)
                };
                assert_eq!(bytes.len(), prefix + key_len + value_len);
                assert_eq!(
                    ItemBytes::scalar_allocation(key_len, value_len),
                    allocation_size(bytes.len())
                );
            }
        }
    }

    #[test]
    fn a_collection_is_owned_and_reached_through_it() {
        use crate::backend::{End, ListPush};
        use crate::store::list::ListValue;

        let push = |list: &mut ListValue, value: &'static [u8]| {
            let push = ListPush {
                end: End::Back,
                values: vec![bytes::Bytes::from_static(value)],
                truncate_to: 0,
            };
            list.push(push, usize::MAX).unwrap();
        };
        let mut list = ListValue::default();
        push(&mut list, b"first");
        let mut bytes = ItemBytes::collection(b"key", Collections::List(list));
        assert_eq!(bytes.key(), b"key");
        assert_eq!(
            allocation_size(bytes.len()),
            ItemBytes::collection_allocation(3)
        );
        let Some(Collections::List(list)) = bytes.collection_mut() else {
            panic!("a list");
        };
        push(list, b"second");
        let Contents::Collection(Collections::List(list)) = bytes.contents() else {
            panic!("a list");
        };
        assert_eq!(list.len(), 2);
    }

    /// The collection rides in the item's one allocation: a short key's
    /// and the value's 72 bytes take the 80-byte class, where the key and
    /// a pointer took 32 and the collection's own box 64.
    #[test]
    fn a_collection_shares_its_keys_allocation() {
        let bytes = ItemBytes::collection(b"key:12345", Collections::Scalar(bytes::Bytes::new()));
        assert_eq!(bytes.len(), 16 + size_of::<Collections>());
        assert_eq!(ItemBytes::collection_allocation(9), 80);
        assert_eq!(ItemBytes::collection_allocation(15), 80);
        assert_eq!(ItemBytes::collection_allocation(16), 80);
        assert_eq!(ItemBytes::collection_allocation(24), 96);
    }

    #[test]
    fn a_relocated_item_keeps_its_key_value_and_collection() {
        use crate::backend::{End, ListPush};
        use crate::store::list::ListValue;

        let mut scalar = ItemBytes::scalar(b"key", &[7u8; 100]);
        let before = scalar.address();
        scalar.relocate();
        assert_ne!(scalar.address(), before);
        assert_eq!(scalar.key(), b"key");
        assert!(matches!(scalar.contents(), Contents::Scalar(v) if v == [7u8; 100]));

        let mut list = ListValue::default();
        let values = (0..50).map(|n| bytes::Bytes::from(vec![n; 40])).collect();
        let push = ListPush {
            end: End::Back,
            values,
            truncate_to: 0,
        };
        list.push(push, usize::MAX).unwrap();
        let mut item = ItemBytes::collection(b"list", Collections::List(list));
        item.relocate();
        assert_eq!(item.key(), b"list");
        // Still owned, usable and dropped once (Miri and ASan would see a
        // double free or a use after free here).
        let Some(Collections::List(list)) = item.collection_mut() else {
            panic!("a list");
        };
        assert_eq!(list.len(), 50);
        let push = ListPush {
            end: End::Front,
            values: vec![bytes::Bytes::from_static(b"first")],
            truncate_to: 0,
        };
        list.push(push, usize::MAX).unwrap();
        assert_eq!(list.len(), 51);
    }

    #[test]
    fn it_takes_twelve_bytes() {
        assert_eq!(size_of::<ItemBytes>(), 12);
        assert_eq!(std::mem::align_of::<ItemBytes>(), 4);
    }
}
