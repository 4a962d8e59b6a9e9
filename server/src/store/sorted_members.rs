//! The members of a large sorted set, each stored once, by slot: a `u32`
//! that the member index and the score order hold instead of a copy or a
//! handle of the member (`sorted_large.rs`).
//!
//! Slots are grouped [`PAGE_SLOTS`] to a page. A page is one buffer of
//! entries (the score's eight bytes, a varint length, the member), each at
//! an offset kept per slot; a new entry goes at the end of its slot's page.
//! A removed entry leaves a hole until holes are half its page, which is
//! then rewritten without them, and its slot is handed out again by the
//! next insertion. A page is allocated at a size class, grown class by
//! class, so what the pages hold is known exactly ([`Members::heap_bytes`]).
//!
//! Costs: reading a member or a score O(1); an insertion O(1) amortized (a
//! page grows by a copy of it); a removal O(1) amortized (a page is
//! rewritten once its holes are half of it). The slots of a set cut to a
//! quarter of them are renumbered by the set (`Large::fit`).
//!
//! An offset is a `u32`: a page holds at most [`PAGE_SLOTS`] members and
//! as many bytes of holes, so members up to 32 MiB each fit (the
//! configured `--max-value-size` bounds them; 5 MiB by default).

use std::mem::size_of;

use prost::encoding::{decode_varint, encode_varint};

use super::cost::allocation_size;
use super::packed::entry_len;

/// Slots per page: a page of `member:N`-sized members is about 1.5 KiB,
/// rewritten whole when half of it is holes.
pub const PAGE_SLOTS: usize = 64;

/// The offset of a slot that holds no member.
const FREE: u32 = u32::MAX;

/// The bytes of a score in an entry.
const SCORE_BYTES: usize = 8;

#[derive(Debug, Default)]
struct Page {
    bytes: Vec<u8>,
    /// The bytes of removed entries still in `bytes`.
    holes: usize,
}

#[derive(Debug, Default)]
pub struct Members {
    /// Slot `s` is in page `s / PAGE_SLOTS`.
    pages: Vec<Page>,
    /// Each slot's entry's offset in its page, or [`FREE`].
    offsets: Vec<u32>,
    /// The slots without a member; the next insertion takes the last.
    free: Vec<u32>,
    /// The sum of the pages' allocations.
    pages_bytes: usize,
}

impl Members {
    pub fn with_capacity(members: usize) -> Members {
        Members {
            pages: Vec::with_capacity(members.div_ceil(PAGE_SLOTS)),
            offsets: Vec::with_capacity(members),
            ..Members::default()
        }
    }

    /// The slots handed out, with or without a member.
    pub fn slots(&self) -> usize {
        self.offsets.len()
    }

    /// What the pages, the offsets and the free list allocate.
    pub fn heap_bytes(&self) -> usize {
        self.pages_bytes
            + allocation_size(self.pages.capacity() * size_of::<Page>())
            + allocation_size(self.offsets.capacity() * size_of::<u32>())
            + allocation_size(self.free.capacity() * size_of::<u32>())
    }

    /// The entry of `slot`, which must hold a member: its page's bytes from
    /// the entry on.
    fn entry(&self, slot: u32) -> &[u8] {
        let offset = self.offsets[slot as usize];
        debug_assert_ne!(offset, FREE, "slot {slot} holds no member");
        &self.pages[slot as usize / PAGE_SLOTS].bytes[offset as usize..]
    }

    pub fn member(&self, slot: u32) -> &[u8] {
        let mut rest = &self.entry(slot)[SCORE_BYTES..];
        // Written by `insert`, so always a whole varint and member.
        let len = decode_varint(&mut rest).expect("a member's length") as usize;
        &rest[..len]
    }

    pub fn score(&self, slot: u32) -> f64 {
        let bytes = self.entry(slot)[..SCORE_BYTES].try_into();
        f64::from_le_bytes(bytes.expect("eight bytes"))
    }

    pub fn set_score(&mut self, slot: u32, score: f64) {
        let offset = self.offsets[slot as usize] as usize;
        let page = &mut self.pages[slot as usize / PAGE_SLOTS];
        page.bytes[offset..offset + SCORE_BYTES].copy_from_slice(&score.to_le_bytes());
    }

