//! The crate's gRPC `CacheClient` on the gRPC port: the same cases as the
//! protosocket client, so the two transports can be read side by side.

use std::time::Duration;

use jiffy_conformance_rust::grpc_client;
use momento::cache::{CreateCacheResponse, DeleteResponse, GetResponse, SetRequest, SetResponse};
use momento::MomentoErrorCode;

use crate::{server_with_cache, CACHE};

#[tokio::test]
async fn create_cache_then_again_is_already_exists() {
    let server = server_with_cache(&[]).await;
    let client = grpc_client(&server);

    let again = client.create_cache(CACHE).await.unwrap();

    assert_eq!(again, CreateCacheResponse::AlreadyExists);
    server.stop().await;
}

#[tokio::test]
async fn set_get_hit_miss_and_delete() {
    let server = server_with_cache(&[]).await;
    let client = grpc_client(&server);

    assert_eq!(
        client.set(CACHE, "greeting", "hello").await.unwrap(),
        SetResponse {}
    );
    assert_eq!(
        client.get(CACHE, "greeting").await.unwrap(),
        GetResponse::from("hello")
    );
    assert_eq!(
        client.get(CACHE, "absent").await.unwrap(),
        GetResponse::Miss
    );
    assert_eq!(
        client.delete(CACHE, "greeting").await.unwrap(),
        DeleteResponse {}
    );
    assert_eq!(
        client.get(CACHE, "greeting").await.unwrap(),
        GetResponse::Miss
    );
    server.stop().await;
}

#[tokio::test]
async fn an_item_expires_after_its_ttl() {
    let server = server_with_cache(&[]).await;
    let client = grpc_client(&server);
    let short = SetRequest::new(CACHE, "brief", "here").ttl(Duration::from_secs(1));

    client.send_request(short).await.unwrap();
    assert_eq!(
        client.get(CACHE, "brief").await.unwrap(),
        GetResponse::from("here")
    );
    tokio::time::sleep(Duration::from_millis(2500)).await;

    assert_eq!(client.get(CACHE, "brief").await.unwrap(), GetResponse::Miss);
    server.stop().await;
}

#[tokio::test]
async fn a_missing_cache_is_cache_not_found() {
    let server = server_with_cache(&[]).await;
    let client = grpc_client(&server);

    let got = client.get("no-such-cache", "key").await.unwrap_err();
    let set = client
        .set("no-such-cache", "key", "value")
        .await
        .unwrap_err();

    assert_eq!(got.error_code, MomentoErrorCode::CacheNotFoundError);
    assert_eq!(set.error_code, MomentoErrorCode::CacheNotFoundError);
    server.stop().await;
}

#[tokio::test]
async fn a_value_over_max_value_size_is_limit_exceeded() {
    let server = server_with_cache(&["--max-value-size", "1MiB"]).await;
    let client = grpc_client(&server);

    let error = client
        .set(CACHE, "big", vec![b'x'; 1024 * 1024 + 1])
        .await
        .unwrap_err();

    assert_eq!(error.error_code, MomentoErrorCode::LimitExceededError);
    // The SDK words it from the server's `err: item_size_limit_exceeded`.
    assert_eq!(error.message, "Item size limit exceeded for this account");
    assert_eq!(client.get(CACHE, "big").await.unwrap(), GetResponse::Miss);
    server.stop().await;
}
