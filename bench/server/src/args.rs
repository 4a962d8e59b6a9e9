//! Command-line flags of the load client.

use std::time::Duration;

use clap::Parser;

/// Closed-loop load against jiffy-server: N tasks, one request in flight each,
/// on one thread, so the client fits on the one core the benchmark gives it.
#[derive(Debug, Clone, Parser)]
#[command(name = "jiffy-bench-server", version, about)]
pub struct Args {
    /// Server address, HOST:PORT (or a full http:// URI).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub endpoint: String,

    /// Cache to create (ALREADY_EXISTS is fine) and send every request to.
    #[arg(long, default_value = "bench")]
    pub cache: String,

    /// Requests in flight: one task per request, each waits for its answer.
    #[arg(long, default_value_t = 50)]
    pub concurrency: usize,

    /// HTTP/2 connections the tasks are spread over (task i uses i % N).
    #[arg(long, default_value_t = 1)]
    pub connections: usize,

    /// Seconds measured, after the warmup.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,

    /// Seconds of load before measuring: connections, allocator and the
    /// keyspace reach steady state, and gets mostly hit.
    #[arg(long, default_value_t = 2.0)]
    pub warmup: f64,

    /// Bytes per value set.
    #[arg(long, default_value_t = 100)]
    pub value_size: usize,

    /// Distinct keys, chosen uniformly (like redis-benchmark -r).
    #[arg(long, default_value_t = 10_000)]
    pub keyspace: usize,

    /// Fraction of requests that are gets; the rest are sets.
    #[arg(long, default_value_t = 0.5)]
    pub get_ratio: f64,

    /// TTL of each set, seconds: longer than any run, so gets hit.
    #[arg(long, default_value_t = 600)]
    pub ttl: u64,

    /// Process id of the server: its CPU time (utime + stime from
    /// /proc/PID/stat) is read at the start and end of the measured window.
    #[arg(long)]
    pub server_pid: Option<u32>,

    /// Print the report as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

impl Args {
    /// Rejects values that would make the run meaningless.
    pub fn validate(&self) -> Result<(), String> {
        if self.concurrency == 0 || self.connections == 0 || self.keyspace == 0 {
            return Err("--concurrency, --connections and --keyspace must be > 0".into());
        }
        if !(0.0..=1.0).contains(&self.get_ratio) {
            return Err("--get-ratio must be between 0 and 1".into());
        }
        if !(self.duration > 0.0 && self.warmup >= 0.0) {
            return Err("--duration must be > 0 and --warmup >= 0".into());
        }
        Ok(())
    }

    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.duration)
    }

    pub fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.warmup)
    }

    /// The endpoint as a URI tonic accepts.
    pub fn uri(&self) -> String {
        if self.endpoint.contains("://") {
            self.endpoint.clone()
        } else {
            format!("http://{}", self.endpoint)
        }
    }
}
