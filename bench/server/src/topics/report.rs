//! The report: one JSON line, echoing the configuration.

use jiffy_bench_server::{cpu, latency::Percentiles};
use serde::Serialize;
use std::collections::BTreeMap;

use crate::{
    args::{Args, Target},
    drive::Outcome,
    stats::Counts,
};

#[derive(Serialize)]
pub struct Report {
    pub target: Target,
    pub endpoint: String,
    pub subscribers: usize,
    /// Messages per second offered; 0: as fast as acknowledged.
    pub rate: f64,
    pub publishers_in_flight: usize,
    pub value_size: usize,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub window_start_unix_ms: u128,
    pub window_s: f64,
    pub published_per_s: f64,
    pub delivered_per_s: f64,
    /// Deliveries per message published per subscriber: 1.0 when every
    /// subscriber keeps up.
    pub delivered_fraction: f64,
    #[serde(flatten)]
    pub counts: Counts,
    /// Due time at a fixed rate (send time at saturation) to a subscriber
    /// reading the message: the headline.
    pub latency_ms: Percentiles,
    /// Send time to a subscriber reading it: without the publisher's
    /// lateness.
    pub latency_from_send_ms: Percentiles,
    /// Publish (or due) time to its acknowledgement.
    pub publish_latency_ms: Percentiles,
    pub publish_errors: BTreeMap<String, u64>,
    pub streams_ended: BTreeMap<String, u64>,
    pub server_cores: Option<f64>,
    /// Server CPU per message delivered in the window.
    pub server_us_per_delivered: Option<f64>,
    pub client_cores: f64,
    /// Cores other processes kept busy in the window (the noise).
    pub other_processes_cores: Option<f64>,
    /// Milliseconds per second the server's threads were runnable but
    /// waited for their core (held by another process): the noise that
    /// reaches the latency.
    pub server_runqueue_wait_ms_per_s: Option<f64>,
    pub client_runqueue_wait_ms_per_s: f64,
}

impl Report {
    pub fn new(args: &Args, outcome: Outcome) -> Self {
        let Outcome { stats, start, end } = outcome;
        let seconds = end.at.duration_since(start.at).as_secs_f64();
        let counts = stats.counts;
        let server_cpu = start
            .server
            .zip(end.server)
            .map(|(a, b): (cpu::CpuTicks, cpu::CpuTicks)| a.seconds_until(b));
        let client_cpu = start.client.seconds_until(end.client);
        let machine = start.machine.seconds_until(end.machine);
        let expected = counts.published as f64 * args.subscribers as f64;
        Report {
            target: args.target,
            endpoint: args.endpoint.clone(),
            subscribers: args.subscribers,
            rate: args.rate,
            publishers_in_flight: args.publishers_in_flight,
            value_size: args.value_size,
            duration_s: args.duration,
            warmup_s: args.warmup,
            window_start_unix_ms: start.unix_ms,
            window_s: seconds,
            published_per_s: counts.published as f64 / seconds,
            delivered_per_s: counts.delivered as f64 / seconds,
            delivered_fraction: if expected > 0.0 {
                counts.delivered as f64 / expected
            } else {
                0.0
            },
            latency_ms: Percentiles::of(&stats.delivery),
            latency_from_send_ms: Percentiles::of(&stats.delivery_from_send),
            publish_latency_ms: Percentiles::of(&stats.publish),
            publish_errors: stats.publish_errors,
            streams_ended: stats.streams_ended,
            server_cores: server_cpu.map(|cpu| cpu / seconds),
            server_us_per_delivered: server_cpu
                .map(|cpu| cpu * 1e6 / counts.delivered.max(1) as f64),
            client_cores: client_cpu / seconds,
            other_processes_cores: server_cpu
                .map(|server| ((machine - server - client_cpu) / seconds).max(0.0)),
            server_runqueue_wait_ms_per_s: start
                .server_wait
                .zip(end.server_wait)
                .map(|(a, b)| b.saturating_sub(a).as_secs_f64() * 1e3 / seconds),
            client_runqueue_wait_ms_per_s: end
                .client_wait
                .saturating_sub(start.client_wait)
                .as_secs_f64()
                * 1e3
                / seconds,
            counts,
        }
    }
}
