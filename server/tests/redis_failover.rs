//! A master dies under load and an operator promotes its replica: no write
//! acknowledged before the replica caught up is lost, the two front-ends
//! re-route and answer again, and no call hangs past its deadline while
//! they do.
//!
//! Writer tasks Set fresh keys (never overwritten, so each has one right
//! value) and Increment shared counters through both front-ends the whole
//! time; every call has a 2 s deadline and is recorded with its start, end
//! and outcome. The figures print with `--nocapture`.

use crate::common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::in_cache;
use common::redis_cluster::{timed, with_deadline, Ending, FrontEndClient, RedisCluster};
use jiffy_server::proto::cache_client::{ECacheResult, GetRequest, IncrementRequest, SetRequest};
use jiffy_server::proto::control_client::CreateCacheRequest;
use tokio::task::JoinSet;
use tonic::Code;

const CACHE: &str = "failover";
const WRITERS: usize = 4;
const COUNTERS: usize = 8;
/// Keys written, all acknowledged, just before the sync point.
const KNOWN: usize = 300;
const DEADLINE: Duration = Duration::from_secs(2);
/// The longest a call may take: its deadline and a margin for a busy machine.
const CALL_LIMIT: Duration = Duration::from_millis(2_500);
const RECOVERY_LIMIT: Duration = Duration::from_secs(10);
/// Known keys each recovery probe reads: enough to hit every master's slots.
const PROBE_KEYS: usize = 50;
const TTL_MS: u64 = 600_000;

#[derive(Debug)]
enum Write {
    Set { key: String, value: String },
    Increment { counter: usize, amount: i64 },
}

#[derive(Debug)]
struct Call {
    write: Write,
    start: Instant,
    end: Instant,
    ending: Ending,
}

fn counter_key(counter: usize) -> String {
    format!("counter-{counter}")
}

async fn write(client: &mut FrontEndClient, write: &Write) -> Ending {
    let result = match write {
        Write::Set { key, value } => {
            let set = SetRequest {
                cache_key: Bytes::from(key.clone()),
                cache_body: Bytes::from(value.clone()),
                ttl_milliseconds: TTL_MS,
            };
            let call = client
                .data
                .set(with_deadline(in_cache(CACHE, set), DEADLINE));
            Ending::of(&call.await)
        }
        Write::Increment { counter, amount } => {
            let increment = IncrementRequest {
                cache_key: Bytes::from(counter_key(*counter)),
                amount: *amount,
                ttl_milliseconds: TTL_MS,
            };
            let call = client
                .data
                .increment(with_deadline(in_cache(CACHE, increment), DEADLINE));
            Ending::of(&call.await)
        }
    };
    result
}

/// Half Sets of fresh keys, half Increments, until `stop`.
async fn writer(task: usize, mut client: FrontEndClient, stop: Arc<AtomicBool>) -> Vec<Call> {
    let mut calls = Vec::new();
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        let next = if n % 2 == 0 {
            Write::Set {
                key: format!("w{task}-{n}"),
                value: format!("v{task}-{n}"),
            }
        } else {
            Write::Increment {
                counter: (n / 2 + task) % COUNTERS,
                amount: (n % 5 + 1) as i64,
            }
        };
        let start = Instant::now();
        let ending = write(&mut client, &next).await;
        calls.push(Call {
            write: next,
            start,
            end: Instant::now(),
            ending,
        });
        n += 1;
        // Paced, so that the final reads of every key stay short.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    calls
}

/// The value of `key` through `client`, with a deadline; `None` on a miss.
async fn read(client: &mut FrontEndClient, key: &str) -> Result<Option<Bytes>, tonic::Status> {
    let get = GetRequest {
        cache_key: Bytes::copy_from_slice(key.as_bytes()),
    };
    let answer = client
        .data
        .get(with_deadline(in_cache(CACHE, get), DEADLINE))
        .await?;
    let answer = answer.into_inner();
    Ok((answer.result == ECacheResult::Hit as i32).then_some(answer.cache_body))
}

/// Reads `keys` through every client from a few tasks; returns the keys
/// whose value is not the expected one, with what was read.
async fn wrong_values(clients: &[FrontEndClient], keys: Vec<(String, String)>) -> Vec<String> {
    let keys = Arc::new(keys);
    let mut tasks = JoinSet::new();
    for task in 0..8 {
        let mut clients = clients.to_vec();
        let keys = keys.clone();
        tasks.spawn(async move {
            let mut wrong = Vec::new();
            for (key, value) in keys.iter().skip(task).step_by(8) {
                for (front_end, client) in clients.iter_mut().enumerate() {
                    let read = read(client, key).await;
                    if !matches!(&read, Ok(Some(body)) if body == value.as_bytes()) {
                        wrong.push(format!("{key} via front-end {front_end}: {read:?}"));
                    }
                }
            }
            wrong
        });
    }
    tasks.join_all().await.concat()
}

