//! The closed loop: tasks that each keep one request in flight, and the clock
//! task that opens and closes the measured window. The requests go over
//! gRPC or over protosocket connections (`--transport`); the loop, the
//! window and the counting are the same for both.
//!
//! Everything runs on one thread (a current-thread runtime and a `LocalSet`),
//! so the clock task reads the server's CPU time and flips the phase in one
//! step no worker can interleave with: a request counts if its answer is
//! handled after the first CPU reading and before the second.

use std::{
    cell::{Cell, RefCell},
    collections::BTreeMap,
    rc::Rc,
    time::{Duration, Instant, SystemTime},
};

use bytes::Bytes;
use hdrhistogram::Histogram;
use tonic::{metadata::AsciiMetadataValue, transport::Channel};

use jiffy_bench_server::{
    cpu::{CpuTicks, MachineTicks},
    latency,
};

use crate::{
    args::Args,
    calls::{self, Answer, Call, Inputs},
    protosocket,
};

/// Where the run is; flipped only by the clock task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Warmup,
    Measuring,
    Done,
}

#[derive(Debug, Clone, Copy)]
pub enum Op {
    Get,
    Set,
}

/// What the workers saw inside the measured window.
pub struct Stats {
    /// Latency of successful calls, nanoseconds, per op.
    pub get_latency: Histogram<u64>,
    pub set_latency: Histogram<u64>,
    pub hits: u64,
    pub misses: u64,
    /// Hits whose value was not the size we set: a server bug, not noise.
    pub wrong_size_hits: u64,
    /// Calls that succeeded with a result the protocol does not allow for
    /// them (say, a set answering `Invalid`), by description. The server did
    /// the work, so they count as requests; they are listed to be looked at.
    pub unexpected_results: BTreeMap<String, u64>,
    /// Failed calls by status code (protosocket errors carry gRPC's codes),
    /// and the first message of each.
    pub errors: BTreeMap<String, u64>,
    pub error_examples: BTreeMap<String, String>,
}

impl Stats {
    fn new() -> Self {
        Stats {
            get_latency: latency::histogram(),
            set_latency: latency::histogram(),
            hits: 0,
            misses: 0,
            wrong_size_hits: 0,
            unexpected_results: BTreeMap::new(),
            errors: BTreeMap::new(),
            error_examples: BTreeMap::new(),
        }
    }

    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }

    /// Calls the server answered without an error status.
    pub fn ok_count(&self) -> u64 {
        self.get_latency.len() + self.set_latency.len()
    }

    fn record_error(&mut self, status: &tonic::Status) {
        let code = format!("{:?}", status.code());
        *self.errors.entry(code.clone()).or_default() += 1;
        self.error_examples
            .entry(code)
            .or_insert_with(|| status.message().to_string());
    }
}

/// The measured window: instants, wall clock, and CPU readings at both ends.
pub struct Window {
    pub start_unix_ms: u128,
    pub end_unix_ms: u128,
    pub elapsed: Duration,
    /// Server CPU at start and end (when `--server-pid` was given).
    pub server_cpu: Option<(CpuTicks, CpuTicks)>,
    /// Store CPU at start and end (when `--store-pid` was given).
    pub store_cpu: Option<(CpuTicks, CpuTicks)>,
    /// This process's CPU at start and end: a client at 100% of its core
    /// means the throughput is the client's limit, not the server's.
    pub client_cpu: (CpuTicks, CpuTicks),
    /// The whole machine's busy CPU at start and end.
    pub machine_cpu: (MachineTicks, MachineTicks),
}

pub struct Outcome {
    pub stats: Stats,
    pub window: Window,
}

/// The connections of a run, all of its one transport.
pub enum Connections {
    Grpc(Vec<Channel>),
    Protosocket(Vec<Rc<protosocket::Connection>>),
}

