//! 10,000 idle HTTP/2 connections held open against the server binary: a
//! normal client is still answered, and once they close the server's
//! resident memory goes back near where it was.
//!
//! Run with `-- --nocapture` to see the figures (connections, RSS before,
//! during and after, latency of a normal call while they are held).

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::raw_http2::handshake;
use common::{create_cache, in_cache, process_metric, wait_for_open_connections, ServerProcess};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{GetRequest, SetRequest};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tonic::transport::{Channel, Endpoint};

const IDLE: usize = 10_000;
/// Descriptors each process needs beyond the idle connections.
const SPARE_FDS: u64 = 1_024;
/// Handshakes in flight at once: fast, and within the listen backlog.
const PARALLEL_CONNECTS: usize = 256;
const MIB: u64 = 1 << 20;

async fn connect(url: String) -> Channel {
    Endpoint::from_shared(url).unwrap().connect().await.unwrap()
}

/// Latencies of `calls` sequential Gets of a present key, sorted.
async fn get_latencies(client: &mut ScsClient<Channel>, calls: usize) -> Vec<Duration> {
    let mut latencies = Vec::with_capacity(calls);
    for _ in 0..calls {
        let get = GetRequest {
            cache_key: Bytes::from_static(b"k"),
        };
        let started = Instant::now();
        let answer = client.get(in_cache("c", get)).await.unwrap().into_inner();
        latencies.push(started.elapsed());
        assert_eq!(answer.cache_body, "v");
    }
    latencies.sort();
    latencies
}

fn summary(latencies: &[Duration]) -> String {
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    format!(
        "p50 {:?}, p99 {:?}, max {:?}",
        at(0.5),
        at(0.99),
        latencies.last().unwrap()
    )
}

/// `IDLE` connections that each completed the HTTP/2 handshake.
async fn open_idle(server: &ServerProcess) -> Vec<TcpStream> {
    let permits = Arc::new(Semaphore::new(PARALLEL_CONNECTS));
    let tasks: Vec<_> = (0..IDLE)
        .map(|_| {
            let permits = permits.clone();
            let addr = server.addr;
            tokio::spawn(async move {
                let _permit = permits.acquire_owned().await.unwrap();
                handshake(addr).await
            })
        })
        .collect();
    let mut streams = Vec::with_capacity(IDLE);
    for task in tasks {
        streams.push(task.await.unwrap().expect("an idle connection failed"));
    }
    streams
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_idle_connections() {
    let _serial = common::attack::serialize().await;
    if !common::open_files::raise_or_skip("ten_thousand_idle_connections", IDLE as u64 + SPARE_FDS)
    {
        return;
    }
    let server = ServerProcess::spawn(
        &["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"],
        &[],
    );
    let channel = connect(server.url()).await;
    create_cache(&mut ScsControlClient::new(channel.clone()), "c").await;
    let mut client = ScsClient::new(channel);
    let set = SetRequest {
        cache_key: Bytes::from_static(b"k"),
        cache_body: Bytes::from_static(b"v"),
        ttl_milliseconds: 600_000,
    };
    client.set(in_cache("c", set)).await.unwrap();
    let quiet = get_latencies(&mut client, 200).await;
    let open_before = process_metric(&server, "jiffy_open_connections").await;
    let rss_before = server.resident_bytes();

    let started = Instant::now();
    let idle = open_idle(&server).await;
    let connect_time = started.elapsed();
    wait_for_open_connections(&server, open_before + IDLE as f64).await;
    let rss_during = server.resident_bytes();
    let held = get_latencies(&mut client, 200).await;
    // A new client is accepted and answered too.
    let mut newcomer = ScsClient::new(connect(server.url()).await);
    get_latencies(&mut newcomer, 10).await;
    drop(newcomer);

    drop(idle);
    wait_for_open_connections(&server, open_before).await;
    let rss_after = server.resident_bytes();
    let after = get_latencies(&mut client, 200).await;

    eprintln!(
        "{IDLE} idle connections opened in {connect_time:?}\n\
         server RSS: before {:.1} MiB, while held {:.1} MiB ({:.1} KiB per connection), after {:.1} MiB\n\
         Get latency before: {}\n\
         Get latency while held: {}\n\
         Get latency after: {}",
        rss_before as f64 / MIB as f64,
        rss_during as f64 / MIB as f64,
        rss_during.saturating_sub(rss_before) as f64 / 1024.0 / IDLE as f64,
        rss_after as f64 / MIB as f64,
        summary(&quiet),
        summary(&held),
        summary(&after),
    );
    // Back near where it was: within a quarter of what the idle connections
    // took, or 16 MiB, whichever is more (allocator caches, thread stacks).
    let allowance = ((rss_during.saturating_sub(rss_before)) / 4).max(16 * MIB);
    assert!(
        rss_after <= rss_before + allowance,
        "resident memory did not come back: {rss_before} before, {rss_during} while held, {rss_after} after"
    );
}
