//! Server configuration: command-line flags, environment variables and a TOML file.
//!
//! Every setting can be given three ways; the first one present wins: a
//! flag, an environment variable, or a key of the TOML file named by
//! `--config` (`JIFFY_CONFIG`). Each is declared once, in [`settings`]
//! (docs/CONFIGURATION.md's settings table is made from it); [`Settings::resolve`]
//! fills in the defaults and checks that the values fit together.
//!
//! Without `--auth-secret-file` every call is allowed, so the server refuses
//! to listen on anything but loopback unless `--insecure-allow-anonymous`
//! says so. The metrics listener is not part of that rule: it serves counts
//! only (no cache names, keys or values) and takes no token either way.

mod declare;
mod settings;
pub mod value;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use serde::Deserialize;

use crate::auth::token::TokenCommand;
use crate::auth::{momento_key, Secret};
use crate::backend::redis::Target;
use crate::cache_limits::{CacheLimitSettings, RateLimits};
use crate::limits::Limits;
use crate::topics::TopicSettings;
use crate::webhooks::{AllowList, WebhookSettings};

pub use declare::{Setting, Shown};
pub use settings::{settings, Settings, Values};
pub use value::parse_listen;

/// What a request must hold beyond its largest key, for any call to fit;
/// also the framing a derived `--max-request-size` leaves beside the
/// largest key and value (a Set's tags, lengths and TTL take 20 bytes).
const MIN_REQUEST_ROOM: usize = 1 << 10;

/// `--max-request-size` when it is not given: room for the largest value,
/// the largest key and [`MIN_REQUEST_ROOM`] of framing, so that a Set of a
/// value of exactly `--max-value-size` fits (5,248,000 bytes with the
/// defaults), and never less than the Momento service's request limit,
/// [`MOMENTO_MAX_REQUEST_SIZE`], so batches keep the room they had under
/// small value limits. (The service's 5 MiB is lower than its item limit
/// plus a key: there a 5 MiB value cannot be stored.)
pub fn derived_request_size(
    max_key_size: bytesize::ByteSize,
    max_value_size: bytesize::ByteSize,
) -> usize {
    let room = (max_key_size.as_u64() + max_value_size.as_u64()) as usize + MIN_REQUEST_ROOM;
    room.max(MOMENTO_MAX_REQUEST_SIZE)
}

