//! A presigned URL's token, checked against the signing keys, and signed
//! as a client signs it.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde::Deserialize;
use tonic::Status;

use super::{now, SigningKeys};
use crate::error::Error;

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

impl SigningKeys {
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
