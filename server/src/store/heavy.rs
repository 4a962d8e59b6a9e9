//! Calls whose work takes a runtime worker for more than about a
//! millisecond: a union of tens of thousands of elements, the ranks of
//! thousands of ids in a large leaderboard (8,192 ids of a board of a
//! million take about 12 ms).
//!
//! Run inline, such a call holds its worker, and the calls queued on that
//! worker wait behind it: four clients asking GetRank of 8,192 ids in a
//! loop kept both workers of a two-core server busy, and a normal Get on
//! another connection waited 18 ms at the median, 63 ms at p99. So heavy
//! work takes a turn first: at most one call per two cores runs at once,
//! with its worker handed over (`block_in_place`, so the calls queued on
//! it move to another worker), and the others wait for their turn without
//! holding a worker. However many clients ask for heavy work, the runtime's
//! workers keep the rest of the cores for everyone else.
//!
//! Turns are per process, like the cores they share.

use std::sync::LazyLock;

use prometheus::{IntCounter, IntGauge};
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::Semaphore;

/// One turn per two cores, at least one.
static TURNS: LazyLock<Semaphore> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    Semaphore::new((cores / 2).max(1))
});

/// `jiffy_heavy_calls_total`: calls that ran as heavy work.
pub static HEAVY_CALLS: LazyLock<IntCounter> = LazyLock::new(|| {
    IntCounter::new(
        "heavy_calls_total",
        "Calls whose work ran in a turn of its own, with its worker handed over",
    )
    .expect("valid metric")
});

/// `jiffy_heavy_calls_waiting`: heavy calls waiting for their turn.
pub static HEAVY_WAITING: LazyLock<IntGauge> = LazyLock::new(|| {
    IntGauge::new(
        "heavy_calls_waiting",
        "Calls waiting for a turn to run heavy work",
    )
    .expect("valid metric")
});

/// Runs `work` in a turn of its own, with its worker handed over; inline
/// where there is no multi-threaded runtime to hand it to (unit tests).
pub async fn run<R>(work: impl FnOnce() -> R) -> R {
    let on_workers =
        Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread);
    if !on_workers {
        return work();
    }
    HEAVY_WAITING.inc();
    let turn = TURNS.acquire().await;
    HEAVY_WAITING.dec();
    let _turn = turn.expect("the turns are never closed");
    HEAVY_CALLS.inc();
    tokio::task::block_in_place(work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn heavy_work_runs_one_turn_at_a_time_per_two_cores() {
        let turns = (std::thread::available_parallelism().unwrap().get() / 2).max(1);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let tasks: Vec<_> = (0..4 * turns)
            .map(|_| {
                let (running, most) = (running.clone(), most.clone());
                tokio::spawn(run(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    running.fetch_sub(1, Ordering::SeqCst);
                }))
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        let most = most.load(Ordering::SeqCst);
        assert!(
            (1..=turns).contains(&most),
            "{most} ran at once, {turns} turns"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_waiting_for_its_turn_holds_no_worker() {
        // Heavy work for longer than the light task below needs: with
        // every turn taken and more heavy calls waiting, a light task on
        // the runtime still runs at once.
        let turns = (std::thread::available_parallelism().unwrap().get() / 2).max(1);
        let (release, held) = std::sync::mpsc::channel::<()>();
        let held = Arc::new(std::sync::Mutex::new(held));
        let heavy: Vec<_> = (0..turns + 4)
            .map(|_| {
                let held = held.clone();
                tokio::spawn(run(move || {
                    let _ = held.lock().unwrap().recv();
                }))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let light = tokio::spawn(async { 7 });
        let answered = tokio::time::timeout(Duration::from_secs(10), light).await;
        assert_eq!(answered.expect("a light task ran").unwrap(), 7);
        for _ in 0..heavy.len() {
            release.send(()).unwrap();
        }
        for task in heavy {
            task.await.unwrap();
        }
    }
}
