//! `jiffy-server token create`: signs a token with the server secret.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};

use super::claims::{CacheScope, Claims, Role};
use super::momento_key;
use super::secret::Secret;

#[derive(clap::Subcommand, Debug)]
pub enum TokenCommand {
    /// Print a new token, signed with the server secret (--auth-secret-file).
    Create(CreateArgs),
}

#[derive(clap::Args, Debug)]
pub struct CreateArgs {
    /// Caches the token reaches: `all`, a list `a,b,c`, or `prefix:team-`.
    #[arg(long, value_parser = CacheScope::parse)]
    pub caches: CacheScope,
    /// `read` (data reads), `write` (reads and writes) or `admin` (also
    /// create, delete and flush caches).
    #[arg(long, value_enum)]
    pub role: Role,
    /// How long the token is valid, e.g. `1h`, `30d`.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub expires_in: Duration,
    /// Who the token is for; shown in nothing but the token itself, to tell tokens apart.
    #[arg(long)]
    pub subject: Option<String>,
    /// `jiffy`: the token, for the jiffy SDKs and any client that sends it
    /// in `authorization`. `momento-v1`: the token wrapped as a Momento v1
    /// key (base64 of JSON `api_key`, `endpoint`), the form the official
    /// Momento SDKs read; they send the token inside.
    #[arg(long, value_enum, default_value_t = Format::Jiffy)]
    pub format: Format,
    /// With `--format momento-v1`, the host the key names: the official
    /// SDKs connect to cache.HOST and control.HOST on port 443 with TLS
    /// unless their endpoints are overridden in code [default: the
    /// server's --public-endpoint]
    #[arg(long, value_name = "HOST", value_parser = momento_key::parse_endpoint)]
    pub momento_endpoint: Option<String>,
}

/// What `token create` prints.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Jiffy,
    #[value(name = "momento-v1")]
    MomentoV1,
}

impl CreateArgs {
    /// What `token create` prints: the token signed with `secret`, in the
    /// format asked for; a key names `endpoint` (the server's
    /// `--public-endpoint`) unless `--momento-endpoint` says otherwise.
    pub fn create(
        &self,
        secret: &Secret,
        endpoint_default: &str,
        now: SystemTime,
    ) -> Result<String, String> {
        let token = sign(secret, &self.claims(now)?);
        match (self.format, &self.momento_endpoint) {
            (Format::Jiffy, None) => Ok(token),
            (Format::Jiffy, Some(_)) => {
                Err("--momento-endpoint goes with --format momento-v1".into())
            }
            (Format::MomentoV1, endpoint) => {
                let endpoint = endpoint.as_deref().unwrap_or(endpoint_default);
                Ok(momento_key::wrap(&token, endpoint))
            }
        }
    }

    pub fn claims(&self, now: SystemTime) -> Result<Claims, String> {
        if self.expires_in < Duration::from_secs(1) {
            return Err("--expires-in must be at least 1s".into());
        }
        let iat = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        Ok(Claims::with_role(
            self.subject.clone(),
            iat,
            iat.saturating_add(self.expires_in.as_secs()),
            self.caches.clone(),
            self.role,
        ))
    }
}

/// The signed token (a JWT, HS256) for `claims`.
pub fn sign(secret: &Secret, claims: &Claims) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret.bytes()),
    )
    .expect("claims always serialize")
}

#[cfg(test)]
mod tests {
    use super::super::verifier::{Rejection, Verifier};
    use super::*;

    fn secret(fill: u8) -> Secret {
        Secret::from_bytes(&[fill; 32]).unwrap()
    }

    fn claims(exp_from_now: u64) -> Claims {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        Claims::with_role(
            Some("ci".into()),
            now,
            now + exp_from_now,
            CacheScope::Names(vec!["a".into(), "b".into()]),
            Role::Write,
        )
    }

    #[test]
    fn signed_tokens_verify_to_their_claims() {
        let claims = claims(60);
        let token = sign(&secret(1), &claims);
        let verifier = Verifier::new(&secret(1));
        assert_eq!(*verifier.verify(&token).unwrap(), claims);
        // The second time comes from the cache, with the same answer.
        assert_eq!(*verifier.verify(&token).unwrap(), claims);
    }

    #[test]
    fn wrong_secret_tampering_and_expiry_are_refused() {
        let token = sign(&secret(1), &claims(60));
        assert_eq!(
            Verifier::new(&secret(2)).verify(&token),
            Err(Rejection::BadSignature)
        );
        let verifier = Verifier::new(&secret(1));
        let mut tampered = token.clone().into_bytes();
        let last = tampered.len() - 2;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert!(verifier.verify(&tampered).is_err());
        assert_eq!(verifier.verify("nonsense"), Err(Rejection::Malformed));
        let expired = sign(&secret(1), &claims(0));
        assert_eq!(verifier.verify(&expired), Err(Rejection::Expired));
    }
}
