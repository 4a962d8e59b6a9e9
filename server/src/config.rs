//! Server configuration: command-line flags, environment variables and a TOML file.
//!
//! Every setting can be given three ways; the first one present wins:
//!
//! | flag                        | environment variable          | TOML key                 | default          |
//! |-----------------------------|-------------------------------|--------------------------|------------------|
//! | `--config FILE`             | `JIFFY_CONFIG`                | (none)                   | none             |
//! | `--listen HOST:PORT`        | `JIFFY_LISTEN`                | `listen`                 | 127.0.0.1:8080   |
//! | `--metrics-listen HOST:PORT`| `JIFFY_METRICS_LISTEN`        | `metrics-listen`         | off              |
//! | `--protosocket-listen HOST:PORT` | `JIFFY_PROTOSOCKET_LISTEN` | `protosocket-listen`   | off              |
//! | `--max-memory SIZE`         | `JIFFY_MAX_MEMORY`            | `max-memory`             | 1 GiB            |
//! | `--max-key-size SIZE`       | `JIFFY_MAX_KEY_SIZE`          | `max-key-size`           | 4 KiB            |
//! | `--max-value-size SIZE`     | `JIFFY_MAX_VALUE_SIZE`        | `max-value-size`         | 5 MiB            |
//! | `--max-request-size SIZE`   | `JIFFY_MAX_REQUEST_SIZE`      | `max-request-size`       | 5 MiB            |
//! | `--max-ttl DURATION`        | `JIFFY_MAX_TTL`               | `max-ttl`                | 7 days           |
//! | `--max-caches N`            | `JIFFY_MAX_CACHES`            | `max-caches`             | 100              |
//! | `--max-concurrent-streams N`| `JIFFY_MAX_CONCURRENT_STREAMS`| `max-concurrent-streams` | 100              |
//! | `--max-connections N`       | `JIFFY_MAX_CONNECTIONS`       | `max-connections`        | 16384            |
//! | `--handshake-timeout DUR`   | `JIFFY_HANDSHAKE_TIMEOUT`     | `handshake-timeout`      | 10s              |
//! | `--request-timeout DUR`     | `JIFFY_REQUEST_TIMEOUT`       | `request-timeout`        | 30s              |
//! | `--send-timeout DUR`        | `JIFFY_SEND_TIMEOUT`          | `send-timeout`           | 30s              |
//! | `--idle-timeout DUR`        | `JIFFY_IDLE_TIMEOUT`          | `idle-timeout`           | 5m               |
//! | `--max-in-flight-bytes SIZE`| `JIFFY_MAX_IN_FLIGHT_BYTES`   | `max-in-flight-bytes`    | 256 MiB          |
//! | `--max-header-list-size SIZE`| `JIFFY_MAX_HEADER_LIST_SIZE` | `max-header-list-size`   | 16 KiB           |
//! | `--max-request-items N`     | `JIFFY_MAX_REQUEST_ITEMS`     | `max-request-items`      | 10000            |
//! | `--max-collection-elements N`| `JIFFY_MAX_COLLECTION_ELEMENTS` | `max-collection-elements` | 1000000   |
//! | `--max-response-size SIZE`  | `JIFFY_MAX_RESPONSE_SIZE`     | `max-response-size`      | 5243000 bytes    |
//! | `--keepalive-interval DUR`  | `JIFFY_KEEPALIVE_INTERVAL`    | `keepalive-interval`     | 60s              |
//! | `--keepalive-timeout DUR`   | `JIFFY_KEEPALIVE_TIMEOUT`     | `keepalive-timeout`      | 20s              |
//! | `--tls-cert FILE`           | `JIFFY_TLS_CERT`              | `tls-cert`               | none (plaintext) |
//! | `--tls-key FILE`            | `JIFFY_TLS_KEY`               | `tls-key`                | none (plaintext) |
//! | `--shutdown-timeout DUR`    | `JIFFY_SHUTDOWN_TIMEOUT`      | `shutdown-timeout`       | 30s              |
//! | `--workers N`               | `JIFFY_WORKERS`               | `workers`                | number of cores  |
//! | `--log-level FILTER`        | `JIFFY_LOG`                   | `log-level`              | info             |
//! | `--log-format text\|json`   | `JIFFY_LOG_FORMAT`            | `log-format`             | text             |
//! | `--auth-secret-file FILE`   | `JIFFY_AUTH_SECRET_FILE`      | `auth-secret-file`       | none (no auth)   |
//! | `--insecure-allow-anonymous`| `JIFFY_INSECURE_ALLOW_ANONYMOUS` | `insecure-allow-anonymous` | off        |
//! | `--enable-fault-injection`  | `JIFFY_ENABLE_FAULT_INJECTION`| `enable-fault-injection` | off              |
//! | `--store URL`               | `JIFFY_STORE`                 | `store`                  | embedded         |
//! | `--store-timeout DURATION`  | `JIFFY_STORE_TIMEOUT`         | `store-timeout`          | 1s               |
//! | `--max-topic-subscriptions N` | `JIFFY_MAX_TOPIC_SUBSCRIPTIONS` | `max-topic-subscriptions` | 10000      |
//! | `--max-subscriptions N`     | `JIFFY_MAX_SUBSCRIPTIONS`     | `max-subscriptions`      | 20000            |
//! | `--topic-buffer-messages N` | `JIFFY_TOPIC_BUFFER_MESSAGES` | `topic-buffer-messages`  | 1000             |
//! | `--topic-buffer-bytes SIZE` | `JIFFY_TOPIC_BUFFER_BYTES`    | `topic-buffer-bytes`     | 1 MiB            |
//! | `--max-topic-message-size SIZE` | `JIFFY_MAX_TOPIC_MESSAGE_SIZE` | `max-topic-message-size` | 100 KiB |
//! | `--max-topic-memory SIZE`   | `JIFFY_MAX_TOPIC_MEMORY`      | `max-topic-memory`       | 64 MiB           |
//! | `--topic-heartbeat-interval DUR` | `JIFFY_TOPIC_HEARTBEAT_INTERVAL` | `topic-heartbeat-interval` | 1s  |
//!
//! Sizes take units (`64MiB`, `512KiB`, `1GB`); durations take humantime forms
//! (`500ms`, `30s`, `7days`).
//!
//! Without `--auth-secret-file` every call is allowed, so the server refuses
//! to listen on anything but loopback unless `--insecure-allow-anonymous`
//! says so. The metrics listener is not part of that rule: it serves counts
//! only (no cache names, keys or values) and takes no token either way.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytesize::ByteSize;
use clap::builder::BoolishValueParser;
use clap::{ArgAction, Parser, Subcommand, ValueEnum};
use serde::Deserialize;

