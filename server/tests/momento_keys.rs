//! `jiffy-server token create --format momento-v1` against the real binary:
//! it prints a Momento v1 key (base64 of JSON `api_key`, `endpoint`) in the
//! one form every official SDK reads, its `api_key` is a token of the
//! server's secret, and that token in `authorization`, as the SDKs send
//! it, is served. The official SDKs themselves use such keys in
//! tests/conformance (Python: test_momento_keys.py; Rust: tests/sdk).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use base64::Engine;
use common::{in_cache, server_binary, ServerProcess};
use jiffy_server::auth::{CacheScope, Role, Scope, Secret, Verifier};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{GetRequest, SetRequest};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::CreateCacheRequest;
use tonic::metadata::MetadataValue;
use tonic::Request;

const SECRET: &str = "a-test-secret-that-is-long-enough-for-hs256";

/// What a key or token grants in these tests, unless said otherwise.
const WRITE_C: &[&str] = &["--role", "write", "--caches", "c", "--expires-in", "1h"];
const ADMIN: &[&str] = &["--role", "admin", "--caches", "all", "--expires-in", "1h"];

/// `token create` of a token granting `grant`, with `args`.
fn token_create(secret: &Path, grant: &[&str], args: &[&str]) -> Output {
    Command::new(server_binary())
        .args(["token", "create", "--auth-secret-file"])
        .arg(secret)
        .args(grant)
        .args(args)
        .output()
        .unwrap()
}

/// The key printed, and its JSON.
fn momento_key(secret: &Path, args: &[&str]) -> (String, serde_json::Value) {
    let output = token_create(secret, WRITE_C, args);
    assert!(output.status.success(), "{output:?}");
    let key = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    // Python and JavaScript: standard base64 with padding, which they
    // encode again and compare. Rust: URL-safe base64 with padding.
    assert!(!key.contains(['+', '/', '-', '_']), "{key}");
    let standard = base64::engine::general_purpose::STANDARD.decode(&key);
    let url_safe = base64::engine::general_purpose::URL_SAFE.decode(&key);
    let json = standard.expect("standard base64");
    assert_eq!(json, url_safe.expect("URL-safe base64"));
    assert_eq!(
        base64::engine::general_purpose::STANDARD.encode(&json),
        key,
        "encodes back the same"
    );
    (key, serde_json::from_slice(&json).expect("JSON"))
}

/// `request` with `token` in `authorization`, as the SDKs send it.
fn authorized<T>(token: &str, mut request: Request<T>) -> Request<T> {
    let value = MetadataValue::try_from(token).unwrap();
    request.metadata_mut().insert("authorization", value);
    request
}

fn secret_file() -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), SECRET).unwrap();
    file
}

#[test]
fn the_key_wraps_a_token_of_the_server_secret() {
    let secret = secret_file();
    let (_, json) = momento_key(secret.path(), &["--format", "momento-v1"]);
    let fields = json.as_object().unwrap();
    assert_eq!(fields.len(), 2, "{json}");
    assert_eq!(json["endpoint"], "localhost");
    let token = json["api_key"].as_str().unwrap();
    let verifier = Verifier::new(&Secret::from_bytes(SECRET.as_bytes()).unwrap());
    let claims = verifier.verify(token).expect("a token of this secret");
    assert_eq!(
        claims.scope,
        Scope::Role {
            caches: CacheScope::Names(vec!["c".into()]),
            role: Role::Write
        }
    );

    let (_, json) = momento_key(
        secret.path(),
        &[
            "--format",
            "momento-v1",
            "--momento-endpoint",
            "jiffy.example.com",
        ],
    );
    assert_eq!(json["endpoint"], "jiffy.example.com");
    // Without --format the token alone, as before.
    let output = token_create(secret.path(), WRITE_C, &[]);
    let printed = String::from_utf8(output.stdout).unwrap();
    assert!(verifier.verify(printed.trim()).is_ok(), "{printed}");
}

#[test]
fn a_host_that_is_no_host_name_or_without_the_format_exits_2() {
    let secret = secret_file();
    for (args, says) in [
        (
            &["--momento-endpoint", "jiffy.example.com"][..],
            "--format momento-v1",
        ),
        (
            &["--format", "momento-v1", "--momento-endpoint", "https://x"][..],
            "not a host name",
        ),
        (&["--format", "momento-v2"][..], "momento-v1"),
    ] {
        let output = token_create(secret.path(), WRITE_C, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(output.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// The SDKs send the key's `api_key` in `authorization`: the server serves it.
#[tokio::test]
async fn the_token_inside_is_served_as_the_sdks_send_it() {
    let secret = secret_file();
    let server = ServerProcess::spawn(
        &[
            "--listen",
            "127.0.0.1:0",
            "--auth-secret-file",
            secret.path().to_str().unwrap(),
        ],
        &[],
    );
    let admin = token_create(secret.path(), ADMIN, &[]);
    assert!(admin.status.success(), "{admin:?}");
    let admin = String::from_utf8(admin.stdout).unwrap().trim().to_owned();
    let (_, json) = momento_key(secret.path(), &["--format", "momento-v1"]);
    let api_key = json["api_key"].as_str().unwrap();
    let mut control = ScsControlClient::connect(server.url()).await.unwrap();
    let create = Request::new(CreateCacheRequest {
        cache_name: "c".into(),
    });
    control
        .create_cache(authorized(&admin, create))
        .await
        .unwrap();
    let mut data = ScsClient::connect(server.url()).await.unwrap();
    let set = SetRequest {
        cache_key: "k".into(),
        cache_body: "v".into(),
        ttl_milliseconds: 60_000,
    };
    data.set(authorized(api_key, in_cache("c", set)))
        .await
        .unwrap();
    let get = GetRequest {
        cache_key: "k".into(),
    };
    let got = data
        .get(authorized(api_key, in_cache("c", get)))
        .await
        .unwrap();
    assert_eq!(got.into_inner().cache_body, "v");
}
