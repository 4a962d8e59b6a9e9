//! The HTTP API (`--http-listen`) over real sockets, on both stores: every
//! route, status and limit, the token in a header or the query, and the
//! calls counted with `transport="http"`.

use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use jiffy_server::auth::{CacheScope, Role, Secret};
use jiffy_server::proto::cache_client::pubsub::pubsub_client::PubsubClient;
use jiffy_server::proto::cache_client::pubsub::topic_value::Kind;
use jiffy_server::proto::control_client::CreateCacheRequest;
use tonic::metadata::MetadataValue;

use crate::common::stores::{on_both_stores, Store};
use crate::common::topics::{Got, Reader};
use crate::common::{self, bad_calls, sample, TestServer};

/// An answer of the HTTP API.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    content_type: Option<String>,
    pub(crate) body: Bytes,
}

impl Answer {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One request over a new HTTP/1.1 connection.
pub(crate) async fn send(
    addr: SocketAddr,
    method: Method,
    uri: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "localhost");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::new(Bytes::copy_from_slice(body)))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned());
    let body = response.into_body().collect().await.unwrap().to_bytes();
    Answer {
        status,
        content_type,
        body,
    }
}

/// A server with the HTTP API on `store`, with cache `c` created.
pub(crate) async fn start(
    store: Store,
    args: &[&str],
) -> (TestServer, Option<common::stores::RedisNode>) {
    let args: Vec<&str> = ["--http-listen", "127.0.0.1:0"]
        .iter()
        .chain(args)
        .copied()
        .collect();
    let (server, redis) = store.start(&args).await;
    common::create_cache(&mut server.control().await, "c").await;
    (server, redis)
}

fn http(server: &TestServer) -> SocketAddr {
    server.http_addr.expect("started with --http-listen")
}

async fn get(addr: SocketAddr, query: &str) -> Answer {
    send(addr, Method::GET, &format!("/cache/c?{query}"), &[], b"").await
}

async fn put(addr: SocketAddr, query: &str, value: &[u8]) -> Answer {
    send(addr, Method::PUT, &format!("/cache/c?{query}"), &[], value).await
}

async fn delete(addr: SocketAddr, query: &str) -> Answer {
    send(addr, Method::DELETE, &format!("/cache/c?{query}"), &[], b"").await
}

async fn set_get_and_delete_an_item(store: Store) {
    let (server, _redis) = start(store, &[]).await;
    let addr = http(&server);
    let put = put(addr, "key=a%20key&ttl_seconds=60", b"\x00value\xff").await;
    assert_eq!(put.status, StatusCode::NO_CONTENT, "{}", put.text());
    let hit = get(addr, "key=a%20key").await;
    assert_eq!(hit.status, StatusCode::OK);
    assert_eq!(&hit.body[..], b"\x00value\xff");
    assert_eq!(
        hit.content_type.as_deref(),
        Some("application/octet-stream")
    );
    // The same item over gRPC.
    let mut data = server.cache("c2").await;
    data.cache = "c".into();
    assert_eq!(&data.value_of(b"a key").await[..], b"\x00value\xff");
    let deleted = delete(addr, "key=a%20key").await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    let miss = get(addr, "key=a%20key").await;
    assert_eq!(miss.status, StatusCode::NOT_FOUND);
    assert_eq!(miss.text(), "Key Not Found\n");
    // Deleting what is not there succeeds, as Momento's does.
    assert_eq!(
        delete(addr, "key=never").await.status,
        StatusCode::NO_CONTENT
    );
}

