//! The routes of the HTTP API, each a thin handler: its token checked, its
//! query read, then the gRPC handlers' code (`service::scalar`, Publish).
//! Presigned URLs take the same path once their signed token is checked.

use std::error::Error as StdError;
use std::future::Future;
use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, post};
use axum::Router;
use bytes::Bytes;
use http::{header, Method, StatusCode};
use tonic::Status;

use super::answer::{call, Answer};
use super::auth::{session, topic_grant};
use super::query::Query;
use super::Context;
use crate::auth::signing_keys::UrlOp;
use crate::backend::Storage;
use crate::error::{reason, Error};
use crate::in_flight::ConnectionState;
use crate::proto::cache_client::pubsub::pubsub_server::Pubsub;
use crate::proto::cache_client::pubsub::{topic_value, PublishRequest, TopicValue};
use crate::protosocket::auth::{authorize, Session};
use crate::rpcs::{self, Rpc};
use crate::service::scalar::{delete_item, get_item, set_item};
use crate::service::DataPlane;
use crate::topics::TopicStore;

/// The router of the API over `context`.
pub fn router<S: Storage + Clone, T: TopicStore + Clone>(context: Arc<Context<S, T>>) -> Router {
    Router::new()
        .route("/cache/{cache}", any(item::<S, T>))
        .route("/cache/get/{cache}/{key}", any(presigned_get::<S, T>))
        .route("/cache/set/{cache}/{key}", any(presigned_set::<S, T>))
        .route("/topics/{cache}/{topic}", post(publish::<S, T>))
        .fallback(unknown_route)
        .with_state(context)
}

type Ctx<S, T> = State<Arc<Context<S, T>>>;

/// What a handler reads of its request, once its token is checked.
struct Call {
    rpc: &'static Rpc,
    query: Query,
    session: Session,
    request: Request,
}

/// Runs `handler` for the call of `rpc` that `request` makes: counted and
/// charged (`answer::call`), its token checked first.
async fn serve<S, T, F>(
    context: &Context<S, T>,
    rpc_path: &str,
    request: Request,
    handler: impl FnOnce(Call) -> F,
) -> Response
where
    F: Future<Output = Result<Answer, Answer>>,
{
    let verifier = context.verifier.as_deref();
    counted(
        context,
        rpc_path,
        request,
        |rpc, query, request| async move {
            let session = session(verifier, request.headers(), query.token.as_deref())?;
            handler(Call {
                rpc,
                query,
                session,
                request,
            })
            .await
        },
    )
    .await
}

/// Runs `handler` for the call of `rpc` that `request` makes, with its
/// query read: counted and charged (`answer::call`).
async fn counted<S, T, F>(
    context: &Context<S, T>,
    rpc_path: &str,
    request: Request,
    handler: impl FnOnce(&'static Rpc, Query, Request) -> F,
) -> Response
where
    F: Future<Output = Result<Answer, Answer>>,
{
    let rpc = rpcs::find(rpc_path).expect("a call of the catalogue");
    let connection = request.extensions().get::<Arc<ConnectionState>>().cloned();
    let answer = async {
        let query = Query::parse(request.uri().query());
        handler(rpc, query, request).await
    };
    let answer = async { answer.await.unwrap_or_else(|refusal| refusal) };
    call(
        &context.metrics,
        &context.in_flight,
        rpc,
        connection,
        answer,
    )
    .await
}

/// The three calls on an item, by the method that makes them.
#[derive(Clone, Copy)]
enum ItemCall {
    Get,
    Set,
    Delete,
}

impl ItemCall {
    fn of(method: &Method) -> Option<ItemCall> {
        match *method {
            Method::GET => Some(ItemCall::Get),
            Method::PUT => Some(ItemCall::Set),
            Method::DELETE => Some(ItemCall::Delete),
            _ => None,
        }
    }

    fn path(self) -> &'static str {
        match self {
            ItemCall::Get => "/cache_client.Scs/Get",
            ItemCall::Set => "/cache_client.Scs/Set",
            ItemCall::Delete => "/cache_client.Scs/Delete",
        }
    }
}

