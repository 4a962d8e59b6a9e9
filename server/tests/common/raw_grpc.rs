//! gRPC calls with any path and any bytes as the message: tonic frames them,
//! nothing encodes or checks them, so tests can send what no generated
//! client would (unknown methods, bodies that are not valid protobuf).

use bytes::{Buf, BufMut, Bytes};
use futures_util::StreamExt;
use http::uri::PathAndQuery;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::Channel;
use tonic::{Request, Status};

/// A codec whose messages are the raw bytes of the gRPC message.
#[derive(Clone, Copy, Default)]
pub struct RawCodec;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> Self::Encoder {
        RawCodec
    }

    fn decoder(&mut self) -> Self::Decoder {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put(item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}

/// Calls `path` (e.g. `/cache_client.Scs/Get`) with `body` as the message,
/// in `cache` when given. Server-streaming calls are read to the end; every
/// answer message comes back in order.
pub async fn call(
    channel: Channel,
    path: &str,
    cache: Option<&str>,
    body: Bytes,
    server_streaming: bool,
) -> Result<Vec<Bytes>, Status> {
    let mut request = Request::new(body);
    if let Some(cache) = cache {
        request
            .metadata_mut()
            .insert("cache", cache.parse().unwrap());
    }
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let path = PathAndQuery::try_from(path).unwrap();
    if !server_streaming {
        let answer = grpc.unary(request, path, RawCodec).await?;
        return Ok(vec![answer.into_inner()]);
    }
    let mut stream = grpc
        .server_streaming(request, path, RawCodec)
        .await?
        .into_inner();
    let mut answers = Vec::new();
    while let Some(answer) = stream.next().await {
        answers.push(answer?);
    }
    Ok(answers)
}