    /// Stores `member` with `score`; answers its slot.
    pub fn insert(&mut self, member: &[u8], score: f64) -> u32 {
        let slot = self.free.pop().unwrap_or_else(|| {
            if self.offsets.len().is_multiple_of(PAGE_SLOTS) {
                self.pages.push(Page::default());
            }
            self.offsets.push(FREE);
            u32::try_from(self.offsets.len() - 1).expect("at most u32::MAX members")
        });
        let page = &mut self.pages[slot as usize / PAGE_SLOTS];
        let needed = page.bytes.len() + SCORE_BYTES + entry_len(member.len());
        if needed > page.bytes.capacity() {
            let before = allocation_size(page.bytes.capacity());
            page.bytes
                .reserve_exact(allocation_size(needed) - page.bytes.len());
            self.pages_bytes += allocation_size(page.bytes.capacity()) - before;
        }
        let offset = u32::try_from(page.bytes.len()).expect("a page under 4 GiB");
        page.bytes.extend_from_slice(&score.to_le_bytes());
        encode_varint(member.len() as u64, &mut page.bytes);
        page.bytes.extend_from_slice(member);
        self.offsets[slot as usize] = offset;
        slot
    }

    /// Frees `slot`, which must hold a member.
    pub fn remove(&mut self, slot: u32) {
        let len = SCORE_BYTES + entry_len(self.member(slot).len());
        self.offsets[slot as usize] = FREE;
        self.free.push(slot);
        let number = slot as usize / PAGE_SLOTS;
        let page = &mut self.pages[number];
        page.holes += len;
        if page.holes * 2 > page.bytes.len() {
            self.rewrite(number);
        }
    }

    /// Page `number` without its holes, in a buffer of the size class of
    /// its entries (none when it has none).
    fn rewrite(&mut self, number: usize) {
        let page = &self.pages[number];
        let live = page.bytes.len() - page.holes;
        let mut bytes = Vec::with_capacity(allocation_size(live));
        let first = number * PAGE_SLOTS;
        let last = self.offsets.len().min(first + PAGE_SLOTS);
        for slot in first..last {
            let offset = self.offsets[slot];
            if offset == FREE {
                continue;
            }
            let member = self.member(slot as u32).len();
            let at = bytes.len() as u32;
            bytes.extend_from_slice(&self.entry(slot as u32)[..SCORE_BYTES + entry_len(member)]);
            self.offsets[slot] = at;
        }
        let page = &mut self.pages[number];
        self.pages_bytes -= allocation_size(page.bytes.capacity());
        self.pages_bytes += allocation_size(bytes.capacity());
        *page = Page { bytes, holes: 0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_come_back_by_slot_and_holes_are_rewritten_away() {
        let mut members = Members::default();
        let name = |i: usize| format!("member:{i}").into_bytes();
        let slots: Vec<u32> = (0..200)
            .map(|i| members.insert(&name(i), i as f64))
            .collect();
        assert_eq!(members.slots(), 200);
        for (i, &slot) in slots.iter().enumerate() {
            assert_eq!(members.member(slot), name(i));
            assert_eq!(members.score(slot), i as f64);
        }
        members.set_score(slots[7], -0.5);
        assert_eq!(members.score(slots[7]), -0.5);
        let full = members.heap_bytes();
        // Most of the first page removed: it is rewritten smaller.
        for &slot in &slots[..60] {
            members.remove(slot);
        }
        assert!(members.heap_bytes() < full);
        assert_eq!(members.member(slots[60]), name(60));
        // Freed slots are handed out again, last freed first.
        let again = members.insert(b"again", 1.0);
        assert_eq!(again, slots[59]);
        assert_eq!(members.member(again), b"again");
        assert_eq!(members.slots(), 200);
        for &slot in &slots[60..] {
            members.remove(slot);
        }
        members.remove(again);
        let empty: usize = members.pages.iter().map(|p| p.bytes.capacity()).sum();
        assert_eq!(empty, 0);
        assert_eq!(members.pages_bytes, 0);
    }
}
