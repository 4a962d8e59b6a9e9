//! Lists in the embedded store: values in order in a double-ended queue, so
//! both ends push and pop in O(1), with the cost of the elements kept up to
//! date by every change, and the queue's buffer charged by its capacity.
//!
//! Every method checks what can fail before it changes anything, so a
//! refused call leaves the list as it was.

use std::collections::VecDeque;
use std::future::{ready, Future};
use std::sync::Arc;

use bytes::Bytes;

use super::answer::{repeated_len, AnswerSize, Copier, Kept, Reserved};
use super::cost::{allocation_size, part_cost, shrunk_room};
use super::{CacheId, Store};
use crate::backend::{CollectionTtl, End, ListErase, ListPush, ListSlice, ListStorage};
use crate::error::Error;

/// The charge of one element holding `value`: its bytes and the header a
/// read leaves on them. Its slot is charged with the queue's buffer.
fn element_cost(value: &[u8]) -> u64 {
    part_cost(value.len())
}

/// What one element adds to what a list keeps: its charge, and its size in
/// a ListFetch answer.
fn element_kept(value: &[u8]) -> Kept {
    Kept {
        cost: element_cost(value),
        encoded: repeated_len(value.len()),
    }
}

/// The charge of a queue buffer of `capacity` slots, one `Bytes` each. A
/// buffer never shrinks by itself, so a list popped down is charged the
/// room it keeps until it gives it back (see [`ListValue::shrink`]).
fn buffer_cost(capacity: usize) -> u64 {
    allocation_size(capacity * size_of::<Bytes>()) as u64
}

#[derive(Debug, Default)]
pub struct ListValue {
    values: VecDeque<Bytes>,
    /// The sums of [`element_kept`] over `values`: every mutator keeps
    /// them, so the store reads the list's charge and the size of a fetch
    /// of all of it in O(1).
    kept: Kept,
}

impl ListValue {
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn cost(&self) -> u64 {
        self.kept.cost + buffer_cost(self.values.capacity())
    }

    /// At least what pushing `values` adds to a list's [`Self::cost`]: their charge,
    /// and the room the buffer grows by if they do not fit (it at least
    /// doubles), so that the store can refuse a push before it is made.
    pub fn growth(values: &[Bytes]) -> impl FnOnce(&ListValue) -> u64 {
        let elements: u64 = values.iter().map(|value| element_cost(value)).sum();
        let added = values.len();
        move |list| list.room_for(added) + elements
    }

    /// What the buffer grows by to take `added` more values.
    fn room_for(&self, added: usize) -> u64 {
        let (len, capacity) = (self.values.len(), self.values.capacity());
        let needed = len + added;
        let grown = if needed > capacity {
            needed.max(2 * capacity).max(4)
        } else {
            capacity
        };
        buffer_cost(grown) - buffer_cost(capacity)
    }

    /// A list that shrank to a quarter of its room gives half of it back
    /// (all of it when empty), so the room it keeps, charged, stays in
    /// proportion to what it holds.
    fn shrink(&mut self) {
        if let Some(room) = shrunk_room(self.values.len(), self.values.capacity()) {
            self.values.shrink_to(room);
        }
    }

    /// Adds the values of `push` at its end, keeping their order, then
    /// drops values from the other end down to its `truncate_to`. Answers
    /// the length after.
    ///
    /// [`Error::CollectionTooLarge`], and nothing changes, when that length
    /// would be over `max_len`.
    pub fn push(&mut self, push: ListPush, max_len: usize) -> Result<usize, Error> {
        let ListPush {
            end,
            values,
            truncate_to,
        } = push;
        let mut len = self.values.len() + values.len();
        if truncate_to > 0 {
            len = len.min(truncate_to as usize);
        }
        if len > max_len {
            return Err(Error::CollectionTooLarge {
                elements: len,
                limit: max_len,
            });
        }
        self.kept += values.iter().map(|value| element_kept(value)).sum::<Kept>();
        match end {
            End::Back => self.values.extend(values),
            End::Front => {
                for value in values.into_iter().rev() {
                    self.values.push_front(value);
                }
            }
        }
        while self.values.len() > len {
            // Truncation drops from the end opposite the one written.
            let dropped = match end {
                End::Back => self.values.pop_front(),
                End::Front => self.values.pop_back(),
            };
            self.uncharge(dropped.as_deref());
        }
        self.shrink();
        Ok(len)
    }

