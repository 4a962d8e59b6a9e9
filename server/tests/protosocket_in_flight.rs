//! `--max-in-flight-bytes` across both ports, against the server binary:
//! answers waiting on the protosocket port and on the gRPC port count
//! against one budget. A client that never reads is refused past it
//! (RESOURCE_EXHAUSTED), and a client of either port that needs room
//! closes the other port's connection holding the most (`in_flight_limit`)
//! and is answered (README "Connections" and "The protosocket port").

use crate::common;

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use common::protosocket::{
    auth, error_of, frame, get, set, spawn_server, value_of, wait_for_closes, Client, AUTH_ID,
};
use common::{create_cache, in_cache, process_metric, raw_http2, ServerProcess};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{GetRequest, SetRequest};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::protosocket::cache::cache_response::Kind;
use jiffy_server::proto::protosocket::common::Status;
use prost::Message;
use tokio::net::TcpSocket;

/// The budget: two answers of `VALUE` fit in it, three do not.
const BUDGET: &str = "8MiB";
const VALUE: usize = 3 << 20;
/// Gets a client that never reads sends: more than the socket buffers and
/// the budget together hold.
const GETS: u64 = 10;
const CACHE: &str = "c";
const KEY: &str = "big";

/// The server, a cache and `VALUE` bytes under `KEY`. The send timeout is
/// long: what closes a connection here is the budget.
async fn start() -> (ServerProcess, SocketAddr) {
    let server = spawn_server(&["--max-in-flight-bytes", BUDGET, "--send-timeout", "60s"]);
    let mut control = ScsControlClient::connect(server.url()).await.unwrap();
    create_cache(&mut control, CACHE).await;
    let set = SetRequest {
        cache_key: Bytes::from_static(KEY.as_bytes()),
        cache_body: Bytes::from(vec![b'v'; VALUE]),
        ttl_milliseconds: 600_000,
    };
    grpc(&server).await.set(in_cache(CACHE, set)).await.unwrap();
    let addr = server.protosocket_addr.unwrap();
    (server, addr)
}

async fn grpc(server: &ServerProcess) -> ScsClient<tonic::transport::Channel> {
    ScsClient::connect(server.url())
        .await
        .unwrap()
        .max_decoding_message_size(16 << 20)
        .max_encoding_message_size(16 << 20)
}

async fn in_flight_bytes(server: &ServerProcess) -> f64 {
    process_metric(server, "jiffy_in_flight_bytes").await
}

