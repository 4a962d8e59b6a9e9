//! Who a call of the HTTP API speaks for: its token, from the
//! `Authorization` header or the `token` query parameter (a jiffy token,
//! or a Momento v1 key carrying one), verified and checked with the gRPC
//! port's rules (`crate::auth`).

use std::sync::Arc;

use http::HeaderMap;
use tonic::Status;

use crate::auth::layer::{check_role, need, Need};
use crate::auth::{momento_key, Grant, Rejection, Verifier};
use crate::error::Error;
use crate::protosocket::auth::Session;
use crate::rpcs::Rpc;

/// The session of a call: open without auth, else its verified token.
/// Unlike a protosocket connection's, it is never unauthenticated: a call
/// without a valid token is refused here.
pub fn session(
    verifier: Option<&Verifier>,
    headers: &HeaderMap,
    query_token: Option<&str>,
) -> Result<Session, Status> {
    let header = headers.get(http::header::AUTHORIZATION);
    if header.is_some() && query_token.is_some() {
        return Err(Error::InvalidArgument(
            "the token is given twice: send it in the Authorization header or in the `token` query parameter, not both".into(),
        )
        .into());
    }
    let Some(verifier) = verifier else {
        return Ok(Session::Open);
    };
    let token = match (header, query_token) {
        (Some(value), _) => value.to_str().unwrap_or_default(),
        (None, Some(token)) => token,
        (None, None) => "",
    };
    let token = token.strip_prefix("Bearer ").unwrap_or(token).trim();
    if token.is_empty() {
        return Err(unauthenticated(Rejection::Missing));
    }
    // A Momento v1 key, as the console or GenerateApiKey gives it.
    let unwrapped = momento_key::token_of(token);
    verifier
        .verify(unwrapped.as_deref().unwrap_or(token))
        .map(Session::Token)
        .map_err(unauthenticated)
}

/// The grant a topic call hands to the Publish handler, which checks the
/// topic against it; the token's role is checked here, as the gRPC port's
/// auth layer does.
pub fn topic_grant(session: &Session, rpc: &Rpc) -> Result<Option<Grant>, Status> {
    match session {
        Session::Token(claims) => {
            if let Need::Message(role) = need(rpc.path) {
                check_role(claims, rpc.name, role)?;
            }
            Ok(Some(Grant(Arc::clone(claims))))
        }
        Session::Open => Ok(None),
        Session::Unauthenticated => Err(unauthenticated(Rejection::Missing)),
    }
}

fn unauthenticated(rejection: Rejection) -> Status {
    Status::unauthenticated(rejection.to_string())
}
