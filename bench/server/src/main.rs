//! jiffy-bench-server: closed-loop load against jiffy-server that reports,
//! beside client-side throughput and latency, the server's CPU time per
//! request over exactly the measured window (see `load` and `cpu`).
//!
//! # Layout
//!
//! - [`args`]: the flags.
//! - [`calls`]: the collection calls a run can be made of, and their prefill.
//! - [`load`]: the worker tasks and the measured window.
//! - [`protosocket`]: the protosocket connection (`--transport protosocket`).
//! - [`report`]: the JSON / text report.
//!
//! CPU readings, histograms and the connection helpers come from this
//! crate's library (`src/lib.rs`), which `jiffy-bench-topics` shares.
//!
//! `bench/server/run.sh` drives it, pinned to its own core, against a server
//! pinned to another, and compares with redis-server in the same run.

mod args;
mod calls;
mod load;
mod protosocket;
mod report;

use std::{process::ExitCode, rc::Rc};

use clap::Parser;
use jiffy_bench_server::grpc;
use tonic::transport::Channel;

use crate::{
    args::{Args, Transport},
    load::Connections,
    report::Report,
};

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(message) = args.validate() {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    // One thread: the benchmark gives the client one core, and a single
    // thread lets the window be opened and closed without races.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let local = tokio::task::LocalSet::new();
    match local.block_on(&runtime, run(&args)) {
        Ok(report) => {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&report).expect("json"));
            } else {
                print!("{}", report.to_text());
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &Args) -> Result<Report, String> {
    let connections = match args.transport {
        Transport::Grpc => {
            let channels = connect(args).await?;
            grpc::create_cache(channels[0].clone(), &args.cache).await?;
            Connections::Grpc(channels)
        }
        Transport::Protosocket => {
            // The cache is made over gRPC, on a connection closed before
            // the load: the protosocket protocol has no control calls.
            let channel = grpc::connect(&args.uris()[0]).await?;
            grpc::create_cache(channel, &args.cache).await?;
            Connections::Protosocket(connect_protosocket(args).await?)
        }
    };
    let outcome = load::run(args, connections).await?;
    Ok(Report::new(args, outcome))
}

/// `--connections` protosocket connections to `--protosocket-endpoint`,
/// each authenticated before the load.
async fn connect_protosocket(args: &Args) -> Result<Vec<Rc<protosocket::Connection>>, String> {
    let endpoint = args.protosocket_endpoint.as_deref().unwrap_or_default();
    let mut connections = Vec::with_capacity(args.connections);
    for _ in 0..args.connections {
        connections.push(protosocket::Connection::open(endpoint.trim()).await?);
    }
    Ok(connections)
}

/// One HTTP/2 connection per `--connections`, all open before the load;
/// connection i goes to address i % N of `--endpoint`.
async fn connect(args: &Args) -> Result<Vec<Channel>, String> {
    let uris = args.uris();
    let mut channels = Vec::with_capacity(args.connections);
    for i in 0..args.connections {
        channels.push(grpc::connect(&uris[i % uris.len()]).await?);
    }
    Ok(channels)
}
