//! The tower layer that checks every call's token before its handler runs.
//!
//! It authenticates (UNAUTHENTICATED on a missing or bad token), checks the
//! role each call needs, and for data-plane calls the cache named by the
//! `cache` header (PERMISSION_DENIED). Control-plane calls carry their cache
//! name in the message, which only the handler decodes: the layer hands the
//! verified claims on as a [`Grant`] and the handler checks the scope.

use std::future::{ready, Ready};
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::future::Either;
use http::{Request, Response};
use tonic::Status;
use tower::{Layer, Service};

use super::claims::Role;
use super::verifier::{Rejection, Verifier};
use super::{permission_denied, Grant};
use crate::service::CACHE_HEADER;

/// What a call needs beyond a valid token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A role, and for data-plane calls the `cache` header's cache in scope.
    Data(Role),
    /// A role; the handler checks the cache named in the message.
    Control(Role),
    /// A valid token only: Ping, ListCaches (which lists only caches in
    /// scope), and paths no handler serves (answered UNIMPLEMENTED).
    Token,
}

/// The need of each gRPC path. Every RPC declared in `proto/` is listed
/// (a test reads the .proto files to make sure).
pub fn need(path: &str) -> Need {
    match path {
        "/cache_client.Scs/Get"
        | "/cache_client.Scs/GetBatch"
        | "/cache_client.Scs/KeysExist"
        | "/cache_client.Scs/ItemGetTtl"
        | "/cache_client.Scs/ItemGetType" => Need::Data(Role::Read),
        "/cache_client.Scs/Set"
        | "/cache_client.Scs/SetBatch"
        | "/cache_client.Scs/SetIf"
        | "/cache_client.Scs/SetIfNotExists"
        | "/cache_client.Scs/Delete"
        | "/cache_client.Scs/Increment"
        | "/cache_client.Scs/UpdateTtl" => Need::Data(Role::Write),
        "/control_client.ScsControl/CreateCache"
        | "/control_client.ScsControl/DeleteCache"
        | "/control_client.ScsControl/FlushCache" => Need::Control(Role::Admin),
        _ => Need::Token,
    }
}

#[derive(Clone)]
pub struct AuthLayer {
    verifier: Arc<Verifier>,
}

impl AuthLayer {
    pub fn new(verifier: Arc<Verifier>) -> Self {
        AuthLayer { verifier }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AuthService {
            inner,
            verifier: self.verifier.clone(),
        }
    }
}

#[derive(Clone)]
pub struct AuthService<S> {
    inner: S,
    verifier: Arc<Verifier>,
}

impl<S, B, ResBody> Service<Request<B>> for AuthService<S>
where
    S: Service<Request<B>, Response = Response<ResBody>>,
    ResBody: Default,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Either<Ready<Result<Response<ResBody>, S::Error>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        match self.admit(&request) {
            Ok(grant) => {
                // Data-plane handlers never look at the grant, so their calls
                // skip the allocations of an extension.
                if let Some(grant) = grant {
                    request.extensions_mut().insert(grant);
                }
                Either::Right(self.inner.call(request))
            }
            // Trailers-only, as every gRPC error of ours.
            Err(status) => Either::Left(ready(Ok(status.into_http()))),
        }
    }
}

impl<S> AuthService<S> {
    /// The grant to hand on to a control-plane handler, once the call is allowed.
    fn admit<B>(&self, request: &Request<B>) -> Result<Option<Grant>, Status> {
        let token = request
            .headers()
            .get(http::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .map(|value| value.strip_prefix("Bearer ").unwrap_or(value).trim())
            .filter(|token| !token.is_empty())
            .ok_or(Rejection::Missing)
            .map_err(unauthenticated)?;
        let claims = self.verifier.verify(token).map_err(unauthenticated)?;
        let path = request.uri().path();
        let need = need(path);
        let needed = match need {
            Need::Data(role) | Need::Control(role) => role,
            Need::Token => return Ok(Some(Grant(claims))),
        };
        let rpc = path.rsplit('/').next().unwrap_or(path);
        if claims.role < needed {
            return Err(Status::permission_denied(format!(
                "{rpc} needs a `{}` token; this one is `{}`",
                needed.name(),
                claims.role.name()
            )));
        }
        if let Need::Data(_) = need {
            // No header: the handler answers INVALID_ARGUMENT as without auth.
            let cache = request
                .headers()
                .get(CACHE_HEADER)
                .and_then(|value| value.to_str().ok());
            if let Some(cache) = cache.filter(|cache| !claims.caches.allows(cache)) {
                return Err(permission_denied(rpc, cache));
            }
            return Ok(None);
        }
        Ok(Some(Grant(claims)))
    }
}

fn unauthenticated(rejection: Rejection) -> Status {
    Status::unauthenticated(rejection.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `rpc` of the .proto files, as its gRPC path.
    fn declared_paths() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../proto");
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let mut package = "";
            let mut service = "";
            for line in text.lines().map(str::trim) {
                let word = |prefix: &str| {
                    line.strip_prefix(prefix)
                        .and_then(|rest| rest.split([' ', ';', '{', '(']).next())
                };
                if let Some(name) = word("package ") {
                    package = name;
                } else if let Some(name) = word("service ") {
                    service = name;
                } else if let Some(name) = word("rpc ") {
                    paths.push(format!("/{package}.{service}/{name}"));
                }
            }
        }
        paths
    }

    #[test]
    fn every_declared_rpc_has_a_deliberate_need() {
        let paths = declared_paths();
        assert!(paths.len() >= 17, "{paths:?}");
        let token_only = [
            "/cache_client.Ping/Ping",
            "/control_client.ScsControl/ListCaches",
        ];
        for path in paths {
            if !token_only.contains(&path.as_str()) {
                assert_ne!(need(&path), Need::Token, "{path} is not classified");
            }
        }
    }
}
