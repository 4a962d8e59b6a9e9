//! jiffy-bench-server: closed-loop load against jiffy-server that reports,
//! beside client-side throughput and latency, the server's CPU time per
//! request over exactly the measured window (see `load` and `cpu`).
//!
//! # Layout
//!
//! - [`args`]: the flags.
//! - [`calls`]: the collection calls a run can be made of, and their prefill.
//! - [`load`]: connections, the worker tasks, the measured window.
//! - [`cpu`]: CPU time of a process from /proc/PID/stat.
//! - [`report`]: the JSON / text report.
//!
//! `bench/server/run.sh` drives it, pinned to its own core, against a server
//! pinned to another, and compares with redis-server in the same run.

mod args;
mod calls;
mod cpu;
mod load;
mod report;

use std::process::ExitCode;

use clap::Parser;
use jiffy_server::proto::control_client::{
    scs_control_client::ScsControlClient, CreateCacheRequest,
};
use tonic::{transport::Channel, Code};

use crate::{args::Args, report::Report};

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
    let channels = connect(args).await?;
    create_cache(channels[0].clone(), &args.cache).await?;
    let outcome = load::run(args, channels).await?;
    Ok(Report::new(args, outcome))
}

/// One HTTP/2 connection per `--connections`, all open before the load;
/// connection i goes to address i % N of `--endpoint`.
async fn connect(args: &Args) -> Result<Vec<Channel>, String> {
    let endpoints = args
        .uris()
        .into_iter()
        .map(|uri| match Channel::from_shared(uri.clone()) {
            Ok(endpoint) => Ok((uri, endpoint.tcp_nodelay(true))),
            Err(e) => Err(format!("--endpoint {uri}: {e}")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut channels = Vec::with_capacity(args.connections);
    for i in 0..args.connections {
        let (uri, endpoint) = &endpoints[i % endpoints.len()];
        let channel = endpoint
            .connect()
            .await
            .map_err(|e| format!("connecting to {uri}: {e}"))?;
        channels.push(channel);
    }
    Ok(channels)
}

async fn create_cache(channel: Channel, name: &str) -> Result<(), String> {
    let request = CreateCacheRequest {
        cache_name: name.to_string(),
    };
    match ScsControlClient::new(channel).create_cache(request).await {
        Ok(_) => Ok(()),
        Err(status) if status.code() == Code::AlreadyExists => Ok(()),
        Err(status) => Err(format!("CreateCache {name:?}: {status}")),
    }
}
