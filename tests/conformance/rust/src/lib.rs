//! Support for the Rust conformance suite: a jiffy-server child process on
//! free ports, and the official `momento` crate's two cache clients pointed
//! at it, built exactly as a user would build them.
//!
//! # Layout
//! - [`JiffyServer`]: starts `$JIFFY_SERVER_BIN` with a gRPC and a
//!   protosocket port, reads both from its stdout, kills it when dropped.
//! - [`local_key`], [`grpc_credentials`], [`protosocket_credentials`]: the
//!   credential the crate accepts for a plaintext local server, from a
//!   token wrapped here or from a key `jiffy-server token create --format
//!   momento-v1` printed ([`momento_key`]).
//! - [`grpc_client`], [`protosocket_client`]: the SDK's `CacheClient` and
//!   `ProtosocketCacheClient` on a server ([`grpc_client_at`],
//!   [`protosocket_client_at`]: on an address, for a server started apart).

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use base64::Engine;
use momento::protosocket::cache::configurations as protosocket_configurations;
use momento::{CacheClient, CredentialProvider, ProtosocketCacheClient};

/// The TTL both clients give items set without one.
pub const DEFAULT_TTL: Duration = Duration::from_secs(60);

/// What the clients send as their token to a server without auth, which
/// accepts any; the crate refuses an empty one.
pub const ANONYMOUS_TOKEN: &str = "jiffy-anonymous";

const STARTUP_TIMEOUT: Duration = Duration::from_secs(20);
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// A running jiffy-server. Dropping it kills the process; [`JiffyServer::stop`]
/// stops it the documented way (SIGTERM) and checks it exits cleanly.
pub struct JiffyServer {
    child: Child,
    /// The gRPC port (`--listen`).
    pub grpc: SocketAddr,
    /// The protosocket port (`--protosocket-listen`).
    pub protosocket: SocketAddr,
    /// Everything the server logged, for the failure message of a test.
    stderr: Arc<Mutex<String>>,
}

impl JiffyServer {
    /// Starts the server on free loopback ports, with `extra_args` after
    /// the listen flags. Panics, with the server's stderr, if it does not
    /// print both ports in time.
    pub fn start(extra_args: &[&str]) -> JiffyServer {
        JiffyServer::spawn(Command::new(server_binary()), extra_args)
    }

    /// The same, with the server confined to `cpus` (`taskset -c`), for
    /// measurements.
    pub fn start_on_cpus(cpus: &str, extra_args: &[&str]) -> JiffyServer {
        let mut command = Command::new("taskset");
        command.args(["-c", cpus]).arg(server_binary());
        JiffyServer::spawn(command, extra_args)
    }

    fn spawn(mut command: Command, extra_args: &[&str]) -> JiffyServer {
        let binary = server_binary();
        let mut child = command
            .args(["--listen", "127.0.0.1:0"])
            .args(["--protosocket-listen", "127.0.0.1:0"])
            .args(["--log-level", "warn"])
            .args(extra_args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {}: {e}; build it or set JIFFY_SERVER_BIN",
                    binary.display()
                )
            });
        let stderr = collect(child.stderr.take().expect("stderr is piped"));
        let lines = read_lines(child.stdout.take().expect("stdout is piped"));

        let deadline = Instant::now() + STARTUP_TIMEOUT;
        let (mut grpc, mut protosocket) = (None, None);
        while grpc.is_none() || protosocket.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = lines.recv_timeout(left) else {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "jiffy-server did not print both ports; stderr:\n{}",
                    stderr.lock().unwrap()
                );
            };
            // The protosocket line comes first; "listening on" ends both.
            if let Some(address) = line.strip_prefix("protosocket listening on ") {
                protosocket = Some(address.parse().expect("a socket address"));
            } else if let Some(address) = line.strip_prefix("listening on ") {
                grpc = Some(address.parse().expect("a socket address"));
            }
        }
        JiffyServer {
            child,
            grpc: grpc.unwrap(),
            protosocket: protosocket.unwrap(),
            stderr,
        }
    }

    /// The server's process id (for reading its CPU time in /proc).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Stops the server with SIGTERM, as an operator would, and asserts it
    /// exits with status 0: a crash on shutdown is a bug too. Async, so the
    /// test's runtime keeps driving its clients' connections meanwhile: the
    /// server's graceful shutdown waits for them to close.
    pub async fn stop(mut self) {
        let (status, stderr) = tokio::task::spawn_blocking(move || {
            let status = self.terminate();
            (status, self.stderr.lock().unwrap().clone())
        })
        .await
        .expect("the stopping thread");
        assert!(
            status.success(),
            "jiffy-server exited with {status}; stderr:\n{stderr}"
        );
    }

    fn terminate(&mut self) -> ExitStatus {
        if let Some(status) = self.child.try_wait().expect("wait on jiffy-server") {
            return status;
        }
        // std has no signal but SIGKILL; kill(1) sends the one to test.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + SHUTDOWN_TIMEOUT;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("wait on jiffy-server") {
                return status;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        self.child.wait().expect("wait on jiffy-server")
    }
}

