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
