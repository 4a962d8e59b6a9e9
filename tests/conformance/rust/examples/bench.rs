//! The official crate's protosocket client against its gRPC client on one
//! jiffy-server: a third party's view of what the protosocket port gains.
//! One run measures one client and prints one JSON object;
//! `bench/rust-sdk/run.sh` (`make bench-rust-sdk`) starts the server, pins
//! both sides to their cores and interleaves the runs into rounds.
//!
//!     cargo run --release --example bench -- --transport protosocket \
//!         --grpc-endpoint 127.0.0.1:P --protosocket-endpoint 127.0.0.1:Q \
//!         --server-pid PID [--concurrency 50] [--seconds 10] [--warmup 2]
//!         [--value-size 100] [--keys 1000]
//!
//! Closed loop on one thread: `--concurrency` tasks each send one call,
//! wait for its answer, send the next; half gets, half sets of
//! `--value-size` bytes over `--keys` keys. When the warmup ends the server's CPU time
//! (/proc/PID/stat) is read and counting starts, in one step no task can
//! come between; the same again when the window closes. So the calls
//! counted, timed (HDR histogram) and divided into the server's CPU are
//! exactly those answered between the two readings.
//!
//! The cache is created over gRPC whatever the transport (protosocket has
//! no control calls); the run that creates it first sets every key, so
//! gets hit from the start. Each client keeps its SDK's default
//! connections (Laptop configurations): one HTTP/2 connection for gRPC;
//! for protosocket, half the cores this process may use, at least one (one
//! under `taskset -c 1`).

use std::cell::{Cell, RefCell};
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use jiffy_conformance_rust::{grpc_client_at, protosocket_client_at};
use momento::cache::{CreateCacheResponse, GetResponse};
use momento::{CacheClient, ProtosocketCacheClient};
use serde_json::json;

const CACHE: &str = "bench";

/// Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux).
const TICKS_PER_SECOND: f64 = 100.0;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Transport {
    Grpc,
    Protosocket,
}

#[derive(Clone, Debug)]
struct Options {
    transport: Transport,
    grpc_endpoint: SocketAddr,
    protosocket_endpoint: Option<SocketAddr>,
    server_pid: u32,
    concurrency: usize,
    seconds: f64,
    warmup: f64,
    value_size: usize,
    keys: u64,
}

/// Where the run is; switched only by the clock in [`run`].
#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Warmup,
    Measuring,
    Done,
}

/// The client under test, each making a call the same way.
#[derive(Clone)]
enum Client {
    Protosocket(ProtosocketCacheClient),
    // Boxed: the gRPC client is some 360 bytes, the other 56.
    Grpc(Box<CacheClient>),
}

/// What a call answered.
enum Answer {
    Hit,
    Miss,
    Stored,
}

impl Client {
    /// A get of `key`, or a set of `value` under it.
    async fn call(&self, key: String, value: Option<Vec<u8>>) -> Result<Answer, String> {
        let answer = match (self, value) {
            (Client::Protosocket(client), None) => client.get(CACHE, key).await.map(got),
            (Client::Protosocket(client), Some(value)) => {
                client.set(CACHE, key, value).await.map(|_| Answer::Stored)
            }
            (Client::Grpc(client), None) => client.get(CACHE, key).await.map(got),
            (Client::Grpc(client), Some(value)) => {
                client.set(CACHE, key, value).await.map(|_| Answer::Stored)
            }
        };
        answer.map_err(|error| format!("{:?}: {error}", error.error_code))
    }
}

fn got(response: GetResponse) -> Answer {
    match response {
        GetResponse::Hit { .. } => Answer::Hit,
        GetResponse::Miss => Answer::Miss,
    }
}

/// What the tasks saw inside the measured window.
struct Shared {
    phase: Cell<Phase>,
    /// Latency of the calls answered without error, microseconds.
    latency: RefCell<Histogram<u64>>,
    hits: Cell<u64>,
    misses: Cell<u64>,
    errors: Cell<u64>,
    first_error: RefCell<Option<String>>,
}

fn main() {
    let options = parse_options();
    // One thread: the benchmark gives the client one core, and one thread
    // lets the window open and close between two calls' answers.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let local = tokio::task::LocalSet::new();
    let report = local.block_on(&runtime, run(options));
    println!("{report}");
}