use crate::auth::token::TokenCommand;
use crate::auth::Secret;
use crate::backend::redis::Target;
use crate::limits::Limits;
use crate::topics::{self, TopicSettings};

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_MAX_MEMORY: u64 = 1 << 30;
pub const DEFAULT_MAX_KEY_SIZE: u64 = 4 << 10;
/// The item size limit of the Momento service, so code moves between the two unchanged.
pub const DEFAULT_MAX_VALUE_SIZE: u64 = 5 << 20;
/// The request limit of the Momento service, so the SDKs see the same
/// error for the same request: a Set of 5.3 MB is over the request limit
/// (its value alone would be over the item limit too, but the request is
/// refused first, as the service does).
pub const DEFAULT_MAX_REQUEST_SIZE: u64 = 5 << 20;
/// What a request must hold beyond its largest key, for any call to fit.
const MIN_REQUEST_ROOM: usize = 1 << 10;
pub const DEFAULT_MAX_TTL: Duration = Duration::from_secs(7 * 24 * 3600);
pub const DEFAULT_MAX_CACHES: usize = 100;
/// What the Momento service allows; the SDKs' pool sizes assume it.
pub const DEFAULT_MAX_CONCURRENT_STREAMS: u32 = 100;
/// Room for the 10,000 idle connections the tests hold and then some; the
/// descriptor limit is raised to fit at start (`bin/server.rs`).
pub const DEFAULT_MAX_CONNECTIONS: usize = 16_384;
/// Ample for TLS and the preface over a slow network; short enough that
/// silent sockets do not pile up.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Longer than any client deadline the SDKs set by default.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(30);
/// A protosocket client idle this long holds a place under the connection
/// cap for nothing; the official client reconnects on its next command.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// Fifty answers of the largest value at once; far above normal use, far
/// below what exhausts a machine.
pub const DEFAULT_MAX_IN_FLIGHT_BYTES: u64 = 256 << 20;
/// hyper's default: room for a token, the SDK's agent headers and more.
pub const DEFAULT_MAX_HEADER_LIST_SIZE: u64 = 16 << 10;
pub const DEFAULT_MAX_REQUEST_ITEMS: usize = 10_000;
/// A leaderboard of a million players fits; a runaway writer is stopped
/// long before one collection holds a worker for seconds.
pub const DEFAULT_MAX_COLLECTION_ELEMENTS: usize = 1_000_000;
/// The largest message the official Momento SDKs accept (their
/// `DEFAULT_MAX_MESSAGE_SIZE`, 5,243,000 bytes in the Java, Go, Python and
/// .NET SDKs: the item limit of 5 MiB plus room for the framing): a larger
/// answer is one they would refuse after the server built and sent it.
/// Our own SDKs accept 64 MiB, but answer what every client can read.
pub const DEFAULT_MAX_RESPONSE_SIZE: u64 = 5_243_000;
/// What an answer of one value carries besides it (tags, lengths, a
/// result code: 7 bytes for a Get of 5 MiB, 22 for a DictionaryGet of one
/// field): `--max-response-size` is at least `--max-value-size` plus this,
/// so any value stored can be read back. The official SDKs' 5,243,000 is
/// 5 MiB plus 120.
const MIN_RESPONSE_ROOM: u64 = 64;
pub const DEFAULT_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(60);
pub const DEFAULT_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);
pub const DEFAULT_LOG_LEVEL: &str = "info";
/// Long enough for a cluster call under load, short enough that a client
/// with the SDKs' default 5 s deadline still gets an answer and can retry.
pub const DEFAULT_STORE_TIMEOUT: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// The settings as given: each one is optional until the sources are merged.
#[derive(Parser, Deserialize, Debug, Default)]
#[command(name = "jiffy-server", version, about)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Settings {
    /// TOML file with any of the settings below (keys as the flag names).
    #[arg(long, env = "JIFFY_CONFIG", global = true)]
    #[serde(skip)]
    pub config: Option<PathBuf>,
    /// Address of the gRPC listener (IP:PORT, localhost:PORT, or :PORT for
    /// every interface); port 0 picks a free port.
    #[arg(long, env = "JIFFY_LISTEN", value_parser = parse_listen)]
    #[serde(default, deserialize_with = "deserialize_listen")]
    pub listen: Option<SocketAddr>,
    /// Address of the Prometheus endpoint (GET /metrics, /healthz, /readyz),
    /// in the forms of --listen; off when absent.
    #[arg(long, env = "JIFFY_METRICS_LISTEN", value_parser = parse_listen)]
    #[serde(default, deserialize_with = "deserialize_listen")]
    pub metrics_listen: Option<SocketAddr>,
    /// Address of the protosocket port (Momento's protosocket protocol:
    /// Get, Set, Delete), in the forms of --listen; off when absent.
    #[arg(long, env = "JIFFY_PROTOSOCKET_LISTEN", value_parser = parse_listen)]
    #[serde(default, deserialize_with = "deserialize_listen")]
    pub protosocket_listen: Option<SocketAddr>,
    /// Memory for items (keys, values and per-item overhead); past it the store evicts.
    #[arg(long, env = "JIFFY_MAX_MEMORY")]
    pub max_memory: Option<ByteSize>,
    /// Largest key accepted.
    #[arg(long, env = "JIFFY_MAX_KEY_SIZE")]
    pub max_key_size: Option<ByteSize>,
    /// Largest value accepted.
    #[arg(long, env = "JIFFY_MAX_VALUE_SIZE")]
    pub max_value_size: Option<ByteSize>,
    /// Largest encoded request message accepted (batches included).
    #[arg(long, env = "JIFFY_MAX_REQUEST_SIZE")]
    pub max_request_size: Option<ByteSize>,
    /// Longest TTL accepted.
    #[arg(long, env = "JIFFY_MAX_TTL", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub max_ttl: Option<Duration>,
    /// Most caches the server holds at once.
    #[arg(long, env = "JIFFY_MAX_CACHES")]
    pub max_caches: Option<usize>,
    /// HTTP/2 streams (requests in flight) allowed per connection.
    #[arg(long, env = "JIFFY_MAX_CONCURRENT_STREAMS")]
    pub max_concurrent_streams: Option<u32>,
    /// Most client connections open at once; at the cap a new one replaces the
    /// oldest still in its handshake, or is closed.
    #[arg(long, env = "JIFFY_MAX_CONNECTIONS")]
    pub max_connections: Option<usize>,
    /// How long a new connection has to finish TLS and start the HTTP/2 preface.
    #[arg(long, env = "JIFFY_HANDSHAKE_TIMEOUT", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub handshake_timeout: Option<Duration>,
    /// How long a request body may take to arrive; then DEADLINE_EXCEEDED.
    #[arg(long, env = "JIFFY_REQUEST_TIMEOUT", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub request_timeout: Option<Duration>,
    /// A connection whose waiting answers make no progress for this long is closed.
    #[arg(long, env = "JIFFY_SEND_TIMEOUT", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub send_timeout: Option<Duration>,
    /// A protosocket connection with no command read or running for this
    /// long is closed (gRPC connections are kept, and pinged).
    #[arg(long, env = "JIFFY_IDLE_TIMEOUT", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub idle_timeout: Option<Duration>,
    /// Bytes of requests being received and answers not yet sent, server-wide;
    /// past it new calls answer RESOURCE_EXHAUSTED.
    #[arg(long, env = "JIFFY_MAX_IN_FLIGHT_BYTES")]
    pub max_in_flight_bytes: Option<ByteSize>,
    /// Largest HTTP/2 header list (all of a request's headers) accepted.
    #[arg(long, env = "JIFFY_MAX_HEADER_LIST_SIZE")]
    pub max_header_list_size: Option<ByteSize>,
    /// Most items in one GetBatch or SetBatch, or elements in one collection call.
    #[arg(long, env = "JIFFY_MAX_REQUEST_ITEMS")]
    pub max_request_items: Option<usize>,
    /// Most elements one collection (dictionary, list, set, sorted set) may hold.
    #[arg(long, env = "JIFFY_MAX_COLLECTION_ELEMENTS")]
    pub max_collection_elements: Option<usize>,
    /// Largest answer the server builds; a larger one is refused before it is made.
    #[arg(long, env = "JIFFY_MAX_RESPONSE_SIZE")]
    pub max_response_size: Option<ByteSize>,
    /// How often the server pings an HTTP/2 connection to check it is alive.
    #[arg(long, env = "JIFFY_KEEPALIVE_INTERVAL", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub keepalive_interval: Option<Duration>,
    /// How long a ping may go unanswered before the connection is closed.
    #[arg(long, env = "JIFFY_KEEPALIVE_TIMEOUT", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub keepalive_timeout: Option<Duration>,
    /// PEM certificate chain; with --tls-key, the listener speaks TLS.
    #[arg(long, env = "JIFFY_TLS_CERT")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key for --tls-cert.
    #[arg(long, env = "JIFFY_TLS_KEY")]
    pub tls_key: Option<PathBuf>,
    /// On SIGINT/SIGTERM, how long in-flight requests may take to finish.
    #[arg(long, env = "JIFFY_SHUTDOWN_TIMEOUT", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub shutdown_timeout: Option<Duration>,
    /// Runtime worker threads.
    #[arg(long, env = "JIFFY_WORKERS")]
    pub workers: Option<usize>,
    /// Log filter, e.g. `info` or `jiffy_server=debug` (tracing EnvFilter syntax).
    #[arg(long, env = "JIFFY_LOG")]
    pub log_level: Option<String>,
    /// Log line format.
    #[arg(long, env = "JIFFY_LOG_FORMAT")]
    pub log_format: Option<LogFormat>,
    /// File holding the secret that signs tokens (at least 32 bytes); auth is on when given.
    #[arg(long, env = "JIFFY_AUTH_SECRET_FILE", global = true)]
    pub auth_secret_file: Option<PathBuf>,
    /// Serve without auth on a non-loopback address (anyone who reaches it can do anything).
    #[arg(long, env = "JIFFY_INSECURE_ALLOW_ANONYMOUS", action = ArgAction::SetTrue,
          value_parser = BoolishValueParser::new())]
    #[serde(default)]
    pub insecure_allow_anonymous: bool,
    /// Honour the momento-local fault headers (`return-error`, `delay-ms`, ...); for tests only.
    #[arg(long, env = "JIFFY_ENABLE_FAULT_INJECTION", action = ArgAction::SetTrue,
          value_parser = BoolishValueParser::new())]
    #[serde(default)]
    pub enable_fault_injection: bool,
    /// Where caches live: `embedded` (this process), `redis-cluster://host:port,...`
    /// (a Redis or Valkey Cluster) or `redis://host:port` (one node).
    #[arg(long, env = "JIFFY_STORE")]
    pub store: Option<String>,
    /// The longest a call waits for a Redis store; then it is answered UNAVAILABLE.
    #[arg(long, env = "JIFFY_STORE_TIMEOUT", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub store_timeout: Option<Duration>,
    /// Topic subscriptions open at once per cache, on this server.
    #[arg(long, env = "JIFFY_MAX_TOPIC_SUBSCRIPTIONS")]
    pub max_topic_subscriptions: Option<usize>,
    /// Topic subscriptions open at once on all caches together, on this server.
    #[arg(long, env = "JIFFY_MAX_SUBSCRIPTIONS")]
    pub max_subscriptions: Option<usize>,
    /// Newest messages each topic keeps for subscribers that fall behind or resume.
    #[arg(long, env = "JIFFY_TOPIC_BUFFER_MESSAGES")]
    pub topic_buffer_messages: Option<usize>,
    /// Bytes of newest messages each topic keeps.
    #[arg(long, env = "JIFFY_TOPIC_BUFFER_BYTES")]
    pub topic_buffer_bytes: Option<ByteSize>,
    /// Largest value a topic message may carry.
    #[arg(long, env = "JIFFY_MAX_TOPIC_MESSAGE_SIZE")]
    pub max_topic_message_size: Option<ByteSize>,
    /// Bytes all topics' buffers may hold together; past it the least recently
    /// published topics' buffers are emptied first.
    #[arg(long, env = "JIFFY_MAX_TOPIC_MEMORY")]
    pub max_topic_memory: Option<ByteSize>,
    /// Silence after which a topic subscription is sent a heartbeat.
    #[arg(long, env = "JIFFY_TOPIC_HEARTBEAT_INTERVAL", value_parser = humantime::parse_duration)]
    #[serde(default, with = "humantime_serde")]
    pub topic_heartbeat_interval: Option<Duration>,
}

