//! The official crate's protosocket client against its gRPC client, both on
//! one jiffy-server: a third party's view of what the protosocket port
//! gains. Closed loop: `concurrency` tasks each send one call, wait for the
//! answer, send the next; half gets, half sets, of 100-byte values over a
//! small keyspace. Rounds alternate the transports so drift on a shared
//! machine falls on both.
//!
//!     cargo run --release --example bench -- [--rounds 3] [--seconds 10]
//!         [--concurrency 50] [--value-size 100] [--keys 1000]
//!
//! The server runs under `taskset -c 0`, this process moves itself to CPU 1
//! before it starts its (single-threaded) runtime. Each client keeps its
//! SDK's default of one connection (Laptop configurations). Each round
//! prints its rps, latency percentiles from an HDR histogram, and the CPU
//! each side used over the measured window, in cores (1.00: its CPU was
//! saturated) and per call; at the end, the medians over the rounds.

use std::process::Command;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use jiffy_conformance_rust::{grpc_client, protosocket_client, JiffyServer};
use momento::cache::CreateCacheResponse;
use momento::{CacheClient, ProtosocketCacheClient};
use tokio::task::JoinSet;

const CACHE: &str = "bench";
const WARMUP: Duration = Duration::from_secs(2);
const SERVER_CPUS: &str = "0";
const CLIENT_CPUS: &str = "1";

#[derive(Clone, Copy, Debug)]
struct Options {
    rounds: usize,
    seconds: u64,
    concurrency: usize,
    value_size: usize,
    keys: u64,
}

/// One round of one transport.
struct Round {
    rps: f64,
    /// Latency percentiles, microseconds: p50, p99, p99.9.
    percentiles: [u64; 3],
    /// CPU time over the measured window, in cores: which side is the limit.
    server_cpu: f64,
    client_cpu: f64,
}

impl Round {
    /// The CPU and the calls per second as "0.65 cores 10.0 us/call".
    fn cpu(cores: f64, rps: f64) -> String {
        format!("{cores:.2} cores {:>4.1} us/call", cores * 1e6 / rps)
    }
}

fn main() {
    let options = parse_options();
    pin_this_process(CLIENT_CPUS);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(options));
}

/// The two clients under test, each making a call the same way.
#[derive(Clone)]
enum Client {
    Protosocket(ProtosocketCacheClient),
    // Boxed: the gRPC client is some 360 bytes, the other 56.
    Grpc(Box<CacheClient>),
}

impl Client {
    fn name(&self) -> &'static str {
        match self {
            Client::Protosocket(_) => "protosocket",
            Client::Grpc(_) => "grpc",
        }
    }

    /// A get of `key`, or a set of `value` under it; any error ends the run.
    async fn call(&self, key: String, value: Option<Vec<u8>>) {
        match (self, value) {
            (Client::Protosocket(client), None) => {
                client.get(CACHE, key).await.unwrap();
            }
            (Client::Protosocket(client), Some(value)) => {
                client.set(CACHE, key, value).await.unwrap();
            }
            (Client::Grpc(client), None) => {
                client.get(CACHE, key).await.unwrap();
            }
            (Client::Grpc(client), Some(value)) => {
                client.set(CACHE, key, value).await.unwrap();
            }
        }
    }
}

