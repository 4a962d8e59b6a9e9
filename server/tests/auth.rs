//! Signed-token auth against the real binary: `token create`, every outcome
//! of the per-call check, scopes, expiry, and the loopback-only rule for
//! serving without auth.

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{sample, server_binary, ServerProcess};
use jiffy_server::proto::cache_client::ping_client::PingClient;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{
    sorted_set_length_response, GetRequest, PingRequest, SetRequest, SortedSetElement,
    SortedSetLengthRequest, SortedSetPutRequest,
};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::{
    CreateCacheRequest, DeleteCacheRequest, FlushCacheRequest, ListCachesRequest,
};
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request, Status};

/// A secret file in its own temporary directory.
struct SecretFile {
    dir: tempfile::TempDir,
}

impl SecretFile {
    fn new(secret: &str) -> SecretFile {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secret"), format!("{secret}\n")).unwrap();
        SecretFile { dir }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("secret")
    }

    fn arg(&self) -> String {
        self.path().to_str().unwrap().to_owned()
    }
}

const SECRET: &str = "a-test-secret-that-is-long-enough-for-hs256";
const OTHER_SECRET: &str = "another-secret-also-long-enough-for-hs256!";

/// `jiffy-server token create` with `args`; the token it prints.
fn create_token(secret: &Path, args: &[&str]) -> String {
    let output = Command::new(server_binary())
        .args(["token", "create", "--auth-secret-file"])
        .arg(secret)
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let token = stdout.trim();
    assert_eq!(
        token.lines().count(),
        1,
        "one token, nothing else: {stdout}"
    );
    token.to_owned()
}

fn token(secret: &SecretFile, caches: &str, role: &str) -> String {
    create_token(
        &secret.path(),
        &["--caches", caches, "--role", role, "--expires-in", "1h"],
    )
}

/// A server with auth on, and an admin token for setting up its caches.
struct AuthServer {
    process: ServerProcess,
    secret: SecretFile,
    channel: Channel,
}

impl AuthServer {
    async fn start(caches: &[&str]) -> AuthServer {
        let secret = SecretFile::new(SECRET);
        let process = ServerProcess::spawn(
            &[
                "--listen",
                "127.0.0.1:0",
                "--metrics-listen",
                "127.0.0.1:0",
                "--auth-secret-file",
                &secret.arg(),
            ],
            &[],
        );
        let channel = Endpoint::from_shared(process.url())
            .unwrap()
            .connect()
            .await
            .unwrap();
        let server = AuthServer {
            process,
            secret,
            channel,
        };
        let admin = server.token("all", "admin");
        for cache in caches {
            server.create(&admin, cache).await.unwrap();
        }
        server
    }

    fn token(&self, caches: &str, role: &str) -> String {
        token(&self.secret, caches, role)
    }

    async fn get(&self, token: Option<&str>, cache: &str) -> Result<(), Status> {
        let request = authorized(
            token,
            Some(cache),
            GetRequest {
                cache_key: "k".into(),
            },
        );
        ScsClient::new(self.channel.clone())
            .get(request)
            .await
            .map(drop)
    }

    async fn set(&self, token: &str, cache: &str) -> Result<(), Status> {
        let set = SetRequest {
            cache_key: "k".into(),
            cache_body: "v".into(),
            ttl_milliseconds: 60_000,
        };
        let request = authorized(Some(token), Some(cache), set);
        ScsClient::new(self.channel.clone())
            .set(request)
            .await
            .map(drop)
    }

    fn control(&self) -> ScsControlClient<Channel> {
        ScsControlClient::new(self.channel.clone())
    }

    async fn create(&self, token: &str, cache: &str) -> Result<(), Status> {
        let create = CreateCacheRequest {
            cache_name: cache.into(),
        };
        let request = authorized(Some(token), None, create);
        self.control().create_cache(request).await.map(drop)
    }

    async fn flush(&self, token: &str, cache: &str) -> Result<(), Status> {
        let flush = FlushCacheRequest {
            cache_name: cache.into(),
        };
        let request = authorized(Some(token), None, flush);
        self.control().flush_cache(request).await.map(drop)
    }

