//! What the store charges for the bytes it holds: allocator size classes,
//! the headers `bytes` leaves behind, the measured structure of each
//! collection type, and when a structure should give room back. Its own
//! module so that the value enum, each collection type and the shards all
//! read these numbers without depending on one another.

/// The header `bytes` allocates (24 bytes, the 32-byte class) the first
/// time a stored value is cloned, kept for as long as the value lives.
/// Collections' reads never clone a stored part (they copy it out, see
/// `answer::Copier`), so only a scalar's read handle pays it.
pub const SHARED_HEADER: u64 = 32;

/// Bytes charged per element, on top of its parts ([`part_cost`]), by the
/// types whose structure is not charged by its capacity (lists, sets and
/// sorted sets are: see `list.rs`, `set.rs`, `sorted_large.rs`):
///
/// - a dictionary entry: a `HashMap<Bytes, Bytes>` slot, 64 bytes and a
///   control byte, at a load between 7/16 and 7/8 (74 to 149 bytes), and
///   the table's allocation rounding: `bench/memory` measures 139 bytes
///   beyond the parts for one dictionary of 1,000,000 entries (a load of
///   0.48): 128;
pub const DICTIONARY_ENTRY_OVERHEAD: u64 = 128;

/// What `len` bytes of one element part are charged.
pub fn part_cost(len: usize) -> u64 {
    allocation_size(len) as u64
}

/// The bytes an allocator really hands out for `len` bytes: jemalloc-style
/// size classes, 16 bytes apart up to 128, then four per doubling (160, 192,
/// 224, 256, 320, ...). Charging the class rather than the length keeps the
/// cap honest for values that fall just over a class boundary (up to 25% more).
pub fn allocation_size(len: usize) -> usize {
    match len {
        0 => 0,
        1..=128 => len.next_multiple_of(16),
        _ => {
            let floor_log2 = usize::BITS - 1 - (len - 1).leading_zeros();
            len.next_multiple_of(1 << (floor_log2 - 2))
        }
    }
}

/// What a hashbrown table with room for `capacity` entries of `slot` bytes
/// allocates: per bucket a slot and a control byte, plus a group of control
/// bytes (a table holds 7/8 of its buckets, or one less than their number
/// below 8).
pub fn table_bytes(capacity: usize, slot: usize) -> usize {
    let buckets = match capacity {
        0 => return 0,
        1..=6 => capacity + 1,
        _ => capacity / 7 * 8,
    };
    allocation_size(buckets * (slot + 1) + 16)
}

/// The room a collection's structure (a vector, a queue, a hash table) of
/// `capacity` slots holding `len` should shrink to, if any: none held, or
/// half its room once it holds under a quarter of it. None of them shrinks
/// by itself, so one grown to a million elements and cut to a few would
/// hold the million's room; past 64 slots, so small ones do not churn.
pub fn shrunk_room(len: usize, capacity: usize) -> Option<usize> {
    (len == 0 && capacity > 0 || capacity > 64 && len * 4 < capacity).then_some(len * 2)
}

#[cfg(test)]
mod allocation_size_tests {
    use super::allocation_size;

    #[test]
    fn rounds_up_to_size_classes() {
        let cases = [
            (0, 0),
            (1, 16),
            (100, 112),
            (128, 128),
            (129, 160),
            (1000, 1024),
        ];
        for (len, class) in cases
            .into_iter()
            .chain([(4000, 4096), (16000, 16384), (16385, 20480)])
        {
            assert_eq!(allocation_size(len), class, "{len}");
        }
    }
}
