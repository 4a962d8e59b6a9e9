//! The entries of a set (one part each: the element) or of a dictionary
//! (two: the field, then its value), keyed by their first part and kept
//! packed (`packed.rs`: a varint length, then the bytes) rather than as a
//! `Bytes` (32 bytes and an allocation) per part. Two forms, as Redis's
//! listpack and hash table encodings:
//!
//! - **small**, up to [`SMALL_LEN`] entries and [`SMALL_BYTES`] bytes of
//!   them: the run and nothing else. An entry is found by a scan of the
//!   run that compares lengths before bytes: O(SMALL_LEN).
//! - **large**: the same run, grown, each entry's parts in it once (and the
//!   holes removed entries left), and an [`Index`]: each entry's offset in
//!   the run by a dense id, and a hash table of the ids by the hash of the
//!   entry's first part. Lookups are O(1). A removal moves the last id into
//!   the hole, so the ids stay `0..len` and a random entry is a random id.
//!
//! A small map past either bound becomes large (its run becomes the large
//! one's, indexed in O(n)); a large one back under half of both becomes
//! small (copied, O(SMALL_LEN)), so one entry added and removed at a bound
//! does not flip it. Removed entries' bytes stay in a large run until they
//! pass a quarter of it; then the live entries are copied into a run of
//! their size (O(n), paid for by the quarter of the run removed since the
//! last copy, so O(1) amortized per byte removed).
//!
//! What it holds is charged by capacity, read in O(1) ([`PackedMap::cost`]):
//! the run's buffer (a size class, holes included) and the index's box,
//! vector and table.

use std::hash::BuildHasher;
use std::sync::LazyLock;

use hashbrown::{DefaultHashBuilder, HashTable};

use super::cost::{allocation_size, resident_size, shrunk_room, table_bytes};
use super::packed::{entry_len, Packed};

/// The most entries a small map holds. A lookup in a small map scans up
/// to this many; Redis's `set-max-listpack-entries` and
/// `hash-max-listpack-entries` are 128. Half that keeps the scan short (a
/// read of one of up to 20 entries costs 50 to 300 instructions more than
/// a hash lookup: bench/README.md, "Result after lean sets and
/// dictionaries"), while the many small collections a cache holds, ten
/// elements or so, are each one run.
pub const SMALL_LEN: usize = 64;

/// The most bytes of entries a small map holds: a removal or replacement
/// moves the entries after it, and the run is reallocated class by class
/// as it grows, both bounded by this (Redis bounds each element instead, at
/// 64 bytes, with the same effect).
pub const SMALL_BYTES: usize = 4096;

/// The most entries any map holds: its ids are `u32`, four bytes a slot of
/// the table instead of eight.
pub const MAX_LEN: usize = u32::MAX as usize;

/// One randomly seeded hasher for every map: clients cannot aim entries at
/// one bucket, and a map carries no hasher of its own.
static HASHER: LazyLock<DefaultHashBuilder> = LazyLock::new(DefaultHashBuilder::default);

fn hash(key: &[u8]) -> u64 {
    HASHER.hash_one(key)
}

/// The charge of an index whose vector has room for `offsets`, of which
/// `written` have held one, and whose table allocates `table` bytes: the
/// box, what the vector holds resident ([`resident_size`]) and the table
/// (all of it: its control bytes are all written when it is made, its
/// slots at random).
fn index_cost(offsets: usize, written: usize, table: usize) -> u64 {
    let slot = size_of::<usize>();
    (allocation_size(size_of::<Index>())
        + resident_size(allocation_size(offsets * slot), written * slot)
        + table) as u64
}

/// The bytes a table of ids with room for `ids` allocates.
fn ids_bytes(ids: usize) -> usize {
    table_bytes(ids, size_of::<u32>())
}

/// What `index` is charged. The table's own count of what it allocates,
/// not its capacity: removals leave markers that lower its capacity, not
/// its allocation.
fn index_charge(index: &Index) -> u64 {
    let table = allocation_size(index.ids.allocation_size());
    index_cost(index.offsets.capacity(), index.written, table)
}

/// What a run holds resident: a large map's grows class by class and is
/// never cut short in place (removals leave holes; it is copied anew), so
/// its length is the high mark of what was written.
fn run_cost(run: &Packed) -> u64 {
    resident_size(run.cost() as usize, run.bytes_len()) as u64
}

