//! The sorted set's tests: each form's operations, the crossings between
//! them, a model of the whole, and the store's charge.

use super::*;
use crate::store::cost::part_cost;

const NO_LIMIT: usize = usize::MAX;

fn set(pairs: &[(&str, f64)]) -> SortedSetValue {
    let mut set = SortedSetValue::default();
    set.put(elements(pairs), NO_LIMIT).unwrap();
    set
}

fn elements(pairs: &[(&str, f64)]) -> Vec<ScoredValue> {
    pairs
        .iter()
        .map(|(v, s)| (Bytes::copy_from_slice(v.as_bytes()), *s))
        .collect()
}

fn names(elements: &[ScoredValue]) -> Vec<String> {
    elements
        .iter()
        .map(|(v, _)| String::from_utf8(v.to_vec()).unwrap())
        .collect()
}

/// Panics unless the set's form holds together: a packed set in order,
/// within the bounds, what it keeps matching its elements.
fn assert_consistent(set: &SortedSetValue) {
    match &set.0 {
        Form::Small(small) => {
            let pairs: Vec<(&[u8], f64)> = small.pairs(0, small.len()).collect();
            assert_eq!(pairs.len(), small.len());
            let ordered = |a: &(&[u8], f64), b: &(&[u8], f64)| {
                a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)).is_lt()
            };
            assert!(pairs.windows(2).all(|w| ordered(&w[0], &w[1])));
            let encoded: u64 = pairs.iter().map(|(m, _)| element_encoded_len(m)).sum();
            assert_eq!(small.encoded(), encoded);
            let longest = pairs.iter().map(|(m, _)| m.len()).max();
            assert!(fits_small(small.len(), longest.unwrap_or(0)));
            assert_eq!(small.cost(), part_cost(small.bytes_len()).max(small.cost()));
        }
        Form::Large(large) => large.assert_consistent(),
    }
}

/// The set of the official suites' examples.
fn menu() -> SortedSetValue {
    set(&[
        ("bam", 1000.0),
        ("foo", 1.0),
        ("taco", 90210.0),
        ("bar", 2.0),
        ("burrito", 9000.0),
        ("baz", 42.0),
        ("habanero", 68.0),
        ("jalapeno", 1_000_000.0),
    ])
}

fn by_index(start: Option<i32>, end: Option<i32>) -> SortedSetRange {
    SortedSetRange::ByIndex { start, end }
}

fn by_score(min: ScoreBound, max: ScoreBound, offset: u32, count: Option<u32>) -> SortedSetRange {
    SortedSetRange::ByScore {
        scores: ScoreRange { min, max },
        offset,
        count,
    }
}

#[test]
fn fetch_by_index_both_ways() {
    let s = menu();
    let asc = |start, end| names(&s.fetch(by_index(start, end), SortOrder::Ascending));
    let desc = |start, end| names(&s.fetch(by_index(start, end), SortOrder::Descending));
    assert_eq!(asc(Some(4), None), ["bam", "burrito", "taco", "jalapeno"]);
    assert_eq!(asc(None, Some(3)), ["foo", "bar", "baz"]);
    assert_eq!(asc(Some(1), Some(5)), ["bar", "baz", "habanero", "bam"]);
    assert!(asc(Some(10), None).is_empty());
    assert_eq!(asc(Some(-5), Some(-2)), ["habanero", "bam", "burrito"]);
    assert_eq!(desc(Some(5), None), ["baz", "bar", "foo"]);
    assert_eq!(desc(None, Some(3)), ["jalapeno", "taco", "burrito"]);
    assert_eq!(desc(Some(3), Some(5)), ["bam", "habanero"]);
}