/// `GET`, `PUT` and `DELETE /cache/{cache}`: the key and the token's reach
/// checked, then the gRPC handlers' Get, Set or Delete.
async fn item<S: Storage + Clone, T: TopicStore + Clone>(
    State(context): Ctx<S, T>,
    Path(cache): Path<String>,
    request: Request,
) -> Response {
    let Some(item_call) = ItemCall::of(request.method()) else {
        let allow = [(header::ALLOW, "GET, PUT, DELETE")];
        return (StatusCode::METHOD_NOT_ALLOWED, allow).into_response();
    };
    let context = &*context;
    serve(context, item_call.path(), request, move |call| async move {
        let key = call.query.key()?;
        authorize(&call.session, call.rpc, &cache, &key)?;
        let plane = &context.plane;
        match item_call {
            ItemCall::Get => get(plane, &cache, &key).await,
            ItemCall::Set => {
                let ttl_milliseconds = call.query.ttl_milliseconds()?;
                set(plane, &cache, &key, call.request, ttl_milliseconds).await
            }
            ItemCall::Delete => {
                let store_cache = plane.cache_named(&cache, key.len())?;
                delete_item(plane, &store_cache, &key).await?;
                Ok(Answer::done())
            }
        }
    })
    .await
}

// Admitted by the cache's rates with what the call sends: the key, and a
// set's value once read.

/// Get: the value (200), or a miss (404).
async fn get<S: Storage + Clone>(
    plane: &DataPlane<S>,
    cache: &str,
    key: &[u8],
) -> Result<Answer, Answer> {
    let store_cache = plane.cache_named(cache, key.len())?;
    let found = get_item(plane, &store_cache, cache, key).await?;
    Ok(found.map_or_else(Answer::miss, Answer::value))
}

/// Set: the request's body stored for `ttl_milliseconds` (204).
async fn set<S: Storage + Clone>(
    plane: &DataPlane<S>,
    cache: &str,
    key: &[u8],
    request: Request,
    ttl_milliseconds: u64,
) -> Result<Answer, Answer> {
    let value = body(request, plane.limits.max_request_size).await?;
    let store_cache = plane.cache_named(cache, key.len() + value.len())?;
    set_item(plane, &store_cache, key, &value, ttl_milliseconds).await?;
    Ok(Answer::done())
}

/// `GET /cache/get/{cache}/{key}?token=...`: a presigned get.
async fn presigned_get<S: Storage + Clone, T: TopicStore + Clone>(
    State(context): Ctx<S, T>,
    Path((cache, key)): Path<(String, String)>,
    request: Request,
) -> Response {
    presigned(&context, UrlOp::Get, cache, key, request).await
}

/// `PUT` or `POST /cache/set/{cache}/{key}?token=...`: a presigned set.
async fn presigned_set<S: Storage + Clone, T: TopicStore + Clone>(
    State(context): Ctx<S, T>,
    Path((cache, key)): Path<(String, String)>,
    request: Request,
) -> Response {
    presigned(&context, UrlOp::Set, cache, key, request).await
}

/// A presigned URL's call: its token checked against the signing keys
/// (the server's auth is not asked: the signature is the grant), then Get
/// or Set, the set for the TTL it was signed with.
async fn presigned<S: Storage + Clone, T: TopicStore + Clone>(
    context: &Context<S, T>,
    op: UrlOp,
    cache: String,
    key: String,
    request: Request,
) -> Response {
    let (item_call, methods) = match op {
        UrlOp::Get => (ItemCall::Get, "GET"),
        UrlOp::Set => (ItemCall::Set, "PUT, POST"),
    };
    let method = request.method();
    let allowed = match op {
        UrlOp::Get => method == Method::GET,
        UrlOp::Set => method == Method::PUT || method == Method::POST,
    };
    if !allowed {
        return (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, methods)]).into_response();
    }
    counted(context, item_call.path(), request, |_, query, request| async move {
        let token = query.token.as_deref().unwrap_or_default();
        let signed_ttl = context.signing_keys.check(token, op, &cache, &key).await?;
        let plane = &context.plane;
        let Some(ttl_seconds) = signed_ttl else {
            return get(plane, &cache, key.as_bytes()).await;
        };
        let ttl_milliseconds = ttl_seconds.saturating_mul(1000);
        if let Some(given) = &query.ttl_milliseconds {
            if given.parse() != Ok(ttl_milliseconds) {
                let refusal = Status::permission_denied(format!(
                    "presigned URL refused: its ttl_milliseconds `{given}` is not the {ttl_milliseconds} it was signed for"
                ));
                return Err(context.signing_keys.refuse(refusal).into());
            }
        }
        set(plane, &cache, key.as_bytes(), request, ttl_milliseconds).await
    })
    .await
}

