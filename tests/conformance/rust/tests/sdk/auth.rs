//! With `--auth-secret-file`: the key `jiffy-server token create --format
//! momento-v1` prints authenticates both clients, the protosocket port
//! applies its role, and a bad token is refused.

use std::path::PathBuf;
use std::time::Duration;

use jiffy_conformance_rust::{
    grpc_credentials_of_key, momento_key, protosocket_client_with, protosocket_credentials,
    protosocket_credentials_of_key, JiffyServer, DEFAULT_TTL,
};
use momento::cache::{CreateCacheResponse, GetResponse};
use momento::protosocket::cache::Configuration;
use momento::{CacheClient, MomentoErrorCode};
use momento_protos::protosocket::common::Status;

use crate::{assert_command_error, CACHE};

/// A secret file of its own for one test.
pub fn secret_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("jiffy-rust-{name}-{}", std::process::id()));
    std::fs::write(
        &path,
        "a test secret that is at least thirty-two bytes long",
    )
    .unwrap();
    path
}

/// A short timeout, so a refused connection fails the call in seconds.
fn quick() -> Configuration {
    Configuration::builder()
        .timeout(Duration::from_secs(5))
        .connection_count(1)
        .az_id(None)
        .build()
}

#[tokio::test]
async fn a_momento_v1_key_authenticates_both_clients_and_its_role_holds() {
    let secret = secret_file("roles");
    let server = JiffyServer::start(&["--auth-secret-file", secret.to_str().unwrap()]);
    let admin = momento_key(&secret, "admin");
    let grpc = CacheClient::builder()
        .default_ttl(DEFAULT_TTL)
        .configuration(momento::cache::configurations::Laptop::latest())
        .credential_provider(grpc_credentials_of_key(server.grpc, admin.clone()))
        .build()
        .unwrap();
    assert_eq!(
        grpc.create_cache(CACHE).await.unwrap(),
        CreateCacheResponse::Created
    );

    let writer = protosocket_client_with(
        protosocket_credentials_of_key(server.protosocket, admin),
        quick(),
    )
    .await;
    writer.set(CACHE, "k", "v").await.unwrap();
    assert_eq!(
        writer.get(CACHE, "k").await.unwrap(),
        GetResponse::from("v")
    );

    let reader_key = momento_key(&secret, "read");
    let reader = protosocket_client_with(
        protosocket_credentials_of_key(server.protosocket, reader_key),
        quick(),
    )
    .await;
    assert_eq!(
        reader.get(CACHE, "k").await.unwrap(),
        GetResponse::from("v")
    );
    let refused = reader.set(CACHE, "k", "other").await.unwrap_err();
    assert_command_error(&refused, Status::PermissionDenied, "write");

    server.stop().await;
    std::fs::remove_file(secret).unwrap();
}

#[tokio::test]
async fn a_bad_token_is_an_authentication_error_on_the_protosocket_port() {
    let secret = secret_file("bad");
    let server = JiffyServer::start(&["--auth-secret-file", secret.to_str().unwrap()]);
    let client = protosocket_client_with(
        protosocket_credentials(server.protosocket, "not-a-token"),
        quick(),
    )
    .await;

    let error = client.get(CACHE, "k").await.unwrap_err();

    assert_eq!(
        error.error_code,
        MomentoErrorCode::AuthenticationError,
        "{error:?}"
    );
    server.stop().await;
    std::fs::remove_file(secret).unwrap();
}
