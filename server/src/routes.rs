//! The gRPC router: the data plane (`cache_client.Scs`) and topics
//! (`cache_client.pubsub.Pubsub`) found by their path's prefix, every other
//! service through tonic's `Routes`.
//!
//! tonic's `Routes` is an axum router: per call it matches the path
//! against its table, allocates the path parameters, boxes the request
//! body into axum's and back into tonic's, and wraps the answer's body in
//! two error mappers whose polls and drops run for every frame: 4,000 to
//! 5,000 of the 53,000 instructions a Get cost the server. The two services
//! that carry nearly every call are matched here by one string comparison
//! and handed the request as tonic's own router would, so what they answer
//! (an unknown method of theirs included) is the same; the rest, rare
//! calls, keep tonic's router.

use std::convert::Infallible;
use std::task::{Context, Poll};

use futures_util::future::Either;
use http::{Request, Response};
use tonic::body::Body;
use tonic::server::NamedService;
use tonic::service::Routes;
use tower::Service;

/// Routes `/<A::NAME>/...` to `first`, `/<B::NAME>/...` to `second`, and
/// every other path to `rest`.
#[derive(Clone)]
pub struct DirectRoutes<A, B> {
    first: A,
    second: B,
    rest: Routes,
}

impl<A: NamedService, B: NamedService> DirectRoutes<A, B> {
    /// `rest` should not hold `first` or `second`: they would never be
    /// reached through it.
    pub fn new(first: A, second: B, rest: Routes) -> Self {
        DirectRoutes {
            first,
            second,
            rest,
        }
    }
}

/// Whether `path` is `/<service>/<method>` of the service called `service`.
fn of_service(path: &str, service: &str) -> bool {
    path.strip_prefix('/')
        .and_then(|path| path.strip_prefix(service))
        .is_some_and(|method| method.starts_with('/'))
}

type Answer = Response<Body>;

impl<A, B, ReqBody> Service<Request<ReqBody>> for DirectRoutes<A, B>
where
    A: Service<Request<Body>, Response = Answer, Error = Infallible> + NamedService,
    B: Service<Request<Body>, Response = Answer, Error = Infallible> + NamedService,
    ReqBody: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    ReqBody::Error: Into<tower::BoxError>,
{
    type Response = Answer;
    type Error = Infallible;
    type Future =
        Either<A::Future, Either<B::Future, <Routes as Service<Request<ReqBody>>>::Future>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // tonic's generated servers, `PubsubRoutes` and `Routes` are always
        // ready (each call drives its own clone); asked all the same, so a
        // service that one day is not is waited for.
        std::task::ready!(self.first.poll_ready(cx))?;
        std::task::ready!(self.second.poll_ready(cx))?;
        <Routes as Service<Request<ReqBody>>>::poll_ready(&mut self.rest, cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let path = request.uri().path();
        if of_service(path, A::NAME) {
            Either::Left(self.first.call(request.map(Body::new)))
        } else if of_service(path, B::NAME) {
            Either::Right(Either::Left(self.second.call(request.map(Body::new))))
        } else {
            Either::Right(Either::Right(self.rest.call(request)))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::{ready, Ready};

    use tower::ServiceExt;

    use super::*;

    /// A service that answers every call with its own name in a header.
    #[derive(Clone)]
    struct Named(&'static str);

    impl Service<Request<Body>> for Named {
        type Response = Answer;
        type Error = Infallible;
        type Future = Ready<Result<Answer, Infallible>>;

        fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _request: Request<Body>) -> Self::Future {
            let mut answer = Response::new(Body::empty());
            let name = http::HeaderValue::from_static(self.0);
            answer.headers_mut().insert("served-by", name);
            ready(Ok(answer))
        }
    }

    /// Services named as the real ones, answering as `Named`.
    macro_rules! named {
        ($($service:ident $name:literal),*) => {$(
            #[derive(Clone)]
            struct $service(Named);
            impl NamedService for $service {
                const NAME: &'static str = $name;
            }
            impl Service<Request<Body>> for $service {
                type Response = Answer;
                type Error = Infallible;
                type Future = Ready<Result<Answer, Infallible>>;
                fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
                    self.0.poll_ready(cx)
                }
                fn call(&mut self, request: Request<Body>) -> Self::Future {
                    self.0.call(request)
                }
            }
        )*};
    }
    named!(Scs "cache_client.Scs", Pubsub "cache_client.pubsub.Pubsub", Other "other.Other");

    #[tokio::test]
    async fn each_path_reaches_its_service_and_the_rest_tonics_router() {
        let rest = Routes::new(Other(Named("other"))).prepare();
        let routes = DirectRoutes::new(Scs(Named("scs")), Pubsub(Named("pubsub")), rest);
        let served_by = |path: &'static str| {
            let routes = routes.clone();
            async move {
                let request = Request::post(path).body(Body::empty()).unwrap();
                let answer = routes.oneshot(request).await.unwrap();
                let name = answer.headers().get("served-by").cloned();
                let status = answer.headers().get("grpc-status").cloned();
                (name.map(|n| n.to_str().unwrap().to_owned()), status)
            }
        };
        assert_eq!(
            served_by("/cache_client.Scs/Get").await.0.as_deref(),
            Some("scs")
        );
        assert_eq!(
            served_by("/cache_client.pubsub.Pubsub/Publish")
                .await
                .0
                .as_deref(),
            Some("pubsub")
        );
        // Anything else goes to tonic's router.
        assert_eq!(
            served_by("/other.Other/Call").await.0.as_deref(),
            Some("other")
        );
        let (name, status) = served_by("/cache_client.Ping/Ping").await;
        assert_eq!(name, None);
        assert_eq!(status.unwrap(), "12");
    }

    #[test]
    fn a_path_is_of_a_service_by_its_first_segment_only() {
        assert!(of_service("/cache_client.Scs/Get", "cache_client.Scs"));
        assert!(of_service("/cache_client.Scs/", "cache_client.Scs"));
        assert!(!of_service("/cache_client.Scsx/Get", "cache_client.Scs"));
        assert!(!of_service("/cache_client.Scs", "cache_client.Scs"));
        assert!(!of_service("cache_client.Scs/Get", "cache_client.Scs"));
        assert!(!of_service(
            "/cache_client.pubsub.Pubsub/Publish",
            "cache_client.Scs"
        ));
    }
}