impl Drop for JiffyServer {
    fn drop(&mut self) {
        // After `stop` this finds the process gone; after a failed test it
        // ends the server so no child outlives the test.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The jiffy-server binary: `$JIFFY_SERVER_BIN`, else the repository's
/// release build.
pub fn server_binary() -> PathBuf {
    match std::env::var_os("JIFFY_SERVER_BIN") {
        Some(path) => PathBuf::from(path),
        None => {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../target/release/jiffy-server")
        }
    }
}

/// The lines of `stdout`, as they come; the thread drains it to the end so
/// the server never blocks on a full pipe.
fn read_lines(stdout: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    receiver
}

fn collect(stderr: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let sink = text.clone();
    thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let mut text = sink.lock().unwrap();
            text.push_str(&line);
            text.push('\n');
        }
    });
    text
}

/// A Momento v1 key carrying `token`: base64 of `{"api_key", "endpoint"}`,
/// the one form of token the crate reads without asking a Momento service.
/// The endpoint is overridden before any use ([`grpc_credentials`]); the
/// protosocket client still takes its TLS server name from it, so it must be
/// a hostname, and with plaintext it is never checked.
pub fn local_key(token: &str) -> String {
    assert!(
        !token.contains(['"', '\\']),
        "a token needs no JSON escaping"
    );
    let json = format!(r#"{{"api_key":"{token}","endpoint":"jiffy.localhost"}}"#);
    base64::engine::general_purpose::URL_SAFE.encode(json)
}

/// What `jiffy-server token create --format momento-v1` prints for a key
/// of `role` on every cache, signed with the secret in `secret_file`.
pub fn momento_key(secret_file: &Path, role: &str) -> String {
    let output = Command::new(server_binary())
        .args(["token", "create", "--caches", "all", "--expires-in", "1h"])
        .args(["--role", role, "--format", "momento-v1"])
        .arg("--auth-secret-file")
        .arg(secret_file)
        .output()
        .expect("jiffy-server runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// Credentials for the gRPC `CacheClient` on a plaintext server at `address`:
/// the crate uses the override as the channel's URI, so it needs `http://`.
pub fn grpc_credentials(address: SocketAddr, token: &str) -> CredentialProvider {
    grpc_credentials_of_key(address, local_key(token))
}

/// The same from a v1 key.
pub fn grpc_credentials_of_key(address: SocketAddr, key: String) -> CredentialProvider {
    CredentialProvider::from_disposable_token(key)
        .expect("the crate reads a v1 key")
        .insecure_endpoint_override(&format!("http://{address}"))
}

/// Credentials for the `ProtosocketCacheClient` on a plaintext server at
/// `address`: the crate resolves the override as `host:port`, with no
/// scheme, and with it skips its address discovery over HTTPS.
pub fn protosocket_credentials(address: SocketAddr, token: &str) -> CredentialProvider {
    protosocket_credentials_of_key(address, local_key(token))
}

/// The same from a v1 key.
pub fn protosocket_credentials_of_key(address: SocketAddr, key: String) -> CredentialProvider {
    CredentialProvider::from_disposable_token(key)
        .expect("the crate reads a v1 key")
        .insecure_endpoint_override(&address.to_string())
}

/// The SDK's gRPC client on `server`, with the Laptop configuration.
pub fn grpc_client(server: &JiffyServer) -> CacheClient {
    grpc_client_at(server.grpc)
}

/// The SDK's gRPC client on the gRPC port at `address` of a server without
/// auth, with the Laptop configuration.
pub fn grpc_client_at(address: SocketAddr) -> CacheClient {
    CacheClient::builder()
        .default_ttl(DEFAULT_TTL)
        .configuration(momento::cache::configurations::Laptop::latest())
        .credential_provider(grpc_credentials(address, ANONYMOUS_TOKEN))
        .build()
        .expect("the gRPC client builds")
}

/// The SDK's protosocket client on `server`, with the Laptop configuration.
pub async fn protosocket_client(server: &JiffyServer) -> ProtosocketCacheClient {
    protosocket_client_at(server.protosocket).await
}

/// The SDK's protosocket client on the protosocket port at `address` of a
/// server without auth, with the Laptop configuration.
pub async fn protosocket_client_at(address: SocketAddr) -> ProtosocketCacheClient {
    protosocket_client_with(
        protosocket_credentials(address, ANONYMOUS_TOKEN),
        protosocket_configurations::Laptop::latest(),
    )
    .await
}

/// The SDK's protosocket client with the given credentials and configuration.
pub async fn protosocket_client_with(
    credentials: CredentialProvider,
    configuration: impl Into<momento::protosocket::cache::Configuration>,
) -> ProtosocketCacheClient {
    ProtosocketCacheClient::builder()
        .default_ttl(DEFAULT_TTL)
        .configuration(configuration)
        .credential_provider(credentials)
        .runtime(tokio::runtime::Handle::current())
        .build()
        .await
        .expect("the protosocket client builds")
}