/// A listen address: `IP:PORT`, `[IPv6]:PORT`, `localhost:PORT` (the IPv4
/// loopback, without asking a resolver) or `:PORT` (every IPv4 interface).
/// Host names other than localhost are refused: a listener binds an
/// address, and a name can stand for several.
pub fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    let (host, port) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("`{text}` is not HOST:PORT (e.g. 127.0.0.1:8080 or :8080)"))?;
    let port: u16 = port
        .parse()
        .map_err(|_| format!("`{port}` in `{text}` is not a port number (0 to 65535)"))?;
    let ip = match host {
        "" => std::net::Ipv4Addr::UNSPECIFIED.into(),
        "localhost" => std::net::Ipv4Addr::LOCALHOST.into(),
        host => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|_| {
                format!("`{host}` in `{text}` is not an IP address, `localhost`, or empty (every interface)")
            })?,
    };
    Ok(SocketAddr::new(ip, port))
}

fn deserialize_listen<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<SocketAddr>, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse_listen(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// The defaults `--help` shows, from the constants [`Settings::resolve`]
/// uses: clap's own `default_value` would shadow the TOML file, which only
/// fills what flags and environment leave unset.
fn help_defaults() -> Vec<(&'static str, String)> {
    let size = |bytes: u64| ByteSize::b(bytes).display().iec().to_string();
    let time = |duration: Duration| humantime::format_duration(duration).to_string();
    vec![
        ("listen", DEFAULT_LISTEN.to_owned()),
        ("max_memory", size(DEFAULT_MAX_MEMORY)),
        ("max_key_size", size(DEFAULT_MAX_KEY_SIZE)),
        ("max_value_size", size(DEFAULT_MAX_VALUE_SIZE)),
        ("max_request_size", size(DEFAULT_MAX_REQUEST_SIZE)),
        ("max_ttl", time(DEFAULT_MAX_TTL)),
        ("max_caches", DEFAULT_MAX_CACHES.to_string()),
        (
            "max_concurrent_streams",
            DEFAULT_MAX_CONCURRENT_STREAMS.to_string(),
        ),
        ("max_connections", DEFAULT_MAX_CONNECTIONS.to_string()),
        ("handshake_timeout", time(DEFAULT_HANDSHAKE_TIMEOUT)),
        ("request_timeout", time(DEFAULT_REQUEST_TIMEOUT)),
        ("send_timeout", time(DEFAULT_SEND_TIMEOUT)),
        ("idle_timeout", time(DEFAULT_IDLE_TIMEOUT)),
        ("max_in_flight_bytes", size(DEFAULT_MAX_IN_FLIGHT_BYTES)),
        ("max_header_list_size", size(DEFAULT_MAX_HEADER_LIST_SIZE)),
        ("max_request_items", DEFAULT_MAX_REQUEST_ITEMS.to_string()),
        (
            "max_collection_elements",
            DEFAULT_MAX_COLLECTION_ELEMENTS.to_string(),
        ),
        // In bytes: "5.0 MiB" would hide the 120 bytes over 5 MiB.
        (
            "max_response_size",
            format!("{DEFAULT_MAX_RESPONSE_SIZE} bytes, or --max-value-size + 64 bytes if more"),
        ),
        ("keepalive_interval", time(DEFAULT_KEEPALIVE_INTERVAL)),
        ("keepalive_timeout", time(DEFAULT_KEEPALIVE_TIMEOUT)),
        ("shutdown_timeout", time(DEFAULT_SHUTDOWN_TIMEOUT)),
        ("log_level", DEFAULT_LOG_LEVEL.to_owned()),
        ("store_timeout", time(DEFAULT_STORE_TIMEOUT)),
        ("store", "embedded".to_owned()),
        (
            "max_topic_subscriptions",
            topics::DEFAULT_MAX_SUBSCRIPTIONS.to_string(),
        ),
        (
            "max_subscriptions",
            topics::DEFAULT_MAX_SUBSCRIPTIONS_TOTAL.to_string(),
        ),
        (
            "topic_buffer_messages",
            topics::DEFAULT_BUFFER_MESSAGES.to_string(),
        ),
        ("topic_buffer_bytes", size(topics::DEFAULT_BUFFER_BYTES)),
        (
            "max_topic_message_size",
            size(topics::DEFAULT_MAX_MESSAGE_SIZE),
        ),
        ("max_topic_memory", size(topics::DEFAULT_MAX_MEMORY)),
        (
            "topic_heartbeat_interval",
            time(topics::DEFAULT_HEARTBEAT_INTERVAL),
        ),
        ("workers", "one per core".to_owned()),
    ]
}

impl Cli {
    /// The command line, with each setting's default in `--help`.
    pub fn command_with_defaults() -> clap::Command {
        use clap::CommandFactory;
        let mut command = Cli::command();
        for (id, default) in help_defaults() {
            command = command.mut_arg(id, |arg| {
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                arg.help(format!("{help} [default: {default}]"))
            });
        }
        command
    }

    /// Parses the process's command line (exits with usage on bad flags).
    pub fn parse_with_defaults() -> Cli {
        use clap::FromArgMatches;
        let matches = Cli::command_with_defaults().get_matches();
        Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit())
    }
}

