//! Behaviour of the public store API: values, conditions, counters, TTLs,
//! active expiry, the memory cap, SIEVE, caches, and concurrent use.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::*;

const MIB: u64 = 1 << 20;
const MINUTE: Duration = Duration::from_secs(60);

/// A store with one cache, "c": every store test's start, the collection
/// files' too.
pub(crate) fn store_with(max_memory: u64) -> (Arc<Store>, CacheId) {
    let store = Store::new(StoreConfig {
        max_memory,
        max_caches: 4,
    });
    store.create_cache("c").unwrap();
    let id = store.cache_id("c").unwrap();
    (store, id)
}

/// A collection TTL of a minute, not refreshed by writes.
pub(crate) const MINUTE_TTL: crate::backend::CollectionTtl = crate::backend::CollectionTtl {
    ttl: MINUTE,
    refresh: false,
};

fn store() -> (Arc<Store>, CacheId) {
    store_with(64 * MIB)
}

/// Lets the expiry tasks run: with the clock paused, this sleep returns only
/// once every other task is idle.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

#[tokio::test]
async fn set_get_delete() {
    let (store, c) = store();
    assert_eq!(store.get(c, b"k").unwrap(), None);
    store.set(c, b"k", b"v", MINUTE);
    assert_eq!(store.get(c, b"k").unwrap(), Some(Bytes::from_static(b"v")));
    assert!(store.contains(c, b"k"));
    store.delete(c, b"k");
    assert_eq!(store.get(c, b"k").unwrap(), None);
    assert!(!store.contains(c, b"k"));
    assert_eq!(store.stats().items, 0);
    assert_eq!(store.stats().bytes, 0);
}

#[tokio::test]
async fn overwrite_replaces_in_place_and_adjusts_bytes() {
    let (store, c) = store();
    store.set(c, b"k", b"four", MINUTE);
    assert_eq!(store.stats().bytes, shard::charge(1, 4));
    store.set(c, b"k", b"eight...", MINUTE);
    assert_eq!(store.stats().bytes, shard::charge(1, 8));
    store.set(c, b"k", b"", MINUTE);
    assert_eq!(store.stats().bytes, shard::charge(1, 0));
    assert_eq!(store.stats().items, 1);
    assert_eq!(store.get(c, b"k").unwrap(), Some(Bytes::new()));
}

/// A value whose size class its key would push up is kept apart: a
/// 16,384-byte value is charged its 16,384 bytes, not 20,480.
#[tokio::test]
async fn a_large_value_keeps_its_own_size_class() {
    let (store, c) = store();
    let value = vec![7u8; 16_384];
    store.set(c, b"k", &value, MINUTE);
    assert_eq!(store.get(c, b"k").unwrap().as_deref(), Some(&value[..]));
    let bytes = store.stats().bytes;
    assert!(bytes < shard::charge(1, 16_384), "{bytes}");
    assert!(bytes > 16_384 + shard::ITEM_OVERHEAD, "{bytes}");
    store.set(c, b"k", b"small", MINUTE);
    assert_eq!(store.stats().bytes, shard::charge(1, 5));
    assert_eq!(store.get(c, b"k").unwrap().as_deref(), Some(&b"small"[..]));
}

/// A value of at most `cost::COPIED_VALUE` bytes is copied out by each
/// read, leaving the stored allocation as it was (no shared header behind
/// it, so none charged); a larger one is handed out as a handle on the
/// stored bytes, and charged the header its first handle allocates.
#[tokio::test]
async fn small_values_are_copied_out_and_large_ones_shared() {
    let (store, c) = store();
    // Sizes whose key and value share one allocation (see `Value::scalar`).
    let small = vec![1u8; cost::COPIED_VALUE - 16];
    let large = vec![2u8; cost::COPIED_VALUE + 1];
    store.set(c, b"small", &small, MINUTE);
    store.set(c, b"large", &large, MINUTE);
    let read = |key: &[u8]| store.get(c, key).unwrap().unwrap();
    let (first, second) = (read(b"small"), read(b"small"));
    assert_eq!(first, small);
    assert_ne!(first.as_ptr(), second.as_ptr(), "copies");
    let (first, second) = (read(b"large"), read(b"large"));
    assert_eq!(first, large);
    assert_eq!(first.as_ptr(), second.as_ptr(), "handles on one allocation");
    // The large one is kept apart from its key, and charged the header.
    let apart = value::Collections::Scalar(Bytes::from(large.clone()));
    let large_charge = item_bytes::ItemBytes::collection_allocation(5) as u64
        + apart.cost()
        + cost::SHARED_HEADER
        + shard::ITEM_OVERHEAD;
    assert_eq!(
        store.stats().bytes,
        shard::charge(5, small.len()) + large_charge
    );
}

