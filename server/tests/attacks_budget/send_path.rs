//! Answers clients never read. A client that opens wide flow-control
//! windows lets HTTP/2 take every answer whole, and one that then never
//! reads its socket leaves them all in the server: h2 holds each stream's
//! answer (up to its send buffer) until the kernel takes it, and a stream
//! whose whole answer is queued no longer counts against
//! `--max-concurrent-streams`, so the client can open more. The in-flight
//! budget must count those bytes until they are written, and close the
//! connection holding the most when it is spent.
//!
//! What h2 holds that the budget does not count must stay small too: error
//! answers in headers alone, which carry no body to charge (h2 reads no
//! more of a connection that does not take its answers), and request bytes
//! in its receive windows before a handler reads them (the window's size,
//! `listener/http2.rs`).
//!
//! On the protosocket port, clients that authenticate and then stay idle
//! would hold their places under `--max-connections` for ever:
//! `--idle-timeout` closes them.

use std::time::Duration;

use bytes::Bytes;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{GetBatchRequest, GetRequest, SetRequest};
use prost::Message;

use crate::common::attack::{self, Ctx, RawConn, Setup, Stats, Target, CACHE, SMALL_KEY};
use crate::common::in_cache;
use crate::common::protosocket::{get, value_of, Client};
use crate::common::raw_http2 as raw;

/// The largest window HTTP/2 allows, for each stream and the connection.
const WIDE_WINDOW: u32 = (1 << 31) - 1;
/// Attacking connections, and the calls each sends at a time.
pub(super) const CONNECTIONS: usize = 8;
const STREAMS: usize = 100;
/// A Get answer just under hyper's default send buffer (400 KiB): h2 takes
/// it whole and the stream ends.
const LARGE_KEY: &[u8] = b"wide-large";
const LARGE_VALUE_SIZE: usize = 390_000;
/// A GetBatch of many small items: an answer of 400 KB in 80 messages.
const BATCH_ITEMS: usize = 80;
const BATCH_ITEM_SIZE: usize = 5_000;
/// Between two rounds of calls on one connection: the server has taken the
/// last round's answers whole by then.
const ROUND_PAUSE: Duration = Duration::from_millis(20);

fn batch_key(i: usize) -> Bytes {
    Bytes::from(format!("wide-item-{i}"))
}

/// Stores the values the attacks ask for.
async fn store_values(target: &Target) {
    let channel = target
        .transport
        .endpoint(target.server.addr)
        .connect()
        .await
        .unwrap();
    let mut client = ScsClient::new(channel).max_encoding_message_size(16 << 20);
    put(&mut client, Bytes::from_static(LARGE_KEY), LARGE_VALUE_SIZE).await;
    for i in 0..BATCH_ITEMS {
        put(&mut client, batch_key(i), BATCH_ITEM_SIZE).await;
    }
}

async fn put(client: &mut ScsClient<tonic::transport::Channel>, key: Bytes, size: usize) {
    let set = SetRequest {
        cache_key: key,
        cache_body: Bytes::from(vec![b'w'; size]),
        ttl_milliseconds: 3_600_000,
    };
    client.set(in_cache(CACHE, set)).await.unwrap();
}

fn get_large() -> Bytes {
    attack::get_message(LARGE_KEY)
}

fn get_batch() -> Bytes {
    let batch = GetBatchRequest {
        items: (0..BATCH_ITEMS)
            .map(|i| GetRequest {
                cache_key: batch_key(i),
            })
            .collect(),
    };
    Bytes::from(raw::grpc_message(&batch.encode_to_vec()))
}

