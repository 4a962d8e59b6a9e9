//! The report: the configuration it ran with, what was measured, and the
//! server's CPU per request, as JSON (`--json`) or text.

use std::collections::BTreeMap;

use jiffy_bench_server::{cpu, latency::Percentiles};
use serde::Serialize;

use crate::{args::Args, load::Outcome};

#[derive(Serialize)]
pub struct Report {
    pub config: Config,
    pub measured_window: MeasuredWindow,
    /// Calls answered in the window, errors included: the divisor of the
    /// server's CPU time.
    pub requests: u64,
    pub ok: u64,
    pub rps: f64,
    pub errors: BTreeMap<String, u64>,
    pub error_examples: BTreeMap<String, String>,
    pub unexpected_results: BTreeMap<String, u64>,
    pub gets: Gets,
    /// Successful calls only, all ops together.
    pub latency_ms: Percentiles,
    pub latency_ms_by_op: BTreeMap<&'static str, Percentiles>,
    pub server_cpu: Option<CpuUse>,
    /// The processes of `--store-pid` together, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store_cpu: Option<CpuUse>,
    pub client_cpu: CpuUse,
    /// Cores busy with other processes in the window (machine busy time less
    /// the server's, the store's and ours): the noise of a shared machine,
    /// which also competes for the pinned cores.
    pub other_processes_cores: Option<f64>,
}

#[derive(Serialize)]
pub struct Config {
    pub transport: crate::args::Transport,
    /// The gRPC address: the load's with `grpc`, only the cache creation's
    /// with `protosocket`.
    pub endpoint: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protosocket_endpoint: Option<String>,
    pub cache: String,
    pub concurrency: usize,
    pub connections: usize,
    pub duration_s: f64,
    pub warmup_s: f64,
    pub value_size: usize,
    pub keyspace: usize,
    pub call: crate::calls::Call,
    pub get_ratio: f64,
    pub ttl_s: u64,
    /// The one `--server-pid` (null without it, or with several: see `server_pids`).
    pub server_pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_pids: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub store_pids: Vec<u32>,
}

#[derive(Serialize)]
pub struct MeasuredWindow {
    pub start_unix_ms: u128,
    pub end_unix_ms: u128,
    pub seconds: f64,
}

#[derive(Serialize)]
pub struct Gets {
    pub hits: u64,
    pub misses: u64,
    pub wrong_size_hits: u64,
}

#[derive(Serialize)]
pub struct CpuUse {
    /// The process, when it is one.
    pub pid: Option<u32>,
    pub cpu_seconds: f64,
    /// CPU seconds per wall second: 1.0 is one core fully busy.
    pub cores: f64,
    /// CPU microseconds per request answered in the window.
    pub us_per_request: f64,
    pub clock_ticks_per_second: u64,
}