async fn run(options: Options) -> serde_json::Value {
    create_cache(&options).await;
    let client = match (options.transport, options.protosocket_endpoint) {
        (Transport::Grpc, _) => Client::Grpc(Box::new(grpc_client_at(options.grpc_endpoint))),
        (Transport::Protosocket, Some(endpoint)) => {
            Client::Protosocket(protosocket_client_at(endpoint).await)
        }
        (Transport::Protosocket, None) => {
            panic!("--transport protosocket needs --protosocket-endpoint")
        }
    };
    let shared = Rc::new(Shared {
        phase: Cell::new(Phase::Warmup),
        latency: RefCell::new(Histogram::new_with_bounds(1, 60_000_000, 3).unwrap()),
        hits: Cell::new(0),
        misses: Cell::new(0),
        errors: Cell::new(0),
        first_error: RefCell::new(None),
    });
    let tasks: Vec<_> = (0..options.concurrency)
        .map(|task| {
            let seed = 0x9E37_79B9_7F4A_7C15_u64 ^ (task as u64 + 1);
            let (client, shared) = (client.clone(), Rc::clone(&shared));
            tokio::task::spawn_local(call_in_a_loop(client, shared, options.clone(), seed))
        })
        .collect();

    tokio::time::sleep(Duration::from_secs_f64(options.warmup)).await;
    let start = Readings::take(options.server_pid);
    shared.phase.set(Phase::Measuring);
    let end_at = start.at + Duration::from_secs_f64(options.seconds);
    tokio::time::sleep_until(end_at.into()).await;
    let end = Readings::take(options.server_pid);
    shared.phase.set(Phase::Done);
    for task in tasks {
        task.abort();
    }
    report(&options, &shared, &start, &end)
}

/// Creates the cache; the run that creates it sets every key before the
/// warmup.
async fn create_cache(options: &Options) {
    let grpc = grpc_client_at(options.grpc_endpoint);
    if grpc.create_cache(CACHE).await.unwrap() == CreateCacheResponse::Created {
        let value = vec![b'v'; options.value_size];
        for key in 0..options.keys {
            grpc.set(CACHE, key.to_string(), value.clone())
                .await
                .unwrap();
        }
    }
}

/// One task: a call, its answer, the next call, until the window closes.
async fn call_in_a_loop(client: Client, shared: Rc<Shared>, options: Options, seed: u64) {
    let value = vec![b'v'; options.value_size];
    let mut random = seed;
    while shared.phase.get() != Phase::Done {
        random = xorshift(random);
        let key = (random % options.keys).to_string();
        let set = random >> 63 == 1;
        let sent = Instant::now();
        let answer = client.call(key, set.then(|| value.clone())).await;
        let elapsed = sent.elapsed();
        let counted = shared.phase.get() == Phase::Measuring;
        match answer {
            Ok(answer) if counted => {
                let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
                shared.latency.borrow_mut().saturating_record(micros.max(1));
                match answer {
                    Answer::Hit => shared.hits.set(shared.hits.get() + 1),
                    Answer::Miss => shared.misses.set(shared.misses.get() + 1),
                    Answer::Stored => {}
                }
            }
            Ok(_) => {}
            Err(error) => {
                if counted {
                    shared.errors.set(shared.errors.get() + 1);
                }
                shared.first_error.borrow_mut().get_or_insert(error);
                // A client that fails at once must still let the clock run.
                tokio::task::yield_now().await;
            }
        }
    }
}

/// What is read at one end of the window, with no await in between.
struct Readings {
    at: Instant,
    server_ticks: u64,
    client_ticks: u64,
    /// Busy ticks of the whole machine: what is not ours is other work.
    machine_ticks: u64,
}

impl Readings {
    fn take(server_pid: u32) -> Readings {
        Readings {
            at: Instant::now(),
            server_ticks: process_ticks(&server_pid.to_string()),
            client_ticks: process_ticks("self"),
            machine_ticks: machine_ticks(),
        }
    }
}