async fn publish<S: Storage + Clone, T: TopicStore + Clone>(
    State(context): Ctx<S, T>,
    Path((cache, topic)): Path<(String, String)>,
    request: Request,
) -> Response {
    let path = "/cache_client.pubsub.Pubsub/Publish";
    let context = &*context;
    serve(context, path, request, move |call| async move {
        let grant = topic_grant(&call.session, call.rpc)?;
        let text = call
            .request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/plain"));
        let value = body(call.request, context.plane.limits.max_request_size).await?;
        let kind = if text {
            let text = String::from_utf8(value.into()).map_err(|_| {
                Error::InvalidArgument(
                    "the body is sent as text/plain but is not UTF-8; send binary as application/octet-stream".into(),
                )
            })?;
            topic_value::Kind::Text(text)
        } else {
            topic_value::Kind::Binary(value)
        };
        let mut request = tonic::Request::new(PublishRequest {
            cache_name: cache,
            topic,
            value: Some(TopicValue { kind: Some(kind) }),
        });
        if let Some(grant) = grant {
            request.extensions_mut().insert(grant);
        }
        context.pubsub.publish(request).await?;
        Ok(Answer::done())
    })
    .await
}

/// A request's body, whole, if it is at most `limit` bytes: a larger one
/// is refused by its `Content-Length` before any of it is read, or once
/// it passes the limit. Each chunk is charged to the in-flight budget as
/// it arrives, and the body must arrive within `--request-timeout`
/// (`crate::in_flight::RequestBody`, under the listener).
async fn body(request: Request, limit: usize) -> Result<Bytes, Answer> {
    let too_large = |size: Option<u64>| {
        let size = size.map_or_else(|| "more".to_owned(), |size| format!("{size} bytes"));
        let mut status = Status::resource_exhausted(format!(
            "request limit exceeded: the body is {size}, over {limit} bytes (--max-request-size)"
        ));
        status.metadata_mut().insert(
            "err",
            tonic::metadata::MetadataValue::from_static(reason::REQUEST_SIZE_LIMIT_EXCEEDED),
        );
        Answer::from(status)
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|size| size > limit as u64) {
        return Err(too_large(declared));
    }
    let error = match axum::body::to_bytes(request.into_body(), limit).await {
        Ok(bytes) => return Ok(bytes),
        Err(error) => error,
    };
    let mut cause: Option<&(dyn StdError + 'static)> = Some(&error);
    while let Some(error) = cause {
        if let Some(status) = error.downcast_ref::<Status>() {
            return Err(status.clone().into());
        }
        if error.is::<http_body_util::LengthLimitError>() {
            return Err(too_large(None));
        }
        cause = error.source();
    }
    Err(Error::InvalidArgument(format!("the request body could not be read: {error}")).into())
}

async fn unknown_route() -> Response {
    (
        StatusCode::NOT_FOUND,
        "no such route: the HTTP API serves /cache/{cache} (GET, PUT, DELETE), /topics/{cache}/{topic} (POST), and presigned URLs: /cache/get/{cache}/{key} (GET), /cache/set/{cache}/{key} (PUT, POST)\n",
    )
        .into_response()
}
