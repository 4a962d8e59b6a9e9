//! `jiffy-bench-memory`: fills a running jiffy-server and a running
//! redis-server with the same items of one shape and prints, as one JSON
//! object, what each holds per item: resident memory (VmRSS) over its idle
//! resident memory, and for jiffy what it charges itself
//! (`jiffy_memory_bytes`) and what jemalloc says it allocated.
//! `bench/memory/run.sh` starts the two servers for each shape.

mod measure;
mod shapes;

use std::future::Future;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use jiffy_bench_server::cpu::CpuTicks;
use jiffy_bench_server::grpc;
use measure::{settled_resident_bytes, JiffyFigures};
use serde_json::json;

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
    // reading, so that only the items are counted.
    let channel = grpc::connect(&grpc::uri(&args.jiffy)).await?;
    grpc::create_cache(channel.clone(), shapes::CACHE).await?;
    let idle = settled_resident_bytes(args.jiffy_pid).await?;
    let idle_figures = JiffyFigures::scrape(args.jiffy_metrics).await?;
    let cpu = CpuTicks::of(Some(args.jiffy_pid)).map_err(|e| e.to_string())?;
    let jiffy_fill_seconds = timed_fill("jiffy-server", shape.fill_jiffy(channel, items)).await?;
    let jiffy_cpu =
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

    let client =
        redis::Client::open(format!("redis://{}/", args.redis)).map_err(|e| e.to_string())?;
    // No response deadline: a pipeline of a thousand writes on a busy
    // machine may take longer than the client's default half second.
    let config = redis::AsyncConnectionConfig::new().set_response_timeout(None);
    let connection = client
        .get_multiplexed_async_connection_with_config(&config)
        .await
        .map_err(|e| format!("connecting to redis-server: {e}"))?;
    let redis_idle = settled_resident_bytes(args.redis_pid).await?;
    let redis_fill_seconds =
        timed_fill("redis-server", shape.fill_redis(connection, items)).await?;
    let redis_filled = settled_resident_bytes(args.redis_pid).await?;

    let per_item = |bytes: f64| bytes / items as f64;
    let jiffy_resident = per_item(filled as f64 - idle as f64);
    let redis_resident = per_item(redis_filled as f64 - redis_idle as f64);
    let charged = per_item(figures.charged - idle_figures.charged);
    let growth = |after: Option<f64>, before: Option<f64>| Some(per_item(after? - before?));
    Ok(json!({
        "shape": args.shape,
        "items": items,
        "collections": shape.collections(items),
        "jiffy": {
            "idle_resident_bytes": idle,
            "resident_bytes": filled,
            "resident_per_item": jiffy_resident,
            "charged_per_item": charged,
            "charged_to_resident": charged / jiffy_resident,
            "allocated_per_item": growth(figures.allocated, idle_figures.allocated),
            "allocator_resident_per_item": growth(figures.allocator_resident, idle_figures.allocator_resident),
            "fill_seconds": jiffy_fill_seconds,
            "fill_cpu_us_per_item": jiffy_cpu * 1e6 / items as f64,
        },
        "redis": {
            "idle_resident_bytes": redis_idle,
            "resident_bytes": redis_filled,
            "resident_per_item": redis_resident,
            "fill_seconds": redis_fill_seconds,
        },
        "ratio": jiffy_resident / redis_resident,
    }))
}
