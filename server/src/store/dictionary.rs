//! Dictionaries in the embedded store: a hash map of field to value, with
//! the cost of its entries and the size of its whole answer kept up to date
//! by every change.
//!
//! What each call costs, for a dictionary of n fields: Set O(k) for k
//! fields, Get O(k), Increment, Length O(1), Delete O(k) (all: O(n) to
//! free), Fetch O(n): one copy of the fields and values (no sort: the
//! answer is a map, in no promised order), its answer's size known in O(1)
//! beforehand ([`Dictionary::fetch_encoded_len`]) and charged to the
//! in-flight budget before it is copied (`answer.rs`); a large one is
//! copied off the runtime.
//!
//! Every method checks what can fail before it changes anything, so a
//! refused call leaves the dictionary as it was.

use std::collections::{HashMap, HashSet};
use std::future::{ready, Future};
use std::sync::Arc;

use super::answer::{repeated_len, singular_len, AnswerSize, Copier, Reserved};
use super::cost::{part_cost, shrunk_room, DICTIONARY_ENTRY_OVERHEAD};
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

/// The charge of one entry holding `field` and `value`.
fn entry_cost(field: &[u8], value: &[u8]) -> u64 {
    part_cost(field.len()) + part_cost(value.len()) + DICTIONARY_ENTRY_OVERHEAD
}

/// The bytes one entry takes in a DictionaryFetch answer, as prost encodes
/// it: a `DictionaryFieldValuePair` (an empty field or value is left out,
/// proto3's default) behind its tag and length.
fn entry_encoded_len(field: &[u8], value: &[u8]) -> u64 {
    let pair = singular_len(field.len()) + singular_len(value.len());
    repeated_len(pair as usize)
}

/// The bytes one part of a DictionaryGet answer takes: its result (a hit
/// or a miss, two bytes either way) and the value of a hit.
fn get_part_encoded_len(value: Option<&Bytes>) -> u64 {
    repeated_len(2 + value.map_or(0, |value| singular_len(value.len())) as usize)
}

#[derive(Debug, Default)]
pub struct Dictionary {
    entries: HashMap<Bytes, Bytes>,
    /// The sum of [`entry_cost`] over `entries`: every mutator keeps it, so
    /// the store reads the dictionary's charge in O(1).
    cost: u64,
    /// The sum of [`entry_encoded_len`] over `entries`, kept likewise.
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
        self.cost
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
        let new: HashSet<&[u8]> = items
            .iter()
            .map(|(field, _)| &field[..])
            .filter(|field| !self.entries.contains_key(*field))
            .collect();
        let len = self.entries.len() + new.len();
        if len > max_len {
            return Err(Error::CollectionTooLarge {
                elements: len,
                limit: max_len,
            });
        }
        for (field, value) in items {
            self.insert(field, value);
        }
        Ok(())
    }

    /// Adds `amount` to the base-10 i64 the field holds (absent: 0) and
    /// stores the sum back as text; answers it.
    pub fn increment(&mut self, field: &[u8], amount: i64, max_len: usize) -> Result<i64, Error> {
        let total = match self.entries.get(field) {
            Some(value) => std::str::from_utf8(value)
                .ok()
                .and_then(|text| text.parse::<i64>().ok())
                .ok_or(Error::NotAnInteger)?
                .checked_add(amount)
                .ok_or(Error::IncrementOverflow)?,
            None => {
                let len = self.entries.len() + 1;
                if len > max_len {
                    return Err(Error::CollectionTooLarge {
                        elements: len,
                        limit: max_len,
                    });
                }
                amount
            }
        };
        self.insert(
            Bytes::copy_from_slice(field),
            Bytes::from(total.to_string()),
        );
        Ok(total)
    }

    /// The bytes of the parts of a DictionaryGet answer for `fields`, in
    /// O(k) lookups, before any value is shared out.
    pub fn get_encoded_len(&self, fields: &[Bytes]) -> u64 {
        fields
            .iter()
            .map(|field| get_part_encoded_len(self.entries.get(field)))
            .sum()
    }

    /// The value of each field, in the order given.
    pub fn get(&self, fields: &[Bytes]) -> Vec<Option<Bytes>> {
        let found: Vec<_> = fields.iter().map(|field| self.entries.get(field)).collect();
        let mut copier = Copier::of(found.iter().flatten());
        found
            .into_iter()
            .map(|value| value.map(|value| copier.copy(value)))
            .collect()
    }

    /// Every entry, in the hash map's order (no sort: the protocol answers
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
            .map(|(field, value)| (copier.copy(field), copier.copy(value)))
            .collect()
    }

    pub fn delete(&mut self, delete: &DictionaryDelete) {
        match delete {
            DictionaryDelete::All => {
                self.entries = HashMap::new();
                self.cost = 0;
                self.encoded_len = 0;
            }
            DictionaryDelete::Fields(fields) => {
                for field in fields {
                    if let Some((field, value)) = self.entries.remove_entry(&field[..]) {
                        self.cost -= entry_cost(&field, &value);
                        self.encoded_len -= entry_encoded_len(&field, &value);
                    }
                }
                shrink(&mut self.entries);
            }
        }
    }

    fn insert(&mut self, field: Bytes, value: Bytes) {
        self.cost += entry_cost(&field, &value);
        self.encoded_len += entry_encoded_len(&field, &value);
        if let Some(old) = self.entries.get_mut(&field) {
            self.cost -= entry_cost(&field, old);
            self.encoded_len -= entry_encoded_len(&field, old);
            *old = value;
        } else {
            self.entries.insert(field, value);
        }
    }
}