/// The capacity a hash table that holds `capacity` grows to, to hold
/// `needed` entries inserted one at a time: its buckets double.
fn table_capacity_for(capacity: usize, needed: usize) -> usize {
    let capacity_of = |buckets: usize| {
        if buckets < 8 {
            buckets - 1
        } else {
            buckets / 8 * 7
        }
    };
    let mut buckets = match capacity {
        0 => 4,
        1..=6 => capacity + 1,
        _ => capacity / 7 * 8,
    };
    while capacity_of(buckets) < needed {
        buckets *= 2;
    }
    capacity_of(buckets)
}

/// The large form's index of the run.
#[derive(Debug, Default)]
struct Index {
    /// Where each entry starts in the run, by id.
    offsets: Vec<usize>,
    /// The ids, by the [`hash`] of their entry's first part.
    ids: HashTable<u32>,
    /// The bytes of removed entries still in the run.
    holes: usize,
    /// The most offsets the vector has held since it was last allocated:
    /// the slots written, resident, that removals do not give back.
    written: usize,
}

/// Where an entry is: its id (in a small map, its place in the run) and
/// the offset it starts at.
#[derive(Clone, Copy)]
struct Slot {
    id: usize,
    at: usize,
}

/// The first part of the entry at `at`.
fn key_at(run: &Packed, at: usize) -> &[u8] {
    run.part_at(at).0
}

#[derive(Debug, Default)]
pub struct PackedMap<const PARTS: usize> {
    run: Packed,
    /// None while small.
    index: Option<Box<Index>>,
}

