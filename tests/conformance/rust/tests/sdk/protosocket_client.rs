//! `ProtosocketCacheClient` on the protosocket port: all it exposes (get,
//! set with or without a TTL, delete) and the errors it can meet.

use std::time::Duration;

use jiffy_conformance_rust::{grpc_client, protosocket_client};
use momento::cache::{DeleteResponse, GetResponse, SetRequest, SetResponse};
use momento::MomentoErrorCode;
use momento_protos::protosocket::common::Status;
use tokio::task::JoinSet;

use crate::{assert_command_error, server_with_cache, CACHE, PROTOSOCKET_VALUE_LIMIT};

#[tokio::test]
async fn a_set_then_get_is_a_hit() {
    let server = server_with_cache(&[]).await;
    let client = protosocket_client(&server).await;

    assert_eq!(
        client.set(CACHE, "greeting", "hello").await.unwrap(),
        SetResponse {}
    );
    let got = client.get(CACHE, "greeting").await.unwrap();

    assert_eq!(got, GetResponse::from("hello"));
    assert_eq!(String::try_from(got).unwrap(), "hello");
    server.stop().await;
}

#[tokio::test]
async fn a_get_of_an_absent_key_is_a_miss() {
    let server = server_with_cache(&[]).await;
    let client = protosocket_client(&server).await;

    assert_eq!(
        client.get(CACHE, "absent").await.unwrap(),
        GetResponse::Miss
    );
    server.stop().await;
}

#[tokio::test]
async fn binary_keys_and_an_empty_value_round_trip() {
    let server = server_with_cache(&[]).await;
    let client = protosocket_client(&server).await;
    let key: Vec<u8> = (0..=255).collect();
    let value: Vec<u8> = (0..=255).rev().collect();

    client.set(CACHE, key.clone(), value.clone()).await.unwrap();
    client.set(CACHE, "empty", Vec::new()).await.unwrap();

    assert_eq!(
        client.get(CACHE, key).await.unwrap(),
        GetResponse::from(value)
    );
    // An empty value is a hit, not a miss.
    assert_eq!(
        client.get(CACHE, "empty").await.unwrap(),
        GetResponse::from(Vec::new())
    );
    server.stop().await;
}

#[tokio::test]
async fn a_delete_removes_the_item_and_an_absent_one_is_fine() {
    let server = server_with_cache(&[]).await;
    let client = protosocket_client(&server).await;
    client.set(CACHE, "doomed", "soon gone").await.unwrap();

    assert_eq!(
        client.delete(CACHE, "doomed").await.unwrap(),
        DeleteResponse {}
    );

    assert_eq!(
        client.get(CACHE, "doomed").await.unwrap(),
        GetResponse::Miss
    );
    assert_eq!(
        client.delete(CACHE, "never-was").await.unwrap(),
        DeleteResponse {}
    );
    server.stop().await;
}

#[tokio::test]
async fn an_item_expires_after_its_ttl() {
    let server = server_with_cache(&[]).await;
    let client = protosocket_client(&server).await;
    let short = SetRequest::new(CACHE, "brief", "here").ttl(Duration::from_secs(1));
    let long = SetRequest::new(CACHE, "lasting", "here");

    client.send_request(short).await.unwrap();
    client.send_request(long).await.unwrap();
    assert_eq!(
        client.get(CACHE, "brief").await.unwrap(),
        GetResponse::from("here")
    );
    tokio::time::sleep(Duration::from_millis(2500)).await;

    assert_eq!(client.get(CACHE, "brief").await.unwrap(), GetResponse::Miss);
    // The client's default TTL (60 s) applies to the other.
    assert_eq!(
        client.get(CACHE, "lasting").await.unwrap(),
        GetResponse::from("here")
    );
    server.stop().await;
}

