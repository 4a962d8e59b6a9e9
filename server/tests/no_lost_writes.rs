//! No lost writes under the memory cap: after a mixed concurrent workload
//! (Sets with long and short TTLs, Deletes, Increments and Gets from many
//! tasks over several connections, on overlapping keys), every read the
//! workload made and a final read of every key are checked against the
//! recorded history (`no_lost_writes/check.rs`): each is a value a
//! linearizable cache could have answered, every acknowledged Set is
//! readable until replaced or expired, expired keys read as misses, and each
//! counter equals the sum of its acknowledged increments.
//!
//! About 8 s by default. Longer, with the figures printed:
//!
//! ```sh
//! JIFFY_CHECK_SECONDS=300 cargo test --release -p jiffy-server --test integration -- --nocapture no_lost_writes::
//! ```
//!
//! `JIFFY_CHECK_TASKS` (default 16) and `JIFFY_CHECK_SEED` change the mix.

use crate::common;
// A test's root file looks for modules beside it; these live in a folder
// of the test's name, so that cargo does not take them for tests.
mod check;
mod history;
mod workload;

use std::time::{Duration, Instant};

use common::{create_cache, sample, scrape, ServerProcess};
use history::{Key, SHORT_TTL};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use tonic::transport::{Channel, Endpoint};
use workload::{Recorder, Workload, CACHE, COUNTERS, REGISTERS, SHORTS};

const CONNECTIONS: usize = 4;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(text) => text
            .parse()
            .unwrap_or_else(|_| panic!("{name}={text} is not a valid value")),
        Err(_) => default,
    }
}

/// This process's peak resident memory, from /proc: the record of a long
/// run is large, and the README says how large.
fn peak_resident_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

async fn connect(url: String) -> Channel {
    Endpoint::from_shared(url).unwrap().connect().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledged_write_is_lost() {
    let workload = Workload {
        duration: Duration::from_secs_f64(env_or("JIFFY_CHECK_SECONDS", 5.0)),
        tasks: env_or("JIFFY_CHECK_TASKS", 16),
        seed: env_or("JIFFY_CHECK_SEED", 1),
    };
    // The default 1 GiB cap is far above what the workload stores.
    let server = ServerProcess::spawn(
        &["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"],
        &[],
    );
    let mut channels = Vec::new();
    for _ in 0..CONNECTIONS {
        channels.push(connect(server.url()).await);
    }
    create_cache(&mut ScsControlClient::new(channels[0].clone()), CACHE).await;

    let start = Instant::now();
    let mut record = workload::run(&workload, &channels, start).await;
    let ran_for = start.elapsed();

    // Final reads, once every call has been answered: registers and
    // counters at once, short keys once every TTL has certainly passed.
    let mut reader = Recorder {
        client: jiffy_server::proto::cache_client::scs_client::ScsClient::new(channels[0].clone()),
        start,
        record: std::mem::take(&mut record),
    };
    for i in 0..REGISTERS {
        reader.get(Key::Register(i)).await;
    }
    for i in 0..COUNTERS {
        reader.get(Key::Counter(i)).await;
    }
    let last_ack = reader.record.ops.iter().map(|op| op.ack).max().unwrap();
    tokio::time::sleep_until((start + last_ack + SHORT_TTL + Duration::from_millis(100)).into())
        .await;
    for i in 0..SHORTS {
        reader.get(Key::Short(i)).await;
    }
    let record = reader.record;

    let metrics = scrape(server.metrics_addr.unwrap()).await;
    let evictions = sample(&metrics, "jiffy_evictions_total").unwrap();
    assert_eq!(
        evictions, 0.0,
        "the cap was reached: this test is for under it"
    );
    assert!(
        record.failures.is_empty(),
        "{} calls failed with no fault injected, e.g. {:?}",
        record.failures.len(),
        &record.failures[..record.failures.len().min(5)]
    );
    let checking = Instant::now();
    let verdict = check::check(&record.ops);
    let checked_in = checking.elapsed();
    match verdict {
        Ok(counts) => eprintln!(
            "no lost writes: {} calls by {} tasks over {CONNECTIONS} connections in {ran_for:.1?} \
             on {} keys; checked {} Sets, {} Deletes, {} reads ({SHORTS} after expiry), \
             {} counters holding the sum of {} increments ({} in all); checked in {checked_in:.1?}; test process peak RSS {:.0} MiB",
            record.ops.len(),
            workload.tasks,
            counts.keys,
            counts.sets,
            counts.deletes,
            counts.reads,
            counts.counters,
            counts.increments,
            counts.increment_sum,
            peak_resident_mib(),
        ),
        Err(violations) => panic!(
            "{} violations, e.g.:\n{}",
            violations.len(),
            violations[..violations.len().min(20)].join("\n")
        ),
    }
}
