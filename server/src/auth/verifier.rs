//! Token verification, with a small cache of tokens already verified.
//!
//! A fresh verification decodes base64, computes HMAC-SHA256 (compared in
//! constant time by `jsonwebtoken`/ring) and parses JSON. Clients send the
//! same token on every call, so a bounded map from token to claims turns that
//! into one hash and one constant-time comparison. The map's hasher is keyed
//! at random per process, so lookup timing tells an attacker nothing they
//! could steer towards a valid token.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use hashbrown::{Equivalent, HashMap};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use parking_lot::RwLock;
use subtle::ConstantTimeEq;

use super::claims::{Claims, Scope};
use super::secret::Secret;

/// Distinct tokens remembered at once; past it the cache starts over.
/// Far more than the tokens a deployment hands out, and at most a few
/// hundred KiB.
const VERIFIED_CACHE_CAPACITY: usize = 1024;

/// Why a token was refused (the token itself is never part of the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("missing `authorization` header: this server needs a token (see `jiffy-server token create`)")]
    Missing,
    #[error("the token is malformed: it is not a token made by `jiffy-server token create`")]
    Malformed,
    #[error("the token's signature does not verify: it was altered or signed with another secret")]
    BadSignature,
    #[error("the token has expired; create a new one")]
    Expired,
    #[error(
        "this is a refresh token: it renews an api key (RefreshApiToken) and serves no other call"
    )]
    RefreshOnly,
}

pub struct Verifier {
    key: DecodingKey,
    validation: Validation,
    verified: RwLock<HashMap<TokenKey, Arc<Claims>>>,
}

impl Verifier {
    pub fn new(secret: &Secret) -> Verifier {
        let mut validation = Validation::new(Algorithm::HS256);
        // Expiry is checked by `check_expiry` on every call, cached or not,
        // with no leeway: `exp` is the first second the token is refused.
        validation.validate_exp = false;
        validation.set_required_spec_claims(&["exp"]);
        Verifier {
            key: DecodingKey::from_secret(secret.bytes()),
            validation,
            verified: RwLock::new(HashMap::new()),
        }
    }

    /// The claims of a valid, unexpired token for calls (not a refresh token).
    pub fn verify(&self, token: &str) -> Result<Arc<Claims>, Rejection> {
        let claims = self.verify_any(token)?;
        if let Scope::Refresh { .. } = claims.scope {
            return Err(Rejection::RefreshOnly);
        }
        Ok(claims)
    }

    /// The claims of any valid, unexpired token of this secret, refresh
    /// tokens included.
    pub fn verify_any(&self, token: &str) -> Result<Arc<Claims>, Rejection> {
        if let Some(claims) = self.verified.read().get(&Presented(token.as_bytes())) {
            check_expiry(claims)?;
            return Ok(claims.clone());
        }
        let claims = match jsonwebtoken::decode::<Claims>(token, &self.key, &self.validation) {
            Ok(data) => Arc::new(data.claims),
            Err(error) => {
                return Err(match error.kind() {
                    ErrorKind::InvalidSignature => Rejection::BadSignature,
                    _ => Rejection::Malformed,
                })
            }
        };
        check_expiry(&claims)?;
        let mut verified = self.verified.write();
        if verified.len() >= VERIFIED_CACHE_CAPACITY {
            verified.clear();
        }
        verified.insert(TokenKey(token.as_bytes().into()), claims.clone());
        Ok(claims)
    }
}

pub(crate) fn check_expiry(claims: &Claims) -> Result<(), Rejection> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if now >= claims.exp {
        return Err(Rejection::Expired);
    }
    Ok(())
}

/// A verified token as a map key, compared in constant time.
struct TokenKey(Box<[u8]>);

impl Hash for TokenKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialEq for TokenKey {
    fn eq(&self, other: &Self) -> bool {
        self.0.ct_eq(&other.0).into()
    }
}

impl Eq for TokenKey {}

/// The token of a request, looked up without copying it; hashes as
/// `TokenKey` does and compares in constant time too.
struct Presented<'a>(&'a [u8]);

impl Hash for Presented<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl Equivalent<TokenKey> for Presented<'_> {
    fn equivalent(&self, key: &TokenKey) -> bool {
        self.0.ct_eq(&key.0).into()
    }
}
