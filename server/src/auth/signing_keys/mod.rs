//! Signing keys (`CreateSigningKey`, `ListSigningKeys`, `RevokeSigningKey`)
//! and the presigned URLs they sign, which the HTTP API accepts
//! (docs/AUTH.md, docs/HTTP.md).
//!
//! A signing key is a P-256 key pair made here. Its private half goes to
//! the client, once, as a JSON Web Key (`kty` EC, `alg` ES256, `kid` its
//! id); the server keeps only the public half and the expiry, so nothing it
//! holds can sign a URL. The client signs a JWT (ES256, the key's id in the
//! header's `kid`) whose claims say what the URL may do, as Momento's SDKs
//! did: `exp`, `cache`, `key`, `method` (`["get"]` or `["set"]`) and, for a
//! set, `ttl` in seconds. The URL carries it as its `token`.
//!
//! The keys live in one place for every front-end ([`KeyRing`]): this
//! process with the embedded store, a hash in Redis with the Redis store.
//! Each presigned call reads its key there, so a revoked or expired key
//! refuses its URLs at once, on every front-end.
//!
//! Here: making, listing and revoking keys; `key_ring.rs`: where they are
//! kept; `url.rs`: a presigned URL's token, checked against them.

mod key_ring;
mod url;

pub use key_ring::{KeyRing, LocalKeyRing, PublicKey};
pub use url::{sign_url_token, UrlOp};

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use prometheus::{IntCounter, IntCounterVec, Opts};
use ring::rand::{SecureRandom, SystemRandom};

use super::signature_gate::SignatureGate;
use crate::error::Error;

/// The longest a signing key may live: a year, in minutes.
pub const MAX_TTL_MINUTES: u32 = 365 * 24 * 60;

/// The signing keys of the server: made, listed, revoked, and checked
/// against each presigned URL.
pub struct SigningKeys {
    ring: Arc<dyn KeyRing>,
    /// `--max-signing-keys`: live keys at once, so that a token holder
    /// cannot fill the store with keys.
    max_keys: usize,
    events: IntCounterVec,
    refused_urls: IntCounter,
    /// How many signatures are checked at once: a flood of forged ones
    /// spends at most half the cores.
    gate: SignatureGate,
}

impl SigningKeys {
    pub fn new(ring: Arc<dyn KeyRing>, max_keys: usize) -> SigningKeys {
        let events = IntCounterVec::new(
            Opts::new(
                "signing_keys_total",
                "signing key calls, by result: created, revoked, refused_cap (--max-signing-keys reached); presigned URLs refused (url_refused: expired, revoked, forged, or outside what they were signed for), url_signature_checked (their signatures checked, the costly step) and url_shed (refused unchecked, as too many were being checked at once)",
            ),
            &["result"],
        )
        .expect("valid metric");
        SigningKeys {
            refused_urls: events.with_label_values(&["url_refused"]),
            ring,
            max_keys,
            events,
            gate: SignatureGate::for_this_machine(),
        }
    }

    /// The metric, to register.
    pub fn metric(&self) -> IntCounterVec {
        self.events.clone()
    }

    /// A new key living `ttl_minutes`: its JWK (private half included) and
    /// when it expires.
    pub async fn create(&self, ttl_minutes: u32) -> Result<(String, u64), Error> {
        if ttl_minutes == 0 || ttl_minutes > MAX_TTL_MINUTES {
            return Err(Error::InvalidArgument(format!(
                "a signing key's ttl_minutes must be from 1 to {MAX_TTL_MINUTES} (a year); got {ttl_minutes}"
            )));
        }
        let now = now();
        let expires_at = now + u64::from(ttl_minutes) * 60;
        let (jwk, public) = generate(expires_at)?;
        if !self.ring.add(public, self.max_keys, now).await? {
            self.events.with_label_values(&["refused_cap"]).inc();
            return Err(Error::TooManySigningKeys {
                limit: self.max_keys,
            });
        }
        self.events.with_label_values(&["created"]).inc();
        Ok((jwk, expires_at))
    }

    /// The live keys: id and expiry.
    pub async fn list(&self) -> Result<Vec<(String, u64)>, Error> {
        let mut keys: Vec<_> = self
            .ring
            .list(now())
            .await?
            .into_iter()
            .map(|key| (key.id, key.expires_at))
            .collect();
        keys.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        Ok(keys)
    }

    /// Revokes key `id`: its URLs are refused from now on.
    pub async fn revoke(&self, id: &str) -> Result<(), Error> {
        if !self.ring.remove(id).await? {
            return Err(Error::SigningKeyNotFound(id.to_owned()));
        }
        self.events.with_label_values(&["revoked"]).inc();
        Ok(())
    }
}

