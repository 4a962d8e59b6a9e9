//! The list's unit tests: each call, the layout of chunks, the charge,
//! and random changes against a model.

use super::*;
use crate::backend::ListRange;

const NO_LIMIT: usize = usize::MAX;

fn list(values: &[&str]) -> ListValue {
    let mut list = ListValue::default();
    list.push(push(End::Back, values, 0), NO_LIMIT).unwrap();
    list
}

fn push(end: End, values: &[&str], truncate_to: u32) -> ListPush {
    let values = values
        .iter()
        .map(|v| Bytes::copy_from_slice(v.as_bytes()))
        .collect();
    ListPush {
        end,
        values,
        truncate_to,
    }
}

fn contents(list: &ListValue) -> Vec<String> {
    list.values()
        .map(|v| String::from_utf8(v.to_vec()).unwrap())
        .collect()
}

/// The charge and answer size kept incrementally equal those
/// recomputed from scratch, and the chunks are as laid out: none
/// empty, none over [`CHUNK_BYTES`] of entries or [`CHUNK_VALUE_BYTES`] of
/// values but a lone value, their counts adding up to the length.
fn assert_cost_is_exact(list: &ListValue) {
    let encoded: u64 = list.values().map(|v| repeated_len(v.len())).sum();
    assert_eq!(list.encoded, encoded);
    let room: u64 = list.chunks.iter().map(FrontCoded::cost).sum();
    assert_eq!(list.room, room);
    assert_eq!(list.cost(), room + queue_cost(list.chunks.capacity()));
    for chunk in &list.chunks {
        assert!(!chunk.is_empty());
        assert!(chunk.bytes_len() <= CHUNK_BYTES || chunk.count() == 1);
        assert!(chunk.values_len() <= CHUNK_VALUE_BYTES || chunk.count() == 1);
        assert!(chunk.count() <= CHUNK_VALUES);
    }
    let counted: usize = list.chunks.iter().map(FrontCoded::count).sum();
    assert_eq!(counted, list.len);
    assert_eq!(list.values().count(), list.len);
}

fn slice(start: Option<i32>, end: Option<i32>) -> ListSlice {
    ListSlice { start, end }
}

#[test]
fn concatenation_keeps_the_order_of_the_values_at_either_end() {
    let mut l = list(&["x"]);
    assert_eq!(l.push(push(End::Front, &["a", "b"], 0), NO_LIMIT), Ok(3));
    assert_eq!(l.push(push(End::Back, &["c", "d"], 0), NO_LIMIT), Ok(5));
    assert_eq!(contents(&l), ["a", "b", "x", "c", "d"]);
    assert_cost_is_exact(&l);
}

#[test]
fn truncation_drops_from_the_other_end_after_the_write() {
    // As the official suites expect: three pushes capped at two.
    let mut back = ListValue::default();
    let mut front = ListValue::default();
    for v in ["one", "two", "three"] {
        back.push(push(End::Back, &[v], 2), NO_LIMIT).unwrap();
        front.push(push(End::Front, &[v], 2), NO_LIMIT).unwrap();
    }
    assert_eq!(contents(&back), ["two", "three"]);
    assert_eq!(contents(&front), ["three", "two"]);

    let mut l = list(&["one", "two", "three"]);
    let len = l.push(push(End::Front, &["four", "five", "six"], 4), NO_LIMIT);
    assert_eq!(len, Ok(4));
    assert_eq!(contents(&l), ["four", "five", "six", "one"]);
    assert_cost_is_exact(&l);
}

#[test]
fn truncation_below_the_values_written_keeps_the_last_written() {
    let mut l = list(&["old"]);
    let len = l.push(push(End::Back, &["a", "b", "c"], 2), NO_LIMIT);
    assert_eq!(len, Ok(2));
    assert_eq!(contents(&l), ["b", "c"]);
    assert_cost_is_exact(&l);
}

#[test]
fn a_write_past_the_element_limit_changes_nothing() {
    let mut l = list(&["a", "b"]);
    let before = l.cost();
    assert_eq!(
        l.push(push(End::Back, &["c", "d"], 0), 3),
        Err(Error::CollectionTooLarge {
            elements: 4,
            limit: 3
        })
    );
    assert_eq!(contents(&l), ["a", "b"]);
    assert_eq!(l.cost(), before);
    // Capped by truncation, the same write fits.
    assert_eq!(l.push(push(End::Back, &["c", "d"], 3), 3), Ok(3));
    assert_eq!(contents(&l), ["b", "c", "d"]);
}

