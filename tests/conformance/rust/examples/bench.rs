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
//! SDK's default of one connection (Laptop configurations).

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
            let result = drive(client, options).await;
            println!(
                "round {round} {:<12} {:>9.0} rps  p50 {:>6} us  p99 {:>6} us  p99.9 {:>6} us",
                client.name(),
                result.rps,
                result.percentiles[0],
                result.percentiles[1],
                result.percentiles[2]
            );
            rounds.push(result);
        }
    }
    println!("\nmedians of {} rounds:", options.rounds);
    for (client, rounds) in clients.iter().zip(results.iter()) {
        let rps = median(rounds.iter().map(|r| r.rps).collect());
        let p = |i: usize| median(rounds.iter().map(|r| r.percentiles[i] as f64).collect());
        println!(
            "{:<12} {:>9.0} rps  p50 {:>6.0} us  p99 {:>6.0} us  p99.9 {:>6.0} us",
            client.name(),
            rps,
            p(0),
            p(1),
            p(2)
        );
    }
    server.stop().await;
}

/// One round: `concurrency` loops for a warm-up, then for `seconds` measured.
async fn drive(client: &Client, options: Options) -> Round {
    let start = Instant::now();
    let measure_from = start + WARMUP;
    let end = measure_from + Duration::from_secs(options.seconds);
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
    Round {
        rps: total.len() as f64 / options.seconds as f64,
        percentiles: [50.0, 99.0, 99.9].map(|q| total.value_at_quantile(q / 100.0)),
    }
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