/// Reads PROBE_KEYS known keys through both front-ends until every read
/// answers; returns when that first happened, failing past RECOVERY_LIMIT
/// after `promoted`. Every probe call is checked like the writers' calls.
async fn wait_until_serving(
    clients: &mut [FrontEndClient],
    promoted: Instant,
    failed: &mut HashMap<Ending, usize>,
) -> Instant {
    loop {
        let mut all_answered = true;
        for client in clients.iter_mut() {
            for i in 0..PROBE_KEYS {
                let (result, took) = timed(read(client, &format!("known-{i}"))).await;
                assert!(took < CALL_LIMIT, "a probe Get took {took:?}: {result:?}");
                let ending = Ending::of(&result);
                if ending != Ending::Answered {
                    *failed.entry(ending).or_default() += 1;
                    all_answered = false;
                    break;
                }
            }
        }
        if all_answered {
            return Instant::now();
        }
        assert!(
            promoted.elapsed() < RECOVERY_LIMIT,
            "not serving {RECOVERY_LIMIT:?} after the promotion; failed probes: {failed:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_a_master_failover() {
    let cluster = RedisCluster::start().await;
    let servers = [cluster.front_end(&[]), cluster.front_end(&[])];
    let mut clients = vec![
        FrontEndClient::connect(&servers[0]).await,
        FrontEndClient::connect(&servers[1]).await,
    ];
    let create = CreateCacheRequest {
        cache_name: CACHE.into(),
    };
    clients[0].control.create_cache(create).await.unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = JoinSet::new();
    for task in 0..WRITERS {
        writers.spawn(writer(task, clients[task % 2].clone(), stop.clone()));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;

    let known: Vec<(String, String)> = (0..KNOWN)
        .map(|i| (format!("known-{i}"), format!("value-{i}")))
        .collect();
    for (i, (key, value)) in known.iter().enumerate() {
        let write_ = Write::Set {
            key: key.clone(),
            value: value.clone(),
        };
        let ending = write(&mut clients[i % 2], &write_).await;
        assert_eq!(ending, Ending::Answered, "{key} before any failure");
    }

    let victim = cluster.masters().await[0];
    let replica = cluster.replica_of(victim).await;
    // Every write acknowledged before this instant was in the victim's
    // replication stream when its offset is read, just after.
    let sync_point = Instant::now();
    let offset = cluster.wait_synced(victim, replica).await;
    let killed = Instant::now();
    cluster.kill(victim);
    cluster.promote(replica).await;
    let promoted = Instant::now();

    let mut probe_failures = HashMap::new();
    let recovered = wait_until_serving(&mut clients, promoted, &mut probe_failures).await;
    let gap_after_promotion = recovered - promoted;
    let gap_after_kill = recovered - killed;
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::Relaxed);
    let calls: Vec<Call> = writers.join_all().await.into_iter().flatten().collect();

    // Outcomes and times of every call.
    let mut failed: HashMap<Ending, usize> = HashMap::new();
    for call in &calls {
        let took = call.end - call.start;
        assert!(took < CALL_LIMIT, "a call took {took:?}: {call:?}");
        if call.ending != Ending::Answered {
            assert!(call.end > killed, "a call failed before the kill: {call:?}");
            *failed.entry(call.ending).or_default() += 1;
        }
    }
    for (ending, _) in failed.iter().chain(&probe_failures) {
        assert!(
            matches!(ending, Ending::Failed(Code::Unavailable | Code::DeadlineExceeded)),
            "a call ended {ending:?}; failed calls by ending: {failed:?}, probes: {probe_failures:?}"
        );
    }

    // Which acknowledged writes must have survived: those the replica had
    // when it took over, and those that started once it was the master.
    let durable = |call: &Call| {
        call.ending == Ending::Answered && (call.end < sync_point || call.start > promoted)
    };
    let mut must_read = known.clone();
    let mut floor = [0_i64; COUNTERS];
    let mut ceiling = [0_i64; COUNTERS];
    let (mut acked_before_sync, mut acked_after_recovery) = (0, 0);
    for call in &calls {
        acked_before_sync += usize::from(call.ending == Ending::Answered && call.end < sync_point);
        acked_after_recovery +=
            usize::from(call.ending == Ending::Answered && call.start > recovered);
        match &call.write {
            Write::Set { key, value } if durable(call) => {
                must_read.push((key.clone(), value.clone()))
            }
            Write::Set { .. } => {}
            Write::Increment { counter, amount } => {
                // A failed increment may have been applied all the same.
                ceiling[*counter] += amount;
                if durable(call) {
                    floor[*counter] += amount;
                }
            }
        }
    }
    eprintln!(
        "failover of master {victim} to {replica} (synced at offset {offset}): \
         {} calls, {acked_before_sync} acknowledged before the sync point and \
         {acked_after_recovery} started after recovery; failed calls by ending: {failed:?}, \
         probe reads: {probe_failures:?}; serving again {gap_after_promotion:?} after the \
         promotion ({gap_after_kill:?} after the kill)",
        calls.len()
    );
    assert!(
        gap_after_promotion < RECOVERY_LIMIT,
        "serving again only {gap_after_promotion:?} after the promotion"
    );
    assert!(
        acked_after_recovery > 0,
        "no write acknowledged after recovery"
    );

    let checked = must_read.len();
    let wrong = wrong_values(&clients, must_read).await;
    assert!(
        wrong.is_empty(),
        "{} of {checked} durable keys read wrong, e.g. {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(10)]
    );
    for counter in 0..COUNTERS {
        for (front_end, client) in clients.iter_mut().enumerate() {
            let body = read(client, &counter_key(counter)).await.unwrap();
            let value: i64 = body.map_or(0, |text| {
                std::str::from_utf8(&text).unwrap().parse().unwrap()
            });
            assert!(
                (floor[counter]..=ceiling[counter]).contains(&value),
                "counter {counter} via front-end {front_end} holds {value}, \
                 durable increments sum to {}, all sent to {}",
                floor[counter],
                ceiling[counter]
            );
        }
    }
    eprintln!(
        "failover: {checked} durable keys read back through both front-ends; \
         counters within [durable, sent]: {floor:?} .. {ceiling:?}"
    );
}
