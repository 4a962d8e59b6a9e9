//! The connection bounds, one by one (README, "Connections"): the cap and
//! who gives way at it, the handshake deadline, the send timeout, the bound
//! on bytes in flight and the request timeout, each with its metric.
//! `attacks.rs` throws the attacks themselves at the server.

use crate::common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use common::raw_http2::{handshake, read_frame};
use common::{in_cache, sample, TestServer};
use jiffy_server::proto::cache_client::{GetRequest, SetRequest};
use prost::Message;
use tokio::net::TcpStream;
use tonic::Code;

/// One series of the server's metrics, 0 when absent.
async fn metric(server: &TestServer, series: &str) -> f64 {
    sample(&server.metrics().await, series).unwrap_or(0.0)
}

/// Waits up to 10 s for a series to reach `expected`.
async fn wait_for_metric(server: &TestServer, series: &str, expected: f64) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let value = metric(server, series).await;
        if value == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{series} is {value}, expected {expected}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn closed(reason: &str) -> String {
    format!("jiffy_connections_closed_total{{reason=\"{reason}\"}}")
}

/// A gRPC message: the 5-byte prefix, then the encoded request.
fn grpc_message(message: &impl Message) -> Bytes {
    let body = message.encode_to_vec();
    let mut framed = BytesMut::with_capacity(5 + body.len());
    framed.put_u8(0);
    framed.put_u32(body.len() as u32);
    framed.put_slice(&body);
    framed.freeze()
}

/// An HTTP/2 client of our own settings (h2), its connection driven in the
/// background.
async fn h2_client(addr: SocketAddr, window: u32) -> h2::client::SendRequest<Bytes> {
    let socket = TcpStream::connect(addr).await.unwrap();
    let (client, connection) = h2::client::Builder::new()
        .initial_window_size(window)
        .handshake(socket)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
}