impl<const PARTS: usize> PackedMap<PARTS> {
    pub fn len(&self) -> usize {
        match &self.index {
            None => self.run.count() / PARTS,
            Some(index) => index.offsets.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn cost(&self) -> u64 {
        run_cost(&self.run) + self.index.as_deref().map_or(0, index_charge)
    }

    /// At least what adding `added` entries of `bytes` bytes in all (each
    /// part's [`entry_len`]) adds to [`Self::cost`], replacing entries
    /// or not: the run's growth and, if the map is or becomes large, the
    /// index's (its vector doubles, so to under twice what it must hold).
    pub fn growth(&self, added: usize, bytes: usize) -> u64 {
        let len = self.len() + added;
        let (capacity, run_len) = (self.run.cost() as usize, self.run.bytes_len() + bytes);
        let grown = resident_size(capacity.max(allocation_size(run_len)), run_len);
        let run = grown as u64 - run_cost(&self.run);
        let (offsets, written, ids, before) = match &self.index {
            None if len <= SMALL_LEN && run_len <= SMALL_BYTES => return run,
            None => (0, 0, 0, 0),
            Some(i) => {
                let (offsets, ids) = (i.offsets.capacity(), i.ids.capacity());
                (
                    offsets,
                    i.written,
                    ids,
                    index_cost(offsets, i.written, ids_bytes(ids)),
                )
            }
        };
        let offsets = match len > offsets {
            true => (2 * len).max(4),
            false => offsets,
        };
        let ids = ids_bytes(table_capacity_for(ids, len));
        run + index_cost(offsets, written.max(len), ids) - before
    }

    /// The parts of the entry at `at`, and the offset past them.
    fn entry_at(&self, at: usize) -> ([&[u8]; PARTS], usize) {
        entry_in(&self.run, at)
    }

    fn find(&self, key: &[u8]) -> Option<Slot> {
        let Some(index) = &self.index else {
            let (mut id, mut at) = (0, 0);
            while at < self.run.bytes_len() {
                let (first, mut next) = self.run.part_at(at);
                for _ in 1..PARTS {
                    next = self.run.part_at(next).1;
                }
                if first == key {
                    return Some(Slot { id, at });
                }
                (id, at) = (id + 1, next);
            }
            return None;
        };
        let offsets = &index.offsets;
        let id = *index.ids.find(hash(key), |&id| {
            key_at(&self.run, offsets[id as usize]) == key
        })? as usize;
        Some(Slot {
            id,
            at: offsets[id],
        })
    }

    /// Where entry `id` (`< len`) is.
    fn slot(&self, id: usize) -> Slot {
        let at = match &self.index {
            Some(index) => index.offsets[id],
            None => (0..id).fold(0, |at, _| self.entry_at(at).1),
        };
        Slot { id, at }
    }

    pub fn contains(&self, key: &[u8]) -> bool {
        self.find(key).is_some()
    }

    /// The entry whose first part is `key`.
    pub fn get(&self, key: &[u8]) -> Option<[&[u8]; PARTS]> {
        Some(self.entry_at(self.find(key)?.at).0)
    }

    /// Entry `id` (`< len`): O(1) large, O(SMALL_LEN) small.
    pub fn at(&self, id: usize) -> [&[u8]; PARTS] {
        self.entry_at(self.slot(id).at).0
    }

    /// Every entry, in the order of their ids.
    pub fn iter(&self) -> impl Iterator<Item = [&[u8]; PARTS]> + '_ {
        let mut next = 0;
        (0..self.len()).map(move |id| {
            let at = match &self.index {
                Some(index) => index.offsets[id],
                None => next,
            };
            let (parts, after) = self.entry_at(at);
            next = after;
            parts
        })
    }

    /// Adds the entry, or replaces the one with its first part; answers
    /// the lengths of the parts of the one replaced. An entry equal to the
    /// one it would replace changes nothing.
    pub fn insert(&mut self, parts: [&[u8]; PARTS]) -> Option<[usize; PARTS]> {
        let Some(slot) = self.find(parts[0]) else {
            self.push(parts);
            return None;
        };
        let (old, end) = self.entry_at(slot.at);
        let (lengths, same) = (old.map(<[u8]>::len), old == parts);
        if !same {
            self.replace(slot, end, parts);
        }
        Some(lengths)
    }

    fn push(&mut self, parts: [&[u8]; PARTS]) {
        let at = self.run.bytes_len();
        self.run.append(&parts);
        match &mut self.index {
            Some(index) => {
                let id = index.offsets.len() as u32;
                index.offsets.push(at);
                index.written = index.written.max(index.offsets.len());
                let (run, offsets) = (&self.run, &index.offsets);
                let rehash = |&id: &u32| hash(key_at(run, offsets[id as usize]));
                index.ids.insert_unique(hash(parts[0]), id, rehash);
            }
            None => self.grown(),
        }
    }

    /// Replaces the entry at `slot`, which ends at `end`, with `parts`:
    /// in place when as long or when small, else written anew after the
    /// run, leaving a hole.
    fn replace(&mut self, slot: Slot, end: usize, parts: [&[u8]; PARTS]) {
        let added: usize = parts.iter().map(|part| entry_len(part.len())).sum();
        match &mut self.index {
            Some(index) if added != end - slot.at => {
                index.holes += end - slot.at;
                index.offsets[slot.id] = self.run.bytes_len();
                self.run.append(&parts);
                self.shrunk();
            }
            _ => {
                self.run.splice(slot.at..end, PARTS, &parts);
                self.grown();
            }
        }
    }

    /// Removes the entry whose first part is `key`; answers its parts'
    /// lengths.
    pub fn remove(&mut self, key: &[u8]) -> Option<[usize; PARTS]> {
        let slot = self.find(key)?;
        Some(self.remove_slot(slot))
    }

    /// Removes entry `id` (`< len`): the last one takes its id.
    pub fn remove_at(&mut self, id: usize) -> [usize; PARTS] {
        self.remove_slot(self.slot(id))
    }

    fn remove_slot(&mut self, slot: Slot) -> [usize; PARTS] {
        let (parts, end) = self.entry_at(slot.at);
        let lengths = parts.map(<[u8]>::len);
        let Self { run, index } = self;
        match index {
            None => run.splice::<&[u8]>(slot.at..end, PARTS, &[]),
            Some(index) => {
                index.holes += end - slot.at;
                let offsets = &index.offsets;
                let is = |id: usize| move |&found: &u32| found as usize == id;
                let removed = hash(key_at(run, slot.at));
                if let Ok(found) = index.ids.find_entry(removed, is(slot.id)) {
                    found.remove();
                }
                let last = offsets.len() - 1;
                if slot.id != last {
                    let moved = hash(key_at(run, offsets[last]));
                    if let Some(moved) = index.ids.find_mut(moved, is(last)) {
                        *moved = slot.id as u32;
                    }
                }
                index.offsets.swap_remove(slot.id);
            }
        }
        self.shrunk();
        lengths
    }

    /// After an entry grew a small map: past a bound, it becomes large.
    fn grown(&mut self) {
        if self.index.is_some()
            || self.run.count() <= SMALL_LEN * PARTS && self.run.bytes_len() <= SMALL_BYTES
        {
            return;
        }
        let len = self.len();
        let mut offsets = Vec::with_capacity(len);
        let mut ids = HashTable::with_capacity(len);
        let mut at = 0;
        for id in 0..len as u32 {
            offsets.push(at);
            let rehash = |&id: &u32| hash(key_at(&self.run, offsets[id as usize]));
            ids.insert_unique(hash(key_at(&self.run, at)), id, rehash);
            at = self.entry_at(at).1;
        }
        self.index = Some(Box::new(Index {
            offsets,
            ids,
            holes: 0,
            written: len,
        }));
    }

    /// After an entry left (or, large, was written anew): a large map back
    /// under half of both bounds becomes small; one whose holes pass a
    /// quarter of its run is copied without them; a structure holding
    /// under a quarter of its room gives half of it back ([`shrunk_room`]).
    fn shrunk(&mut self) {
        let Self { run, index } = self;
        let Some(large) = index else {
            run.fit();
            return;
        };
        let live = run.bytes_len() - large.holes;
        if large.offsets.len() <= SMALL_LEN / 2 && live <= SMALL_BYTES / 2 {
            *run = copy_live::<PARTS>(run, &mut large.offsets, live);
            *index = None;
            return;
        }
        if large.holes * 4 > run.bytes_len() {
            *run = copy_live::<PARTS>(run, &mut large.offsets, live);
            large.holes = 0;
        }
        if let Some(room) = shrunk_room(large.offsets.len(), large.offsets.capacity()) {
            let offsets = &mut large.offsets;
            offsets.shrink_to(room);
            large.written = large.written.min(offsets.capacity());
            let rehash = |&id: &u32| hash(key_at(run, offsets[id as usize]));
            large.ids.shrink_to(room, rehash);
        }
    }

    /// Empties it, giving back all it holds.
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

/// The parts of the entry at `at` in `run`, and the offset past them.
fn entry_in<const PARTS: usize>(run: &Packed, at: usize) -> ([&[u8]; PARTS], usize) {
    let mut next = at;
    let parts = std::array::from_fn(|_| {
        let (part, after) = run.part_at(next);
        next = after;
        part
    });
    (parts, next)
}

/// The live entries of `run` at `offsets`, `live` bytes of them, copied
/// into a run of their size in the order of `offsets`, which then name
/// where each is in the new run.
fn copy_live<const PARTS: usize>(run: &Packed, offsets: &mut [usize], live: usize) -> Packed {
    let mut copy = Packed::with_room(live);
    for offset in offsets {
        let (parts, _) = entry_in::<PARTS>(run, *offset);
        *offset = copy.bytes_len();
        copy.append(&parts);
    }
    copy
}

#[cfg(test)]
impl<const PARTS: usize> PackedMap<PARTS> {
    pub fn is_small(&self) -> bool {
        self.index.is_none()
    }

    /// Its form within its bounds, its index naming every entry once at
    /// the right offset, its holes what the run holds beyond the entries,
    /// and its cost what it holds.
    pub fn assert_consistent(&self) {
        let live: usize = self
            .iter()
            .map(|parts| parts.iter().map(|p| entry_len(p.len())).sum::<usize>())
            .sum();
        let room = run_cost(&self.run);
        match &self.index {
            None => {
                assert_eq!(self.run.count() % PARTS, 0);
                assert_eq!(live, self.run.bytes_len());
                assert!(
                    self.len() <= SMALL_LEN && live <= SMALL_BYTES,
                    "a small map past its bounds"
                );
                assert_eq!(self.cost(), room);
            }
            Some(index) => {
                assert_eq!(index.holes, self.run.bytes_len() - live);
                assert!(index.holes * 4 <= self.run.bytes_len(), "holes left");
                assert!(
                    self.len() > SMALL_LEN / 2 || live > SMALL_BYTES / 2,
                    "a large map under half the bounds"
                );
                assert_eq!(index.ids.len(), index.offsets.len());
                for (id, parts) in self.iter().enumerate() {
                    let slot = self.find(parts[0]).expect("every entry found by its key");
                    assert_eq!((slot.id, slot.at), (id, index.offsets[id]));
                }
                let index_room = index_charge(index);
                assert_eq!(self.cost(), room + index_room);
            }
        }
    }
}

#[cfg(test)]
#[path = "packed_map_tests.rs"]
pub(in crate::store) mod tests;
