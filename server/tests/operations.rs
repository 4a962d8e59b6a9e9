//! What operators rely on: HTTP/2 behaviour, TLS, metrics, configuration
//! sources and shutdown, over real sockets.

use crate::common;

use std::time::Duration;

use common::{sample, ServerProcess, TestServer};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{GetRequest, SetRequest};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};

#[tokio::test]
async fn idle_connections_that_ping_often_are_kept() {
    // The official JS SDK pings every connection every 5 s even when idle; a
    // client pinging every 50 ms for 2 s must keep its one connection too.
    let server = TestServer::start().await;
    let channel = Endpoint::from_shared(server.url())
        .unwrap()
        .http2_keep_alive_interval(Duration::from_millis(50))
        .keep_alive_timeout(Duration::from_secs(1))
        .keep_alive_while_idle(true)
        .connect()
        .await
        .unwrap();
    common::create_cache(
        &mut jiffy_server::proto::control_client::scs_control_client::ScsControlClient::new(
            channel.clone(),
        ),
        "c",
    )
    .await;
    let mut data = ScsClient::new(channel);
    let get = || {
        common::in_cache(
            "c",
            GetRequest {
                cache_key: "k".into(),
            },
        )
    };
    data.get(get()).await.unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    data.get(get()).await.unwrap();
    let metrics = server.metrics().await;
    assert_eq!(sample(&metrics, "jiffy_connections_total"), Some(1.0));
    assert_eq!(sample(&metrics, "jiffy_open_connections"), Some(1.0));
}

#[tokio::test]
async fn more_requests_than_streams_queue_on_one_connection() {
    let server = TestServer::with_args(&["--max-concurrent-streams", "10"]).await;
    let mut c = server.cache("c").await;
    // The first call lets the client learn the stream limit from the server's
    // SETTINGS; streams opened before that are refused (REFUSED_STREAM), which
    // gRPC clients retry transparently but tonic's does not.
    c.client
        .get(c.request(GetRequest {
            cache_key: "k".into(),
        }))
        .await
        .unwrap();
    let calls = (0..200).map(|i| {
        let mut client = c.client.clone();
        let set = SetRequest {
            cache_key: format!("k{i}").into(),
            cache_body: "v".into(),
            ttl_milliseconds: 60_000,
        };
        let request = c.request(set);
        async move { client.set(request).await }
    });
    for answer in futures_util::future::join_all(calls).await {
        answer.unwrap();
    }
    let metrics = server.metrics().await;
    assert_eq!(
        sample(
            &metrics,
            "jiffy_requests_total{code=\"OK\",rpc=\"Set\",transport=\"grpc\"}"
        ),
        Some(200.0)
    );
    // The in-flight peak is what SDK tests read to prove their cap: it must
    // count every call it saw, never more than the connection allowed, and
    // fall back to zero (this scrape aside) once they are answered.
    let peak = sample(&metrics, "jiffy_requests_in_flight_max").unwrap();
    assert!((1.0..=10.0).contains(&peak), "peak {peak}");
    assert_eq!(sample(&metrics, "jiffy_requests_in_flight"), Some(0.0));
}

#[tokio::test]
async fn metrics_count_requests_latency_and_items() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    let set = SetRequest {
        cache_key: "k".into(),
        cache_body: vec![0; 100].into(),
        ttl_milliseconds: 60_000,
    };
    c.client.set(c.request(set)).await.unwrap();
    c.client
        .get(c.request(GetRequest {
            cache_key: "k".into(),
        }))
        .await
        .unwrap();
    let _ = c
        .client
        .get(common::in_cache(
            "nope",
            GetRequest {
                cache_key: "k".into(),
            },
        ))
        .await;
    let text = server.metrics().await;
    let count = |series: &str| sample(&text, series).unwrap_or_else(|| panic!("{series}\n{text}"));
    assert_eq!(
        count("jiffy_requests_total{code=\"OK\",rpc=\"Get\",transport=\"grpc\"}"),
        1.0
    );
    assert_eq!(
        count("jiffy_requests_total{code=\"NOT_FOUND\",rpc=\"Get\",transport=\"grpc\"}"),
        1.0
    );
    assert_eq!(
        count("jiffy_request_duration_seconds_count{rpc=\"Get\",transport=\"grpc\"}"),
        2.0
    );
    assert_eq!(count("jiffy_items"), 1.0);
    assert_eq!(count("jiffy_caches"), 1.0);
    assert!(count("jiffy_memory_bytes") > 100.0);
    assert_eq!(count("jiffy_evictions_total"), 0.0);
    assert_eq!(count("jiffy_connections_total"), 2.0);
    // The control-plane client of `server.cache` has closed its connection,
    // which the server notices a moment later.
    let mut open = count("jiffy_open_connections");
    for _ in 0..50 {
        if open == 1.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        open = sample(&server.metrics().await, "jiffy_open_connections").unwrap();
    }
    assert_eq!(open, 1.0);
}

#[tokio::test]
async fn tls_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let cert_pem = certified.cert.pem();
    let cert = dir.path().join("cert.pem");
    let key = dir.path().join("key.pem");
    std::fs::write(&cert, &cert_pem).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    let server = TestServer::with_args(&[
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ])
    .await;
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(cert_pem))
        .domain_name("localhost");
    let channel = Endpoint::from_shared(format!("https://{}", server.addr))
        .unwrap()
        .tls_config(tls)
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut ping = jiffy_server::proto::cache_client::ping_client::PingClient::new(channel);
    ping.ping(jiffy_server::proto::cache_client::PingRequest {})
        .await
        .unwrap();
    // A plaintext client gets no answer from a TLS listener.
    let plaintext = Endpoint::from_shared(server.url())
        .unwrap()
        .connect_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(2))
        .connect_lazy();
    let mut ping = jiffy_server::proto::cache_client::ping_client::PingClient::new(plaintext);
    assert!(ping
        .ping(jiffy_server::proto::cache_client::PingRequest {})
        .await
        .is_err());
}

#[test]
fn settings_come_from_environment_and_toml_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jiffy.toml");
    std::fs::write(
        &file,
        "metrics-listen = \"127.0.0.1:0\"\nmax-memory = \"32MiB\"\n",
    )
    .unwrap();
    let server = ServerProcess::spawn(
        &[],
        &[
            ("JIFFY_LISTEN", "127.0.0.1:0"),
            ("JIFFY_CONFIG", file.to_str().unwrap()),
        ],
    );
    assert_ne!(server.addr.port(), 0);
    let metrics = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(common::scrape(
            server.metrics_addr.expect("metrics address"),
        ));
    assert_eq!(
        sample(&metrics, "jiffy_memory_limit_bytes"),
        Some((32u64 << 20) as f64)
    );
}

#[test]
fn bad_settings_exit_with_a_clear_message() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_jiffy-server"))
        .args(["--listen", "127.0.0.1:0", "--tls-cert", "only-cert.pem"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--tls-key"));
}

#[test]
fn sigterm_drains_and_exits_cleanly() {
    let server = ServerProcess::spawn(&["--listen", "127.0.0.1:0"], &[]);
    let url = server.url();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // An open, idle client connection must not hold the shutdown up.
    let _client = runtime.block_on(async {
        let mut ping = jiffy_server::proto::cache_client::ping_client::PingClient::connect(url)
            .await
            .unwrap();
        ping.ping(jiffy_server::proto::cache_client::PingRequest {})
            .await
            .unwrap();
        ping
    });
    let started = std::time::Instant::now();
    let status = server.terminate();
    assert!(status.success(), "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
}