/// The command line: the server's settings, or a subcommand.
#[derive(Parser, Debug)]
#[command(name = "jiffy-server", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub settings: Settings,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Tokens for clients, signed with the server secret.
    #[command(subcommand)]
    Token(TokenCommand),
}

/// Paths of the TLS certificate chain and key, both PEM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// Where the caches live.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum StoreChoice {
    /// In this process's memory, bounded by `--max-memory`.
    #[default]
    Embedded,
    /// In Redis; this process keeps nothing.
    Redis(Target),
}

impl StoreChoice {
    pub fn parse(value: &str) -> Result<StoreChoice, ConfigError> {
        if value == "embedded" {
            return Ok(StoreChoice::Embedded);
        }
        Target::parse(value)
            .map(StoreChoice::Redis)
            .map_err(|message| ConfigError::Invalid(format!("--store: {message}")))
    }
}

/// The resolved configuration: every setting has its value.
#[derive(Clone, Debug)]
pub struct Config {
    pub listen: SocketAddr,
    pub metrics_listen: Option<SocketAddr>,
    /// The protosocket port; off when `None`.
    pub protosocket_listen: Option<SocketAddr>,
    pub max_memory: u64,
    pub max_caches: usize,
    pub limits: Limits,
    pub max_concurrent_streams: u32,
    pub max_connections: usize,
    /// Whether `--max-connections` was given: a default that does not fit
    /// the descriptor limit is lowered to fit; a given one is an error.
    pub max_connections_given: bool,
    pub handshake_timeout: Duration,
    pub request_timeout: Duration,
    pub send_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_in_flight_bytes: u64,
    pub max_header_list_size: u64,
    pub keepalive_interval: Duration,
    pub keepalive_timeout: Duration,
    pub tls: Option<TlsFiles>,
    pub shutdown_timeout: Duration,
    pub workers: usize,
    pub log_level: String,
    pub log_format: LogFormat,
    /// The token secret; auth is on when present.
    pub auth: Option<Secret>,
    pub insecure_allow_anonymous: bool,
    pub fault_injection: bool,
    pub store: StoreChoice,
    pub store_timeout: Duration,
    pub topics: TopicSettings,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid config file {path}: {source}")]
    Parse {
        path: PathBuf,
        source: Box<toml::de::Error>,
    },
    #[error("{0}")]
    Invalid(String),
}

