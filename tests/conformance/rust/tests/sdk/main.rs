//! The official `momento` crate, unchanged, against jiffy-server: each test
//! starts its own server on free ports, creates its cache over gRPC and
//! asserts on the SDK's own response and error types.
//!
//! One test binary (the modules below) rather than one per file: each binary
//! links the whole SDK.

mod auth;
mod grpc_client;
mod protosocket_client;
mod readme;

use jiffy_conformance_rust::{grpc_client, JiffyServer};
use momento::cache::CreateCacheResponse;
use momento::{ErrorSource, MomentoError, ProtosocketCacheError};
use momento_protos::protosocket::common::{CommandError, Status};

/// The cache every test creates on its fresh server.
pub const CACHE: &str = "rust-conformance";

/// The largest value the protosocket port stores (docs/CALLS.md, "The
/// protosocket port"): a Get answer carrying it is a 4 MiB frame, the most
/// the official client reads.
pub const PROTOSOCKET_VALUE_LIMIT: usize = 4_194_279;

/// Starts a server with `extra_args` and creates [`CACHE`] on it.
pub async fn server_with_cache(extra_args: &[&str]) -> JiffyServer {
    let server = JiffyServer::start(extra_args);
    let created = grpc_client(&server).create_cache(CACHE).await;
    assert_eq!(created.expect("create_cache"), CreateCacheResponse::Created);
    server
}

/// The server's answer inside an error of the protosocket client, which
/// reports every command error as `UnknownError` with the status inside.
pub fn command_error(error: &MomentoError) -> &CommandError {
    match &error.inner_error {
        Some(ErrorSource::Protosocket(ProtosocketCacheError::CommandError { cause })) => cause,
        other => panic!("not a command error: {error:?} (inner {other:?})"),
    }
}

/// Asserts `error` is the server's `status` with a message containing `text`.
pub fn assert_command_error(error: &MomentoError, status: Status, text: &str) {
    let cause = command_error(error);
    assert_eq!(cause.code(), status, "{cause:?}");
    assert!(
        cause.message.contains(text),
        "{cause:?} should say {text:?}"
    );
}
