//! Dictionaries in the embedded store: the fields and values packed in one
//! run, each field followed by its value, found by a scan while the
//! dictionary is small and through a hash table of their ids once it is
//! large (`packed_map.rs`, as Redis's listpack and hash table encodings),
//! with the size of its whole answer kept up to date by every change.
//!
//! What each call costs, for a dictionary of n fields, k of them named:
//! Set, Get, Delete O(k) large, O(k x `SMALL_LEN`) small (plus, past a
//! bound, an O(n) change of form or a copy of the run without its holes,
//! amortized; Delete of all: O(1) to free the run); Increment O(1) large,
//! O(`SMALL_LEN`) small; Length O(1); Fetch O(n): one copy of the fields and
//! values (no sort: the answer is a map, in no promised order), its answer's
//! size known in O(1) beforehand ([`Dictionary::fetch_encoded_len`]) and
//! charged to the in-flight budget before it is copied (`answer.rs`); a
//! large one is copied off the runtime. The charge (the run and the index,
//! by capacity) is read in O(1).
//!
//! Every method checks what can fail before it changes anything, so a
//! refused call leaves the dictionary as it was.

use std::collections::HashSet;
use std::future::{ready, Future};
use std::sync::Arc;

use super::answer::{repeated_len, singular_len, AnswerSize, Copier, Reserved};
use super::packed::entry_len;
use super::packed_map::{PackedMap, MAX_LEN};
use super::{CacheId, Store};
use crate::backend::{CollectionTtl, DictionaryDelete, DictionaryStorage};
use crate::error::Error;
use bytes::Bytes;

/// Past this many fields a fetch is copied on tokio's blocking pool: a few
/// hundred microseconds of work, the longest a runtime worker should hold
/// the calls queued on it.
const INLINE_FETCH_FIELDS: usize = 4096;

/// Runs `copy` (a copy of O(n) parts out of the store) on tokio's blocking
/// pool, so the calls queued behind this one on its runtime worker (which
/// no other worker may take from it) are not held for its length.
pub(super) async fn on_blocking_pool<R: Send + 'static>(
    copy: impl FnOnce() -> R + Send + 'static,
) -> R {
    match tokio::task::spawn_blocking(copy).await {
        Ok(answer) => answer,
        Err(join) => std::panic::resume_unwind(join.into_panic()),
    }
}

/// The bytes an entry of a field of `field` bytes and a value of `value`
/// takes in the dictionary's run.
fn entry_bytes(field: usize, value: usize) -> usize {
    entry_len(field) + entry_len(value)
}

/// The bytes one entry takes in a DictionaryFetch answer, as prost encodes
/// it: a `DictionaryFieldValuePair` (an empty field or value is left out,
/// proto3's default) behind its tag and length.
fn entry_encoded_len(field: usize, value: usize) -> u64 {
    let pair = singular_len(field) + singular_len(value);
    repeated_len(pair as usize)
}

/// The bytes one part of a DictionaryGet answer takes: its result (a hit
/// or a miss, two bytes either way) and the value of a hit.
fn get_part_encoded_len(value: Option<&[u8]>) -> u64 {
    repeated_len(2 + value.map_or(0, |value| singular_len(value.len())) as usize)
}

#[derive(Debug, Default)]
pub struct Dictionary {
    /// Each entry a field, then its value.
    entries: PackedMap<2>,
    /// The sum of [`entry_encoded_len`] over the entries: every mutator
    /// keeps it, so the size of a fetch is read in O(1).
    encoded_len: u64,
}

impl Dictionary {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn cost(&self) -> u64 {
        self.entries.cost()
    }

    /// At least what setting `added` fields, of `bytes` bytes in all in the
    /// run ([`entry_bytes`]), adds to a dictionary's [`Self::cost`], so
    /// that the store can refuse a write before it is made.
    pub fn growth(added: usize, bytes: usize) -> impl FnOnce(&Dictionary) -> u64 {
        move |dictionary| dictionary.entries.growth(added, bytes)
    }