#[test]
fn fetch_by_score_with_offset_and_count() {
    use ScoreBound::*;
    let s = menu();
    let fetch = |range, order| names(&s.fetch(range, order));
    let asc = SortOrder::Ascending;
    assert_eq!(
        fetch(by_score(Inclusive(100.0), Unbounded, 0, None), asc),
        ["bam", "burrito", "taco", "jalapeno"]
    );
    assert_eq!(
        fetch(by_score(Inclusive(10.0), Unbounded, 2, Some(3)), asc),
        ["bam", "burrito", "taco"]
    );
    assert_eq!(
        fetch(
            by_score(Inclusive(20.0), Inclusive(100_000.0), 2, Some(2)),
            SortOrder::Descending
        ),
        ["bam", "habanero"]
    );
    assert_eq!(
        fetch(by_score(Exclusive(2.0), Exclusive(1000.0), 0, None), asc),
        ["baz", "habanero"]
    );
    assert!(fetch(by_score(Inclusive(2e6), Unbounded, 0, None), asc).is_empty());
    assert!(fetch(by_score(Exclusive(1.0), Exclusive(1.0), 0, None), asc).is_empty());
    assert!(fetch(by_score(Inclusive(5.0), Inclusive(1.0), 0, None), asc).is_empty());
    assert_eq!(
        s.count(ScoreRange {
            min: Inclusive(2.0),
            max: Inclusive(68.0)
        }),
        3
    );
}

#[test]
fn ties_order_by_value_bytes_and_rank_counts_them() {
    let s = set(&[("b", 1.0), ("a", 1.0), ("c", 0.5), ("d", 1.0)]);
    assert_eq!(
        names(&s.fetch(by_index(None, None), SortOrder::Ascending)),
        ["c", "a", "b", "d"]
    );
    assert_eq!(s.rank(b"a", SortOrder::Ascending), Some(1));
    assert_eq!(s.rank(b"a", SortOrder::Descending), Some(2));
    assert_eq!(s.rank(b"d", SortOrder::Descending), Some(0));
    assert_eq!(s.rank(b"zz", SortOrder::Ascending), None);
}

#[test]
fn put_replaces_scores_and_the_last_of_a_value_wins() {
    let mut s = set(&[("a", 1.0), ("b", 2.0)]);
    assert_eq!(
        s.put(elements(&[("a", 5.0), ("c", 0.0), ("c", 3.0)]), NO_LIMIT),
        Ok(3)
    );
    assert_eq!(s.score(b"a"), Some(5.0));
    assert_eq!(s.score(b"c"), Some(3.0));
    assert_consistent(&s);
    assert_eq!(
        s.put(elements(&[("a", 0.0), ("d", 1.0), ("e", 1.0)]), 4),
        Err(Error::CollectionTooLarge {
            elements: 5,
            limit: 4
        })
    );
    assert_eq!(s.score(b"a"), Some(5.0));
    assert_consistent(&s);
}

#[test]
fn increment_counts_absent_as_zero_and_refuses_overflow() {
    let mut s = set(&[("a", 1.0)]);
    assert_eq!(
        s.increment(Bytes::from_static(b"a"), 2.5, NO_LIMIT),
        Ok(3.5)
    );
    assert_eq!(
        s.increment(Bytes::from_static(b"b"), -1.0, NO_LIMIT),
        Ok(-1.0)
    );
    assert_eq!(
        s.increment(Bytes::from_static(b"c"), 1.0, 2),
        Err(Error::CollectionTooLarge {
            elements: 3,
            limit: 2
        })
    );
    s.put(elements(&[("big", f64::MAX)]), NO_LIMIT).unwrap();
    assert_eq!(
        s.increment(Bytes::from_static(b"big"), f64::MAX, NO_LIMIT),
        Err(Error::ScoreNotFinite)
    );
    assert_eq!(s.score(b"big"), Some(f64::MAX));
    assert_consistent(&s);
}

#[test]
fn remove_some_or_all() {
    let mut s = menu();
    let values = vec![Bytes::from_static(b"foo"), Bytes::from_static(b"nope")];
    assert_eq!(s.remove(&SortedSetRemove::Values(values)), 7);
    assert_eq!(s.score(b"foo"), None);
    assert_consistent(&s);
    assert_eq!(s.remove(&SortedSetRemove::All), 0);
    assert_eq!(s.cost(), 0);
    assert!(s.is_empty());
}

