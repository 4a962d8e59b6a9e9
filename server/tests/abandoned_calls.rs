//! Calls the client abandons before the server answers are still counted:
//! by status and latency, and they leave the in-flight gauge.

use crate::common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use common::{sample, TestServer};
use jiffy_server::proto::cache_client::GetRequest;
use prost::Message;
use tonic::metadata::MetadataValue;
use tonic::Code;

/// A Get that the fault layer holds for `delay_ms`.
fn held_get(cache: &str, delay_ms: &str) -> tonic::Request<GetRequest> {
    let mut request = common::in_cache(
        cache,
        GetRequest {
            cache_key: "k".into(),
        },
    );
    let delay = MetadataValue::try_from(delay_ms).unwrap();
    request.metadata_mut().insert("delay-ms", delay);
    request
}

/// Scrapes until `series` reads `value`; panics with the last text if it
/// never does. The server records a dropped call when it sees the reset,
/// which may be a moment after the client has moved on.
async fn wait_for(metrics_addr: SocketAddr, series: &str, value: f64) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = common::scrape(metrics_addr).await;
        if sample(&text, series) == Some(value) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{series} never became {value}:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A gRPC length-prefixed message, uncompressed.
fn grpc_frame(message: GetRequest) -> Bytes {
    let message = message.encode_to_vec();
    let mut frame = BytesMut::new();
    frame.put_u8(0);
    frame.put_u32(message.len() as u32);
    frame.put_slice(&message);
    frame.freeze()
}

fn get_count(text: &str, code: &str) -> Option<f64> {
    sample(
        text,
        &format!("jiffy_requests_total{{code=\"{code}\",rpc=\"Get\",transport=\"grpc\"}}"),
    )
}

#[tokio::test]
async fn a_call_past_the_client_deadline_counts_as_deadline_exceeded() {
    let server = TestServer::with_args(&["--enable-fault-injection"]).await;
    let mut c = server.cache("c").await;
    let mut request = held_get("c", "5000");
    request.set_timeout(Duration::from_millis(300));
    // tonic's client reports its own timeout as CANCELLED ("Timeout
    // expired"); the server either answered at the deadline or saw the reset.
    let status = c.client.get(request).await.unwrap_err();
    let codes = [Code::Cancelled, Code::DeadlineExceeded];
    assert!(codes.contains(&status.code()), "{status:?}");

    // The call is recorded before it leaves the gauge.
    let text = wait_for(server.metrics_addr, "jiffy_requests_in_flight", 0.0).await;
    assert_eq!(get_count(&text, "DEADLINE_EXCEEDED"), Some(1.0), "{text}");
    assert_eq!(get_count(&text, "CANCELLED"), None, "{text}");
    let latencies = sample(
        &text,
        "jiffy_request_duration_seconds_count{rpc=\"Get\",transport=\"grpc\"}",
    );
    assert_eq!(latencies, Some(1.0), "{text}");
    // Its time is the time it was held, not zero.
    let seconds = sample(
        &text,
        "jiffy_request_duration_seconds_sum{rpc=\"Get\",transport=\"grpc\"}",
    )
    .unwrap();
    assert!(seconds >= 0.25, "{text}");
}

#[tokio::test]
async fn a_call_the_client_resets_counts_as_cancelled() {
    let server = TestServer::with_args(&["--enable-fault-injection"]).await;
    server.cache("c").await;
    let tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let mut client = client.ready().await.unwrap();
    // Raw HTTP/2, so the test decides when the stream is reset: no deadline.
    let request = http::Request::post(format!("http://{}/cache_client.Scs/Get", server.addr))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("cache", "c")
        .header("delay-ms", "30000")
        .body(())
        .unwrap();
    let (_response, mut body) = client.send_request(request, false).unwrap();
    body.send_data(
        grpc_frame(GetRequest {
            cache_key: "k".into(),
        }),
        true,
    )
    .unwrap();
    wait_for(server.metrics_addr, "jiffy_requests_in_flight", 1.0).await;

    body.send_reset(h2::Reason::CANCEL);
    let text = wait_for(server.metrics_addr, "jiffy_requests_in_flight", 0.0).await;
    assert_eq!(get_count(&text, "CANCELLED"), Some(1.0), "{text}");
    assert_eq!(get_count(&text, "DEADLINE_EXCEEDED"), None, "{text}");
    let latencies = sample(
        &text,
        "jiffy_request_duration_seconds_count{rpc=\"Get\",transport=\"grpc\"}",
    );
    assert_eq!(latencies, Some(1.0), "{text}");
}
