//! Property tests of the store against a model: random sequences of every
//! store operation, on a virtual clock, must give the answers a plain map of
//! (cache, key) to (value, deadline) gives.
//!
//! The store reads time from `tokio::time::Instant`, so each case runs on a
//! paused runtime and the model's clock is the milliseconds `advance`d.
//!
//! Short by default (256 cases, about a second). The long run:
//!
//! ```sh
//! PROPTEST_CASES=100000 cargo test --release -p jiffy-server --test integration -- proptest_store::
//! ```
//!
//! proptest rather than cargo-fuzz: it runs on stable Rust inside `cargo
//! test`, and shrinks a failure to the shortest sequence of operations;
//! cargo-fuzz needs a nightly toolchain.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use jiffy_server::backend::{value_hash, Condition, TtlOutcome, TtlUpdate};
use jiffy_server::error::Error;
use jiffy_server::store::{CacheId, Store, StoreConfig};
use proptest::prelude::*;

const CACHES: [&str; 2] = ["a", "b"];
const KEYS: u8 = 6;

#[derive(Debug, Clone)]
enum Op {
    Set(usize, u8, Bytes, u64),
    SetIf(usize, u8, Bytes, u64, Condition),
    Get(usize, u8),
    Contains(usize, u8),
    Delete(usize, u8),
    Increment(usize, u8, i64, u64),
    UpdateTtl(usize, u8, TtlUpdate),
    RemainingTtl(usize, u8),
    Flush(usize),
    DeleteAndCreate(usize),
    Advance(u64),
}

fn cache() -> impl Strategy<Value = usize> {
    0..CACHES.len()
}

fn key() -> impl Strategy<Value = u8> {
    0..KEYS
}

/// Integers (so increments have something to add to), integers at the
/// edges of i64, and arbitrary bytes.
fn value() -> impl Strategy<Value = Bytes> {
    prop_oneof![
        (-100i64..100).prop_map(|n| Bytes::from(n.to_string())),
        prop::sample::select(vec![i64::MIN, i64::MIN + 1, i64::MAX - 1, i64::MAX])
            .prop_map(|n| Bytes::from(n.to_string())),
        prop::collection::vec(any::<u8>(), 0..6).prop_map(Bytes::from),
    ]
}

fn amount() -> impl Strategy<Value = i64> {
    prop_oneof![4 => -50i64..50, 1 => any::<i64>()]
}

/// Mostly whole tenths of a second, like the clock's steps, so that items
/// often expire exactly at a step, where an off-by-one would show.
fn ttl_ms() -> impl Strategy<Value = u64> {
    prop_oneof![3 => (1u64..50).prop_map(|n| n * 100), 1 => 1u64..5_000]
}

fn advance_ms() -> impl Strategy<Value = u64> {
    prop_oneof![3 => (0u64..30).prop_map(|n| n * 100), 1 => 0u64..3_000]
}

fn condition() -> impl Strategy<Value = Condition> {
    prop_oneof![
        Just(Condition::Present),
        value().prop_map(Condition::PresentAndNotEqual),
        Just(Condition::Absent),
        value().prop_map(Condition::Equal),
        value().prop_map(Condition::AbsentOrEqual),
        value().prop_map(Condition::NotEqual),
    ]
}

fn ttl_update() -> impl Strategy<Value = TtlUpdate> {
    let d = || ttl_ms().prop_map(Duration::from_millis);
    prop_oneof![
        d().prop_map(TtlUpdate::IncreaseTo),
        d().prop_map(TtlUpdate::DecreaseTo),
        d().prop_map(TtlUpdate::Overwrite),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (cache(), key(), value(), ttl_ms()).prop_map(|(c, k, v, t)| Op::Set(c, k, v, t)),
        2 => (cache(), key(), value(), ttl_ms(), condition())
            .prop_map(|(c, k, v, t, w)| Op::SetIf(c, k, v, t, w)),
        4 => (cache(), key()).prop_map(|(c, k)| Op::Get(c, k)),
        1 => (cache(), key()).prop_map(|(c, k)| Op::Contains(c, k)),
        2 => (cache(), key()).prop_map(|(c, k)| Op::Delete(c, k)),
        3 => (cache(), key(), amount(), ttl_ms())
            .prop_map(|(c, k, a, t)| Op::Increment(c, k, a, t)),
        2 => (cache(), key(), ttl_update()).prop_map(|(c, k, u)| Op::UpdateTtl(c, k, u)),
        1 => (cache(), key()).prop_map(|(c, k)| Op::RemainingTtl(c, k)),
        1 => cache().prop_map(Op::Flush),
        1 => cache().prop_map(Op::DeleteAndCreate),
        3 => advance_ms().prop_map(Op::Advance),
    ]
}

/// The model: what each (cache, key) holds, and until when (exclusive), in
/// virtual milliseconds.
#[derive(Default)]
struct Model {
    now: u64,
    items: HashMap<(usize, u8), (Bytes, u64)>,
}

