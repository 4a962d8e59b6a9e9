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

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use futures_util::future::BoxFuture;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use parking_lot::Mutex;
use prometheus::{IntCounter, IntCounterVec, Opts};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde::Deserialize;
use tonic::Status;

use super::signature_gate::SignatureGate;
use crate::error::Error;

/// The longest a signing key may live: a year, in minutes.
pub const MAX_TTL_MINUTES: u32 = 365 * 24 * 60;

/// What the server keeps of a signing key: its id, the public point (the
/// JWK's base64url `x` and `y`) and when it expires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey {
    pub id: String,
    pub x: String,
    pub y: String,
    /// Seconds since the epoch; from then on the key signs nothing.
    pub expires_at: u64,
}

impl PublicKey {
    /// As one string (`<expires_at> <x> <y>`), as the Redis store keeps it.
    pub fn record(&self) -> String {
        format!("{} {} {}", self.expires_at, self.x, self.y)
    }

    /// The key `id` from its [`record`](Self::record).
    pub fn from_record(id: &str, record: &str) -> Option<PublicKey> {
        let mut parts = record.split(' ');
        let expires_at = parts.next()?.parse().ok()?;
        let (x, y) = (parts.next()?, parts.next()?);
        Some(PublicKey {
            id: id.to_owned(),
            x: x.to_owned(),
            y: y.to_owned(),
            expires_at,
        })
    }
}

/// Where the signing keys live: shared by every front-end of one store.
/// Expired keys are never answered, and are dropped when the ring is full.
pub trait KeyRing: Send + Sync + 'static {
    /// Adds `key` unless `cap` live keys are held already (false then).
    fn add(&self, key: PublicKey, cap: usize, now: u64) -> BoxFuture<'_, Result<bool, Error>>;
    /// The live key `id`, if there is one.
    fn find<'a>(&'a self, id: &'a str, now: u64)
        -> BoxFuture<'a, Result<Option<PublicKey>, Error>>;
    /// Every live key.
    fn list(&self, now: u64) -> BoxFuture<'_, Result<Vec<PublicKey>, Error>>;
    /// Removes key `id`; false when there was none.
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, Error>>;
}

/// The keys of this process, for the embedded store.
#[derive(Default)]
pub struct LocalKeyRing {
    keys: Mutex<HashMap<String, PublicKey>>,
}

impl KeyRing for LocalKeyRing {
    fn add(&self, key: PublicKey, cap: usize, now: u64) -> BoxFuture<'_, Result<bool, Error>> {
        let mut keys = self.keys.lock();
        if keys.len() >= cap {
            keys.retain(|_, key| key.expires_at > now);
        }
        let added = keys.len() < cap;
        if added {
            keys.insert(key.id.clone(), key);
        }
        Box::pin(async move { Ok(added) })
    }

    fn find<'a>(
        &'a self,
        id: &'a str,
        now: u64,
    ) -> BoxFuture<'a, Result<Option<PublicKey>, Error>> {
        let found = self
            .keys
            .lock()
            .get(id)
            .filter(|key| key.expires_at > now)
            .cloned();
        Box::pin(async move { Ok(found) })
    }

    fn list(&self, now: u64) -> BoxFuture<'_, Result<Vec<PublicKey>, Error>> {
        let live = self
            .keys
            .lock()
            .values()
            .filter(|key| key.expires_at > now)
            .cloned()
            .collect();
        Box::pin(async move { Ok(live) })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, Error>> {
        let removed = self.keys.lock().remove(id).is_some();
        Box::pin(async move { Ok(removed) })
    }
}

/// What a presigned URL does, as its path says and its `method` claim
/// must allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UrlOp {
    Get,
    Set,
}

impl UrlOp {
    /// Its name in the `method` claim and in the URL's path.
    pub fn name(self) -> &'static str {
        match self {
            UrlOp::Get => "get",
            UrlOp::Set => "set",
        }
    }
}

