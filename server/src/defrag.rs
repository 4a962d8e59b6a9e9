//! Active defragmentation of the embedded store: when jemalloc holds more
//! than `--defrag-above` of free room in partly used slabs, a thread of its
//! own walks the store's items and gives a fresh allocation to each that
//! sits in a slab emptier than its size class's average. The copies fill
//! the fuller slabs; the emptied ones go back to the OS (the server purges
//! freed pages at once, `bin/server.rs`).
//!
//! Why: under eviction churn whose mix of sizes shifts, slabs of the sizes
//! that shrank stay resident half empty, and resident memory passes
//! `--max-memory` by a third (`attacks_budget::memory_caps`). Redis answers
//! the same with its own active defrag, on a patched jemalloc's hint; this
//! one asks stock jemalloc's `experimental.utilization.query` the same
//! question (`allocator::SlabQuery`).
//!
//! Bounds: a walk takes one shard's lock for [`BATCH_SLOTS`] slots at a
//! time (as the expiry task does) and then sleeps three times as long as the
//! batch took, so it uses at most a quarter of a core; a walk stops once the
//! free room is under half the threshold; checks come every [`CHECK_EVERY`].

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use tikv_jemalloc_ctl::epoch;

use crate::allocator::{self, SlabQuery};
use crate::store::defrag::DefragCursor;
use crate::store::Store;

/// Slab slots looked at per shard lock hold.
const BATCH_SLOTS: usize = 256;

/// How often the free room is read while no walk runs.
const CHECK_EVERY: Duration = Duration::from_millis(200);

/// A walk's batches between two readings of the free room.
const BATCHES_PER_READING: usize = 64;

/// A walk sleeps this many times what each batch took.
const SLEEP_PER_WORK: u32 = 3;

static MOVES: AtomicU64 = AtomicU64::new(0);

/// Items moved since the process started (`jiffy_defrag_moves_total`).
pub fn moves() -> u64 {
    MOVES.load(Relaxed)
}

/// Starts the thread when the threshold is not 0 and jemalloc is the
/// global allocator (so never in a test binary); it ends with the store.
pub fn spawn(store: &Arc<Store>, threshold: u64) {
    if threshold == 0 || !allocator::is_global() {
        return;
    }
    let store = Arc::downgrade(store);
    let started = std::thread::Builder::new()
        .name("jiffy-defrag".into())
        .spawn(move || run(store, threshold));
    if let Err(error) = started {
        tracing::warn!(%error, "active defragmentation is off: no thread for it");
    }
}

fn run(store: Weak<Store>, threshold: u64) {
    let (true, Some(query)) = (allocator::bypass_thread_cache(), SlabQuery::new()) else {
        tracing::warn!("active defragmentation is off: jemalloc does not answer its queries");
        return;
    };
    while store.strong_count() > 0 {
        std::thread::sleep(CHECK_EVERY);
        if slab_free_bytes().is_some_and(|free| free > threshold) {
            walk(&store, &query, threshold / 2);
        }
    }
}

/// The free room as of now (the statistics refreshed first).
fn slab_free_bytes() -> Option<u64> {
    epoch::advance().ok()?;
    allocator::slab_free_bytes()
}

/// One walk over every shard, or until the free room is under `enough`.
fn walk(store: &Weak<Store>, query: &SlabQuery, enough: u64) {
    let mut cursor = DefragCursor::default();
    for batch in 1.. {
        let Some(store) = store.upgrade() else {
            return;
        };
        let started = Instant::now();
        let step = store.relocate_sparse(&mut cursor, BATCH_SLOTS, &mut |at| query.is_sparse(at));
        drop(store);
        MOVES.fetch_add(step.moved as u64, Relaxed);
        if step.finished {
            return;
        }
        std::thread::sleep(started.elapsed() * SLEEP_PER_WORK);
        if batch % BATCHES_PER_READING == 0 && slab_free_bytes().is_some_and(|free| free < enough) {
            return;
        }
    }
}