fn report(
    options: &Options,
    shared: &Shared,
    start: &Readings,
    end: &Readings,
) -> serde_json::Value {
    let seconds = (end.at - start.at).as_secs_f64();
    let latency = shared.latency.borrow();
    let ok = latency.len();
    let requests = ok + shared.errors.get();
    let cpu = |ticks: u64| {
        let cpu_seconds = ticks as f64 / TICKS_PER_SECOND;
        json!({
            "cpu_seconds": cpu_seconds,
            "cores": cpu_seconds / seconds,
            "us_per_request": cpu_seconds * 1e6 / requests.max(1) as f64,
        })
    };
    let server = end.server_ticks - start.server_ticks;
    let client = end.client_ticks - start.client_ticks;
    let machine = end.machine_ticks - start.machine_ticks;
    let ms = |quantile: f64| latency.value_at_quantile(quantile) as f64 / 1e3;
    json!({
        "config": {
            "transport": match options.transport {
                Transport::Grpc => "grpc",
                Transport::Protosocket => "protosocket",
            },
            "concurrency": options.concurrency,
            "duration_s": options.seconds,
            "warmup_s": options.warmup,
            "value_size": options.value_size,
            "keys": options.keys,
            "get_ratio": 0.5,
        },
        "seconds": seconds,
        "requests": requests,
        "ok": ok,
        "rps": requests as f64 / seconds,
        "errors": shared.errors.get(),
        "first_error": shared.first_error.borrow().clone(),
        "gets": {"hits": shared.hits.get(), "misses": shared.misses.get()},
        "latency_ms": {
            "count": ok,
            "p50": ms(0.50),
            "p90": ms(0.90),
            "p99": ms(0.99),
            "p999": ms(0.999),
            "max": latency.max() as f64 / 1e3,
        },
        "server_cpu": cpu(server),
        "client_cpu": cpu(client),
        "other_processes_cores":
            (machine.saturating_sub(server + client) as f64 / TICKS_PER_SECOND / seconds),
    })
}

/// User plus system CPU time of process `pid` ("self" for this one), from
/// /proc/PID/stat, in clock ticks.
fn process_ticks(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Busy clock ticks of all cores: the first line of /proc/stat, its first
/// eight counters (guest time is inside user) less idle and iowait.
fn machine_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap();
    let ticks: Vec<u64> = stat
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|field| field.parse().unwrap())
        .collect();
    ticks.iter().sum::<u64>() - ticks[3] - ticks[4]
}

fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

fn parse_options() -> Options {
    let mut options = Options {
        transport: Transport::Grpc,
        grpc_endpoint: "127.0.0.1:8080".parse().unwrap(),
        protosocket_endpoint: None,
        server_pid: 0,
        concurrency: 50,
        seconds: 10.0,
        warmup: 2.0,
        value_size: 100,
        keys: 1000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| panic!("{flag} needs a value"));
        let number = || {
            value
                .parse::<u64>()
                .unwrap_or_else(|_| refuse(&flag, &value))
        };
        let seconds = || {
            value
                .parse::<f64>()
                .unwrap_or_else(|_| refuse(&flag, &value))
        };
        let address = || {
            value
                .parse::<SocketAddr>()
                .unwrap_or_else(|_| refuse(&flag, &value))
        };
        match flag.as_str() {
            "--transport" => {
                options.transport = match value.as_str() {
                    "grpc" => Transport::Grpc,
                    "protosocket" => Transport::Protosocket,
                    _ => refuse(&flag, &value),
                }
            }
            "--grpc-endpoint" => options.grpc_endpoint = address(),
            "--protosocket-endpoint" => options.protosocket_endpoint = Some(address()),
            "--server-pid" => options.server_pid = number() as u32,
            "--concurrency" => options.concurrency = number() as usize,
            "--seconds" => options.seconds = seconds(),
            "--warmup" => options.warmup = seconds(),
            "--value-size" => options.value_size = number() as usize,
            "--keys" => options.keys = number(),
            _ => panic!("unknown flag {flag}; see the header of examples/bench.rs"),
        }
    }
    assert!(options.server_pid > 0, "--server-pid is needed");
    assert!(options.seconds > 0.0 && options.keys > 0 && options.concurrency > 0);
    options
}

/// Ends the program on a flag given a value it does not take.
fn refuse<T>(flag: &str, value: &str) -> T {
    panic!("{flag} {value}: not a value it takes; see the header of examples/bench.rs")
}