    /// The bytes of the entries of this dictionary's DictionaryFetch answer,
    /// exactly as encoded (the envelope around them adds at most 16), in
    /// O(1): an answer too large to send is refused without a walk.
    pub fn fetch_encoded_len(&self) -> u64 {
        self.encoded_len
    }

    /// A fetch's answer: its encoded size and the list of entries.
    fn fetch_size(&self) -> AnswerSize {
        AnswerSize::of::<(Bytes, Bytes)>(self.encoded_len, self.len())
    }

    /// Sets each field to its value, in order (so a repeated field keeps
    /// its last value). [`Error::CollectionTooLarge`], and nothing changes,
    /// when the dictionary would then hold more than `max_len` fields.
    pub fn set(&mut self, items: Vec<(Bytes, Bytes)>, max_len: usize) -> Result<(), Error> {
        let max_len = max_len.min(MAX_LEN);
        if self.len() + items.len() > max_len {
            // Only when the limit may be at stake: what the write really adds.
            let new: HashSet<&[u8]> = items
                .iter()
                .map(|(field, _)| &field[..])
                .filter(|field| !self.entries.contains(field))
                .collect();
            let len = self.len() + new.len();
            if len > max_len {
                return Err(Error::CollectionTooLarge {
                    elements: len,
                    limit: max_len,
                });
            }
        }
        for (field, value) in &items {
            self.insert(field, value);
        }
        Ok(())
    }

    /// Adds `amount` to the base-10 i64 the field holds (absent: 0) and
    /// stores the sum back as text; answers it.
    pub fn increment(&mut self, field: &[u8], amount: i64, max_len: usize) -> Result<i64, Error> {
        let total = match self.entries.get(field) {
            Some([_, value]) => std::str::from_utf8(value)
                .ok()
                .and_then(|text| text.parse::<i64>().ok())
                .ok_or(Error::NotAnInteger)?
                .checked_add(amount)
                .ok_or(Error::IncrementOverflow)?,
            None => {
                let len = self.len() + 1;
                if len > max_len.min(MAX_LEN) {
                    return Err(Error::CollectionTooLarge {
                        elements: len,
                        limit: max_len.min(MAX_LEN),
                    });
                }
                amount
            }
        };
        self.insert(field, total.to_string().as_bytes());
        Ok(total)
    }

    /// The value of `field`.
    fn value(&self, field: &[u8]) -> Option<&[u8]> {
        self.entries.get(field).map(|[_, value]| value)
    }

    /// The bytes of the parts of a DictionaryGet answer for `fields`, in
    /// O(k) lookups, before any value is copied out.
    pub fn get_encoded_len(&self, fields: &[Bytes]) -> u64 {
        fields
            .iter()
            .map(|field| get_part_encoded_len(self.value(field)))
            .sum()
    }

    /// The value of each field, in the order given.
    pub fn get(&self, fields: &[Bytes]) -> Vec<Option<Bytes>> {
        let found: Vec<_> = fields.iter().map(|field| self.value(field)).collect();
        let mut copier = Copier::of(found.iter().flatten());
        found
            .into_iter()
            .map(|value| value.map(|value| copier.copy(value)))
            .collect()
    }

    /// Every entry, in the order of the run (no sort: the protocol answers
    /// a map, and sorting a million fields under the shard lock held every
    /// other call of the shard for 100s of ms).
    ///
    /// The fields and values are copied out (see [`Copier`] for why).
    pub fn fetch(&self) -> Vec<(Bytes, Bytes)> {
        // The encoded size is the parts' bytes and a few more per entry: a
        // buffer of it never grows, so every slice shares one allocation.
        let mut copier = Copier::new(self.encoded_len as usize);
        self.entries
            .iter()
            .map(|[field, value]| (copier.copy(field), copier.copy(value)))
            .collect()
    }

