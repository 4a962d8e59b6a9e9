//! Prometheus metrics: requests by RPC, status and transport, server-side
//! latency per RPC and transport, store gauges, and connections; rendered
//! as text at `GET /metrics`.
//!
//! Per-request counters are resolved once and kept in plain arrays, so the
//! hot path is an index and an atomic add, never a label-map lookup. The
//! per-cache ones are found by name in a small map of their own
//! (`PerCacheMetrics`).

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, LazyLock, OnceLock, RwLock};
use std::time::Duration;

use hashbrown::HashMap;
use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

use crate::backend::StoreStats;
use crate::close::CloseReason;
use crate::rpcs::{self, RPCS};

/// The `rpc` label of calls outside the catalogue.
const UNKNOWN_RPC: &str = "unknown";

/// gRPC status names by code, as the `code` label shows them.
const CODES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// Latency buckets, in seconds: round values (1, 1.5, 2, 3, 5, 7.5 per
/// decade around the usual latencies) from 25 µs to 10 s, 24 in all, with
/// the common targets (1, 5, 10, 20, 100 ms) among them. 67 buckets 25%
/// apart made about 100 KB of every idle scrape, under labels like
/// `le="0.000059604644775390625"`.
const LATENCY_BUCKETS: [f64; 24] = [
    25e-6, 50e-6, 100e-6, 200e-6, 300e-6, 500e-6, 750e-6, 1e-3, 1.5e-3, 2e-3, 3e-3, 5e-3, 7.5e-3,
    10e-3, 15e-3, 20e-3, 30e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1.0, 2.5, 10.0,
];

/// The calls whose latency series exist from start, so that tools reading
/// them see 0 before the first call: the scalar data calls, the control
/// calls and Ping. The collection calls' appear on their first use: made
/// at start, their empty histograms would more than double every scrape.
const EAGER_LATENCY: [&str; 17] = [
    "Get",
    "GetBatch",
    "Set",
    "SetBatch",
    "SetIf",
    "SetIfNotExists",
    "Delete",
    "KeysExist",
    "Increment",
    "UpdateTtl",
    "ItemGetTtl",
    "ItemGetType",
    "CreateCache",
    "DeleteCache",
    "ListCaches",
    "FlushCache",
    "Ping",
];

/// The port a call came in on, as the `transport` label shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// gRPC over HTTP/2 (`--listen`).
    Grpc,
    /// Momento's protosocket protocol (`--protosocket-listen`).
    Protosocket,
    /// Momento's HTTP API (`--http-listen`).
    Http,
}

impl Transport {
    pub const ALL: [Transport; 3] = [Transport::Grpc, Transport::Protosocket, Transport::Http];

    pub fn label(self) -> &'static str {
        match self {
            Transport::Grpc => "grpc",
            Transport::Protosocket => "protosocket",
            Transport::Http => "http",
        }
    }
}

/// The metrics of one RPC on one transport.
struct RpcMetrics {
    name: &'static str,
    transport: &'static str,
    /// Made at start for served calls, so tools that read their count see 0
    /// before the first call; on first use for the others, which would
    /// otherwise add an empty histogram each to every scrape.
    latency: OnceLock<Histogram>,
    /// Resolved on first use: most RPCs only ever see a few codes, and an
    /// unused code should not appear as a zero series.
    by_code: [OnceLock<IntCounter>; 17],
}

/// Which RPC a request is: its position in the catalogue, or past its end
/// for a path outside it.
#[derive(Clone, Copy, Debug)]
pub struct RpcId(usize);

impl RpcId {
    /// Whether the path is no call of the catalogue.
    pub fn is_unknown(self) -> bool {
        self.0 >= RPCS.len()
    }

    /// The call's name in the catalogue; `None` for a path outside it.
    pub fn name(self) -> Option<&'static str> {
        RPCS.get(self.0).map(|rpc| rpc.name)
    }
}

