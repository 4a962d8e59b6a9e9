//! Test harness: a real jiffy-server on 127.0.0.1:0, in-process or as the
//! built binary, and clients that reach it over real sockets.
#![allow(dead_code)] // each test file uses a different part of the harness

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use bytes::Bytes;
use jiffy_server::config::{Config, Settings};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{GetRequest, SetRequest};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::{Cache, CreateCacheRequest, ListCachesRequest};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status};

/// A server running inside the test's runtime; stopped when dropped.
pub struct TestServer {
    pub addr: SocketAddr,
    pub metrics_addr: SocketAddr,
    /// With `--protosocket-listen`: the protosocket port (on a free port).
    pub protosocket_addr: Option<SocketAddr>,
    /// With `--http-listen`: the HTTP API's port (on a free port).
    pub http_addr: Option<SocketAddr>,
    /// With `--admin-listen`: the test admin port (on a free port).
    pub admin_addr: Option<SocketAddr>,
    stop: Option<oneshot::Sender<()>>,
    pub handle: tokio::task::JoinHandle<Result<(), jiffy_server::BoxError>>,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::with_args(&[]).await
    }

    /// Starts a server configured by command-line style `args`.
    pub async fn with_args(args: &[&str]) -> TestServer {
        TestServer::with_config(config(args)).await
    }

    pub async fn with_config(config: Config) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let metrics = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let metrics_addr = metrics.local_addr().unwrap();
        let protosocket = match config.protosocket_listen {
            Some(_) => Some(TcpListener::bind("127.0.0.1:0").await.unwrap()),
            None => None,
        };
        let protosocket_addr = protosocket.as_ref().map(|l| l.local_addr().unwrap());
        let http = match config.http_listen {
            Some(_) => Some(TcpListener::bind("127.0.0.1:0").await.unwrap()),
            None => None,
        };
        let http_addr = http.as_ref().map(|l| l.local_addr().unwrap());
        let admin = match config.admin_listen {
            Some(_) => Some(TcpListener::bind("127.0.0.1:0").await.unwrap()),
            None => None,
        };
        let admin_addr = admin.as_ref().map(|l| l.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        let listeners = jiffy_server::server::Listeners {
            grpc: listener,
            metrics: Some(metrics),
            protosocket,
            http,
            admin,
        };
        let handle = tokio::spawn(jiffy_server::server::run_with(
            listeners,
            config,
            async move {
                let _ = stopped.await;
            },
        ));
        TestServer {
            addr,
            metrics_addr,
            protosocket_addr,
            http_addr,
            admin_addr,
            stop: Some(stop),
            handle,
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn channel(&self) -> Channel {
        Endpoint::from_shared(self.url())
            .unwrap()
            .connect()
            .await
            .unwrap()
    }

    pub async fn data(&self) -> ScsClient<Channel> {
        ScsClient::new(self.channel().await)
    }

    pub async fn control(&self) -> ScsControlClient<Channel> {
        ScsControlClient::new(self.channel().await)
    }

    /// The caches ListCaches answers.
    pub async fn list_caches(&self) -> Vec<Cache> {
        self.control()
            .await
            .list_caches(ListCachesRequest::default())
            .await
            .unwrap()
            .into_inner()
            .cache
    }

    /// A data-plane client whose calls go to `cache`, created first.
    pub async fn cache(&self, cache: &str) -> Data {
        create_cache(&mut self.control().await, cache).await;
        Data {
            client: self.data().await,
            cache: cache.to_owned(),
        }
    }

    /// The Prometheus text from the metrics endpoint.
    pub async fn metrics(&self) -> String {
        scrape(self.metrics_addr).await
    }

    /// Asks the server to stop and waits until it has.
    pub async fn stop(mut self) {
        let _ = self.stop.take().unwrap().send(());
        (&mut self.handle).await.unwrap().unwrap();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The secret of the tests' in-process servers with auth on.
pub const TEST_SECRET: &[u8] = b"a-test-secret-that-is-long-enough-for-hs256";

/// The configuration a server started with `args` would have.
pub fn config(args: &[&str]) -> Config {
    use clap::Parser;
    Settings::try_parse_from(std::iter::once("jiffy-server").chain(args.iter().copied()))
        .unwrap()
        .resolve()
        .unwrap()
}

pub async fn create_cache(control: &mut ScsControlClient<Channel>, name: &str) {
    control
        .create_cache(CreateCacheRequest {
            cache_name: name.to_owned(),
        })
        .await
        .unwrap();
}

/// A data-plane client bound to one cache: wraps messages with the header.
pub struct Data {
    pub client: ScsClient<Channel>,
    pub cache: String,
}

impl Data {
    pub fn request<T>(&self, message: T) -> Request<T> {
        in_cache(&self.cache, message)
    }

    /// Stores `value` under `key` for a minute.
    pub async fn put(&mut self, key: &[u8], value: &[u8]) {
        let set = SetRequest {
            cache_key: Bytes::copy_from_slice(key),
            cache_body: Bytes::copy_from_slice(value),
            ttl_milliseconds: 60_000,
        };
        self.client.set(self.request(set)).await.unwrap();
    }

    /// The value under `key`; empty on a miss.
    pub async fn value_of(&mut self, key: &[u8]) -> Bytes {
        let get = GetRequest {
            cache_key: Bytes::copy_from_slice(key),
        };
        let answer = self.client.get(self.request(get)).await.unwrap();
        answer.into_inner().cache_body
    }
}

/// A request carrying the `cache` header.
pub fn in_cache<T>(cache: &str, message: T) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("cache", MetadataValue::try_from(cache).unwrap());
    request
}

/// A token for a server whose secret is `secret`, valid for an hour.
pub fn signed_token(
    secret: &[u8],
    caches: jiffy_server::auth::CacheScope,
    role: jiffy_server::auth::Role,
    subject: Option<&str>,
) -> String {
    use jiffy_server::auth::{token, Claims, Secret};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = Claims::with_role(subject.map(str::to_owned), now, now + 3600, caches, role);
    token::sign(&Secret::from_bytes(secret).unwrap(), &claims)
}

/// A request carrying `token` as its `authorization`.
pub fn with_token<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("authorization", MetadataValue::try_from(token).unwrap());
    request
}

/// Asserts a call failed with `code` and, when given, the `err` reason.
pub fn assert_status<T: std::fmt::Debug>(
    result: Result<T, Status>,
    code: Code,
    reason: Option<&str>,
) -> Status {
    let status = result.expect_err("the call should fail");
    assert_eq!(status.code(), code, "unexpected status: {status:?}");
    let err = status
        .metadata()
        .get("err")
        .map(|v| v.to_str().unwrap().to_owned());
    assert_eq!(err.as_deref(), reason, "unexpected err trailer: {status:?}");
    status
}

/// GET /metrics over a plain TCP socket (HTTP/1.0 keeps the test dependency-free).
pub async fn scrape(addr: SocketAddr) -> String {
    let (status, body) = http_get(addr, "/metrics").await;
    assert_eq!(status, 200, "{body}");
    body
}

/// GET `path` of the metrics listener: the status code and the body.
pub async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {response}"));
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap();
    (status, body)
}

