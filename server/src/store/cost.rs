//! What the store charges for the bytes it holds: allocator size classes,
//! the headers `bytes` leaves behind, the measured structure of each
//! collection type, and when a structure should give room back. Its own
//! module so that the value enum, each collection type and the shards all
//! read these numbers without depending on one another.

/// The header `bytes` allocates (24 bytes, the 32-byte class) the first
/// time a stored value is cloned, kept for as long as the value lives.
/// Reads of collections never clone a stored part (they copy it out, see
/// `answer::Copier`), nor do reads of small scalars ([`COPIED_VALUE`]),
/// so only a large scalar's read handle pays it.
pub const SHARED_HEADER: u64 = 32;

/// The largest scalar value a read copies out rather than handing out a
/// handle on the stored allocation. A handle's first clone promotes the
/// stored `Bytes`, allocating [`SHARED_HEADER`], which stays as long as the
/// item, read or not; a copy leaves nothing behind. A copy this small is
/// paid by the call's own in-flight charge (`in_flight::SMALL_ANSWER`), so
/// clients that never read their answers cannot multiply a value through
/// copies; a larger value is kept as a `Bytes` and handed out as a handle,
/// so its memory is counted once, by the store. Up to this size a copy (an
/// allocation and a `memcpy`) costs about what the handle's atomic
/// increment and decrement do; at 4 KiB, twice as much (bench/README.md,
/// "Result after a leaner scalar entry").
pub const COPIED_VALUE: usize = 2048;

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

/// The smallest of jemalloc's "large" size classes: an allocation of at
/// least this many bytes takes whole pages of its own, and a page of it
/// nothing has written yet is not resident. Smaller ones share their
/// pages with others of their class.
pub const LARGE_ALLOCATION: usize = 16 * 1024;

/// The page a large allocation is mapped by.
const PAGE: usize = 4096;

/// What an allocation of `capacity` bytes (a size class) holds resident
/// once its first `written` bytes have been written: all of it below
/// [`LARGE_ALLOCATION`], else the pages written. A buffer that grows one
/// size class at a time (up to a quarter more each) leaves most of its
/// last class unwritten until it fills; charging that room would charge a
/// large run up to a quarter more than it holds. `written` must be a high
/// mark: bytes written and later dropped stay resident.
pub fn resident_size(capacity: usize, written: usize) -> usize {
    match capacity {
        0..LARGE_ALLOCATION => capacity,
        _ => written.next_multiple_of(PAGE).min(capacity),
    }
}

/// What a hashbrown table with room for `capacity` entries of `slot` bytes
/// allocates: per bucket a slot (the slots aligned to 16 bytes) and a
/// control byte, plus a group of control bytes (a table holds 7/8 of its
/// buckets, or one less than their number below 8).
pub fn table_bytes(capacity: usize, slot: usize) -> usize {
    let buckets = match capacity {
        0 => return 0,
        1..=6 => capacity + 1,
        _ => capacity / 7 * 8,
    };
    allocation_size((buckets * slot).next_multiple_of(16) + buckets + 16)
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
mod resident_size_tests {
    use super::{resident_size, LARGE_ALLOCATION};

    #[test]
    fn a_large_allocation_holds_the_pages_written() {
        assert_eq!(resident_size(14_336, 10), 14_336);
        assert_eq!(resident_size(LARGE_ALLOCATION, 10), 4096);
        assert_eq!(resident_size(40_960, 33_000), 36_864);
        assert_eq!(resident_size(40_960, 40_960), 40_960);
        assert_eq!(resident_size(40_960, 0), 0);
    }
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
