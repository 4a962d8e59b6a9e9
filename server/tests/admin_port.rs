//! The test admin port, `--admin-listen`: momento-local's `/block` holds
//! every gRPC call and ends open answer streams with UNAVAILABLE until
//! `/unblock`.

use std::time::Duration;

use bytes::Bytes;
use jiffy_server::proto::cache_client::GetRequest;
use tonic::Code;

use crate::common::topics::{Pubsub, Reader};
use crate::common::{http_get, Data, TestServer};

async fn server_with_admin_port() -> TestServer {
    TestServer::with_args(&[
        "--admin-listen",
        "127.0.0.1:0",
        "--topic-heartbeat-interval",
        "100ms",
    ])
    .await
}

fn get_k() -> GetRequest {
    GetRequest {
        cache_key: Bytes::from_static(b"k"),
    }
}

#[tokio::test]
async fn the_admin_port_is_off_by_default() {
    let server = TestServer::start().await;
    assert_eq!(server.admin_addr, None);
}

#[tokio::test]
async fn block_holds_calls_until_unblock() {
    let server = server_with_admin_port().await;
    let admin = server.admin_addr.unwrap();
    let mut data = server.cache("c").await;
    data.client.get(data.request(get_k())).await.unwrap();
    assert_eq!(http_get(admin, "/block").await.0, 200);
    // A call with a deadline is not answered before it.
    let mut timed = data.request(get_k());
    timed.set_timeout(Duration::from_millis(300));
    let status = data.client.get(timed).await.unwrap_err();
    assert!(
        matches!(status.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{status:?}"
    );
    // One without is answered once unblocked.
    let mut waiting = Data {
        client: server.data().await,
        cache: "c".into(),
    };
    let held = tokio::spawn(async move { waiting.client.get(waiting.request(get_k())).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!held.is_finished(), "answered while blocked");
    assert_eq!(http_get(admin, "/unblock").await.0, 200);
    let answered = tokio::time::timeout(Duration::from_secs(5), held).await;
    answered.expect("answered once unblocked").unwrap().unwrap();
    assert_eq!(http_get(admin, "/nothing").await.0, 404);
}

#[tokio::test]
async fn block_ends_open_subscriptions_with_unavailable() {
    let server = server_with_admin_port().await;
    let admin = server.admin_addr.unwrap();
    server.cache("c").await;
    let mut pubsub = Pubsub::new(server.channel().await);
    let mut reader = Reader::subscribe(&mut pubsub, "c", "t").await;
    assert_eq!(http_get(admin, "/block").await.0, 200);
    let status = reader.end().await;
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert_eq!(http_get(admin, "/unblock").await.0, 200);
    // Subscribing again works once unblocked, heartbeats and all.
    let mut again = Reader::subscribe(&mut pubsub, "c", "t").await;
    assert!(again.next().await.unwrap().is_some());
}

/// A kept-alive connection to `admin` that has had one `/unblock` answered.
async fn answered_connection(admin: std::net::SocketAddr) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(admin).await.unwrap();
    stream
        .write_all(b"GET /unblock HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).await.unwrap(), 1, "closed early");
        head.push(byte[0]);
    }
    assert!(head.starts_with(b"HTTP/1.1 200"), "{head:?}");
    stream
}

/// Whether the server closes `stream` within `limit`.
pub(crate) async fn closed_within(stream: &mut tokio::net::TcpStream, limit: Duration) -> bool {
    use tokio::io::AsyncReadExt;
    let mut byte = [0u8; 1];
    matches!(
        tokio::time::timeout(limit, stream.read(&mut byte)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test]
async fn at_its_cap_the_admin_port_lets_a_newcomer_in_by_closing_the_oldest_silent_one() {
    let server = TestServer::with_args(&[
        "--admin-listen",
        "127.0.0.1:0",
        "--max-side-port-connections",
        "4",
    ])
    .await;
    let admin = server.admin_addr.unwrap();
    let mut silent = Vec::new();
    for _ in 0..4 {
        silent.push(tokio::net::TcpStream::connect(admin).await.unwrap());
    }
    // Past the cap, a newcomer that asks at once is answered, and the
    // oldest silent connection is closed to make room.
    assert_eq!(http_get(admin, "/unblock").await.0, 200);
    assert!(
        closed_within(&mut silent[0], Duration::from_secs(5)).await,
        "the oldest silent connection was kept past the cap"
    );
}

#[tokio::test]
async fn the_admin_port_closes_idle_and_silent_connections() {
    let server = TestServer::with_args(&[
        "--admin-listen",
        "127.0.0.1:0",
        "--request-timeout",
        "1s",
        "--handshake-timeout",
        "1s",
    ])
    .await;
    let admin = server.admin_addr.unwrap();
    let mut kept_alive = answered_connection(admin).await;
    let mut silent = tokio::net::TcpStream::connect(admin).await.unwrap();
    assert!(
        closed_within(&mut kept_alive, Duration::from_secs(10)).await,
        "an idle kept-alive connection was held"
    );
    assert!(
        closed_within(&mut silent, Duration::from_secs(10)).await,
        "a silent connection was held"
    );
}