/// `CONNECTIONS` hand-made connections that open the widest windows, then
/// send round after round of `STREAMS` calls, each the next of `calls` (a
/// header block and a framed message), and never read a byte. A connection
/// the server closes is replaced.
pub(super) async fn wide_windows_never_read(ctx: Ctx, calls: Vec<(Vec<u8>, Bytes)>) {
    let calls = std::sync::Arc::new(calls);
    let tasks: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            let (ctx, calls) = (ctx.clone(), calls.clone());
            tokio::spawn(async move {
                while !ctx.over() {
                    let params = [(raw::SETTINGS_INITIAL_WINDOW_SIZE, WIDE_WINDOW)];
                    let Some(conn) = RawConn::open(&ctx, false, &params).await else {
                        ctx.pause(ROUND_PAUSE).await;
                        continue;
                    };
                    let widen = raw::window_update(0, WIDE_WINDOW - 65_535);
                    let mut next_stream = 1u32;
                    let mut open = conn.send(&ctx, &widen).await;
                    while open && !ctx.over() {
                        let mut round = Vec::new();
                        for turn in 0..STREAMS {
                            let (block, message) = &calls[turn % calls.len()];
                            let stream = next_stream;
                            next_stream += 2;
                            round.extend(raw::frame(
                                raw::HEADERS,
                                raw::FLAG_END_HEADERS,
                                stream,
                                block,
                            ));
                            round.extend(raw::frame(
                                raw::DATA,
                                raw::FLAG_END_STREAM,
                                stream,
                                message,
                            ));
                        }
                        open = conn.send(&ctx, &round).await;
                        Stats::count(&ctx.stats.streams, STREAMS as u64);
                        ctx.pause(ROUND_PAUSE).await;
                    }
                    if conn.is_closed() {
                        Stats::count(&ctx.stats.closed_by_server, 1);
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

async fn wide_window_attack(name: &str, method: &'static str, message: Bytes) {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(&[])).await;
    store_values(&target).await;
    let mut outcome = attack::run(&mut target, name, move |ctx| {
        let calls = vec![(ctx.request_block(method), message)];
        wide_windows_never_read(ctx, calls)
    })
    .await;
    // What they leave queued is counted: the budget closes them.
    outcome.require_closes_counted(&["in_flight", "send"]);
    outcome.assert_bounded();
}

/// Gets of a 390 KB value, 8 connections x 100 streams, never read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_windows_gets_never_read() {
    wide_window_attack(
        "wide windows, 8x100 Gets of 390 KB, never read",
        "Get",
        get_large(),
    )
    .await;
}

/// GetBatch of 80 x 5 KB, 8 connections x 100 streams, never read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wide_windows_get_batches_never_read() {
    wide_window_attack(
        "wide windows, 8x100 GetBatch of 80 x 5 KB, never read",
        "GetBatch",
        get_batch(),
    )
    .await;
}

/// The bytes of a path no call has, echoed back (up to 200 of them) in
/// the message of its UNIMPLEMENTED answer.
const UNKNOWN_PATH_BYTES: usize = 190;

/// `CONNECTIONS` hand-made connections that send, as fast as the server
/// takes them, calls it answers at once with an error in headers alone
/// (UNIMPLEMENTED, naming the unknown path: each path different, so that
/// HPACK cannot shrink the answers to a few bytes), and never read a byte.
/// HEADERS are not flow-controlled: what the socket does not take waits in
/// the server, and the streams, closed once answered, no longer count
/// against `--max-concurrent-streams`.
async fn error_answers_never_read(ctx: Ctx) {
    let tasks: Vec<_> = (0..CONNECTIONS)
        .map(|c| {
            let ctx = ctx.clone();
            tokio::spawn(async move {
                while !ctx.over() {
                    let Some(conn) = RawConn::open(&ctx, false, &[]).await else {
                        ctx.pause(ROUND_PAUSE).await;
                        continue;
                    };
                    let mut next_stream = 1u32;
                    let mut open = true;
                    while open && !ctx.over() && next_stream < (1 << 30) {
                        let mut round = Vec::new();
                        for _ in 0..STREAMS {
                            let stream = next_stream;
                            next_stream += 2;
                            let path = format!(
                                "/cache_client.Scs/Nothing-{c}-{stream}-{}",
                                "x".repeat(UNKNOWN_PATH_BYTES)
                            );
                            let block =
                                raw::grpc_request_block(ctx.scheme, &ctx.authority(), &path, CACHE);
                            let flags = raw::FLAG_END_HEADERS | raw::FLAG_END_STREAM;
                            round.extend(raw::frame(raw::HEADERS, flags, stream, &block));
                        }
                        open = conn.send(&ctx, &round).await;
                        Stats::count(&ctx.stats.streams, STREAMS as u64);
                    }
                    if conn.is_closed() {
                        Stats::count(&ctx.stats.closed_by_server, 1);
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// `attack` against a server of the default settings, held to the bounds.
async fn attack_at_the_defaults<F, Fut>(name: &str, attack: F)
where
    F: FnOnce(Ctx) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(&[])).await;
    attack::run(&mut target, name, attack)
        .await
        .assert_bounded();
}

/// Calls answered with an error in headers alone, 8 connections, never
/// read: what waits unwritten is bounded, and the normal client served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_answers_never_read_are_bounded() {
    attack_at_the_defaults(
        "8 connections of calls answered with errors in headers alone, never read",
        error_answers_never_read,
    )
    .await;
}

/// Protosocket clients that authenticate and go idle, filling the port's
/// connection cap: each is closed after `--idle-timeout` and counted, a
/// client making calls is not, and newcomers are served again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_protosocket_clients_give_way() {
    const CAP: usize = 20;
    let _serial = attack::serialize().await;
    let mut setup = Setup::new(&["--max-connections", "20", "--idle-timeout", "1s"]);
    setup.protosocket = true;
    let target = attack::start(setup).await;
    let addr = target.server.protosocket_addr.expect("a protosocket port");
    let key = std::str::from_utf8(SMALL_KEY).unwrap();
    let mut active = Client::open(addr, "").await;
    let mut idle = Vec::new();
    for _ in 1..CAP {
        idle.push(Client::open(addr, "").await);
    }
    // Past the timeout, with the active client calling all along.
    for id in 1..=10 {
        let value = value_of(active.call(id, get(CACHE, key)).await);
        assert!(value.is_some(), "the active client is answered");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    for (i, client) in idle.iter_mut().enumerate() {
        assert!(client.closed().await, "idle client {i} still open");
    }
    let mut newcomer = Client::open(addr, "").await;
    assert!(value_of(newcomer.call(1, get(CACHE, key)).await).is_some());
    assert!(value_of(active.call(11, get(CACHE, key)).await).is_some());
    let metrics = attack::try_scrape(target.server.metrics_addr).await;
    let closed = attack::closed_total(&metrics, &["idle_timeout"]);
    assert!(
        closed.is_some_and(|n| n >= (CAP - 1) as f64),
        "idle closes counted: {closed:?}"
    );
}

/// Request bodies sent on many connections at once, each filling its
/// receive window before its calls' handlers have read it: h2 holds those
/// bytes before the in-flight budget counts them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_bodies_filling_the_windows_of_many_connections() {
    attack_at_the_defaults("half-sent 1 MiB bodies, 64x8 streams", |ctx| {
        attack::half_sent_bodies(ctx, 64, 8, 1 << 20)
    })
    .await;
}