fn grpc_request(addr: SocketAddr, path: &str) -> http::Request<()> {
    http::Request::post(format!("http://{addr}{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("cache", "c")
        .body(())
        .unwrap()
}

/// Starts a Get of `key` whose answer the client will not read.
async fn unread_get(
    client: &mut h2::client::SendRequest<Bytes>,
    addr: SocketAddr,
    key: &'static [u8],
) -> h2::client::ResponseFuture {
    let mut client = client.clone().ready().await.unwrap();
    let (response, mut body) = client
        .send_request(grpc_request(addr, "/cache_client.Scs/Get"), false)
        .unwrap();
    let get = GetRequest {
        cache_key: Bytes::from_static(key),
    };
    body.send_data(grpc_message(&get), true).unwrap();
    response
}

#[tokio::test]
async fn silent_sockets_give_way_to_real_clients_and_time_out() {
    let server =
        TestServer::with_args(&["--max-connections", "4", "--handshake-timeout", "2s"]).await;
    drop(server.cache("c").await);
    wait_for_metric(&server, "jiffy_open_connections", 0.0).await;

    let mut silent = Vec::new();
    for _ in 0..4 {
        silent.push(TcpStream::connect(server.addr).await.unwrap());
    }
    wait_for_metric(&server, "jiffy_open_connections", 4.0).await;

    // At the cap, a real client takes the place of the oldest silent one.
    let started = Instant::now();
    let mut data = server.data().await;
    let get = GetRequest {
        cache_key: Bytes::from_static(b"k"),
    };
    data.get(in_cache("c", get)).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(metric(&server, &closed("evicted_in_handshake")).await, 1.0);

    // The other three are closed at the handshake deadline; the client stays.
    wait_for_metric(&server, &closed("handshake_timeout"), 3.0).await;
    assert_eq!(metric(&server, "jiffy_open_connections").await, 1.0);
    let get = GetRequest {
        cache_key: Bytes::from_static(b"k"),
    };
    data.get(in_cache("c", get)).await.unwrap();
}

#[tokio::test]
async fn at_the_cap_with_none_in_a_handshake_a_new_connection_is_closed() {
    let server = TestServer::with_args(&["--max-connections", "2"]).await;
    let _first = handshake(server.addr).await.unwrap();
    let mut second = handshake(server.addr).await.unwrap();
    wait_for_metric(&server, "jiffy_open_connections", 2.0).await;

    let mut third = TcpStream::connect(server.addr).await.unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(5), read_frame(&mut third)).await;
    assert!(
        matches!(answer, Ok(Ok(None)) | Ok(Err(_))),
        "the connection over the cap should be closed: {answer:?}"
    );
    assert_eq!(metric(&server, &closed("max_connections")).await, 1.0);

    // The established ones are untouched: a PING is still answered.
    use common::raw_http2::{frame, FLAG_ACK, PING};
    use tokio::io::AsyncWriteExt;
    second.write_all(&frame(PING, 0, 0, &[1; 8])).await.unwrap();
    loop {
        let frame = read_frame(&mut second).await.unwrap().expect("still open");
        if frame.kind == PING && frame.flags & FLAG_ACK != 0 {
            break;
        }
    }
}

#[tokio::test]
async fn a_client_that_does_not_read_its_answers_is_closed_after_the_send_timeout() {
    let server = TestServer::with_args(&["--send-timeout", "1s"]).await;
    let mut c = server.cache("c").await;
    c.put(b"big", &vec![7; 1 << 20]).await;

    // A zero window: the server may not send a byte of DATA.
    let mut client = h2_client(server.addr, 0).await;
    let response = unread_get(&mut client, server.addr, b"big").await;
    let (head, _body) = response.await.unwrap().into_parts();
    assert_eq!(head.status, 200);
    wait_for_metric(&server, &closed("send_timeout"), 1.0).await;

    // Everyone else is served as before.
    assert_eq!(c.value_of(b"big").await.len(), 1 << 20);
}

#[tokio::test]
async fn past_the_in_flight_bound_the_connection_holding_most_is_closed() {
    let server = TestServer::with_args(&[
        "--max-in-flight-bytes",
        "8MiB",
        "--max-value-size",
        "3MiB",
        "--max-request-size",
        "4MiB",
    ])
    .await;
    let mut c = server.cache("c").await;
    c.put(b"big", &vec![7; 3 << 20]).await;

    // Answers of 3 MiB that a zero-window client will not take: two are
    // held (counted before they wait), the third would pass the bound and,
    // this connection holding the most, ends RESOURCE_EXHAUSTED unencoded.
    let mut client = h2_client(server.addr, 0).await;
    let mut stalled = Vec::new();
    for _ in 0..3 {
        let response = unread_get(&mut client, server.addr, b"big").await;
        stalled.push(response.await.unwrap());
    }
    wait_until(|| async { metric(&server, "jiffy_in_flight_bytes").await >= (6 << 20) as f64 })
        .await;
    assert!(metric(&server, "jiffy_in_flight_bytes").await < (8 << 20) as f64);

    // Another client's large answer goes ahead; the hog is closed and its
    // answers freed.
    assert_eq!(c.value_of(b"big").await.len(), 3 << 20);
    wait_for_metric(&server, &closed("in_flight_limit"), 1.0).await;
    wait_until(|| async { metric(&server, "jiffy_in_flight_bytes").await < (1 << 20) as f64 })
        .await;
    assert_eq!(c.value_of(b"small").await, "");
}

#[tokio::test]
async fn a_request_body_that_stops_arriving_fails_after_the_request_timeout() {
    let server = TestServer::with_args(&["--request-timeout", "1s"]).await;
    let mut c = server.cache("c").await;
    c.put(b"k", b"old").await;

    let client = h2_client(server.addr, 65_535).await;
    let mut ready = client.clone().ready().await.unwrap();
    let (response, mut body) = ready
        .send_request(grpc_request(server.addr, "/cache_client.Scs/Set"), false)
        .unwrap();
    let set = SetRequest {
        cache_key: Bytes::from_static(b"k"),
        cache_body: Bytes::from(vec![1; 1000]),
        ttl_milliseconds: 60_000,
    };
    let whole = grpc_message(&set);
    body.send_data(whole.slice(..100), false).unwrap();

    let started = Instant::now();
    let response = tokio::time::timeout(Duration::from_secs(10), response)
        .await
        .expect("answered")
        .unwrap();
    let code = response.headers().get("grpc-status").unwrap();
    assert_eq!(code, &(Code::DeadlineExceeded as i32).to_string());
    let message = response.headers().get("grpc-message").unwrap();
    assert!(message.to_str().unwrap().contains("request-timeout"));
    assert!(started.elapsed() >= Duration::from_millis(900));
    assert_eq!(c.value_of(b"k").await, "old");
}

#[test]
fn a_connection_cap_over_the_descriptor_limit_stops_the_server() {
    let (_, hard) = rlimit::Resource::NOFILE.get().unwrap();
    if hard >= u64::MAX / 2 {
        return; // unlimited here: nothing to refuse
    }
    let output = std::process::Command::new(common::server_binary())
        .args(["--listen", "127.0.0.1:0", "--max-connections"])
        .arg(hard.to_string())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--max-connections"), "{stderr}");
    assert!(stderr.contains("file descriptors"), "{stderr}");
}

async fn wait_until<F, Fut>(condition: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(10);
    while !condition().await {
        assert!(Instant::now() < deadline, "the condition never held");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