#[test]
fn pops_take_from_either_end_until_empty() {
    let mut l = list(&["a", "b", "c"]);
    assert_eq!(l.pop(End::Front).as_deref(), Some(&b"a"[..]));
    assert_eq!(l.pop(End::Back).as_deref(), Some(&b"c"[..]));
    assert_cost_is_exact(&l);
    assert_eq!(l.pop(End::Back).as_deref(), Some(&b"b"[..]));
    assert_eq!(l.pop(End::Front), None);
    assert!(l.is_empty());
    assert_eq!(l.cost(), 0);
}

#[test]
fn fetch_slices_as_python_does() {
    let l = list(&["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
    let fetched = |start, end| -> Vec<String> {
        l.fetch(slice(start, end))
            .iter()
            .map(|v| String::from_utf8(v.to_vec()).unwrap())
            .collect()
    };
    // The table of examples in the public cacheclient.proto.
    assert_eq!(fetched(None, None).len(), 10);
    assert_eq!(fetched(Some(5), None), ["5", "6", "7", "8", "9"]);
    assert!(fetched(Some(5), Some(0)).is_empty());
    assert_eq!(fetched(Some(-5), None), ["5", "6", "7", "8", "9"]);
    assert!(fetched(Some(-5), Some(0)).is_empty());
    assert_eq!(fetched(None, Some(5)), ["0", "1", "2", "3", "4"]);
    assert_eq!(fetched(Some(0), Some(-5)), ["0", "1", "2", "3", "4"]);
    assert_eq!(fetched(Some(2), Some(6)), ["2", "3", "4", "5"]);
    assert_eq!(fetched(Some(2), Some(-6)), ["2", "3"]);
    assert_eq!(fetched(Some(-7), Some(-2)), ["3", "4", "5", "6", "7"]);
    assert!(fetched(Some(-2), Some(-6)).is_empty());
    assert!(fetched(Some(0), Some(0)).is_empty());
    // Out of range on either side: clipped, never an error.
    assert_eq!(fetched(Some(-100), Some(2)), ["0", "1"]);
    assert_eq!(fetched(Some(8), Some(100)), ["8", "9"]);
    assert!(fetched(Some(100), None).is_empty());
    assert!(fetched(Some(i32::MIN), Some(i32::MIN)).is_empty());
    assert_eq!(fetched(Some(i32::MIN), Some(i32::MAX)).len(), 10);

    let one = list(&["a"]);
    assert_eq!(one.fetch(slice(Some(-1), Some(1))).len(), 1);
    assert!(one.fetch(slice(Some(1), Some(-1))).is_empty());
    assert!(one.fetch(slice(Some(0), Some(-1))).is_empty());
}

#[test]
fn retain_keeps_the_slice_and_may_empty_the_list() {
    let mut l = list(&["a", "b", "c", "d", "e", "f"]);
    assert_eq!(l.retain(slice(Some(1), Some(4))), 3);
    assert_eq!(contents(&l), ["b", "c", "d"]);
    assert_cost_is_exact(&l);
    assert_eq!(l.retain(slice(Some(-1), None)), 1);
    assert_eq!(contents(&l), ["d"]);
    assert_eq!(l.retain(slice(None, None)), 1);
    assert_eq!(l.retain(slice(Some(999), Some(1000))), 0);
    assert_eq!(l.cost(), 0);
}

#[test]
fn remove_value_removes_every_occurrence() {
    let mut l = list(&["number 9", "that", "number 9", "this", "number 9"]);
    assert_eq!(l.remove_value(b"number 9"), 2);
    assert_eq!(contents(&l), ["that", "this"]);
    assert_cost_is_exact(&l);
    assert_eq!(l.remove_value(b"absent"), 2);
    assert_eq!(l.remove_value(b"that"), 1);
    assert_eq!(l.remove_value(b"this"), 0);
    assert_eq!(l.cost(), 0);
}

#[test]
fn erase_removes_ranges_of_the_list_as_it_was() {
    let range = |begin, count| ListRange { begin, count };
    let mut l = list(&["0", "1", "2", "3", "4", "5", "6"]);
    // Overlapping, unordered, and one past the end.
    let erase = ListErase::Ranges(vec![range(5, 1), range(1, 2), range(2, 2), range(6, 99)]);
    assert_eq!(l.erase(&erase), 2);
    assert_eq!(contents(&l), ["0", "4"]);
    assert_cost_is_exact(&l);
    assert_eq!(
        l.erase(&ListErase::Ranges(vec![range(u32::MAX, u32::MAX)])),
        2
    );
    assert_eq!(l.erase(&ListErase::All), 0);
    assert_eq!(l.cost(), 0);
}

#[test]
fn a_small_list_is_one_chunk_charged_its_size_class_and_its_slot() {
    let l = list(&["", "x", &"y".repeat(17)]);
    assert_eq!(l.chunks.len(), 1);
    // 1 + 2 + 18 bytes of entries: the 32-byte class; one queue slot.
    assert_eq!(l.chunks.capacity(), 1);
    assert_eq!(l.cost(), 32 + 32);
    assert_cost_is_exact(&l);
}

#[test]
fn a_large_list_is_chunks_pushed_and_popped_at_both_ends() {
    let mut l = ListValue::default();
    let values: Vec<String> = (0..5_000).map(|n| format!("member:{n}")).collect();
    for pair in values.chunks(2) {
        l.push(push(End::Back, &[&pair[0]], 0), NO_LIMIT).unwrap();
        l.push(push(End::Front, &[&pair[1]], 0), NO_LIMIT).unwrap();
    }
    assert!(l.chunks.len() > 5, "{}", l.chunks.len());
    assert_cost_is_exact(&l);
    // Values of 8 to 11 bytes, each after one sharing most of it: entries
    // of 3 or 4 bytes, chunks nearly full, the queue's slots under a byte
    // a value.
    let per_value = l.cost() as f64 / l.len() as f64;
    assert!(per_value < 5.0, "{per_value}");
    let all = contents(&l);
    assert_eq!(all[2_499], "member:1");
    assert_eq!(all[2_500], "member:0");
    assert_eq!(
        l.fetch(slice(Some(2_499), Some(2_502))),
        ["member:1", "member:0", "member:2"]
    );
    assert_eq!(l.pop(End::Back).as_deref(), Some(&b"member:4998"[..]));
    assert_eq!(l.pop(End::Front).as_deref(), Some(&b"member:4999"[..]));
    assert_cost_is_exact(&l);
}

#[test]
fn chunks_of_short_values_close_at_their_count_cut_to_size() {
    // `member:N` takes about 3 bytes of entry: 256 of them fill a chunk
    // long before its 2.5 KiB of entries or 8 KiB of values.
    let mut l = ListValue::default();
    for n in 0..3 * CHUNK_VALUES + 10 {
        let value = format!("member:{n}");
        l.push(push(End::Back, &[&value], 0), NO_LIMIT).unwrap();
        l.push(push(End::Front, &[&value], 0), NO_LIMIT).unwrap();
    }
    assert_cost_is_exact(&l);
    let counts: Vec<usize> = l.chunks.iter().map(FrontCoded::count).collect();
    let inner = &counts[1..counts.len() - 1];
    assert!(
        !inner.is_empty() && inner.iter().all(|&count| count == CHUNK_VALUES),
        "{counts:?}"
    );
    // The chunks between the ends hold no room past their size class;
    // the two being filled were allocated a whole chunk.
    let inner = l.chunks.range(1..l.chunks.len() - 1);
    assert!(inner
        .clone()
        .all(|c| c.cost() == allocation_size(c.bytes_len()) as u64));
    assert!(inner.clone().all(|c| c.bytes_len() < CHUNK_BYTES / 2));
    let per_value = l.cost() as f64 / l.len() as f64;
    assert!(per_value < 4.5, "{per_value}");
}

/// jemalloc's slab of the size class `size`: (its bytes, its regions).
fn slab_of_class(size: usize) -> (usize, usize) {
    use tikv_jemalloc_ctl::raw;
    // SAFETY: each control read has the type read (jemalloc's manual).
    let read = |name: String| unsafe { raw::read::<usize>((name + "\0").as_bytes()) }.unwrap();
    // SAFETY: `arenas.nbins` is an `unsigned`.
    let classes: u32 = unsafe { raw::read(b"arenas.nbins\0") }.unwrap();
    (0..classes)
        .find(|class| read(format!("arenas.bin.{class}.size")) == size)
        .map(|class| {
            let slab = read(format!("arenas.bin.{class}.slab_size"));
            (slab, slab / size)
        })
        .expect("a small size class")
}

#[test]
fn full_chunks_share_their_slabs_bookkeeping() {
    // Values of 14 bytes sharing no prefix, 15 bytes an entry: chunks
    // filled to their bytes, allocated whole.
    let values: Vec<String> = (0..20_000u64)
        .map(|n| format!("{:014x}", n.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 8))
        .collect();
    let mut l = ListValue::default();
    for batch in values.chunks(1_000) {
        let batch: Vec<&str> = batch.iter().map(String::as_str).collect();
        l.push(push(End::Back, &batch, 0), NO_LIMIT).unwrap();
    }
    assert_cost_is_exact(&l);
    let full = allocation_size(CHUNK_BYTES);
    assert!(l.chunks.iter().all(|c| c.cost() == full as u64));
    let closed = l.chunks.range(..l.chunks.len() - 1);
    assert!(closed.clone().all(|c| c.bytes_len() + 15 > CHUNK_BYTES));
    // jemalloc keeps about 128 bytes of bookkeeping per slab: a slab of
    // one page holding two chunks of 2 KiB cost 3% on top of them, one
    // of five pages holding eight, under 1%.
    let (slab, chunks) = slab_of_class(full);
    assert!(
        chunks >= 8 && slab >= 5 * 4096,
        "{chunks} chunks in {slab} bytes"
    );
}

#[test]
fn a_value_larger_than_a_chunk_has_one_of_its_own() {
    let big = "b".repeat(3 * CHUNK_BYTES);
    let mut l = list(&["a", &big, "c"]);
    assert_eq!(l.chunks.len(), 3);
    assert_eq!(contents(&l), ["a", big.as_str(), "c"]);
    assert_cost_is_exact(&l);
    assert_eq!(l.remove_value(b"a"), 2);
    assert_eq!(contents(&l), [big.as_str(), "c"]);
    assert_cost_is_exact(&l);
}

#[test]
fn growth_covers_what_a_push_adds() {
    let mut l = ListValue::default();
    for n in 0..2_000 {
        let values: Vec<&str> = vec!["value"; n % 7 + 1];
        let new = push(End::Back, &values, 0);
        let (before, growth) = (l.cost(), ListValue::growth(End::Back, &new.values)(&l));
        l.push(new, NO_LIMIT).unwrap();
        assert!(l.cost() <= before + growth, "push {n}");
    }
}

#[test]
fn a_list_popped_down_gives_back_its_room() {
    let mut l = ListValue::default();
    let values: Vec<String> = (0..1_000).map(|n| n.to_string()).collect();
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    l.push(push(End::Back, &values, 0), NO_LIMIT).unwrap();
    let full = l.cost();
    while l.len() > 10 {
        l.pop(End::Front);
    }
    assert!(l.chunks.capacity() <= 64, "{}", l.chunks.capacity());
    assert!(l.cost() < full / 10, "{} of {full}", l.cost());
    assert_cost_is_exact(&l);
}

#[derive(Clone, Debug)]
enum Op {
    Push(End, Vec<usize>, u32),
    Pop(End),
    Retain(Option<i32>, Option<i32>),
    Remove(usize),
    Erase(Vec<(u32, u32)>),
    Fetch(Option<i32>, Option<i32>),
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    let end = prop_oneof![Just(End::Front), Just(End::Back)];
    // Mostly small values, some past a chunk: lists cross from one
    // chunk to many and back.
    let value = prop_oneof![8 => 0usize..40, 2 => 40usize..400, 1 => Just(CHUNK_BYTES + 1)];
    let bound = prop::option::of(-300i32..300);
    prop_oneof![
        6 => (end.clone(), prop::collection::vec(value, 1..120), 0u32..400)
            .prop_map(|(end, sizes, truncate)| Op::Push(end, sizes, truncate)),
        3 => end.prop_map(Op::Pop),
        1 => (bound.clone(), bound.clone()).prop_map(|(s, e)| Op::Retain(s, e)),
        1 => (0usize..40).prop_map(Op::Remove),
        1 => prop::collection::vec((0u32..300, 0u32..40), 0..4).prop_map(Op::Erase),
        2 => (bound.clone(), bound).prop_map(|(s, e)| Op::Fetch(s, e)),
    ]
}

/// Random sequences of changes keep the list what a plain queue holds,
/// across one chunk and many, with its charge exact: values equal to
/// those beside them (each chunk's values capped by their decoded bytes).
#[test]
fn the_list_follows_a_model_under_random_changes() {
    // A value of `size` bytes, told apart by its first byte.
    follows_a_model(|size, n, _| {
        let mut v = vec![b'v'; size];
        if let Some(first) = v.first_mut() {
            *first = (n % 7) as u8;
        }
        Bytes::from(v)
    });
}

/// The same with values sharing all but their last bytes with those
/// beside them (front coding's usual case), so pushes at the front write
/// a chunk's first value again and removals the value after.
#[test]
fn the_list_follows_a_model_with_values_sharing_prefixes() {
    // `size` bytes told apart by their first byte and, within a push, by
    // their position in its last two.
    follows_a_model(|size, n, at| {
        let mut v = vec![b'k'; size];
        if let Some(first) = v.first_mut() {
            *first = (n % 7) as u8;
        }
        let tail = size.saturating_sub(2);
        let position = (at as u16).to_be_bytes();
        v[tail..].copy_from_slice(&position[2 - (size - tail)..]);
        Bytes::from(v)
    });
}

/// Checks random changes against a model, with `value(size, n, at)` the
/// value of `size` bytes at position `at` of change `n`.
fn follows_a_model(value: impl Fn(usize, usize, usize) -> Bytes) {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let mut runner = TestRunner::new(Config {
        failure_persistence: None,
        ..Config::with_cases(128)
    });
    let ops = prop::collection::vec(op(), 1..40);
    runner
        .run(&ops, |ops| {
            let mut l = ListValue::default();
            let mut model: VecDeque<Bytes> = VecDeque::new();
            for (n, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Push(end, sizes, truncate_to) => {
                        let values: Vec<Bytes> = sizes
                            .iter()
                            .enumerate()
                            .map(|(at, &size)| value(size, n, at))
                            .collect();
                        let growth = ListValue::growth(end, &values)(&l);
                        let before = l.cost();
                        match end {
                            End::Back => model.extend(values.iter().cloned()),
                            End::Front => {
                                for v in values.iter().rev() {
                                    model.push_front(v.clone());
                                }
                            }
                        }
                        while truncate_to > 0 && model.len() > truncate_to as usize {
                            match end {
                                End::Back => model.pop_front(),
                                End::Front => model.pop_back(),
                            };
                        }
                        let push = ListPush {
                            end,
                            values,
                            truncate_to,
                        };
                        prop_assert_eq!(l.push(push, NO_LIMIT), Ok(model.len()));
                        prop_assert!(l.cost() <= before + growth);
                    }
                    Op::Pop(End::Front) => {
                        prop_assert_eq!(l.pop(End::Front), model.pop_front())
                    }
                    Op::Pop(End::Back) => prop_assert_eq!(l.pop(End::Back), model.pop_back()),
                    Op::Retain(start, end) => {
                        let bounds = slice(start, end).bounds(model.len());
                        model = model.range(bounds).cloned().collect();
                        prop_assert_eq!(l.retain(slice(start, end)), model.len());
                    }
                    Op::Remove(size) => {
                        let gone = value(size, n, 0);
                        model.retain(|v| *v != gone);
                        prop_assert_eq!(l.remove_value(&gone), model.len());
                    }
                    Op::Erase(ranges) => {
                        let ranges: Vec<ListRange> = ranges
                            .into_iter()
                            .map(|(begin, count)| ListRange { begin, count })
                            .collect();
                        let mut at = 0;
                        model.retain(|_| {
                            at += 1;
                            !ranges.iter().any(|r| {
                                (r.begin as usize..r.begin as usize + r.count as usize)
                                    .contains(&(at - 1))
                            })
                        });
                        prop_assert_eq!(l.erase(&ListErase::Ranges(ranges)), model.len());
                    }
                    Op::Fetch(start, end) => {
                        let bounds = slice(start, end).bounds(model.len());
                        let expected: Vec<Bytes> = model.range(bounds).cloned().collect();
                        let encoded: u64 = expected.iter().map(|v| repeated_len(v.len())).sum();
                        prop_assert_eq!(l.fetch_encoded_len(slice(start, end)), encoded);
                        prop_assert_eq!(l.fetch(slice(start, end)), expected);
                    }
                }
                prop_assert_eq!(l.len(), model.len());
                prop_assert!(l.values().eq(model.iter().map(|v| &v[..])));
                assert_cost_is_exact(&l);
            }
            Ok(())
        })
        .unwrap();
}
