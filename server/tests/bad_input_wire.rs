//! Bad bytes on the wire, against the server binary: garbage instead of
//! HTTP/2, truncated and oversized frames, a client that stops mid-frame,
//! and gRPC messages framed wrong. Each time the server closes (or answers)
//! that one connection; the process stays up, other clients never notice,
//! and a known baseline of caches and items is unchanged.

use crate::common;

use std::time::Duration;

use bytes::Bytes;
use common::baseline::{connect, Baseline, CACHE};
use common::raw_http2::{self as raw, frame_header, frames_until_closed, handshake};
use common::{in_cache, sample, scrape, ServerProcess};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::GetRequest;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tonic::Code;

/// Long enough for any close the server decides to make; a connection still
/// open after it fails the test.
const CLOSE_LIMIT: Duration = Duration::from_secs(10);

struct Server {
    process: ServerProcess,
    baseline: Baseline,
}

impl Server {
    async fn start(extra: &[&str]) -> Server {
        let mut args = vec!["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"];
        args.extend_from_slice(extra);
        let process = ServerProcess::spawn(&args, &[]);
        let baseline = Baseline::create(&process.url(), process.metrics_addr).await;
        Server { process, baseline }
    }

    async fn open_connections(&self) -> f64 {
        let text = scrape(self.process.metrics_addr.unwrap()).await;
        sample(&text, "jiffy_open_connections").unwrap()
    }

