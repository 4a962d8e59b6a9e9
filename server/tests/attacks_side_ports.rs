//! Attacks on the side ports, `--metrics-listen` and `--admin-listen`, with
//! the harness's bounds (common/attack.rs): 2,000 attackers each hold a
//! connection open and silent, and open another as soon as the server
//! closes it. The side ports hold at most `--max-side-port-connections`
//! at once, making room for a newcomer by closing the oldest one still
//! silent, so:
//!
//! - the server's open descriptors stay within what it held idle plus the
//!   cap, plus the harness's own clients: attackers that held a socket
//!   each would take the descriptors the cache ports were sized for;
//! - a prober asking `/healthz` (the metrics port) or `/unblock` (the admin
//!   port) on a new connection every 50 ms: how many are answered within
//!   2 s is printed (about five in six on a quiet machine, half on a loaded
//!   one), not bounded;
//! - memory, the normal gRPC client and gRPC newcomers within the bounds.

use crate::attacks_http::{attackers, until_closed};
use crate::common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::attack::{self, Ctx, Setup};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ATTACKERS: usize = 2_000;
const CAP: u64 = 1_024;
/// Descriptors beyond the idle server's and the side port's cap: the
/// normal client, the gRPC newcomers, the metrics scrapes, the prober and
/// connections evicted but not yet closed.
const SLACK: u64 = 300;
/// A probe not answered within this counts as locked out.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

fn open_descriptors(pid: u32) -> u64 {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |dir| dir.count() as u64)
}

/// One `GET path` on a new connection: whether it was answered 200 in time.
async fn probe(addr: SocketAddr, path: &str) -> bool {
    let ask = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.ok()?;
        let request = format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.ok()?;
        Some(answer.starts_with(b"HTTP/1.1 200"))
    };
    matches!(
        tokio::time::timeout(PROBE_TIMEOUT, ask).await,
        Ok(Some(true))
    )
}

#[derive(Default)]
struct Watch {
    probes: AtomicU64,
    probes_failed: AtomicU64,
    peak_descriptors: AtomicU64,
}

async fn silent_connections_on_a_side_port(admin: bool) {
    let _serial = attack::serialize().await;
    let cap = CAP.to_string();
    let mut args = vec!["--max-side-port-connections", &cap];
    if admin {
        args.extend(["--admin-listen", "127.0.0.1:0"]);
    }
    let mut target = attack::start(Setup::new(&args)).await;
    let (port, path) = if admin {
        (target.server.admin_addr.expect("admin port"), "/unblock")
    } else {
        (
            target.server.metrics_addr.expect("metrics port"),
            "/healthz",
        )
    };
    let pid = target.server.child.id();
    let idle = open_descriptors(pid);
    let watch = Arc::new(Watch::default());
    let seen = watch.clone();
    let name = format!(
        "{} port: {ATTACKERS} silent connections, cap {CAP}",
        if admin { "admin" } else { "metrics" }
    );
    let mut outcome = attack::run(&mut target, &name, move |ctx| async move {
        let ctx = Ctx { addr: port, ..ctx };
        let holders = attackers(ctx.clone(), ATTACKERS, |mut io, ctx| async move {
            until_closed(&mut io, &ctx).await;
        });
        let prober = async {
            while !ctx.over() {
                seen.probes.fetch_add(1, Ordering::Relaxed);
                if !probe(port, path).await {
                    seen.probes_failed.fetch_add(1, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        let counter = async {
            while !ctx.over() {
                let open = open_descriptors(pid);
                seen.peak_descriptors.fetch_max(open, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::join!(holders, prober, counter);
    })
    .await;
    let peak = watch.peak_descriptors.load(Ordering::Relaxed);
    eprintln!(
        "ATTACK {name}: descriptors {idle} idle, {peak} at the peak; {} probes of {path}, {} not answered",
        watch.probes.load(Ordering::Relaxed),
        watch.probes_failed.load(Ordering::Relaxed)
    );
    outcome.require(
        peak <= idle + CAP + SLACK,
        format!("the server held {peak} descriptors, {idle} idle, side-port cap {CAP}"),
    );
    let probes = watch.probes.load(Ordering::Relaxed);
    // A probe that connects just as the port turns over its places can be
    // closed before its request is read (docs/LIMITS.md, side ports): about
    // one in six on a quiet machine, half on a loaded one; with 64 places
    // nineteen in twenty were. Measured and printed, not bounded here.
    outcome.require(probes > 0, format!("no probe of {path} was made"));
    outcome.assert_bounded();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_on_the_metrics_port() {
    silent_connections_on_a_side_port(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_connections_on_the_admin_port() {
    silent_connections_on_a_side_port(true).await;
}