/// A batch copies its small values out: without a charge while the
/// copies together fit in `shard::COPIED_BATCH`, then each charged to its
/// call before it is made, and refused past the in-flight budget.
#[tokio::test]
async fn a_batch_charges_its_call_for_copies_past_its_share() {
    use crate::in_flight::{CallCharges, InFlight};

    let (store, c) = store();
    let value = vec![3u8; cost::COPIED_VALUE];
    let keys: Vec<Vec<u8>> = (0..10).map(|i| format!("k{i}").into_bytes()).collect();
    for key in &keys {
        store.set(c, key, &value, MINUTE);
    }
    let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let gauge = || prometheus::IntGauge::new("in_flight", "bytes").unwrap();
    let budget = InFlight::new(1 << 20, gauge());
    let charges = CallCharges::new(budget.clone(), Some(budget.connection()));
    let read = || charges.scope(|| store.get_many(c, &keys)).unwrap();
    let (first, second) = (read(), read());
    for (a, b) in first.iter().zip(&second) {
        let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
        assert_eq!(a, &value);
        assert_ne!(a.as_ptr(), b.as_ptr(), "copies");
    }
    let past_share = keys.len() * value.len() - shard::COPIED_BATCH;
    assert_eq!(budget.used(), 2 * past_share);
    drop(charges);

    let budget = InFlight::new(1024, gauge());
    let charges = CallCharges::new(budget.clone(), Some(budget.connection()));
    let refused = charges.scope(|| store.get_many(c, &keys));
    assert!(
        matches!(refused, Err(Error::InFlightFull(_))),
        "{refused:?}"
    );
}

#[tokio::test]
async fn each_condition_stores_or_not() {
    let v = |s: &'static str| Bytes::from_static(s.as_bytes());
    // (condition, when absent, when holding "old")
    let cases = [
        (Condition::Present, false, true),
        (Condition::PresentAndNotEqual(v("old")), false, false),
        (Condition::PresentAndNotEqual(v("other")), false, true),
        (Condition::Absent, true, false),
        (Condition::Equal(v("old")), false, true),
        (Condition::Equal(v("other")), false, false),
        (Condition::AbsentOrEqual(v("old")), true, true),
        (Condition::AbsentOrEqual(v("other")), true, false),
        (Condition::NotEqual(v("old")), true, false),
        (Condition::NotEqual(v("other")), true, true),
    ];
    for (condition, if_absent, if_old) in cases {
        let (store, c) = store();
        let stored = store.set_if(c, b"k", b"new", MINUTE, &condition).unwrap();
        assert_eq!(stored, if_absent, "{condition:?} on an absent key");
        assert_eq!(store.contains(c, b"k"), if_absent);

        store.set(c, b"k", b"old", MINUTE);
        let stored = store.set_if(c, b"k", b"new", MINUTE, &condition).unwrap();
        assert_eq!(stored, if_old, "{condition:?} on a key holding `old`");
        let expected = if if_old { "new" } else { "old" };
        assert_eq!(store.get(c, b"k").unwrap(), Some(v(expected)));
    }
}