/// The Momento service's request limit, 5 MiB.
const MOMENTO_MAX_REQUEST_SIZE: usize = 5 << 20;

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

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// The command line: the server's settings, or a subcommand.
#[derive(Parser, Debug)]
#[command(name = "jiffy-server", version, about)]
pub struct Cli {
    /// TOML file with any of the settings below (keys as the flag names).
    #[arg(long, env = "JIFFY_CONFIG", value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,
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

impl Cli {
    /// The command line, with each setting's default in `--help`: added to
    /// the help text, since clap's own `default_value` would shadow the TOML
    /// file, which only fills what flags and environment leave unset.
    pub fn command_with_defaults() -> clap::Command {
        use clap::CommandFactory;
        let mut command = Cli::command();
        for setting in settings() {
            if let Some(default) = setting.help_default() {
                command = command.mut_arg(setting.id, |arg| {
                    let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                    arg.help(format!("{help} [default: {default}]"))
                });
            }
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

/// The settings table of docs/CONFIGURATION.md: `--config`, then every setting.
pub fn settings_markdown() -> String {
    use clap::CommandFactory;
    let mut table = String::from(
        "| flag | environment | TOML key | default | meaning |\n|---|---|---|---|---|\n",
    );
    let command = Cli::command();
    let file = command
        .get_arguments()
        .find(|arg| arg.get_id() == "config")
        .expect("the --config argument");
    let env =
        |name: Option<&std::ffi::OsStr>| name.unwrap_or_default().to_string_lossy().into_owned();
    table += &format!(
        "| `--config {}` | `{}` | | none | {} |\n",
        file.get_value_names().unwrap_or_default()[0],
        env(file.get_env()),
        file.get_help().map(ToString::to_string).unwrap_or_default(),
    );
    for setting in settings() {
        let key = setting.key();
        let flag = [format!("--{key}"), setting.placeholder.to_owned()].join(" ");
        let default = match &setting.default {
            Shown::Value(value) => format!("`{value}`"),
            Shown::Computed(text) | Shown::Unset(text) => (*text).to_owned(),
        };
        table += &format!(
            "| `{}` | `{}` | `{key}` | {default} | {} |\n",
            flag.trim_end(),
            setting.env,
            setting.readme
        );
    }
    table
}

/// `JIFFY_*` variables that other programs of the project read (the SDKs'
/// examples and CLI, the test fixtures): set in the same shell as the
/// server, they are not mistakes.
const OTHER_PROGRAMS_VARIABLES: [&str; 5] = [
    "JIFFY_API_KEY",
    "JIFFY_CACHE",
    "JIFFY_ENDPOINT",
    "JIFFY_POOL",
    "JIFFY_SERVER_BIN",
];

/// How alike a misspelt variable and a setting's must be to be suggested:
/// Jaro-Winkler similarity of the names after `JIFFY_`, the threshold clap
/// uses for flags (0.7) raised, as every name here shares the prefix.
const SUGGESTION_SIMILARITY: f64 = 0.8;

/// A warning for each `JIFFY_*` variable among `names` that no setting
/// reads, so that a misspelt one is not ignored without a word (the flags
/// and the TOML keys are errors when misspelt): each names the variable of
/// the setting it most looks like, if one does. strsim is the string
/// distance crate clap's own suggestions use.
pub fn unknown_environment(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let settings = settings();
    let known = |name: &str| {
        name == "JIFFY_CONFIG"
            || OTHER_PROGRAMS_VARIABLES.contains(&name)
            || settings.iter().any(|setting| setting.env == name)
    };
    let mut names: Vec<String> = names
        .into_iter()
        .filter(|name| name.starts_with("JIFFY_") && !known(name))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let suffix = &name["JIFFY_".len()..];
            // JIFFY_LOG_LEVEL for --log-level, whose variable is JIFFY_LOG.
            let same_setting = settings
                .iter()
                .find(|setting| setting.id.eq_ignore_ascii_case(suffix));
            let similar = || {
                settings
                    .iter()
                    .map(|setting| {
                        let theirs = &setting.env["JIFFY_".len()..];
                        (strsim::jaro_winkler(suffix, theirs), setting.env)
                    })
                    .filter(|(similarity, _)| *similarity >= SUGGESTION_SIMILARITY)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
            };
            match (same_setting, similar()) {
                (Some(setting), _) => format!(
                    "environment variable {name} is not read and is ignored: the variable of --{} is {}",
                    setting.key(),
                    setting.env
                ),
                (None, Some((_, env))) => format!(
                    "environment variable {name} is not a setting and is ignored; did you mean {env}?"
                ),
                (None, None) => format!(
                    "environment variable {name} is not a setting and is ignored (see --help for each setting's variable)"
                ),
            }
        })
        .collect()
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
    /// The HTTP API's port; off when `None`.
    pub http_listen: Option<SocketAddr>,
    pub max_memory: u64,
    /// Free room in partly used slabs past which the store defragments
    /// (`crate::defrag`); 0: never.
    pub defrag_above: u64,
    pub max_caches: usize,
    /// Signing keys live at once (`crate::auth::signing_keys`).
    pub max_signing_keys: usize,
    pub limits: Limits,
    /// Whether `--max-request-size` was left to [`derived_request_size`]:
    /// then a Set over it has a value over `--max-value-size`, and is told
    /// so (`RpcLayer::with_value_limit`).
    pub request_size_derived: bool,
    pub max_concurrent_streams: u32,
    pub max_connections: usize,
    /// Whether `--max-connections` was given: a default that does not fit
    /// the descriptor limit is lowered to fit; a given one is an error.
    pub max_connections_given: bool,
    /// Connections each of the metrics and admin ports holds at once.
    pub max_side_port_connections: usize,
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
    /// The host minted tokens name (`--public-endpoint`, or derived from
    /// `--listen`): the official SDKs connect to subdomains of it.
    pub public_endpoint: String,
    pub insecure_allow_anonymous: bool,
    pub fault_injection: bool,
    pub store: StoreChoice,
    pub store_timeout: Duration,
    pub topics: TopicSettings,
    /// `--webhook-allow`, parsed.
    pub webhooks: WebhookSettings,
    /// Per-cache rate limits: the defaults, and each cache's own from the
    /// config file ([`Config::with_cache_limits_from`]).
    pub cache_limits: CacheLimitSettings,
    /// The test admin port (`crate::admin_port`); off when `None`.
    pub admin_listen: Option<SocketAddr>,
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
    /// These settings, completed by the TOML `file` (`--config`).
    pub fn with_file(self, file: Option<&Path>) -> Result<Settings, ConfigError> {
        Ok(match file {
            Some(path) => self.or(Settings::from_file(path)?),
            None => self,
        })
    }

    pub fn from_file(path: &Path) -> Result<Settings, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let parse_error = |source| ConfigError::Parse {
            path: path.to_owned(),
            source: Box::new(source),
        };
        // The `[caches.NAME]` tables are no setting: `cache_limits_from_file` reads them.
        let mut table: toml::Table = toml::from_str(&text).map_err(parse_error)?;
        table.remove(CACHES_TABLE);
        Settings::deserialize(table).map_err(parse_error)
    }

