//! With `--auth-secret-file`: a jiffy token, wrapped in a v1 key
//! (`local_key`), authenticates both clients, and the protosocket port
//! applies its role and refuses a bad token.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use jiffy_conformance_rust::{
    grpc_credentials, protosocket_client_with, protosocket_credentials, server_binary, JiffyServer,
    DEFAULT_TTL,
};
use momento::cache::{CreateCacheResponse, GetResponse};
use momento::protosocket::cache::Configuration;
use momento::{CacheClient, MomentoErrorCode};
use momento_protos::protosocket::common::Status;

use crate::{assert_command_error, CACHE};

/// A secret file of its own for one test.
fn secret_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("jiffy-rust-{name}-{}", std::process::id()));
    std::fs::write(
        &path,
        "a test secret that is at least thirty-two bytes long",
    )
    .unwrap();
    path
}

fn token(secret: &PathBuf, role: &str) -> String {
    let output = Command::new(server_binary())
        .args(["token", "create", "--caches", "all", "--expires-in", "1h"])
        .args(["--role", role])
        .arg("--auth-secret-file")
        .arg(secret)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_string()
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
async fn a_jiffy_token_authenticates_both_clients_and_its_role_holds() {
    let secret = secret_file("roles");
    let server = JiffyServer::start(&["--auth-secret-file", secret.to_str().unwrap()]);
    let admin = token(&secret, "admin");
    let grpc = CacheClient::builder()
        .default_ttl(DEFAULT_TTL)
        .configuration(momento::cache::configurations::Laptop::latest())
        .credential_provider(grpc_credentials(server.grpc, &admin))
        .build()
        .unwrap();
    assert_eq!(
        grpc.create_cache(CACHE).await.unwrap(),
        CreateCacheResponse::Created
    );

    let writer =
        protosocket_client_with(protosocket_credentials(server.protosocket, &admin), quick()).await;
    writer.set(CACHE, "k", "v").await.unwrap();
    assert_eq!(
        writer.get(CACHE, "k").await.unwrap(),
        GetResponse::from("v")
    );

    let reader_token = token(&secret, "read");
    let reader = protosocket_client_with(
        protosocket_credentials(server.protosocket, &reader_token),
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
