//! Command-line flags of the topics load client.

use std::time::Duration;

use clap::{Parser, ValueEnum};

use crate::message::HEADER_LEN;

/// One publisher and N subscribers on one topic, against jiffy-server
/// (Publish / Subscribe) or redis-server (PUBLISH / SUBSCRIBE), driven the
/// same way; prints one JSON line.
#[derive(Debug, Clone, Parser)]
#[command(name = "jiffy-bench-topics", version, about)]
pub struct Args {
    /// The server's kind.
    #[arg(long, value_enum)]
    pub target: Target,

    /// Server address, HOST:PORT (for jiffy also a full http:// URI).
    #[arg(long)]
    pub endpoint: String,

    /// Subscribers, each on its own connection (one HTTP/2 connection, or
    /// one Redis connection, apiece).
    #[arg(long, default_value_t = 1)]
    pub subscribers: usize,

    /// Messages published per second, paced open loop from a fixed
    /// schedule; 0 publishes as fast as the server acknowledges, with
    /// `--publishers-in-flight` publishes outstanding.
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,

    /// Publishes outstanding at once on the publisher's one connection
    /// (concurrent gRPC calls, or pipelined PUBLISHes).
    #[arg(long, default_value_t = 8)]
    pub publishers_in_flight: usize,

    /// Seconds measured, after the warmup.
    #[arg(long, default_value_t = 10.0)]
    pub duration: f64,

    /// Seconds of load before measuring.
    #[arg(long, default_value_t = 2.0)]
    pub warmup: f64,

    /// Bytes per message: a 24-byte header (due and send times, number), then
    /// padding.
    #[arg(long, default_value_t = 100)]
    pub value_size: usize,

    /// The cache (jiffy; created, ALREADY_EXISTS is fine).
    #[arg(long, default_value = "bench")]
    pub cache: String,

    /// The topic (jiffy) or channel (redis).
    #[arg(long, default_value = "bench-topic")]
    pub topic: String,

    /// Process id of the server: its CPU time is read at both ends of the
    /// measured window, for the CPU per delivered message.
    #[arg(long)]
    pub server_pid: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    Jiffy,
    Redis,
}

impl Args {
    /// Rejects values that would make the run meaningless.
    pub fn validate(&self) -> Result<(), String> {
        if self.subscribers == 0 || self.publishers_in_flight == 0 {
            return Err("--subscribers and --publishers-in-flight must be > 0".into());
        }
        if !(self.rate >= 0.0 && self.rate.is_finite()) {
            return Err("--rate must be >= 0 (0: as fast as acknowledged)".into());
        }
        if !(self.duration > 0.0 && self.warmup >= 0.0) {
            return Err("--duration must be > 0 and --warmup >= 0".into());
        }
        if self.value_size < HEADER_LEN {
            return Err(format!(
                "--value-size must be at least {HEADER_LEN} (the header)"
            ));
        }
        Ok(())
    }

    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.duration)
    }

    pub fn warmup(&self) -> Duration {
        Duration::from_secs_f64(self.warmup)
    }

    /// The gap between two scheduled publishes; `None` for saturation.
    pub fn interval(&self) -> Option<Duration> {
        (self.rate > 0.0).then(|| Duration::from_secs_f64(1.0 / self.rate))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(flags: &[&str]) -> Args {
        Args::try_parse_from(std::iter::once("jiffy-bench-topics").chain(flags.iter().copied()))
            .expect("flags parse")
    }

    #[test]
    fn defaults_saturate_with_eight_in_flight() {
        let args = parse(&["--target", "redis", "--endpoint", "127.0.0.1:6379"]);
        assert_eq!(args.target, Target::Redis);
        assert_eq!(args.publishers_in_flight, 8);
        assert_eq!(args.interval(), None);
        assert!(args.validate().is_ok());
    }

    #[test]
    fn a_rate_is_an_interval_and_small_values_are_refused() {
        let args = parse(&["--target", "jiffy", "--endpoint", "x:1", "--rate", "1000"]);
        assert_eq!(args.interval(), Some(Duration::from_millis(1)));
        let small = parse(&["--target", "jiffy", "--endpoint", "x", "--value-size", "8"]);
        assert!(small.validate().is_err());
    }
}