#[tokio::test]
async fn a_missing_cache_is_an_error_naming_it_not_a_miss() {
    let server = server_with_cache(&[]).await;
    let client = protosocket_client(&server).await;

    let got = client.get("no-such-cache", "key").await.unwrap_err();
    let set = client
        .set("no-such-cache", "key", "value")
        .await
        .unwrap_err();
    let deleted = client.delete("no-such-cache", "key").await.unwrap_err();

    for error in [&got, &set, &deleted] {
        // The client types no command error beyond UnknownError.
        assert_eq!(error.error_code, MomentoErrorCode::UnknownError);
        assert_command_error(error, Status::NotFound, "no-such-cache");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_largest_value_round_trips() {
    let server = server_with_cache(&[]).await;
    let client = protosocket_client(&server).await;
    let value = vec![b'v'; PROTOSOCKET_VALUE_LIMIT];

    client.set(CACHE, "largest", value.clone()).await.unwrap();

    assert_eq!(
        client.get(CACHE, "largest").await.unwrap(),
        GetResponse::from(value)
    );
    server.stop().await;
}

#[tokio::test]
async fn a_value_past_the_protosocket_limit_is_refused_as_item_size() {
    let server = server_with_cache(&[]).await;
    let client = protosocket_client(&server).await;

    let error = client
        .set(CACHE, "too-big", vec![b'x'; PROTOSOCKET_VALUE_LIMIT + 1])
        .await
        .unwrap_err();

    assert_command_error(
        &error,
        Status::ResourceExhausted,
        "item size limit exceeded",
    );
    assert_eq!(
        client.get(CACHE, "too-big").await.unwrap(),
        GetResponse::Miss
    );
    server.stop().await;
}

#[tokio::test]
async fn a_value_over_max_value_size_is_refused_as_item_size() {
    let server = server_with_cache(&["--max-value-size", "1MiB"]).await;
    let client = protosocket_client(&server).await;

    let error = client
        .set(CACHE, "big", vec![b'x'; 1024 * 1024 + 1])
        .await
        .unwrap_err();

    assert_command_error(&error, Status::ResourceExhausted, "--max-value-size");
    assert_eq!(client.get(CACHE, "big").await.unwrap(), GetResponse::Miss);
    server.stop().await;
}

#[tokio::test]
async fn a_value_stored_over_grpc_too_large_to_answer_is_an_error_not_a_miss() {
    let server = server_with_cache(&[]).await;
    let grpc = grpc_client(&server);
    let client = protosocket_client(&server).await;
    grpc.set(CACHE, "huge", vec![b'h'; 4_500_000])
        .await
        .unwrap();

    let error = client.get(CACHE, "huge").await.unwrap_err();

    assert_command_error(&error, Status::ResourceExhausted, "read it over gRPC");
    server.stop().await;
}

#[tokio::test]
async fn both_ports_serve_one_store() {
    let server = server_with_cache(&[]).await;
    let grpc = grpc_client(&server);
    let client = protosocket_client(&server).await;

    client.set(CACHE, "from-protosocket", "one").await.unwrap();
    grpc.set(CACHE, "from-grpc", "two").await.unwrap();

    assert_eq!(
        grpc.get(CACHE, "from-protosocket").await.unwrap(),
        GetResponse::from("one")
    );
    assert_eq!(
        client.get(CACHE, "from-grpc").await.unwrap(),
        GetResponse::from("two")
    );
    client.delete(CACHE, "from-grpc").await.unwrap();
    assert_eq!(
        grpc.get(CACHE, "from-grpc").await.unwrap(),
        GetResponse::Miss
    );
    server.stop().await;
}

#[tokio::test]
async fn many_commands_in_flight_are_each_answered_in_kind() {
    let server = server_with_cache(&[]).await;
    let client = protosocket_client(&server).await;
    let mut tasks = JoinSet::new();

    // More than --max-concurrent-streams (100) at once, mixed kinds, so
    // answers come back out of order and past the server's window.
    for i in 0..400 {
        let client = client.clone();
        tasks.spawn(async move {
            let key = format!("key-{i}");
            client
                .set(CACHE, key.as_str(), format!("value-{i}"))
                .await
                .unwrap();
            let got = client.get(CACHE, key.as_str()).await.unwrap();
            assert_eq!(got, GetResponse::from(format!("value-{i}")));
            let missed = client.get(CACHE, format!("absent-{i}")).await.unwrap();
            assert_eq!(missed, GetResponse::Miss);
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    server.stop().await;
}
