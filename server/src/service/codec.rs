//! The gRPC codec of every generated service: tonic's prost codec, except
//! that a message is encoded into room reserved at its encoded size.
//!
//! tonic's encoder grows its buffer as prost writes into it, doubling: a
//! 5 MB answer passed through buffers of 4 and 8 MiB, copied at each step,
//! and kept the 8 MiB one, while the in-flight budget charges an answer its
//! encoded size (`crate::in_flight::AnswerBody`). Reserved up front, the
//! encoding is one buffer of exactly that size, made once, so what is held
//! is what is charged. prost computes the size anyway before it encodes,
//! so asking for it first costs nothing more.

use std::marker::PhantomData;

use prost::Message;
use tonic::codec::{BufferSettings, Codec, EncodeBuf, Encoder};
use tonic::Status;
use tonic_prost::ProstCodec;

/// [`ProstCodec`] with [`SizedEncoder`].
pub struct SizedCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for SizedCodec<T, U> {
    fn default() -> Self {
        SizedCodec(PhantomData)
    }
}

impl<T, U> Codec for SizedCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = SizedEncoder<T>;
    type Decoder = <ProstCodec<T, U> as Codec>::Decoder;

    fn encoder(&mut self) -> Self::Encoder {
        SizedEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstCodec::<T, U>::default().decoder()
    }
}

/// Encodes a message into room reserved at its encoded size.
pub struct SizedEncoder<T>(PhantomData<T>);

impl<T: Message> Encoder for SizedEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.reserve(item.encoded_len());
        item.encode_raw(buf);
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use http_body_util::BodyExt;
    use tonic::codec::{Codec, EncodeBody, SingleMessageCompressionOverride};
    use tonic::Status;

    use super::SizedCodec;
    use crate::proto::cache_client::{list_fetch_response, ListFetchResponse};

    /// A large answer is framed as prost encodes it, in one buffer of its
    /// size (tonic's own encoder left it in one of 8 MiB).
    #[tokio::test]
    async fn a_message_is_encoded_into_room_of_its_size() {
        let values = (0..1000u32)
            .map(|i| Bytes::from(vec![i as u8; 4000]))
            .collect();
        let found = list_fetch_response::Found { values };
        let answer = ListFetchResponse {
            list: Some(list_fetch_response::List::Found(found)),
        };
        let encoded = prost::Message::encode_to_vec(&answer);
        let mut codec = SizedCodec::<ListFetchResponse, ListFetchResponse>::default();
        let source = futures_util::stream::iter([Ok::<_, Status>(answer)]);
        let mut body = Box::pin(EncodeBody::new_server(
            codec.encoder(),
            source,
            None,
            SingleMessageCompressionOverride::default(),
            Some(usize::MAX),
        ));
        let frame = body.frame().await.unwrap().unwrap().into_data().unwrap();
        drop(body);
        assert_eq!(frame[0], 0, "not compressed");
        assert_eq!(frame[1..5], (encoded.len() as u32).to_be_bytes());
        assert_eq!(frame[5..], encoded[..]);
        let buffer = frame.try_into_mut().expect("the frame owns its buffer");
        assert_eq!(buffer.capacity(), 5 + encoded.len());
    }
}
