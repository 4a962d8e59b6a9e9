//! `token.Token` and `auth.Auth`: minting disposable tokens, and api
//! tokens with refresh tokens.
//!
//! The official clients carry the minting token inside the message
//! (`auth_token`, or `api_key` for a refresh), so the auth layer lets
//! these calls through (`Access::MessageToken`) and the handlers verify
//! it. Without `--auth-secret-file` there is nothing to sign with: every
//! call answers FAILED_PRECONDITION. Which token may mint which is
//! `auth::mint`'s; docs/AUTH.md says it for users.
//!
//! Refusals, each before anything is signed:
//! - UNAUTHENTICATED: the token in the message is missing, malformed,
//!   signed with another secret or expired; a refresh token given as one;
//! - PERMISSION_DENIED: the token may not mint these permissions;
//! - INVALID_ARGUMENT: see `auth::mint`, and a disposable token's expiry
//!   missing, 0 or over an hour; an api token's of 0 seconds; a refresh
//!   token that is not one, or not the one of the api token given (each
//!   api token has a random id, which its refresh token names).

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use tonic::{Request, Response, Status};

use super::Answer;
use crate::auth::{mint, token, Claims, Permissions, Rejection, Secret, Verifier};
use crate::proto::auth::auth_server::Auth;
use crate::proto::auth::{
    generate_api_token_request, GenerateApiTokenRequest, GenerateApiTokenResponse,
    RefreshApiTokenRequest, RefreshApiTokenResponse,
};
use crate::proto::token::token_server::Token;
use crate::proto::token::{GenerateDisposableTokenRequest, GenerateDisposableTokenResponse};

/// The longest a disposable token lives, as on Momento: an hour.
pub const MAX_DISPOSABLE_SECONDS: u64 = 3600;

/// Both services: the secret that signs, and a verifier of the same secret.
#[derive(Clone)]
pub struct TokenVending {
    keys: Option<Arc<Keys>>,
}

struct Keys {
    secret: Secret,
    verifier: Verifier,
    /// The host the official SDKs derive their endpoints from, answered
    /// with every minted token: what clients reach this server by.
    endpoint: String,
}

impl TokenVending {
    /// `secret`: the server's `--auth-secret-file`, if any; `endpoint`:
    /// the host minted tokens name (`--public-endpoint`).
    pub fn new(secret: Option<Secret>, endpoint: String) -> Self {
        TokenVending {
            keys: secret.map(|secret| {
                Arc::new(Keys {
                    verifier: Verifier::new(&secret),
                    secret,
                    endpoint,
                })
            }),
        }
    }

    fn keys(&self) -> Result<&Keys, Status> {
        self.keys.as_deref().ok_or_else(|| {
            Status::failed_precondition(
                "this server has no auth (--auth-secret-file): it has no secret to sign tokens with",
            )
        })
    }
}

impl Keys {
    /// The claims of the token a message carries, for calls.
    fn caller(&self, token: &str) -> Result<Arc<Claims>, Status> {
        let token = token.strip_prefix("Bearer ").unwrap_or(token).trim();
        if token.is_empty() {
            return Err(Status::unauthenticated(
                "the request carries no token in its message (auth_token)",
            ));
        }
        self.verifier.verify(token).map_err(unauthenticated)
    }
}