impl Report {
    pub fn new(args: &Args, outcome: Outcome) -> Self {
        let Outcome { stats, window } = outcome;
        let seconds = window.elapsed.as_secs_f64();
        let requests = stats.ok_count() + stats.error_count();
        let cpu_use = |pid, (start, end): (cpu::CpuTicks, cpu::CpuTicks)| {
            let cpu_seconds = start.seconds_until(end);
            CpuUse {
                pid,
                cpu_seconds,
                cores: cpu_seconds / seconds,
                us_per_request: cpu_seconds * 1e6 / requests.max(1) as f64,
                clock_ticks_per_second: cpu::ticks_per_second(),
            }
        };
        let single = |pids: &[u32]| match pids {
            [pid] => Some(*pid),
            _ => None,
        };
        let server_cpu = window
            .server_cpu
            .map(|ticks| cpu_use(single(&args.server_pid), ticks));
        let store_cpu = window
            .store_cpu
            .map(|ticks| cpu_use(single(&args.store_pid), ticks));
        let client_cpu = cpu_use(None, window.client_cpu);
        let (machine_start, machine_end) = window.machine_cpu;
        let other_processes_cores = server_cpu.as_ref().map(|server| {
            let machine = machine_start.seconds_until(machine_end);
            let store = store_cpu.as_ref().map_or(0.0, |store| store.cpu_seconds);
            ((machine - server.cpu_seconds - store - client_cpu.cpu_seconds) / seconds).max(0.0)
        });
        let mut all = stats.get_latency.clone();
        all.add(&stats.set_latency).expect("same bounds");
        Report {
            config: Config {
                transport: args.transport,
                endpoint: args.endpoint.clone(),
                protosocket_endpoint: args.protosocket_endpoint.clone(),
                cache: args.cache.clone(),
                concurrency: args.concurrency,
                connections: args.connections,
                duration_s: args.duration,
                warmup_s: args.warmup,
                value_size: args.value_size,
                keyspace: args.keyspace,
                call: args.call,
                get_ratio: args.get_ratio,
                ttl_s: args.ttl,
                server_pid: single(&args.server_pid),
                server_pids: (args.server_pid.len() > 1).then(|| args.server_pid.clone()),
                store_pids: args.store_pid.clone(),
            },
            measured_window: MeasuredWindow {
                start_unix_ms: window.start_unix_ms,
                end_unix_ms: window.end_unix_ms,
                seconds,
            },
            requests,
            ok: stats.ok_count(),
            rps: requests as f64 / seconds,
            gets: Gets {
                hits: stats.hits,
                misses: stats.misses,
                wrong_size_hits: stats.wrong_size_hits,
            },
            latency_ms: Percentiles::of(&all),
            latency_ms_by_op: BTreeMap::from([
                ("get", Percentiles::of(&stats.get_latency)),
                ("set", Percentiles::of(&stats.set_latency)),
            ]),
            server_cpu,
            store_cpu,
            client_cpu,
            other_processes_cores,
            errors: stats.errors,
            error_examples: stats.error_examples,
            unexpected_results: stats.unexpected_results,
        }
    }

    pub fn to_text(&self) -> String {
        let c = &self.config;
        let mut out = format!(
            "{} endpoint {} cache {} concurrency {} connections {} value {} B \
             keyspace {} gets {:.0}%\n\
             window {:.2} s: {} requests, {:.0} rps, {} errors\n",
            match c.transport {
                crate::args::Transport::Grpc => "grpc",
                crate::args::Transport::Protosocket => "protosocket",
            },
            c.protosocket_endpoint.as_ref().unwrap_or(&c.endpoint),
            c.cache,
            c.concurrency,
            c.connections,
            c.value_size,
            c.keyspace,
            c.get_ratio * 100.0,
            self.measured_window.seconds,
            self.requests,
            self.rps,
            self.requests - self.ok,
        );
        for (code, count) in &self.errors {
            let example = self.error_examples.get(code).map_or("", String::as_str);
            out += &format!("  error {code}: {count} (first: {example:?})\n");
        }
        for (what, count) in &self.unexpected_results {
            out += &format!("  unexpected: {what}: {count}\n");
        }
        out += &format!(
            "gets: {} hits, {} misses, {} hits of the wrong size\n",
            self.gets.hits, self.gets.misses, self.gets.wrong_size_hits
        );
        out += "latency ms      count      p50      p90      p99    p99.9      max\n";
        let rows = [("all", &self.latency_ms)]
            .into_iter()
            .chain(self.latency_ms_by_op.iter().map(|(op, p)| (*op, p)));
        for (name, p) in rows {
            out += &format!(
                "  {name:<8} {:>10} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3}\n",
                p.count, p.p50, p.p90, p.p99, p.p999, p.max
            );
        }
        if let Some(server) = &self.server_cpu {
            out += &format!(
                "server cpu: {:.2} s, {:.2} cores, {:.2} us/request\n",
                server.cpu_seconds, server.cores, server.us_per_request
            );
        }
        if let Some(store) = &self.store_cpu {
            out += &format!(
                "store cpu: {:.2} s, {:.2} cores, {:.2} us/request\n",
                store.cpu_seconds, store.cores, store.us_per_request
            );
        }
        out += &format!(
            "client cpu: {:.2} s, {:.2} cores, {:.2} us/request\n",
            self.client_cpu.cpu_seconds, self.client_cpu.cores, self.client_cpu.us_per_request
        );
        if let Some(cores) = self.other_processes_cores {
            out += &format!("other processes: {cores:.2} cores\n");
        }
        out
    }
}