/// The claims of a presigned URL's token.
#[derive(Deserialize)]
struct UrlClaims {
    exp: u64,
    cache: String,
    key: String,
    method: Vec<String>,
    /// A set's TTL, in seconds.
    ttl: Option<u64>,
}

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

    /// Checks the token of a presigned URL that does `op` on `key` of
    /// `cache`: UNAUTHENTICATED when it is malformed, forged, expired or
    /// of a key that is revoked or expired; PERMISSION_DENIED when it was
    /// signed for another cache, key or operation. Answers a set's TTL in
    /// seconds.
    pub async fn check(&self, token: &str, op: UrlOp, cache: &str, key: &str) -> Checked {
        let checked = self.check_token(token, op, cache, key).await;
        if checked.is_err() {
            self.refused_urls.inc();
        }
        checked
    }

    /// `refusal` of a presigned URL that [`check`](Self::check) let
    /// through, counted as check's refusals are.
    pub fn refuse(&self, refusal: Status) -> Status {
        self.refused_urls.inc();
        refusal
    }

    async fn check_token(&self, token: &str, op: UrlOp, cache: &str, key: &str) -> Checked {
        let unauthenticated =
            |why: &str| Status::unauthenticated(format!("presigned URL refused: {why}"));
        let denied =
            |why: String| Status::permission_denied(format!("presigned URL refused: {why}"));
        if token.is_empty() {
            return Err(unauthenticated("it has no `token` query parameter"));
        }
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| unauthenticated("its token is not a JWT"))?;
        if header.alg != Algorithm::ES256 {
            return Err(unauthenticated(
                "its token is not signed with ES256, as signing keys sign",
            ));
        }
        let id = header
            .kid
            .ok_or_else(|| unauthenticated("its token names no signing key (`kid`)"))?;
        let never_made =
            "its signing key does not exist: revoked, expired, or never made by this server";
        // Everything that costs nothing is checked before the key is looked
        // up (a round trip over Redis) and its signature checked (~100 us of
        // CPU), so that junk, and URLs that could not be honoured even if
        // genuine, cost neither. The claims are not trusted yet: a forger
        // can write any; the signature, checked last, is what grants.
        if !is_key_id(&id) {
            return Err(unauthenticated(never_made));
        }
        let claims = unverified_claims(token).ok_or_else(|| {
            unauthenticated("its token's claims are not those of a presigned URL")
        })?;
        let now = now();
        if now >= claims.exp {
            return Err(unauthenticated("it has expired"));
        }
        if claims.cache != cache {
            return Err(denied(format!(
                "it was signed for another cache, not `{cache}`"
            )));
        }
        if claims.key != key {
            return Err(denied(format!(
                "it was signed for another key of `{cache}`"
            )));
        }
        if !claims.method.iter().any(|method| method == op.name()) {
            return Err(denied(format!("it was not signed for a {}", op.name())));
        }
        let answer = match op {
            UrlOp::Get => None,
            UrlOp::Set => Some(
                claims
                    .ttl
                    .ok_or_else(|| denied("it was signed for a set without a `ttl`".to_owned()))?,
            ),
        };
        let Some(public) = self.ring.find(&id, now).await? else {
            return Err(unauthenticated(never_made));
        };
        let decoding = DecodingKey::from_ec_components(&public.x, &public.y)
            .map_err(|_| Status::internal("a stored signing key is unreadable"))?;
        let mut validation = Validation::new(Algorithm::ES256);
        // Expiry was checked above, with no leeway, as for tokens.
        validation.validate_exp = false;
        validation.set_required_spec_claims(&["exp"]);
        let Some(_checking) = self.gate.enter().await else {
            self.events.with_label_values(&["url_shed"]).inc();
            return Err(Status::unavailable(
                "presigned URL not checked: the server is checking as many signatures as it may at once; retry",
            ));
        };
        self.events
            .with_label_values(&["url_signature_checked"])
            .inc();
        jsonwebtoken::decode::<UrlClaims>(token, &decoding, &validation).map_err(|error| {
            match error.kind() {
                ErrorKind::InvalidSignature => unauthenticated(
                    "its signature does not verify: it was altered or signed with another key",
                ),
                _ => unauthenticated("its token's claims are not those of a presigned URL"),
            }
        })?;
        Ok(answer)
    }
}

/// Whether `id` could be a key id this server made: 32 hex digits
/// ([`generate`]). Any other names no key, and is refused without a look.
fn is_key_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// The claims of a JWT, read without checking its signature.
fn unverified_claims(token: &str) -> Option<UrlClaims> {
    let payload = token.split('.').nth(1)?;
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()
}

/// A presigned URL's token: `claims` signed with `jwk` (a key
/// `CreateSigningKey` answered), as a client signs it. The server never
/// signs; its tests and tools do.
pub fn sign_url_token(jwk: &str, claims: &serde_json::Value) -> Result<String, Error> {
    let bad = |why: &str| Error::InvalidArgument(format!("not a signing key: {why}"));
    let jwk: serde_json::Value = serde_json::from_str(jwk).map_err(|_| bad("not JSON"))?;
    let field = |name: &str| {
        jwk[name]
            .as_str()
            .and_then(|text| URL_SAFE_NO_PAD.decode(text).ok())
            .ok_or_else(|| bad(name))
    };
    let mut point = vec![4u8];
    point.extend(field("x")?);
    point.extend(field("y")?);
    let random = SystemRandom::new();
    let pair = EcdsaKeyPair::from_private_key_and_public_key(
        &ECDSA_P256_SHA256_FIXED_SIGNING,
        &field("d")?,
        &point,
        &random,
    )
    .map_err(|_| bad("its halves do not match"))?;
    let header = serde_json::json!({"alg": "ES256", "typ": "JWT", "kid": jwk["kid"]});
    let signed = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = pair
        .sign(&random, signed.as_bytes())
        .map_err(|_| bad("it does not sign"))?;
    Ok(format!(
        "{signed}.{}",
        URL_SAFE_NO_PAD.encode(signature.as_ref())
    ))
}

/// What [`SigningKeys::check`] answers: a set's TTL, or why not.
type Checked = Result<Option<u64>, Status>;

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
