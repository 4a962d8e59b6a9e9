//! The gRPC side of `/block`: calls wait while blocked, and answer streams
//! open when a block begins end with UNAVAILABLE.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use http::{HeaderMap, Request, Response};
use http_body::Frame;
use tokio::sync::watch;
use tokio_stream::wrappers::WatchStream;
use tonic::Status;
use tower::{Layer, Service};

use super::Blocker;

#[derive(Clone)]
pub struct BlockLayer {
    blocker: Blocker,
}

impl BlockLayer {
    pub fn new(blocker: Blocker) -> BlockLayer {
        BlockLayer { blocker }
    }
}

impl<S> Layer<S> for BlockLayer {
    type Service = BlockService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BlockService {
            inner,
            blocker: self.blocker.clone(),
        }
    }
}

#[derive(Clone)]
pub struct BlockService<S> {
    inner: S,
    blocker: Blocker,
}

impl<S, B> Service<Request<B>> for BlockService<S>
where
    S: Service<Request<B>, Response = Response<tonic::body::Body>> + Clone + Send + 'static,
    S::Future: Send,
    B: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response<tonic::body::Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The service that was made ready goes into the future; a clone stays.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let blocker = self.blocker.clone();
        Box::pin(async move {
            blocker.unblocked().await;
            let answer = inner.call(request).await?;
            let blocks = blocker.watch();
            Ok(answer.map(|body| tonic::body::Body::new(CutBody::new(body, blocks))))
        })
    }
}

/// An answer body that ends with UNAVAILABLE once a block begins.
struct CutBody {
    inner: tonic::body::Body,
    blocks: WatchStream<bool>,
    done: bool,
}

impl CutBody {
    fn new(inner: tonic::body::Body, blocks: watch::Receiver<bool>) -> CutBody {
        CutBody {
            inner,
            // Changes only: the state now is "not blocked", or the call
            // would not have been handled.
            blocks: WatchStream::from_changes(blocks),
            done: false,
        }
    }
}

impl http_body::Body for CutBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        if self.done {
            return Poll::Ready(None);
        }
        while let Poll::Ready(change) = self.blocks.poll_next_unpin(cx) {
            if change != Some(true) {
                if change.is_none() {
                    break;
                }
                continue;
            }
            self.done = true;
            let mut trailers = HeaderMap::new();
            let status = Status::unavailable("the connection was blocked by the admin port");
            // A status of ours always makes valid headers.
            let _ = status.add_header(&mut trailers);
            return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
        }
        let frame = std::task::ready!(Pin::new(&mut self.inner).poll_frame(cx));
        if frame.is_none() {
            self.done = true;
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.done || self.inner.is_end_stream()
    }
}