async fn a_binary_key_is_given_in_base64(store: Store) {
    let (server, _redis) = start(store, &[]).await;
    let addr = http(&server);
    // 0xff 0xef in URL-safe base64, without padding.
    assert_eq!(
        put(addr, "key_base64=_-8&ttl_seconds=60", b"binary")
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    let mut data = server.cache("c2").await;
    data.cache = "c".into();
    assert_eq!(&data.value_of(&[0xff, 0xef]).await[..], b"binary");
    data.put(b"example_key", b"from grpc").await;
    let hit = get(addr, "key_base64=ZXhhbXBsZV9rZXk").await;
    assert_eq!(&hit.body[..], b"from grpc");
}

async fn a_missing_cache_is_404_on_every_route(store: Store) {
    let (server, _redis) = start(store, &[]).await;
    let addr = http(&server);
    let routes = [
        (Method::GET, "/cache/nope?key=k"),
        (Method::PUT, "/cache/nope?key=k&ttl_seconds=60"),
        (Method::DELETE, "/cache/nope?key=k"),
    ];
    for (method, uri) in routes {
        let answer = send(addr, method.clone(), uri, &[], b"v").await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{method} {uri}");
        assert!(
            answer.text().contains("`nope` does not exist"),
            "{}",
            answer.text()
        );
    }
}

async fn bad_requests_are_400(store: Store) {
    let (server, _redis) = start(store, &["--max-ttl", "1h"]).await;
    let addr = http(&server);
    let bad = [
        ("ttl_seconds=60", "key is missing"),
        ("key=&ttl_seconds=60", "key must not be empty"),
        ("key=a&key_base64=YQ&ttl_seconds=60", "not both"),
        ("key_base64=%25%25&ttl_seconds=60", "not URL-safe base64"),
        ("key=a", "ttl_seconds is missing"),
        ("key=a&ttl_seconds=soon", "not a whole number"),
        ("key=a&ttl_seconds=0", "TTL must be at least"),
        ("key=a&ttl_seconds=7200", "over the limit of 1h"),
    ];
    for (query, message) in bad {
        let answer = put(addr, query, b"v").await;
        assert_eq!(
            answer.status,
            StatusCode::BAD_REQUEST,
            "{query}: {}",
            answer.text()
        );
        assert!(
            answer.text().contains(message),
            "{query}: {}",
            answer.text()
        );
    }
    assert_eq!(get(addr, "").await.status, StatusCode::BAD_REQUEST);
    assert_eq!(delete(addr, "").await.status, StatusCode::BAD_REQUEST);
}

async fn limits_are_the_grpc_ports(store: Store) {
    // 16 B keys, 1 KiB values, 4 KiB requests.
    let (server, _redis) = start(store, bad_calls::SMALL).await;
    let addr = http(&server);
    let long_key = put(
        addr,
        &format!("key={}&ttl_seconds=60", "k".repeat(17)),
        b"v",
    )
    .await;
    assert_eq!(
        long_key.status,
        StatusCode::BAD_REQUEST,
        "{}",
        long_key.text()
    );
    assert!(long_key.text().contains("--max-key-size"));
    let large = put(addr, "key=k&ttl_seconds=60", &[7; 1025]).await;
    assert_eq!(
        large.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        large.text()
    );
    assert!(
        large.text().contains("--max-value-size"),
        "{}",
        large.text()
    );
    let huge = put(addr, "key=k&ttl_seconds=60", &[7; 4097]).await;
    assert_eq!(
        huge.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        huge.text()
    );
    assert!(
        huge.text().contains("--max-request-size"),
        "{}",
        huge.text()
    );
    assert_eq!(get(addr, "key=k").await.status, StatusCode::NOT_FOUND);
    let fits = put(addr, "key=k&ttl_seconds=60", &[7; 1024]).await;
    assert_eq!(fits.status, StatusCode::NO_CONTENT);
}

async fn unknown_routes_and_methods(store: Store) {
    let (server, _redis) = start(store, &[]).await;
    let addr = http(&server);
    let unknown = send(addr, Method::GET, "/caches/c?key=k", &[], b"").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(unknown.text().contains("no such route"));
    let post = send(addr, Method::POST, "/cache/c?key=k", &[], b"").await;
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
    let get_topic = send(addr, Method::GET, "/topics/c/t", &[], b"").await;
    assert_eq!(get_topic.status, StatusCode::METHOD_NOT_ALLOWED);
}

async fn publish_reaches_subscribers(store: Store) {
    let (server, _redis) = start(store, &[]).await;
    let addr = http(&server);
    let mut pubsub = PubsubClient::new(server.channel().await);
    let mut reader = Reader::subscribe(&mut pubsub, "c", "news").await;
    let text = send(
        addr,
        Method::POST,
        "/topics/c/news",
        &[("content-type", "text/plain; charset=utf-8")],
        "héllo".as_bytes(),
    )
    .await;
    assert_eq!(text.status, StatusCode::NO_CONTENT, "{}", text.text());
    let binary = send(addr, Method::POST, "/topics/c/news", &[], b"\x00\xff").await;
    assert_eq!(binary.status, StatusCode::NO_CONTENT);
    let mut values = Vec::new();
    while values.len() < 2 {
        if let Some(Got::Item { value, .. }) = reader.next().await.unwrap() {
            values.push(value);
        }
    }
    assert_eq!(values[0], Kind::Text("héllo".into()));
    assert_eq!(values[1], Kind::Binary(Bytes::from_static(b"\x00\xff")));
    let nowhere = send(addr, Method::POST, "/topics/nope/news", &[], b"x").await;
    assert_eq!(nowhere.status, StatusCode::NOT_FOUND);
    let not_text = send(
        addr,
        Method::POST,
        "/topics/c/news",
        &[("content-type", "text/plain")],
        b"\xff",
    )
    .await;
    assert_eq!(not_text.status, StatusCode::BAD_REQUEST);
}

/// A request head over `--max-header-list-size` is refused before it is
/// read whole, as HTTP/2's header list is on the gRPC port.
#[tokio::test(flavor = "multi_thread")]
async fn a_head_over_the_header_limit_is_431() {
    let (server, _redis) = start(Store::Embedded, &["--max-header-list-size", "8KiB"]).await;
    let addr = http(&server);
    let large = "x".repeat(9 << 10);
    let answer = send(
        addr,
        Method::GET,
        "/cache/c?key=k",
        &[("x-large", &large)],
        b"",
    )
    .await;
    assert_eq!(answer.status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    let fits = "x".repeat(6 << 10);
    let answer = send(
        addr,
        Method::GET,
        "/cache/c?key=k",
        &[("x-large", &fits)],
        b"",
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
}

on_both_stores!(
    set_get_and_delete_an_item,
    a_binary_key_is_given_in_base64,
    a_missing_cache_is_404_on_every_route,
    bad_requests_are_400,
    limits_are_the_grpc_ports,
    unknown_routes_and_methods,
    publish_reaches_subscribers,
);

fn signed(caches: CacheScope, role: Role) -> String {
    common::signed_token(common::TEST_SECRET, caches, role, None)
}

async fn with_auth() -> TestServer {
    let mut config = common::config(&["--http-listen", "127.0.0.1:0"]);
    config.auth = Some(Secret::from_bytes(common::TEST_SECRET).unwrap());
    let server = TestServer::with_config(config).await;
    let admin = signed(CacheScope::All, Role::Admin);
    let mut control = server.control().await;
    for cache in ["c", "other"] {
        let mut create = tonic::Request::new(CreateCacheRequest {
            cache_name: cache.into(),
        });
        let token = MetadataValue::try_from(&admin).unwrap();
        create.metadata_mut().insert("authorization", token);
        control.create_cache(create).await.unwrap();
    }
    server
}

#[tokio::test(flavor = "multi_thread")]
async fn the_token_comes_in_the_header_or_the_query_not_both() {
    let server = with_auth().await;
    let addr = http(&server);
    let writer = signed(CacheScope::All, Role::Write);
    let header = [("authorization", writer.as_str())];
    let uri = "/cache/c?key=k&ttl_seconds=60";
    let by_header = send(addr, Method::PUT, uri, &header, b"v").await;
    assert_eq!(
        by_header.status,
        StatusCode::NO_CONTENT,
        "{}",
        by_header.text()
    );
    let bearer = format!("Bearer {writer}");
    let by_bearer = send(
        addr,
        Method::GET,
        "/cache/c?key=k",
        &[("authorization", &bearer)],
        b"",
    )
    .await;
    assert_eq!(by_bearer.status, StatusCode::OK);
    let by_query = get(addr, &format!("key=k&token={writer}")).await;
    assert_eq!(by_query.status, StatusCode::OK, "{}", by_query.text());
    assert_eq!(&by_query.body[..], b"v");
    let both = send(
        addr,
        Method::GET,
        &format!("/cache/c?key=k&token={writer}"),
        &header,
        b"",
    )
    .await;
    assert_eq!(both.status, StatusCode::BAD_REQUEST);
    assert!(both.text().contains("not both"), "{}", both.text());
    // A Momento v1 key, as the official SDKs' GenerateApiKey gives it.
    let key = jiffy_server::auth::momento_key::wrap(&writer, "localhost");
    let by_key = send(
        addr,
        Method::GET,
        "/cache/c?key=k",
        &[("authorization", &key)],
        b"",
    )
    .await;
    assert_eq!(by_key.status, StatusCode::OK, "{}", by_key.text());
    let none = get(addr, "key=k").await;
    assert_eq!(none.status, StatusCode::UNAUTHORIZED);
    let forged = get(addr, "key=k&token=not.a.token").await;
    assert_eq!(forged.status, StatusCode::UNAUTHORIZED);
    let publish = send(addr, Method::POST, "/topics/c/t", &[], b"x").await;
    assert_eq!(publish.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tokens_role_and_caches_bound_every_route() {
    let server = with_auth().await;
    let addr = http(&server);
    let reader = signed(CacheScope::All, Role::Read);
    let elsewhere = signed(CacheScope::parse("other").unwrap(), Role::Write);
    let as_reader = [("authorization", reader.as_str())];
    let as_elsewhere = [("authorization", elsewhere.as_str())];
    let uri = "/cache/c?key=k&ttl_seconds=60";
    let refused = [
        send(addr, Method::PUT, uri, &as_reader, b"v").await,
        send(addr, Method::DELETE, uri, &as_reader, b"").await,
        send(addr, Method::POST, "/topics/c/t", &as_reader, b"x").await,
        send(addr, Method::GET, uri, &as_elsewhere, b"").await,
        send(addr, Method::PUT, uri, &as_elsewhere, b"v").await,
        send(addr, Method::POST, "/topics/c/t", &as_elsewhere, b"x").await,
    ];
    for answer in refused {
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.text());
    }
    let read = send(addr, Method::GET, uri, &as_reader, b"").await;
    assert_eq!(read.status, StatusCode::NOT_FOUND);
    let other = send(addr, Method::POST, "/topics/other/t", &as_elsewhere, b"x").await;
    assert_eq!(other.status, StatusCode::NO_CONTENT, "{}", other.text());
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_are_counted_with_transport_http() {
    let (server, _redis) = start(Store::Embedded, &[]).await;
    let addr = http(&server);
    put(addr, "key=k&ttl_seconds=60", b"v").await;
    get(addr, "key=k").await;
    get(addr, "key=gone").await;
    put(addr, "key=k", b"v").await;
    let metrics = server.metrics().await;
    let count = |rpc: &str, code: &str| {
        let series =
            format!("jiffy_requests_total{{code=\"{code}\",rpc=\"{rpc}\",transport=\"http\"}}");
        sample(&metrics, &series).unwrap_or(0.0)
    };
    assert_eq!(count("Set", "OK"), 1.0, "{metrics}");
    // A miss counts as OK, as on the gRPC port.
    assert_eq!(count("Get", "OK"), 2.0);
    assert_eq!(count("Set", "INVALID_ARGUMENT"), 1.0);
    assert!(
        metrics.contains("jiffy_request_duration_seconds_count{rpc=\"Get\",transport=\"http\"} 2")
    );
}
