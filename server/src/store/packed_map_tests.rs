//! The two forms of `packed_map.rs` and the moves between them, against
//! what they hold; and the driver of the collection files' callgrind
//! workloads.

use std::collections::BTreeMap;
use std::ops::Range;

use super::*;

/// Not a check: the start of the collection files' `callgrind_workload`s,
/// whose calls `valgrind --tool=callgrind --toggle-collect` counts
/// (bench/README.md, "Result after lean sets and dictionaries"). Fills
/// collections `key:0` to `key:999` with ten entries each and `key:1000`
/// with 100,000, a thousand at a time (`fill`), then makes `calls` 20,000
/// times, in turn on a small collection and on the large one.
pub(in crate::store) fn workload(
    mut fill: impl FnMut(&str, Range<usize>),
    mut calls: impl FnMut(&str, usize),
) {
    for key in 0..1_001 {
        let name = format!("key:{key}");
        let len = if key == 1_000 { 100_000 } else { 10 };
        for start in (0..len).step_by(1_000) {
            fill(&name, start..len.min(start + 1_000));
        }
    }
    for n in 0..20_000usize {
        let key = match n % 2 {
            0 => format!("key:{}", n % 1_000),
            _ => "key:1000".to_string(),
        };
        calls(&key, n);
    }
}

type Dictionary = PackedMap<2>;

fn field(n: usize) -> Vec<u8> {
    format!("field:{n}").into_bytes()
}

fn contents(map: &Dictionary) -> BTreeMap<Vec<u8>, Vec<u8>> {
    map.iter().map(|[f, v]| (f.to_vec(), v.to_vec())).collect()
}

#[test]
fn a_map_turns_large_past_a_bound_and_small_well_under_it() {
    let mut map = Dictionary::default();
    for n in 0..SMALL_LEN {
        assert_eq!(map.insert([&field(n), b"v"]), None);
    }
    assert!(map.is_small());
    map.insert([&field(SMALL_LEN), b"v"]);
    assert!(!map.is_small());
    map.assert_consistent();
    // One entry added and removed at the bound does not flip it back.
    for _ in 0..3 {
        assert_eq!(
            map.remove(&field(SMALL_LEN)),
            Some([field(SMALL_LEN).len(), 1])
        );
        assert!(!map.is_small());
        map.insert([&field(SMALL_LEN), b"v"]);
    }
    for n in SMALL_LEN / 2..=SMALL_LEN {
        map.remove(&field(n));
    }
    assert!(map.is_small(), "under half the bound: small");
    map.assert_consistent();
    assert_eq!(contents(&map).len(), SMALL_LEN / 2);
    // A value too long for a small run makes it large, however few.
    map.insert([b"long", &[7; SMALL_BYTES]]);
    assert!(!map.is_small());
    map.assert_consistent();
    map.remove(b"long");
    assert!(map.is_small());
    map.assert_consistent();
}

#[test]
fn values_replaced_by_longer_ones_leave_holes_that_are_reclaimed() {
    let mut map = Dictionary::default();
    for n in 0..1_000 {
        map.insert([&field(n), b"1"]);
    }
    let cost = map.cost();
    for round in 2..6 {
        let value = vec![b'v'; round];
        for n in 0..1_000 {
            assert_eq!(
                map.insert([&field(n), &value]),
                Some([field(n).len(), round - 1])
            );
            map.assert_consistent();
        }
    }
    // Same length: in place.
    let before = map.cost();
    for n in 0..1_000 {
        map.insert([&field(n), b"wwwww"]);
    }
    assert_eq!(map.cost(), before);
    assert!(map.cost() < 2 * cost, "{} after, {cost} before", map.cost());
    assert_eq!(map.get(&field(7)), Some([&field(7)[..], b"wwwww"]));
}

#[test]
fn removals_take_entries_by_id_and_give_room_back() {
    let mut map = PackedMap::<1>::default();
    for n in 0..10_000 {
        map.insert([&field(n)]);
    }
    let grown = map.cost();
    // The last id moves into each hole, so taking id 0 again and again
    // takes a different entry each time.
    let mut taken = std::collections::BTreeSet::new();
    for _ in 0..9_990 {
        let first = map.at(0)[0].to_vec();
        assert_eq!(map.remove_at(0), [first.len()]);
        assert!(taken.insert(first));
    }
    map.assert_consistent();
    assert!(map.is_small());
    assert!(map.cost() * 100 < grown, "{} of {grown}", map.cost());
    for n in 0..10_000 {
        assert_eq!(map.contains(&field(n)), !taken.contains(&field(n)));
    }
    map.clear();
    assert_eq!((map.len(), map.cost()), (0, 0));
}

#[test]
fn growth_covers_what_adding_adds() {
    let mut map = Dictionary::default();
    for n in 0..3_000usize {
        let entries: Vec<(Vec<u8>, Vec<u8>)> = (0..n % 7 + 1)
            .map(|i| (field(n * 3 + i % 4), vec![b'v'; n % 200]))
            .collect();
        let bytes = entries
            .iter()
            .map(|(f, v)| entry_len(f.len()) + entry_len(v.len()))
            .sum();
        let (before, growth) = (map.cost(), map.growth(entries.len(), bytes));
        for (f, v) in &entries {
            map.insert([f, v]);
        }
        assert!(map.cost() <= before + growth, "adding {n}");
    }
}

#[test]
fn the_room_charged_is_the_room_held() {
    // hashbrown's table for 3 holds 3 in 4 buckets; for 100, 112 in 128.
    let index = allocation_size(size_of::<Index>()) as u64;
    assert_eq!(index_cost(0, 0, ids_bytes(3)), index + 48);
    assert_eq!(
        index_cost(0, 0, ids_bytes(112)),
        index + allocation_size(128 * 5 + 16) as u64
    );
    // A large vector is charged the pages its offsets have taken, a high
    // mark that removals do not lower; nor do they lower the table's
    // charge, though the markers they leave lower its capacity.
    let offsets = |written: usize| index_cost(4096, written, 0) - index;
    assert_eq!(offsets(4096), 32_768);
    assert_eq!(offsets(2000), 16_384);
    assert_eq!(offsets(2049), 20_480);
    let mut map = PackedMap::<1>::default();
    for n in 0..3000u32 {
        map.insert([&n.to_le_bytes()[..]]);
    }
    let held = map.cost();
    for n in 0..100u32 {
        map.remove(&n.to_le_bytes());
    }
    assert!(
        map.cost() >= held,
        "{} after removals, {held} before",
        map.cost()
    );
    let mut table = HashTable::<u32>::new();
    for n in 0..1000 {
        let needed = table_capacity_for(table.capacity(), table.len() + 1);
        table.insert_unique(n as u64, n, |&n| n as u64);
        assert_eq!(table.capacity(), needed, "after {n}");
    }
}
