//! Sets in the embedded store: the elements packed in one run, found by a
//! scan while the set is small and through a hash table of their ids once
//! it is large (`packed_map.rs`, as Redis's listpack and hash table
//! encodings). A removal moves the last id into the hole (so ids stay
//! dense), which is what lets pops and samples pick `k` random elements
//! by id rather than walking the set.
//!
//! What each call costs, for a set of n elements, k of them named:
//! SetContains O(k) large, O(k x `SMALL_LEN`) small; SetUnion and
//! SetDifference the same (plus, past a bound, an O(n) change of form or
//! a copy of the run without its holes, amortized); Length O(1); Fetch
//! O(n); Pop and Sample of k O(k) large, O(k x `SMALL_LEN`) small. The
//! charge (the run and the index, by capacity) and the size of a fetch
//! are kept up to date by every change, so reading them is O(1).
//!
//! Every method checks what can fail before it changes anything, so a
//! refused call leaves the set as it was.

use std::cell::Cell;
use std::future::{ready, Future};
use std::hash::BuildHasher;
use std::sync::Arc;

use bytes::Bytes;
use hashbrown::HashSet;

use super::answer::{charge_built, repeated_len, AnswerSize, Copier, Reserved};
use super::packed::entry_len;
use super::packed_map::{PackedMap, MAX_LEN};
use super::{CacheId, Store};
use crate::backend::{pop_answer_size, CollectionTtl, SetRemove, SetStorage};
use crate::error::Error;

#[derive(Default)]
pub struct SetValue {
    /// The elements, distinct, in no meaningful order.
    elements: PackedMap<1>,
    /// The size of a SetFetch answer of every element, kept by every
    /// mutator, so that an answer too large to send is refused in O(1).
    encoded: u64,
}

impl SetValue {
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    pub fn cost(&self) -> u64 {
        self.elements.cost()
    }

    /// At least what adding `elements` adds to a set's [`Self::cost`], so
    /// that the store can refuse a union before it is made.
    pub fn growth(elements: &[Bytes]) -> impl FnOnce(&SetValue) -> u64 {
        let bytes = elements
            .iter()
            .map(|element| entry_len(element.len()))
            .sum();
        let added = elements.len();
        move |set| set.elements.growth(added, bytes)
    }

    pub fn contains(&self, element: &[u8]) -> bool {
        self.elements.contains(element)
    }

    /// Adds the elements; answers the length after. [`Error::CollectionTooLarge`],
    /// and nothing changes, when that length would be over `max_len`.
    pub fn union(&mut self, elements: Vec<Bytes>, max_len: usize) -> Result<usize, Error> {
        let max_len = max_len.min(MAX_LEN);
        if self.len() + elements.len() > max_len {
            // Only when the limit may be at stake: what the union really adds.
            let new: HashSet<&[u8]> = elements
                .iter()
                .map(|element| &element[..])
                .filter(|element| !self.contains(element))
                .collect();
            let len = self.len() + new.len();
            if len > max_len {
                return Err(Error::CollectionTooLarge {
                    elements: len,
                    limit: max_len,
                });
            }
        }
        for element in &elements {
            if self.elements.insert([element]).is_none() {
                self.encoded += repeated_len(element.len());
            }
        }
        Ok(self.len())
    }

    /// Removes the element, if present.
    pub fn remove(&mut self, element: &[u8]) -> bool {
        let removed = self.elements.remove(element);
        if let Some([len]) = removed {
            self.encoded -= repeated_len(len);
        }
        removed.is_some()
    }

    /// Removes what `remove` names; answers how many elements remain.
    pub fn difference(&mut self, remove: &SetRemove) -> usize {
        match remove {
            SetRemove::All => {
                self.clear();
            }
            SetRemove::Elements(elements) => {
                for element in elements {
                    self.remove(element);
                }
            }
        }
        self.len()
    }

    fn clear(&mut self) {
        self.elements.clear();
        self.encoded = 0;
    }

    /// The bytes of the elements of a SetFetch answer, in O(1).
    pub fn fetch_encoded_len(&self) -> u64 {
        self.encoded
    }

