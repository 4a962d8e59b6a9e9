//! Authentication and authorization with signed tokens.
//!
//! A token is a JWT signed with HS256 and the server secret
//! (`--auth-secret-file`), carrying `exp`, `iat`, an optional `sub`, a
//! `role` (`read`, `write`, `admin`) and `caches` (all, a list, a prefix).
//! HS256 because one server both makes and checks tokens, so a shared secret
//! is all it needs, and Momento's own API keys are JWTs too.
//!
//! - [`claims`] — roles and cache scopes.
//! - [`secret`] — reading the secret, never showing it.
//! - [`token`] — `jiffy-server token create`.
//! - [`momento_key`] — a token wrapped as a Momento v1 key, for the official SDKs.
//! - [`layer`] — the per-call check; [`Grant`] carries the claims on to handlers.
//!
//! With no secret configured, no layer is installed and no [`Grant`] is
//! attached: the handlers' checks below then allow everything.

pub mod claims;
pub mod layer;
pub mod momento_key;
pub mod secret;
pub mod token;
mod verifier;

use std::sync::Arc;

use tonic::Status;

pub use claims::{CacheScope, Claims, Role};
pub use layer::AuthLayer;
pub use secret::Secret;
pub(crate) use verifier::check_expiry;
pub use verifier::{Rejection, Verifier};

/// The verified claims of the call's token, in the request's extensions.
#[derive(Clone, Debug)]
pub struct Grant(pub Arc<Claims>);

/// For control-plane calls, whose cache is named in the message: the
/// token's scope must include `cache` (its role was checked by the layer).
pub fn check_cache(grant: Option<&Grant>, rpc: &str, cache: &str) -> Result<(), Status> {
    match grant {
        Some(Grant(claims)) if !claims.caches.allows(cache) => Err(permission_denied(rpc, cache)),
        _ => Ok(()),
    }
}

/// Whether ListCaches shows `cache` to the caller.
pub fn may_see(grant: Option<&Grant>, cache: &str) -> bool {
    grant.is_none_or(|Grant(claims)| claims.caches.allows(cache))
}

pub(crate) fn permission_denied(rpc: &str, cache: &str) -> Status {
    Status::permission_denied(format!(
        "{rpc} on cache `{cache}`: the token's caches do not include it"
    ))
}