    /// The value taken from `end`, if any.
    pub fn pop(&mut self, end: End) -> Option<Bytes> {
        let value = match end {
            End::Front => self.values.pop_front(),
            End::Back => self.values.pop_back(),
        };
        self.uncharge(value.as_deref());
        self.shrink();
        value
    }

    /// The bytes of the values of a ListFetch answer for `slice`: O(1) for
    /// the whole list; else the slice's values' lengths are added up, a walk
    /// of what the answer would copy, which copies nothing. Exact either
    /// way: it is what the call is charged before the copy, and the whole
    /// list's size standing in for a slice's would refuse a small slice of
    /// a large list for lack of budget.
    pub fn fetch_encoded_len(&self, slice: ListSlice) -> u64 {
        let bounds = slice.bounds(self.len());
        if bounds.len() == self.len() {
            return self.kept.encoded;
        }
        self.values
            .range(bounds)
            .map(|value| repeated_len(value.len()))
            .sum()
    }

    /// The values of the slice, in order; empty when it selects none.
    pub fn fetch(&self, slice: ListSlice) -> Vec<Bytes> {
        let values = self.values.range(slice.bounds(self.len()));
        let mut copier = Copier::of(values.clone());
        values.map(|value| copier.copy(value)).collect()
    }

    /// Keeps only the values of the slice; answers how many remain.
    pub fn retain(&mut self, slice: ListSlice) -> usize {
        let bounds = slice.bounds(self.len());
        for dropped in self.values.drain(bounds.end..) {
            self.kept -= element_kept(&dropped);
        }
        for dropped in self.values.drain(..bounds.start) {
            self.kept -= element_kept(&dropped);
        }
        self.shrink();
        self.values.len()
    }

    /// Removes every value equal to `value`; answers how many remain.
    pub fn remove_value(&mut self, value: &[u8]) -> usize {
        let mut freed = Kept::default();
        self.values.retain(|kept| {
            let matches = kept[..] == *value;
            if matches {
                freed += element_kept(kept);
            }
            !matches
        });
        self.kept -= freed;
        self.shrink();
        self.values.len()
    }

    /// Removes the values at the positions `erase` names (positions in the
    /// list as it was before the call; past the end, nothing); answers how
    /// many remain.
    pub fn erase(&mut self, erase: &ListErase) -> usize {
        let ranges = match erase {
            ListErase::All => {
                self.values = VecDeque::new();
                self.kept = Kept::default();
                return 0;
            }
            ListErase::Ranges(ranges) => ranges,
        };
        let len = self.values.len();
        let mut erased = vec![false; len];
        for range in ranges {
            let start = (range.begin as usize).min(len);
            let end = (range.begin as usize)
                .saturating_add(range.count as usize)
                .min(len);
            erased[start..end].fill(true);
        }
        let (mut index, mut freed) = (0, Kept::default());
        // `retain` visits the values once each, in order.
        self.values.retain(|value| {
            let erase = erased[index];
            index += 1;
            if erase {
                freed += element_kept(value);
            }
            !erase
        });
        self.kept -= freed;
        self.shrink();
        self.values.len()
    }

    fn uncharge(&mut self, value: Option<&[u8]>) {
        if let Some(value) = value {
            self.kept -= element_kept(value);
        }
    }
}

impl ListStorage for Arc<Store> {
    fn list_push(
        &self,
        cache: &CacheId,
        key: &[u8],
        push: ListPush,
        ttl: CollectionTtl,
        max_len: usize,
    ) -> impl Future<Output = Result<usize, Error>> + Send {
        // Copied before the lock: a large value's copy should not hold up
        // the shard, and a copy keeps the request's buffer from being pinned.
        let values: Vec<Bytes> = push
            .values
            .iter()
            .map(|v| Bytes::copy_from_slice(v))
            .collect();
        let push = ListPush { values, ..push };
        let growth = ListValue::growth(&push.values);
        let pushed = self.grow(*cache, key, Some(ttl), growth, |list: &mut ListValue| {
            list.push(push, max_len)
        });
        ready(pushed.map(Option::unwrap_or_default))
    }