impl Settings {
    /// Flags and environment first, then the TOML file named by `--config`.
    pub fn load() -> Result<Config, ConfigError> {
        Settings::parse().with_file()?.resolve()
    }

    /// These settings, completed by the TOML file named by `--config`.
    pub fn with_file(self) -> Result<Settings, ConfigError> {
        let file = match &self.config {
            Some(path) => Settings::from_file(path)?,
            None => Settings::default(),
        };
        Ok(self.or(file))
    }

    pub fn from_file(path: &Path) -> Result<Settings, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|source| ConfigError::Parse {
            path: path.to_owned(),
            source: Box::new(source),
        })
    }

    /// Each setting of `self`, or else of `fallback`.
    pub fn or(self, fallback: Settings) -> Settings {
        Settings {
            config: self.config.or(fallback.config),
            listen: self.listen.or(fallback.listen),
            metrics_listen: self.metrics_listen.or(fallback.metrics_listen),
            protosocket_listen: self.protosocket_listen.or(fallback.protosocket_listen),
            max_memory: self.max_memory.or(fallback.max_memory),
            max_key_size: self.max_key_size.or(fallback.max_key_size),
            max_value_size: self.max_value_size.or(fallback.max_value_size),
            max_request_size: self.max_request_size.or(fallback.max_request_size),
            max_ttl: self.max_ttl.or(fallback.max_ttl),
            max_caches: self.max_caches.or(fallback.max_caches),
            max_concurrent_streams: self
                .max_concurrent_streams
                .or(fallback.max_concurrent_streams),
            max_connections: self.max_connections.or(fallback.max_connections),
            handshake_timeout: self.handshake_timeout.or(fallback.handshake_timeout),
            request_timeout: self.request_timeout.or(fallback.request_timeout),
            send_timeout: self.send_timeout.or(fallback.send_timeout),
            idle_timeout: self.idle_timeout.or(fallback.idle_timeout),
            max_in_flight_bytes: self.max_in_flight_bytes.or(fallback.max_in_flight_bytes),
            max_header_list_size: self.max_header_list_size.or(fallback.max_header_list_size),
            max_request_items: self.max_request_items.or(fallback.max_request_items),
            max_collection_elements: self
                .max_collection_elements
                .or(fallback.max_collection_elements),
            max_response_size: self.max_response_size.or(fallback.max_response_size),
            keepalive_interval: self.keepalive_interval.or(fallback.keepalive_interval),
            keepalive_timeout: self.keepalive_timeout.or(fallback.keepalive_timeout),
            tls_cert: self.tls_cert.or(fallback.tls_cert),
            tls_key: self.tls_key.or(fallback.tls_key),
            shutdown_timeout: self.shutdown_timeout.or(fallback.shutdown_timeout),
            workers: self.workers.or(fallback.workers),
            log_level: self.log_level.or(fallback.log_level),
            log_format: self.log_format.or(fallback.log_format),
            auth_secret_file: self.auth_secret_file.or(fallback.auth_secret_file),
            insecure_allow_anonymous: self.insecure_allow_anonymous
                || fallback.insecure_allow_anonymous,
            enable_fault_injection: self.enable_fault_injection || fallback.enable_fault_injection,
            store: self.store.or(fallback.store),
            store_timeout: self.store_timeout.or(fallback.store_timeout),
            max_topic_subscriptions: self
                .max_topic_subscriptions
                .or(fallback.max_topic_subscriptions),
            max_subscriptions: self.max_subscriptions.or(fallback.max_subscriptions),
            topic_buffer_messages: self
                .topic_buffer_messages
                .or(fallback.topic_buffer_messages),
            topic_buffer_bytes: self.topic_buffer_bytes.or(fallback.topic_buffer_bytes),
            max_topic_message_size: self
                .max_topic_message_size
                .or(fallback.max_topic_message_size),
            max_topic_memory: self.max_topic_memory.or(fallback.max_topic_memory),
            topic_heartbeat_interval: self
                .topic_heartbeat_interval
                .or(fallback.topic_heartbeat_interval),
        }
    }

    /// Fills in the defaults and checks that the settings fit together.
    pub fn resolve(self) -> Result<Config, ConfigError> {
        let size = |value: Option<ByteSize>, default: u64| value.map_or(default, |v| v.as_u64());
        let limits = Limits {
            max_key_size: size(self.max_key_size, DEFAULT_MAX_KEY_SIZE) as usize,
            max_value_size: size(self.max_value_size, DEFAULT_MAX_VALUE_SIZE) as usize,
            max_request_size: size(self.max_request_size, DEFAULT_MAX_REQUEST_SIZE) as usize,
            max_ttl: self.max_ttl.unwrap_or(DEFAULT_MAX_TTL),
            max_request_items: self.max_request_items.unwrap_or(DEFAULT_MAX_REQUEST_ITEMS),
            max_collection_elements: self
                .max_collection_elements
                .unwrap_or(DEFAULT_MAX_COLLECTION_ELEMENTS),
            // Unset, it follows a larger --max-value-size, so a value stored
            // can always be read back.
            max_response_size: size(
                self.max_response_size,
                DEFAULT_MAX_RESPONSE_SIZE
                    .max(size(self.max_value_size, DEFAULT_MAX_VALUE_SIZE) + MIN_RESPONSE_ROOM),
            ) as usize,
        };
        let tls = match (self.tls_cert, self.tls_key) {
            (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
            (None, None) => None,
            _ => return invalid("--tls-cert and --tls-key go together: give both or neither"),
        };
        let auth = match &self.auth_secret_file {
            Some(path) => Some(Secret::read(path).map_err(ConfigError::Invalid)?),
            None => None,
        };
        let store = match &self.store {
            Some(value) => StoreChoice::parse(value)?,
            None => StoreChoice::Embedded,
        };
        let topics = TopicSettings {
            max_subscriptions: self
                .max_topic_subscriptions
                .unwrap_or(topics::DEFAULT_MAX_SUBSCRIPTIONS),
            max_subscriptions_total: self
                .max_subscriptions
                .unwrap_or(topics::DEFAULT_MAX_SUBSCRIPTIONS_TOTAL),
            buffer_messages: self
                .topic_buffer_messages
                .unwrap_or(topics::DEFAULT_BUFFER_MESSAGES),
            buffer_bytes: size(self.topic_buffer_bytes, topics::DEFAULT_BUFFER_BYTES) as usize,
            max_message_size: size(
                self.max_topic_message_size,
                topics::DEFAULT_MAX_MESSAGE_SIZE,
            ) as usize,
            max_memory: size(self.max_topic_memory, topics::DEFAULT_MAX_MEMORY) as usize,
            heartbeat_interval: self
                .topic_heartbeat_interval
                .unwrap_or(topics::DEFAULT_HEARTBEAT_INTERVAL),
        };
        let config = Config {
            listen: self
                .listen
                .unwrap_or_else(|| DEFAULT_LISTEN.parse().expect("valid default address")),
            metrics_listen: self.metrics_listen,
            protosocket_listen: self.protosocket_listen,
            max_memory: size(self.max_memory, DEFAULT_MAX_MEMORY),
            max_caches: self.max_caches.unwrap_or(DEFAULT_MAX_CACHES),
            limits,
            max_concurrent_streams: self
                .max_concurrent_streams
                .unwrap_or(DEFAULT_MAX_CONCURRENT_STREAMS),
            max_connections: self.max_connections.unwrap_or(DEFAULT_MAX_CONNECTIONS),
            max_connections_given: self.max_connections.is_some(),
            handshake_timeout: self.handshake_timeout.unwrap_or(DEFAULT_HANDSHAKE_TIMEOUT),
            request_timeout: self.request_timeout.unwrap_or(DEFAULT_REQUEST_TIMEOUT),
            send_timeout: self.send_timeout.unwrap_or(DEFAULT_SEND_TIMEOUT),
            idle_timeout: self.idle_timeout.unwrap_or(DEFAULT_IDLE_TIMEOUT),
            max_in_flight_bytes: size(self.max_in_flight_bytes, DEFAULT_MAX_IN_FLIGHT_BYTES),
            max_header_list_size: size(self.max_header_list_size, DEFAULT_MAX_HEADER_LIST_SIZE),
            keepalive_interval: self
                .keepalive_interval
                .unwrap_or(DEFAULT_KEEPALIVE_INTERVAL),
            keepalive_timeout: self.keepalive_timeout.unwrap_or(DEFAULT_KEEPALIVE_TIMEOUT),
            tls,
            shutdown_timeout: self.shutdown_timeout.unwrap_or(DEFAULT_SHUTDOWN_TIMEOUT),
            workers: self
                .workers
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            log_level: self
                .log_level
                .unwrap_or_else(|| DEFAULT_LOG_LEVEL.to_owned()),
            log_format: self.log_format.unwrap_or_default(),
            auth,
            insecure_allow_anonymous: self.insecure_allow_anonymous,
            fault_injection: self.enable_fault_injection,
            store,
            store_timeout: self.store_timeout.unwrap_or(DEFAULT_STORE_TIMEOUT),
            topics,
        };
        config.check()?;
        Ok(config)
    }
}

