//! The tower layer that checks every call's token before its handler runs.
//!
//! It authenticates (UNAUTHENTICATED on a missing or bad token), checks the
//! role each call needs, and for data-plane calls the cache named by the
//! `cache` header (PERMISSION_DENIED). Control-plane and topic calls carry
//! their cache name in the message, which only the handler decodes: the
//! layer hands the verified claims on as a [`Grant`] and the handler checks
//! the scope.

use std::future::{ready, Ready};
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::future::Either;
use http::{Request, Response};
use tonic::Status;
use tower::{Layer, Service};

use super::claims::{Claims, Role, Scope};
use super::permissions::{CacheOp, Reach};
use super::verifier::{Rejection, Verifier};
use super::{Grant, KeyCheck};
use crate::rpcs::{self, Access};
use crate::service::CACHE_HEADER;

/// What a call needs beyond a valid token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A role, and for data-plane calls the `cache` header's cache in scope.
    Data(Role),
    /// A role; the handler checks the cache named in the message (control
    /// and topic calls).
    Message(Role),
    /// A valid token only: Ping, ListCaches (which lists only caches in
    /// scope), and paths outside the catalogue (answered UNIMPLEMENTED).
    Token,
    /// Nothing: the health service.
    Nothing,
    /// A token inside the message, which the handler verifies: the token
    /// and auth services, whose official clients send no `authorization`.
    InMessage,
}

/// The need of each gRPC path, from its access class in the catalogue. A
/// call not served yet is checked like the served calls of its class, so
/// its answer is the same with auth on before and after it is built.
pub fn need(path: &str) -> Need {
    match rpcs::find(path).map(|rpc| rpc.access) {
        Some(Access::DataRead) => Need::Data(Role::Read),
        Some(Access::DataWrite) => Need::Data(Role::Write),
        Some(Access::Control) => Need::Message(Role::Admin),
        Some(Access::TopicRead) => Need::Message(Role::Read),
        Some(Access::TopicWrite) => Need::Message(Role::Write),
        Some(Access::AnyToken) | None => Need::Token,
        Some(Access::Public) => Need::Nothing,
        Some(Access::MessageToken) => Need::InMessage,
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
                // Data-plane handlers look only at a key check, which
                // only key-scoped tokens need, so most calls skip the
                // allocations of an extension.
                match grant {
                    Some(Extension::Grant(grant)) => {
                        request.extensions_mut().insert(grant);
                    }
                    Some(Extension::Keys(check)) => {
                        request.extensions_mut().insert(check);
                    }
                    None => {}
                }
                Either::Right(self.inner.call(request))
            }
            // Trailers-only, as every gRPC error of ours.
            Err(status) => Either::Left(ready(Ok(status.into_http()))),
        }
    }
}

