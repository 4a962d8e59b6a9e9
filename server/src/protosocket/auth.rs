//! Who a protosocket connection speaks for: set by its Authenticate
//! command, checked on every command after it as the gRPC port checks the
//! `authorization` header of every call (`auth::layer`).

use std::sync::Arc;

use tonic::Status;

use crate::auth::layer::{need, Need};
use crate::auth::permissions::Reach;
use crate::auth::{check_expiry, CacheOp, Claims, Rejection, Role, Verifier};
use crate::rpcs::Rpc;

/// What a connection's Authenticate established.
#[derive(Clone, Debug)]
pub enum Session {
    /// No Authenticate yet (or the last one failed): every other command
    /// is refused.
    Unauthenticated,
    /// The server has no auth: any token opens the connection to everything.
    Open,
    /// A verified token: its role and caches bound every command.
    Token(Arc<Claims>),
}

/// The session an Authenticate carrying `token` opens.
pub fn authenticate(verifier: Option<&Verifier>, token: &str) -> Result<Session, Status> {
    let Some(verifier) = verifier else {
        return Ok(Session::Open);
    };
    let token = token.strip_prefix("Bearer ").unwrap_or(token).trim();
    if token.is_empty() {
        return Err(Status::unauthenticated(
            "the Authenticate command carries no token: this server needs one (see `jiffy-server token create`)",
        ));
    }
    verifier
        .verify(token)
        .map(Session::Token)
        .map_err(unauthenticated)
}

/// Whether the session may make `rpc` on `key` of `cache`: the same
/// permissions the gRPC port asks of the same call.
pub fn authorize(session: &Session, rpc: &Rpc, cache: &str, key: &[u8]) -> Result<(), Status> {
    let claims = match session {
        Session::Unauthenticated => {
            return Err(Status::unauthenticated(
                "authenticate first: the first command on a protosocket connection must be Authenticate, and it must succeed",
            ))
        }
        Session::Open => return Ok(()),
        Session::Token(claims) => claims,
    };
    check_expiry(claims).map_err(unauthenticated)?;
    let op = match need(rpc.path) {
        Need::Data(role) => CacheOp::of(rpc.name, role == Role::Write),
        // Every protosocket command is a data call.
        _ => CacheOp::ReadWrite,
    };
    if !claims.allows_key(op, cache, key) {
        let key = (claims.reach(op, cache) == Reach::SomeKeys).then_some(key);
        return Err(Status::permission_denied(
            claims.data_denial(rpc.name, op, cache, key),
        ));
    }
    Ok(())
}

fn unauthenticated(rejection: Rejection) -> Status {
    Status::unauthenticated(rejection.to_string())
}
