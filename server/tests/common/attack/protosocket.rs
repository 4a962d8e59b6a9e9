//! Attacks on the protosocket port (a server started with
//! [`Setup::protosocket`](super::Setup)): clients that send command after
//! command and never read an answer, and connections that never send a
//! byte. While one runs, beside the harness's gRPC clients, a well-behaved
//! protosocket client makes Gets on its own connection, each to be answered
//! within `NORMAL_CALL_TIMEOUT`, and a newcomer connects every
//! `NEWCOMER_EVERY` and makes one Get, to be answered within
//! `NEWCOMER_LIMIT` (both counted in `Stats::protosocket_calls` and
//! `protosocket_failures`).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use jiffy_server::proto::protosocket::cache::cache_response::Kind;
use tokio::io::AsyncWriteExt;

use super::super::protosocket::{auth, frame, get, set, Client, AUTH_ID};
use super::{
    BoxIo, Ctx, Stats, CACHE, NEWCOMER_EVERY, NEWCOMER_LIMIT, NORMAL_CALL_TIMEOUT, NORMAL_PAUSE,
    SMALL_KEY,
};

/// The key the never-reading clients ask for.
pub const BIG_KEY: &str = "protosocket-big";
/// Its value: near the largest a Get answer carries on this port
/// (4,194,279 bytes).
pub const BIG_VALUE_SIZE: usize = 4_000_000;
/// Gets a never-reading client writes at once.
const BATCH: u64 = 100;

/// Opens a protosocket connection and authenticates it (auth is off).
async fn open(ctx: &Ctx) -> Option<Client<BoxIo>> {
    let io = ctx.open(Duration::from_secs(2)).await?;
    let mut client = Client::over(io);
    client.send(AUTH_ID, auth("")).await;
    let answer = tokio::time::timeout(NORMAL_CALL_TIMEOUT, client.recv()).await;
    match answer {
        Ok(Some(answer)) if answer.kind == Some(Kind::Auth(Default::default())) => Some(client),
        _ => None,
    }
}

/// A Get of `SMALL_KEY` answered with its value within `limit`.
async fn get_small(client: &mut Client<BoxIo>, id: u64, limit: Duration) -> bool {
    let key = std::str::from_utf8(SMALL_KEY).unwrap();
    client.send(id, get(CACHE, key)).await;
    let answer = tokio::time::timeout(limit, client.recv()).await;
    matches!(answer, Ok(Some(a)) if matches!(a.kind, Some(Kind::Get(_))))
}

/// Gets of `SMALL_KEY`, one every `NORMAL_PAUSE`, on one connection
/// opened before the attack starts, until the attack ends.
async fn well_behaved(ctx: Ctx, mut client: Client<BoxIo>) {
    let stats = &ctx.stats;
    let mut id = 0;
    while !ctx.over() {
        id += 1;
        Stats::count(&stats.protosocket_calls, 1);
        if !get_small(&mut client, id, NORMAL_CALL_TIMEOUT).await {
            Stats::count(&stats.protosocket_failures, 1);
            eprintln!("protosocket client: Get {id} not answered");
            return;
        }
        tokio::time::sleep(NORMAL_PAUSE).await;
    }
}

/// A new connection every `NEWCOMER_EVERY`, authenticated and answered
/// one Get within `NEWCOMER_LIMIT`, until the attack ends.
async fn newcomers(ctx: Ctx) {
    let stats = &ctx.stats;
    while !ctx.over() {
        let served = async {
            let mut client = open(&ctx).await?;
            get_small(&mut client, 1, NEWCOMER_LIMIT)
                .await
                .then_some(())
        };
        Stats::count(&stats.protosocket_calls, 1);
        if tokio::time::timeout(NEWCOMER_LIMIT, served)
            .await
            .ok()
            .flatten()
            .is_none()
        {
            Stats::count(&stats.protosocket_failures, 1);
            eprintln!("protosocket newcomer not served within {NEWCOMER_LIMIT:?}");
        }
        ctx.pause(NEWCOMER_EVERY).await;
    }
}

/// Runs `attack` on the protosocket port while a well-behaved protosocket
/// client calls; a client that cannot even connect is a failure.
async fn beside_a_client<F>(ctx: Ctx, attack: F)
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let ctx = ctx.on_protosocket();
    // On the attack's runtime a newcomer would wait behind thousands of
    // attacking tasks to send its first frame.
    let clients = {
        let ctx = ctx.clone();
        super::on_own_runtime(move || async move {
            let Some(client) = open(&ctx).await else {
                Stats::count(&ctx.stats.protosocket_failures, 1);
                return;
            };
            tokio::join!(well_behaved(ctx.clone(), client), newcomers(ctx.clone()));
        })
    };
    attack.await;
    let _ = tokio::task::spawn_blocking(move || clients.join()).await;
}

/// `connections` connections, each authenticating, then writing Gets of
/// `BIG_KEY` in batches of `BATCH` as fast as the server reads them and
/// never reading an answer; one the server closes is counted and replaced
/// by a new one.
pub async fn never_reading(ctx: Ctx, connections: usize) {
    let target = ctx.on_protosocket();
    let mut writer = open(&target).await.expect("a protosocket connection");
    let value = vec![b'x'; BIG_VALUE_SIZE];
    writer.send(1, set(CACHE, BIG_KEY, &value, 3_600_000)).await;
    let stored = writer.recv().await.and_then(|a| a.kind);
    assert_eq!(stored, Some(Kind::Set(Default::default())));
    drop(writer);
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            let ctx = target.clone();
            tokio::spawn(async move {
                while !ctx.over() {
                    let Some(client) = open(&ctx).await else {
                        ctx.pause(Duration::from_millis(20)).await;
                        continue;
                    };
                    let mut io = client.stream;
                    let mut id = 0;
                    let closed = loop {
                        let mut batch = Vec::new();
                        for _ in 0..BATCH {
                            id += 1;
                            batch.extend(frame(id, get(CACHE, BIG_KEY)));
                        }
                        match tokio::time::timeout_at(ctx.deadline, io.write_all(&batch)).await {
                            Ok(Ok(())) => Stats::count(&ctx.stats.streams, BATCH),
                            Ok(Err(_)) => break true,
                            Err(_) => break false,
                        }
                    };
                    if closed {
                        Stats::count(&ctx.stats.closed_by_server, 1);
                    }
                }
            })
        })
        .collect();
    let attack = async move {
        for task in tasks {
            let _ = task.await;
        }
    };
    beside_a_client(ctx, attack).await;
}

/// The harness's silent connections (`super::silent_connections`) on the
/// protosocket port: `count` connections that never send a byte.
pub async fn silent(ctx: Ctx, count: usize, close_within: Option<Duration>) {
    let target = ctx.on_protosocket();
    beside_a_client(ctx, super::silent_connections(target, count, close_within)).await;
}

/// Whether the well-behaved protosocket client made calls and none failed.
pub fn client_served(stats: &Arc<Stats>) -> Result<(), String> {
    let calls = stats.protosocket_calls.load(Ordering::Relaxed);
    let failures = stats.protosocket_failures.load(Ordering::Relaxed);
    if calls == 0 || failures > 0 {
        return Err(format!(
            "the well-behaved protosocket client made {calls} calls, {failures} failed"
        ));
    }
    Ok(())
}
