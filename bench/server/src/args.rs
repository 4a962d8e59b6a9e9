//! Command-line flags of the load client.

use std::time::Duration;

use clap::{Parser, ValueEnum};

use crate::calls::Call;

/// How the requests travel to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// gRPC over HTTP/2, to `--endpoint`.
    Grpc,
    /// Momento's protosocket protocol, to `--protosocket-endpoint`: Get and
    /// Set only.
    Protosocket,
}

/// Closed-loop load against jiffy-server: N tasks, one request in flight each,
/// on one thread, so the client fits on the one core the benchmark gives it.
#[derive(Debug, Clone, Parser)]
#[command(name = "jiffy-bench-server", version, about)]
pub struct Args {
    /// Server address, HOST:PORT (or a full http:// URI); several,
    /// comma-separated, spread the connections over them round robin
    /// (connection i goes to address i % N), as a TCP load balancer would.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub endpoint: String,

    /// How requests travel. The cache is created over gRPC (`--endpoint`)
    /// either way: the protosocket protocol has no control calls.
    #[arg(long, value_enum, default_value = "grpc")]
    pub transport: Transport,

    /// The server's protosocket port (its `--protosocket-listen`),
    /// HOST:PORT, for `--transport protosocket`.
    #[arg(long)]
    pub protosocket_endpoint: Option<String>,

    /// Cache to create (ALREADY_EXISTS is fine) and send every request to.
    #[arg(long, default_value = "bench")]
    pub cache: String,

    /// Requests in flight: one task per request, each waits for its answer.
    #[arg(long, default_value_t = 50)]
    pub concurrency: usize,

    /// Connections the tasks are spread over (task i uses i % N): HTTP/2
    /// ones, or protosocket ones to the one `--protosocket-endpoint`.
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

    /// What each request is: Get/Set, or one collection call beside the
    /// redis-server command doing the same work (see `calls.rs`).
    #[arg(long, value_enum, default_value = "get-set")]
    pub call: Call,

    /// Fraction of requests that are gets; the rest are sets (`get-set`).
    #[arg(long, default_value_t = 0.5)]
    pub get_ratio: f64,

    /// TTL of each set, seconds: longer than any run, so gets hit.
    #[arg(long, default_value_t = 600)]
    pub ttl: u64,

    /// Process id of the server: its CPU time (utime + stime from
    /// /proc/PID/stat) is read at the start and end of the measured window.
    /// Several, comma-separated (one per front-end), are added up.
    #[arg(long, value_delimiter = ',')]
    pub server_pid: Vec<u32>,

    /// Process ids of the store behind the server (say, the nodes of a
    /// Redis Cluster), read like --server-pid and reported apart, so the CPU
    /// per request of the front-ends and of their store can be told apart.
    #[arg(long, value_delimiter = ',')]
    pub store_pid: Vec<u32>,

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
        if self.endpoints().iter().any(|e| e.is_empty()) {
            return Err("--endpoint has an empty address".into());
        }
        if self.connections < self.endpoints().len() {
            return Err("--connections must be at least the number of --endpoint addresses".into());
        }
        if !(0.0..=1.0).contains(&self.get_ratio) {
            return Err("--get-ratio must be between 0 and 1".into());
        }
        if !(self.duration > 0.0 && self.warmup >= 0.0) {
            return Err("--duration must be > 0 and --warmup >= 0".into());
        }
        let protosocket_endpoint = self.protosocket_endpoint.as_deref().map(str::trim);
        match self.transport {
            Transport::Grpc if protosocket_endpoint.is_some() => {
                Err("--protosocket-endpoint is for --transport protosocket".into())
            }
            Transport::Protosocket if protosocket_endpoint.is_none_or(str::is_empty) => {
                Err("--transport protosocket needs --protosocket-endpoint HOST:PORT".into())
            }
            Transport::Protosocket if self.call != Call::GetSet => {
                Err("--transport protosocket has only Get and Set: --call get-set".into())
            }
            _ => Ok(()),
        }
    }

    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.duration)
    }

    pub fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.warmup)
    }

    /// The addresses of `--endpoint`, as given.
    pub fn endpoints(&self) -> Vec<&str> {
        self.endpoint.split(',').map(str::trim).collect()
    }

    /// Each address as a URI tonic accepts.
    pub fn uris(&self) -> Vec<String> {
        self.endpoints()
            .into_iter()
            .map(jiffy_bench_server::grpc::uri)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(flags: &[&str]) -> Args {
        Args::try_parse_from(std::iter::once("jiffy-bench-server").chain(flags.iter().copied()))
            .expect("flags parse")
    }

    #[test]
    fn one_endpoint_is_one_uri() {
        let args = parse(&["--endpoint", "127.0.0.1:8080"]);
        assert_eq!(args.uris(), ["http://127.0.0.1:8080"]);
        assert!(args.validate().is_ok());
    }

    #[test]
    fn several_endpoints_need_a_connection_each() {
        let args = parse(&["--endpoint", "a:1, http://b:2", "--connections", "2"]);
        assert_eq!(args.uris(), ["http://a:1", "http://b:2"]);
        assert!(args.validate().is_ok());
        let too_few = parse(&["--endpoint", "a:1,b:2"]);
        assert!(too_few.validate().is_err());
        assert!(parse(&["--endpoint", "a:1,,b:2", "--connections", "3"])
            .validate()
            .is_err());
    }

    #[test]
    fn protosocket_needs_its_endpoint_and_get_set() {
        let flags = [
            "--transport",
            "protosocket",
            "--protosocket-endpoint",
            "127.0.0.1:9",
        ];
        let args = parse(&flags);
        assert_eq!(args.transport, Transport::Protosocket);
        assert!(args.validate().is_ok());
        assert!(parse(&["--transport", "protosocket"]).validate().is_err());
        let collection = [&flags[..], &["--call", "list-fetch"]].concat();
        assert!(parse(&collection).validate().is_err());
        let stray = parse(&["--protosocket-endpoint", "127.0.0.1:9"]);
        assert_eq!(stray.transport, Transport::Grpc);
        assert!(stray.validate().is_err());
    }

    #[test]
    fn pids_are_comma_separated() {
        let args = parse(&["--server-pid", "10,11", "--store-pid", "20"]);
        assert_eq!(args.server_pid, [10, 11]);
        assert_eq!(args.store_pid, [20]);
        assert!(parse(&[]).server_pid.is_empty());
    }
}
