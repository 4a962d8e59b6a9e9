//! What load balancers, orchestrators and operators' tools call: the gRPC
//! health service (without a token, even with auth on), reflection,
//! `/healthz` and `/readyz`, and the hit, miss, process and build metrics.

use crate::common;

use std::time::Duration;

use common::stores::Store;
use common::{http_get, sample, ServerProcess, TestServer};
use jiffy_server::proto::cache_client::{GetBatchRequest, GetRequest};
use tokio_stream::StreamExt;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;
use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
use tonic_reflection::pb::v1::ServerReflectionRequest;

async fn status_of(channel: Channel, service: &str) -> ServingStatus {
    let request = HealthCheckRequest {
        service: service.to_owned(),
    };
    let answer = HealthClient::new(channel).check(request).await.unwrap();
    answer.into_inner().status()
}

#[tokio::test]
async fn health_says_serving_for_the_server_and_each_service_without_a_token() {
    let secret = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        secret.path(),
        "a secret of at least thirty-two bytes, for tests",
    )
    .unwrap();
    let process = ServerProcess::spawn(
        &[
            "--listen",
            "127.0.0.1:0",
            "--auth-secret-file",
            secret.path().to_str().unwrap(),
        ],
        &[],
    );
    let channel = Endpoint::from_shared(process.url())
        .unwrap()
        .connect()
        .await
        .unwrap();
    for service in ["", "cache_client.Scs", "control_client.ScsControl"] {
        assert_eq!(
            status_of(channel.clone(), service).await,
            ServingStatus::Serving,
            "{service:?}"
        );
    }
    let unknown = HealthClient::new(channel.clone())
        .check(HealthCheckRequest {
            service: "nope.Nope".into(),
        })
        .await;
    assert_eq!(unknown.unwrap_err().code(), tonic::Code::NotFound);
    // Reflection is not public: it needs a token like Ping.
    let mut reflection = ServerReflectionClient::new(channel);
    let listed = reflection
        .server_reflection_info(tokio_stream::iter([list_services()]))
        .await;
    assert_eq!(listed.unwrap_err().code(), tonic::Code::Unauthenticated);
}

fn list_services() -> ServerReflectionRequest {
    ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    }
}

#[tokio::test]
async fn healthz_and_readyz_on_the_metrics_listener() {
    let server = TestServer::start().await;
    assert_eq!(http_get(server.metrics_addr, "/healthz").await.0, 200);
    assert_eq!(http_get(server.metrics_addr, "/readyz").await.0, 200);
}

#[tokio::test]
async fn readyz_follows_the_redis_store() {
    let (server, redis) = Store::Redis.start(&["--store-timeout", "300ms"]).await;
    assert_eq!(http_get(server.metrics_addr, "/readyz").await.0, 200);
    drop(redis);
    let (status, why) = http_get(server.metrics_addr, "/readyz").await;
    assert_eq!(status, 503, "{why}");
    assert!(why.contains("store"), "{why}");
    // Alive all the same: a dead store is not a reason to restart the server.
    assert_eq!(http_get(server.metrics_addr, "/healthz").await.0, 200);
}

#[tokio::test]
async fn hits_misses_process_and_build_metrics() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    c.put(b"here", b"v").await;
    for key in ["here", "absent"] {
        let get = GetRequest {
            cache_key: key.into(),
        };
        c.client.get(c.request(get)).await.unwrap();
    }
    let batch = GetBatchRequest {
        items: ["here", "here", "absent"]
            .map(|key| GetRequest {
                cache_key: key.into(),
            })
            .to_vec(),
    };
    let mut answers = c
        .client
        .get_batch(c.request(batch))
        .await
        .unwrap()
        .into_inner();
    while answers.next().await.is_some() {}
    tokio::time::sleep(Duration::from_millis(10)).await;
    let text = server.metrics().await;
    assert_eq!(sample(&text, "jiffy_cache_hits_total"), Some(3.0), "{text}");
    assert_eq!(
        sample(&text, "jiffy_cache_misses_total"),
        Some(2.0),
        "{text}"
    );
    let version = format!(
        "jiffy_build_info{{version=\"{}\"}}",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(sample(&text, &version), Some(1.0), "{text}");
    assert!(sample(&text, "process_resident_memory_bytes").unwrap() > 1e6);
    assert!(sample(&text, "process_open_fds").unwrap() > 3.0);
    // Round bucket boundaries, 24 of them and +Inf.
    let buckets = text
        .lines()
        .filter(|line| {
            line.starts_with("jiffy_request_duration_seconds_bucket{")
                && line.contains("rpc=\"Get\"")
        })
        .count();
    assert_eq!(buckets, 25, "{text}");
    assert!(text.contains("le=\"0.005\""), "{text}");
}

#[tokio::test]
async fn healthz_answers_a_newcomer_while_silent_sockets_fill_the_metrics_port() {
    let server = TestServer::with_args(&["--max-side-port-connections", "2"]).await;
    let mut silent = Vec::new();
    for _ in 0..8 {
        silent.push(
            tokio::net::TcpStream::connect(server.metrics_addr)
                .await
                .unwrap(),
        );
    }
    assert_eq!(http_get(server.metrics_addr, "/healthz").await.0, 200);
    // Only the cap's worth may still be held: the oldest were closed.
    assert!(
        crate::admin_port::closed_within(&mut silent[0], Duration::from_secs(5)).await,
        "the oldest silent socket was kept past the cap"
    );
}