async fn run(options: Options) {
    let server = JiffyServer::start_on_cpus(SERVER_CPUS, &[]);
    let grpc = grpc_client(&server);
    assert_eq!(
        grpc.create_cache(CACHE).await.unwrap(),
        CreateCacheResponse::Created
    );
    let protosocket = protosocket_client(&server).await;
    println!("{options:?}; server on CPU {SERVER_CPUS}, client on CPU {CLIENT_CPUS}");

    let value = vec![b'v'; options.value_size];
    for key in 0..options.keys {
        grpc.set(CACHE, key.to_string(), value.clone())
            .await
            .unwrap();
    }

    let clients = [
        Client::Protosocket(protosocket),
        Client::Grpc(Box::new(grpc)),
    ];
    let mut results: [Vec<Round>; 2] = [Vec::new(), Vec::new()];
    for round in 1..=options.rounds {
        for (client, rounds) in clients.iter().zip(results.iter_mut()) {
            let result = drive(client, options, server.pid()).await;
            println!(
                "round {round} {:<12} {:>6.0} rps  p50 {:>5} us  p99 {:>5} us  p99.9 {:>5} us  \
                 server {}  client {}",
                client.name(),
                result.rps,
                result.percentiles[0],
                result.percentiles[1],
                result.percentiles[2],
                Round::cpu(result.server_cpu, result.rps),
                Round::cpu(result.client_cpu, result.rps)
            );
            rounds.push(result);
        }
    }
    println!("\nmedians of {} rounds:", options.rounds);
    for (client, rounds) in clients.iter().zip(results.iter()) {
        let rps = median(rounds.iter().map(|r| r.rps).collect());
        let p = |i: usize| median(rounds.iter().map(|r| r.percentiles[i] as f64).collect());
        let server_cpu = median(rounds.iter().map(|r| r.server_cpu).collect());
        let client_cpu = median(rounds.iter().map(|r| r.client_cpu).collect());
        println!(
            "{:<12} {:>6.0} rps  p50 {:>5.0} us  p99 {:>5.0} us  p99.9 {:>5.0} us  \
             server {}  client {}",
            client.name(),
            rps,
            p(0),
            p(1),
            p(2),
            Round::cpu(server_cpu, rps),
            Round::cpu(client_cpu, rps)
        );
    }
    server.stop().await;
}

/// One round: `concurrency` loops for a warm-up, then for `seconds` measured.
async fn drive(client: &Client, options: Options, server_pid: u32) -> Round {
    let start = Instant::now();
    let measure_from = start + WARMUP;
    let end = measure_from + Duration::from_secs(options.seconds);
    let cpu = tokio::spawn(async move {
        tokio::time::sleep_until(measure_from.into()).await;
        let before = (cpu_seconds(&server_pid.to_string()), cpu_seconds("self"));
        tokio::time::sleep_until(end.into()).await;
        let after = (cpu_seconds(&server_pid.to_string()), cpu_seconds("self"));
        (after.0 - before.0, after.1 - before.1)
    });
    let mut tasks = JoinSet::new();
    for task in 0..options.concurrency {
        let client = client.clone();
        tasks.spawn(async move {
            let mut histogram = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
            let mut random = 0x9E37_79B9_7F4A_7C15_u64 ^ (task as u64 + 1);
            let value = vec![b'v'; options.value_size];
            loop {
                random = xorshift(random);
                let key = (random % options.keys).to_string();
                let set = random >> 63 == 1;
                let sent = Instant::now();
                if sent >= end {
                    break;
                }
                client.call(key, set.then(|| value.clone())).await;
                if sent >= measure_from {
                    histogram
                        .record(sent.elapsed().as_micros().max(1) as u64)
                        .unwrap();
                }
            }
            histogram
        });
    }
    let mut total = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
    while let Some(histogram) = tasks.join_next().await {
        total.add(histogram.unwrap()).unwrap();
    }
    let (server_cpu, client_cpu) = cpu.await.unwrap();
    let seconds = options.seconds as f64;
    Round {
        rps: total.len() as f64 / seconds,
        percentiles: [50.0, 99.0, 99.9].map(|q| total.value_at_quantile(q / 100.0)),
        server_cpu: server_cpu / seconds,
        client_cpu: client_cpu / seconds,
    }
}

/// User plus system CPU time of process `pid` ("self" for this one), from
/// /proc/PID/stat, in seconds (at the usual 100 ticks a second).
fn cpu_seconds(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Moves every thread of this process to `cpus` (before the runtime starts
/// its threads, which inherit it); std has no call for it, taskset(1) does.
fn pin_this_process(cpus: &str) {
    let status = Command::new("taskset")
        .args(["-a", "-p", "-c", cpus, &std::process::id().to_string()])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("taskset(1) is installed");
    assert!(status.success(), "taskset failed");
}

fn parse_options() -> Options {
    let mut options = Options {
        rounds: 3,
        seconds: 10,
        concurrency: 50,
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
                .unwrap_or_else(|_| panic!("{flag} {value}: not a number"))
        };
        match flag.as_str() {
            "--rounds" => options.rounds = number() as usize,
            "--seconds" => options.seconds = number(),
            "--concurrency" => options.concurrency = number() as usize,
            "--value-size" => options.value_size = number() as usize,
            "--keys" => options.keys = number(),
            _ => panic!("unknown flag {flag}; see the header of examples/bench.rs"),
        }
    }
    options
}