/// Gives back the room of a table emptied to under a quarter
/// ([`shrunk_room`]): the entries are charged a measured overhead that
/// assumes a table at least 7/16 full ([`DICTIONARY_ENTRY_OVERHEAD`]), so
/// the room held stays in proportion to the charge.
fn shrink(entries: &mut HashMap<Bytes, Bytes>) {
    if let Some(room) = shrunk_room(entries.len(), entries.capacity()) {
        entries.shrink_to(room);
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
        // Copied before the lock: a large value's copy should not hold up
        // the shard, and a copy keeps the request's buffer from being pinned.
        let items: Vec<(Bytes, Bytes)> = items
            .iter()
            .map(|(f, v)| (Bytes::copy_from_slice(f), Bytes::copy_from_slice(v)))
            .collect();
        let growth = items.iter().map(|(f, v)| entry_cost(f, v)).sum();
        let set = self.grow(
            *cache,
            key,
            Some(ttl),
            |_| growth,
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
        let growth = entry_cost(field, i64::MIN.to_string().as_bytes());
        let total = self.grow(
            *cache,
            key,
            Some(ttl),
            |_| growth,
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

    /// The cost and answer size kept incrementally equal those recomputed
    /// from scratch, the size as prost encodes the answer's items.
    fn assert_cost_is_exact(d: &Dictionary) {
        use crate::proto::cache_client::{dictionary_fetch_response, DictionaryFieldValuePair};
        use prost::Message;
        let recomputed: u64 = d.entries.iter().map(|(f, v)| entry_cost(f, v)).sum();
        assert_eq!(d.cost(), recomputed);
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
    /// and holds a table for a few, not the 10,000's.
    #[test]
    fn a_dictionary_cut_to_a_few_fields_gives_its_table_back() {
        let field = |i: usize| Bytes::from(format!("field-{i}"));
        let mut d = Dictionary::default();
        let items = (0..10_000).map(|i| (field(i), bytes("value"))).collect();
        d.set(items, NO_LIMIT).unwrap();
        let (grown, room) = (d.cost(), d.entries.capacity());
        assert!(room >= 10_000);
        d.delete(&DictionaryDelete::Fields((3..10_000).map(field).collect()));
        assert_eq!(d.len(), 3);
        assert_cost_is_exact(&d);
        assert_eq!(d.cost() * 10_000, grown * 3);
        assert!(
            d.entries.capacity() < 16,
            "room for {}",
            d.entries.capacity()
        );
    }

    #[test]
    fn each_entry_is_charged_its_allocations_and_the_overhead() {
        let d = dictionary(&[("", "x"), ("f", &"y".repeat(17))]);
        assert_eq!(d.cost(), 16 + 16 + 32 + 2 * DICTIONARY_ENTRY_OVERHEAD);
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
        assert_eq!(store.stats().bytes - one, entry_cost(b"field-1", &[1; 100]));
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
    /// --toggle-collect='*dictionary_calls*'` counts (bench/README.md,
    /// "Result after lean sets and dictionaries"): 20,000 DictionarySets of
    /// one field and 20,000 DictionaryGets of one (half of them there)
    /// through the store, over 1,000 dictionaries of ten fields and one of
    /// 100,000.
    #[tokio::test]
    #[ignore = "a workload for callgrind"]
    async fn callgrind_workload() {
        let (store, c) = crate::store::tests::store_with(1 << 30);
        let ttl = crate::store::tests::MINUTE_TTL;
        let field = |n: usize| {
            (
                Bytes::from(format!("field:{n}")),
                Bytes::from(vec![b'v'; 10]),
            )
        };
        for key in 0..1_001 {
            let name = format!("key:{key}");
            let len = if key == 1_000 { 100_000 } else { 10 };
            for start in (0..len).step_by(1_000) {
                let items = (start..len.min(start + 1_000)).map(field).collect();
                let set = store.dictionary_set(&c, name.as_bytes(), items, ttl, NO_LIMIT);
                set.await.unwrap();
            }
        }
        dictionary_calls(&store, c);
    }

    #[inline(never)]
    fn dictionary_calls(store: &Arc<Store>, c: CacheId) {
        use futures_util::FutureExt;
        let ttl = crate::store::tests::MINUTE_TTL;
        for n in 0..20_000usize {
            let key = match n % 2 {
                0 => format!("key:{}", n % 1_000),
                _ => "key:1000".to_string(),
            };
            let items = vec![(
                Bytes::from(format!("added:{n}")),
                Bytes::from(vec![b'v'; 100]),
            )];
            let set = store.dictionary_set(&c, key.as_bytes(), items, ttl, NO_LIMIT);
            set.now_or_never().unwrap().unwrap();
            let asked = [Bytes::from(format!("field:{}", n % 20))];
            let get = store.dictionary_get(&c, key.as_bytes(), &asked, usize::MAX);
            get.now_or_never().unwrap().unwrap();
        }
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