impl Config {
    fn check(&self) -> Result<(), ConfigError> {
        let limits = &self.limits;
        if limits.max_response_size < limits.max_value_size + MIN_RESPONSE_ROOM as usize {
            return invalid(&format!(
                "--max-response-size must be at least --max-value-size plus {MIN_RESPONSE_ROOM} bytes, so a value stored can be read back"
            ));
        }
        if limits.max_key_size == 0 || limits.max_value_size == 0 {
            return invalid("--max-key-size and --max-value-size must be above zero");
        }
        if limits.max_request_size < limits.max_key_size + MIN_REQUEST_ROOM {
            return invalid("--max-request-size must hold at least one largest key and 1 KiB more");
        }
        // An item may not take more than half the memory, or storing it would
        // evict everything else, and then itself.
        if self.max_memory < 2 * (limits.max_key_size + limits.max_value_size) as u64 {
            return invalid(
                "--max-memory must be at least twice --max-key-size plus --max-value-size",
            );
        }
        if limits.max_ttl.is_zero() {
            return invalid("--max-ttl must be above zero");
        }
        if self.max_caches == 0 || self.max_concurrent_streams == 0 || self.workers == 0 {
            return invalid(
                "--max-caches, --max-concurrent-streams and --workers must be above zero",
            );
        }
        if self.store_timeout.is_zero() {
            return invalid("--store-timeout must be above zero");
        }
        self.topics.check().map_err(ConfigError::Invalid)?;
        if self.max_connections == 0
            || limits.max_request_items == 0
            || limits.max_collection_elements == 0
        {
            return invalid(
                "--max-connections, --max-request-items and --max-collection-elements must be above zero",
            );
        }
        if [
            self.handshake_timeout,
            self.request_timeout,
            self.send_timeout,
            self.idle_timeout,
        ]
        .iter()
        .any(Duration::is_zero)
        {
            return invalid(
                "--handshake-timeout, --request-timeout, --send-timeout and --idle-timeout must be above zero",
            );
        }
        if self.max_in_flight_bytes < limits.max_request_size as u64 {
            return invalid("--max-in-flight-bytes must hold at least one --max-request-size");
        }
        if !(1024..=u32::MAX as u64).contains(&self.max_header_list_size) {
            return invalid("--max-header-list-size must be between 1 KiB and 4 GiB");
        }
        if self.auth.is_none() && !self.insecure_allow_anonymous && !is_loopback(self.listen) {
            return Err(ConfigError::Invalid(format!(
                "--listen {} is not a loopback address and no --auth-secret-file is set, so \
                 anyone who reaches it could read and change every cache; give \
                 --auth-secret-file (see `jiffy-server token create`), or \
                 --insecure-allow-anonymous to serve without auth anyway",
                self.listen
            )));
        }
        if let Some(address) = self.protosocket_listen {
            if self.auth.is_none() && !self.insecure_allow_anonymous && !is_loopback(address) {
                return Err(ConfigError::Invalid(format!(
                    "--protosocket-listen {address} is not a loopback address and no \
                     --auth-secret-file is set; give --auth-secret-file, or \
                     --insecure-allow-anonymous to serve without auth anyway"
                )));
            }
        }
        Ok(())
    }