#[tokio::test]
async fn increment_counts_in_text() {
    let (store, c) = store();
    assert_eq!(store.increment(c, b"n", 5, MINUTE), Ok(5));
    assert_eq!(store.increment(c, b"n", 3, MINUTE), Ok(8));
    assert_eq!(store.increment(c, b"n", -10, MINUTE), Ok(-2));
    assert_eq!(store.get(c, b"n").unwrap(), Some(Bytes::from_static(b"-2")));
    assert_eq!(store.increment(c, b"m", -7, MINUTE), Ok(-7));

    store.set(c, b"n", b"41", MINUTE);
    assert_eq!(store.increment(c, b"n", 1, MINUTE), Ok(42));

    store.set(c, b"s", b"forty", MINUTE);
    assert_eq!(
        store.increment(c, b"s", 1, MINUTE),
        Err(Error::NotAnInteger)
    );
    store.set(c, b"s", b"\xff", MINUTE);
    assert_eq!(
        store.increment(c, b"s", 1, MINUTE),
        Err(Error::NotAnInteger)
    );

    store.set(c, b"max", i64::MAX.to_string().as_bytes(), MINUTE);
    assert_eq!(
        store.increment(c, b"max", 1, MINUTE),
        Err(Error::IncrementOverflow)
    );
    store.set(c, b"min", i64::MIN.to_string().as_bytes(), MINUTE);
    assert_eq!(
        store.increment(c, b"min", -1, MINUTE),
        Err(Error::IncrementOverflow)
    );
    assert_eq!(
        store.get(c, b"max").unwrap(),
        Some(Bytes::from(i64::MAX.to_string()))
    );
}

#[tokio::test(start_paused = true)]
async fn increment_resets_the_ttl() {
    let (store, c) = store();
    store
        .increment(c, b"n", 1, Duration::from_secs(10))
        .unwrap();
    tokio::time::advance(Duration::from_secs(8)).await;
    store
        .increment(c, b"n", 1, Duration::from_secs(10))
        .unwrap();
    assert_eq!(store.remaining_ttl(c, b"n"), Some(Duration::from_secs(10)));
}

#[tokio::test(start_paused = true)]
async fn update_ttl_modes() {
    let (store, c) = store();
    let ttl = |s| Duration::from_secs(s);
    assert_eq!(
        store.update_ttl(c, b"k", TtlUpdate::Overwrite(ttl(5))),
        TtlOutcome::Missing
    );
    store.set(c, b"k", b"v", ttl(100));
    assert_eq!(store.remaining_ttl(c, b"k"), Some(ttl(100)));

    assert_eq!(
        store.update_ttl(c, b"k", TtlUpdate::IncreaseTo(ttl(50))),
        TtlOutcome::NotSet
    );
    assert_eq!(
        store.update_ttl(c, b"k", TtlUpdate::IncreaseTo(ttl(200))),
        TtlOutcome::Set
    );
    assert_eq!(store.remaining_ttl(c, b"k"), Some(ttl(200)));

    assert_eq!(
        store.update_ttl(c, b"k", TtlUpdate::DecreaseTo(ttl(300))),
        TtlOutcome::NotSet
    );
    assert_eq!(
        store.update_ttl(c, b"k", TtlUpdate::DecreaseTo(ttl(20))),
        TtlOutcome::Set
    );
    assert_eq!(store.remaining_ttl(c, b"k"), Some(ttl(20)));

    assert_eq!(
        store.update_ttl(c, b"k", TtlUpdate::Overwrite(ttl(70))),
        TtlOutcome::Set
    );
    tokio::time::advance(ttl(30)).await;
    assert_eq!(store.remaining_ttl(c, b"k"), Some(ttl(40)));
    assert_eq!(store.remaining_ttl(c, b"absent"), None);

    // Shortening wakes the expiry task for the new, earlier deadline.
    store.update_ttl(c, b"k", TtlUpdate::DecreaseTo(ttl(1)));
    tokio::time::advance(ttl(2)).await;
    settle().await;
    assert_eq!(store.stats().items, 0);
    assert_eq!(
        store.update_ttl(c, b"k", TtlUpdate::Overwrite(ttl(5))),
        TtlOutcome::Missing
    );
}

