//! The `jiffy-server` binary: reads the configuration, binds, and runs; or,
//! with `token create`, prints a token signed with the server secret.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use jiffy_server::auth::token::TokenCommand;
use jiffy_server::config::{Cli, Command, Config, ConfigError, LogFormat, Settings};
use tokio::net::TcpListener;

// jemalloc returns freed memory to the OS steadily and fragments less under
// churn, which keeps resident memory close to --max-memory.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc settings, read at start-up: freed pages go back to the OS at
/// once, by the thread that frees them. Under eviction churn the default
/// ten-second decay kept tens of MiB of freed pages resident, well past
/// --max-memory (measured by tests/memory.rs); a 10 ms decay still took the
/// mixed fill of `attacks_budget::memory_caps` to 1.21x its caps.
///
/// No background thread: with one, each slab a free emptied woke it to
/// purge, about 48,000 wake-ups a second under list pushes on one
/// connection, each taking the worker's core from it. Purging in the
/// freeing thread cost 13.0 µs of server CPU a push against 18.0 µs
/// (bench/README.md, "Issue 30's work against main before it").
/// `_RJEM_MALLOC_CONF` in the environment still overrides these.
#[cfg(not(target_env = "msvc"))]
#[export_name = "_rjem_malloc_conf"]
pub static JEMALLOC_CONF: &u8 = &b"background_thread:false,dirty_decay_ms:0,muzzy_decay_ms:0\0"[0];

fn main() -> ExitCode {
    #[cfg(not(target_env = "msvc"))]
    jiffy_server::allocator::declare_global();
    let cli = Cli::parse_with_defaults();
    let config = match cli
        .settings
        .with_file(cli.config.as_deref())
        .and_then(Settings::resolve)
        .and_then(|config| config.with_cache_limits_from(cli.config.as_deref()))
    {
        Ok(config) => config,
        Err(error) => return bad_config(error),
    };
    if let Some(Command::Token(command)) = cli.command {
        return token_command(command, &config);
    }
    init_logging(&config);
    let variables = std::env::vars_os().filter_map(|(name, _)| name.into_string().ok());
    for warning in jiffy_server::config::unknown_environment(variables) {
        tracing::warn!("{warning}");
    }
    let mut config = config;
    // Each side port that is on holds up to its own cap beside the cache ports.
    let side_ports = [
        config.metrics_listen.is_some(),
        config.admin_listen.is_some(),
    ]
    .into_iter()
    .filter(|on| *on)
    .count();
    match jiffy_server::listener::descriptors::fit(
        config.max_connections,
        side_ports * config.max_side_port_connections,
        config.max_connections_given,
    ) {
        Ok(fits) if fits < config.max_connections => {
            tracing::warn!(
                max_connections = fits,
                "the file-descriptor limit is too low for the default --max-connections; lowered"
            );
            config.max_connections = fits;
        }
        Ok(_) => {}
        Err(message) => return bad_config(ConfigError::Invalid(message)),
    }
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.worker_threads(config.workers).enable_all();
    #[cfg(not(target_env = "msvc"))]
    runtime.on_thread_park(jiffy_server::thread_cache::on_worker_park);
    let runtime = runtime.build().expect("cannot start the tokio runtime");
    #[cfg(not(target_env = "msvc"))]
    runtime.spawn(jiffy_server::thread_cache::give_back_when_idle());
    match runtime.block_on(serve(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("jiffy-server: {error}");
            ExitCode::FAILURE
        }
    }
}

fn bad_config(error: ConfigError) -> ExitCode {
    eprintln!("jiffy-server: {error}");
    ExitCode::from(2)
}

fn token_command(command: TokenCommand, config: &Config) -> ExitCode {
    let TokenCommand::Create(args) = command;
    let Some(secret) = &config.auth else {
        return bad_config(ConfigError::Invalid(
            "token create needs the server secret: give --auth-secret-file (or \
             JIFFY_AUTH_SECRET_FILE, or auth-secret-file in the --config file)"
                .into(),
        ));
    };
    match args.create(
        secret,
        &config.public_endpoint,
        std::time::SystemTime::now(),
    ) {
        Ok(printed) => {
            println!("{printed}");
            ExitCode::SUCCESS
        }
        Err(message) => bad_config(ConfigError::Invalid(message)),
    }
}

async fn serve(config: Config) -> Result<(), jiffy_server::BoxError> {
    let listener = bind(config.listen)?;
    let metrics_listener = match config.metrics_listen {
        Some(address) => Some(bind(address)?),
        None => None,
    };
    let protosocket_listener = match config.protosocket_listen {
        Some(address) => Some(bind(address)?),
        None => None,
    };
    let http_listener = match config.http_listen {
        Some(address) => Some(bind(address)?),
        None => None,
    };
    let admin_listener = match config.admin_listen {
        Some(address) => Some(bind(address)?),
        None => None,
    };
    if let Some(admin) = &admin_listener {
        println!("admin listening on {}", admin.local_addr()?);
    }
    if let Some(metrics) = &metrics_listener {
        println!("metrics listening on {}", metrics.local_addr()?);
    }
    if let Some(protosocket) = &protosocket_listener {
        println!("protosocket listening on {}", protosocket.local_addr()?);
    }
    if let Some(http) = &http_listener {
        println!("http listening on {}", http.local_addr()?);
    }
    // Scripts wait for this line: the listener is bound and accepting.
    println!("listening on {}", listener.local_addr()?);
    std::io::stdout().flush()?;
    let listeners = jiffy_server::server::Listeners {
        grpc: listener,
        metrics: metrics_listener,
        protosocket: protosocket_listener,
        http: http_listener,
        admin: admin_listener,
    };
    jiffy_server::server::run_with(listeners, config, shutdown_signal()).await
}

/// Connections the kernel may hold for each port before `accept`. tokio's
/// `TcpListener::bind` asks for 128, which a burst of reconnecting clients
/// overflows: the kernel then drops SYNs, each retried a second later, and
/// a new client waits that second. The kernel caps it at
/// `net.core.somaxconn` (4,096 on current Linux).
const LISTEN_BACKLOG: u32 = 1_024;

fn bind(address: std::net::SocketAddr) -> Result<TcpListener, jiffy_server::BoxError> {
    let listen = || -> std::io::Result<TcpListener> {
        let socket = if address.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        socket.set_reuseaddr(true)?;
        socket.bind(address)?;
        socket.listen(LISTEN_BACKLOG)
    };
    listen().map_err(|e| format!("cannot listen on {address}: {e}").into())
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut terminate = signal(SignalKind::terminate()).expect("cannot watch SIGTERM");
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

fn init_logging(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_new(&config.log_level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    match config.log_format {
        // The message at the top level of each line, beside the level and
        // fields, where log pipelines look for it.
        LogFormat::Json => builder.json().flatten_event(true).init(),
        LogFormat::Text => builder.init(),
    }
}
