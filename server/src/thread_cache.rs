//! Each runtime worker gives the freed blocks its jemalloc cache holds back
//! to their slabs, at most once every [`INTERVAL`] and only once it has
//! freed [`FREED`] or more since the last time.
//!
//! Why: a thread's cache keeps up to 20 freed blocks of each large class up
//! to 32 KiB (request buffers; a prost vector of 1,000 parts is 32 KiB) and
//! up to 200 of each small one, for its next allocations, and trims itself
//! only as the thread allocates again. A worker left idle after a burst of
//! large calls kept about 1 MiB resident, more than the million values of a
//! list of `member:N` take (bench/README.md, "Thread caches given back once
//! a second"). The cache is what makes those calls cheap, so it is emptied
//! rarely: flushing at every idle turn after 256 KiB freed cost 35% more
//! server CPU per list push, and keeping large blocks out of the caches
//! (`tcache_max` 16 KiB) made every large request buffer fault its pages in
//! again (the server purges freed pages at once). Once a second is one
//! refill a second.
//!
//! Two callers, one rule: the park hook (tokio's `on_thread_park`), which a
//! busy worker reaches many times a second, and [`give_back_when_idle`], a
//! task whose wake-ups reach a worker that has gone idle, so that its cache
//! goes back within about [`INTERVAL`] of its last call.

use std::cell::Cell;
use std::time::{Duration, Instant};

use tikv_jemalloc_ctl::thread::{deallocatedp, ThreadLocal};

use crate::allocator;

/// The least time between two flushes of one worker's cache.
pub const INTERVAL: Duration = Duration::from_secs(1);

/// Bytes a worker must have freed since its last flush for the next one:
/// a worker that freed less holds less than this in its cache.
pub const FREED: u64 = 1 << 20;

/// Called as a runtime worker goes idle.
pub fn on_worker_park() {
    if allocator::is_global() {
        flush_if_due(FREED, INTERVAL, Instant::now);
    }
}

/// Wakes every [`INTERVAL`] and applies the rule on the thread it runs
/// on; never ends.
pub async fn give_back_when_idle() {
    loop {
        tokio::time::sleep(INTERVAL).await;
        if allocator::is_global() {
            flush_if_due(FREED, INTERVAL, Instant::now);
        }
    }
}

/// The calling thread's count of bytes freed through jemalloc, and the
/// count and time of its last flush.
#[derive(Clone, Copy)]
struct Flushed {
    counter: ThreadLocal<u64>,
    freed: u64,
    at: Instant,
}

/// Flushes the calling thread's cache if it has freed at least `freed`
/// bytes since its last flush and that was `interval` ago or more (its
/// first call counts as a flush); answers whether it did. The clock is
/// read only once enough was freed.
fn flush_if_due(freed: u64, interval: Duration, now: impl FnOnce() -> Instant) -> bool {
    thread_local! {
        static LAST: Cell<Option<Flushed>> = const { Cell::new(None) };
    }
    LAST.with(|last| {
        let state = match last.get() {
            Some(state) => state,
            None => match deallocatedp::read() {
                Ok(counter) => {
                    last.set(Some(Flushed {
                        counter,
                        freed: counter.get(),
                        at: now(),
                    }));
                    return false;
                }
                Err(_) => return false,
            },
        };
        if state.counter.get().wrapping_sub(state.freed) < freed {
            return false;
        }
        let now = now();
        if now.saturating_duration_since(state.at) < interval {
            return false;
        }
        // SAFETY: a control that takes and answers nothing.
        let flush = unsafe {
            tikv_jemalloc_sys::mallctl(
                c"thread.tcache.flush".as_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            )
        };
        // What the flush itself freed does not count towards the next one.
        last.set(Some(Flushed {
            counter: state.counter,
            freed: state.counter.get(),
            at: now,
        }));
        flush == 0
    })
}

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};
    use std::time::{Duration, Instant};

    use super::flush_if_due;

    /// Allocates and frees `blocks` blocks of 16 KiB through jemalloc (the
    /// test binary's global allocator is the system's).
    fn churn(blocks: usize) {
        let jemalloc = tikv_jemallocator::Jemalloc;
        let layout = Layout::from_size_align(16 << 10, 8).unwrap();
        for _ in 0..blocks {
            // SAFETY: a non-zero layout, freed at once with it.
            unsafe { jemalloc.dealloc(jemalloc.alloc(layout), layout) };
        }
    }

    /// A thread that freed less than the threshold since its last flush
    /// keeps its cache; one that freed more flushes it, and counts afresh
    /// from there.
    #[test]
    fn a_thread_flushes_its_cache_once_it_has_freed_enough() {
        std::thread::spawn(|| {
            let (now, any) = (Instant::now(), Duration::ZERO);
            let due = |freed| flush_if_due(freed, any, || now);
            assert!(!due(0), "the first call counts from there");
            churn(3);
            assert!(!due(64 << 10), "48 KiB freed");
            churn(1);
            assert!(due(64 << 10), "64 KiB freed");
            assert!(!due(64 << 10), "nothing since");
            churn(4);
            assert!(due(64 << 10));
        })
        .join()
        .unwrap();
    }

    /// However much a thread frees, it flushes at most once an interval.
    #[test]
    fn a_thread_flushes_at_most_once_an_interval() {
        std::thread::spawn(|| {
            let (start, second) = (Instant::now(), Duration::from_secs(1));
            let due_at = |at| flush_if_due(64 << 10, second, || start + at);
            due_at(Duration::ZERO);
            churn(8);
            assert!(
                !due_at(Duration::from_millis(999)),
                "within a second of the first call"
            );
            assert!(due_at(second), "128 KiB freed, a second on");
            churn(64);
            assert!(
                !due_at(Duration::from_millis(1_999)),
                "within a second of the flush"
            );
            assert!(due_at(2 * second));
        })
        .join()
        .unwrap();
    }
}
