//! `jiffy-bench-memory`: fills a running jiffy-server and a running
//! redis-server with the same items of one shape and prints, as one JSON
//! object, what each holds per item: resident memory (VmRSS) over its idle
//! resident memory, and for jiffy what it charges itself
//! (`jiffy_memory_bytes`) and what jemalloc says it allocated.
//! `bench/memory/run.sh` starts the two servers for each shape.
//!
//! Each server is filled twice, the same way: first from the idle of a
//! fresh process (`cold`), then, once those items are deleted (jiffy's
//! FlushCache, Redis's FLUSHALL) and [`WARM_WAIT`] has passed, from the
//! idle it comes back to (the top-level figures). A process that has
//! served a fill keeps its code pages first run and some buffers, about
//! 0.5 MiB for jiffy-server: from a fresh idle they count against the
//! items, which for a list of 5 MB is a tenth of it.

mod measure;
mod shapes;

use std::future::Future;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use jiffy_bench_server::cpu::CpuTicks;
use jiffy_bench_server::grpc;
use jiffy_server::proto::control_client::{
    scs_control_client::ScsControlClient, FlushCacheRequest,
};
use measure::{settled_resident_bytes, JiffyFigures};
use redis::aio::MultiplexedConnection;
use serde_json::json;
use shapes::Shape;
use std::time::Duration;
use tonic::transport::Channel;

/// How long each server is left alone after its first fill's items are
/// deleted, before the idle reading of its second fill: longer than
/// redis-server's jemalloc takes to give freed pages back (its default
/// dirty decay is 10 s; jiffy-server's is immediate).
const WARM_WAIT: Duration = Duration::from_secs(11);