    fn list_pop(
        &self,
        cache: &CacheId,
        key: &[u8],
        end: End,
    ) -> impl Future<Output = Result<Option<(Bytes, usize)>, Error>> + Send {
        let popped = self.write(*cache, key, None, |list: &mut ListValue| {
            Ok(list.pop(end).map(|value| (value, list.len())))
        });
        ready(popped.map(Option::flatten))
    }

    fn list_fetch(
        &self,
        cache: &CacheId,
        key: &[u8],
        slice: ListSlice,
        max_answer: usize,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, Error>> + Send {
        ready(self.read_answer(
            &mut Reserved::default(),
            *cache,
            key,
            max_answer,
            |list: &ListValue| {
                let elements = slice.bounds(list.len()).len();
                let encoded = list.fetch_encoded_len(slice);
                AnswerSize::of_range::<Bytes>(encoded, elements, list.len())
            },
            |list| list.fetch(slice),
        ))
    }

    fn list_length(
        &self,
        cache: &CacheId,
        key: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.read(*cache, key, ListValue::len))
    }

    fn list_retain(
        &self,
        cache: &CacheId,
        key: &[u8],
        slice: ListSlice,
        ttl: CollectionTtl,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        // With a TTL, `write` hands a missing list over empty (and stores
        // nothing if it stays so): that is how the refresh applies to an
        // existing list while a missing one stays missing.
        let retained = self.write(*cache, key, Some(ttl), |list: &mut ListValue| {
            Ok((!list.is_empty()).then(|| list.retain(slice)))
        });
        ready(retained.map(Option::flatten))
    }

    fn list_remove(
        &self,
        cache: &CacheId,
        key: &[u8],
        value: &[u8],
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.write(*cache, key, None, |list: &mut ListValue| {
            Ok(list.remove_value(value))
        }))
    }

    fn list_erase(
        &self,
        cache: &CacheId,
        key: &[u8],
        erase: &ListErase,
    ) -> impl Future<Output = Result<Option<usize>, Error>> + Send {
        ready(self.write(*cache, key, None, |list: &mut ListValue| {
            Ok(list.erase(erase))
        }))
    }
}

#[cfg(test)]
mod tests {
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
        list.values
            .iter()
            .map(|v| String::from_utf8(v.to_vec()).unwrap())
            .collect()
    }

    /// The cost kept incrementally equals the cost recomputed from scratch.
    fn assert_cost_is_exact(list: &ListValue) {
        let recomputed: Kept = list.values.iter().map(|v| element_kept(v)).sum();
        assert_eq!(list.kept, recomputed);
        assert_eq!(
            list.cost(),
            recomputed.cost + buffer_cost(list.values.capacity())
        );
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
    fn each_element_is_charged_its_allocation_and_its_slot() {
        let l = list(&["", "x", &"y".repeat(17)]);
        let slots = l.values.capacity() * size_of::<Bytes>();
        assert!(l.values.capacity() >= 3);
        assert_eq!(l.cost(), 16 + 32 + slots as u64);
    }

    /// What a fetch answers is a copy: a clone would leave a shared header
    /// on each stored value, which its charge does not cover.
    #[test]
    fn a_fetch_leaves_the_stored_values_unshared() {
        let l = list(&["a", "b"]);
        let answer = l.fetch(slice(None, None));
        assert_eq!(answer, ["a", "b"]);
        assert!(l.values.iter().all(Bytes::is_unique));
    }

    #[test]
    fn growth_covers_what_a_push_adds() {
        let mut l = ListValue::default();
        for n in 0..2_000 {
            let values: Vec<&str> = vec!["value"; n % 7 + 1];
            let new = push(End::Back, &values, 0);
            let (before, growth) = (l.cost(), ListValue::growth(&new.values)(&l));
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
        assert!(l.values.capacity() <= 64, "{}", l.values.capacity());
        assert!(l.cost() < full / 10);
        assert_cost_is_exact(&l);
    }
}