/// Grown to 10,000 elements and cut to 100 by removals, a sorted set is
/// charged about as much per element as before, and holds a table and
/// members' slots for a few hundred, not the 10,000's; cut to 3, or
/// replaced by a union small enough, it is packed.
#[test]
fn a_sorted_set_cut_to_a_few_elements_gives_its_room_back() {
    let value = |i: usize| Bytes::from(format!("value-{i}"));
    let grown = || {
        let mut s = SortedSetValue::default();
        let elements = (0..10_000).map(|i| (value(i), i as f64)).collect();
        s.put(elements, NO_LIMIT).unwrap();
        assert!(large(&s).capacity() >= 10_000);
        s
    };
    let packed_cost = |n: usize| part_cost((0..n).map(|i| packed_len(&value(i), 1.0)).sum());
    let mut s = grown();
    let full = s.cost();
    s.remove(&SortedSetRemove::Values((100..10_000).map(value).collect()));
    assert_eq!(s.len(), 100);
    assert_consistent(&s);
    assert!(s.cost() * 10_000 < full * 100 * 2, "{} of {full}", s.cost());
    let room = large(&s).capacity();
    assert!(room < 512, "room for {room}");
    assert_eq!(large(&s).slots(), 100);
    // Renumbered, it takes new members and new scores as before.
    let more = (20_000..20_050).map(|i| (value(i), -(i as f64)));
    let rescored = (0..10).map(|i| (value(i), 0.5));
    s.put(more.chain(rescored).collect(), NO_LIMIT).unwrap();
    assert_eq!(s.len(), 150);
    assert_consistent(&s);
    let cut = (3..100).chain(20_000..20_050).map(value);
    s.remove(&SortedSetRemove::Values(cut.collect()));
    assert!(matches!(s.0, Form::Small(_)));
    assert_consistent(&s);
    assert!(s.cost() <= 2 * packed_cost(3), "{}", s.cost());

    let mut replaced = grown();
    let few = (0..SMALL_MAX_ELEMENTS).map(|i| (value(i), 1.0)).collect();
    replaced.replace(few, NO_LIMIT).unwrap();
    assert!(matches!(replaced.0, Form::Small(_)));
    assert_consistent(&replaced);
    assert_eq!(replaced.cost(), packed_cost(SMALL_MAX_ELEMENTS));
}

fn large(s: &SortedSetValue) -> &Large {
    match &s.0 {
        Form::Large(large) => large,
        Form::Small(_) => panic!("a packed set"),
    }
}

#[test]
fn minus_zero_is_zero() {
    let s = set(&[("a", -0.0), ("b", 0.0)]);
    assert_eq!(s.score(b"a").unwrap().to_bits(), 0.0f64.to_bits());
    assert_eq!(
        names(&s.fetch(by_index(None, None), SortOrder::Ascending)),
        ["a", "b"]
    );
}
/// The structure against a plain model: a list of (value, score)
/// sorted by score then value bytes, rebuilt by brute force each step.
mod model {
    use proptest::prelude::*;

    use super::*;

    const VALUES: &[&[u8]] = &[b"", b"a", b"b", b"B", b"\xff", b"ab"];
    /// Values past `VALUES`: enough to take a set past the packed
    /// form's bounds, some of them longer than a packed member may be.
    const MANY: usize = 200;

    fn value(v: usize) -> Bytes {
        match v {
            v if v < VALUES.len() => Bytes::from_static(VALUES[v]),
            v if v % 40 == 0 => Bytes::from(format!("{v:0>70}")),
            v => Bytes::from(format!("m{v}")),
        }
    }
    const SCORES: &[f64] = &[0.0, -0.0, 1.0, -1.0, 0.5, 1e300, f64::MAX, -f64::MAX];

    #[derive(Clone, Debug)]
    enum Op {
        Put(Vec<(usize, usize)>),
        Increment(usize, usize),
        Remove(Option<Vec<usize>>),
    }

    /// Up to `n` values from `v` on: enough to cross the bounds.
    fn many(v: usize, n: usize) -> std::ops::Range<usize> {
        v..(v + n).min(MANY)
    }