    async fn delete(&self, token: &str, cache: &str) -> Result<(), Status> {
        let delete = DeleteCacheRequest {
            cache_name: cache.into(),
        };
        let request = authorized(Some(token), None, delete);
        self.control().delete_cache(request).await.map(drop)
    }

    async fn list(&self, token: &str) -> Result<Vec<String>, Status> {
        let request = authorized(Some(token), None, ListCachesRequest::default());
        let listed = self.control().list_caches(request).await?.into_inner();
        Ok(listed.cache.into_iter().map(|c| c.cache_name).collect())
    }

    async fn ping(&self, token: Option<&str>) -> Result<(), Status> {
        let request = authorized(token, None, PingRequest {});
        PingClient::new(self.channel.clone())
            .ping(request)
            .await
            .map(drop)
    }

    async fn metrics(&self) -> String {
        common::scrape(self.process.metrics_addr.unwrap()).await
    }
}

/// A request with the `authorization` header (as the Momento SDKs send it)
/// and the `cache` header, each when given.
fn authorized<T>(token: Option<&str>, cache: Option<&str>, message: T) -> Request<T> {
    let mut request = Request::new(message);
    if let Some(token) = token {
        request
            .metadata_mut()
            .insert("authorization", MetadataValue::try_from(token).unwrap());
    }
    if let Some(cache) = cache {
        request
            .metadata_mut()
            .insert("cache", MetadataValue::try_from(cache).unwrap());
    }
    request
}

fn assert_code(result: Result<impl std::fmt::Debug, Status>, code: Code) -> Status {
    let status = result.expect_err("the call should be refused");
    assert_eq!(status.code(), code, "{status:?}");
    status
}

#[tokio::test]
async fn a_created_token_works_end_to_end() {
    let server = AuthServer::start(&["c"]).await;
    let writer = server.token("c", "write");
    server.set(&writer, "c").await.unwrap();
    server.get(Some(&writer), "c").await.unwrap();
    // `Bearer ` in front is accepted too, for clients that add it.
    server
        .get(Some(&format!("Bearer {writer}")), "c")
        .await
        .unwrap();
    server.ping(Some(&writer)).await.unwrap();
}

