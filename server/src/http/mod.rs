//! The HTTP API (`--http-listen`): Momento's HTTP API, for `curl`,
//! browsers, edge functions and languages without an SDK.
//!
//! - `GET /cache/{cache}?key=K` answers the value (200) or a miss (404);
//!   `PUT /cache/{cache}?key=K&ttl_seconds=N` stores the body (204);
//!   `DELETE /cache/{cache}?key=K` deletes (204). `key_base64` names a
//!   binary key instead of `key`.
//! - `POST /topics/{cache}/{topic}` publishes the body (204): text with a
//!   `text/plain` content type, binary otherwise.
//! - The token comes in the `Authorization` header or the `token` query
//!   parameter (both: 400), checked as on the gRPC port.
//! - Presigned URLs: `GET /cache/get/{cache}/{key}?token=JWT` and
//!   `PUT` or `POST /cache/set/{cache}/{key}?token=JWT`, the token signed
//!   with a signing key (`crate::auth::signing_keys`), which says alone
//!   what the URL may do.
//!
//! The port is served by [`crate::listener`] over HTTP/1.1, so it has the
//! gRPC port's connection cap, handshake deadline, send timeout and
//! in-flight budget; each call runs the gRPC handlers' code
//! (`service::scalar`, the Publish handler), so both ports answer alike on
//! either store. docs/HTTP.md is the reference.
//!
//! - [`routes`] — the routes and their handlers.
//! - [`query`] — the query string: key, TTL, token.
//! - [`auth`] — the token, and what it allows.
//! - [`answer`] — statuses as HTTP statuses; each call counted and charged.

mod answer;
mod auth;
mod query;
mod routes;

use std::sync::Arc;

use crate::auth::signing_keys::SigningKeys;
use crate::auth::Verifier;
use crate::in_flight::InFlight;
use crate::metrics::Metrics;
use crate::service::pubsub::PubsubService;
use crate::service::DataPlane;

pub use routes::router;

/// What every call of the HTTP API needs.
pub struct Context<S, T> {
    pub plane: DataPlane<S>,
    pub pubsub: PubsubService<T>,
    /// `None` without `--auth-secret-file`: any token, or none, is accepted.
    pub verifier: Option<Arc<Verifier>>,
    /// The keys presigned URLs are checked against, with or without auth.
    pub signing_keys: Arc<SigningKeys>,
    pub metrics: Arc<Metrics>,
    /// The server's `--max-in-flight-bytes`, shared with the other ports:
    /// each call's overhead and answer are charged to it, as on gRPC.
    pub in_flight: Arc<InFlight>,
}
