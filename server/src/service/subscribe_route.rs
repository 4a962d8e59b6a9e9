//! Subscribe's HTTP route, framed here rather than by tonic's encoder.
//!
//! tonic encodes a server stream into one `BytesMut` per call, allocated at
//! 8 KiB when the stream opens and kept, grown to the largest batch it ever
//! encoded, for as long as the stream lives: the split-off frames share its
//! allocation, and it reuses that allocation rather than giving it back.
//! That is the right trade for short streams; a subscription lives for
//! hours and mostly waits. 100,000 idle subscriptions held 8 KiB each for
//! nothing, and 2,000 that had each been sent one 100 KB message held
//! 100 KB each long after. Here each item is encoded into a frame of its
//! own size, and nothing is kept between items. No codec setting of tonic
//! does this (its `BufferSettings` size the kept buffer, they cannot drop
//! it), so the gRPC framing (a 5-byte prefix per message, the status in
//! the trailers) is written by hand; Publish and everything else stay
//! with tonic.

use std::convert::Infallible;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{BufMut, Bytes, BytesMut};
use http_body::{Body as HttpBody, Frame};
use prost::Message;
use tonic::body::Body;
use tonic::server::NamedService;
use tonic::{Code, Status};
use tower::{Service, ServiceExt};

use super::pubsub::PubsubService;
use crate::auth::Grant;
use crate::in_flight::ConnectionState;
use crate::proto::cache_client::pubsub::subscription_item::Kind as ItemKind;
use crate::proto::cache_client::pubsub::{SubscriptionItem, SubscriptionRequest};
use crate::topics::{SubscriptionStream, TopicStore};

pub const SUBSCRIBE_PATH: &str = "/cache_client.pubsub.Pubsub/Subscribe";

/// The gRPC message prefix: a compression flag and a big-endian length.
const PREFIX: usize = 5;

/// The Pubsub service: Subscribe served here, every other path by `inner`
/// (tonic's generated server).
#[derive(Clone)]
pub struct PubsubRoutes<S, T> {
    inner: S,
    service: PubsubService<T>,
    /// `--max-request-size`, for the Subscribe request as tonic checks the others.
    max_request_size: usize,
}

impl<S, T> PubsubRoutes<S, T> {
    pub fn new(inner: S, service: PubsubService<T>, max_request_size: usize) -> Self {
        PubsubRoutes {
            inner,
            service,
            max_request_size,
        }
    }
}

impl<S, T> NamedService for PubsubRoutes<S, T> {
    const NAME: &'static str = "cache_client.pubsub.Pubsub";
}

type Answer = http::Response<Body>;

impl<S, T> Service<http::Request<Body>> for PubsubRoutes<S, T>
where
    S: Service<http::Request<Body>, Response = Answer, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
    T: TopicStore + Clone,
{
    type Response = Answer;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Answer, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Each call drives its own clone of `inner` to readiness (`oneshot`).
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        if request.uri().path() != SUBSCRIBE_PATH {
            return Box::pin(self.inner.clone().oneshot(request));
        }
        let service = self.service.clone();
        let limit = self.max_request_size;
        Box::pin(async move { Ok(subscribe(service, request, limit).await) })
    }
}

async fn subscribe<T: TopicStore + Clone>(
    service: PubsubService<T>,
    request: http::Request<Body>,
    limit: usize,
) -> Answer {
    let (parts, body) = request.into_parts();
    let grant = parts.extensions.get::<Grant>();
    let connection = parts.extensions.get::<Arc<ConnectionState>>().cloned();
    let opened = match read_request(body, limit).await {
        Ok(message) => service.open(grant, connection, &message).await,
        Err(status) => Err(status),
    };
    match opened {
        Ok(stream) => {
            let body = Items {
                stream: Some(stream),
            };
            let mut answer = http::Response::new(Body::new(body));
            answer.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/grpc"),
            );
            answer
        }
        Err(status) => status.into_http(),
    }
}

/// The one message of the request body, as tonic's decoder reads it:
/// OUT_OF_RANGE past `limit` (which `rpc_layer` answers as the SDKs
/// expect), UNIMPLEMENTED if compressed (no compression is accepted).
async fn read_request(mut body: Body, limit: usize) -> Result<SubscriptionRequest, Status> {
    let mut read = BytesMut::new();
    while let Some(frame) = poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if read.len() + data.len() > limit + PREFIX {
            return Err(Status::out_of_range(format!(
                "the request is over the limit of {limit} bytes"
            )));
        }
        read.put(data);
    }
    if read.len() < PREFIX {
        return Err(Status::internal("Subscribe needs one request message"));
    }
    if read[0] != 0 {
        return Err(Status::unimplemented(
            "compressed requests are not accepted",
        ));
    }
    let length = u32::from_be_bytes([read[1], read[2], read[3], read[4]]) as usize;
    if read.len() != PREFIX + length {
        return Err(Status::internal(
            "Subscribe takes exactly one request message",
        ));
    }
    SubscriptionRequest::decode(&read[PREFIX..])
        .map_err(|error| Status::internal(format!("failed to decode the request: {error}")))
}