    /// Every element.
    pub fn fetch(&self) -> Vec<Bytes> {
        // The encoded size is the elements' bytes and a few more each: a
        // buffer of it never grows, so every slice shares one allocation.
        let mut copier = Copier::new(self.encoded as usize);
        self.elements.iter().map(|[e]| copier.copy(e)).collect()
    }

    /// Whether the set holds each of `elements`, in their order.
    pub fn contains_each(&self, elements: &[Bytes]) -> Vec<bool> {
        elements.iter().map(|e| self.contains(e)).collect()
    }

    /// The elements of ids `chosen`, copied out, in that order.
    fn copy_out(&self, chosen: &[usize]) -> Vec<Bytes> {
        let elements: Vec<&[u8]> = chosen.iter().map(|&id| self.elements.at(id)[0]).collect();
        let mut copier = Copier::of(elements.iter());
        elements.into_iter().map(|e| copier.copy(e)).collect()
    }

    /// Removes and answers `count` elements chosen at random (all of them
    /// when there are no more). The answer is sized before anything is
    /// removed: over `max_answer` it is refused and the set is unchanged,
    /// rather than emptied into an answer the service cannot send.
    pub fn pop(&mut self, count: usize, max_answer: usize) -> Result<Vec<Bytes>, Error> {
        let too_large = |size| Error::AnswerTooLarge {
            size,
            limit: max_answer,
        };
        if count >= self.len() {
            let size = pop_answer_size(self.elements.iter().map(|[e]| e.len()));
            if size > max_answer {
                return Err(too_large(size));
            }
            let all = self.fetch();
            self.clear();
            return Ok(all);
        }
        let mut chosen = random_positions(count, self.len());
        // From the highest id down: the last element, moved into each
        // hole (or, small, the elements after it), is never one still to
        // be taken, and the ids below stay where they are.
        chosen.sort_unstable_by(|a, b| b.cmp(a));
        let size = pop_answer_size(chosen.iter().map(|&id| self.elements.at(id)[0].len()));
        if size > max_answer {
            return Err(too_large(size));
        }
        let popped = self.copy_out(&chosen);
        for (id, element) in chosen.into_iter().zip(&popped) {
            self.elements.remove_at(id);
            self.encoded -= repeated_len(element.len());
        }
        Ok(popped)
    }

    /// Up to `limit` distinct elements chosen at random.
    pub fn sample(&self, limit: u64) -> Vec<Bytes> {
        let len = self.len();
        if limit >= len as u64 {
            return self.fetch();
        }
        self.copy_out(&random_positions(limit as usize, len))
    }
}

