//! An item's own allocation: a varint of the key's length (and whether the
//! item is a collection), then the key, then a small scalar's value or a
//! pointer to the item's boxed collection; held as a pointer and a `u32`
//! length in 12 bytes.
//!
//! Why by hand: a `Bytes` takes 32 bytes of every slab slot, a `Box<[u8]>`
//! 16 (with an 8-byte length no item needs), and a collection's box 8 more
//! beside it. Packed to 4-byte alignment, the pointer and a `u32` length
//! share a slot's words with its other 4-byte fields; the key's length (a
//! byte for a key under 64 bytes) and a collection's pointer ride in the
//! allocation, usually within its size class (`shard::Entry` is 40 bytes,
//! where it was 72). No crate keeps a boxed slice's length beside it in 4
//! bytes: `thin-vec` puts a 16-byte header (length and capacity) in the
//! allocation, which a small item pays in full.
//!
//! Never shared: reads copy a value out of it (at most
//! `cost::COPIED_VALUE` bytes); a larger value is kept apart, as a `Bytes`
//! that reads share (`value::Collections::Scalar`).

use std::mem::size_of;
use std::ptr::NonNull;

use prost::encoding::{decode_varint, encode_varint, encoded_len_varint};

use super::cost::allocation_size;
use super::value::Collections;

/// The owned allocation of one item. Unaligned fields (`packed(4)`) are
/// only ever read by value, never referenced.
#[repr(C, packed(4))]
pub struct ItemBytes {
    /// From `Box::leak` of a `Box<[u8]>` of `len` bytes, owned.
    ptr: NonNull<u8>,
    len: u32,
}

/// What an item holds, as [`ItemBytes::contents`] reads it.
pub(super) enum Contents<'a> {
    Scalar(&'a [u8]),
    Collection(&'a Collections),
}

/// The low bit of the leading varint: the item is a collection, and the
/// allocation ends with the pointer to its box.
const COLLECTION: u64 = 1;

const POINTER: usize = size_of::<*mut Collections>();

// SAFETY: `ItemBytes` owns its bytes as a `Box<[u8]>` does and a
// collection's box as a `Box<Collections>` does, both `Send`.
unsafe impl Send for ItemBytes {}

impl ItemBytes {
    /// A scalar item's: `key`, then `value`.
    pub(super) fn scalar(key: &[u8], value: &[u8]) -> ItemBytes {
        ItemBytes::new(key, 0, value)
    }

    /// A collection item's: `key`, then the pointer to `collection`, which
    /// it owns from now on.
    pub(super) fn collection(key: &[u8], collection: Box<Collections>) -> ItemBytes {
        let pointer = Box::into_raw(collection) as usize;
        ItemBytes::new(key, COLLECTION, &pointer.to_ne_bytes())
    }

    fn new(key: &[u8], kind: u64, rest: &[u8]) -> ItemBytes {
        let head = (key.len() as u64) << 1 | kind;
        let mut bytes = Vec::with_capacity(encoded_len_varint(head) + key.len() + rest.len());
        encode_varint(head, &mut bytes);
        bytes.extend_from_slice(key);
        bytes.extend_from_slice(rest);
        // `with_capacity` of the exact length: `into_boxed_slice` does not
        // reallocate.
        let bytes = bytes.into_boxed_slice();
        let len = u32::try_from(bytes.len()).expect("an item is shorter than 4 GiB");
        let ptr = NonNull::from(Box::leak(bytes)).cast::<u8>();
        ItemBytes { ptr, len }
    }

    /// What the allocation of a scalar of a key of `key_len` and a value of
    /// `value_len` bytes takes, at allocator size class.
    pub(super) fn scalar_allocation(key_len: usize, value_len: usize) -> usize {
        allocation_size(encoded_len_varint((key_len as u64) << 1) + key_len + value_len)
    }

    /// [`Self::scalar_allocation`] of a collection's, beside its box.
    pub(super) fn collection_allocation(key_len: usize) -> usize {
        Self::scalar_allocation(key_len, POINTER)
    }

    /// Bytes allocated: what the item is charged for them.
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    fn as_slice(&self) -> &[u8] {
        let (ptr, len) = (self.ptr, self.len);
        // SAFETY: `ptr` and `len` are those of the boxed slice `new` leaked,
        // owned by `self` until `drop`.
        unsafe { std::slice::from_raw_parts(ptr.as_ptr(), len as usize) }
    }

    /// The leading varint, the key, and what follows it.
    fn split(&self) -> (u64, &[u8], &[u8]) {
        let mut rest = self.as_slice();
        let head = match rest.split_first() {
            // A key under 64 bytes: the varint is its first byte. Every
            // lookup, write and charge reads it, so not through `Buf`.
            Some((&head, after)) if head < 0x80 => {
                rest = after;
                u64::from(head)
            }
            _ => decode_varint(&mut rest).expect("written by `new`"),
        };
        let (key, rest) = rest.split_at((head >> 1) as usize);
        (head, key, rest)
    }

    pub(super) fn key(&self) -> &[u8] {
        self.split().1
    }

    fn pointer(&self) -> Option<*mut Collections> {
        let (head, _, rest) = self.split();
        let pointer: [u8; POINTER] = rest.try_into().ok().filter(|_| head & COLLECTION != 0)?;
        Some(usize::from_ne_bytes(pointer) as *mut Collections)
    }

    pub(super) fn contents(&self) -> Contents<'_> {
        match self.pointer() {
            // SAFETY: the box `collection` leaked, owned by `self`, borrowed
            // for as long as `self` is.
            Some(pointer) => Contents::Collection(unsafe { &*pointer }),
            None => Contents::Scalar(self.split().2),
        }
    }

    pub(super) fn collection_mut(&mut self) -> Option<&mut Collections> {
        // SAFETY: as in `contents`, borrowed mutably for as long as `self` is.
        self.pointer().map(|pointer| unsafe { &mut *pointer })
    }
}

impl Drop for ItemBytes {
    fn drop(&mut self) {
        if let Some(pointer) = self.pointer() {
            // SAFETY: the box `collection` leaked, dropped once, here.
            drop(unsafe { Box::from_raw(pointer) });
        }
        let (ptr, len) = (self.ptr, self.len);
        let slice = std::ptr::slice_from_raw_parts_mut(ptr.as_ptr(), len as usize);
        // SAFETY: the boxed slice `new` leaked, dropped once, here.
        drop(unsafe { Box::from_raw(slice) });
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
        let mut bytes = ItemBytes::collection(b"key", Box::new(Collections::List(list)));
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

    #[test]
    fn it_takes_twelve_bytes() {
        assert_eq!(size_of::<ItemBytes>(), 12);
        assert_eq!(std::mem::align_of::<ItemBytes>(), 4);
    }
}
