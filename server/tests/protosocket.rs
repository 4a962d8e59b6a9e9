//! The protosocket port (`--protosocket-listen`) of the real server binary,
//! spoken to by the small client of `common/protosocket.rs`. Bad input on
//! this port, against a baseline, is in `bad_input_protosocket.rs`.

use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use common::protosocket::{
    auth, command_frame, delete, error_of, frame, get, set, spawn_server as spawn, value_of,
    wait_for_closes, Client, AUTH_ID,
};
use common::stores::{on_both_stores, Store};
use common::{create_cache, sample, scrape, ServerProcess};
use jiffy_server::proto::cache_client::ping_client::PingClient;
use jiffy_server::proto::cache_client::PingRequest;
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::protosocket::cache::cache_response::Kind;
use jiffy_server::proto::protosocket::cache::CacheCommand;
use jiffy_server::proto::protosocket::common::Status;
use tokio::net::TcpStream;

fn port(server: &ServerProcess) -> SocketAddr {
    server
        .protosocket_addr
        .expect("printed its protosocket port")
}

async fn with_cache(server: &ServerProcess, cache: &str) {
    let mut control = ScsControlClient::connect(server.url()).await.unwrap();
    create_cache(&mut control, cache).await;
}

#[tokio::test]
async fn set_get_hit_miss_delete_and_the_metrics_label() {
    let server = spawn(&[]);
    with_cache(&server, "c").await;
    let mut client = Client::open(port(&server), "any token, auth is off").await;
    assert_eq!(value_of(client.call(1, get("c", "k")).await), None);
    assert_eq!(
        client.call(2, set("c", "k", b"v", 60_000)).await,
        Kind::Set(Default::default())
    );
    assert_eq!(
        value_of(client.call(3, get("c", "k")).await),
        Some(b"v".to_vec())
    );
    assert_eq!(
        client.call(4, delete("c", "k")).await,
        Kind::Delete(Default::default())
    );
    assert_eq!(value_of(client.call(5, get("c", "k")).await), None);

    let metrics = scrape(server.metrics_addr.unwrap()).await;
    let count = |series: &str| sample(&metrics, series).unwrap_or(0.0);
    // A miss counts as OK, as on the gRPC port.
    let gets = r#"jiffy_requests_total{code="OK",rpc="Get",transport="protosocket"}"#;
    assert_eq!(count(gets), 3.0);
    let sets = r#"jiffy_request_duration_seconds_count{rpc="Set",transport="protosocket"}"#;
    assert_eq!(count(sets), 1.0);
    assert_eq!(
        count(r#"jiffy_requests_total{code="OK",rpc="Get",transport="grpc"}"#),
        0.0
    );
}

/// The `jiffy-protosocket-port` header of a gRPC Ping's answer, if any.
async fn advertised_port(url: String) -> Option<String> {
    let mut ping = PingClient::connect(url).await.unwrap();
    let answer = ping.ping(PingRequest {}).await.unwrap();
    let header = answer.metadata().get("jiffy-protosocket-port");
    header.map(|value| value.to_str().unwrap().to_owned())
}

#[tokio::test]
async fn ping_advertises_the_port_it_bound() {
    // `:0` asked for any port: the answer names the one bound, which the
    // SDKs then open (and this test does).
    let server = spawn(&[]);
    with_cache(&server, "c").await;
    let bound = port(&server);
    let advertised = advertised_port(server.url()).await;
    assert_eq!(advertised, Some(bound.port().to_string()));
    let mut client = Client::open(bound, "").await;
    assert_eq!(value_of(client.call(1, get("c", "k")).await), None);

    // Without the port, no header: clients stay on gRPC.
    let plain = ServerProcess::spawn(&["--listen", "127.0.0.1:0"], &[]);
    assert_eq!(advertised_port(plain.url()).await, None);
}

#[tokio::test]
async fn items_expire_after_their_ttl() {
    let server = spawn(&[]);
    with_cache(&server, "c").await;
    let mut client = Client::open(port(&server), "").await;
    client.call(1, set("c", "k", b"v", 300)).await;
    assert!(value_of(client.call(2, get("c", "k")).await).is_some());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(value_of(client.call(3, get("c", "k")).await), None);
}

#[tokio::test]
async fn a_missing_cache_is_not_a_miss() {
    let server = spawn(&[]);
    let mut client = Client::open(port(&server), "").await;
    for (id, command) in [(1, get("nope", "k")), (2, set("nope", "k", b"v", 1000))] {
        let (code, message) = error_of(client.call(id, command).await);
        assert_eq!(code, Status::NotFound);
        assert_ne!(message, "Key not found");
        assert!(message.contains("cache `nope` does not exist"), "{message}");
    }
}

#[tokio::test]
async fn values_a_get_answer_could_not_carry_are_refused() {
    let server = spawn(&[]);
    with_cache(&server, "c").await;
    let mut client = Client::open(port(&server), "").await;
    // The largest value that fits the official client's 4 MiB frames.
    let largest = vec![1u8; 4_194_279];
    assert_eq!(
        client.call(1, set("c", "big", &largest, 60_000)).await,
        Kind::Set(Default::default())
    );
    assert_eq!(
        value_of(client.call(2, get("c", "big")).await),
        Some(largest)
    );
    let over = vec![2u8; 4_194_280];
    let refused = client.call(3, set("c", "over", &over, 60_000)).await;
    let Kind::Error(ref error) = refused else {
        panic!("expected an error, got {refused:?}")
    };
    // The reason rides in its own field, as the gRPC port's `err` trailer.
    assert_eq!(error.reason, "item_size_limit_exceeded");
    let (code, message) = error_of(refused);
    assert_eq!(code, Status::ResourceExhausted);
    assert!(message.contains("4194279"), "{message}");
    assert_eq!(value_of(client.call(4, get("c", "over")).await), None);
    // Over --max-value-size (5 MiB) the gRPC port's error; the frame still
    // fits under --max-request-size only just, so use a smaller limit.
    drop(client);
    let server = spawn(&["--max-value-size", "1KiB", "--max-memory", "1MiB"]);
    with_cache(&server, "c").await;
    let mut client = Client::open(port(&server), "").await;
    let (code, message) = error_of(client.call(1, set("c", "k", &[0; 1025], 1000)).await);
    assert_eq!(code, Status::ResourceExhausted);
    assert!(message.contains("--max-value-size"), "{message}");
}

#[tokio::test]
async fn pipelined_answers_are_matched_by_id() {
    let server = spawn(&[]);
    with_cache(&server, "c").await;
    let mut client = Client::open(port(&server), "").await;
    // Ids in no order, all sent before any answer is read.
    let ids: Vec<u64> = (0..200u64).map(|i| (i * 7919) % 1000 + 1).collect();
    let mut batch = Vec::new();
    for id in &ids {
        batch.extend(frame(
            *id,
            set("c", &format!("k{id}"), id.to_string().as_bytes(), 60_000),
        ));
    }
    client.send_raw(&batch).await;
    for _ in &ids {
        let answer = client.recv().await.unwrap();
        assert_eq!(answer.kind, Some(Kind::Set(Default::default())));
    }
    let mut batch = Vec::new();
    for id in &ids {
        batch.extend(frame(*id, get("c", &format!("k{id}"))));
    }
    client.send_raw(&batch).await;
    let mut seen = Vec::new();
    for _ in &ids {
        let answer = client.recv().await.unwrap();
        let value = value_of(answer.kind.unwrap()).unwrap();
        assert_eq!(value, answer.message_id.to_string().as_bytes());
        seen.push(answer.message_id);
    }
    seen.sort_unstable();
    let mut expected = ids.clone();
    expected.sort_unstable();
    assert_eq!(seen, expected);
}

#[tokio::test]
async fn cancels_are_accepted_in_flight_or_not() {
    let server = spawn(&[]);
    with_cache(&server, "c").await;
    let mut client = Client::open(port(&server), "").await;
    let cancel = |id| {
        command_frame(CacheCommand {
            message_id: id,
            control_code: 1,
            rpc_kind: None,
        })
    };
    let mut batch = frame(7, set("c", "k", b"v", 60_000));
    batch.extend(cancel(7));
    batch.extend(cancel(12345));
    client.send_raw(&batch).await;
    // The connection still serves; the Set answered before its cancel or
    // not at all.
    client.send(8, get("c", "other")).await;
    loop {
        let answer = client.recv().await.expect("still open");
        match answer.message_id {
            7 => assert_eq!(answer.kind, Some(Kind::Set(Default::default()))),
            8 => break,
            other => panic!("an answer to {other}"),
        }
    }
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_handshake_timeout() {
    let server = spawn(&["--handshake-timeout", "300ms"]);
    let mut client = Client::connect(port(&server)).await;
    assert!(client.closed().await);
    wait_for_closes(&server, "handshake_timeout", 1.0).await;
}

/// At `--max-connections` a new connection takes the place of the oldest
/// one still waiting for its first frame; one past its first frame stays.
#[tokio::test]
async fn at_the_cap_a_newcomer_replaces_the_oldest_silent_connection() {
    let server = spawn(&["--max-connections", "3", "--handshake-timeout", "60s"]);
    with_cache(&server, "c").await;
    let addr = port(&server);
    let mut busy = Client::open(addr, "").await;
    // Each one counted before the next connects, so that the server
    // accepts them in this order (and the gRPC one of `with_cache` is gone).
    wait_for_open(&server, 1.0).await;
    let mut oldest = Client::connect(addr).await;
    wait_for_open(&server, 2.0).await;
    let _younger = Client::connect(addr).await;
    wait_for_open(&server, 3.0).await;
    let mut newcomer = Client::open(addr, "").await;
    assert_eq!(value_of(newcomer.call(1, get("c", "k")).await), None);
    assert!(oldest.closed().await);
    wait_for_closes(&server, "evicted_in_handshake", 1.0).await;
    assert_eq!(value_of(busy.call(1, get("c", "k")).await), None);
}

/// Waits until the two ports count `open` connections together.
async fn wait_for_open(server: &ServerProcess, open: f64) {
    common::wait_for_open_connections(server, open).await;
}

#[tokio::test]
async fn a_client_that_never_reads_is_closed_after_the_send_timeout() {
    let server = spawn(&["--send-timeout", "1s"]);
    with_cache(&server, "c").await;
    let mut client = Client::open(port(&server), "").await;
    let value = vec![9u8; 1 << 20];
    client.call(1, set("c", "big", &value, 60_000)).await;
    // 300 answers of 1 MiB: far more than the socket buffers hold.
    let mut batch = Vec::new();
    for id in 2..302 {
        batch.extend(frame(id, get("c", "big")));
    }
    client.send_raw(&batch).await;
    wait_for_closes(&server, "send_timeout", 1.0).await;
    assert!(client.closed().await);
    let mut other = Client::open(port(&server), "").await;
    assert!(value_of(other.call(1, get("c", "big")).await).is_some());
}

#[tokio::test]
async fn shutdown_finishes_what_was_read_then_closes() {
    let server = spawn(&[]);
    with_cache(&server, "c").await;
    let mut client = Client::open(port(&server), "").await;
    client.call(1, set("c", "k", b"v", 60_000)).await;
    let status = server.terminate();
    assert!(status.success(), "{status:?}");
    assert!(client.closed().await);
}

mod auth_on {
    use super::*;

    const SECRET: &str = "a-test-secret-that-is-long-enough-for-hs256";

    fn token(secret: &std::path::Path, role: &str, caches: &str) -> String {
        let output = std::process::Command::new(common::server_binary())
            .args(["token", "create", "--auth-secret-file"])
            .arg(secret)
            .args(["--role", role, "--caches", caches, "--expires-in", "1h"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    #[tokio::test]
    async fn good_tokens_open_bad_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, SECRET).unwrap();
        let server = spawn(&["--auth-secret-file", secret.to_str().unwrap()]);
        let admin = token(&secret, "admin", "all");
        let mut control = ScsControlClient::connect(server.url()).await.unwrap();
        let mut request =
            tonic::Request::new(jiffy_server::proto::control_client::CreateCacheRequest {
                cache_name: "c".into(),
            });
        request
            .metadata_mut()
            .insert("authorization", admin.parse().unwrap());
        control.create_cache(request).await.unwrap();
        let addr = port(&server);

        let mut writer = Client::open(addr, &token(&secret, "write", "c")).await;
        writer.call(1, set("c", "k", b"v", 60_000)).await;
        assert!(value_of(writer.call(2, get("c", "k")).await).is_some());

        let mut reader = Client::open(addr, &token(&secret, "read", "c")).await;
        assert!(value_of(reader.call(1, get("c", "k")).await).is_some());
        let (code, _) = error_of(reader.call(2, delete("c", "k")).await);
        assert_eq!(code, Status::PermissionDenied);
        let mut elsewhere = Client::open(addr, &token(&secret, "write", "d")).await;
        let (code, _) = error_of(elsewhere.call(1, get("c", "k")).await);
        assert_eq!(code, Status::PermissionDenied);

        for bad in ["", "not-a-token"] {
            let mut client = Client::connect(addr).await;
            let (code, _) = error_of(client.call(AUTH_ID, auth(bad)).await);
            assert_eq!(code, Status::Unauthenticated);
            let (code, _) = error_of(client.call(1, delete("c", "k")).await);
            assert_eq!(code, Status::Unauthenticated);
        }
        assert!(value_of(writer.call(3, get("c", "k")).await).is_some());
    }
}

#[tokio::test]
async fn tls_applies_to_the_protosocket_port() {
    use std::sync::Arc;

    use rustls::pki_types::ServerName;

    let dir = tempfile::tempdir().unwrap();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    let server = spawn(&[
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ]);
    let mut roots = rustls::RootCertStore::empty();
    roots.add(certified.cert.der().clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = TcpStream::connect(port(&server)).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let stream = connector.connect(name, tcp).await.unwrap();
    let mut client = Client::over(stream);
    assert_eq!(
        client.call(AUTH_ID, auth("")).await,
        Kind::Auth(Default::default())
    );
    let (code, _) = error_of(client.call(1, get("c", "k")).await);
    assert_eq!(code, Status::NotFound);
    // Plaintext frames on the TLS port: the handshake fails, closed.
    let mut plain = Client::connect(port(&server)).await;
    plain.send_raw(&frame(AUTH_ID, auth(""))).await;
    assert!(plain.closed().await);
}

/// The same calls on both stores, the server in-process.
async fn the_scalar_calls(store: Store) {
    let (server, _redis) = store.start(&["--protosocket-listen", "127.0.0.1:0"]).await;
    create_cache(&mut server.control().await, "c").await;
    let addr = server.protosocket_addr.unwrap();
    let advertised = advertised_port(server.url()).await;
    assert_eq!(advertised, Some(addr.port().to_string()));
    let mut client = Client::open(addr, "").await;
    assert_eq!(value_of(client.call(1, get("c", "k")).await), None);
    client.call(2, set("c", "k", b"v", 60_000)).await;
    assert_eq!(
        value_of(client.call(3, get("c", "k")).await),
        Some(b"v".to_vec())
    );
    client.call(4, delete("c", "k")).await;
    assert_eq!(value_of(client.call(5, get("c", "k")).await), None);
    let (code, message) = error_of(client.call(6, get("missing", "k")).await);
    assert_eq!(code, Status::NotFound);
    assert_ne!(message, "Key not found");
    server.stop().await;
}

on_both_stores!(the_scalar_calls);
