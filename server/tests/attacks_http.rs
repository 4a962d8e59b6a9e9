//! Attacks on the HTTP API's port (`--http-listen`), with the harness's
//! bounds (common/attack.rs): while each runs, well-behaved gRPC clients
//! keep calling and newcomers keep connecting, the server's resident memory
//! stays within its bound, and the attackers' connections are closed.
//!
//! - Slow bodies: a PUT whose body trickles in is ended by
//!   `--request-timeout`.
//! - Huge bodies: a PUT announcing a body far over `--max-request-size`
//!   is answered 413 before any of it is read; one that streams without a
//!   length is cut at the limit.
//! - Idle connections: kept-alive connections that send no next request
//!   are closed by `--request-timeout` (the header read timeout).

use crate::common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use common::attack::{self, attack_time, BoxIo, Ctx, Setup, Stats, Target};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::JoinSet;

const REQUEST_TIMEOUT: &str = "2s";

/// The HTTP port's flags, with the timeout the attacks rely on.
pub(crate) const ARGS: &[&str] = &[
    "--http-listen",
    "127.0.0.1:0",
    "--request-timeout",
    REQUEST_TIMEOUT,
    "--max-request-size",
    "1MiB",
];

/// Whether the attack lasts long enough for a timeout of `seconds` to act.
fn outlasts(seconds: f64) -> bool {
    attack_time() >= Duration::from_secs_f64(seconds + 1.5)
}

/// Runs `connections` attackers, each doing `attack` on a fresh connection
/// to the HTTP port again and again until the attack ends; a connection
/// the server ended is counted in `closed_by_server`.
pub(crate) async fn attackers<F, Fut>(ctx: Ctx, connections: usize, attack: F)
where
    F: Fn(BoxIo, Ctx) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let mut tasks = JoinSet::new();
    for _ in 0..connections {
        let (ctx, attack) = (ctx.clone(), attack.clone());
        tasks.spawn(async move {
            while !ctx.over() {
                let Some(io) = ctx.open(Duration::from_secs(2)).await else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                attack(io, ctx.clone()).await;
            }
        });
    }
    while tasks.join_next().await.is_some() {}
}

/// Reads until the server closes the connection or the attack ends;
/// counts a close.
pub(crate) async fn until_closed(io: &mut BoxIo, ctx: &Ctx) {
    let mut buffer = [0u8; 4096];
    while !ctx.over() {
        match tokio::time::timeout(Duration::from_millis(200), io.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => {
                Stats::count(&ctx.stats.closed_by_server, 1);
                return;
            }
            Ok(Ok(_)) | Err(_) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_http_bodies() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(ARGS)).await;
    let addr = target.server.http_addr;
    let mut outcome = attack::run(&mut target, "HTTP slow bodies x200", move |ctx| {
        let ctx = Ctx { addr: addr.unwrap(), ..ctx };
        attackers(ctx, 200, |mut io, ctx| async move {
            let head = "PUT /cache/c?key=slow&ttl_seconds=60 HTTP/1.1\r\nhost: x\r\ncontent-length: 1000000\r\n\r\n";
            if io.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            // A byte every 100 ms: 10 B/s, a day for the whole body.
            while !ctx.over() {
                if io.write_all(b"x").await.is_err() {
                    Stats::count(&ctx.stats.closed_by_server, 1);
                    return;
                }
                Stats::count(&ctx.stats.bytes_sent, 1);
                let mut answer = [0u8; 512];
                let read = tokio::time::timeout(Duration::from_millis(100), io.read(&mut answer));
                match read.await {
                    Ok(Ok(0)) | Ok(Err(_)) => {
                        Stats::count(&ctx.stats.closed_by_server, 1);
                        return;
                    }
                    Ok(Ok(_)) => {
                        // Answered (504): the server then closes.
                        until_closed(&mut io, &ctx).await;
                        return;
                    }
                    Err(_) => {}
                }
            }
        })
    })
    .await;
    if outlasts(2.0) {
        let closed = outcome.stats.closed_by_server.load(Ordering::Relaxed);
        outcome.require(
            closed >= 100,
            format!(
                "the server ended {closed} slow bodies; each should end within --request-timeout"
            ),
        );
    }
    outcome.assert_bounded();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_http_bodies() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(ARGS)).await;
    let uri = "/cache/c?key=huge&ttl_seconds=60";
    huge_bodies(&mut target, "HTTP huge bodies x50", uri).await;
}