    /// The process is alive, the baseline unchanged, and the connections
    /// the test opened are all closed again (`before` were open before it).
    async fn assert_unaffected(&mut self, before: f64) {
        assert!(
            self.process.child.try_wait().unwrap().is_none(),
            "the server process exited"
        );
        self.baseline.assert_unchanged().await;
        // assert_unchanged opened (and dropped) one connection of its own.
        let deadline = tokio::time::Instant::now() + CLOSE_LIMIT;
        while self.open_connections().await > before {
            assert!(
                tokio::time::Instant::now() < deadline,
                "connections left open: {} > {before}",
                self.open_connections().await
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[tokio::test]
async fn garbage_instead_of_the_preface() {
    let mut server = Server::start(&[]).await;
    let before = server.open_connections().await;
    let garbage: [&[u8]; 4] = [
        &[0xab; 4096],
        b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
        b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n", // a preface with one word wrong
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", // a TLS ClientHello on the plaintext port
    ];
    for bytes in garbage {
        let mut stream = TcpStream::connect(server.process.addr).await.unwrap();
        stream.write_all(bytes).await.unwrap();
        let frames = frames_until_closed(&mut stream, CLOSE_LIMIT).await;
        // Nothing a garbage-sender could take for an answer to a request.
        assert!(
            frames
                .iter()
                .all(|f| f.kind != raw::HEADERS && f.kind != raw::DATA),
            "{frames:?}"
        );
    }
    server.assert_unaffected(before).await;
}

#[tokio::test]
async fn truncated_frame_then_close() {
    let mut server = Server::start(&[]).await;
    let before = server.open_connections().await;
    // HEADERS, PING and SETTINGS frames that each claim more than is sent.
    for kind in [raw::HEADERS, raw::PING, raw::SETTINGS] {
        let mut stream = handshake(server.process.addr).await.unwrap();
        let stream_id = if kind == raw::HEADERS { 1 } else { 0 };
        stream
            .write_all(&frame_header(64, kind, raw::FLAG_END_HEADERS, stream_id))
            .await
            .unwrap();
        stream.write_all(&[0; 10]).await.unwrap();
        stream.shutdown().await.unwrap();
        frames_until_closed(&mut stream, CLOSE_LIMIT).await;
    }
    // And a frame header cut short.
    let mut stream = handshake(server.process.addr).await.unwrap();
    stream
        .write_all(&frame_header(8, raw::PING, 0, 0)[..5])
        .await
        .unwrap();
    stream.shutdown().await.unwrap();
    frames_until_closed(&mut stream, CLOSE_LIMIT).await;
    server.assert_unaffected(before).await;
}

#[tokio::test]
async fn frame_header_claiming_a_huge_length() {
    let mut server = Server::start(&[]).await;
    let before = server.open_connections().await;
    for kind in [raw::DATA, raw::HEADERS, raw::SETTINGS] {
        let mut stream = handshake(server.process.addr).await.unwrap();
        let stream_id = if kind == raw::SETTINGS { 0 } else { 1 };
        // 16 MiB - 1: the largest length the field holds, far over the
        // 16 KiB frame size the server allows.
        stream
            .write_all(&frame_header((1 << 24) - 1, kind, 0, stream_id))
            .await
            .unwrap();
        stream.write_all(&[0; 1024]).await.unwrap();
        let frames = frames_until_closed(&mut stream, CLOSE_LIMIT).await;
        let goaway = frames.iter().find_map(|f| f.goaway_code());
        assert_eq!(goaway, Some(raw::FRAME_SIZE_ERROR), "{kind}: {frames:?}");
    }
    server.assert_unaffected(before).await;
}

/// A client that stops in the middle of a frame and keeps the socket open:
/// it holds nothing up meanwhile, and the server's keepalive ping, which it
/// never answers, closes it.
#[tokio::test]
async fn half_open_client_stopped_mid_frame() {
    let mut server =
        Server::start(&["--keepalive-interval", "1s", "--keepalive-timeout", "1s"]).await;
    let before = server.open_connections().await;
    let mut stalled = Vec::new();
    for kind in [raw::HEADERS, raw::DATA] {
        let mut stream = handshake(server.process.addr).await.unwrap();
        stream
            .write_all(&frame_header(100, kind, raw::FLAG_END_HEADERS, 1))
            .await
            .unwrap();
        stream.write_all(&[0; 50]).await.unwrap();
        stalled.push(stream);
    }
    // Before the server gives up on them, everyone else is served as usual.
    server.baseline.assert_unchanged().await;
    for mut stream in stalled {
        let frames = frames_until_closed(&mut stream, CLOSE_LIMIT).await;
        assert!(frames.iter().any(|f| f.kind == raw::PING), "{frames:?}");
    }
    server.assert_unaffected(before).await;
}

/// What the server answered a hand-framed gRPC call.
#[derive(Debug, PartialEq)]
struct Answer {
    http: u16,
    grpc_status: Option<String>,
    grpc_message: String,
    err: Option<String>,
}

/// Sends `body` as the whole request body of a gRPC call to `path`, framed
/// by the caller (5-byte prefix and all), with `headers` on top of the
/// usual ones, over a new HTTP/2 connection.
async fn send_framed(
    server: &Server,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Answer {
    let tcp = TcpStream::connect(server.process.addr).await.unwrap();
    let (client, connection) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let mut client = client.ready().await.unwrap();
    let mut request = http::Request::builder()
        .method("POST")
        .uri(format!("http://{}{path}", server.process.addr))
        .header("te", "trailers")
        .header("cache", CACHE);
    if !headers.iter().any(|(name, _)| *name == "content-type") {
        request = request.header("content-type", "application/grpc");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let (response, mut send) = client
        .send_request(request.body(()).unwrap(), false)
        .unwrap();
    send.send_data(Bytes::from(body), true).unwrap();
    let response = response.await.unwrap();
    let (parts, mut body) = response.into_parts();
    while let Some(chunk) = body.data().await {
        let chunk = chunk.unwrap();
        let _ = body.flow_control().release_capacity(chunk.len());
    }
    let trailers = body.trailers().await.unwrap().unwrap_or_default();
    let get = |name: &str| {
        parts
            .headers
            .get(name)
            .or_else(|| trailers.get(name))
            .map(|v| v.to_str().unwrap().to_owned())
    };
    Answer {
        http: parts.status.as_u16(),
        grpc_status: get("grpc-status"),
        grpc_message: get("grpc-message").unwrap_or_default(),
        err: get("err"),
    }
}

/// A gRPC message prefix: compression flag and length.
fn prefix(flag: u8, length: u32) -> Vec<u8> {
    let mut bytes = vec![flag];
    bytes.extend_from_slice(&length.to_be_bytes());
    bytes
}

/// A Get of key "k" (field 1, 1 byte), framed as gRPC.
fn framed_get() -> Vec<u8> {
    let mut bytes = prefix(0, 3);
    bytes.extend_from_slice(b"\x0a\x01k");
    bytes
}

/// One hand-framed call and the gRPC status code it must get.
struct Case {
    what: &'static str,
    path: &'static str,
    headers: &'static [(&'static str, &'static str)],
    body: Vec<u8>,
    status: &'static str,
}

#[tokio::test]
async fn grpc_messages_framed_wrong() {
    const INTERNAL: &str = "13";
    let mut server = Server::start(&[]).await;
    let before = server.open_connections().await;
    let get = "/cache_client.Scs/Get";
    let key_k = || b"\x0a\x01k".to_vec();
    let cases = [
        Case {
            what: "the prefix promises 100 bytes, 3 come, the stream ends",
            path: get,
            headers: &[],
            body: [prefix(0, 100), key_k()].concat(),
            status: INTERNAL,
        },
        Case {
            what: "a prefix cut short",
            path: get,
            headers: &[],
            body: vec![0, 0, 0],
            status: INTERNAL,
        },
        Case {
            what: "no message at all",
            path: get,
            headers: &[],
            body: vec![],
            status: INTERNAL,
        },
        Case {
            what: "compression flag 2",
            path: get,
            headers: &[],
            body: [prefix(2, 3), key_k()].concat(),
            status: INTERNAL,
        },
        Case {
            what: "the compressed flag without grpc-encoding",
            path: get,
            headers: &[],
            body: [prefix(1, 3), key_k()].concat(),
            status: INTERNAL,
        },
        // An encoding the server does not speak: UNIMPLEMENTED, as gRPC says.
        Case {
            what: "grpc-encoding gzip",
            path: get,
            headers: &[("grpc-encoding", "gzip")],
            body: [prefix(1, 3), key_k()].concat(),
            status: "12",
        },
        // Not gRPC at all. tonic does not look at the content type (where the
        // gRPC spec suggests HTTP 415): the body is read as gRPC framing, and
        // two bytes are a prefix cut short.
        Case {
            what: "content-type application/json",
            path: get,
            headers: &[("content-type", "application/json")],
            body: b"{}".to_vec(),
            status: INTERNAL,
        },
        // A length over --max-request-size: refused from the prefix alone,
        // RESOURCE_EXHAUSTED with the reason the SDKs read. (A Set so large
        // is told its value is over --max-value-size: tests/ops.rs.)
        Case {
            what: "a length prefix of 4 GiB",
            path: get,
            headers: &[],
            body: prefix(0, u32::MAX),
            status: "8",
        },
        // Well framed, for comparison: answered.
        Case {
            what: "a well-framed Get",
            path: get,
            headers: &[],
            body: framed_get(),
            status: "0",
        },
    ];
    for case in cases {
        let what = case.what;
        let answer = send_framed(&server, case.path, case.headers, case.body).await;
        assert_eq!(answer.http, 200, "{what}: {answer:?}");
        assert_eq!(
            answer.grpc_status.as_deref(),
            Some(case.status),
            "{what}: {answer:?}"
        );
        let reason = (case.status == "8").then_some("request_size_limit_exceeded");
        assert_eq!(answer.err.as_deref(), reason, "{what}: {answer:?}");
    }
    server.assert_unaffected(before).await;
}

/// Headers over the server's limit on a request's header list (16 KiB, the
/// HTTP/2 default hyper keeps): the stream is reset with ENHANCE_YOUR_CALM,
/// which clients read as RESOURCE_EXHAUSTED; far over, the connection goes.
#[tokio::test]
async fn oversized_headers() {
    let mut server = Server::start(&[]).await;
    let before = server.open_connections().await;
    let get = || {
        tonic::Request::new(GetRequest {
            cache_key: Bytes::from_static(b"k"),
        })
    };
    let big = |size: usize| "x".repeat(size).parse().unwrap();
    for size in [100_000, 1_000_000] {
        let mut client = ScsClient::new(connect(&server.process.url()).await);
        let mut long_cache = get();
        long_cache.metadata_mut().insert("cache", big(size));
        let mut padded = in_cache(
            CACHE,
            GetRequest {
                cache_key: Bytes::from_static(b"k"),
            },
        );
        padded.metadata_mut().insert("x-padding", big(size));
        for request in [long_cache, padded] {
            let status = client.get(request).await.expect_err("should be refused");
            if size == 100_000 {
                assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
            }
        }
    }
    server.assert_unaffected(before).await;
}