/// Waits until the server holds at least `bytes` in flight, checking on the
/// way that it never holds more than the budget.
async fn wait_for_in_flight(server: &ServerProcess, bytes: usize) {
    let budget = 8 << 20;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let held = in_flight_bytes(server).await;
        assert!(held <= budget as f64, "{held} bytes in flight");
        if held >= bytes as f64 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "only {held} bytes in flight"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until nothing is in flight: every charge was given back.
async fn wait_for_nothing_in_flight(server: &ServerProcess) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while in_flight_bytes(server).await > 0.0 {
        assert!(std::time::Instant::now() < deadline, "charges were kept");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Reads answers until the server closes the connection: the hits, and the
/// others, all of which must be RESOURCE_EXHAUSTED naming the budget.
async fn read_until_closed(client: &mut Client<tokio::net::TcpStream>) -> (u64, u64) {
    let (mut hits, mut refused) = (0, 0);
    while let Some(answer) = client.recv().await {
        match answer.kind.unwrap() {
            Kind::Get(hit) => {
                assert_eq!(hit.value.len(), VALUE);
                hits += 1;
            }
            kind => {
                let (code, message) = error_of(kind);
                assert_eq!(code, Status::ResourceExhausted);
                assert!(message.contains("--max-in-flight-bytes"), "{message}");
                refused += 1;
            }
        }
    }
    (hits, refused)
}

/// A client that reads, asking more at once than the budget holds: what
/// does not fit is RESOURCE_EXHAUSTED, as a gRPC client's calls past the
/// bound are, and the connection goes on.
#[tokio::test]
async fn answers_past_the_budget_are_resource_exhausted_and_the_connection_stays() {
    let (server, addr) = start().await;
    let mut client = Client::open(addr, "").await;
    const AT_ONCE: u64 = 40;
    let gets: Vec<u8> = (1..=AT_ONCE)
        .flat_map(|id| frame(id, get(CACHE, KEY)))
        .collect();
    client.send_raw(&gets).await;
    let (mut hits, mut refused) = (0, 0);
    for _ in 0..AT_ONCE {
        match client
            .recv()
            .await
            .expect("the connection stays")
            .kind
            .unwrap()
        {
            Kind::Get(hit) => {
                assert_eq!(hit.value.len(), VALUE);
                hits += 1;
            }
            kind => {
                let (code, message) = error_of(kind);
                assert_eq!(code, Status::ResourceExhausted);
                assert!(message.contains("--max-in-flight-bytes"), "{message}");
                refused += 1;
            }
        }
    }
    assert!(hits >= 2 && refused >= 1, "{hits} hits, {refused} refused");
    let value = value_of(client.call(AT_ONCE + 1, get(CACHE, KEY)).await);
    assert_eq!(value.map(|v| v.len()), Some(VALUE));
    assert_eq!(closes(&server).await, 0.0);
    wait_for_nothing_in_flight(&server).await;
}

async fn closes(server: &ServerProcess) -> f64 {
    process_metric(
        server,
        r#"jiffy_connections_closed_total{reason="in_flight_limit"}"#,
    )
    .await
}

#[tokio::test]
async fn a_protosocket_client_that_never_reads_gives_way_to_a_grpc_client() {
    let (server, addr) = start().await;
    // A receive buffer too small for one answer, and nothing read: the
    // answers wait in the server.
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(16 << 10).unwrap();
    let mut hog = Client::over(socket.connect(addr).await.unwrap());
    assert_eq!(
        hog.call(AUTH_ID, auth("")).await,
        Kind::Auth(Default::default())
    );
    // One at a time, so that each answer finds the ones before it waiting
    // (sent at once, all but two would be refused before the first left).
    for id in 1..=GETS {
        hog.send_raw(&frame(id, get(CACHE, KEY))).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    wait_for_in_flight(&server, 2 * VALUE).await;

    // A gRPC client's answer closes the connection holding the most.
    let get_big = GetRequest {
        cache_key: Bytes::from_static(KEY.as_bytes()),
    };
    let answer = grpc(&server).await.get(in_cache(CACHE, get_big)).await;
    assert_eq!(answer.unwrap().into_inner().cache_body.len(), VALUE);
    wait_for_closes(&server, "in_flight_limit", 1.0).await;

    // The hog's answers past the budget were refused (queued behind the
    // ones it never read, it never saw them), and then it was closed.
    let refused =
        r#"jiffy_requests_total{code="RESOURCE_EXHAUSTED",rpc="Get",transport="protosocket"}"#;
    assert!(process_metric(&server, refused).await >= 1.0);
    let (hits, others) = read_until_closed(&mut hog).await;
    assert!(hits >= 1, "{hits} answers read");
    assert!(hits + others < GETS);
    wait_for_nothing_in_flight(&server).await;
    let mut newcomer = Client::open(addr, "").await;
    let value = value_of(newcomer.call(1, get(CACHE, KEY)).await);
    assert_eq!(value.map(|v| v.len()), Some(VALUE));
}

#[tokio::test]
async fn a_grpc_client_that_never_reads_gives_way_to_a_protosocket_client() {
    let (server, addr) = start().await;
    // An HTTP/2 client whose window is 0: no answer can be sent to it.
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (h2, connection) = h2::client::Builder::new()
        .initial_window_size(0)
        .handshake::<_, Bytes>(tcp)
        .await
        .unwrap();
    let hog_closed = tokio::spawn(connection);
    let mut h2 = h2.ready().await.unwrap();
    let message = GetRequest {
        cache_key: Bytes::from_static(KEY.as_bytes()),
    };
    let body = Bytes::from(raw_http2::grpc_message(&message.encode_to_vec()));
    let mut held = Vec::new();
    for _ in 0..2 {
        let request = http::Request::builder()
            .method("POST")
            .uri(format!("http://{}/cache_client.Scs/Get", server.addr))
            .header("content-type", "application/grpc")
            .header("te", "trailers")
            .header("cache", CACHE)
            .body(())
            .unwrap();
        let (response, mut send) = h2.send_request(request, false).unwrap();
        send.send_data(body.clone(), true).unwrap();
        held.push(response);
        h2 = h2.ready().await.unwrap();
    }
    wait_for_in_flight(&server, 2 * VALUE).await;

    // A protosocket client's answer closes the connection holding the most.
    let mut client = Client::open(addr, "").await;
    let value = value_of(client.call(1, get(CACHE, KEY)).await);
    assert_eq!(value.map(|v| v.len()), Some(VALUE));
    wait_for_closes(&server, "in_flight_limit", 1.0).await;
    let ended = tokio::time::timeout(Duration::from_secs(10), hog_closed).await;
    assert!(ended.is_ok(), "the gRPC connection is still open");
    drop(held);
    wait_for_nothing_in_flight(&server).await;
}

/// Frames that arrive in pieces are charged from the first piece: two
/// clients that send half of a large Set each and stop hold the budget,
/// and a third client's Set closes the one holding the most.
#[tokio::test]
async fn frames_half_sent_count_and_give_way() {
    let (server, addr) = start().await;
    let set_frame = |key: &str| frame(1, set(CACHE, key, &vec![b's'; VALUE], 600_000));
    let mut halves = Vec::new();
    for key in ["half-a", "half-b"] {
        let mut client = Client::open(addr, "").await;
        let whole = set_frame(key);
        client.send_raw(&whole[..whole.len() / 2]).await;
        halves.push(client);
    }
    wait_for_in_flight(&server, 2 * VALUE).await;
    let mut client = Client::open(addr, "").await;
    client.send_raw(&set_frame("whole")).await;
    let answer = client.recv().await.expect("answered").kind.unwrap();
    assert_eq!(answer, Kind::Set(Default::default()));
    wait_for_closes(&server, "in_flight_limit", 1.0).await;
    drop(halves);
    wait_for_nothing_in_flight(&server).await;
    let value = value_of(client.call(2, get(CACHE, "whole")).await);
    assert_eq!(value.map(|v| v.len()), Some(VALUE));
    assert_eq!(value_of(client.call(3, get(CACHE, "half-a")).await), None);
}
