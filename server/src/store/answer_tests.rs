//! The answer sizes the collections keep ([`super::answer`]) against the
//! sizes walked: random writes of every kind (set, increment, remove, pop,
//! retain, erase, union store), with expiry and eviction, through the
//! store; after each, every collection's kept size must be the encoded size
//! of what a fetch answers, and a fetch with exactly that limit must pass
//! while one a byte under must be refused.

use std::time::Duration;

use bytes::Bytes;
use proptest::prelude::*;

use super::answer::{repeated_len, singular_len};
use super::tests::store_with;
use super::CacheId;
use crate::backend::*;
use crate::error::Error;

const KEYS: u8 = 3;

fn fail(error: Error) -> TestCaseError {
    TestCaseError::fail(error.to_string())
}

#[derive(Debug, Clone)]
enum Op {
    DictionarySet(u8, Vec<(Bytes, Bytes)>),
    DictionaryIncrement(u8, Bytes, i64),
    DictionaryDelete(u8, Vec<Bytes>),
    ListPush(u8, bool, Vec<Bytes>, u32),
    ListPop(u8, bool),
    ListRetain(u8, Option<i32>, Option<i32>),
    ListRemove(u8, Bytes),
    ListErase(u8, u32, u32),
    SetUnion(u8, Vec<Bytes>),
    SetDifference(u8, Vec<Bytes>),
    SetPop(u8, u32),
    SortedSetPut(u8, Vec<(Bytes, f64)>),
    SortedSetIncrement(u8, Bytes, f64),
    SortedSetRemove(u8, Vec<Bytes>),
    SortedSetUnionStore(u8, u8, u8),
    Advance(u64),
}

/// Few distinct parts, empty ones among them, and one long enough for a
/// two-byte length, so writes often meet what is held.
fn part() -> impl Strategy<Value = Bytes> {
    prop_oneof![
        4 => (0u8..6).prop_map(|n| Bytes::from(vec![b'a' + n; n as usize])),
        1 => Just(Bytes::from(vec![b'x'; 200])),
    ]
}

fn parts() -> impl Strategy<Value = Vec<Bytes>> {
    prop::collection::vec(part(), 1..6)
}

fn key() -> impl Strategy<Value = u8> {
    0..KEYS
}

fn score() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), Just(-0.0), -3.0..3.0f64]
}

fn op() -> impl Strategy<Value = Op> {
    let index = || prop::option::of(-4i32..6);
    prop_oneof![
        (key(), prop::collection::vec((part(), part()), 1..5))
            .prop_map(|(k, items)| Op::DictionarySet(k, items)),
        (key(), part(), -20i64..20).prop_map(|(k, f, a)| Op::DictionaryIncrement(k, f, a)),
        (key(), parts()).prop_map(|(k, f)| Op::DictionaryDelete(k, f)),
        (key(), any::<bool>(), parts(), 0u32..5)
            .prop_map(|(k, front, v, t)| Op::ListPush(k, front, v, t)),
        (key(), any::<bool>()).prop_map(|(k, front)| Op::ListPop(k, front)),
        (key(), index(), index()).prop_map(|(k, s, e)| Op::ListRetain(k, s, e)),
        (key(), part()).prop_map(|(k, v)| Op::ListRemove(k, v)),
        (key(), 0u32..5, 0u32..3).prop_map(|(k, b, c)| Op::ListErase(k, b, c)),
        (key(), parts()).prop_map(|(k, e)| Op::SetUnion(k, e)),
        (key(), parts()).prop_map(|(k, e)| Op::SetDifference(k, e)),
        (key(), 1u32..4).prop_map(|(k, n)| Op::SetPop(k, n)),
        (key(), prop::collection::vec((part(), score()), 1..5))
            .prop_map(|(k, e)| Op::SortedSetPut(k, e)),
        (key(), part(), score()).prop_map(|(k, v, s)| Op::SortedSetIncrement(k, v, s)),
        (key(), parts()).prop_map(|(k, v)| Op::SortedSetRemove(k, v)),
        (key(), key(), key()).prop_map(|(d, a, b)| Op::SortedSetUnionStore(d, a, b)),
        (0u64..3).prop_map(|s| Op::Advance(s * 400)),
    ]
}

fn name(kind: &str, key: u8) -> Vec<u8> {
    format!("{kind}{key}").into_bytes()
}

/// TTLs of under a second to a few, so that `Advance` expires some.
fn ttl(key: u8) -> CollectionTtl {
    CollectionTtl {
        ttl: Duration::from_millis(500 + 1000 * u64::from(key)),
        refresh: key == 0,
    }
}