#[derive(Parser, Debug)]
#[command(about = "Resident bytes per item of jiffy-server beside redis-server, for one shape")]
struct Args {
    /// The shape: scalar-{10,100,1000}[-ttl], {dictionary,list,set,sorted-set}-{big,small}.
    #[arg(long)]
    shape: String,
    /// Items (scalars, or collection elements) written to each server.
    #[arg(long, default_value_t = 1_000_000)]
    items: usize,
    /// jiffy-server's gRPC address, HOST:PORT.
    #[arg(long)]
    jiffy: String,
    /// jiffy-server's --metrics-listen address.
    #[arg(long)]
    jiffy_metrics: SocketAddr,
    #[arg(long)]
    jiffy_pid: u32,
    /// redis-server's address, HOST:PORT.
    #[arg(long)]
    redis: String,
    #[arg(long)]
    redis_pid: u32,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("jiffy-bench-memory: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `fill`, writing into `server`, and answers the seconds it took.
async fn timed_fill<E: std::fmt::Display>(
    server: &str,
    fill: impl Future<Output = Result<(), E>>,
) -> Result<f64, String> {
    let started = Instant::now();
    fill.await.map_err(|e| format!("filling {server}: {e}"))?;
    Ok(started.elapsed().as_secs_f64())
}

/// What one fill of jiffy-server from an idle reading held.
struct JiffyFill {
    idle: u64,
    filled: u64,
    idle_figures: JiffyFigures,
    figures: JiffyFigures,
    seconds: f64,
    cpu_seconds: f64,
}

impl JiffyFill {
    fn report(&self, items: usize) -> serde_json::Value {
        let per_item = |bytes: f64| bytes / items as f64;
        let resident = per_item(self.filled as f64 - self.idle as f64);
        let charged = per_item(self.figures.charged - self.idle_figures.charged);
        let growth = |after: Option<f64>, before: Option<f64>| Some(per_item(after? - before?));
        let (before, after) = (&self.idle_figures, &self.figures);
        json!({
            "idle_resident_bytes": self.idle,
            "resident_bytes": self.filled,
            "resident_per_item": resident,
            "charged_per_item": charged,
            "charged_to_resident": charged / resident,
            "allocated_per_item": growth(after.allocated, before.allocated),
            "allocator_resident_per_item": growth(after.allocator_resident, before.allocator_resident),
            "idle_thread_cache_bytes": before.thread_cache,
            "thread_cache_bytes": after.thread_cache,
            "fill_seconds": self.seconds,
            "fill_cpu_us_per_item": self.cpu_seconds * 1e6 / items as f64,
        })
    }

    fn resident_per_item(&self, items: usize) -> f64 {
        (self.filled as f64 - self.idle as f64) / items as f64
    }
}

/// Reads jiffy-server's idle figures, fills it, and reads them again.
async fn fill_jiffy(args: &Args, shape: Shape, channel: Channel) -> Result<JiffyFill, String> {
    let items = args.items;
    let idle = settled_resident_bytes(args.jiffy_pid).await?;
    let idle_figures = JiffyFigures::scrape(args.jiffy_metrics).await?;
    let cpu = CpuTicks::of(Some(args.jiffy_pid)).map_err(|e| e.to_string())?;
    let seconds = timed_fill("jiffy-server", shape.fill_jiffy(channel, items)).await?;
    let cpu_seconds =
        cpu.seconds_until(CpuTicks::of(Some(args.jiffy_pid)).map_err(|e| e.to_string())?);
    let filled = settled_resident_bytes(args.jiffy_pid).await?;
    let figures = JiffyFigures::scrape(args.jiffy_metrics).await?;
    let expected_items = match shape.collections(items) {
        0 => items,
        collections => collections,
    };
    if figures.items < idle_figures.items + expected_items as f64 {
        return Err(format!(
            "jiffy-server holds {} items after the fill",
            figures.items
        ));
    }
    if figures.evictions > 0.0 {
        return Err("jiffy-server evicted items: raise --max-memory".into());
    }
    Ok(JiffyFill {
        idle,
        filled,
        idle_figures,
        figures,
        seconds,
        cpu_seconds,
    })
}

/// Empties jiffy-server's cache (FlushCache) and waits until it holds no
/// item, then [`WARM_WAIT`].
async fn empty_jiffy(args: &Args, channel: Channel) -> Result<(), String> {
    let request = FlushCacheRequest {
        cache_name: shapes::CACHE.to_string(),
    };
    ScsControlClient::new(channel)
        .flush_cache(request)
        .await
        .map_err(|status| format!("FlushCache: {status}"))?;
    for _ in 0..300 {
        if JiffyFigures::scrape(args.jiffy_metrics).await?.items == 0.0 {
            tokio::time::sleep(WARM_WAIT).await;
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err("jiffy-server still holds items 30 s after FlushCache".into())
}

/// Reads redis-server's idle VmRSS, fills it, and reads it again:
/// (idle, filled, seconds).
async fn fill_redis(
    args: &Args,
    shape: Shape,
    connection: MultiplexedConnection,
) -> Result<(u64, u64, f64), String> {
    let idle = settled_resident_bytes(args.redis_pid).await?;
    let seconds = timed_fill("redis-server", shape.fill_redis(connection, args.items)).await?;
    let filled = settled_resident_bytes(args.redis_pid).await?;
    Ok((idle, filled, seconds))
}

fn redis_report(items: usize, (idle, filled, seconds): (u64, u64, f64)) -> serde_json::Value {
    json!({
        "idle_resident_bytes": idle,
        "resident_bytes": filled,
        "resident_per_item": (filled as f64 - idle as f64) / items as f64,
        "fill_seconds": seconds,
    })
}

async fn run(args: Args) -> Result<serde_json::Value, String> {
    let shape = shapes::by_name(&args.shape).ok_or_else(|| {
        let names: Vec<&str> = shapes::SHAPES.iter().map(|(name, _)| *name).collect();
        format!("unknown shape {:?}; one of {}", args.shape, names.join(" "))
    })?;
    if args.items == 0 {
        return Err("--items must be at least 1".into());
    }
    let items = args.items;

    // jiffy-server: the cache made and the connection open before the idle
    // reading, so that only the items are counted. The first fill is from
    // the idle of a fresh process (cold); the second from the idle it comes
    // back to once the first fill's items are deleted (warm).
    let channel = grpc::connect(&grpc::uri(&args.jiffy)).await?;
    grpc::create_cache(channel.clone(), shapes::CACHE).await?;
    let jiffy_cold = fill_jiffy(&args, shape, channel.clone()).await?;
    empty_jiffy(&args, channel.clone()).await?;
    let jiffy_warm = fill_jiffy(&args, shape, channel).await?;

    let client =
        redis::Client::open(format!("redis://{}/", args.redis)).map_err(|e| e.to_string())?;
    // No response deadline: a pipeline of a thousand writes on a busy
    // machine may take longer than the client's default half second.
    let config = redis::AsyncConnectionConfig::new().set_response_timeout(None);
    let connection = client
        .get_multiplexed_async_connection_with_config(&config)
        .await
        .map_err(|e| format!("connecting to redis-server: {e}"))?;
    let redis_cold = fill_redis(&args, shape, connection.clone()).await?;
    redis::cmd("FLUSHALL")
        .query_async::<()>(&mut connection.clone())
        .await
        .map_err(|e| format!("FLUSHALL: {e}"))?;
    tokio::time::sleep(WARM_WAIT).await;
    let redis_warm = fill_redis(&args, shape, connection).await?;

    let redis_per_item =
        |(idle, filled, _): (u64, u64, f64)| (filled as f64 - idle as f64) / items as f64;
    let mut jiffy = jiffy_warm.report(items);
    jiffy["cold"] = jiffy_cold.report(items);
    let mut redis = redis_report(items, redis_warm);
    redis["cold"] = redis_report(items, redis_cold);
    Ok(json!({
        "shape": args.shape,
        "items": items,
        "collections": shape.collections(items),
        "jiffy": jiffy,
        "redis": redis,
        "ratio": jiffy_warm.resident_per_item(items) / redis_per_item(redis_warm),
        "cold_ratio": jiffy_cold.resident_per_item(items) / redis_per_item(redis_cold),
    }))
}