pub struct Metrics {
    registry: Registry,
    /// The standard `process_*` metrics (CPU, memory, file descriptors),
    /// kept apart from `registry` so that they keep their usual names
    /// instead of taking the `jiffy_` prefix.
    process: Registry,
    /// Gets that found their item, and that did not (see [`Lookups`]).
    hits: IntCounter,
    misses: IntCounter,
    /// The same, and the calls, by cache.
    per_cache: Arc<PerCacheMetrics>,
    /// One per RPC of the catalogue, in its order, then `unknown`; the
    /// whole row once per transport, in `Transport::ALL` order.
    rpcs: Vec<RpcMetrics>,
    requests: IntCounterVec,
    latency: HistogramVec,
    pub open_connections: IntGauge,
    pub connections: IntCounter,
    /// Closed connections, by [`CloseReason`], in `CloseReason::ALL` order.
    connections_closed: Vec<IntCounter>,
    /// Bytes of requests and answers in flight (`crate::in_flight`).
    pub in_flight_bytes: IntGauge,
    /// Calls being handled now, and the most there have been at once since
    /// start. The peak exists because a client's in-flight cap is a promise
    /// about a maximum, which a gauge sampled now and then would miss.
    in_flight: AtomicI64,
    in_flight_peak: AtomicI64,
    in_flight_gauges: [IntGauge; 2],
    /// The embedded store's figures; `None` for a Redis store, whose items
    /// are not this process's to count.
    store_stats: Option<StatsSource>,
    store_gauges: StoreGauges,
    topics: TopicMetrics,
}

/// Reads the store's figures when `/metrics` is scraped.
pub type StatsSource = Box<dyn Fn() -> StoreStats + Send + Sync>;

/// Store figures, copied from the store when scraped.
struct StoreGauges {
    items: IntGauge,
    bytes: IntGauge,
    max_bytes: IntGauge,
    caches: IntGauge,
    evictions: IntCounter,
    expirations: IntCounter,
    /// `jiffy_cache_items{cache}` and `jiffy_cache_memory_bytes{cache}`:
    /// set afresh at each scrape, so a deleted cache's series goes with it;
    /// at most `--max-caches` series each.
    cache_items: IntGaugeVec,
    cache_bytes: IntGaugeVec,
}