impl Connections {
    /// What worker `i` sends over: connection i % N.
    fn client(&self, i: usize) -> Client {
        match self {
            Connections::Grpc(channels) => Client::Grpc(Box::new(calls::Grpc::new(
                channels[i % channels.len()].clone(),
            ))),
            Connections::Protosocket(connections) => {
                Client::Protosocket(Rc::clone(&connections[i % connections.len()]))
            }
        }
    }

    /// Why a connection ended during the run, if one did: its workers
    /// stopped, so the run measured less than it says.
    fn closed(&self) -> Option<String> {
        match self {
            Connections::Grpc(_) => None,
            Connections::Protosocket(connections) => connections.iter().find_map(|c| c.closed()),
        }
    }
}

/// What one worker sends its requests over.
enum Client {
    Grpc(Box<calls::Grpc>),
    Protosocket(Rc<protosocket::Connection>),
}

/// What every worker shares. Single-threaded, hence `Rc` and `Cell`.
struct Shared {
    phase: Cell<Phase>,
    stats: RefCell<Stats>,
    keys: Vec<Bytes>,
    value: Bytes,
    cache: AsciiMetadataValue,
    /// The same, as the protosocket commands name it.
    cache_name: String,
    get_ratio: f64,
    ttl_ms: u64,
    call: Call,
}

/// Runs warmup then the measured window; must be called inside a `LocalSet`.
pub async fn run(args: &Args, connections: Connections) -> Result<Outcome, String> {
    let cache = AsciiMetadataValue::try_from(args.cache.as_str())
        .map_err(|e| format!("--cache is not a valid header value: {e}"))?;
    let shared = Rc::new(Shared {
        phase: Cell::new(Phase::Warmup),
        stats: RefCell::new(Stats::new()),
        // Built once so the loop spends no client CPU formatting keys.
        keys: (0..args.keyspace)
            .map(|i| Bytes::from(format!("key:{i:012}")))
            .collect(),
        value: Bytes::from(vec![b'x'; args.value_size]),
        cache,
        cache_name: args.cache.clone(),
        get_ratio: args.get_ratio,
        ttl_ms: args.ttl.saturating_mul(1000),
        call: args.call,
    });
    // Only gRPC has the collection calls that need a prefill.
    if let Connections::Grpc(channels) = &connections {
        prefill(&shared, channels).await?;
    }

    let workers: Vec<_> = (0..args.concurrency)
        .map(|i| {
            let client = connections.client(i);
            let seed = 0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1);
            tokio::task::spawn_local(worker(client, Rc::clone(&shared), seed))
        })
        .collect();

    let started = Instant::now();
    tokio::time::sleep_until((started + args.warmup()).into()).await;
    let start = Readings::take(args)?;
    shared.phase.set(Phase::Measuring);

    tokio::time::sleep_until((start.at + args.duration()).into()).await;
    let end = Readings::take(args)?;
    shared.phase.set(Phase::Done);

    // Workers stop after their request in flight; don't wait on a stuck one.
    for handle in workers {
        handle.abort();
    }
    if let Some(reason) = connections.closed() {
        return Err(format!("a protosocket connection ended: {reason}"));
    }

    let stats = std::mem::replace(&mut *shared.stats.borrow_mut(), Stats::new());
    Ok(Outcome {
        stats,
        window: Window {
            start_unix_ms: start.unix_ms,
            end_unix_ms: end.unix_ms,
            elapsed: end.at - start.at,
            server_cpu: start.server.zip(end.server),
            store_cpu: start.store.zip(end.store),
            client_cpu: (start.client, end.client),
            machine_cpu: (start.machine, end.machine),
        },
    })
}

/// Everything read at one end of the window, with no await in between.
struct Readings {
    server: Option<CpuTicks>,
    store: Option<CpuTicks>,
    client: CpuTicks,
    machine: MachineTicks,
    at: Instant,
    unix_ms: u128,
}