    /// The defaults, as a server started with no settings would use them.
    pub fn defaults() -> Config {
        Settings::default()
            .resolve()
            .expect("the defaults are valid")
    }
}

/// 127.0.0.0/8 and ::1, also when written as an IPv4-mapped IPv6 address.
fn is_loopback(address: SocketAddr) -> bool {
    address.ip().to_canonical().is_loopback()
}

fn invalid<T>(message: &str) -> Result<T, ConfigError> {
    Err(ConfigError::Invalid(message.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Settings {
        Settings::try_parse_from(std::iter::once("jiffy-server").chain(args.iter().copied()))
            .unwrap()
    }

    #[test]
    fn listen_takes_ip_localhost_and_port_alone() {
        let parse = |text: &str| parse_listen(text).map(|addr| addr.to_string());
        assert_eq!(parse("127.0.0.1:8080").unwrap(), "127.0.0.1:8080");
        assert_eq!(parse("localhost:9000").unwrap(), "127.0.0.1:9000");
        assert_eq!(parse(":8080").unwrap(), "0.0.0.0:8080");
        assert_eq!(parse("[::1]:0").unwrap(), "[::1]:0");
        for bad in [
            "8080",
            "example.com:80",
            "127.0.0.1:http",
            "127.0.0.1:70000",
        ] {
            let error = parse(bad).unwrap_err();
            assert!(
                error.contains(bad) || error.contains("port"),
                "{bad}: {error}"
            );
        }
        let settings: Settings = toml::from_str("listen = \"localhost:7000\"").unwrap();
        assert_eq!(settings.listen.unwrap().to_string(), "127.0.0.1:7000");
    }

    #[test]
    fn help_shows_every_default() {
        let help = Cli::command_with_defaults().render_long_help().to_string();
        for (_, default) in help_defaults() {
            assert!(help.contains(&format!("[default: {default}]")), "{default}");
        }
    }

    #[test]
    fn defaults_resolve() {
        let config = Config::defaults();
        assert_eq!(config.listen.to_string(), DEFAULT_LISTEN);
        assert_eq!(config.limits.max_value_size, 5 << 20);
        assert_eq!(config.limits.max_response_size, 5_243_000);
        assert_eq!(config.max_concurrent_streams, 100);
    }

    #[test]
    fn sizes_and_durations_take_units() {
        let config = parse(&["--max-memory", "64MiB", "--max-ttl", "2h"])
            .resolve()
            .unwrap();
        assert_eq!(config.max_memory, 64 << 20);
        assert_eq!(config.limits.max_ttl, Duration::from_secs(7200));
    }

    #[test]
    fn the_response_limit_holds_any_value_stored() {
        let config = |args: &[&str]| parse(args).resolve().map(|c| c.limits.max_response_size);
        assert_eq!(config(&["--max-response-size", "16MiB"]).unwrap(), 16 << 20);
        // Unset, it follows a larger --max-value-size.
        assert_eq!(
            config(&["--max-value-size", "8MiB"]).unwrap(),
            (8 << 20) + 64
        );
        let toml: Settings = toml::from_str("max-response-size = \"6MiB\"").unwrap();
        assert_eq!(toml.resolve().unwrap().limits.max_response_size, 6 << 20);
        assert!(config(&["--max-response-size", "5MiB"]).is_err());
    }

    #[test]
    fn flags_win_over_the_file() {
        let file: Settings =
            toml::from_str("max-memory = \"32MiB\"\nmax-caches = 7\nmax-ttl = \"1h\"").unwrap();
        let config = parse(&["--max-caches", "9"]).or(file).resolve().unwrap();
        assert_eq!(config.max_caches, 9);
        assert_eq!(config.max_memory, 32 << 20);
        assert_eq!(config.limits.max_ttl, Duration::from_secs(3600));
    }

    #[test]
    fn the_protosocket_port_is_off_unless_given_and_loopback_without_auth() {
        assert_eq!(parse(&[]).resolve().unwrap().protosocket_listen, None);
        let file: Settings = toml::from_str("protosocket-listen = \"localhost:9004\"").unwrap();
        let config = Settings::default().or(file).resolve().unwrap();
        assert_eq!(
            config.protosocket_listen,
            Some("127.0.0.1:9004".parse().unwrap())
        );
        let flag = parse(&["--protosocket-listen", ":0"])
            .resolve()
            .unwrap_err();
        assert!(flag.to_string().contains("--protosocket-listen"), "{flag}");
        let allowed = parse(&["--protosocket-listen", ":0", "--insecure-allow-anonymous"]);
        assert!(allowed.resolve().is_ok());
    }

    #[test]
    fn unknown_file_keys_are_rejected() {
        assert!(toml::from_str::<Settings>("max-memroy = \"1GiB\"").is_err());
    }

    #[test]
    fn tls_needs_both_files() {
        let err = parse(&["--tls-cert", "c.pem"]).resolve().unwrap_err();
        assert!(err.to_string().contains("--tls-key"));
    }

    #[test]
    fn anonymous_serving_is_for_loopback_only() {
        for listen in ["127.0.0.1:0", "[::1]:0", "[::ffff:127.0.0.2]:0"] {
            assert!(parse(&["--listen", listen]).resolve().is_ok(), "{listen}");
        }
        for listen in ["0.0.0.0:0", "[::]:0", "192.0.2.1:0"] {
            let err = parse(&["--listen", listen]).resolve().unwrap_err();
            let message = err.to_string();
            assert!(message.contains("--insecure-allow-anonymous"), "{message}");
            assert!(message.contains("--auth-secret-file"), "{message}");
            let allowed = parse(&["--listen", listen, "--insecure-allow-anonymous"]).resolve();
            assert!(allowed.is_ok(), "{listen}");
        }
    }

    #[test]
    fn the_secret_file_turns_auth_on_and_must_be_long_enough() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("secret");
        std::fs::write(&file, "too short\n").unwrap();
        let path = file.to_str().unwrap();
        let err = parse(&["--auth-secret-file", path]).resolve().unwrap_err();
        assert!(err.to_string().contains("at least 32"), "{err}");
        std::fs::write(&file, format!("{}\n", "s".repeat(40))).unwrap();
        let config = parse(&["--listen", "0.0.0.0:0", "--auth-secret-file", path])
            .resolve()
            .unwrap();
        assert_eq!(config.auth.unwrap().bytes().len(), 40);
    }

    #[test]
    fn auth_and_fault_settings_come_from_the_file_too() {
        let file: Settings = toml::from_str(
            "listen = \"0.0.0.0:0\"\ninsecure-allow-anonymous = true\n\
             enable-fault-injection = true\nauth-secret-file = \"s\"",
        )
        .unwrap();
        let merged = parse(&[]).or(file);
        assert!(merged.insecure_allow_anonymous && merged.enable_fault_injection);
        assert_eq!(merged.auth_secret_file, Some(PathBuf::from("s")));
    }

    #[test]
    fn the_token_subcommand_takes_the_secret_after_it() {
        let cli = Cli::try_parse_from([
            "jiffy-server",
            "token",
            "create",
            "--caches",
            "prefix:t-",
            "--role",
            "read",
            "--expires-in",
            "30d",
            "--auth-secret-file",
            "s",
        ])
        .unwrap();
        assert_eq!(cli.settings.auth_secret_file, Some(PathBuf::from("s")));
        assert!(matches!(cli.command, Some(Command::Token(_))));
    }

    #[test]
    fn the_store_is_embedded_unless_named() {
        assert_eq!(parse(&[]).resolve().unwrap().store, StoreChoice::Embedded);
        let config = parse(&["--store", "redis-cluster://127.0.0.1:7000,127.0.0.1:7001"])
            .resolve()
            .unwrap();
        assert!(matches!(config.store, StoreChoice::Redis(Target::Cluster(ref n)) if n.len() == 2));
        assert_eq!(config.store_timeout, DEFAULT_STORE_TIMEOUT);
        let err = parse(&["--store", "memcached://h:1"])
            .resolve()
            .unwrap_err();
        assert!(err.to_string().contains("--store"), "{err}");
    }

    #[test]
    fn topic_settings_come_from_flags_and_the_file_and_must_fit_together() {
        let file: Settings = toml::from_str(
            "max-topic-subscriptions = 7\ntopic-buffer-messages = 50\n\
             topic-buffer-bytes = \"2MiB\"\nmax-topic-message-size = \"1KiB\"\n\
             max-topic-memory = \"8MiB\"\ntopic-heartbeat-interval = \"250ms\"",
        )
        .unwrap();
        let config = parse(&["--max-topic-subscriptions", "9"])
            .or(file)
            .resolve()
            .unwrap();
        let topics = config.topics;
        assert_eq!(topics.max_subscriptions, 9);
        assert_eq!(topics.buffer_messages, 50);
        assert_eq!(topics.buffer_bytes, 2 << 20);
        assert_eq!(topics.max_message_size, 1 << 10);
        assert_eq!(topics.max_memory, 8 << 20);
        assert_eq!(topics.heartbeat_interval, Duration::from_millis(250));
        assert_eq!(Config::defaults().topics, TopicSettings::default());
        let err = parse(&["--max-topic-message-size", "2MiB"])
            .resolve()
            .unwrap_err();
        assert!(err.to_string().contains("--topic-buffer-bytes"), "{err}");
        let err = parse(&["--topic-heartbeat-interval", "0s"])
            .resolve()
            .unwrap_err();
        assert!(
            err.to_string().contains("--topic-heartbeat-interval"),
            "{err}"
        );
    }

    #[test]
    fn memory_must_hold_the_largest_item_twice() {
        let err = parse(&["--max-memory", "6MiB"]).resolve().unwrap_err();
        assert!(err.to_string().contains("--max-memory"));
    }
}