impl Metrics {
    pub fn new(store_stats: Option<StatsSource>, max_memory: u64) -> Arc<Metrics> {
        let registry = Registry::new_custom(Some("jiffy".into()), None).expect("valid prefix");
        let requests = IntCounterVec::new(
            Opts::new(
                "requests_total",
                "Requests answered, or abandoned by the client, by RPC, gRPC status and transport",
            ),
            &["rpc", "code", "transport"],
        )
        .expect("valid metric");
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "request_duration_seconds",
                "Server-side time from request to answer, by RPC and transport",
            )
            .buckets(LATENCY_BUCKETS.to_vec()),
            &["rpc", "transport"],
        )
        .expect("valid metric");
        // Eager series on the gRPC port only: the other ports are off by
        // default, and their series would multiply every idle scrape.
        let rpcs = Transport::ALL
            .iter()
            .flat_map(|transport| {
                let names = RPCS.iter().map(|rpc| rpc.name).chain([UNKNOWN_RPC]);
                names.map(move |name| (*transport, name))
            })
            .map(|(transport, name)| {
                let eager = transport == Transport::Grpc
                    && (name == UNKNOWN_RPC || EAGER_LATENCY.contains(&name));
                let transport = transport.label();
                RpcMetrics {
                    name,
                    transport,
                    latency: if eager {
                        OnceLock::from(latency.with_label_values(&[name, transport]))
                    } else {
                        OnceLock::new()
                    },
                    by_code: Default::default(),
                }
            })
            .collect();
        let gauge = |name: &str, help: &str| IntGauge::new(name, help).expect("valid metric");
        let counter = |name: &str, help: &str| IntCounter::new(name, help).expect("valid metric");
        let store_gauges = StoreGauges {
            items: gauge("items", "Items held, expired ones not yet freed included"),
            bytes: gauge("memory_bytes", "Bytes counted against --max-memory"),
            max_bytes: gauge("memory_limit_bytes", "The --max-memory setting"),
            caches: gauge("caches", "Caches that exist"),
            evictions: counter(
                "evictions_total",
                "Items evicted to stay under --max-memory",
            ),
            expirations: counter("expirations_total", "Items freed because their TTL ran out"),
            cache_items: IntGaugeVec::new(
                Opts::new("cache_items", "Items held by cache, as jiffy_items counts them"),
                &["cache"],
            )
            .expect("valid metric"),
            cache_bytes: IntGaugeVec::new(
                Opts::new(
                    "cache_memory_bytes",
                    "Bytes counted against --max-memory by cache, as jiffy_memory_bytes counts them",
                ),
                &["cache"],
            )
            .expect("valid metric"),
        };
        store_gauges.max_bytes.set(max_memory as i64);
        let closed = IntCounterVec::new(
            Opts::new(
                "connections_closed_total",
                "Client connections closed, by why (README, \"Connections\")",
            ),
            &["reason"],
        )
        .expect("valid metric");
        let connections_closed = CloseReason::ALL
            .iter()
            .map(|reason| closed.with_label_values(&[reason.label()]))
            .collect();
        let process = Registry::new();
        process
            .register(Box::new(
                prometheus::process_collector::ProcessCollector::for_self(),
            ))
            .expect("unique metric");
        let topics = TopicMetrics {
            published: counter(
                "topic_messages_published_total",
                "Messages accepted by Publish (through this server)",
            ),
            delivered: counter(
                "topic_messages_delivered_total",
                "Topic messages handed to subscribers' streams, one per subscriber",
            ),
            subscribers: gauge("topic_subscribers", "Subscriptions open now"),
            discontinuities: counter(
                "topic_discontinuities_total",
                "Discontinuities sent to subscribers: messages they missed",
            ),
            memory: gauge(
                "topic_memory_bytes",
                "Bytes held by the topics' buffers, counted against --max-topic-memory",
            ),
            memory_limit: gauge("topic_memory_limit_bytes", "The --max-topic-memory setting"),
        };
        let metrics = Metrics {
            topics,
            process,
            hits: counter(
                "cache_hits_total",
                "Gets that found their item: Get, each key of GetBatch, GetWithHash",
            ),
            misses: counter(
                "cache_misses_total",
                "Gets that did not find their item: Get, each key of GetBatch, GetWithHash",
            ),
            per_cache: Arc::new(PerCacheMetrics::new()),
            connections_closed,
            in_flight_bytes: gauge(
                "in_flight_bytes",
                "Bytes of requests being received and answers not yet sent (--max-in-flight-bytes)",
            ),
            open_connections: gauge("open_connections", "Client connections open now"),
            connections: counter("connections_total", "Client connections accepted"),
            in_flight: AtomicI64::new(0),
            in_flight_peak: AtomicI64::new(0),
            in_flight_gauges: [
                gauge("requests_in_flight", "Calls being handled now"),
                gauge(
                    "requests_in_flight_max",
                    "The most calls handled at once since the server started",
                ),
            ],
            registry,
            rpcs,
            requests,
            latency,
            store_stats,
            store_gauges,
        };
        metrics.register_all(closed);
        let build = IntGaugeVec::new(
            Opts::new("build_info", "1, labelled with the server's version"),
            &["version"],
        )
        .expect("valid metric");
        build.with_label_values(&[env!("CARGO_PKG_VERSION")]).set(1);
        metrics
            .registry
            .register(Box::new(build))
            .expect("unique metric");
        Arc::new(metrics)
    }

    fn register_all(&self, closed: IntCounterVec) {
        let g = &self.store_gauges;
        let mut collectors: Vec<Box<dyn prometheus::core::Collector>> = vec![
            Box::new(self.requests.clone()),
            Box::new(self.latency.clone()),
            Box::new(self.open_connections.clone()),
            Box::new(self.connections.clone()),
            Box::new(closed),
            Box::new(self.in_flight_bytes.clone()),
            Box::new(self.in_flight_gauges[0].clone()),
            Box::new(self.in_flight_gauges[1].clone()),
            Box::new(self.hits.clone()),
            Box::new(self.misses.clone()),
            Box::new(self.per_cache.calls.clone()),
            Box::new(self.per_cache.lookups.clone()),
            Box::new(ANSWERS_REFUSED.clone()),
            Box::new(crate::store::heavy::HEAVY_CALLS.clone()),
            Box::new(crate::store::heavy::HEAVY_WAITING.clone()),
            Box::new(self.topics.published.clone()),
            Box::new(self.topics.delivered.clone()),
            Box::new(self.topics.subscribers.clone()),
            Box::new(self.topics.discontinuities.clone()),
            Box::new(self.topics.memory.clone()),
            Box::new(self.topics.memory_limit.clone()),
        ];
        // jemalloc's own figures, refreshed at each scrape.
        #[cfg(not(target_env = "msvc"))]
        collectors.push(Box::new(crate::allocator::AllocatorStats::new()));
        if self.store_stats.is_some() {
            collectors.extend([
                Box::new(g.items.clone()) as Box<dyn prometheus::core::Collector>,
                Box::new(g.bytes.clone()),
                Box::new(g.max_bytes.clone()),
                Box::new(g.caches.clone()),
                Box::new(g.evictions.clone()),
                Box::new(g.expirations.clone()),
                Box::new(g.cache_items.clone()),
                Box::new(g.cache_bytes.clone()),
            ]);
        }
        for collector in collectors {
            self.registry.register(collector).expect("unique metric");
        }
    }

    /// Registers metrics kept elsewhere (`webhooks::WebhookMetrics`).
    pub fn register(&self, collectors: Vec<Box<dyn prometheus::core::Collector>>) {
        for collector in collectors {
            self.registry.register(collector).expect("unique metric");
        }
    }

    pub fn rpc_id(&self, path: &str) -> RpcId {
        RpcId(rpcs::index(path).unwrap_or(RPCS.len()))
    }

    /// The id of a call of the catalogue, without hashing its path.
    pub fn rpc_id_of(&self, rpc: &'static rpcs::Rpc) -> RpcId {
        RpcId(rpcs::position(rpc).unwrap_or(RPCS.len()))
    }

    /// Counts a call as started; it counts as finished when the guard drops.
    pub fn start_call(self: &Arc<Self>) -> InFlightGuard {
        let now = self.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        self.in_flight_peak.fetch_max(now, Ordering::Relaxed);
        InFlightGuard(Arc::clone(self))
    }

    /// Counts a closed client connection.
    pub fn connection_closed(&self, reason: CloseReason) {
        let index = CloseReason::ALL
            .iter()
            .position(|r| *r == reason)
            .expect("every reason is in ALL");
        self.connections_closed[index].inc();
    }

    /// Counts one answered gRPC request and its server-side latency.
    pub fn observe(&self, rpc: RpcId, code: usize, elapsed: Duration) {
        self.observe_on(Transport::Grpc, rpc, code, elapsed);
    }

    /// Counts one answered request of `transport` and its server-side latency.
    pub fn observe_on(&self, transport: Transport, rpc: RpcId, code: usize, elapsed: Duration) {
        // Rows in `Transport::ALL` order, one per RPC plus `unknown` each.
        let row = match transport {
            Transport::Grpc => 0,
            Transport::Protosocket => RPCS.len() + 1,
            Transport::Http => 2 * (RPCS.len() + 1),
        };
        let metrics = &self.rpcs[row + rpc.0];
        let labels = [metrics.name, metrics.transport];
        metrics
            .latency
            .get_or_init(|| self.latency.with_label_values(&labels))
            .observe(elapsed.as_secs_f64());
        let code = code.min(CODES.len() - 1);
        metrics.by_code[code]
            .get_or_init(|| {
                self.requests
                    .with_label_values(&[metrics.name, CODES[code], metrics.transport])
            })
            .inc();
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        if let Some(read_stats) = &self.store_stats {
            let stats = read_stats();
            let g = &self.store_gauges;
            g.items.set(stats.items as i64);
            g.bytes.set(stats.bytes as i64);
            g.caches.set(stats.caches as i64);
            g.cache_items.reset();
            g.cache_bytes.reset();
            for (name, usage) in &stats.per_cache {
                g.cache_items
                    .with_label_values(&[name])
                    .set(usage.items as i64);
                g.cache_bytes
                    .with_label_values(&[name])
                    .set(usage.bytes as i64);
            }
            // Counters only go up; the store's totals are the source of truth.
            g.evictions
                .inc_by(stats.evictions.saturating_sub(g.evictions.get()));
            g.expirations
                .inc_by(stats.expirations.saturating_sub(g.expirations.get()));
        }
        let [in_flight, peak] = &self.in_flight_gauges;
        in_flight.set(self.in_flight.load(Ordering::Relaxed));
        peak.set(self.in_flight_peak.load(Ordering::Relaxed));
        let mut text = Vec::new();
        let mut families = self.registry.gather();
        families.extend(self.process.gather());
        TextEncoder::new()
            .encode(&families, &mut text)
            .expect("text encoding cannot fail");
        String::from_utf8(text).expect("the text format is UTF-8")
    }
}