/// The answer body: each item framed on its own, then the status trailers.
struct Items {
    stream: Option<SubscriptionStream>,
}

impl HttpBody for Items {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let Some(stream) = self.stream.as_mut() else {
            return Poll::Ready(None);
        };
        let frame = match std::task::ready!(stream.as_mut().poll_next(cx)) {
            Some(Ok(item)) => return Poll::Ready(Some(Ok(Frame::data(framed(&item))))),
            Some(Err(status)) => trailers(&status),
            None => trailers(&Status::new(Code::Ok, "")),
        };
        // Ended: the stream (and the subscription it holds) goes now.
        self.stream = None;
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.stream.is_none()
    }
}

/// A heartbeat with its gRPC prefix: field 3, empty. Sent every interval
/// by every quiet subscription, so it is not encoded each time.
const HEARTBEAT: &[u8] = &[0, 0, 0, 0, 2, 0x1a, 0];

/// One message with its gRPC prefix, in a buffer of exactly its size (a
/// heartbeat in none: the same static bytes for all).
fn framed(item: &SubscriptionItem) -> Bytes {
    if matches!(item.kind, Some(ItemKind::Heartbeat(_))) {
        return Bytes::from_static(HEARTBEAT);
    }
    let length = item.encoded_len();
    let mut frame = BytesMut::with_capacity(PREFIX + length);
    frame.put_u8(0);
    frame.put_u32(length as u32);
    item.encode(&mut frame)
        .expect("the buffer has room for the message");
    frame.freeze()
}

fn trailers(status: &Status) -> Frame<Bytes> {
    let mut headers = status.clone().into_http::<()>().into_parts().0.headers;
    headers.remove(http::header::CONTENT_TYPE);
    Frame::trailers(headers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::cache_client::pubsub::subscription_item::Kind;
    use crate::proto::cache_client::pubsub::{Discontinuity, Heartbeat};

    #[test]
    fn a_heartbeat_is_framed_as_encoded() {
        let item = SubscriptionItem {
            kind: Some(Kind::Heartbeat(Heartbeat {})),
        };
        let mut encoded = vec![0, 0, 0, 0, item.encoded_len() as u8];
        item.encode(&mut encoded).unwrap();
        assert_eq!(&framed(&item)[..], &encoded[..]);
    }

    #[test]
    fn an_item_is_framed_in_a_buffer_of_its_own_size() {
        let item = SubscriptionItem {
            kind: Some(Kind::Discontinuity(Discontinuity {
                last_topic_sequence: 1,
                new_topic_sequence: 2,
                new_sequence_page: 3,
            })),
        };
        let frame = framed(&item);
        assert_eq!(frame.len(), PREFIX + item.encoded_len());
        assert_eq!(&frame[..PREFIX], &[0, 0, 0, 0, item.encoded_len() as u8]);
        assert_eq!(SubscriptionItem::decode(&frame[PREFIX..]).unwrap(), item);
    }

    #[tokio::test]
    async fn the_request_is_one_uncompressed_message_within_the_limit() {
        let request = SubscriptionRequest {
            cache_name: "c".into(),
            topic: "t".into(),
            ..SubscriptionRequest::default()
        };
        let body = |bytes: Vec<u8>| Body::new(http_body_util::Full::new(Bytes::from(bytes)));
        let mut wire = vec![0, 0, 0, 0, request.encoded_len() as u8];
        request.encode(&mut wire).unwrap();
        assert_eq!(
            read_request(body(wire.clone()), 100).await.unwrap(),
            request
        );
        let over = read_request(body(wire.clone()), 2).await.unwrap_err();
        assert_eq!(over.code(), Code::OutOfRange);
        let mut compressed = wire.clone();
        compressed[0] = 1;
        let refused = read_request(body(compressed), 100).await.unwrap_err();
        assert_eq!(refused.code(), Code::Unimplemented);
        wire.push(0);
        assert!(read_request(body(wire), 100).await.is_err());
    }
}