/// Runs one write; refusals (a full store, a score out of range) are
/// answers too, and leave sizes as they were.
async fn apply(store: &std::sync::Arc<super::Store>, c: &CacheId, op: Op) {
    const NO_LIMIT: usize = usize::MAX;
    let _ = match op {
        Op::DictionarySet(k, items) => {
            let name = name("d", k);
            store.dictionary_set(c, &name, items, ttl(k), 8).await
        }
        Op::DictionaryIncrement(k, field, amount) => {
            let name = name("d", k);
            let incremented = store.dictionary_increment(c, &name, &field, amount, ttl(k), 8);
            incremented.await.map(drop)
        }
        Op::DictionaryDelete(k, fields) => {
            let delete = DictionaryDelete::Fields(fields);
            store.dictionary_delete(c, &name("d", k), &delete).await
        }
        Op::ListPush(k, front, values, truncate_to) => {
            let end = if front { End::Front } else { End::Back };
            let push = ListPush {
                end,
                values,
                truncate_to,
            };
            let name = name("l", k);
            let pushed = store.list_push(c, &name, push, ttl(k), 8);
            pushed.await.map(drop)
        }
        Op::ListPop(k, front) => {
            let end = if front { End::Front } else { End::Back };
            store.list_pop(c, &name("l", k), end).await.map(drop)
        }
        Op::ListRetain(k, start, end) => {
            let slice = ListSlice { start, end };
            let name = name("l", k);
            let retained = store.list_retain(c, &name, slice, ttl(k));
            retained.await.map(drop)
        }
        Op::ListRemove(k, value) => store.list_remove(c, &name("l", k), &value).await.map(drop),
        Op::ListErase(k, begin, count) => {
            let erase = ListErase::Ranges(vec![ListRange { begin, count }]);
            store.list_erase(c, &name("l", k), &erase).await.map(drop)
        }
        Op::SetUnion(k, elements) => {
            let name = name("s", k);
            let union = store.set_union(c, &name, elements, ttl(k), 8);
            union.await.map(drop)
        }
        Op::SetDifference(k, elements) => {
            let remove = SetRemove::Elements(elements);
            store
                .set_difference(c, &name("s", k), &remove)
                .await
                .map(drop)
        }
        Op::SetPop(k, count) => {
            let name = name("s", k);
            let popped = store.set_pop(c, &name, count, NO_LIMIT);
            popped.await.map(drop)
        }
        Op::SortedSetPut(k, elements) => {
            let name = name("z", k);
            let put = store.sorted_set_put(c, &name, elements, ttl(k), 8);
            put.await.map(drop)
        }
        Op::SortedSetIncrement(k, value, amount) => {
            let name = name("z", k);
            let incremented = store.sorted_set_increment(c, &name, value, amount, ttl(k), 8);
            incremented.await.map(drop)
        }
        Op::SortedSetRemove(k, values) => {
            let remove = SortedSetRemove::Values(values);
            store
                .sorted_set_remove(c, &name("z", k), &remove)
                .await
                .map(drop)
        }
        Op::SortedSetUnionStore(k, a, b) => {
            let union = SortedSetUnion {
                sources: vec![(Bytes::from(name("z", a)), 1.0), (name("z", b).into(), 2.0)],
                aggregate: Aggregate::Sum,
            };
            let ttl = ttl(k).ttl;
            let name = name("z", k);
            let stored = store.sorted_set_union_store(c, &name, &union, ttl, 8);
            stored.await.map(drop)
        }
        Op::Advance(ms) => {
            tokio::time::advance(Duration::from_millis(ms)).await;
            Ok(())
        }
    };
}

/// A fetch with exactly the limit `walked` answers `want`; one a byte
/// under is refused, naming that size for a whole collection and only the
/// limit for a part of one.
fn check_limit<T: std::fmt::Debug + PartialEq>(
    walked: u64,
    at_limit: Result<Option<T>, Error>,
    under: Result<Option<T>, Error>,
    want: Option<T>,
) -> Result<(), TestCaseError> {
    check_part_limit(walked, at_limit, under, want, false)
}

/// [`check_limit`] for a whole collection (`part` false) or a part of one.
fn check_part_limit<T: std::fmt::Debug + PartialEq>(
    walked: u64,
    at_limit: Result<Option<T>, Error>,
    under: Result<Option<T>, Error>,
    want: Option<T>,
    part: bool,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(at_limit, Ok(want));
    if walked > 0 {
        let limit = walked as usize - 1;
        let refused = if part {
            Error::PartTooLarge { limit }
        } else {
            Error::AnswerTooLarge {
                size: walked as usize,
                limit,
            }
        };
        prop_assert_eq!(under, Err(refused));
    }
    Ok(())
}

