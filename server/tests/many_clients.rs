//! 1,000 clients at once against the server binary, each its own tonic
//! channel (one TCP connection): the server counts all of them open, and
//! when they all call together (Set, Get, Increment of one shared counter)
//! every call is answered correctly.
//!
//! Run with `-- --nocapture` to see the figures.

use crate::common;

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use common::{create_cache, in_cache, process_metric, wait_for_open_connections, ServerProcess};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{GetRequest, IncrementRequest, SetRequest};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use tokio::sync::{Barrier, Semaphore};
use tonic::transport::{Channel, Endpoint};

const CLIENTS: usize = 1_000;
/// Descriptors each process needs beyond the client connections.
const SPARE_FDS: u64 = 1_024;
/// Handshakes in flight at once: within the listen backlog.
const PARALLEL_CONNECTS: usize = 256;
const CACHE: &str = "c";
const COUNTER: &[u8] = b"shared-counter";
const MIB: f64 = (1 << 20) as f64;

/// `CLIENTS` channels, each connected on its own TCP connection.
async fn connect_all(url: String) -> Vec<Channel> {
    let permits = Arc::new(Semaphore::new(PARALLEL_CONNECTS));
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (permits, url) = (permits.clone(), url.clone());
            tokio::spawn(async move {
                let _permit = permits.acquire_owned().await.unwrap();
                Endpoint::from_shared(url).unwrap().connect().await
            })
        })
        .collect();
    let mut channels = Vec::with_capacity(CLIENTS);
    for task in tasks {
        channels.push(task.await.unwrap().expect("a client failed to connect"));
    }
    channels
}

/// One client's calls, started together with every other client's: Set and
/// Get of its own key, then one Increment of the shared counter.
async fn calls(channel: Channel, client: usize, start: Arc<Barrier>) -> i64 {
    let mut scs = ScsClient::new(channel);
    let key = Bytes::from(format!("key-{client}"));
    let value = Bytes::from(format!("value-{client}"));
    start.wait().await;
    let set = SetRequest {
        cache_key: key.clone(),
        cache_body: value.clone(),
        ttl_milliseconds: 600_000,
    };
    scs.set(in_cache(CACHE, set)).await.unwrap();
    let get = GetRequest { cache_key: key };
    let answer = scs.get(in_cache(CACHE, get)).await.unwrap().into_inner();
    assert_eq!(
        answer.cache_body, value,
        "client {client} read another value"
    );
    let increment = IncrementRequest {
        cache_key: Bytes::from_static(COUNTER),
        amount: 1,
        ttl_milliseconds: 600_000,
    };
    scs.increment(in_cache(CACHE, increment))
        .await
        .unwrap()
        .into_inner()
        .value
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_clients_connected_and_calling_at_once() {
    let _serial = common::attack::serialize().await;
    if !common::open_files::raise_or_skip(
        "a_thousand_clients_connected_and_calling_at_once",
        CLIENTS as u64 + SPARE_FDS,
    ) {
        return;
    }
    let server = ServerProcess::spawn(
        &["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"],
        &[],
    );
    let control = Endpoint::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    create_cache(&mut ScsControlClient::new(control), CACHE).await;
    wait_for_open_connections(&server, 0.0).await; // the control channel is gone
    let rss_before = server.resident_bytes() as f64 / MIB;

    let started = Instant::now();
    let channels = connect_all(server.url()).await;
    let connect_time = started.elapsed();
    wait_for_open_connections(&server, CLIENTS as f64).await;
    let rss_held = server.resident_bytes() as f64 / MIB;

    let start = Arc::new(Barrier::new(CLIENTS));
    let started = Instant::now();
    let tasks: Vec<_> = channels
        .iter()
        .enumerate()
        .map(|(client, channel)| tokio::spawn(calls(channel.clone(), client, start.clone())))
        .collect();
    let mut counts = Vec::with_capacity(CLIENTS);
    for task in tasks {
        counts.push(task.await.unwrap());
    }
    let call_time = started.elapsed();
    // Every Increment was applied once: together they returned 1..=CLIENTS.
    counts.sort_unstable();
    assert_eq!(counts, (1..=CLIENTS as i64).collect::<Vec<_>>());
    assert_eq!(
        process_metric(&server, "jiffy_open_connections").await,
        CLIENTS as f64
    );
    assert_eq!(
        process_metric(
            &server,
            r#"jiffy_requests_total{code="OK",rpc="Increment",transport="grpc"}"#
        )
        .await,
        CLIENTS as f64
    );
    let peak_in_flight = process_metric(&server, "jiffy_requests_in_flight_max").await;

    drop(channels);
    wait_for_open_connections(&server, 0.0).await;
    eprintln!(
        "{CLIENTS} clients connected in {connect_time:?}, {} calls answered in {call_time:?} \
         (peak {peak_in_flight} in flight on the server)\n\
         server RSS: before {rss_before:.1} MiB, with {CLIENTS} connections {rss_held:.1} MiB",
        CLIENTS * 3,
    );
}