/// The value of one sample line (`name{labels} value`) in a Prometheus text.
pub fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// One series of a server process's /metrics (started with `--metrics-listen`).
pub async fn process_metric(server: &ServerProcess, series: &str) -> f64 {
    let text = scrape(
        server
            .metrics_addr
            .expect("started without --metrics-listen"),
    )
    .await;
    sample(&text, series).unwrap_or_else(|| panic!("{series} not served"))
}

/// Waits (up to 30 s) until the server counts exactly `expected` open connections.
pub async fn wait_for_open_connections(server: &ServerProcess, expected: f64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let open = process_metric(server, "jiffy_open_connections").await;
        if open == expected {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server counts {open} open connections, expected {expected}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// `$JIFFY_SERVER_BIN` (`make test` points it at the release build, whose
/// memory and speed are what users get), else the binary cargo built for tests.
pub fn server_binary() -> String {
    std::env::var("JIFFY_SERVER_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_jiffy-server").to_owned())
}

/// The built server with its metrics port and `--max-memory max_memory`,
/// and a channel to it on which cache "c" exists: the memory tests' start.
pub async fn spawn_with_cache(max_memory: &str) -> (ServerProcess, Channel) {
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--metrics-listen",
        "127.0.0.1:0",
        "--max-memory",
        max_memory,
    ];
    let server = ServerProcess::spawn(&args, &[]);
    let channel = connect_with_cache(server.url()).await;
    (server, channel)
}

/// A channel to the server at `url`, on which cache "c" exists.
pub async fn connect_with_cache(url: String) -> Channel {
    let channel = Endpoint::from_shared(url).unwrap().connect().await.unwrap();
    create_cache(&mut ScsControlClient::new(channel.clone()), "c").await;
    channel
}

/// The built `jiffy-server` binary, started with `args`; killed when dropped.
pub struct ServerProcess {
    pub child: Child,
    pub addr: SocketAddr,
    pub metrics_addr: Option<SocketAddr>,
    /// With `--protosocket-listen`: the port its `protosocket listening on`
    /// line printed.
    pub protosocket_addr: Option<SocketAddr>,
    /// With `--http-listen`: the port its `http listening on` line printed.
    pub http_addr: Option<SocketAddr>,
    /// With `--admin-listen`: the port its `admin listening on` line printed.
    pub admin_addr: Option<SocketAddr>,
}

impl ServerProcess {
    pub fn spawn(args: &[&str], envs: &[(&str, &str)]) -> ServerProcess {
        let mut child = Command::new(server_binary())
            .args(args)
            .envs(envs.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut metrics_addr = None;
        let mut protosocket_addr = None;
        let mut http_addr = None;
        let mut admin_addr = None;
        for line in lines.by_ref() {
            let line = line.unwrap();
            if let Some(addr) = line.strip_prefix("metrics listening on ") {
                metrics_addr = Some(addr.parse().unwrap());
            } else if let Some(addr) = line.strip_prefix("protosocket listening on ") {
                protosocket_addr = Some(addr.parse().unwrap());
            } else if let Some(addr) = line.strip_prefix("http listening on ") {
                http_addr = Some(addr.parse().unwrap());
            } else if let Some(addr) = line.strip_prefix("admin listening on ") {
                admin_addr = Some(addr.parse().unwrap());
            } else if let Some(addr) = line.strip_prefix("listening on ") {
                return ServerProcess {
                    child,
                    addr: addr.parse().unwrap(),
                    metrics_addr,
                    protosocket_addr,
                    http_addr,
                    admin_addr,
                };
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("jiffy-server exited before printing `listening on`");
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Resident memory of the server process, from /proc.
    pub fn resident_bytes(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap();
        kib * 1024
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        self.child.wait().unwrap()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub mod attack;
pub mod bad_calls;
pub mod baseline;
pub mod collections;
pub mod open_files;
pub mod protosocket;
pub mod raw_grpc;
pub mod raw_http2;
pub mod redis_cluster;
pub mod stores;
pub mod topics;

/// Polls `ready` every 50 ms until it holds, for at most 15 s.
pub async fn wait_until<F, Fut>(what: &str, mut ready: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while !ready().await {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting: {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}
