//! Every setting of the server, each declared once: its help, type,
//! default, environment variable and README description. The flag is
//! `--` and the name in kebab-case, and so is the TOML key. `--help`, the
//! TOML file, the environment, the defaults and the README's settings
//! table (`cargo test -p jiffy-server --lib readme_settings`, with
//! `JIFFY_BLESS=1` to rewrite it) all read this table; how the values fit
//! together is checked in [`super::Config`].
//!
//! Sizes take units (`64MiB`, `512KiB`, `1GB`); durations take humantime
//! forms (`500ms`, `30s`, `7days`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use bytesize::ByteSize;

use super::declare::declare_settings;
use super::LogFormat;
use crate::topics;

declare_settings! {
    /// Address of the gRPC listener (IP:PORT, localhost:PORT, or :PORT for
    /// every interface); port 0 picks a free port.
    listen: Option<SocketAddr> = default(SocketAddr::from(([127, 0, 0, 1], 8080))), "HOST:PORT", env "JIFFY_LISTEN",
        "gRPC listener: an IP address, `localhost` (127.0.0.1) or nothing (`:8080`, every interface) before the port; port 0 picks a free one";
    /// Address of the Prometheus endpoint (GET /metrics, /healthz, /readyz),
    /// in the forms of --listen; off when absent.
    metrics_listen: Option<SocketAddr> = unset("off"), "HOST:PORT", env "JIFFY_METRICS_LISTEN",
        "Prometheus text at `GET /metrics`, probes at `/healthz` and `/readyz`; same forms as `--listen`";
    /// Address of the protosocket port (Momento's protosocket protocol:
    /// Get, Set, Delete), in the forms of --listen; off when absent.
    protosocket_listen: Option<SocketAddr> = unset("off"), "HOST:PORT", env "JIFFY_PROTOSOCKET_LISTEN",
        "a second port speaking Momento's protosocket protocol (Get, Set, Delete; see [The protosocket port](CALLS.md#the-protosocket-port)); same forms as `--listen`, and the same loopback rule without auth";
    /// Address of the HTTP API (Momento's HTTP API over HTTP/1.1: get,
    /// set, delete, publish), in the forms of --listen; off when absent.
    http_listen: Option<SocketAddr> = unset("off"), "HOST:PORT", env "JIFFY_HTTP_LISTEN",
        "a port serving Momento's HTTP API (get, set and delete of an item, publish to a topic; see [HTTP.md](HTTP.md)); same forms as `--listen`, and the same loopback rule without auth";
    /// Memory for items (keys, values and per-item overhead); past it the store evicts.
    max_memory: Option<ByteSize> = default(ByteSize::gib(1)), "SIZE", env "JIFFY_MAX_MEMORY",
        "memory for items; past it the store evicts";
    /// Free room in the allocator's partly used slabs past which the
    /// embedded store moves items out of the emptiest ones (0: never).
    defrag_above: Option<ByteSize> = computed("--max-memory / 32, at least 4 MiB"), "SIZE", env "JIFFY_DEFRAG_ABOVE",
        "free room in the allocator's partly used slabs past which the embedded store moves items out of the emptiest, at most a quarter of a core, so churn does not leave resident memory far past `--max-memory` (see [RELIABILITY.md](RELIABILITY.md)); unset, `--max-memory` / 32 and at least 4 MiB; 0: off";
    /// Largest key accepted.
    max_key_size: Option<ByteSize> = default(ByteSize::kib(4)), "SIZE", env "JIFFY_MAX_KEY_SIZE",
        "largest key";
    // The item size limit of the Momento service, so code moves between the two
    // unchanged.
    /// Largest value accepted.
    max_value_size: Option<ByteSize> = default(ByteSize::mib(5)), "SIZE", env "JIFFY_MAX_VALUE_SIZE",
        "largest value, collection field or element (the Momento service's item limit)";
    // Unset, it is derived (`Config::derived_request_size`): room for the
    // largest value, the largest key and the framing around them, so a value of
    // exactly --max-value-size can be stored, and a Set over the limit is told
    // about its value, not about the request.
    /// Largest encoded request message accepted (batches included).
    max_request_size: Option<ByteSize> = computed("--max-value-size + --max-key-size + 1 KiB, at least 5 MiB"), "SIZE", env "JIFFY_MAX_REQUEST_SIZE",
        "largest request message, batches included; unset, room for the largest value, the largest key and 1 KiB of framing, and at least the Momento service's 5 MiB (5,248,000 bytes with the defaults), so a value of `--max-value-size` fits";
    /// Longest TTL accepted.
    max_ttl: Option<Duration> = default(Duration::from_secs(7 * 24 * 3600)), "DURATION", env "JIFFY_MAX_TTL",
        "longest TTL";
    /// Most caches the server holds at once.
    max_caches: Option<usize> = default(100), "N", env "JIFFY_MAX_CACHES",
        "most caches at once";
    /// Most signing keys live at once (`CreateSigningKey`), so that an admin
    /// token cannot fill the store with keys; 0: none may be made.
    max_signing_keys: Option<usize> = default(100), "N", env "JIFFY_MAX_SIGNING_KEYS",
        "signing keys of presigned URLs live at once (RESOURCE_EXHAUSTED past it; 0: none)";
    // What the Momento service allows; the SDKs' pool sizes assume it.
    /// HTTP/2 streams (requests in flight) allowed per connection.
    max_concurrent_streams: Option<u32> = default(100), "N", env "JIFFY_MAX_CONCURRENT_STREAMS",
        "HTTP/2 requests in flight per connection (as the Momento service)";
    // Room for the 10,000 idle connections the tests hold and then some; the
    // descriptor limit is raised to fit at start (`bin/server.rs`).
    /// Most client connections open at once; at the cap a new one replaces the
    /// oldest still in its handshake, or is closed.
    max_connections: Option<usize> = default(16_384), "N", env "JIFFY_MAX_CONNECTIONS",
        "client connections open at once (see [Connections](LIMITS.md#connections))";
    // A health prober and a Prometheus or two need a few; a flood of idle
    // sockets on a port open to a monitoring network must not take the
    // descriptors sized for the cache ports.
    /// Most connections each side port (`--metrics-listen`, `--admin-listen`)
    /// holds at once; at the cap a new one replaces the oldest one still silent.
    max_side_port_connections: Option<usize> = default(1024), "N", env "JIFFY_MAX_SIDE_PORT_CONNECTIONS",
        "connections each of the metrics and admin ports holds at once; at the cap a new one replaces the oldest one still silent (see [Connections](LIMITS.md#connections))";
    // Ample for TLS and the preface over a slow network; short enough that silent
    // sockets do not pile up.
    /// How long a new connection has to finish TLS and start the HTTP/2 preface.
    handshake_timeout: Option<Duration> = default(Duration::from_secs(10)), "DURATION", env "JIFFY_HANDSHAKE_TIMEOUT",
        "a new connection must finish TLS and start HTTP/2 within this";
    // Longer than any client deadline the SDKs set by default.
    /// How long a request body may take to arrive; then DEADLINE_EXCEEDED.
    request_timeout: Option<Duration> = default(Duration::from_secs(30)), "DURATION", env "JIFFY_REQUEST_TIMEOUT",
        "a request body still incomplete after this fails DEADLINE_EXCEEDED";
    /// A connection whose waiting answers make no progress for this long is closed.
    send_timeout: Option<Duration> = default(Duration::from_secs(30)), "DURATION", env "JIFFY_SEND_TIMEOUT",
        "a connection whose waiting answers make no progress this long is closed";
    // A protosocket client idle this long holds a place under the connection cap
    // for nothing; the official client reconnects on its next command.
    /// A protosocket connection with no command read or running for this
    /// long is closed (gRPC connections are kept, and pinged).
    idle_timeout: Option<Duration> = default(Duration::from_secs(300)), "DURATION", env "JIFFY_IDLE_TIMEOUT",
        "a protosocket connection with no command read or running this long (after its first frame) is closed (`idle_timeout`); gRPC connections are kept (SDKs pool them and answer keepalive pings)";
    // Fifty answers of the largest value at once; far above normal use, far below
    // what exhausts a machine.
    /// Bytes of requests being received and answers not yet sent, server-wide;
    /// past it new calls answer RESOURCE_EXHAUSTED.
    max_in_flight_bytes: Option<ByteSize> = default(ByteSize::mib(256)), "SIZE", env "JIFFY_MAX_IN_FLIGHT_BYTES",
        "requests being received plus answers not yet sent, server-wide: one budget for the gRPC and the protosocket port (see [Connections](LIMITS.md#connections))";
    // hyper's default: room for a token, the SDK's agent headers and more.
    /// Largest HTTP/2 header list (all of a request's headers) accepted.
    max_header_list_size: Option<ByteSize> = default(ByteSize::kib(16)), "SIZE", env "JIFFY_MAX_HEADER_LIST_SIZE",
        "all of one request's HTTP/2 headers";
    /// Most items in one GetBatch or SetBatch, or elements in one collection call.
    max_request_items: Option<usize> = default(10_000), "N", env "JIFFY_MAX_REQUEST_ITEMS",
        "items in one GetBatch or SetBatch, elements in one collection call";
    // A leaderboard of a million players fits; a runaway writer is stopped long
    // before one collection holds a worker for seconds.
    /// Most elements one collection (dictionary, list, set, sorted set) may hold.
    max_collection_elements: Option<usize> = default(1_000_000), "N", env "JIFFY_MAX_COLLECTION_ELEMENTS",
        "elements one dictionary, list, set or sorted set may hold; also the most source elements one SortedSetUnionStore reads (a source named twice counted twice)";
    // Unset, it follows a larger --max-value-size (`DEFAULT_MAX_RESPONSE_SIZE`).
    /// Largest answer the server builds; a larger one is refused before it is made.
    max_response_size: Option<ByteSize> = computed("5243000 bytes, or --max-value-size + 64 bytes if more"), "SIZE", env "JIFFY_MAX_RESPONSE_SIZE",
        "largest answer the server builds, a GetBatch's whole stream included: the official Momento SDKs' largest accepted message; at least `--max-value-size` + 64 bytes";
    /// How often the server pings an HTTP/2 connection to check it is alive.
    keepalive_interval: Option<Duration> = default(Duration::from_secs(60)), "DURATION", env "JIFFY_KEEPALIVE_INTERVAL",
        "how often the server pings a connection";
    /// How long a ping may go unanswered before the connection is closed.
    keepalive_timeout: Option<Duration> = default(Duration::from_secs(20)), "DURATION", env "JIFFY_KEEPALIVE_TIMEOUT",
        "unanswered ping after which it closes it";
    /// PEM certificate chain; with --tls-key, the listener speaks TLS.
    tls_cert: Option<PathBuf> = unset("none"), "FILE", env "JIFFY_TLS_CERT",
        "PEM certificate chain; with `--tls-key` the port speaks TLS";
    /// PEM private key for --tls-cert.
    tls_key: Option<PathBuf> = unset("none"), "FILE", env "JIFFY_TLS_KEY",
        "PEM private key";
    /// On SIGINT/SIGTERM, how long in-flight requests may take to finish.
    shutdown_timeout: Option<Duration> = default(Duration::from_secs(30)), "DURATION", env "JIFFY_SHUTDOWN_TIMEOUT",
        "on SIGINT/SIGTERM, how long in-flight requests may take";
    /// Runtime worker threads.
    workers: Option<usize> = computed("one per core"), "N", env "JIFFY_WORKERS",
        "runtime threads (a `taskset` mask counts)";
    /// Log filter, e.g. `info` or `jiffy_server=debug` (tracing EnvFilter syntax).
    log_level: Option<String> = default(String::from("info")), "FILTER", env "JIFFY_LOG",
        "`tracing` filter, e.g. `jiffy_server=debug`";
    /// Log line format.
    log_format: Option<LogFormat> = default(LogFormat::Text), "text\\|json", env "JIFFY_LOG_FORMAT",
        "log line format";
    /// File holding the secret that signs tokens (at least 32 bytes); auth is on when given.
    auth_secret_file: Option<PathBuf> = unset("none"), "FILE", env "JIFFY_AUTH_SECRET_FILE",
        "token secret (≥ 32 bytes); auth is on when given (see [Security](SECURITY.md))", global;
    // The official SDKs derive where to connect from the host a token names,
    // so it must be one clients reach; the listen address is what the server
    // knows of it, and a wildcard says nothing but the machine's name.
    /// The host minted tokens and `token create --format momento-v1` keys
    /// name: the official SDKs connect to cache.HOST, control.HOST and token.HOST.
    public_endpoint: Option<String> = computed("the --listen host: `localhost` if loopback, this machine's name if every interface"), "HOST", env "JIFFY_PUBLIC_ENDPOINT",
        "the host minted tokens and `token create --format momento-v1` keys name, from which the official SDKs derive `cache.HOST`, `control.HOST` and `token.HOST` (see [Auth](AUTH.md#the-endpoint)); unset, the `--listen` host: `localhost` for a loopback address, this machine's name for every interface", global;
    /// Serve without auth on a non-loopback address (anyone who reaches it can do anything).
    insecure_allow_anonymous: bool = unset("off"), "", env "JIFFY_INSECURE_ALLOW_ANONYMOUS",
        "serve without auth on a non-loopback `--listen`";
    /// Honour the momento-local fault headers (`return-error`, `delay-ms`, ...); for tests only.
    enable_fault_injection: bool = unset("off"), "", env "JIFFY_ENABLE_FAULT_INJECTION",
        "honour the fault headers of [Fault injection](OPERATIONS.md#fault-injection-for-tests) (tests only)";
    /// Where caches live: `embedded` (this process), `redis-cluster://host:port,...`
    /// (a Redis or Valkey Cluster) or `redis://host:port` (one node).
    store: Option<String> = default(String::from("embedded")), "URL", env "JIFFY_STORE",
        "where caches live: `embedded`, `redis-cluster://host:port,...` or `redis://host:port` (`rediss-cluster://`, `rediss://`: TLS; see [Scale-out](OPERATIONS.md#scale-out-over-a-redis-or-valkey-cluster))";
    // Long enough for a cluster call under load, short enough that a client with
    // the SDKs' default 5 s deadline still gets an answer and can retry.
    /// The longest a call waits for a Redis store; then it is answered UNAVAILABLE.
    store_timeout: Option<Duration> = default(Duration::from_secs(1)), "DURATION", env "JIFFY_STORE_TIMEOUT",
        "Redis stores: the longest a call waits for Redis; then UNAVAILABLE";
    // The topic defaults are explained beside them, in `topics`.
    /// Topic subscriptions open at once per cache, on this server.
    max_topic_subscriptions: Option<usize> = default(topics::DEFAULT_MAX_SUBSCRIPTIONS), "N", env "JIFFY_MAX_TOPIC_SUBSCRIPTIONS",
        "topic subscriptions open at once per cache, on this server (see [Topics](DATA-TYPES.md#topics))";
    /// Topic subscriptions open at once on all caches together, on this server.
    max_subscriptions: Option<usize> = default(topics::DEFAULT_MAX_SUBSCRIPTIONS_TOTAL), "N", env "JIFFY_MAX_SUBSCRIPTIONS",
        "topic subscriptions open at once on all caches together, on this server; each holds 4 KiB of `--max-in-flight-bytes` while open (20,000: 80 MiB)";
    /// Newest messages each topic keeps for subscribers that fall behind or resume.
    topic_buffer_messages: Option<usize> = default(topics::DEFAULT_BUFFER_MESSAGES), "N", env "JIFFY_TOPIC_BUFFER_MESSAGES",
        "newest messages each topic keeps for subscribers that fall behind or come back";
    /// Bytes of newest messages each topic keeps.
    topic_buffer_bytes: Option<ByteSize> = default(ByteSize::b(topics::DEFAULT_BUFFER_BYTES)), "SIZE", env "JIFFY_TOPIC_BUFFER_BYTES",
        "the same in bytes (each message: its value plus 128)";
    /// Largest value a topic message may carry.
    max_topic_message_size: Option<ByteSize> = default(ByteSize::b(topics::DEFAULT_MAX_MESSAGE_SIZE)), "SIZE", env "JIFFY_MAX_TOPIC_MESSAGE_SIZE",
        "largest value a Publish may carry";
    /// Bytes all topics' buffers may hold together; past it the least recently
    /// published topics' buffers are emptied first.
    max_topic_memory: Option<ByteSize> = default(ByteSize::b(topics::DEFAULT_MAX_MEMORY)), "SIZE", env "JIFFY_MAX_TOPIC_MEMORY",
        "bytes all topics hold together (their buffers, and 1 KiB plus its name for each topic), beside `--max-memory`; past it the least recently published topics' buffers are emptied first, and the topics left idle forgotten";
    /// Silence after which a topic subscription is sent a heartbeat.
    topic_heartbeat_interval: Option<Duration> = default(topics::DEFAULT_HEARTBEAT_INTERVAL), "DURATION", env "JIFFY_TOPIC_HEARTBEAT_INTERVAL",
        "silence after which a subscription is sent a heartbeat";
    // Webhooks (`crate::webhooks`, docs/WEBHOOKS.md).
    /// Where webhooks may POST beside loopback: address blocks, addresses
    /// and host names, comma-separated; `*` for anywhere.
    webhook_allow: Option<String> = unset("loopback only"), "LIST", env "JIFFY_WEBHOOK_ALLOW",
        "where webhooks may POST beside loopback: comma-separated address blocks (`10.0.0.0/8`), addresses and host names, or `*` for anywhere; checked when a webhook is put and at every connection ([WEBHOOKS.md](WEBHOOKS.md))";
    // Unlimited unless given: what a cache may use depends on the machine and
    // on who shares it, so no one rate fits every server; a shared server sets
    // them, and each cache's own in the config file (`[caches.NAME]`).
    /// Data-plane calls a second each cache may take (Publish and Subscribe
    /// included); unlimited when absent.
    cache_calls_per_second: Option<usize> = unset("unlimited"), "N", env "JIFFY_CACHE_CALLS_PER_SECOND",
        "calls a second each cache may take, on every port; over it LIMIT_EXCEEDED (see [Per-cache limits](LIMITS.md#per-cache-limits); a cache's own in the config file)";
    /// Bytes a second each cache may move (requests, and the values read
    /// back); unlimited when absent.
    cache_bytes_per_second: Option<ByteSize> = unset("unlimited"), "SIZE", env "JIFFY_CACHE_BYTES_PER_SECOND",
        "bytes a second each cache may move: each request, and the values it reads back";
    /// Publishes a second each cache may take; unlimited when absent.
    cache_publishes_per_second: Option<usize> = unset("unlimited"), "N", env "JIFFY_CACHE_PUBLISHES_PER_SECOND",
        "topic publishes a second each cache may take";
    /// Topic subscriptions each cache may hold open at once, on every
    /// front-end of the store together; unlimited when absent.
    cache_max_subscriptions: Option<usize> = unset("unlimited"), "N", env "JIFFY_CACHE_MAX_SUBSCRIPTIONS",
        "topic subscriptions each cache may hold open at once, counted across every front-end of a Redis store";
    /// Address of the test admin port (GET /block, /unblock, as
    /// momento-local's), in the forms of --listen; off when absent.
    admin_listen: Option<SocketAddr> = unset("off"), "HOST:PORT", env "JIFFY_ADMIN_LISTEN",
        "momento-local's test admin port: `GET /block` stalls every call until `GET /unblock` (see [The admin port](OPERATIONS.md#the-admin-port-for-tests)); loopback only unless `--insecure-allow-anonymous`";
}