#[tokio::test]
async fn missing_and_bad_tokens_are_unauthenticated() {
    let server = AuthServer::start(&["c"]).await;
    let good = server.token("all", "admin");

    let missing = assert_code(server.get(None, "c").await, Code::Unauthenticated);
    assert!(missing.message().contains("authorization"), "{missing:?}");
    assert_code(server.ping(None).await, Code::Unauthenticated);

    let garbage = assert_code(
        server.get(Some("not-a-token"), "c").await,
        Code::Unauthenticated,
    );
    assert!(garbage.message().contains("malformed"), "{garbage:?}");

    // One character of the signature changed.
    let mut tampered = good.clone().into_bytes();
    let at = tampered.len() - 3;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    let status = assert_code(
        server.get(Some(&tampered), "c").await,
        Code::Unauthenticated,
    );
    assert!(
        !status.message().contains(&tampered),
        "never echo the token"
    );

    // A well-formed token signed with another secret.
    let foreign = token(&SecretFile::new(OTHER_SECRET), "all", "admin");
    let status = assert_code(server.get(Some(&foreign), "c").await, Code::Unauthenticated);
    assert!(status.message().contains("signature"), "{status:?}");
    assert!(!status.message().contains(&foreign), "never echo the token");
    assert_code(server.create(&foreign, "x").await, Code::Unauthenticated);

    // Refusals are counted like any other answer.
    let metrics = server.metrics().await;
    assert_eq!(
        sample(
            &metrics,
            "jiffy_requests_total{code=\"UNAUTHENTICATED\",rpc=\"Get\",transport=\"grpc\"}"
        ),
        Some(4.0),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_token_stops_working_when_it_expires() {
    let server = AuthServer::start(&["c"]).await;
    let short = create_token(
        &server.secret.path(),
        &["--caches", "all", "--role", "read", "--expires-in", "1s"],
    );
    let started = Instant::now();
    let refused = loop {
        match server.get(Some(&short), "c").await {
            Ok(()) => {
                assert!(started.elapsed() < Duration::from_secs(5), "never expired");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(status) => break status,
        }
    };
    assert_eq!(refused.code(), Code::Unauthenticated, "{refused:?}");
    assert!(refused.message().contains("expired"), "{refused:?}");
    // Expired stays expired, also once the verified token is cached.
    assert_code(server.get(Some(&short), "c").await, Code::Unauthenticated);
}

#[tokio::test]
async fn each_role_against_each_call_class() {
    let server = AuthServer::start(&["c"]).await;
    let read = server.token("all", "read");
    let write = server.token("all", "write");
    let admin = server.token("all", "admin");

    // Data reads: every role.
    for token in [&read, &write, &admin] {
        server.get(Some(token), "c").await.unwrap();
    }
    // Data writes: write and admin.
    let denied = assert_code(server.set(&read, "c").await, Code::PermissionDenied);
    assert!(
        denied.message().contains("Set") && denied.message().contains("`write`"),
        "{denied:?}"
    );
    server.set(&write, "c").await.unwrap();
    server.set(&admin, "c").await.unwrap();
    // Control plane: admin only.
    for token in [&read, &write] {
        let denied = assert_code(server.create(token, "new").await, Code::PermissionDenied);
        assert!(denied.message().contains("`admin`"), "{denied:?}");
        assert_code(server.flush(token, "c").await, Code::PermissionDenied);
        assert_code(server.delete(token, "c").await, Code::PermissionDenied);
    }
    server.create(&admin, "new").await.unwrap();
    server.flush(&admin, "new").await.unwrap();
    server.delete(&admin, "new").await.unwrap();
    // ListCaches and Ping: any valid token.
    for token in [&read, &write, &admin] {
        assert_eq!(server.list(token).await.unwrap(), ["c"]);
        server.ping(Some(token)).await.unwrap();
    }
}

/// The collection calls are checked by the class of the catalogue: a write
/// needs `write`, a read `read`.
#[tokio::test]
async fn collection_calls_need_the_role_of_their_class() {
    let server = AuthServer::start(&["c"]).await;
    let read = server.token("all", "read");
    let write = server.token("all", "write");
    let sorted_set_put = |token: &str| {
        let put = SortedSetPutRequest {
            set_name: "s".into(),
            elements: vec![SortedSetElement {
                value: "v".into(),
                score: 1.0,
            }],
            ttl_milliseconds: 60_000,
            refresh_ttl: true,
        };
        let request = authorized(Some(token), Some("c"), put);
        let mut client = ScsClient::new(server.channel.clone());
        async move { client.sorted_set_put(request).await.map(drop) }
    };
    let denied = assert_code(sorted_set_put(&read).await, Code::PermissionDenied);
    assert!(
        denied.message().contains("SortedSetPut") && denied.message().contains("`write`"),
        "{denied:?}"
    );
    sorted_set_put(&write).await.unwrap();
    let length = authorized(
        Some(&read),
        Some("c"),
        SortedSetLengthRequest {
            set_name: "s".into(),
        },
    );
    let answer = ScsClient::new(server.channel.clone())
        .sorted_set_length(length)
        .await
        .unwrap()
        .into_inner();
    assert!(
        matches!(
            answer.sorted_set,
            Some(sorted_set_length_response::SortedSet::Found(ref found)) if found.length == 1
        ),
        "{answer:?}"
    );
}

#[tokio::test]
async fn cache_scopes_all_list_and_prefix() {
    let server = AuthServer::start(&["a", "b", "team-x", "team-y", "other"]).await;

    let listed = server.token("a,b", "write");
    server.set(&listed, "a").await.unwrap();
    server.get(Some(&listed), "b").await.unwrap();
    let denied = assert_code(
        server.get(Some(&listed), "other").await,
        Code::PermissionDenied,
    );
    assert!(denied.message().contains("`other`"), "{denied:?}");
    assert_eq!(server.list(&listed).await.unwrap(), ["a", "b"]);

    let prefixed = server.token("prefix:team-", "admin");
    server.set(&prefixed, "team-x").await.unwrap();
    assert_code(server.set(&prefixed, "a").await, Code::PermissionDenied);
    assert_eq!(server.list(&prefixed).await.unwrap(), ["team-x", "team-y"]);
    // The control plane checks the cache named in the message.
    server.create(&prefixed, "team-z").await.unwrap();
    let denied = assert_code(
        server.create(&prefixed, "mine").await,
        Code::PermissionDenied,
    );
    assert!(denied.message().contains("CreateCache"), "{denied:?}");
    assert_code(
        server.flush(&prefixed, "other").await,
        Code::PermissionDenied,
    );
    assert_code(server.delete(&prefixed, "a").await, Code::PermissionDenied);
    server.delete(&prefixed, "team-z").await.unwrap();

    let everything = server.token("all", "read");
    assert_eq!(
        server.list(&everything).await.unwrap(),
        ["a", "b", "other", "team-x", "team-y"]
    );
    server.get(Some(&everything), "other").await.unwrap();
}

#[test]
fn non_loopback_without_a_secret_refuses_to_start() {
    for listen in ["0.0.0.0:0", "[::]:0"] {
        let output = Command::new(server_binary())
            .args(["--listen", listen])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{listen}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--insecure-allow-anonymous"), "{stderr}");
        assert!(stderr.contains("--auth-secret-file"), "{stderr}");
    }
    let anonymous = ServerProcess::spawn(
        &["--listen", "0.0.0.0:0", "--insecure-allow-anonymous"],
        &[],
    );
    assert!(anonymous.addr.ip().is_unspecified());
    let secret = SecretFile::new(SECRET);
    let with_auth = ServerProcess::spawn(
        &["--listen", "0.0.0.0:0"],
        &[("JIFFY_AUTH_SECRET_FILE", &secret.arg())],
    );
    assert!(with_auth.addr.ip().is_unspecified());
}

#[test]
fn short_secrets_and_token_create_without_one_exit_2() {
    let short = SecretFile::new("only-twenty-bytes-ok");
    let output = Command::new(server_binary())
        .args([
            "--listen",
            "127.0.0.1:0",
            "--auth-secret-file",
            &short.arg(),
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("at least 32"));

    let output = Command::new(server_binary())
        .args(["token", "create", "--caches", "all", "--role", "read"])
        .args(["--expires-in", "1h"])
        .env_remove("JIFFY_AUTH_SECRET_FILE")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--auth-secret-file"));
}

#[tokio::test]
async fn tokens_never_appear_in_the_logs() {
    let secret = SecretFile::new(SECRET);
    let mut child = Command::new(server_binary())
        .args(["--listen", "127.0.0.1:0", "--log-level", "debug"])
        .args(["--auth-secret-file", &secret.arg()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_owned();
    let channel = Endpoint::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();

    let admin = token(&secret, "all", "admin");
    let reader = token(&secret, "c", "read");
    let foreign = token(&SecretFile::new(OTHER_SECRET), "all", "admin");
    let mut control = ScsControlClient::new(channel.clone());
    let create = CreateCacheRequest {
        cache_name: "c".into(),
    };
    control
        .create_cache(authorized(Some(&admin), None, create))
        .await
        .unwrap();
    let mut data = ScsClient::new(channel);
    for token in [&admin, &reader, &foreign] {
        let set = SetRequest {
            cache_key: "k".into(),
            cache_body: "v".into(),
            ttl_milliseconds: 1_000,
        };
        let _ = data.set(authorized(Some(token), Some("c"), set)).await;
    }
    drop(data);
    drop(control);

    // Blocking waits off the runtime, which must go on serving the client
    // side of the connection while the server drains it.
    let logs = tokio::task::spawn_blocking(move || {
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        let mut logs = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut logs)
            .unwrap();
        assert!(child.wait().unwrap().success());
        logs
    })
    .await
    .unwrap();
    // The log did record the calls (so the check below can fail).
    assert!(logs.contains("cache created"), "{logs}");
    assert!(logs.contains("DEBUG"), "{logs}");
    for token in [&admin, &reader, &foreign] {
        let signature = token.rsplit('.').next().unwrap();
        assert!(!logs.contains(signature), "a token was logged:\n{logs}");
    }
    assert!(!logs.contains(SECRET), "the secret was logged");
}