    fn op() -> impl Strategy<Value = Op> {
        let value = 0..VALUES.len();
        prop_oneof![
            3 => prop::collection::vec((value.clone(), 0..SCORES.len()), 1..4).prop_map(Op::Put),
            2 => (value.clone(), 0..SCORES.len()).prop_map(|(v, a)| Op::Increment(v, a)),
            1 => prop::option::of(prop::collection::vec(value, 0..3)).prop_map(Op::Remove),
            1 => (0..MANY, 0..MANY, 0..SCORES.len())
                .prop_map(|(v, n, s)| Op::Put(many(v, n).map(|v| (v, s)).collect())),
            1 => (0..MANY, 0..MANY).prop_map(|(v, n)| Op::Remove(Some(many(v, n).collect()))),
        ]
    }

    fn bound() -> impl Strategy<Value = ScoreBound> {
        prop_oneof![
            Just(ScoreBound::Unbounded),
            (0..SCORES.len()).prop_map(|s| ScoreBound::Inclusive(SCORES[s])),
            (0..SCORES.len()).prop_map(|s| ScoreBound::Exclusive(SCORES[s])),
        ]
    }

    fn sorted(model: &[(Bytes, f64)]) -> Vec<ScoredValue> {
        let mut all = model.to_vec();
        all.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        all
    }

    proptest! {
        #[test]
        fn agrees_with_a_sorted_list(
            ops in prop::collection::vec(op(), 1..30),
            min in bound(),
            max in bound(),
            offset in 0..4u32,
            count in prop::option::of(0..4u32),
            start in prop::option::of(-8..8i32),
            end in prop::option::of(-8..8i32),
        ) {
            let mut set = SortedSetValue::default();
            let mut model: Vec<(Bytes, f64)> = Vec::new();
            for op in ops {
                match op {
                    Op::Put(elements) => {
                        let elements: Vec<ScoredValue> = elements
                            .into_iter()
                            .map(|(v, s)| (value(v), canonical(SCORES[s])))
                            .collect();
                        for (value, score) in &elements {
                            model.retain(|(v, _)| v != value);
                            model.push((value.clone(), *score));
                        }
                        prop_assert_eq!(set.put(elements, NO_LIMIT), Ok(model.len()));
                    }
                    Op::Increment(v, a) => {
                        let value = value(v);
                        let held = model.iter().find(|(m, _)| *m == value).map(|(_, s)| *s);
                        let sum = canonical(held.unwrap_or(0.0) + SCORES[a]);
                        let answer = set.increment(value.clone(), canonical(SCORES[a]), NO_LIMIT);
                        if sum.is_finite() {
                            prop_assert_eq!(answer, Ok(sum));
                            model.retain(|(m, _)| *m != value);
                            model.push((value, sum));
                        } else {
                            prop_assert_eq!(answer, Err(Error::ScoreNotFinite));
                        }
                    }
                    Op::Remove(None) => {
                        model.clear();
                        prop_assert_eq!(set.remove(&SortedSetRemove::All), 0);
                    }
                    Op::Remove(Some(values)) => {
                        let values: Vec<Bytes> =
                            values.into_iter().map(value).collect();
                        model.retain(|(m, _)| !values.contains(m));
                        prop_assert_eq!(set.remove(&SortedSetRemove::Values(values)), model.len());
                    }
                }
                assert_consistent(&set);
            }
            let ascending = sorted(&model);
            prop_assert_eq!(set.elements(), ascending.clone());
            let descending: Vec<ScoredValue> = ascending.iter().rev().cloned().collect();
            for (i, (value, _)) in ascending.iter().enumerate() {
                prop_assert_eq!(set.rank(value, SortOrder::Ascending), Some(i as u64));
                let reversed = (ascending.len() - 1 - i) as u64;
                prop_assert_eq!(set.rank(value, SortOrder::Descending), Some(reversed));
            }
            let scores = ScoreRange { min, max };
            let within: Vec<ScoredValue> =
                ascending.iter().filter(|(_, s)| scores.contains(*s)).cloned().collect();
            prop_assert_eq!(set.count(scores), within.len());
            let count = count.filter(|c| *c > 0);
            for (order, all) in [(SortOrder::Ascending, &ascending), (SortOrder::Descending, &descending)] {
                let picked: Vec<ScoredValue> = all
                    .iter()
                    .filter(|(_, s)| scores.contains(*s))
                    .skip(offset as usize)
                    .take(count.map_or(usize::MAX, |c| c as usize))
                    .cloned()
                    .collect();
                let range = SortedSetRange::ByScore { scores, offset, count };
                prop_assert_eq!(set.fetch(range, order), picked);
                let bounds = SortedSetRange::index_bounds(start, end, all.len());
                let range = SortedSetRange::ByIndex { start, end };
                prop_assert_eq!(set.fetch(range, order), all[bounds].to_vec());
            }
        }
    }
}