impl Model {
    /// The item if it has not expired. Expired items stay in `items` (each
    /// is replaced when its key is written again), so that the expiry check
    /// knows which ones the store may still hold for a moment.
    fn live(&mut self, cache: usize, key: u8) -> Option<&mut (Bytes, u64)> {
        let now = self.now;
        self.items
            .get_mut(&(cache, key))
            .filter(|(_, deadline)| *deadline > now)
    }

    fn value(&mut self, cache: usize, key: u8) -> Option<Bytes> {
        self.live(cache, key).map(|(value, _)| value.clone())
    }

    fn set(&mut self, cache: usize, key: u8, value: Bytes, ttl_ms: u64) {
        self.items.insert((cache, key), (value, self.now + ttl_ms));
    }

    fn increment(&mut self, cache: usize, key: u8, amount: i64, ttl_ms: u64) -> Result<i64, Error> {
        let total = match self.value(cache, key) {
            None => amount,
            Some(value) => std::str::from_utf8(&value)
                .ok()
                .and_then(|text| text.parse::<i64>().ok())
                .ok_or(Error::NotAnInteger)?
                .checked_add(amount)
                .ok_or(Error::IncrementOverflow)?,
        };
        self.set(cache, key, Bytes::from(total.to_string()), ttl_ms);
        Ok(total)
    }

    fn update_ttl(&mut self, cache: usize, key: u8, update: TtlUpdate) -> TtlOutcome {
        let now = self.now;
        let Some((_, deadline)) = self.live(cache, key) else {
            return TtlOutcome::Missing;
        };
        let left = *deadline - now;
        let (ttl, apply) = match update {
            TtlUpdate::IncreaseTo(t) => (t, t.as_millis() as u64 > left),
            TtlUpdate::DecreaseTo(t) => (t, (t.as_millis() as u64) < left),
            TtlUpdate::Overwrite(t) => (t, true),
        };
        if !apply {
            return TtlOutcome::NotSet;
        }
        *deadline = now + ttl.as_millis() as u64;
        TtlOutcome::Set
    }

    fn clear(&mut self, cache: usize) {
        self.items.retain(|&(c, _), _| c != cache);
    }
}

fn key_bytes(key: u8) -> Vec<u8> {
    format!("k{key}").into_bytes()
}

/// Runs `body` on a fresh paused current-thread runtime, as the store needs
/// a runtime for its expiry tasks and the test needs a virtual clock.
fn on_virtual_clock<F: std::future::Future<Output = Result<(), TestCaseError>>>(
    body: impl FnOnce() -> F,
) -> Result<(), TestCaseError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap()
        .block_on(body())
}

/// Lets the expiry tasks run until the store holds `expected` items; they
/// are woken by the clock, so a few turns of the scheduler are enough.
async fn settle(store: &Store, expected: u64) -> u64 {
    settle_within(store, expected..=expected).await
}

async fn settle_within(store: &Store, expected: std::ops::RangeInclusive<u64>) -> u64 {
    for _ in 0..64 {
        if expected.contains(&store.stats().items) {
            break;
        }
        tokio::task::yield_now().await;
    }
    store.stats().items
}

/// How long active expiry may leave an item past its deadline: the store
/// files deadlines in buckets of 2^27 ns (134.2 ms) and frees a bucket once
/// all of it has passed, plus the timer's 1 ms grain. A read never sees an
/// expired item in the meantime (the Get ops check that against the model).
const EXPIRY_LAG_MS: u64 = 136;

fn new_store(max_memory: u64) -> (Arc<Store>, Vec<CacheId>) {
    let store = Store::new(StoreConfig {
        max_memory,
        max_caches: CACHES.len(),
    });
    for name in CACHES {
        store.create_cache(name).unwrap();
    }
    let ids = CACHES.iter().map(|n| store.cache_id(n).unwrap()).collect();
    (store, ids)
}

/// `PROPTEST_CASES` when set (the long run), else `default` cases.
fn cases(default: u32) -> ProptestConfig {
    if std::env::var_os("PROPTEST_CASES").is_some() {
        ProptestConfig::default()
    } else {
        ProptestConfig::with_cases(default)
    }
}