impl<S> AuthService<S> {
    /// The grant to hand on to the handler, once the call is allowed.
    fn admit<B>(&self, request: &Request<B>) -> Result<Option<Extension>, Status> {
        let path = request.uri().path();
        let need = need(path);
        if matches!(need, Need::Nothing | Need::InMessage) {
            return Ok(None);
        }
        let token = request
            .headers()
            .get(http::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .map(|value| value.strip_prefix("Bearer ").unwrap_or(value).trim())
            .filter(|token| !token.is_empty())
            .ok_or(Rejection::Missing)
            .map_err(unauthenticated)?;
        let claims = self.verifier.verify(token).map_err(unauthenticated)?;
        let rpc = rpcs::find(path);
        let name = rpc.map_or(path, |rpc| rpc.name);
        match need {
            Need::Data(role) => {
                let op = CacheOp::of(name, role == Role::Write);
                // No header: the handler answers INVALID_ARGUMENT as without auth.
                let Some(cache) = request
                    .headers()
                    .get(CACHE_HEADER)
                    .and_then(|value| value.to_str().ok())
                else {
                    return Ok(None);
                };
                match claims.reach(op, cache) {
                    Reach::Everything => Ok(None),
                    Reach::Nothing => Err(Status::permission_denied(
                        claims.data_denial(name, op, cache, None),
                    )),
                    // A data need always comes from a catalogue row.
                    Reach::SomeKeys => Ok(rpc.map(|rpc| {
                        Extension::Keys(KeyCheck {
                            claims,
                            rpc: rpc.name,
                            op,
                        })
                    })),
                }
            }
            Need::Message(role) => {
                check_role(&claims, name, role)?;
                Ok(Some(Extension::Grant(Grant(claims))))
            }
            Need::Token => Ok(Some(Extension::Grant(Grant(claims)))),
            Need::Nothing | Need::InMessage => Ok(None),
        }
    }
}

/// For a call whose cache is named in its message (control and topic
/// calls): the token's role must be at least `role`; a token of explicit
/// permissions is checked by the handler, except for admin calls, which
/// need a super user.
pub fn check_role(claims: &Claims, name: &str, role: Role) -> Result<(), Status> {
    if let Scope::Role { role: has, .. } = &claims.scope {
        if *has < role {
            return Err(Status::permission_denied(format!(
                "{name} needs a `{}` token; this one is `{}`",
                role.name(),
                has.name()
            )));
        }
    } else if role == Role::Admin && !claims.is_super_user() {
        return Err(Status::permission_denied(format!(
            "{name} needs a super-user token; this one has explicit permissions only"
        )));
    }
    Ok(())
}

/// What the layer hands on to the handler.
enum Extension {
    /// The claims, for calls whose cache or topic only the handler sees.
    Grant(Grant),
    /// The keys to check, for a data call of a key-scoped token.
    Keys(KeyCheck),
}

fn unauthenticated(rejection: Rejection) -> Status {
    Status::unauthenticated(rejection.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The needs of the scalar and control calls, as they were before the
    /// catalogue, and of a few collection calls and unknown paths.
    #[test]
    fn each_path_needs_what_its_class_says() {
        let read = Need::Data(Role::Read);
        let write = Need::Data(Role::Write);
        let admin = Need::Message(Role::Admin);
        let expected = [
            ("/cache_client.Scs/Get", read),
            ("/cache_client.Scs/GetBatch", read),
            ("/cache_client.Scs/KeysExist", read),
            ("/cache_client.Scs/ItemGetTtl", read),
            ("/cache_client.Scs/ItemGetType", read),
            ("/cache_client.Scs/Set", write),
            ("/cache_client.Scs/SetBatch", write),
            ("/cache_client.Scs/SetIf", write),
            ("/cache_client.Scs/SetIfNotExists", write),
            ("/cache_client.Scs/Delete", write),
            ("/cache_client.Scs/Increment", write),
            ("/cache_client.Scs/UpdateTtl", write),
            ("/control_client.ScsControl/CreateCache", admin),
            ("/control_client.ScsControl/DeleteCache", admin),
            ("/control_client.ScsControl/FlushCache", admin),
            ("/control_client.ScsControl/ListCaches", Need::Token),
            ("/cache_client.Ping/Ping", Need::Token),
            ("/cache_client.Scs/DictionaryFetch", read),
            ("/cache_client.Scs/GetWithHash", read),
            ("/cache_client.Scs/DictionarySet", write),
            ("/cache_client.Scs/SetPop", write),
            ("/cache_client.Scs/SortedSetUnionStore", write),
            (
                "/cache_client.pubsub.Pubsub/Publish",
                Need::Message(Role::Write),
            ),
            (
                "/cache_client.pubsub.Pubsub/Subscribe",
                Need::Message(Role::Read),
            ),
            ("/control_client.ScsControl/CreateIndex", Need::Token),
            ("/cache_client.Scs/get", Need::Token),
        ];
        for (path, need_of_path) in expected {
            assert_eq!(need(path), need_of_path, "{path}");
        }
    }

    #[test]
    fn only_ping_list_caches_and_reflection_need_just_a_token_and_health_none() {
        let with = |wanted: Need| -> Vec<_> {
            rpcs::RPCS
                .iter()
                .filter(|rpc| need(rpc.path) == wanted)
                .map(|rpc| rpc.name)
                .collect()
        };
        assert_eq!(
            with(Need::Token),
            ["ListCaches", "Ping", "ServerReflectionInfo"]
        );
        assert_eq!(with(Need::Nothing), ["Check", "Watch"]);
    }
}