/// Seconds since the epoch.
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs()
}

/// A new P-256 key pair: its JWK, private half included, and its public
/// half to keep.
fn generate(expires_at: u64) -> Result<(String, PublicKey), Error> {
    let random = SystemRandom::new();
    let unavailable = |_| Error::StoreFailed("the system's random source failed".into());
    let secret = loop {
        let mut scalar = [0u8; 32];
        random.fill(&mut scalar).map_err(unavailable)?;
        // Fails only for zero or a scalar past the group's order (about 2^-32).
        if let Ok(secret) = p256::SecretKey::from_slice(&scalar) {
            break secret;
        }
    };
    let mut id = [0u8; 16];
    random.fill(&mut id).map_err(unavailable)?;
    let id: String = id.iter().map(|byte| format!("{byte:02x}")).collect();
    let point = secret.public_key().to_encoded_point(false);
    let (Some(x), Some(y)) = (point.x(), point.y()) else {
        return Err(Error::StoreFailed("a new signing key has no point".into()));
    };
    let public = PublicKey {
        id,
        x: URL_SAFE_NO_PAD.encode(x),
        y: URL_SAFE_NO_PAD.encode(y),
        expires_at,
    };
    let jwk = serde_json::json!({
        "kty": "EC",
        "crv": "P-256",
        "alg": "ES256",
        "use": "sig",
        "kid": public.id,
        "x": public.x,
        "y": public.y,
        "d": URL_SAFE_NO_PAD.encode(secret.to_bytes()),
    });
    Ok((jwk.to_string(), public))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Status;

    fn sign(jwk: &str, claims: serde_json::Value) -> String {
        sign_url_token(jwk, &claims).unwrap()
    }

    fn keys(cap: usize) -> SigningKeys {
        SigningKeys::new(Arc::new(LocalKeyRing::default()), cap)
    }

    fn get_claims(exp: u64) -> serde_json::Value {
        serde_json::json!({"exp": exp, "cache": "c", "key": "k", "method": ["get"]})
    }

    #[tokio::test]
    async fn a_url_signed_with_a_live_key_is_accepted_for_what_it_names_only() {
        let keys = keys(10);
        let (jwk, _) = keys.create(30).await.unwrap();
        let token = sign(&jwk, get_claims(now() + 60));
        assert_eq!(
            keys.check(&token, UrlOp::Get, "c", "k").await.unwrap(),
            None
        );
        let code = |result: Result<Option<u64>, Status>| result.unwrap_err().code();
        let denied = tonic::Code::PermissionDenied;
        assert_eq!(
            code(keys.check(&token, UrlOp::Get, "other", "k").await),
            denied
        );
        assert_eq!(
            code(keys.check(&token, UrlOp::Get, "c", "other").await),
            denied
        );
        assert_eq!(code(keys.check(&token, UrlOp::Set, "c", "k").await), denied);
        let set = serde_json::json!({"exp": now() + 60, "cache": "c", "key": "k", "method": ["set"], "ttl": 5});
        let token = sign(&jwk, set);
        assert_eq!(
            keys.check(&token, UrlOp::Set, "c", "k").await.unwrap(),
            Some(5)
        );
    }

    #[tokio::test]
    async fn expired_revoked_forged_and_foreign_urls_are_unauthenticated() {
        let keys = keys(10);
        let (jwk, _) = keys.create(30).await.unwrap();
        let unauthenticated = |result: Result<Option<u64>, Status>| {
            assert_eq!(result.unwrap_err().code(), tonic::Code::Unauthenticated);
        };
        unauthenticated(
            keys.check(&sign(&jwk, get_claims(now() - 1)), UrlOp::Get, "c", "k")
                .await,
        );
        let token = sign(&jwk, get_claims(now() + 60));
        let (head, rest) = token.split_once('.').unwrap();
        let (_, signature) = rest.split_once('.').unwrap();
        let other =
            serde_json::json!({"exp": now() + 60, "cache": "c", "key": "k2", "method": ["get"]});
        let forged = format!(
            "{head}.{}.{signature}",
            URL_SAFE_NO_PAD.encode(other.to_string())
        );
        unauthenticated(keys.check(&forged, UrlOp::Get, "c", "k2").await);
        unauthenticated(keys.check("not a token", UrlOp::Get, "c", "k").await);
        // Another server's key, which this one never made.
        let (stranger, _) = generate(now() + 60).unwrap();
        unauthenticated(
            keys.check(
                &sign(&stranger, get_claims(now() + 60)),
                UrlOp::Get,
                "c",
                "k",
            )
            .await,
        );
        let id = serde_json::from_str::<serde_json::Value>(&jwk).unwrap()["kid"]
            .as_str()
            .unwrap()
            .to_owned();
        keys.revoke(&id).await.unwrap();
        unauthenticated(keys.check(&token, UrlOp::Get, "c", "k").await);
        assert!(matches!(
            keys.revoke(&id).await,
            Err(Error::SigningKeyNotFound(_))
        ));
    }

    #[tokio::test]
    async fn only_a_url_that_could_be_honoured_has_its_signature_checked() {
        let keys = keys(10);
        let (jwk, _) = keys.create(30).await.unwrap();
        let checked = || {
            keys.events
                .with_label_values(&["url_signature_checked"])
                .get()
        };
        let token = sign(&jwk, get_claims(now() + 60));
        let (head, _) = token.split_once('.').unwrap();
        let bad_signature = URL_SAFE_NO_PAD.encode([7u8; 64]);
        let forge = |claims: serde_json::Value| {
            format!(
                "{head}.{}.{bad_signature}",
                URL_SAFE_NO_PAD.encode(claims.to_string())
            )
        };
        // Expired, for another key, or with claims that are not JSON:
        // refused before the key is looked up or the signature checked.
        for junk in [
            forge(get_claims(now() - 1)),
            forge(
                serde_json::json!({"exp": now() + 60, "cache": "c", "key": "other", "method": ["get"]}),
            ),
            format!("{head}.e30.{bad_signature}"),
            format!("{head}.not-base64!.{bad_signature}"),
        ] {
            assert!(keys.check(&junk, UrlOp::Get, "c", "k").await.is_err());
        }
        // A key id this server could not have made.
        let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"ES256","kid":"../x"}"#);
        let claims = URL_SAFE_NO_PAD.encode(get_claims(now() + 60).to_string());
        let odd_kid = format!("{header}.{claims}.{bad_signature}");
        assert_eq!(
            keys.check(&odd_kid, UrlOp::Get, "c", "k")
                .await
                .unwrap_err()
                .code(),
            tonic::Code::Unauthenticated
        );
        assert_eq!(checked(), 0);
        // A forgery that would be honoured if genuine is checked, and refused.
        let forged = forge(get_claims(now() + 60));
        let refusal = keys.check(&forged, UrlOp::Get, "c", "k").await.unwrap_err();
        assert_eq!(refusal.code(), tonic::Code::Unauthenticated);
        assert_eq!(checked(), 1);
    }

    #[tokio::test]
    async fn past_the_cap_creation_is_refused_until_a_key_goes() {
        let keys = keys(2);
        let (first, _) = keys.create(1).await.unwrap();
        keys.create(1).await.unwrap();
        assert!(matches!(
            keys.create(1).await,
            Err(Error::TooManySigningKeys { limit: 2 })
        ));
        assert_eq!(keys.events.with_label_values(&["refused_cap"]).get(), 1);
        assert_eq!(keys.list().await.unwrap().len(), 2);
        let id = serde_json::from_str::<serde_json::Value>(&first).unwrap()["kid"]
            .as_str()
            .unwrap()
            .to_owned();
        keys.revoke(&id).await.unwrap();
        keys.create(1).await.unwrap();
    }

    #[tokio::test]
    async fn expired_keys_are_not_listed_and_make_room() {
        let ring = LocalKeyRing::default();
        let key = |id: &str, expires_at| PublicKey {
            id: id.into(),
            x: "x".into(),
            y: "y".into(),
            expires_at,
        };
        assert!(ring.add(key("old", 100), 1, 50).await.unwrap());
        assert!(!ring.add(key("new", 300), 1, 50).await.unwrap());
        assert_eq!(ring.find("old", 100).await.unwrap(), None);
        assert!(ring.list(100).await.unwrap().is_empty());
        assert!(ring.add(key("new", 300), 1, 100).await.unwrap());
    }

    #[test]
    fn a_zero_or_too_long_ttl_is_refused() {
        let keys = keys(2);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        for ttl in [0, MAX_TTL_MINUTES + 1] {
            assert!(matches!(
                runtime.block_on(keys.create(ttl)),
                Err(Error::InvalidArgument(_))
            ));
        }
    }

    #[test]
    fn a_record_reads_back() {
        let key = PublicKey {
            id: "id".into(),
            x: "xx".into(),
            y: "yy".into(),
            expires_at: 7,
        };
        assert_eq!(PublicKey::from_record("id", &key.record()), Some(key));
        assert_eq!(PublicKey::from_record("id", "bad"), None);
    }
}
