//! The momento-local fault headers, honoured with `--enable-fault-injection`
//! and ignored without it; and, with a held call, draining on SIGTERM.

use crate::common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::{BufMut, Bytes, BytesMut};
use common::{sample, Data, ServerProcess, TestServer};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{GetRequest, SetIfNotExistsRequest, SetRequest};
use prost::Message;
use tonic::metadata::MetadataValue;
use tonic::{Code, Request, Status};

/// A Get for key `k` in `cache`, carrying the fault `headers`.
fn get_with(cache: &str, headers: &[(&'static str, &str)]) -> Request<GetRequest> {
    let mut request = common::in_cache(
        cache,
        GetRequest {
            cache_key: "k".into(),
        },
    );
    add_headers(&mut request, headers);
    request
}

fn add_headers<T>(request: &mut Request<T>, headers: &[(&'static str, &str)]) {
    for (name, value) in headers {
        request
            .metadata_mut()
            .insert(*name, MetadataValue::try_from(*value).unwrap());
    }
}

async fn get(c: &mut Data, headers: &[(&'static str, &str)]) -> Result<(), Status> {
    c.client.get(get_with(&c.cache, headers)).await.map(drop)
}

async fn set(c: &mut Data, headers: &[(&'static str, &str)]) -> Result<(), Status> {
    let mut request = c.request(SetRequest {
        cache_key: "k".into(),
        cache_body: "v".into(),
        ttl_milliseconds: 60_000,
    });
    add_headers(&mut request, headers);
    c.client.set(request).await.map(drop)
}

fn code(result: Result<(), Status>) -> Code {
    result.err().map_or(Code::Ok, |status| status.code())
}

async fn faulty_server() -> TestServer {
    TestServer::with_args(&["--enable-fault-injection"]).await
}

#[tokio::test]
async fn return_error_fails_the_first_error_count_calls_per_request_id() {
    let server = faulty_server().await;
    let mut c = server.cache("c").await;
    let headers = |id| {
        [
            ("return-error", "unavailable"),
            ("error-rpcs", "get"),
            ("error-count", "2"),
            ("request-id", id),
        ]
    };
    let mut codes = Vec::new();
    for _ in 0..4 {
        codes.push(code(get(&mut c, &headers("first")).await));
    }
    assert_eq!(
        codes,
        [Code::Unavailable, Code::Unavailable, Code::Ok, Code::Ok]
    );
    // Another request id counts from zero.
    assert_eq!(
        code(get(&mut c, &headers("second")).await),
        Code::Unavailable
    );
    // Without a count, every matching call fails.
    let always = [("return-error", "internal"), ("error-rpcs", "get")];
    for _ in 0..3 {
        assert_eq!(code(get(&mut c, &always).await), Code::Internal);
    }
    // Injected answers are counted like any other.
    let metrics = server.metrics().await;
    assert_eq!(
        sample(
            &metrics,
            "jiffy_requests_total{code=\"UNAVAILABLE\",rpc=\"Get\",transport=\"grpc\"}"
        ),
        Some(3.0)
    );
}

#[tokio::test]
async fn error_rpcs_picks_the_calls_that_fail() {
    let server = faulty_server().await;
    let mut c = server.cache("c").await;
    // A Set is not in the list; space and comma both separate names.
    for list in ["get set-if", "get,set-if"] {
        let headers = [("return-error", "unavailable"), ("error-rpcs", list)];
        assert_eq!(code(set(&mut c, &headers).await), Code::Ok);
        assert_eq!(code(get(&mut c, &headers).await), Code::Unavailable);
        // `set-if` names SetIfNotExists too, as in momento-local.
        let mut request = c.request(SetIfNotExistsRequest {
            cache_key: "other".into(),
            cache_body: "v".into(),
            ttl_milliseconds: 60_000,
        });
        add_headers(&mut request, &headers);
        let answer = c.client.set_if_not_exists(request).await.map(drop);
        assert_eq!(code(answer), Code::Unavailable);
    }
    // Without error-rpcs, every call fails; the value stays what it was.
    let everything = [("return-error", "resource-exhausted")];
    assert_eq!(
        code(set(&mut c, &everything).await),
        Code::ResourceExhausted
    );
    assert_eq!(c.value_of(b"k").await, "v");
    // A status that does not exist is reported, not guessed.
    let bad = [("return-error", "slow")];
    let status = get(&mut c, &bad).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(status.message().contains("return-error"), "{status:?}");
}

#[tokio::test]
async fn delay_ms_holds_matching_calls() {
    let server = faulty_server().await;
    let mut c = server.cache("c").await;
    let started = Instant::now();
    get(&mut c, &[("delay-ms", "300"), ("delay-rpcs", "get")])
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));
    // Delay and error together: the call fails, after the delay.
    let started = Instant::now();
    let both = [("delay-ms", "200"), ("return-error", "unavailable")];
    assert_eq!(code(get(&mut c, &both).await), Code::Unavailable);
    assert!(started.elapsed() >= Duration::from_millis(200));
}

/// One unary call over plain HTTP/2, so that no client-side deadline races
/// the server's answer: tonic's client would cut the call off itself when
/// `grpc-timeout` passes. Returns the status the server answered.
async fn raw_get(addr: SocketAddr, cache: &str, headers: &[(&str, &str)]) -> Code {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let mut client = client.ready().await.unwrap();
    let mut request = http::Request::post(format!("http://{addr}/cache_client.Scs/Get"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("cache", cache);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let (response, mut body) = client
        .send_request(request.body(()).unwrap(), false)
        .unwrap();
    let message = GetRequest {
        cache_key: "k".into(),
    }
    .encode_to_vec();
    let mut frame = BytesMut::new();
    frame.put_u8(0);
    frame.put_u32(message.len() as u32);
    frame.put_slice(&message);
    body.send_data(frame.freeze(), true).unwrap();
    let response = response.await.unwrap();
    let (parts, mut stream) = response.into_parts();
    // Trailers-only answers carry the status in the headers; others in trailers.
    let status = match parts.headers.get("grpc-status") {
        Some(status) => status.clone(),
        None => {
            while let Some(data) = stream.data().await {
                let _: Bytes = data.unwrap();
            }
            let trailers = stream.trailers().await.unwrap().unwrap();
            trailers.get("grpc-status").unwrap().clone()
        }
    };
    Code::from_i32(status.to_str().unwrap().parse().unwrap())
}

#[tokio::test]
async fn a_delay_past_the_deadline_answers_deadline_exceeded_at_the_deadline() {
    let server = faulty_server().await;
    server.cache("c").await;
    let started = Instant::now();
    let answer = raw_get(
        server.addr,
        "c",
        &[("grpc-timeout", "300m"), ("delay-ms", "30000")],
    )
    .await;
    assert_eq!(answer, Code::DeadlineExceeded);
    let elapsed = started.elapsed();
    // At the deadline: not before it, and not when the delay would have ended.
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");

    // delay-count: only the first call of the request id is held.
    let headers = [
        ("grpc-timeout", "1S"),
        ("delay-ms", "30000"),
        ("delay-count", "1"),
        ("request-id", "once"),
    ];
    assert_eq!(
        raw_get(server.addr, "c", &headers).await,
        Code::DeadlineExceeded
    );
    assert_eq!(raw_get(server.addr, "c", &headers).await, Code::Ok);
}

#[tokio::test]
async fn without_the_flag_the_headers_are_ignored() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    let headers = [
        ("return-error", "unavailable"),
        ("error-rpcs", "get set"),
        ("delay-ms", "30000"),
    ];
    set(&mut c, &headers).await.unwrap();
    get(&mut c, &headers).await.unwrap();
    assert_eq!(
        raw_get(
            server.addr,
            "c",
            &[("grpc-timeout", "5S"), ("delay-ms", "30000")]
        )
        .await,
        Code::Ok
    );
}

#[test]
fn sigterm_lets_an_in_flight_call_finish() {
    let server = ServerProcess::spawn(
        &[
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            "--enable-fault-injection",
        ],
        &[],
    );
    let url = server.url();
    let metrics_addr = server.metrics_addr.unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async move {
        let channel = common::connect_with_cache(url).await;
        let mut client = ScsClient::new(channel);
        let held = tokio::spawn(async move {
            client
                .get(get_with("c", &[("delay-ms", "1500")]))
                .await
                .map(|answer| answer.into_inner())
        });
        // Wait until the server is holding the call.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = common::scrape(metrics_addr).await;
            if sample(&text, "jiffy_requests_in_flight") == Some(1.0) {
                break;
            }
            assert!(Instant::now() < deadline, "the call never arrived:\n{text}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // Off the runtime: it must keep driving the held call meanwhile.
        let exit = tokio::task::spawn_blocking(move || server.terminate());
        let answer = held.await.unwrap();
        assert!(answer.is_ok(), "the in-flight call was cut off: {answer:?}");
        let status = exit.await.unwrap();
        assert!(status.success(), "{status:?}");
    });
}
