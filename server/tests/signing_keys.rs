//! Signing keys and presigned URLs over real sockets, on both stores:
//! CreateSigningKey, ListSigningKeys and RevokeSigningKey over gRPC, the
//! URLs they sign accepted by the HTTP API for what they name only, and
//! refused once expired, revoked, altered or used elsewhere; the cap on
//! keys; over Redis, a key made on one front-end serving on another.

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use hyper::{Method, StatusCode};
use jiffy_server::auth::signing_keys::sign_url_token;
use jiffy_server::auth::{CacheScope, Role, Secret};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::{
    CreateSigningKeyRequest, ListSigningKeysRequest, RevokeSigningKeyRequest,
};
use serde_json::{json, Value};
use tonic::transport::Channel;
use tonic::Code;

use crate::common::stores::{on_both_stores, RedisNode, Store};
use crate::common::{self, TestServer};
use crate::http_api::{send, start, Answer};

type Control = ScsControlClient<Channel>;

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A new key's JWK and id.
async fn create(
    control: &mut Control,
    ttl_minutes: u32,
) -> Result<(String, String), tonic::Status> {
    let answer = control
        .create_signing_key(CreateSigningKeyRequest { ttl_minutes })
        .await?
        .into_inner();
    let jwk: Value = serde_json::from_str(&answer.key).unwrap();
    let lifetime = answer.expires_at - now();
    assert!(lifetime <= u64::from(ttl_minutes) * 60 && lifetime + 60 > u64::from(ttl_minutes) * 60);
    Ok((answer.key, jwk["kid"].as_str().unwrap().to_owned()))
}

async fn listed(control: &mut Control) -> Vec<String> {
    let request = ListSigningKeysRequest {
        next_token: String::new(),
    };
    let answer = control
        .list_signing_keys(request)
        .await
        .unwrap()
        .into_inner();
    answer
        .signing_key
        .into_iter()
        .map(|key| key.key_id)
        .collect()
}

async fn revoke(control: &mut Control, key_id: &str) -> Result<(), tonic::Status> {
    let request = RevokeSigningKeyRequest {
        key_id: key_id.to_owned(),
    };
    control.revoke_signing_key(request).await.map(drop)
}

/// A presigned token of `jwk` for `method` on key `k` of cache `c`,
/// valid for a minute.
fn token(jwk: &str, method: &str) -> String {
    let mut claims = json!({"exp": now() + 60, "cache": "c", "key": "k", "method": [method]});
    if method == "set" {
        claims["ttl"] = json!(300);
    }
    sign_url_token(jwk, &claims).unwrap()
}

async fn presigned_get(addr: SocketAddr, path: &str, token: &str) -> Answer {
    let uri = format!("/cache/get/{path}?token={token}");
    send(addr, Method::GET, &uri, &[], b"").await
}

async fn presigned_set(addr: SocketAddr, path: &str, token: &str, value: &[u8]) -> Answer {
    let uri = format!("/cache/set/{path}?token={token}&ttl_milliseconds=300000");
    send(addr, Method::PUT, &uri, &[], value).await
}

async fn create_list_and_revoke(store: Store) {
    let (server, _redis) = start(store, &[]).await;
    let mut control = server.control().await;
    let (_, first) = create(&mut control, 30).await.unwrap();
    let (_, second) = create(&mut control, 60).await.unwrap();
    let mut keys = listed(&mut control).await;
    keys.sort();
    let mut both = vec![first.clone(), second.clone()];
    both.sort();
    assert_eq!(keys, both);
    revoke(&mut control, &first).await.unwrap();
    assert_eq!(listed(&mut control).await, [second]);
    let again = revoke(&mut control, &first).await.unwrap_err();
    assert_eq!(again.code(), Code::NotFound);
    let zero = create(&mut control, 0).await.unwrap_err();
    assert_eq!(zero.code(), Code::InvalidArgument);
}