impl Readings {
    fn take(args: &Args) -> Result<Self, String> {
        let server = CpuTicks::of_all(&args.server_pid).map_err(|e| format!("server {e}"))?;
        let store = CpuTicks::of_all(&args.store_pid).map_err(|e| format!("store {e}"))?;
        Ok(Readings {
            server,
            store,
            client: CpuTicks::of(None).map_err(|e| format!("/proc/self/stat: {e}"))?,
            machine: MachineTicks::read().map_err(|e| format!("/proc/stat: {e}"))?,
            at: Instant::now(),
            unix_ms: unix_ms(),
        })
    }
}

fn unix_ms() -> u128 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// One request in flight at a time, until the phase is `Done`.
async fn worker(mut client: Client, shared: Rc<Shared>, seed: u64) {
    let mut rng = SplitMix64(seed);
    while shared.phase.get() != Phase::Done {
        let key = shared.keys[rng.below(shared.keys.len())].clone();
        let op = match shared.call {
            Call::GetSet if rng.unit() < shared.get_ratio => Op::Get,
            Call::GetSet => Op::Set,
            call if call.is_read() => Op::Get,
            _ => Op::Set,
        };
        let member = rng.below(shared.keys.len());
        let sent = Instant::now();
        let answer = match (&mut client, shared.call) {
            (Client::Grpc(client), Call::GetSet) => match op {
                Op::Get => calls::get(&mut client.scs, &shared.cache, key).await,
                Op::Set => {
                    let value = shared.value.clone();
                    calls::set(&mut client.scs, &shared.cache, key, value, shared.ttl_ms).await
                }
            },
            (Client::Grpc(client), call) => {
                let inputs = Inputs {
                    value: &shared.value,
                    member,
                    ttl_ms: shared.ttl_ms,
                };
                call.send(client, &shared.cache, key, inputs).await
            }
            // Only get-set (`Args::validate`).
            (Client::Protosocket(connection), _) => match op {
                Op::Get => connection.get(&shared.cache_name, key).await,
                Op::Set => {
                    let value = shared.value.clone();
                    connection
                        .set(&shared.cache_name, key, value, shared.ttl_ms)
                        .await
                }
            },
        };
        let elapsed = sent.elapsed();
        // An ended connection fails every call at once, with no await in
        // between: looping on would keep the clock task from ever running.
        if let Client::Protosocket(connection) = &client {
            if connection.closed().is_some() {
                return;
            }
        }
        if shared.phase.get() != Phase::Measuring {
            continue;
        }
        let mut stats = shared.stats.borrow_mut();
        let nanos = latency::nanos(elapsed);
        let answer = match answer {
            Ok(answer) => answer,
            Err(status) => {
                stats.record_error(&status);
                continue;
            }
        };
        match op {
            Op::Get => stats.get_latency.saturating_record(nanos),
            Op::Set => stats.set_latency.saturating_record(nanos),
        }
        let expected_len = match shared.call {
            Call::GetSet => shared.value.len(),
            call => call.expected_hit_len(),
        };
        match answer {
            Answer::Hit(len) if len == expected_len => stats.hits += 1,
            Answer::Hit(_) => stats.wrong_size_hits += 1,
            Answer::Miss => stats.misses += 1,
            Answer::Stored => {}
            Answer::Unexpected(call, result) => {
                let what = format!("{call} answered {result}");
                *stats.unexpected_results.entry(what).or_default() += 1;
            }
        }
    }
}

/// Writes the collections the reads expect, for every key, before the
/// warmup, one call at a time: a second or two, not measured.
async fn prefill(shared: &Shared, channels: &[Channel]) -> Result<(), String> {
    if !shared.call.is_read() {
        return Ok(());
    }
    let mut client = calls::Grpc::new(channels[0].clone());
    for key in &shared.keys {
        shared
            .call
            .prefill(
                &mut client,
                &shared.cache,
                key.clone(),
                &shared.value,
                shared.ttl_ms,
            )
            .await
            .map_err(|status| format!("prefill: {status}"))?;
    }
    Ok(())
}

/// A small, fast generator: the key and the op of each request need no
/// cryptographic quality, and one per task avoids any shared state.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (the modulo bias is < n / 2^64).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