/// `k` distinct positions below `n` (`k <= n`), uniformly: Floyd's
/// algorithm, O(k) whatever `n`.
fn random_positions(k: usize, n: usize) -> Vec<usize> {
    let mut chosen = HashSet::with_capacity(k);
    for j in n - k..n {
        let t = random_below(j + 1);
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    chosen.into_iter().collect()
}

/// A number below `bound` (> 0) from a per-thread xorshift generator, seeded
/// at random. Picks need to be spread, not secret.
fn random_below(bound: usize) -> usize {
    thread_local! {
        static STATE: Cell<u64> = Cell::new(
            std::collections::hash_map::RandomState::new().hash_one(0x5e7) | 1,
        );
    }
    STATE.with(|state| {
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        state.set(x);
        ((u128::from(x) * bound as u128) >> 64) as usize
    })
}

impl SetStorage for Arc<Store> {
    fn set_union(
        &self,
        cache: &CacheId,
        key: &[u8],
        elements: Vec<Bytes>,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<usize, Error>> + Send {
        // Copied into the set's run under the lock, one copy: nothing keeps
        // a handle on the request's buffer.
        let growth = SetValue::growth(&elements);
        let added = self.grow(*cache, key, Some(ttl), growth, |set: &mut SetValue| {
            set.union(elements, max_len)
        });
        ready(added.map(Option::unwrap_or_default))
    }

    fn set_difference(
        &self,
        cache: &CacheId,
        key: &[u8],
        remove: &SetRemove,
    ) -> impl Future<Output = Result<bool, Error>> + Send {
        let removed = self.write(*cache, key, None, |set: &mut SetValue| {
            Ok(set.difference(remove))
        });
        ready(removed.map(|found| found.is_some()))
    }

    fn set_fetch(
        &self,
        cache: &CacheId,
        key: &[u8],
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, Error>> + Send {
        let size = |set: &SetValue| AnswerSize::of::<Bytes>(set.fetch_encoded_len(), set.len());
        ready(self.read_answer(
            &mut Reserved::default(),
            *cache,
            key,
            max_answer,
            size,
            SetValue::fetch,
        ))
    }

    fn set_contains(
        &self,
        cache: &CacheId,
        key: &[u8],
        elements: &[Bytes],
    ) -> impl Future<Output = Result<Option<Vec<bool>>, Error>> + Send {
        ready(self.read(*cache, key, |set: &SetValue| set.contains_each(elements)))
    }

    fn set_length(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.read(*cache, key, SetValue::len))
    }

    fn set_pop(
        &self,
        cache: &CacheId,
        key: &[u8],
        count: u32,
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, Error>> + Send {
        ready(self.write(*cache, key, None, |set: &mut SetValue| {
            set.pop(count as usize, max_answer)
        }))
    }

    fn set_sample(
        &self,
        cache: &CacheId,
        key: &[u8],
        limit: u64,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, Error>> + Send {
        let sample = self.read(*cache, key, |set: &SetValue| set.sample(limit));
        ready(sample.and_then(|sample| {
            if let Some(values) = &sample {
                let encoded = values.iter().map(|value| repeated_len(value.len())).sum();
                charge_built(AnswerSize::of::<Bytes>(encoded, values.len()))?;
            }
            Ok(sample)
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    const NO_LIMIT: usize = usize::MAX;

    fn bytes(values: &[&str]) -> Vec<Bytes> {
        values
            .iter()
            .map(|v| Bytes::copy_from_slice(v.as_bytes()))
            .collect()
    }

    fn set(values: &[&str]) -> SetValue {
        let mut set = SetValue::default();
        set.union(bytes(values), NO_LIMIT).unwrap();
        set
    }

    fn contents(elements: &[Bytes]) -> BTreeSet<String> {
        elements
            .iter()
            .map(|v| String::from_utf8(v.to_vec()).unwrap())
            .collect()
    }

    fn strings(values: &[&str]) -> BTreeSet<String> {
        values.iter().map(|v| v.to_string()).collect()
    }

    /// The answer size kept incrementally matches the elements, and the
    /// run and its index are consistent.
    fn assert_consistent(set: &SetValue) {
        let recomputed: u64 = set.fetch().iter().map(|e| repeated_len(e.len())).sum();
        assert_eq!(set.encoded, recomputed);
        set.elements.assert_consistent();
    }

    #[test]
    fn union_adds_each_element_once() {
        let mut s = set(&["a", "b"]);
        assert_eq!(s.union(bytes(&["b", "c", "c", ""]), NO_LIMIT), Ok(4));
        assert_eq!(contents(&s.fetch()), strings(&["a", "b", "c", ""]));
        assert_eq!(s.union(vec![], NO_LIMIT), Ok(4));
        assert_consistent(&s);
    }

    #[test]
    fn a_union_past_the_element_limit_changes_nothing() {
        let mut s = set(&["a", "b"]);
        let before = s.cost();
        assert_eq!(
            s.union(bytes(&["c", "d", "a"]), 3),
            Err(Error::CollectionTooLarge {
                elements: 4,
                limit: 3
            })
        );
        assert_eq!(contents(&s.fetch()), strings(&["a", "b"]));
        assert_eq!(s.cost(), before);
        // Elements already there, or repeated, do not count.
        assert_eq!(s.union(bytes(&["a", "b", "c", "c"]), 3), Ok(3));
        assert_consistent(&s);
    }

    #[test]
    fn removals_keep_the_positions_dense() {
        let mut s = set(&["0", "1", "2", "3", "4", "5"]);
        assert!(s.remove(b"0"));
        assert!(!s.remove(b"0"));
        assert!(s.remove(b"5"));
        assert_consistent(&s);
        assert_eq!(
            s.difference(&SetRemove::Elements(bytes(&["2", "x", "3"]))),
            2
        );
        assert_eq!(contents(&s.fetch()), strings(&["1", "4"]));
        assert_consistent(&s);
        assert_eq!(s.difference(&SetRemove::All), 0);
        assert_eq!(s.cost(), 0);
        assert_consistent(&s);
    }

    #[test]
    fn a_set_emptied_bit_by_bit_gives_its_room_back() {
        let all: Vec<String> = (0..1000).map(|n| n.to_string()).collect();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let mut s = set(&all);
        let room = s.cost();
        let popped = s.pop(990, usize::MAX).unwrap();
        assert_eq!((popped.len(), s.len()), (990, 10));
        assert!(s.cost() < room / 100, "{} of {room}", s.cost());
        assert_consistent(&s);
        for element in &all {
            assert_eq!(
                s.contains(element.as_bytes()),
                !contents(&popped).contains(*element)
            );
        }
    }

    #[test]
    fn contains_answers_in_the_order_asked() {
        let s = set(&["a", "c"]);
        assert_eq!(
            s.contains_each(&bytes(&["c", "b", "a", "a"])),
            [true, false, true, true]
        );
        assert!(s.contains_each(&[]).is_empty());
    }

    #[test]
    fn a_pop_over_the_answer_limit_changes_nothing() {
        let all: Vec<String> = (0..100).map(|n| format!("{n:0>10}")).collect();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let mut s = set(&all);
        let cost = s.cost();
        // 20 elements of 10 bytes answer 20 x 12 bytes, plus the `found` header.
        let twenty = 20 * 12 + 3;
        for count in [20, 100, 1000] {
            let refused = s.pop(count, twenty - 1);
            assert!(
                matches!(refused, Err(Error::AnswerTooLarge { size, limit })
                    if size >= twenty && limit == twenty - 1),
                "{refused:?}"
            );
            assert_eq!((s.len(), s.cost()), (100, cost));
            assert_consistent(&s);
        }
        assert_eq!(s.pop(20, twenty).map(|p| p.len()), Ok(20));
        assert_eq!(s.len(), 80);
    }

    #[test]
    fn the_pop_answer_size_is_the_encoded_size() {
        use crate::proto::cache_client::set_pop_response::{Found, Set};
        use crate::proto::cache_client::SetPopResponse;
        use prost::Message;
        for lengths in [vec![], vec![0], vec![1, 127, 128], vec![20_000; 200]] {
            let elements = lengths.iter().map(|&n| Bytes::from(vec![7; n])).collect();
            let answer = SetPopResponse {
                set: Some(Set::Found(Found { elements })),
            };
            assert_eq!(
                pop_answer_size(lengths.iter().copied()),
                answer.encoded_len(),
                "{lengths:?}"
            );
        }
    }

    #[test]
    fn pop_takes_distinct_elements_until_empty() {
        let all = ["a", "b", "c", "d", "e", "f", "g"];
        let mut s = set(&all);
        let mut taken = BTreeSet::new();
        for (count, answered, left) in [(1, 1, 6), (4, 4, 2), (5, 2, 0)] {
            let popped = s.pop(count, usize::MAX).unwrap();
            assert_eq!(popped.len(), answered);
            assert_eq!(s.len(), left);
            for element in contents(&popped) {
                assert!(taken.insert(element), "popped twice");
            }
            for element in contents(&s.fetch()) {
                assert!(!taken.contains(&element), "popped, still there");
            }
            assert_consistent(&s);
        }
        assert_eq!(taken, strings(&all));
        assert_eq!(s.cost(), 0);
    }

    #[test]
    fn pops_and_samples_reach_every_element() {
        let all: Vec<String> = (0..20).map(|n| n.to_string()).collect();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let s = set(&all);
        let (mut sampled, mut popped) = (BTreeSet::new(), BTreeSet::new());
        for _ in 0..500 {
            sampled.extend(contents(&s.sample(3)));
            let mut copy = set(&all);
            popped.extend(contents(&copy.pop(2, usize::MAX).unwrap()));
        }
        assert_eq!(sampled, strings(&all));
        assert_eq!(popped, strings(&all));
    }

    #[test]
    fn sample_answers_distinct_elements_and_leaves_the_set() {
        let s = set(&["a", "b", "c", "d", "e"]);
        assert!(s.sample(0).is_empty());
        for limit in [1, 3, 5] {
            let sample = s.sample(limit);
            assert_eq!(sample.len(), limit as usize);
            assert_eq!(contents(&sample).len(), limit as usize, "distinct");
            assert!(contents(&sample).is_subset(&contents(&s.fetch())));
        }
        assert_eq!(s.sample(u64::MAX).len(), 5);
        assert_eq!(s.len(), 5);
        assert_consistent(&s);
    }

    use crate::store::tests::{store_with, MINUTE_TTL as MINUTE};

    #[tokio::test]
    async fn the_store_charges_each_element_and_frees_an_emptied_set() {
        let (store, c) = store_with(1 << 30);
        store
            .set_union(&c, b"s", bytes(&["a"]), MINUTE, NO_LIMIT)
            .await
            .unwrap();
        // What the store charges beside the set's own cost: key, box, item.
        let beside = |store: &Store| {
            let cost = store.read(c, b"s", SetValue::cost).unwrap().unwrap();
            store.stats().bytes - cost
        };
        let fixed = beside(&store);
        assert!(fixed > 0);
        let added = store.set_union(&c, b"s", bytes(&["a", "b", "c"]), MINUTE, NO_LIMIT);
        assert_eq!(added.await, Ok(3));
        assert_eq!(beside(&store), fixed);
        let popped = store
            .set_pop(&c, b"s", 1, usize::MAX)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(popped.len(), 1);
        assert_eq!(beside(&store), fixed);
        let before = store.stats().bytes;
        let refused = store.set_union(&c, b"s", bytes(&["x", "y"]), MINUTE, 3);
        assert!(refused.await.is_err());
        assert_eq!(store.stats().bytes, before);
        assert_eq!(
            store.set_difference(&c, b"s", &SetRemove::All).await,
            Ok(true)
        );
        assert_eq!((store.stats().items, store.stats().bytes), (0, 0));
        assert_eq!(store.set_fetch(&c, b"s", usize::MAX).await, Ok(None));
    }

    #[tokio::test]
    async fn sets_are_evicted_under_the_memory_cap() {
        let cap = 256 << 10;
        let (store, c) = store_with(cap);
        let elements: Vec<String> = (0..100).map(|n| format!("element {n:>40}")).collect();
        let elements: Vec<&str> = elements.iter().map(String::as_str).collect();
        for n in 0..200 {
            let key = format!("set-{n}");
            let union = store.set_union(&c, key.as_bytes(), bytes(&elements), MINUTE, NO_LIMIT);
            union.await.unwrap();
            assert!(store.stats().bytes <= cap, "{:?}", store.stats());
        }
        assert!(store.stats().evictions > 0);
        let last = store.set_length(&c, b"set-199").await;
        assert_eq!(last, Ok(Some(100)), "the set just written stays");
    }

    #[derive(Clone, Debug)]
    enum Op {
        Union(Vec<u8>, usize),
        Remove(Vec<u8>),
        RemoveAll,
        Pop(usize),
        Sample(u64),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        // Few enough distinct elements that unions and removals meet them
        // again, enough (and some long enough) that a set crosses the
        // bounds of its small form both ways.
        let elements = prop::collection::vec(0u8..120, 0..48);
        prop_oneof![
            6 => (elements.clone(), 0usize..130).prop_map(|(e, max)| Op::Union(e, max)),
            3 => elements.prop_map(Op::Remove),
            1 => Just(Op::RemoveAll),
            2 => (1usize..40).prop_map(Op::Pop),
            2 => (0u64..40).prop_map(Op::Sample),
        ]
    }

    /// Random sequences of changes keep the set what a plain model set
    /// holds, small or large, its ids dense and its cost exact.
    #[test]
    fn the_set_follows_a_model_under_random_changes() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        // One in ten long: a few of them pass a small set's bytes.
        let element = |n: u8| match n % 10 {
            0 => Bytes::from(format!("element {n:>400}")),
            _ => Bytes::from(format!("element {n}")),
        };
        let mut runner = TestRunner::new(Config {
            failure_persistence: None,
            ..Config::with_cases(256)
        });
        let ops = prop::collection::vec(op(), 1..60);
        // Whether some sequence took a map from small to large, and one
        // back: the bounds are crossed both ways.
        let crossed = [std::cell::Cell::new(false), std::cell::Cell::new(false)];
        runner
            .run(&ops, |ops| {
                let mut s = SetValue::default();
                let mut small = true;
                let mut model: BTreeSet<Bytes> = BTreeSet::new();
                for op in ops {
                    match op {
                        Op::Union(elements, max) => {
                            let elements: Vec<Bytes> = elements.into_iter().map(element).collect();
                            let after: BTreeSet<Bytes> =
                                model.iter().chain(&elements).cloned().collect();
                            let answer = s.union(elements, max);
                            if after.len() > max {
                                prop_assert!(answer.is_err());
                            } else {
                                prop_assert_eq!(answer, Ok(after.len()));
                                model = after;
                            }
                        }
                        Op::Remove(elements) => {
                            let elements: Vec<Bytes> = elements.into_iter().map(element).collect();
                            for e in &elements {
                                model.remove(e);
                            }
                            s.difference(&SetRemove::Elements(elements));
                        }
                        Op::RemoveAll => {
                            model.clear();
                            s.difference(&SetRemove::All);
                        }
                        Op::Pop(count) => {
                            let popped = s.pop(count, usize::MAX).unwrap();
                            prop_assert_eq!(popped.len(), count.min(model.len()));
                            for e in &popped {
                                prop_assert!(model.remove(e), "popped {:?} twice", e);
                            }
                        }
                        Op::Sample(limit) => {
                            let sample = s.sample(limit);
                            let distinct: BTreeSet<Bytes> = sample.iter().cloned().collect();
                            prop_assert_eq!(sample.len(), distinct.len());
                            prop_assert_eq!(sample.len() as u64, limit.min(model.len() as u64));
                            prop_assert!(distinct.is_subset(&model));
                        }
                    }
                    let held: BTreeSet<Bytes> = s.fetch().into_iter().collect();
                    prop_assert_eq!(&held, &model);
                    assert_consistent(&s);
                    let now = s.elements.is_small();
                    if now != small {
                        crossed[usize::from(now)].set(true);
                        small = now;
                    }
                }
                Ok(())
            })
            .unwrap();
        assert!(crossed.iter().all(std::cell::Cell::get), "{crossed:?}");
    }

    #[test]
    fn a_small_set_is_charged_its_run() {
        // Each element a length byte and its bytes: 21 bytes, a 32-byte run.
        let s = set(&["", "x", &"y".repeat(17)]);
        assert!(s.elements.is_small());
        assert_eq!(s.cost(), 32);
    }

    /// Not a check: the calls whose instructions `valgrind --tool=callgrind
    /// --toggle-collect='*set_calls*'` counts: a SetUnion of one element
    /// and a SetContains of one (there half the time), 20,000 times each,
    /// over 1,000 sets of ten elements and one of 100,000.
    #[tokio::test]
    #[ignore = "a workload for callgrind"]
    async fn callgrind_workload() {
        use futures_util::FutureExt;
        let (store, c) = store_with(1 << 30);
        let element = |n: usize| Bytes::from(format!("member:{n}"));
        let fill = |key: &str, range: std::ops::Range<usize>| {
            let elements = range.map(element).collect();
            let union = store.set_union(&c, key.as_bytes(), elements, MINUTE, NO_LIMIT);
            union.now_or_never().unwrap().unwrap();
        };
        crate::store::packed_map::tests::workload(fill, |key, n| set_calls(&store, c, key, n));
    }

    #[inline(never)]
    fn set_calls(store: &Arc<Store>, c: CacheId, key: &str, n: usize) {
        use futures_util::FutureExt;
        let added = vec![Bytes::from(format!("added:{n}"))];
        let union = store.set_union(&c, key.as_bytes(), added, MINUTE, NO_LIMIT);
        union.now_or_never().unwrap().unwrap();
        let asked = [Bytes::from(format!("member:{}", n % 20))];
        let contains = store.set_contains(&c, key.as_bytes(), &asked);
        contains.now_or_never().unwrap().unwrap();
    }

    #[test]
    fn growth_covers_what_a_union_adds() {
        let mut s = SetValue::default();
        for n in 0..3_000usize {
            let elements: Vec<Bytes> = (0..n % 7 + 1)
                .map(|i| Bytes::from(format!("{n}-{i}")))
                .collect();
            let (before, growth) = (s.cost(), SetValue::growth(&elements)(&s));
            s.union(elements, NO_LIMIT).unwrap();
            assert!(s.cost() <= before + growth, "union {n}");
        }
    }
}