/// The store charges a sorted set's elements, frees them with it, and
/// a sorted set past its TTL is missing.
#[tokio::test]
async fn the_store_charges_and_frees_a_sorted_set() {
    let (store, c) = crate::store::tests::store_with(1 << 26);
    let ttl = crate::store::tests::MINUTE_TTL;
    let put =
        |values: &[(&str, f64)]| store.sorted_set_put(&c, b"z", elements(values), ttl, NO_LIMIT);
    assert_eq!(put(&[("a", 1.0), ("bb", 2.0)]).await, Ok(2));
    let two = store.stats().bytes;
    let packed = packed_len(b"a", 1.0) + packed_len(b"bb", 2.0);
    assert_eq!(packed, 7);
    // Packed: 7 bytes, then 12, in a buffer of 16.
    assert_eq!(put(&[("ccc", 3.0)]).await, Ok(3));
    let three = store.stats().bytes;
    assert_eq!(three, two);
    // A member past the packed form's bound: every element is charged
    // as the large form charges it, and the buffer is freed.
    let long = "l".repeat(SMALL_MAX_MEMBER + 1);
    assert_eq!(put(&[(&long, 4.0)]).await, Ok(4));
    let four = store.stats().bytes;
    let mut same = set(&[("a", 1.0), ("bb", 2.0), ("ccc", 3.0)]);
    assert_eq!(same.cost(), part_cost(12));
    same.put(elements(&[(&long, 4.0)]), NO_LIMIT).unwrap();
    assert!(matches!(same.0, Form::Large(_)));
    assert_eq!(four - three, same.cost() - part_cost(12));
    // A new score for a value held costs nothing more.
    assert_eq!(put(&[("a", 9.0)]).await, Ok(4));
    assert_eq!(store.stats().bytes, four);
    let all = SortedSetRemove::All;
    assert_eq!(store.sorted_set_remove(&c, b"z", &all).await, Ok(Some(0)));
    assert_eq!(store.stats().items, 0);
    assert_eq!(store.stats().bytes, 0);

    let short = CollectionTtl {
        ttl: Duration::from_millis(20),
        refresh: false,
    };
    let one = elements(&[("a", 1.0)]);
    store
        .sorted_set_put(&c, b"z", one, short, NO_LIMIT)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(40)).await;
    assert_eq!(store.sorted_set_length(&c, b"z").await, Ok(None));
}

/// A fetch small enough to copy in place and one copied on the blocking
/// pool answer alike, in order both ways.
#[tokio::test]
async fn small_and_large_fetches_answer_in_order() {
    let (store, c) = crate::store::tests::store_with(1 << 26);
    let ttl = crate::store::tests::MINUTE_TTL;
    let n = INLINE_FETCH_ELEMENTS + 1;
    let all: Vec<ScoredValue> = (0..n)
        .map(|i| (Bytes::from(format!("m{i:06}")), i as f64))
        .collect();
    store
        .sorted_set_put(&c, b"z", all.clone(), ttl, NO_LIMIT)
        .await
        .unwrap();
    let fetch =
        |end, order| store.sorted_set_fetch(&c, b"z", by_index(None, end), order, usize::MAX);
    let reversed: Vec<ScoredValue> = all.iter().rev().cloned().collect();
    assert_eq!(
        fetch(None, SortOrder::Ascending).await,
        Ok(Some(all.clone()))
    );
    assert_eq!(
        fetch(None, SortOrder::Descending).await,
        Ok(Some(reversed.clone()))
    );
    assert_eq!(
        fetch(Some(3), SortOrder::Ascending).await,
        Ok(Some(all[..3].to_vec()))
    );
    assert_eq!(
        fetch(Some(3), SortOrder::Descending).await,
        Ok(Some(reversed[..3].to_vec()))
    );
}