#[tokio::test(start_paused = true)]
async fn expired_items_are_never_returned() {
    let (store, c) = store();
    store.set(c, b"k", b"v", Duration::from_secs(1));
    store.set(c, b"n", b"1", Duration::from_secs(1));
    tokio::time::advance(Duration::from_millis(999)).await;
    assert!(store.contains(c, b"k"));
    tokio::time::advance(Duration::from_millis(1)).await;
    // Checked before the expiry task has had a chance to run.
    assert_eq!(store.get(c, b"k").unwrap(), None);
    assert!(!store.contains(c, b"k"));
    assert_eq!(store.remaining_ttl(c, b"k"), None);
    assert!(store
        .set_if(c, b"k", b"w", MINUTE, &Condition::Absent)
        .unwrap());
    assert_eq!(store.increment(c, b"n", 5, MINUTE), Ok(5));
}

#[tokio::test(start_paused = true)]
async fn the_expiry_task_frees_items_nobody_reads() {
    let (store, c) = store();
    for i in 0..2000u32 {
        let ttl = Duration::from_secs(1 + u64::from(i % 3));
        store.set(c, &i.to_be_bytes(), b"value", ttl);
    }
    store.set(c, b"keep", b"v", MINUTE);
    tokio::time::advance(Duration::from_secs(4)).await;
    settle().await;
    let stats = store.stats();
    assert_eq!(stats.items, 1);
    assert_eq!(stats.expirations, 2000);
    assert_eq!(stats.bytes, shard::charge(4, 1));
    assert_eq!(stats.evictions, 0);
}

#[tokio::test(start_paused = true)]
async fn a_deadline_moved_later_keeps_the_item_until_then() {
    let (store, c) = store();
    store.set(c, b"k", b"v", Duration::from_secs(1));
    let later = TtlUpdate::IncreaseTo(Duration::from_secs(10));
    assert_eq!(store.update_ttl(c, b"k", later), TtlOutcome::Set);
    // The task comes to the item's first deadline and files it again.
    tokio::time::advance(Duration::from_secs(2)).await;
    settle().await;
    assert_eq!(store.stats().items, 1);
    tokio::time::advance(Duration::from_secs(9)).await;
    settle().await;
    assert_eq!(store.stats().items, 0);
    assert_eq!(store.stats().expirations, 1);
}

#[tokio::test(start_paused = true)]
async fn an_earlier_deadline_wakes_a_sleeping_task() {
    let (store, c) = store();
    store.set(c, b"late", b"v", Duration::from_secs(3600));
    settle().await; // every task is now asleep until its deadline, or idle
    for i in 0..200u32 {
        store.set(c, &i.to_be_bytes(), b"v", Duration::from_secs(1));
    }
    tokio::time::advance(Duration::from_secs(2)).await;
    settle().await;
    assert_eq!(store.stats().items, 1);
}

#[tokio::test]
async fn the_memory_cap_holds_by_eviction() {
    let (store, c) = store_with(MIB);
    let value = vec![7u8; 1024];
    let mut last = Vec::new();
    for i in 0..10_240u32 {
        last = format!("key-{i}").into_bytes();
        store.set(c, &last, &value, MINUTE);
        assert!(store.stats().bytes <= MIB, "over the cap after write {i}");
    }
    let stats = store.stats();
    assert!(stats.evictions > 0);
    assert_eq!(stats.items + stats.evictions, 10_240);
    assert_eq!(store.get(c, &last).unwrap().as_deref(), Some(&value[..]));
}

/// Pushes `count` values of `size` bytes at the back of list `key`, each
/// sharing no first byte with the one before it, so that a list keeps
/// every byte of them (front coding would store a repeated value in a
/// few bytes).
fn push(store: &Store, c: CacheId, key: &[u8], count: usize, size: usize) -> Result<usize, Error> {
    use list::ListValue;
    let values: Vec<Bytes> = (0..count).map(|n| unshared(n, size)).collect();
    let ttl = CollectionTtl {
        ttl: MINUTE,
        refresh: true,
    };
    let push = crate::backend::ListPush {
        end: crate::backend::End::Back,
        values,
        truncate_to: 0,
    };
    let growth = ListValue::growth(push.end, &push.values);
    let pushed = store.grow(c, key, Some(ttl), growth, |list: &mut ListValue| {
        list.push(push, usize::MAX)
    });
    pushed.map(Option::unwrap_or_default)
}

