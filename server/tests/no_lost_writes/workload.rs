//! The mixed workload: many tasks over a few connections, on overlapping
//! keys, each recording every call it made with its send and answer times.

use std::time::{Duration, Instant};

use bytes::Bytes;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{
    DeleteRequest, ECacheResult, GetRequest, IncrementRequest, SetRequest,
};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use tonic::transport::Channel;

use super::history::{Call, Key, Op, SHORT_TTL};
use crate::common::in_cache;

pub const CACHE: &str = "checked";
pub const REGISTERS: u16 = 32;
pub const SHORTS: u16 = 16;
pub const COUNTERS: u16 = 16;
/// Far longer than any run, within the default --max-ttl.
pub const LONG_TTL: Duration = Duration::from_secs(24 * 3600);

pub struct Workload {
    pub duration: Duration,
    pub tasks: usize,
    pub seed: u64,
}

/// What the workload recorded: acknowledged calls, and calls that failed.
#[derive(Default)]
pub struct Record {
    pub ops: Vec<Op>,
    pub failures: Vec<String>,
}

/// A client of the cache that records each call against the run's clock.
pub struct Recorder {
    pub client: ScsClient<Channel>,
    pub start: Instant,
    pub record: Record,
}

impl Recorder {
    pub async fn get(&mut self, key: Key) {
        let request = GetRequest {
            cache_key: Bytes::from(key.name()),
        };
        let send = self.start.elapsed();
        let answer = self.client.get(in_cache(CACHE, request)).await;
        let ack = self.start.elapsed();
        match answer.map(|a| a.into_inner()) {
            Ok(answer) => {
                // Copied: the decoded value may share (and so keep alive) the
                // whole receive buffer, and a long run records millions.
                let found = (answer.result() == ECacheResult::Hit)
                    .then(|| Bytes::copy_from_slice(&answer.cache_body));
                self.done(key, Call::Get { found }, send, ack);
            }
            Err(status) => self.failed(key, "Get", status),
        }
    }

    pub async fn set(&mut self, key: Key, value: Bytes, ttl: Duration) {
        let request = SetRequest {
            cache_key: Bytes::from(key.name()),
            cache_body: value.clone(),
            ttl_milliseconds: ttl.as_millis() as u64,
        };
        let send = self.start.elapsed();
        let answer = self.client.set(in_cache(CACHE, request)).await;
        let ack = self.start.elapsed();
        match answer {
            Ok(_) => self.done(key, Call::Set { value, ttl }, send, ack),
            Err(status) => self.failed(key, "Set", status),
        }
    }

    pub async fn delete(&mut self, key: Key) {
        let request = DeleteRequest {
            cache_key: Bytes::from(key.name()),
        };
        let send = self.start.elapsed();
        let answer = self.client.delete(in_cache(CACHE, request)).await;
        let ack = self.start.elapsed();
        match answer {
            Ok(_) => self.done(key, Call::Delete, send, ack),
            Err(status) => self.failed(key, "Delete", status),
        }
    }

    pub async fn increment(&mut self, key: Key, amount: i64) {
        let request = IncrementRequest {
            cache_key: Bytes::from(key.name()),
            amount,
            ttl_milliseconds: LONG_TTL.as_millis() as u64,
        };
        let send = self.start.elapsed();
        let answer = self.client.increment(in_cache(CACHE, request)).await;
        let ack = self.start.elapsed();
        match answer {
            Ok(answer) => {
                let total = answer.into_inner().value;
                self.done(key, Call::Increment { amount, total }, send, ack);
            }
            // Not counted as applied: with no faults injected there should
            // be none, and the test fails on any.
            Err(status) => self.failed(key, "Increment", status),
        }
    }

    fn done(&mut self, key: Key, call: Call, send: Duration, ack: Duration) {
        self.record.ops.push(Op {
            key,
            call,
            send,
            ack,
        });
    }

    fn failed(&mut self, key: Key, rpc: &str, status: tonic::Status) {
        self.record
            .failures
            .push(format!("{rpc} {}: {status:?}", key.name()));
    }
}

/// One task's loop: random calls on random keys until `until`.
async fn task(mut recorder: Recorder, id: usize, seed: u64, until: Instant) -> Record {
    let mut rng = SmallRng::seed_from_u64(seed ^ (id as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut sequence = 0u64;
    while Instant::now() < until {
        sequence += 1;
        // Unique across the run: the checker finds a read's write by value.
        let value = Bytes::from(format!("{id}-{sequence}"));
        let register = Key::Register(rng.random_range(0..REGISTERS));
        let short = Key::Short(rng.random_range(0..SHORTS));
        let counter = Key::Counter(rng.random_range(0..COUNTERS));
        match rng.random_range(0..100) {
            0..25 => recorder.set(register, value, LONG_TTL).await,
            25..33 => recorder.delete(register).await,
            33..53 => recorder.get(register).await,
            53..63 => recorder.set(short, value, SHORT_TTL).await,
            63..73 => recorder.get(short).await,
            73..93 => recorder.increment(counter, rng.random_range(1..=100)).await,
            _ => recorder.get(counter).await,
        }
    }
    recorder.record
}

/// Runs `workload` over `channels` (tasks spread across them) and returns
/// everything recorded, on a clock that starts at `start`.
pub async fn run(workload: &Workload, channels: &[Channel], start: Instant) -> Record {
    let until = Instant::now() + workload.duration;
    let tasks: Vec<_> = (0..workload.tasks)
        .map(|id| {
            let recorder = Recorder {
                client: ScsClient::new(channels[id % channels.len()].clone()),
                start,
                record: Record::default(),
            };
            tokio::spawn(task(recorder, id, workload.seed, until))
        })
        .collect();
    let mut all = Record::default();
    for task in tasks {
        let record = task.await.unwrap();
        all.ops.extend(record.ops);
        all.failures.extend(record.failures);
    }
    all
}
