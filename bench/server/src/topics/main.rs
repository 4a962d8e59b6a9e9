//! jiffy-bench-topics: one publisher and N subscribers of one topic, on
//! jiffy-server (Publish / Subscribe) or on redis-server (PUBLISH /
//! SUBSCRIBE) driven the same way, reporting messages delivered per second
//! and publish-to-delivery latency as one JSON line.
//!
//! # Layout
//!
//! - [`args`]: the flags.
//! - [`message`]: what a message carries (its publish time and number).
//! - [`drive`]: opening the subscriptions, pacing the publisher, the
//!   measured window.
//! - [`jiffy`], [`redis`]: each server's publisher and subscribers.
//! - [`stats`]: what was seen in the window.
//! - [`order`]: telling messages missed from messages late.
//! - [`report`]: the JSON line.
//!
//! `bench/topics/run.sh` drives it, pinned to its own core, against each
//! server pinned to another.

mod args;
mod drive;
mod jiffy;
mod message;
mod order;
mod redis;
mod report;
mod stats;

use std::process::ExitCode;

use clap::Parser;

use crate::{args::Args, report::Report};

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(message) = args.validate() {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    // One thread, on the one core the benchmark gives the client: the
    // publisher, every subscriber and the clock take turns on it.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let local = tokio::task::LocalSet::new();
    match local.block_on(&runtime, drive::run(&args)) {
        Ok(outcome) => {
            let report = Report::new(&args, outcome);
            println!("{}", serde_json::to_string(&report).expect("json"));
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