proptest! {
    #![proptest_config(cases(256))]

    /// Under the memory cap the store answers exactly as the model does,
    /// and active expiry frees the items the model says expired, each within
    /// `EXPIRY_LAG_MS` of its deadline.
    #[test]
    fn store_agrees_with_the_model(ops in prop::collection::vec(op(), 1..80)) {
        on_virtual_clock(|| async move {
            let (store, mut ids) = new_store(1 << 30);
            let mut model = Model::default();
            for op in ops {
                match op {
                    Op::Set(c, k, v, t) => {
                        store.set(ids[c], &key_bytes(k), &v, Duration::from_millis(t));
                        model.set(c, k, v, t);
                    }
                    Op::SetIf(c, k, v, t, condition) => {
                        let current = model.value(c, k);
                        let expected = condition_admits(&condition, current.as_deref());
                        let stored = store.set_if(ids[c], &key_bytes(k), &v, Duration::from_millis(t), &condition).unwrap();
                        prop_assert_eq!(stored, expected, "SetIf {:?} on {:?}", condition, current);
                        if stored {
                            model.set(c, k, v, t);
                        }
                    }
                    Op::Get(c, k) => {
                        prop_assert_eq!(store.get(ids[c], &key_bytes(k)).unwrap(), model.value(c, k));
                    }
                    Op::Contains(c, k) => {
                        prop_assert_eq!(store.contains(ids[c], &key_bytes(k)), model.value(c, k).is_some());
                    }
                    Op::Delete(c, k) => {
                        store.delete(ids[c], &key_bytes(k));
                        model.items.remove(&(c, k));
                    }
                    Op::Increment(c, k, amount, t) => {
                        let got = store.increment(ids[c], &key_bytes(k), amount, Duration::from_millis(t));
                        prop_assert_eq!(got, model.increment(c, k, amount, t));
                    }
                    Op::UpdateTtl(c, k, update) => {
                        let got = store.update_ttl(ids[c], &key_bytes(k), update);
                        prop_assert_eq!(got, model.update_ttl(c, k, update));
                    }
                    Op::RemainingTtl(c, k) => {
                        let now = model.now;
                        let expected = model.live(c, k).map(|(_, d)| Duration::from_millis(*d - now));
                        prop_assert_eq!(store.remaining_ttl(ids[c], &key_bytes(k)), expected);
                    }
                    Op::Flush(c) => {
                        store.flush_cache(CACHES[c]).unwrap();
                        model.clear(c);
                        ids[c] = store.cache_id(CACHES[c]).unwrap();
                    }
                    Op::DeleteAndCreate(c) => {
                        store.delete_cache(CACHES[c]).unwrap();
                        prop_assert!(store.cache_id(CACHES[c]).is_err());
                        store.create_cache(CACHES[c]).unwrap();
                        model.clear(c);
                        ids[c] = store.cache_id(CACHES[c]).unwrap();
                    }
                    Op::Advance(ms) => {
                        tokio::time::advance(Duration::from_millis(ms)).await;
                        model.now += ms;
                        let live = model.items.values().filter(|(_, d)| *d > model.now).count() as u64;
                        let lagging = model.now.saturating_sub(EXPIRY_LAG_MS);
                        let held = model.items.values().filter(|(_, d)| *d > lagging).count() as u64;
                        let items = settle_within(&store, live..=held).await;
                        prop_assert!(
                            (live..=held).contains(&items),
                            "items after expiry: {} held, {} live, {} within {} ms of their deadline",
                            items, live, held, EXPIRY_LAG_MS
                        );
                    }
                }
            }
            // Past every deadline, active expiry alone empties the store.
            tokio::time::advance(Duration::from_secs(10)).await;
            prop_assert_eq!(settle(&store, 0).await, 0);
            prop_assert_eq!(store.stats().bytes, 0);
            Ok(())
        })?;
    }

    /// Over the memory cap the store may evict, but it never holds more than
    /// the cap, and never answers a value other than the last one written.
    #[test]
    fn over_the_cap_it_evicts_but_never_invents(
        ops in prop::collection::vec(
            // (length, fill byte) rather than random bytes: as telling, and
            // far cheaper to generate.
            (key(), prop::option::of((0usize..2_000, any::<u8>()))),
            1..200,
        )
    ) {
        const CAP: u64 = 8 * 1024;
        on_virtual_clock(|| async move {
            let (store, ids) = new_store(CAP);
            let mut last: HashMap<u8, Option<Bytes>> = HashMap::new();
            for (k, write) in ops {
                match write {
                    Some((length, fill)) => {
                        let value = vec![fill; length];
                        store.set(ids[0], &key_bytes(k), &value, Duration::from_secs(60));
                        last.insert(k, Some(Bytes::from(value)));
                    }
                    None => {
                        let got = store.get(ids[0], &key_bytes(k)).unwrap();
                        let expected = last.get(&k).cloned().flatten();
                        prop_assert!(got.is_none() || got == expected, "key {}: {:?}", k, got);
                    }
                }
                prop_assert!(store.stats().bytes <= CAP, "{} bytes held", store.stats().bytes);
            }
            Ok(())
        })?;
    }
}

/// The condition as the protocol defines it, written out again for the model.
fn condition_admits(condition: &Condition, current: Option<&[u8]>) -> bool {
    match condition {
        Condition::Present => current.is_some(),
        Condition::PresentAndNotEqual(v) => current.is_some_and(|c| c != v),
        Condition::Absent => current.is_none(),
        Condition::Equal(v) => current == Some(v),
        Condition::AbsentOrEqual(v) => current.is_none() || current == Some(v),
        Condition::NotEqual(v) => current != Some(v),
        // The hash conditions: a model of SetIfHash, by the hash function.
        Condition::PresentAndHashEqual(h) => current.map(value_hash).as_ref() == Some(h),
        Condition::PresentAndNotHashEqual(h) => current.is_some_and(|c| value_hash(c) != h),
        Condition::AbsentOrHashEqual(h) => current.is_none_or(|c| value_hash(c) == h),
        Condition::AbsentOrNotHashEqual(h) => current.map(value_hash).as_ref() != Some(h),
        Condition::Always => true,
    }
}