/// Answers refused for their size (`jiffy_answers_refused_total`), by the
/// bound they passed: `max_response_size` (`--max-response-size`) or
/// `protosocket_frame` (what the protosocket client can read). One for the
/// process, counted where an error becomes a status (`Error::count_if_refused_answer`):
/// the refusals are made deep in the stores, far from any server's
/// `Metrics`, and every server in the process registers this one counter.
static ANSWERS_REFUSED: LazyLock<IntCounterVec> = LazyLock::new(|| {
    let opts = Opts::new(
        "answers_refused_total",
        "Answers refused for their size, by the bound they passed",
    );
    let refused = IntCounterVec::new(opts, &["reason"]).expect("valid metric");
    for reason in [
        REFUSED_OVER_MAX_RESPONSE_SIZE,
        REFUSED_OVER_PROTOSOCKET_FRAME,
    ] {
        refused.with_label_values(&[reason]);
    }
    refused
});

/// The `reason` labels of `jiffy_answers_refused_total`: the bound passed.
pub const REFUSED_OVER_MAX_RESPONSE_SIZE: &str = "max_response_size";
pub const REFUSED_OVER_PROTOSOCKET_FRAME: &str = "protosocket_frame";

/// Counts one answer refused for passing `bound` (one of the labels above).
pub fn count_refused_answer(bound: &'static str) {
    ANSWERS_REFUSED.with_label_values(&[bound]).inc();
}