/// Every collection's kept answer size against the size of its answer,
/// walked element by element.
async fn check_sizes(
    store: &std::sync::Arc<super::Store>,
    c: &CacheId,
) -> Result<(), TestCaseError> {
    for k in 0..KEYS {
        let name = name("d", k);
        if let Some(entries) = store
            .dictionary_fetch(c, &name, usize::MAX)
            .await
            .map_err(fail)?
        {
            let pair = |(f, v): &(Bytes, Bytes)| singular_len(f.len()) + singular_len(v.len());
            let walked = entries.iter().map(|e| repeated_len(pair(e) as usize)).sum();
            let fetch = |limit| store.dictionary_fetch(c, &name, limit);
            let (at, under) = (
                fetch(walked as usize).await,
                fetch((walked as usize).saturating_sub(1)).await,
            );
            let sorted = |e: Result<Option<Vec<(Bytes, Bytes)>>, Error>| {
                e.map(|e| {
                    e.map(|mut e| {
                        e.sort();
                        e
                    })
                })
            };
            let mut entries = entries;
            entries.sort();
            check_limit(walked, sorted(at), under, Some(entries))?;
        }
        let name = self::name("l", k);
        if let Some(values) = store
            .list_fetch(c, &name, ListSlice::default(), usize::MAX)
            .await
            .map_err(fail)?
        {
            let walked = values.iter().map(|v| repeated_len(v.len())).sum();
            let fetch = |limit| store.list_fetch(c, &name, ListSlice::default(), limit);
            let (at, under) = (
                fetch(walked as usize).await,
                fetch((walked as usize).saturating_sub(1)).await,
            );
            check_limit(walked, at, under, Some(values.clone()))?;
            // A slice is sized as it is, once the whole list is over the limit.
            let slice = ListSlice {
                start: Some(1),
                end: Some(-1),
            };
            let part: u64 = values[slice.bounds(values.len())]
                .iter()
                .map(|v| repeated_len(v.len()))
                .sum();
            let fetched = store.list_fetch(c, &name, slice, part as usize).await;
            prop_assert!(fetched.is_ok(), "{:?}", fetched);
        }
        let name = self::name("s", k);
        if let Some(mut elements) = store.set_fetch(c, &name, usize::MAX).await.map_err(fail)? {
            let walked = elements.iter().map(|e| repeated_len(e.len())).sum();
            let fetch = |limit| store.set_fetch(c, &name, limit);
            let (at, under) = (
                fetch(walked as usize).await,
                fetch((walked as usize).saturating_sub(1)).await,
            );
            elements.sort();
            let at = at.map(|e| {
                e.map(|mut e| {
                    e.sort();
                    e
                })
            });
            check_limit(walked, at, under, Some(elements))?;
        }
        let name = self::name("z", k);
        // The first range is the whole set, the others parts of it.
        for (n, range) in [
            SortedSetRange::ByIndex {
                start: None,
                end: None,
            },
            SortedSetRange::ByIndex {
                start: Some(1),
                end: Some(-1),
            },
            SortedSetRange::ByScore {
                scores: ScoreRange::ALL,
                offset: 1,
                count: Some(2),
            },
        ]
        .into_iter()
        .enumerate()
        {
            let order = SortOrder::Descending;
            let fetch = |limit| store.sorted_set_fetch(c, &name, range, order, limit);
            if let Some(elements) = fetch(usize::MAX).await.map_err(fail)? {
                let walked = elements.iter().map(|(v, _)| repeated_len(v.len())).sum();
                let (at, under) = (
                    fetch(walked as usize).await,
                    fetch((walked as usize).saturating_sub(1)).await,
                );
                check_part_limit(walked, at, under, Some(elements), n > 0)?;
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With room for everything (64 KiB) and with so little that writes
    /// evict (6 KiB), the sizes kept are the sizes walked after every write.
    #[test]
    fn kept_answer_sizes_are_the_sizes_walked(
        ops in prop::collection::vec(op(), 1..40),
        tight in any::<bool>(),
    ) {
        // On a paused clock, which `Advance` moves.
        let mut runtime = tokio::runtime::Builder::new_current_thread();
        let runtime = runtime.enable_time().start_paused(true).build().unwrap();
        runtime.block_on(async move {
            let (store, c) = store_with(if tight { 6 << 10 } else { 64 << 10 });
            for op in ops {
                apply(&store, &c, op).await;
                check_sizes(&store, &c).await?;
            }
            Ok::<(), TestCaseError>(())
        })?;
    }
}