fn unauthenticated(rejection: Rejection) -> Status {
    Status::unauthenticated(rejection.to_string())
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What a minted api token answers: the token, its refresh token and when
/// it stops working (0: never).
struct Minted {
    api_key: String,
    refresh_token: String,
    valid_until: u64,
}

impl Keys {
    /// An api token of `perms` valid `valid_for` seconds (`None`: for
    /// ever), and its refresh token.
    fn api_token(&self, perms: Permissions, sub: Option<String>, valid_for: Option<u64>) -> Minted {
        let iat = now();
        let exp = valid_for.map_or(u64::MAX, |seconds| iat.saturating_add(seconds));
        let api = mint::claims(perms, sub, iat, exp);
        let refresh = mint::refresh_claims(&api, valid_for);
        Minted {
            api_key: token::sign(&self.secret, &api),
            refresh_token: token::sign(&self.secret, &refresh),
            valid_until: valid_for.map_or(0, |_| exp),
        }
    }
}

#[tonic::async_trait]
impl Token for TokenVending {
    async fn generate_disposable_token(
        &self,
        request: Request<GenerateDisposableTokenRequest>,
    ) -> Answer<GenerateDisposableTokenResponse> {
        const RPC: &str = "GenerateDisposableToken";
        let keys = self.keys()?;
        let message = request.get_ref();
        let minter = keys.caller(&message.auth_token)?;
        let seconds = message
            .expires
            .as_ref()
            .map_or(0, |expires| u64::from(expires.valid_for_seconds));
        if seconds == 0 || seconds > MAX_DISPOSABLE_SECONDS {
            return Err(Status::invalid_argument(format!(
                "a disposable token expires within 1 to {MAX_DISPOSABLE_SECONDS} seconds, not {seconds}"
            )));
        }
        let perms = mint::permissions(message.permissions.as_ref())?;
        let sub = mint::token_id(&message.token_id)?;
        mint::may_mint(RPC, &minter, &perms)?;
        let iat = now();
        let exp = iat.saturating_add(seconds);
        let minted = mint::claims(perms, sub, iat, exp);
        Ok(Response::new(GenerateDisposableTokenResponse {
            api_key: token::sign(&keys.secret, &minted),
            endpoint: keys.endpoint.clone(),
            valid_until: exp,
        }))
    }
}

#[tonic::async_trait]
impl Auth for TokenVending {
    async fn generate_api_token(
        &self,
        request: Request<GenerateApiTokenRequest>,
    ) -> Answer<GenerateApiTokenResponse> {
        use generate_api_token_request::Expiry;
        const RPC: &str = "GenerateApiToken";
        let keys = self.keys()?;
        let message = request.get_ref();
        let minter = keys.caller(&message.auth_token)?;
        let valid_for = match &message.expiry {
            Some(Expiry::Never(_)) => None,
            Some(Expiry::Expires(expires)) if expires.valid_for_seconds > 0 => {
                Some(u64::from(expires.valid_for_seconds))
            }
            _ => {
                return Err(Status::invalid_argument(
                    "an api token needs an expiry: never, or at least 1 second",
                ))
            }
        };
        let perms = mint::permissions(message.permissions.as_ref())?;
        let sub = mint::token_id(&message.token_id)?;
        mint::may_mint(RPC, &minter, &perms)?;
        let minted = keys.api_token(perms, sub, valid_for);
        Ok(Response::new(GenerateApiTokenResponse {
            api_key: minted.api_key,
            refresh_token: minted.refresh_token,
            endpoint: keys.endpoint.clone(),
            valid_until: minted.valid_until,
        }))
    }

    async fn refresh_api_token(
        &self,
        request: Request<RefreshApiTokenRequest>,
    ) -> Answer<RefreshApiTokenResponse> {
        let keys = self.keys()?;
        let message = request.get_ref();
        let api = keys.caller(&message.api_key)?;
        let refresh = keys
            .verifier
            .verify_any(message.refresh_token.trim())
            .map_err(|rejection| {
                Status::invalid_argument(format!("the refresh token is refused: {rejection}"))
            })?;
        let (perms, valid_for) = mint::renews(&api, &refresh)?;
        let minted = keys.api_token(perms.clone(), api.sub.clone(), valid_for);
        Ok(Response::new(RefreshApiTokenResponse {
            api_key: minted.api_key,
            refresh_token: minted.refresh_token,
            endpoint: keys.endpoint.clone(),
            valid_until: minted.valid_until,
        }))
    }
}