/// The hit and miss counters, for the handlers of the calls that get an
/// item: Get, each key of GetBatch, GetWithHash (README, "Operations"),
/// with the per-cache calls, hits and misses.
#[derive(Clone)]
pub struct Lookups {
    hits: IntCounter,
    misses: IntCounter,
    per_cache: Arc<PerCacheMetrics>,
}

impl Lookups {
    /// Counts one call on the cache `name`. Only a cache known to exist
    /// has counters: one created through this server, or one a lookup has
    /// found (over Redis, a name resolves before the store is asked, so a
    /// call alone proves nothing). A client naming caches that do not exist
    /// makes no series, and there are at most as many as caches.
    pub fn count_call(&self, name: &str) {
        self.per_cache
            .with_counters(name, false, |counters| counters.calls.inc());
    }

    /// Counts `hits` and `misses` of one call on the cache `name`, which
    /// the store has just answered for, so it exists.
    pub fn record(&self, name: &str, hits: u64, misses: u64) {
        self.hits.inc_by(hits);
        self.misses.inc_by(misses);
        self.per_cache.with_counters(name, true, |counters| {
            counters.hits.inc_by(hits);
            counters.misses.inc_by(misses);
        });
    }

    /// Makes the series of the cache `name`, created, at 0.
    pub fn cache_created(&self, name: &str) {
        self.per_cache.with_counters(name, true, |_| ());
    }