async fn a_presigned_set_and_get_are_served(store: Store) {
    let (server, _redis) = start(store, &[]).await;
    let addr = server.http_addr.unwrap();
    let (jwk, _) = create(&mut server.control().await, 30).await.unwrap();
    let set = presigned_set(addr, "c/k", &token(&jwk, "set"), b"value").await;
    assert_eq!(set.status, StatusCode::NO_CONTENT, "{}", set.text());
    let get = presigned_get(addr, "c/k", &token(&jwk, "get")).await;
    assert_eq!(get.status, StatusCode::OK, "{}", get.text());
    assert_eq!(&get.body[..], b"value");
    // What a presigned set stored is any other item, read over gRPC too.
    let mut data = common::Data {
        client: server.data().await,
        cache: "c".into(),
    };
    assert_eq!(&data.value_of(b"k").await[..], b"value");
    // A set by POST, as well as by PUT.
    let uri = format!("/cache/set/c/k?token={}", token(&jwk, "set"));
    let post = send(addr, Method::POST, &uri, &[], b"posted").await;
    assert_eq!(post.status, StatusCode::NO_CONTENT, "{}", post.text());
    assert_eq!(
        &presigned_get(addr, "c/k", &token(&jwk, "get")).await.body[..],
        b"posted"
    );
    let metrics = server.metrics().await;
    assert!(
        metrics.contains(r#"jiffy_requests_total{code="OK",rpc="Get",transport="http"} 2"#),
        "{metrics}"
    );
}

async fn refused_urls(store: Store) {
    let (server, _redis) = start(store, &[]).await;
    let addr = server.http_addr.unwrap();
    let mut control = server.control().await;
    let (jwk, id) = create(&mut control, 30).await.unwrap();
    let get = token(&jwk, "get");
    let status = |answer: Answer| answer.status;

    let expired = json!({"exp": now() - 1, "cache": "c", "key": "k", "method": ["get"]});
    let expired = sign_url_token(&jwk, &expired).unwrap();
    assert_eq!(
        status(presigned_get(addr, "c/k", &expired).await),
        StatusCode::UNAUTHORIZED
    );
    // Another key's claims under this signature.
    let (head, rest) = get.split_once('.').unwrap();
    let signature = rest.split_once('.').unwrap().1;
    let other = json!({"exp": now() + 60, "cache": "c", "key": "k2", "method": ["get"]});
    let other = base64_url(&other.to_string());
    let tampered = format!("{head}.{other}.{signature}");
    assert_eq!(
        status(presigned_get(addr, "c/k2", &tampered).await),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        status(presigned_get(addr, "c/k", "").await),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        status(presigned_get(addr, "c/k", "x.y.z").await),
        StatusCode::UNAUTHORIZED
    );

    common::create_cache(&mut control, "other").await;
    assert_eq!(
        status(presigned_get(addr, "other/k", &get).await),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        status(presigned_get(addr, "c/k2", &get).await),
        StatusCode::FORBIDDEN
    );
    // A get's URL used to set, and the other way round.
    assert_eq!(
        status(presigned_set(addr, "c/k", &get, b"v").await),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        status(presigned_get(addr, "c/k", &token(&jwk, "set")).await),
        StatusCode::FORBIDDEN
    );
    // A TTL in the URL other than the signed one.
    let uri = format!(
        "/cache/set/c/k?token={}&ttl_milliseconds=1",
        token(&jwk, "set")
    );
    assert_eq!(
        status(send(addr, Method::PUT, &uri, &[], b"v").await),
        StatusCode::FORBIDDEN
    );
    // Another HTTP method on the route.
    let uri = format!("/cache/get/c/k?token={get}");
    let deleted = send(addr, Method::DELETE, &uri, &[], b"").await;
    assert_eq!(deleted.status, StatusCode::METHOD_NOT_ALLOWED);

    // Nothing was written by any of them.
    assert_eq!(
        status(presigned_get(addr, "c/k", &get).await),
        StatusCode::NOT_FOUND
    );
    revoke(&mut control, &id).await.unwrap();
    assert_eq!(
        status(presigned_get(addr, "c/k", &get).await),
        StatusCode::UNAUTHORIZED
    );
    let metrics = server.metrics().await;
    assert!(
        metrics.contains(r#"jiffy_signing_keys_total{result="url_refused"} 10"#),
        "{metrics}"
    );
}

fn base64_url(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

async fn the_number_of_keys_is_capped(store: Store) {
    let (server, _redis) = start(store, &["--max-signing-keys", "2"]).await;
    let mut control = server.control().await;
    let (_, first) = create(&mut control, 30).await.unwrap();
    create(&mut control, 30).await.unwrap();
    let refused = create(&mut control, 30).await.unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted);
    assert!(
        refused.message().contains("--max-signing-keys"),
        "{}",
        refused.message()
    );
    assert_eq!(listed(&mut control).await.len(), 2);
    revoke(&mut control, &first).await.unwrap();
    create(&mut control, 30).await.unwrap();
    let metrics = server.metrics().await;
    assert!(
        metrics.contains(r#"jiffy_signing_keys_total{result="refused_cap"} 1"#),
        "{metrics}"
    );
}

on_both_stores!(
    create_list_and_revoke,
    a_presigned_set_and_get_are_served,
    refused_urls,
    the_number_of_keys_is_capped,
);

/// Two front-ends over one Redis: a key made on one signs URLs the other
/// serves, and revoked on one is refused by the other at once.
#[tokio::test(flavor = "multi_thread")]
async fn over_redis_every_front_end_shares_the_keys() {
    let (redis, url) = RedisNode::on_free_port().await;
    let args = ["--http-listen", "127.0.0.1:0", "--store", &url];
    let (first, second) = (
        TestServer::with_args(&args).await,
        TestServer::with_args(&args).await,
    );
    common::create_cache(&mut first.control().await, "c").await;
    let mut control = first.control().await;
    let (jwk, id) = create(&mut control, 30).await.unwrap();
    assert_eq!(listed(&mut second.control().await).await, [id.as_str()]);
    let addr = second.http_addr.unwrap();
    let set = presigned_set(addr, "c/k", &token(&jwk, "set"), b"shared").await;
    assert_eq!(set.status, StatusCode::NO_CONTENT, "{}", set.text());
    revoke(&mut control, &id).await.unwrap();
    let get = presigned_get(addr, "c/k", &token(&jwk, "get")).await;
    assert_eq!(get.status, StatusCode::UNAUTHORIZED);
    drop(redis);
}

/// With auth on, a presigned URL needs no token of the server's, and only
/// a token over every cache manages signing keys.
#[tokio::test(flavor = "multi_thread")]
async fn with_auth_only_an_admin_of_every_cache_manages_keys() {
    let mut config = common::config(&["--http-listen", "127.0.0.1:0"]);
    config.auth = Some(Secret::from_bytes(common::TEST_SECRET).unwrap());
    let server = TestServer::with_config(config).await;
    let token_of = |caches, role| common::signed_token(common::TEST_SECRET, caches, role, None);
    let admin = token_of(CacheScope::All, Role::Admin);
    let mut control = server.control().await;
    let create_cache = common::with_token(
        jiffy_server::proto::control_client::CreateCacheRequest {
            cache_name: "c".into(),
        },
        &admin,
    );
    control.create_cache(create_cache).await.unwrap();
    let one_cache = token_of(CacheScope::Names(vec!["c".into()]), Role::Admin);
    for refused in [one_cache, token_of(CacheScope::All, Role::Write)] {
        let request = common::with_token(CreateSigningKeyRequest { ttl_minutes: 5 }, &refused);
        let status = control.create_signing_key(request).await.unwrap_err();
        assert_eq!(
            status.code(),
            Code::PermissionDenied,
            "{}",
            status.message()
        );
    }
    let request = common::with_token(CreateSigningKeyRequest { ttl_minutes: 5 }, &admin);
    let jwk = control
        .create_signing_key(request)
        .await
        .unwrap()
        .into_inner()
        .key;
    let addr = server.http_addr.unwrap();
    let set = presigned_set(addr, "c/k", &token(&jwk, "set"), b"v").await;
    assert_eq!(set.status, StatusCode::NO_CONTENT, "{}", set.text());
}