    pub fn delete(&mut self, delete: &DictionaryDelete) {
        match delete {
            DictionaryDelete::All => {
                self.entries.clear();
                self.encoded_len = 0;
            }
            DictionaryDelete::Fields(fields) => {
                for field in fields {
                    if let Some([field, value]) = self.entries.remove(field) {
                        self.encoded_len -= entry_encoded_len(field, value);
                    }
                }
            }
        }
    }

    fn insert(&mut self, field: &[u8], value: &[u8]) {
        self.encoded_len += entry_encoded_len(field.len(), value.len());
        if let Some([field, old]) = self.entries.insert([field, value]) {
            self.encoded_len -= entry_encoded_len(field, old);
        }
    }
}

impl DictionaryStorage for Arc<Store> {
    fn dictionary_set(
        &self,
        cache: &CacheId,
        key: &[u8],
        items: Vec<(Bytes, Bytes)>,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        // Copied into the dictionary's run under the lock, one copy: nothing
        // keeps a handle on the request's buffer.
        let bytes = items.iter().map(|(f, v)| entry_bytes(f.len(), v.len()));
        let growth = Dictionary::growth(items.len(), bytes.sum());
        let set = self.grow(
            *cache,
            key,
            Some(ttl),
            growth,
            |dictionary: &mut Dictionary| dictionary.set(items, max_len),
        );
        ready(set.map(drop))
    }