/// 50 attackers writing bodies to `uri` (a set) far over
/// `--max-request-size`: half announce 1 GiB, half stream chunks with no
/// length given. Each must be refused and its connection ended.
pub(crate) async fn huge_bodies(target: &mut Target, name: &str, uri: &'static str) {
    let addr = target.server.http_addr;
    let mut outcome = attack::run(target, name, move |ctx| {
        let ctx = Ctx {
            addr: addr.unwrap(),
            ..ctx
        };
        attackers(ctx, 50, move |mut io, ctx| async move {
            // Every other one announces 1 GiB; the rest stream chunks
            // with no length given.
            let announced = ctx.stats.connections.load(Ordering::Relaxed) % 2 == 0;
            let length = if announced {
                "content-length: 1073741824"
            } else {
                "transfer-encoding: chunked"
            };
            let head = format!("PUT {uri} HTTP/1.1\r\nhost: x\r\n{length}\r\n\r\n");
            if io.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let chunk = vec![b'x'; 64 << 10];
            let framed = if announced {
                chunk
            } else {
                let mut framed = format!("{:x}\r\n", chunk.len()).into_bytes();
                framed.extend(&chunk);
                framed.extend(b"\r\n");
                framed
            };
            // At most 64 MiB a connection: far past the 1 MiB limit.
            for _ in 0..1024 {
                if ctx.over() {
                    return;
                }
                let write = tokio::time::timeout(Duration::from_secs(1), io.write_all(&framed));
                match write.await {
                    Ok(Ok(())) => Stats::count(&ctx.stats.bytes_sent, framed.len() as u64),
                    // Refused and closed, or no longer read.
                    _ => break,
                }
            }
            until_closed(&mut io, &ctx).await;
        })
    })
    .await;
    let closed = outcome.stats.closed_by_server.load(Ordering::Relaxed);
    outcome.require(
        closed > 0,
        "the server never ended a connection sending a body over --max-request-size",
    );
    let sent = outcome.stats.bytes_sent.load(Ordering::Relaxed);
    let connections = outcome.stats.connections.load(Ordering::Relaxed).max(1);
    outcome.require(
        sent / connections < 32 << 20,
        format!(
            "the server read {} MiB per connection of bodies over 1 MiB",
            (sent / connections) >> 20
        ),
    );
    outcome.assert_bounded();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_http_connections() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(ARGS)).await;
    let addr = target.server.http_addr;
    let mut outcome = attack::run(&mut target, "HTTP idle connections x2000", move |ctx| {
        let ctx = Ctx {
            addr: addr.unwrap(),
            ..ctx
        };
        attackers(ctx, 2_000, |mut io, ctx| async move {
            // One call, then silence on the kept-alive connection.
            let get = "GET /cache/c?key=idle HTTP/1.1\r\nhost: x\r\n\r\n";
            if io.write_all(get.as_bytes()).await.is_err() {
                return;
            }
            until_closed(&mut io, &ctx).await;
        })
    })
    .await;
    if outlasts(2.0) {
        let closed = outcome.stats.closed_by_server.load(Ordering::Relaxed);
        outcome.require(
            closed >= 1_000,
            format!("the server closed {closed} idle connections; each should close within --request-timeout"),
        );
        outcome.require_closes_counted(&["idle_timeout"]);
    }
    outcome.assert_bounded();
}
