//! What operators rely on beyond the calls: gRPC health that follows the
//! store, reflection in both versions, values of the largest allowed size,
//! warnings about misspelt `JIFFY_*` variables, and the start-up log.

use crate::common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use bytes::Bytes;
use common::stores::RedisNode;
use common::{assert_status, free_port, in_cache, server_binary, wait_until, TestServer};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{
    ECacheResult, GetRequest, SetBatchRequest, SetIfRequest, SetRequest,
};
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

async fn health_of(channel: &Channel, service: &str) -> ServingStatus {
    let request = HealthCheckRequest {
        service: service.to_owned(),
    };
    let answer = HealthClient::new(channel.clone()).check(request).await;
    answer.unwrap().into_inner().status()
}

async fn all_health_is(channel: &Channel, wanted: ServingStatus) -> bool {
    for service in ["", "cache_client.Scs", "control_client.ScsControl"] {
        if health_of(channel, service).await != wanted {
            return false;
        }
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_health_follows_readiness_of_the_redis_store() {
    let port = free_port();
    let redis = RedisNode::start(port).await;
    let store = format!("redis://127.0.0.1:{port}");
    let server = TestServer::with_args(&["--store", &store, "--store-timeout", "300ms"]).await;
    let channel = server.channel().await;
    assert!(all_health_is(&channel, ServingStatus::Serving).await);
    let mut watch = HealthClient::new(channel.clone())
        .watch(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let first = watch.next().await.unwrap().unwrap();
    assert_eq!(first.status(), ServingStatus::Serving);

    drop(redis);
    wait_until("gRPC health NOT_SERVING", || {
        all_health_is(&channel, ServingStatus::NotServing)
    })
    .await;
    let (status, why) = common::http_get(server.metrics_addr, "/readyz").await;
    assert_eq!(status, 503, "{why}");
    let change = watch.next().await.unwrap().unwrap();
    assert_eq!(change.status(), ServingStatus::NotServing);

    let _redis = RedisNode::start(port).await;
    wait_until("gRPC health SERVING again", || {
        all_health_is(&channel, ServingStatus::Serving)
    })
    .await;
    let change = watch.next().await.unwrap().unwrap();
    assert_eq!(change.status(), ServingStatus::Serving);
    assert_eq!(
        common::http_get(server.metrics_addr, "/readyz").await.0,
        200
    );
}

#[tokio::test]
async fn grpc_health_is_not_serving_once_shutdown_begins() {
    let server = TestServer::start().await;
    let channel = server.channel().await;
    let mut watch = HealthClient::new(channel)
        .watch(HealthCheckRequest {
            service: "cache_client.Scs".into(),
        })
        .await
        .unwrap()
        .into_inner();
    let first = watch.next().await.unwrap().unwrap();
    assert_eq!(first.status(), ServingStatus::Serving);
    let stopping = tokio::spawn(server.stop());
    let change = watch.next().await.unwrap().unwrap();
    assert_eq!(change.status(), ServingStatus::NotServing);
    // An open Watch is a call in flight: closed, shutdown need not wait.
    drop(watch);
    stopping.await.unwrap();
}

/// The services that reflection of `version` (`v1`, `v1alpha`: the same
/// messages in two packages) lists over `channel`.
macro_rules! list_services {
    ($version:ident, $channel:expr) => {{
        use $version::server_reflection_request::MessageRequest;
        use $version::server_reflection_response::MessageResponse;
        let request = $version::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut client = $version::server_reflection_client::ServerReflectionClient::new($channel);
        let mut answers = client
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .unwrap()
            .into_inner();
        let answer = answers.next().await.unwrap().unwrap();
        let Some(MessageResponse::ListServicesResponse(list)) = answer.message_response else {
            panic!("not a list of services: {answer:?}");
        };
        list.service
            .into_iter()
            .map(|service| service.name)
            .collect::<Vec<String>>()
    }};
}

#[tokio::test]
async fn reflection_v1_and_v1alpha_list_every_service() {
    use tonic_reflection::pb::{v1, v1alpha};
    let server = TestServer::start().await;
    let channel = server.channel().await;

    let v1_names = list_services!(v1, channel.clone());
    let v1alpha_names = list_services!(v1alpha, channel);

    for mut names in [v1_names, v1alpha_names] {
        names.sort();
        assert_eq!(
            names,
            [
                "auth.Auth",
                "cache_client.Ping",
                "cache_client.Scs",
                "cache_client.pubsub.Pubsub",
                "control_client.ScsControl",
                "grpc.health.v1.Health",
                "grpc.reflection.v1.ServerReflection",
                "grpc.reflection.v1alpha.ServerReflection",
                "jiffy.admin.Admin",
                "leaderboard.Leaderboard",
                "token.Token",
                "webhook.Webhook",
            ]
        );
    }
}

fn set(key: &str, size: usize) -> SetRequest {
    SetRequest {
        cache_key: Bytes::copy_from_slice(key.as_bytes()),
        cache_body: Bytes::from(vec![b'v'; size]),
        ttl_milliseconds: 60_000,
    }
}

const MAX_VALUE: usize = 5 << 20;

#[tokio::test]
async fn a_value_of_the_largest_size_fits_and_a_larger_one_is_told_its_size() {
    let server = TestServer::start().await;
    common::create_cache(&mut server.control().await, "c").await;
    let mut client = ScsClient::new(server.channel().await).max_decoding_message_size(8 << 20);
    // The largest key and value at once: what the derived request limit
    // leaves room for.
    let key = "k".repeat(4096);
    client
        .set(in_cache("c", set(&key, MAX_VALUE)))
        .await
        .expect("a value of exactly --max-value-size fits");
    let get = GetRequest {
        cache_key: Bytes::copy_from_slice(key.as_bytes()),
    };
    let got = client.get(in_cache("c", get)).await.unwrap().into_inner();
    assert_eq!(got.result(), ECacheResult::Hit);
    assert_eq!(got.cache_body.len(), MAX_VALUE);

    // Just over: the handler reads it and names its size.
    let status = assert_status(
        client.set(in_cache("c", set("k", MAX_VALUE + 1))).await,
        Code::ResourceExhausted,
        Some("item_size_limit_exceeded"),
    );
    let message = status.message();
    assert!(message.contains(&(MAX_VALUE + 1).to_string()), "{message}");
    assert!(message.contains("--max-value-size"), "{message}");
    assert!(!message.contains("--max-request-size"), "{message}");

    // Far over, refused before it is read: the size of the request it
    // came in, and the value limit, not the request limit.
    for answer in [
        client.set(in_cache("c", set("k", 6 << 20))).await.map(drop),
        client
            .set_if_not_exists(in_cache(
                "c",
                jiffy_server::proto::cache_client::SetIfNotExistsRequest {
                    cache_key: Bytes::from_static(b"k"),
                    cache_body: Bytes::from(vec![b'v'; 6 << 20]),
                    ttl_milliseconds: 60_000,
                },
            ))
            .await
            .map(drop),
    ] {
        let status = assert_status(
            answer,
            Code::ResourceExhausted,
            Some("item_size_limit_exceeded"),
        );
        let message = status.message();
        assert!(message.contains("--max-value-size"), "{message}");
        assert!(message.contains(&MAX_VALUE.to_string()), "{message}");
        assert!(message.contains("the request is 629"), "{message}");
        assert!(!message.contains("--max-request-size"), "{message}");
    }

    // A batch, or a SetIf (which may carry a second value), over the limit
    // is still a request over the request limit.
    let items = (0..2).map(|i| set(&i.to_string(), 3 << 20)).collect();
    let batch = client
        .set_batch(in_cache("c", SetBatchRequest { items }))
        .await
        .map(drop);
    let status = assert_status(
        batch,
        Code::ResourceExhausted,
        Some("request_size_limit_exceeded"),
    );
    assert!(
        status.message().contains("--max-request-size"),
        "{status:?}"
    );
    let set_if = SetIfRequest {
        cache_key: Bytes::from_static(b"k"),
        cache_body: Bytes::from(vec![b'v'; 6 << 20]),
        ttl_milliseconds: 60_000,
        condition: None,
    };
    let status = assert_status(
        client.set_if(in_cache("c", set_if)).await.map(drop),
        Code::ResourceExhausted,
        Some("request_size_limit_exceeded"),
    );
    assert!(
        status.message().contains("--max-request-size"),
        "{status:?}"
    );
}

#[tokio::test]
async fn a_given_request_limit_is_named_as_before() {
    let server = TestServer::with_args(&["--max-request-size", "1MiB"]).await;
    common::create_cache(&mut server.control().await, "c").await;
    let mut client = server.data().await;
    let status = assert_status(
        client.set(in_cache("c", set("k", 2 << 20))).await,
        Code::ResourceExhausted,
        Some("request_size_limit_exceeded"),
    );
    assert!(
        status.message().contains("--max-request-size"),
        "{status:?}"
    );
}

/// The built server with `args` and `envs`, its log in a file: the gRPC
/// address once it listens, and the log read so far (each call reads it
/// whole again).
struct LoggingServer {
    child: Child,
    addr: SocketAddr,
    log: tempfile::NamedTempFile,
}

impl LoggingServer {
    fn spawn(args: &[&str], envs: &[(&str, &str)]) -> LoggingServer {
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new(server_binary())
            .args(["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"])
            .args(args)
            .envs(envs.iter().copied())
            .stdout(Stdio::piped())
            .stderr(log.reopen().unwrap())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        for line in stdout.lines() {
            if let Some(addr) = line.unwrap().strip_prefix("listening on ") {
                let addr = addr.parse().unwrap();
                return LoggingServer { child, addr, log };
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("jiffy-server exited before printing `listening on`");
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap()
    }

    /// The log once a line holding `wanted` is in it.
    async fn log_with(&self, wanted: &str) -> String {
        wait_until(wanted, || async { self.log().contains(wanted) }).await;
        self.log()
    }
}

impl Drop for LoggingServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn misspelt_jiffy_variables_are_warned_about_with_a_suggestion() {
    let server = LoggingServer::spawn(
        &[],
        &[("JIFFY_MAX_MEMROY", "64MiB"), ("JIFFY_LOG_LEVEL", "debug")],
    );
    let log = server.log_with("JIFFY_MAX_MEMROY").await;
    let line = |name: &str| {
        log.lines()
            .find(|line| line.contains(name))
            .unwrap_or_else(|| panic!("no line names {name}: {log}"))
            .to_owned()
    };
    let memroy = line("JIFFY_MAX_MEMROY");
    assert!(memroy.contains("WARN"), "{memroy}");
    assert!(
        memroy.contains("did you mean JIFFY_MAX_MEMORY?"),
        "{memroy}"
    );
    let level = line("JIFFY_LOG_LEVEL");
    assert!(level.contains("JIFFY_LOG"), "{level}");
    assert!(level.contains("--log-level"), "{level}");
    // A warning, not a reason to stop: the server serves.
    tokio::net::TcpStream::connect(server.addr).await.unwrap();
}

#[tokio::test]
async fn json_logs_are_flat_and_name_the_listen_addresses() {
    let server = LoggingServer::spawn(&["--log-format", "json"], &[]);
    let log = server.log_with("\"listening\"").await;
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    for line in &lines {
        assert!(line["message"].is_string(), "{line}");
        assert!(line.get("fields").is_none(), "{line}");
    }
    let listening = lines
        .iter()
        .find(|line| line["message"] == "listening")
        .unwrap();
    assert_eq!(listening["grpc"], server.addr.to_string(), "{listening}");
    assert!(
        listening["metrics"]
            .as_str()
            .unwrap()
            .starts_with("127.0.0.1:"),
        "{listening}"
    );
    assert_eq!(listening["protosocket"], "off", "{listening}");
}

#[tokio::test]
async fn text_logs_name_the_listen_addresses() {
    let server = LoggingServer::spawn(&[], &[]);
    let log = server.log_with("listening").await;
    assert!(log.contains(&format!("grpc={}", server.addr)), "{log}");
}