    /// Drops the series of the cache `name`, deleted.
    pub fn cache_deleted(&self, name: &str) {
        self.per_cache.remove(name);
    }
}

impl Metrics {
    pub fn lookups(&self) -> Lookups {
        Lookups {
            hits: self.hits.clone(),
            misses: self.misses.clone(),
            per_cache: Arc::clone(&self.per_cache),
        }
    }
}

/// One cache's counters, resolved from the families once, when the cache
/// is created or first found.
struct CacheCounters {
    calls: IntCounter,
    hits: IntCounter,
    misses: IntCounter,
}

/// `jiffy_cache_calls_total{cache}` and `jiffy_cache_lookups_total{cache,
/// result}`. A call reads the map under its read lock by `&str` (once, and
/// once more to count a get's hits and misses), hashed with hashbrown's
/// foldhash rather than std's SipHash, and adds to atomics under that lock:
/// it allocates nothing and touches no reference count. The write lock is
/// taken only when a cache's counters are made or dropped.
struct PerCacheMetrics {
    calls: IntCounterVec,
    lookups: IntCounterVec,
    by_name: RwLock<HashMap<String, CacheCounters>>,
}

impl PerCacheMetrics {
    fn new() -> PerCacheMetrics {
        PerCacheMetrics {
            calls: IntCounterVec::new(
                Opts::new(
                    "cache_calls_total",
                    "Data calls by the cache they named, for caches that exist",
                ),
                &["cache"],
            )
            .expect("valid metric"),
            lookups: IntCounterVec::new(
                Opts::new(
                    "cache_lookups_total",
                    "Gets by cache and result (hit, miss): Get, each key of GetBatch, GetWithHash",
                ),
                &["cache", "result"],
            )
            .expect("valid metric"),
            by_name: RwLock::new(HashMap::new()),
        }
    }

    /// Runs `count` on the counters of the cache `name`, made first if
    /// `make`; not at all if they do not exist and `make` is false.
    fn with_counters(&self, name: &str, make: bool, count: impl FnOnce(&CacheCounters)) {
        if let Some(counters) = self.by_name.read().expect("not poisoned").get(name) {
            return count(counters);
        }
        if !make {
            return;
        }
        let mut by_name = self.by_name.write().expect("not poisoned");
        let counters = by_name.entry_ref(name).or_insert_with(|| CacheCounters {
            calls: self.calls.with_label_values(&[name]),
            hits: self.lookups.with_label_values(&[name, "hit"]),
            misses: self.lookups.with_label_values(&[name, "miss"]),
        });
        count(counters);
    }

    fn remove(&self, name: &str) {
        let mut by_name = self.by_name.write().expect("not poisoned");
        if by_name.remove(name).is_some() {
            // Made with the entry, so present; a failure would change nothing.
            let _ = self.calls.remove_label_values(&[name]);
            for result in ["hit", "miss"] {
                let _ = self.lookups.remove_label_values(&[name, result]);
            }
        }
    }
}

/// The topics' metrics (README, "Topics"), for the hub and the Pubsub
/// handlers; each field is a handle on the registered metric.
#[derive(Clone)]
pub struct TopicMetrics {
    pub published: IntCounter,
    pub delivered: IntCounter,
    pub subscribers: IntGauge,
    pub discontinuities: IntCounter,
    /// Kept exact by the buffers themselves: each message and topic adds
    /// its bytes when made and takes them off when dropped.
    pub memory: IntGauge,
    pub memory_limit: IntGauge,
}

impl Metrics {
    pub fn topics(&self) -> TopicMetrics {
        self.topics.clone()
    }
}

/// Marks one call in flight for as long as it lives.
pub struct InFlightGuard(Arc<Metrics>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}