    fn dictionary_increment(
        &self,
        cache: &CacheId,
        key: &[u8],
        field: &[u8],
        amount: i64,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<i64, Error>> + Send {
        // At most a new field holding the longest i64 text.
        let longest = i64::MIN.to_string().len();
        let growth = Dictionary::growth(1, entry_bytes(field.len(), longest));
        let total = self.grow(
            *cache,
            key,
            Some(ttl),
            growth,
            |dictionary: &mut Dictionary| dictionary.increment(field, amount, max_len),
        );
        // With a TTL, `write` always runs the closure, so there is a total.
        ready(total.map(|total| total.unwrap_or(amount)))
    }

    fn dictionary_get(
        &self,
        cache: &CacheId,
        key: &[u8],
        fields: &[Bytes],
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<Option<Bytes>>>, Error>> + Send {
        ready(self.read_answer(
            &mut Reserved::default(),
            *cache,
            key,
            max_answer,
            |dictionary: &Dictionary| {
                let encoded = dictionary.get_encoded_len(fields);
                AnswerSize::of::<Option<Bytes>>(encoded, fields.len())
            },
            |dictionary| dictionary.get(fields),
        ))
    }

    fn dictionary_fetch(
        &self,
        cache: &CacheId,
        key: &[u8],
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<(Bytes, Bytes)>>, Error>> + Send {
        let (store, cache, key) = (self.clone(), *cache, Bytes::copy_from_slice(key));
        async move {
            let small = |dictionary: &Dictionary| {
                (dictionary.len() <= INLINE_FETCH_FIELDS).then(|| dictionary.fetch())
            };
            // Charged to the call by the first pass, before any copy is
            // made, on the call's own task (the blocking pool has no call).
            let mut reserved = Reserved::default();
            let size = Dictionary::fetch_size;
            match store.read_answer(&mut reserved, cache, &key, max_answer, size, small)? {
                None => Ok(None),
                Some(Some(entries)) => Ok(Some(entries)),
                // Sized again: the dictionary may have grown in between.
                Some(None) => {
                    let copy = move || {
                        let fetch = Dictionary::fetch;
                        store.read_answer(&mut reserved, cache, &key, max_answer, size, fetch)
                    };
                    on_blocking_pool(copy).await
                }
            }
        }
    }

    fn dictionary_delete(
        &self,
        cache: &CacheId,
        key: &[u8],
        delete: &DictionaryDelete,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let deleted = self.write(*cache, key, None, |dictionary: &mut Dictionary| {
            dictionary.delete(delete);
            Ok(())
        });
        ready(deleted.map(drop))
    }

    fn dictionary_length(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.read(*cache, key, Dictionary::len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::cost::allocation_size;

    const NO_LIMIT: usize = usize::MAX;

    fn bytes(text: &str) -> Bytes {
        Bytes::copy_from_slice(text.as_bytes())
    }

    fn dictionary(items: &[(&str, &str)]) -> Dictionary {
        let mut d = Dictionary::default();
        d.set(pairs(items), NO_LIMIT).unwrap();
        d
    }

    fn pairs(items: &[(&str, &str)]) -> Vec<(Bytes, Bytes)> {
        items.iter().map(|(f, v)| (bytes(f), bytes(v))).collect()
    }

    /// The entries, sorted by field (fetch promises no order).
    fn contents(d: &Dictionary) -> Vec<(String, String)> {
        let mut entries: Vec<(String, String)> = d
            .fetch()
            .into_iter()
            .map(|(f, v)| {
                (
                    String::from_utf8(f.to_vec()).unwrap(),
                    String::from_utf8(v.to_vec()).unwrap(),
                )
            })
            .collect();
        entries.sort();
        entries
    }

    /// The answer size kept incrementally equals the one recomputed from
    /// scratch, as prost encodes the answer's items, and the run and its
    /// index are consistent (their cost what they hold).
    fn assert_cost_is_exact(d: &Dictionary) {
        use crate::proto::cache_client::{dictionary_fetch_response, DictionaryFieldValuePair};
        use prost::Message;
        d.entries.assert_consistent();
        let found = dictionary_fetch_response::Found {
            items: d
                .fetch()
                .into_iter()
                .map(|(field, value)| DictionaryFieldValuePair { field, value })
                .collect(),
        };
        assert_eq!(d.fetch_encoded_len(), found.encoded_len() as u64);
    }

    #[test]
    fn set_adds_and_replaces_and_a_repeated_field_keeps_its_last_value() {
        let mut d = dictionary(&[("a", "1"), ("b", "2")]);
        d.set(pairs(&[("b", "two"), ("c", "3"), ("c", "three")]), NO_LIMIT)
            .unwrap();
        let expected =
            [("a", "1"), ("b", "two"), ("c", "three")].map(|(f, v)| (f.to_string(), v.to_string()));
        assert_eq!(contents(&d), expected);
        assert_cost_is_exact(&d);
    }

    #[test]
    fn a_set_past_the_element_limit_changes_nothing() {
        let mut d = dictionary(&[("a", "1"), ("b", "2")]);
        let before = d.cost();
        assert_eq!(
            d.set(pairs(&[("c", "3"), ("d", "4"), ("c", "5")]), 3),
            Err(Error::CollectionTooLarge {
                elements: 4,
                limit: 3
            })
        );
        assert_eq!(d.len(), 2);
        assert_eq!(d.cost(), before);
        // Fields already there do not count again.
        d.set(pairs(&[("a", "x"), ("b", "y"), ("c", "z")]), 3)
            .unwrap();
        assert_eq!(d.len(), 3);
        assert_eq!(
            d.increment(b"d", 1, 3),
            Err(Error::CollectionTooLarge {
                elements: 4,
                limit: 3
            })
        );
        d.set(pairs(&[("c", "7")]), 3).unwrap();
        assert_eq!(d.increment(b"c", 1, 3), Ok(8));
    }

    #[test]
    fn increment_counts_an_absent_field_as_zero_and_refuses_text() {
        let mut d = Dictionary::default();
        assert_eq!(d.increment(b"n", 5, NO_LIMIT), Ok(5));
        assert_eq!(d.increment(b"n", -7, NO_LIMIT), Ok(-2));
        assert_eq!(d.get(&[bytes("n")]), [Some(bytes("-2"))]);
        d.set(
            pairs(&[("t", "abcxyz"), ("max", "9223372036854775807")]),
            NO_LIMIT,
        )
        .unwrap();
        let before = d.cost();
        assert_eq!(d.increment(b"t", 1, NO_LIMIT), Err(Error::NotAnInteger));
        assert_eq!(
            d.increment(b"max", 1, NO_LIMIT),
            Err(Error::IncrementOverflow)
        );
        assert_eq!(d.cost(), before);
        assert_eq!(d.increment(b"max", 0, NO_LIMIT), Ok(i64::MAX));
        assert_cost_is_exact(&d);
    }

    #[test]
    fn get_answers_in_the_order_asked() {
        let d = dictionary(&[("a", "1"), ("b", "2")]);
        assert_eq!(
            d.get(&[bytes("b"), bytes("x"), bytes("a"), bytes("b")]),
            [Some(bytes("2")), None, Some(bytes("1")), Some(bytes("2"))]
        );
    }

    #[test]
    fn delete_removes_fields_or_everything() {
        let mut d = dictionary(&[("a", "1"), ("b", "2"), ("c", "3")]);
        d.delete(&DictionaryDelete::Fields(vec![
            bytes("a"),
            bytes("x"),
            bytes("a"),
        ]));
        assert_eq!(d.len(), 2);
        assert_cost_is_exact(&d);
        d.delete(&DictionaryDelete::All);
        assert!(d.is_empty());
        assert_eq!(d.cost(), 0);
        assert_eq!(d.fetch_encoded_len(), 0);
    }

    #[test]
    fn the_answer_size_counts_empty_parts_and_long_lengths() {
        let long = "v".repeat(300);
        let mut d = dictionary(&[("", ""), ("f", ""), ("", "x"), ("g", &long)]);
        assert_cost_is_exact(&d);
        d.set(pairs(&[("g", "short"), ("h", &long)]), NO_LIMIT)
            .unwrap();
        assert_cost_is_exact(&d);
        d.delete(&DictionaryDelete::Fields(vec![bytes("h"), bytes("")]));
        assert_cost_is_exact(&d);
        assert_eq!(d.increment(b"n", 7, NO_LIMIT), Ok(7));
        assert_cost_is_exact(&d);
    }

    /// Grown to 10,000 fields and cut to 3, a dictionary is charged for 3
    /// and holds a small run for them, not the 10,000's run and table.
    #[test]
    fn a_dictionary_cut_to_a_few_fields_gives_its_room_back() {
        let field = |i: usize| Bytes::from(format!("field-{i}"));
        let mut d = Dictionary::default();
        let items = (0..10_000).map(|i| (field(i), bytes("value"))).collect();
        d.set(items, NO_LIMIT).unwrap();
        let grown = d.cost();
        assert!(!d.entries.is_small());
        d.delete(&DictionaryDelete::Fields((3..10_000).map(field).collect()));
        assert_eq!(d.len(), 3);
        assert_cost_is_exact(&d);
        assert!(d.entries.is_small());
        // Three entries of 14 bytes, in a run that gave back half its room
        // each time it fell under a quarter full: under four times 48 bytes.
        assert!(d.cost() < 4 * 48, "{}", d.cost());
        assert!(grown > 10_000 * 14);
    }

    #[test]
    fn a_small_dictionary_is_charged_its_run() {
        // Each part a length byte and its bytes: 23 bytes, a 32-byte run.
        let d = dictionary(&[("", "x"), ("f", &"y".repeat(17))]);
        assert_eq!(d.cost(), 32);
    }

    #[derive(Clone, Debug)]
    enum Op {
        Set(Vec<(u8, u8)>, usize),
        Delete(Vec<u8>),
        DeleteAll,
        Increment(u8, i8),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        // Few enough distinct fields that writes and deletes meet them
        // again, enough (and some values long enough) that a dictionary
        // crosses the bounds of its small form both ways.
        let fields = prop::collection::vec(0u8..120, 0..48);
        let items = prop::collection::vec((0u8..120, any::<u8>()), 0..48);
        prop_oneof![
            6 => (items, 0usize..130).prop_map(|(items, max)| Op::Set(items, max)),
            3 => fields.prop_map(Op::Delete),
            1 => Just(Op::DeleteAll),
            2 => (0u8..120, any::<i8>()).prop_map(|(f, by)| Op::Increment(f, by)),
        ]
    }

    /// Random sequences of changes keep the dictionary what a plain model
    /// map holds, small or large, its answer size and cost exact.
    #[test]
    fn the_dictionary_follows_a_model_under_random_changes() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        use std::collections::BTreeMap;
        let field = |n: u8| Bytes::from(format!("field {n}"));
        // One value in eight long: a few of them pass a small run's bytes.
        let value = |n: u8| match n % 8 {
            0 => Bytes::from(format!("{n:>300}")),
            _ => Bytes::from(n.to_string()),
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
                let mut d = Dictionary::default();
                let mut small = true;
                let mut model: BTreeMap<Bytes, Bytes> = BTreeMap::new();
                for op in ops {
                    match op {
                        Op::Set(items, max) => {
                            let items: Vec<(Bytes, Bytes)> = items
                                .into_iter()
                                .map(|(f, v)| (field(f), value(v)))
                                .collect();
                            let mut after = model.clone();
                            after.extend(items.iter().cloned());
                            let answer = d.set(items, max);
                            prop_assert_eq!(answer.is_ok(), after.len() <= max);
                            if answer.is_ok() {
                                model = after;
                            }
                        }
                        Op::Delete(fields) => {
                            let fields: Vec<Bytes> = fields.into_iter().map(field).collect();
                            for f in &fields {
                                model.remove(f);
                            }
                            d.delete(&DictionaryDelete::Fields(fields));
                        }
                        Op::DeleteAll => {
                            model.clear();
                            d.delete(&DictionaryDelete::All);
                        }
                        Op::Increment(f, by) => {
                            let held = model
                                .get(&field(f))
                                .map(|v| std::str::from_utf8(v).unwrap().parse::<i64>());
                            let answer = d.increment(&field(f), by.into(), NO_LIMIT);
                            match held {
                                Some(Err(_)) => prop_assert_eq!(answer, Err(Error::NotAnInteger)),
                                held => {
                                    let total = held.map_or(0, Result::unwrap) + i64::from(by);
                                    prop_assert_eq!(answer, Ok(total));
                                    model.insert(field(f), Bytes::from(total.to_string()));
                                }
                            }
                        }
                    }
                    let held: BTreeMap<Bytes, Bytes> = d.fetch().into_iter().collect();
                    prop_assert_eq!(&held, &model);
                    prop_assert_eq!(d.len(), model.len());
                    assert_cost_is_exact(&d);
                    let now = d.entries.is_small();
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

    /// Through the store: each write charges the dictionary's entries, the
    /// memory cap evicts whole dictionaries, and emptying one frees it all.
    #[tokio::test]
    async fn the_store_charges_entries_and_frees_an_emptied_dictionary() {
        let (store, c) = crate::store::tests::store_with(1 << 20);
        let ttl = crate::store::tests::MINUTE_TTL;
        let items = |n: usize| -> Vec<(Bytes, Bytes)> {
            (0..n)
                .map(|i| (Bytes::from(format!("field-{i}")), Bytes::from(vec![1; 100])))
                .collect()
        };
        store
            .dictionary_set(&c, b"d", items(1), ttl, NO_LIMIT)
            .await
            .unwrap();
        let one = store.stats().bytes;
        store
            .dictionary_set(&c, b"d", items(2), ttl, NO_LIMIT)
            .await
            .unwrap();
        // The second entry grows the run from one entry's size class to two's.
        let entry = entry_bytes(b"field-1".len(), 100);
        let grown = allocation_size(2 * entry) - allocation_size(entry);
        assert_eq!(store.stats().bytes - one, grown as u64);
        let fields = vec![bytes("field-0"), bytes("field-1")];
        store
            .dictionary_delete(&c, b"d", &DictionaryDelete::Fields(fields))
            .await
            .unwrap();
        assert_eq!(store.stats().items, 0);
        assert_eq!(store.stats().bytes, 0);

        // 100 dictionaries of 100 entries of about 200 bytes: twice the cap.
        for i in 0..100 {
            let name = format!("d{i}");
            store
                .dictionary_set(&c, name.as_bytes(), items(100), ttl, NO_LIMIT)
                .await
                .unwrap();
            assert!(store.stats().bytes <= 1 << 20, "over the cap after {i}");
        }
        assert!(store.stats().evictions > 0);
        assert_eq!(
            store.dictionary_length(&c, b"d99").await.unwrap(),
            Some(100)
        );
    }

    /// Not a check: the calls whose instructions `valgrind --tool=callgrind
    /// --toggle-collect='*dictionary_calls*'` counts: a DictionarySet of one
    /// field and a DictionaryGet of one (there half the time), 20,000 times
    /// each, over 1,000 dictionaries of ten fields and one of 100,000.
    #[tokio::test]
    #[ignore = "a workload for callgrind"]
    async fn callgrind_workload() {
        use futures_util::FutureExt;
        let (store, c) = crate::store::tests::store_with(1 << 30);
        let ttl = crate::store::tests::MINUTE_TTL;
        let item = |n: usize| {
            (
                Bytes::from(format!("field:{n}")),
                Bytes::from(vec![b'v'; 10]),
            )
        };
        let fill = |key: &str, range: std::ops::Range<usize>| {
            let items = range.map(item).collect();
            let set = store.dictionary_set(&c, key.as_bytes(), items, ttl, NO_LIMIT);
            set.now_or_never().unwrap().unwrap();
        };
        let calls = |key: &str, n| dictionary_calls(&store, c, key, n);
        crate::store::packed_map::tests::workload(fill, calls);
    }

    #[inline(never)]
    fn dictionary_calls(store: &Arc<Store>, c: CacheId, key: &str, n: usize) {
        use futures_util::FutureExt;
        let ttl = crate::store::tests::MINUTE_TTL;
        let added = (
            Bytes::from(format!("added:{n}")),
            Bytes::from(vec![b'v'; 100]),
        );
        let set = store.dictionary_set(&c, key.as_bytes(), vec![added], ttl, NO_LIMIT);
        set.now_or_never().unwrap().unwrap();
        let asked = [Bytes::from(format!("field:{}", n % 20))];
        let get = store.dictionary_get(&c, key.as_bytes(), &asked, usize::MAX);
        get.now_or_never().unwrap().unwrap();
    }

    /// A fetch small enough to copy in place and one copied on the blocking
    /// pool answer alike: every entry once, as stored.
    #[tokio::test]
    async fn small_and_large_fetches_answer_every_entry() {
        let (store, c) = crate::store::tests::store_with(1 << 26);
        let ttl = crate::store::tests::MINUTE_TTL;
        for n in [3, INLINE_FETCH_FIELDS + 1] {
            let name = format!("d{n}");
            let items: Vec<(Bytes, Bytes)> = (0..n)
                .map(|i| (Bytes::from(format!("f{i}")), Bytes::from(format!("v{i}"))))
                .collect();
            store
                .dictionary_set(&c, name.as_bytes(), items.clone(), ttl, NO_LIMIT)
                .await
                .unwrap();
            let mut fetched = store
                .dictionary_fetch(&c, name.as_bytes(), usize::MAX)
                .await
                .unwrap()
                .unwrap();
            fetched.sort();
            let mut want = items;
            want.sort();
            assert_eq!(fetched, want, "{n} fields");
        }
        assert_eq!(
            store.dictionary_fetch(&c, b"missing", usize::MAX).await,
            Ok(None)
        );
    }
}