    /// Fills in the defaults and checks that the settings fit together.
    pub fn resolve(self) -> Result<Config, ConfigError> {
        let given_connections = self.max_connections.is_some();
        let values = self.values();
        let size = |value: bytesize::ByteSize| value.as_u64() as usize;
        let request_size_derived = values.max_request_size.is_none();
        let limits = Limits {
            max_key_size: size(values.max_key_size),
            max_value_size: size(values.max_value_size),
            max_request_size: values.max_request_size.map_or(
                derived_request_size(values.max_key_size, values.max_value_size),
                size,
            ),
            max_ttl: values.max_ttl,
            max_request_items: values.max_request_items,
            max_collection_elements: values.max_collection_elements,
            // Unset, it follows a larger --max-value-size, so a value stored
            // can always be read back.
            max_response_size: values.max_response_size.map_or(
                DEFAULT_MAX_RESPONSE_SIZE.max(values.max_value_size.as_u64() + MIN_RESPONSE_ROOM),
                |given| given.as_u64(),
            ) as usize,
        };
        let tls = match (values.tls_cert, values.tls_key) {
            (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
            (None, None) => None,
            _ => return invalid("--tls-cert and --tls-key go together: give both or neither"),
        };
        let auth = match &values.auth_secret_file {
            Some(path) => Some(Secret::read(path).map_err(ConfigError::Invalid)?),
            None => None,
        };
        let topics = TopicSettings {
            max_subscriptions: values.max_topic_subscriptions,
            max_subscriptions_total: values.max_subscriptions,
            buffer_messages: values.topic_buffer_messages,
            buffer_bytes: size(values.topic_buffer_bytes),
            max_message_size: size(values.max_topic_message_size),
            max_memory: size(values.max_topic_memory),
            heartbeat_interval: values.topic_heartbeat_interval,
        };
        let config = Config {
            listen: values.listen,
            metrics_listen: values.metrics_listen,
            protosocket_listen: values.protosocket_listen,
            http_listen: values.http_listen,
            max_memory: values.max_memory.as_u64(),
            defrag_above: values
                .defrag_above
                .map_or((values.max_memory.as_u64() / 32).max(4 << 20), |given| {
                    given.as_u64()
                }),
            max_caches: values.max_caches,
            max_signing_keys: values.max_signing_keys,
            limits,
            request_size_derived,
            max_concurrent_streams: values.max_concurrent_streams,
            max_connections: values.max_connections,
            max_connections_given: given_connections,
            max_side_port_connections: values.max_side_port_connections,
            handshake_timeout: values.handshake_timeout,
            request_timeout: values.request_timeout,
            send_timeout: values.send_timeout,
            idle_timeout: values.idle_timeout,
            max_in_flight_bytes: values.max_in_flight_bytes.as_u64(),
            max_header_list_size: values.max_header_list_size.as_u64(),
            keepalive_interval: values.keepalive_interval,
            keepalive_timeout: values.keepalive_timeout,
            tls,
            shutdown_timeout: values.shutdown_timeout,
            workers: values
                .workers
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            log_level: values.log_level,
            log_format: values.log_format,
            auth,
            public_endpoint: momento_key::public_endpoint(
                values.public_endpoint.as_deref(),
                values.listen,
            )
            .map_err(ConfigError::Invalid)?,
            insecure_allow_anonymous: values.insecure_allow_anonymous,
            fault_injection: values.enable_fault_injection,
            store: StoreChoice::parse(&values.store)?,
            store_timeout: values.store_timeout,
            topics,
            webhooks: WebhookSettings {
                allow: AllowList::parse(values.webhook_allow.as_deref().unwrap_or(""))
                    .map_err(ConfigError::Invalid)?,
            },
            cache_limits: CacheLimitSettings {
                defaults: RateLimits {
                    max_calls_per_second: values.cache_calls_per_second.map(|n| n as u64),
                    max_bytes_per_second: values.cache_bytes_per_second.map(|size| size.as_u64()),
                    max_publishes_per_second: values.cache_publishes_per_second.map(|n| n as u64),
                    max_subscriptions: values.cache_max_subscriptions.map(|n| n as u64),
                },
                per_cache: Default::default(),
            },
            admin_listen: values.admin_listen,
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
        self.cache_limits.check().map_err(ConfigError::Invalid)?;
        if let Some(address) = self.admin_listen {
            if !self.insecure_allow_anonymous && !is_loopback(address) {
                return Err(ConfigError::Invalid(format!(
                    "--admin-listen {address} is not a loopback address, and anyone who \
                     reaches the admin port can stall every call; give a loopback \
                     address, or --insecure-allow-anonymous to allow it anyway"
                )));
            }
        }
        if self.max_connections == 0
            || self.max_side_port_connections == 0
            || limits.max_request_items == 0
            || limits.max_collection_elements == 0
        {
            return invalid(
                "--max-connections, --max-side-port-connections, --max-request-items and --max-collection-elements must be above zero",
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
        let ports = [
            ("--protosocket-listen", self.protosocket_listen),
            ("--http-listen", self.http_listen),
        ];
        for (flag, address) in ports {
            let Some(address) = address else { continue };
            if self.auth.is_none() && !self.insecure_allow_anonymous && !is_loopback(address) {
                return Err(ConfigError::Invalid(format!(
                    "{flag} {address} is not a loopback address and no \
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

/// The config file's table of per-cache limits: `[caches.NAME]`, each with
/// any of `max-calls-per-second`, `max-bytes-per-second` and
/// `max-publishes-per-second`.
const CACHES_TABLE: &str = "caches";

impl Config {
    /// This configuration with each cache's own rate limits from the
    /// config file's `[caches.NAME]` tables (`--config`), checked.
    pub fn with_cache_limits_from(mut self, file: Option<&Path>) -> Result<Config, ConfigError> {
        self.cache_limits.per_cache = cache_limits_from_file(file)?;
        self.cache_limits.check().map_err(ConfigError::Invalid)?;
        Ok(self)
    }
}

/// Each cache's own rate limits from the config file's `[caches.NAME]`
/// tables; none without a file.
fn cache_limits_from_file(
    file: Option<&Path>,
) -> Result<std::collections::HashMap<String, RateLimits>, ConfigError> {
    let Some(path) = file else {
        return Ok(Default::default());
    };
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    #[derive(Deserialize)]
    struct Caches {
        #[serde(default)]
        caches: std::collections::HashMap<String, RateLimits>,
    }
    let mut table: toml::Table = toml::from_str(&text).map_err(|source| ConfigError::Parse {
        path: path.to_owned(),
        source: Box::new(source),
    })?;
    table.retain(|key, _| key == CACHES_TABLE);
    let caches = Caches::deserialize(table).map_err(|source| ConfigError::Parse {
        path: path.to_owned(),
        source: Box::new(source),
    })?;
    Ok(caches.caches)
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
    fn side_ports_take_at_least_one_connection() {
        let error = parse(&["--max-side-port-connections", "0"])
            .resolve()
            .unwrap_err()
            .to_string();
        assert!(error.contains("--max-side-port-connections"), "{error}");
        let config = parse(&["--max-side-port-connections", "3"])
            .resolve()
            .unwrap();
        assert_eq!(config.max_side_port_connections, 3);
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
    fn unknown_jiffy_variables_are_named_with_a_suggestion() {
        let names = [
            "JIFFY_MAX_MEMROY",
            "JIFFY_LOG_LEVEL",
            "JIFFY_MAX_MEMORY",
            "JIFFY_ENDPOINT",
            "JIFFY_CONFIG",
            "JIFFY_ZZZ",
            "PATH",
        ]
        .map(String::from);
        let warnings = unknown_environment(names);
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(warnings[0].contains("JIFFY_LOG_LEVEL"), "{warnings:?}");
        assert!(
            warnings[0].contains("--log-level is JIFFY_LOG"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].contains("JIFFY_MAX_MEMROY")
                && warnings[1].contains("did you mean JIFFY_MAX_MEMORY?"),
            "{warnings:?}"
        );
        assert!(warnings[2].contains("JIFFY_ZZZ"), "{warnings:?}");
        assert!(!warnings[2].contains("did you mean"), "{warnings:?}");
    }

    #[test]
    fn help_shows_every_default() {
        let help = Cli::command_with_defaults().render_long_help().to_string();
        for default in settings().iter().filter_map(Setting::help_default) {
            assert!(help.contains(&format!("[default: {default}]")), "{default}");
        }
    }

    #[test]
    fn the_defragmentation_threshold_follows_the_memory_cap_unless_given() {
        let resolve = |args: &[&str]| {
            let args = std::iter::once("jiffy-server").chain(args.iter().copied());
            Settings::try_parse_from(args)
                .unwrap()
                .resolve()
                .unwrap()
                .defrag_above
        };
        assert_eq!(resolve(&[]), 32 << 20);
        assert_eq!(resolve(&["--max-memory", "64MiB"]), 4 << 20);
        assert_eq!(resolve(&["--max-memory", "4GiB"]), 128 << 20);
        assert_eq!(resolve(&["--defrag-above", "1MiB"]), 1 << 20);
        assert_eq!(resolve(&["--defrag-above", "0"]), 0);
    }

    #[test]
    fn defaults_resolve() {
        let config = Config::defaults();
        assert_eq!(config.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(config.limits.max_value_size, 5 << 20);
        assert_eq!(config.limits.max_response_size, 5_243_000);
        // Room for a value of exactly --max-value-size, its largest key and
        // the framing around them; under small value limits, 5 MiB.
        assert_eq!(config.limits.max_request_size, (5 << 20) + (4 << 10) + 1024);
        assert!(config.request_size_derived);
        let small = Settings::try_parse_from(["jiffy-server", "--max-value-size", "1KiB"])
            .unwrap()
            .resolve()
            .unwrap();
        assert_eq!(small.limits.max_request_size, 5 << 20);
        assert_eq!(config.max_concurrent_streams, 100);
        let response = settings()
            .into_iter()
            .find(|setting| setting.id == "max_response_size")
            .unwrap();
        let said = format!(
            "{DEFAULT_MAX_RESPONSE_SIZE} bytes, or --max-value-size + {MIN_RESPONSE_ROOM} bytes if more"
        );
        assert!(matches!(response.default, Shown::Computed(text) if text == said));
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
    fn the_http_port_is_off_unless_given_and_loopback_without_auth() {
        assert_eq!(parse(&[]).resolve().unwrap().http_listen, None);
        let file: Settings = toml::from_str("http-listen = \"localhost:9005\"").unwrap();
        let config = Settings::default().or(file).resolve().unwrap();
        assert_eq!(config.http_listen, Some("127.0.0.1:9005".parse().unwrap()));
        let flag = parse(&["--http-listen", ":0"]).resolve().unwrap_err();
        assert!(flag.to_string().contains("--http-listen"), "{flag}");
        let allowed = parse(&["--http-listen", ":0", "--insecure-allow-anonymous"]);
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
        assert_eq!(config.store_timeout, Duration::from_secs(1));
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

    /// Every setting as the outside sees it: flag, environment variable and
    /// the default `--help` shows, as they were before the settings were
    /// declared in one table (`--log-format` has since shown its default).
    const FLAGS: &[&str] = &[
        "--admin-listen JIFFY_ADMIN_LISTEN ",
        "--auth-secret-file JIFFY_AUTH_SECRET_FILE ",
        "--cache-bytes-per-second JIFFY_CACHE_BYTES_PER_SECOND ",
        "--cache-calls-per-second JIFFY_CACHE_CALLS_PER_SECOND ",
        "--cache-max-subscriptions JIFFY_CACHE_MAX_SUBSCRIPTIONS ",
        "--cache-publishes-per-second JIFFY_CACHE_PUBLISHES_PER_SECOND ",
        "--config JIFFY_CONFIG ",
        "--defrag-above JIFFY_DEFRAG_ABOVE --max-memory / 32, at least 4 MiB",
        "--enable-fault-injection JIFFY_ENABLE_FAULT_INJECTION ",
        "--handshake-timeout JIFFY_HANDSHAKE_TIMEOUT 10s",
        "--http-listen JIFFY_HTTP_LISTEN ",
        "--idle-timeout JIFFY_IDLE_TIMEOUT 5m",
        "--insecure-allow-anonymous JIFFY_INSECURE_ALLOW_ANONYMOUS ",
        "--keepalive-interval JIFFY_KEEPALIVE_INTERVAL 1m",
        "--keepalive-timeout JIFFY_KEEPALIVE_TIMEOUT 20s",
        "--listen JIFFY_LISTEN 127.0.0.1:8080",
        "--log-format JIFFY_LOG_FORMAT text",
        "--log-level JIFFY_LOG info",
        "--max-caches JIFFY_MAX_CACHES 100",
        "--max-collection-elements JIFFY_MAX_COLLECTION_ELEMENTS 1000000",
        "--max-concurrent-streams JIFFY_MAX_CONCURRENT_STREAMS 100",
        "--max-connections JIFFY_MAX_CONNECTIONS 16384",
        "--max-header-list-size JIFFY_MAX_HEADER_LIST_SIZE 16.0 KiB",
        "--max-in-flight-bytes JIFFY_MAX_IN_FLIGHT_BYTES 256.0 MiB",
        "--max-key-size JIFFY_MAX_KEY_SIZE 4.0 KiB",
        "--max-memory JIFFY_MAX_MEMORY 1.0 GiB",
        "--max-request-items JIFFY_MAX_REQUEST_ITEMS 10000",
        "--max-request-size JIFFY_MAX_REQUEST_SIZE --max-value-size + --max-key-size + 1 KiB, at least 5 MiB",
        "--max-response-size JIFFY_MAX_RESPONSE_SIZE 5243000 bytes, or --max-value-size + 64 bytes if more",
        "--max-side-port-connections JIFFY_MAX_SIDE_PORT_CONNECTIONS 1024",
        "--max-signing-keys JIFFY_MAX_SIGNING_KEYS 100",
        "--max-subscriptions JIFFY_MAX_SUBSCRIPTIONS 20000",
        "--max-topic-memory JIFFY_MAX_TOPIC_MEMORY 64.0 MiB",
        "--max-topic-message-size JIFFY_MAX_TOPIC_MESSAGE_SIZE 100.0 KiB",
        "--max-topic-subscriptions JIFFY_MAX_TOPIC_SUBSCRIPTIONS 10000",
        "--max-ttl JIFFY_MAX_TTL 7days",
        "--max-value-size JIFFY_MAX_VALUE_SIZE 5.0 MiB",
        "--metrics-listen JIFFY_METRICS_LISTEN ",
        "--protosocket-listen JIFFY_PROTOSOCKET_LISTEN ",
        "--public-endpoint JIFFY_PUBLIC_ENDPOINT the --listen host: `localhost` if loopback, this machine's name if every interface",
        "--request-timeout JIFFY_REQUEST_TIMEOUT 30s",
        "--send-timeout JIFFY_SEND_TIMEOUT 30s",
        "--shutdown-timeout JIFFY_SHUTDOWN_TIMEOUT 30s",
        "--store JIFFY_STORE embedded",
        "--store-timeout JIFFY_STORE_TIMEOUT 1s",
        "--tls-cert JIFFY_TLS_CERT ",
        "--tls-key JIFFY_TLS_KEY ",
        "--topic-buffer-bytes JIFFY_TOPIC_BUFFER_BYTES 1.0 MiB",
        "--topic-buffer-messages JIFFY_TOPIC_BUFFER_MESSAGES 1000",
        "--topic-heartbeat-interval JIFFY_TOPIC_HEARTBEAT_INTERVAL 5s",
        "--webhook-allow JIFFY_WEBHOOK_ALLOW ",
        "--workers JIFFY_WORKERS one per core",
    ];
    /// The TOML keys serde accepts, as they were then.
    const KEYS: &[&str] = &[
        "listen",
        "metrics-listen",
        "protosocket-listen",
        "http-listen",
        "max-memory",
        "defrag-above",
        "max-key-size",
        "max-value-size",
        "max-request-size",
        "max-ttl",
        "max-caches",
        "max-signing-keys",
        "max-concurrent-streams",
        "max-connections",
        "max-side-port-connections",
        "handshake-timeout",
        "request-timeout",
        "send-timeout",
        "idle-timeout",
        "max-in-flight-bytes",
        "max-header-list-size",
        "max-request-items",
        "max-collection-elements",
        "max-response-size",
        "keepalive-interval",
        "keepalive-timeout",
        "tls-cert",
        "tls-key",
        "shutdown-timeout",
        "workers",
        "log-level",
        "log-format",
        "auth-secret-file",
        "public-endpoint",
        "insecure-allow-anonymous",
        "enable-fault-injection",
        "store",
        "store-timeout",
        "max-topic-subscriptions",
        "max-subscriptions",
        "topic-buffer-messages",
        "topic-buffer-bytes",
        "max-topic-message-size",
        "max-topic-memory",
        "topic-heartbeat-interval",
        "webhook-allow",
        "cache-calls-per-second",
        "cache-bytes-per-second",
        "cache-publishes-per-second",
        "cache-max-subscriptions",
        "admin-listen",
    ];
    /// The defaults resolved, as they were then (workers depend on the machine).
    const DEFAULTS: &str = "Config { listen: 127.0.0.1:8080, metrics_listen: None, protosocket_listen: None, http_listen: None, max_memory: 1073741824, defrag_above: 33554432, max_caches: 100, max_signing_keys: 100, limits: Limits { max_key_size: 4096, max_value_size: 5242880, max_request_size: 5248000, max_ttl: 604800s, max_request_items: 10000, max_collection_elements: 1000000, max_response_size: 5243000 }, request_size_derived: true, max_concurrent_streams: 100, max_connections: 16384, max_connections_given: false, max_side_port_connections: 1024, handshake_timeout: 10s, request_timeout: 30s, send_timeout: 30s, idle_timeout: 300s, max_in_flight_bytes: 268435456, max_header_list_size: 16384, keepalive_interval: 60s, keepalive_timeout: 20s, tls: None, shutdown_timeout: 30s, workers: 0, log_level: \"info\", log_format: Text, auth: None, public_endpoint: \"localhost\", insecure_allow_anonymous: false, fault_injection: false, store: Embedded, store_timeout: 1s, topics: TopicSettings { max_subscriptions: 10000, max_subscriptions_total: 20000, buffer_messages: 1000, buffer_bytes: 1048576, max_message_size: 102400, max_memory: 67108864, heartbeat_interval: 5s }, webhooks: WebhookSettings { allow: AllowList { nets: [], hosts: [] } }, cache_limits: CacheLimitSettings { defaults: RateLimits { max_calls_per_second: None, max_bytes_per_second: None, max_publishes_per_second: None, max_subscriptions: None }, per_cache: {} }, admin_listen: None }";

    #[test]
    fn names_environment_keys_and_defaults_are_as_they_were() {
        let mut flags: Vec<String> = Cli::command_with_defaults()
            .get_arguments()
            .filter_map(|arg| {
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                let default = help.rsplit_once("[default: ").map_or("", |(_, d)| d);
                let env = arg.get_env()?.to_string_lossy().into_owned();
                Some(format!(
                    "--{} {env} {}",
                    arg.get_long()?,
                    default.trim_end_matches(']')
                ))
            })
            .collect();
        flags.sort();
        assert_eq!(flags, FLAGS);
        let unknown = toml::from_str::<Settings>("no-such-key = 1")
            .unwrap_err()
            .to_string();
        let keys = unknown.split_once("expected one of ").unwrap().1.trim();
        let keys: Vec<&str> = keys.split(", ").map(|key| key.trim_matches('`')).collect();
        assert_eq!(keys, KEYS);
        let keys: Vec<String> = settings().iter().map(Setting::key).collect();
        assert_eq!(keys, KEYS, "the table's keys, in the file's order");
        let mut config = Config::defaults();
        config.workers = 0;
        assert_eq!(format!("{config:?}"), DEFAULTS);
    }

    #[test]
    fn readme_settings_table_is_current() {
        const BEGIN: &str = "<!-- settings:begin -->\n";
        const END: &str = "<!-- settings:end -->";
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/CONFIGURATION.md");
        let readme = std::fs::read_to_string(&path).unwrap();
        let (before, rest) = readme.split_once(BEGIN).expect("the settings:begin marker");
        let (_, after) = rest.split_once(END).expect("the settings:end marker");
        let current = format!("{before}{BEGIN}{}{END}{after}", settings_markdown());
        if std::env::var_os("JIFFY_BLESS").is_some_and(|bless| bless == "1") {
            std::fs::write(&path, current).unwrap();
        } else {
            assert!(
                readme == current,
                "docs/CONFIGURATION.md's settings table is not current: run \
                 JIFFY_BLESS=1 cargo test -p jiffy-server --lib readme_settings"
            );
        }
    }

    #[test]
    fn per_cache_limits_come_from_flags_and_the_files_caches_tables() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jiffy.toml");
        std::fs::write(
            &path,
            "cache-calls-per-second = 100\nmax-caches = 5\n\n\
             [caches.tenant-a]\nmax-calls-per-second = 7\nmax-bytes-per-second = \"2KiB\"\n",
        )
        .unwrap();
        let config = parse(&["--cache-publishes-per-second", "3"])
            .with_file(Some(&path))
            .unwrap()
            .resolve()
            .unwrap()
            .with_cache_limits_from(Some(&path))
            .unwrap();
        assert_eq!(config.max_caches, 5);
        let own = config.cache_limits.of("tenant-a");
        assert_eq!(own.max_calls_per_second, Some(7));
        assert_eq!(own.max_bytes_per_second, Some(2048));
        assert_eq!(
            own.max_publishes_per_second,
            Some(3),
            "the default fills in"
        );
        assert_eq!(
            config.cache_limits.of("other").max_calls_per_second,
            Some(100)
        );
        std::fs::write(&path, "[caches.t]\nmax-calls-per-second = 0\n").unwrap();
        let err = Config::defaults()
            .with_cache_limits_from(Some(&path))
            .unwrap_err();
        assert!(err.to_string().contains("[caches.t]"), "{err}");
        let err = parse(&["--cache-calls-per-second", "0"])
            .resolve()
            .unwrap_err();
        assert!(
            err.to_string().contains("--cache-calls-per-second"),
            "{err}"
        );
    }

    #[test]
    fn the_admin_port_is_off_unless_given_and_loopback_unless_allowed() {
        assert_eq!(Config::defaults().admin_listen, None);
        let config = parse(&["--admin-listen", "localhost:9090"])
            .resolve()
            .unwrap();
        assert_eq!(config.admin_listen, Some("127.0.0.1:9090".parse().unwrap()));
        let err = parse(&["--admin-listen", ":9090"]).resolve().unwrap_err();
        assert!(err.to_string().contains("--admin-listen"), "{err}");
        let allowed = parse(&["--admin-listen", ":9090", "--insecure-allow-anonymous"]);
        assert!(allowed.resolve().is_ok());
    }

    #[test]
    fn memory_must_hold_the_largest_item_twice() {
        let err = parse(&["--max-memory", "6MiB"]).resolve().unwrap_err();
        assert!(err.to_string().contains("--max-memory"));
    }
}