/// `size` bytes of `n`'s low byte: neighbours share no prefix.
fn unshared(n: usize, size: usize) -> Bytes {
    Bytes::from(vec![n as u8; size])
}

fn list_len(store: &Store, c: CacheId, key: &[u8]) -> Option<usize> {
    store.read(c, key, list::ListValue::len).unwrap()
}

#[tokio::test]
async fn no_collection_grows_past_half_the_cap() {
    let (store, c) = store_with(MIB);
    let mut pushed = 0;
    let refused = loop {
        match push(&store, c, b"l", 16, 1024) {
            Ok(len) => pushed = len,
            Err(error) => break error,
        }
        assert!(
            store.stats().bytes <= MIB / 2,
            "the list passed half the cap"
        );
    };
    assert!(
        matches!(refused, Error::ItemTooLarge { limit, .. } if limit == MIB / 2),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("--max-memory"));
    // Refused before it changed anything: the list is as it was, and kept.
    assert!(pushed > 0);
    assert_eq!(list_len(&store, c, b"l"), Some(pushed));
    assert_eq!(store.stats().evictions, 0);
    // A write that fits still does, and one too large for an empty item
    // is not stored.
    assert!(push(&store, c, b"l", 1, 16).is_ok());
    assert!(matches!(
        push(&store, c, b"new", 1024, 1024),
        Err(Error::ItemTooLarge { .. })
    ));
    assert_eq!(list_len(&store, c, b"new"), None);
}

#[tokio::test]
async fn a_write_that_outgrows_the_bound_unforeseen_evicts_the_item() {
    let (store, c) = store_with(MIB);
    push(&store, c, b"l", 1, 16).unwrap();
    let ttl = CollectionTtl {
        ttl: MINUTE,
        refresh: true,
    };
    // No growth told beforehand: the store finds out afterwards.
    let values = (0..1024).map(|n| unshared(n, 1024)).collect();
    let push = crate::backend::ListPush {
        end: crate::backend::End::Back,
        values,
        truncate_to: 0,
    };
    let grown = store.write(c, b"l", Some(ttl), |list: &mut list::ListValue| {
        list.push(push, usize::MAX)
    });
    assert!(
        matches!(grown, Err(Error::ItemTooLarge { .. })),
        "{grown:?}"
    );
    assert_eq!(list_len(&store, c, b"l"), None);
    assert_eq!(store.stats().bytes, 0);
    assert_eq!(store.stats().evictions, 1);
}

#[tokio::test]
async fn a_large_collection_evicts_the_others_not_itself() {
    let (store, c) = store_with(MIB);
    let value = vec![7u8; 1024];
    for i in 0..1024u32 {
        store.set(c, format!("key-{i}").as_bytes(), &value, MINUTE);
    }
    let mut len = 0;
    while let Ok(now) = push(&store, c, b"l", 16, 1024) {
        len = now;
        assert!(store.stats().bytes <= MIB, "over the cap at {len} elements");
    }
    assert_eq!(list_len(&store, c, b"l"), Some(len));
    assert!(store.stats().evictions > 0);
}

#[tokio::test]
async fn sieve_keeps_a_hot_key_through_a_scan() {
    let (store, c) = store_with(256 * 1024);
    let value = vec![0u8; 512];
    store.set(c, b"hot", &value, MINUTE);
    store.set(c, b"cold", &value, MINUTE);
    for i in 0..5000u32 {
        store.set(c, format!("scan-{i}").as_bytes(), &value, MINUTE);
        assert!(
            store.get(c, b"hot").unwrap().is_some(),
            "hot key evicted at scan {i}"
        );
    }
    assert!(store.stats().evictions > 1000);
    assert_eq!(store.get(c, b"cold").unwrap(), None);
}

