//! Authentication and authorization with signed tokens.
//!
//! A token is a JWT signed with HS256 and the server secret
//! (`--auth-secret-file`), carrying `exp`, `iat`, an optional `sub`, a
//! either a `role` (`read`, `write`, `admin`) with `caches` (all, a list, a
//! prefix), made by `token create`, or Momento's permissions, minted by
//! the token and auth services (`docs/AUTH.md`).
//! HS256 because one server both makes and checks tokens, so a shared secret
//! is all it needs, and Momento's own API keys are JWTs too.
//!
//! - [`claims`] — what a token says: roles and cache scopes, or permissions.
//! - [`permissions`] — Momento's permission model; every check decides there.
//! - [`keys`] — the item keys each data call names, for key-scoped tokens.
//! - [`mint`] — which token may mint which, and the minted tokens' claims.
//! - [`secret`] — reading the secret, never showing it.
//! - [`token`] — `jiffy-server token create`.
//! - [`momento_key`] — a token wrapped as a Momento v1 key, for the official SDKs.
//! - [`signing_keys`] — signing keys, and the presigned URLs they sign.
//! - [`signature_gate`] — how many presigned URLs' signatures are checked at once.
//! - [`layer`] — the per-call check; [`Grant`] carries the claims on to handlers.
//!
//! With no secret configured, no layer is installed and no [`Grant`] is
//! attached: the handlers' checks below then allow everything.

pub mod claims;
pub mod keys;
pub mod layer;
pub mod mint;
pub mod momento_key;
pub mod permissions;
pub mod secret;
pub mod signature_gate;
pub mod signing_keys;
pub mod token;
mod verifier;

use std::sync::Arc;

use tonic::Status;

pub use claims::{CacheScope, Claims, Role, Scope};
pub use keys::ItemKeys;
pub use layer::AuthLayer;
pub use permissions::{CacheOp, Permissions, TopicOp};
pub use secret::Secret;
pub(crate) use verifier::check_expiry;
pub use verifier::{Rejection, Verifier};

/// The verified claims of the call's token, in the request's extensions.
#[derive(Clone, Debug)]
pub struct Grant(pub Arc<Claims>);

/// For a data call whose token reaches only some keys of its cache: the
/// layer cannot see the keys (they are in the message), so it hands this
/// on and the handler checks each key ([`check_keys`]).
#[derive(Clone, Debug)]
pub struct KeyCheck {
    pub claims: Arc<Claims>,
    pub rpc: &'static str,
    pub op: CacheOp,
}

impl KeyCheck {
    /// Every key the call names must be within the token's permissions.
    pub fn check(&self, cache: &str, keys: &[&[u8]]) -> Result<(), Status> {
        match keys
            .iter()
            .find(|key| !self.claims.allows_key(self.op, cache, key))
        {
            Some(key) => Err(Status::permission_denied(self.claims.data_denial(
                self.rpc,
                self.op,
                cache,
                Some(key),
            ))),
            None => Ok(()),
        }
    }
}

/// For control-plane calls, whose cache is named in the message: the
/// token must be allowed to create, delete and flush `cache`.
pub fn check_cache(grant: Option<&Grant>, rpc: &str, cache: &str) -> Result<(), Status> {
    match grant {
        Some(Grant(claims)) if !claims.allows_control(cache) => Err(permission_denied(rpc, cache)),
        _ => Ok(()),
    }
}

/// For topic calls: the token must allow `op` on `topic` of `cache`.
pub fn check_topic(
    grant: Option<&Grant>,
    rpc: &str,
    op: TopicOp,
    cache: &str,
    topic: &str,
) -> Result<(), Status> {
    match grant {
        Some(Grant(claims)) if !claims.allows_topic(op, cache, topic) => Err(
            Status::permission_denied(claims.topic_denial(rpc, op, cache, topic)),
        ),
        _ => Ok(()),
    }
}

/// Whether ListCaches shows `cache` to the caller.
pub fn may_see(grant: Option<&Grant>, cache: &str) -> bool {
    grant.is_none_or(|Grant(claims)| claims.sees_cache(cache))
}

pub(crate) fn permission_denied(rpc: &str, cache: &str) -> Status {
    Status::permission_denied(denial(rpc, cache))
}

pub(crate) fn denial(rpc: &str, cache: &str) -> String {
    format!("{rpc} on cache `{cache}`: the token's caches do not include it")
}