#[tokio::test]
async fn flush_and_delete_free_items_and_caches_are_isolated() {
    let (store, a) = store();
    store.create_cache("b").unwrap();
    let b = store.cache_id("b").unwrap();
    for i in 0..1000u32 {
        store.set(a, &i.to_be_bytes(), b"in a", MINUTE);
        store.set(b, &i.to_be_bytes(), b"in b", MINUTE);
    }
    assert_eq!(
        store.get(a, &7u32.to_be_bytes()).unwrap(),
        Some(Bytes::from_static(b"in a"))
    );
    assert_eq!(
        store.get(b, &7u32.to_be_bytes()).unwrap(),
        Some(Bytes::from_static(b"in b"))
    );
    assert_eq!(store.stats().items, 2000);
    let one_cache = store.stats().bytes / 2;

    store.flush_cache("c").unwrap();
    assert_eq!(store.stats().items, 1000);
    assert_eq!(store.stats().bytes, one_cache);
    assert_eq!(store.get(a, &7u32.to_be_bytes()).unwrap(), None);
    let fresh = store.cache_id("c").unwrap();
    assert_ne!(fresh, a);
    assert_eq!(store.get(fresh, &7u32.to_be_bytes()).unwrap(), None);
    assert_eq!(
        store.get(b, &7u32.to_be_bytes()).unwrap(),
        Some(Bytes::from_static(b"in b"))
    );

    store.delete_cache("b").unwrap();
    let stats = store.stats();
    assert_eq!((stats.items, stats.bytes, stats.caches), (0, 0, 1));
    assert_eq!(store.cache_id("b"), Err(Error::CacheNotFound("b".into())));
    assert_eq!(
        store.delete_cache("b"),
        Err(Error::CacheNotFound("b".into()))
    );
    assert_eq!(
        store.flush_cache("b"),
        Err(Error::CacheNotFound("b".into()))
    );
    assert_eq!(stats.evictions + stats.expirations, 0);
}

#[tokio::test]
async fn cache_registry_rules() {
    let store = Store::new(StoreConfig {
        max_memory: MIB,
        max_caches: 3,
    });
    for name in ["zeta", "alpha", "mid"] {
        store.create_cache(name).unwrap();
    }
    assert_eq!(store.list_caches(), ["alpha", "mid", "zeta"]);
    assert_eq!(
        store.create_cache("mid"),
        Err(Error::CacheAlreadyExists("mid".into()))
    );
    assert_eq!(
        store.create_cache("more"),
        Err(Error::TooManyCaches { limit: 3 })
    );
    store.delete_cache("mid").unwrap();
    store.create_cache("more").unwrap();
    assert_eq!(store.list_caches(), ["alpha", "more", "zeta"]);
    assert_eq!(store.stats().caches, 3);
}

#[tokio::test]
async fn two_threads_share_the_store() {
    let (store, c) = store_with(4 * MIB);
    const ROUNDS: i64 = 20_000;
    std::thread::scope(|scope| {
        for thread in 0..2i64 {
            let store = &store;
            scope.spawn(move || {
                for i in 0..ROUNDS {
                    let key = format!("k{}", i % 97);
                    store.set(c, key.as_bytes(), &i.to_le_bytes(), MINUTE);
                    store.get(c, key.as_bytes()).unwrap();
                    store.increment(c, b"counter", thread + 1, MINUTE).unwrap();
                }
            });
        }
    });
    assert_eq!(store.increment(c, b"counter", 0, MINUTE), Ok(3 * ROUNDS));
    assert_eq!(store.stats().items, 98);
}

#[tokio::test]
async fn the_expiry_tasks_end_with_the_store() {
    let (store, c) = store();
    store.set(c, b"k", b"v", MINUTE);
    let weak = Arc::downgrade(&store);
    drop(store);
    settle().await;
    assert!(weak.upgrade().is_none());
    let metrics = tokio::runtime::Handle::current().metrics();
    assert_eq!(metrics.num_alive_tasks(), 0);
}
