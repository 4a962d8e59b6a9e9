//! Frames: a protobuf varint holding the message's length, then the message.
//!
//! [`FrameReader`] takes commands off a byte stream without trusting it: a
//! length over the limit is refused before any of the message is buffered,
//! a length prefix that is no varint and a message that does not decode are
//! errors, and so is a stream that ends inside a frame. Given a [`Budget`],
//! a frame that arrives in pieces is charged to it from the first. It reads
//! answers as well, for a client (the load client of `bench/server`).

use std::marker::PhantomData;
use std::time::Duration;

use bytes::{Buf, BytesMut};
use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::Instant;

use super::budget::{Budget, Charge};
use crate::proto::protosocket::cache::{cache_response, CacheCommand, CacheResponse, GetResponse};

/// The largest frame the official client reads (protosocket-rpc's default
/// buffer limit), length prefix included. Every answer fits in it.
pub const MAX_ANSWER_FRAME: usize = 4 << 20;

/// A varint takes at most ten bytes.
const MAX_VARINT_LEN: usize = 10;

/// What the reader buffers at a time beyond the current frame.
const READ_CHUNK: usize = 16 << 10;

/// Why the bytes on a connection are no command.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("a frame of {size} bytes, over the limit of {limit} (--max-request-size)")]
    TooLarge { size: usize, limit: usize },
    #[error("not a frame: {0}")]
    Garbage(String),
    #[error("the stream ended inside a frame")]
    Truncated,
    #[error("a frame was not complete within --request-timeout")]
    Stalled,
    #[error("a frame did not fit in --max-in-flight-bytes, and this connection held the most")]
    InFlightFull,
}

/// A message read (a command, or a client's answer), the size of its frame,
/// and what its frame was charged while it arrived (`None` if it came whole,
/// or nothing is counted).
#[derive(Debug)]
pub struct Frame<M = CacheCommand> {
    pub message: M,
    pub size: usize,
    pub charge: Option<Charge>,
}

/// Reads messages off one connection: commands (the server's side, the
/// default) or answers (a client's).
pub struct FrameReader<R, M = CacheCommand> {
    io: R,
    buffer: BytesMut,
    /// The largest message accepted, without its length prefix.
    limit: usize,
    /// How long a frame may take to arrive once its first byte has: a
    /// client that starts a frame and stops would otherwise hold its
    /// buffer forever.
    frame_timeout: Duration,
    /// When the first byte of the frame now in the buffer arrived.
    frame_started: Option<Instant>,
    /// Where frames arriving in pieces are charged (`None`: uncounted).
    budget: Option<Budget>,
    /// The charge of the frame now arriving.
    arriving: Option<Charge>,
    message: PhantomData<fn() -> M>,
}

impl<R: AsyncRead + Unpin, M: Message + Default> FrameReader<R, M> {
    pub fn new(io: R, limit: usize, frame_timeout: Duration) -> Self {
        FrameReader {
            io,
            buffer: BytesMut::new(),
            limit,
            frame_timeout,
            frame_started: None,
            budget: None,
            arriving: None,
            message: PhantomData,
        }
    }

    /// Charges each frame that arrives in pieces to `budget` while it does.
    pub fn counted(mut self, budget: Budget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// The next message; `None` when the stream ends between frames.
    /// Cancel-safe: dropped while waiting, it loses no bytes.
    pub async fn next(&mut self) -> Result<Option<Frame<M>>, FrameError> {
        loop {
            if let Some(command) = self.parse()? {
                return Ok(Some(command));
            }
            let read = if self.buffer.is_empty() {
                self.io.read_buf(&mut self.buffer).await
            } else {
                let started = *self.frame_started.get_or_insert_with(Instant::now);
                let deadline = started + self.frame_timeout;
                match tokio::time::timeout_at(deadline, self.io.read_buf(&mut self.buffer)).await {
                    Ok(read) => read,
                    Err(_) => return Err(FrameError::Stalled),
                }
            };
            match read {
                Ok(0) if self.buffer.is_empty() => return Ok(None),
                Ok(0) | Err(_) => return Err(FrameError::Truncated),
                Ok(_) => {}
            }
        }
    }

    /// A whole message off the front of the buffer, if it holds one.
    fn parse(&mut self) -> Result<Option<Frame<M>>, FrameError> {
        if self.buffer.is_empty() {
            self.frame_started = None;
            return Ok(None);
        }
        let Some((size, prefix)) = length_prefix(&self.buffer)? else {
            return Ok(None);
        };
        if size > self.limit {
            return Err(FrameError::TooLarge {
                size,
                limit: self.limit,
            });
        }
        if self.buffer.len() < prefix + size {
            if let (None, Some(budget)) = (&self.arriving, &self.budget) {
                let charge = budget.charge(prefix + size);
                self.arriving = Some(charge.ok_or(FrameError::InFlightFull)?);
            }
            self.buffer
                .reserve(prefix + size - self.buffer.len() + READ_CHUNK);
            return Ok(None);
        }
        self.buffer.advance(prefix);
        let message = self.buffer.split_to(size).freeze();
        self.frame_started = (!self.buffer.is_empty()).then(Instant::now);
        let charge = self.arriving.take();
        let message = M::decode(message).map_err(|error| FrameError::Garbage(error.to_string()))?;
        Ok(Some(Frame {
            message,
            size: prefix + size,
            charge,
        }))
    }
}

/// The length a frame starts with and the bytes it took; `None` while the
/// varint is incomplete.
fn length_prefix(buffer: &[u8]) -> Result<Option<(usize, usize)>, FrameError> {
    let Some(end) = buffer
        .iter()
        .take(MAX_VARINT_LEN)
        .position(|b| b & 0x80 == 0)
    else {
        if buffer.len() >= MAX_VARINT_LEN {
            return Err(FrameError::Garbage("the length prefix is no varint".into()));
        }
        return Ok(None);
    };
    let size = prost::decode_length_delimiter(&buffer[..=end])
        .map_err(|error| FrameError::Garbage(error.to_string()))?;
    Ok(Some((size, end + 1)))
}

/// One answer as a frame.
pub fn encode(response: &CacheResponse) -> bytes::Bytes {
    response.encode_length_delimited_to_vec().into()
}

/// The frame of a Get hit with a value of `value_len` bytes, under the
/// largest message id a client can choose.
fn get_answer_frame_len(value_len: usize) -> usize {
    use prost::encoding::encoded_len_varint as varint;
    let get = if value_len == 0 {
        0
    } else {
        1 + varint(value_len as u64) + value_len
    };
    let response = 1 + varint(u64::MAX) + 1 + varint(get as u64) + get;
    varint(response as u64) + response
}

/// The largest value a Get answer can carry within [`MAX_ANSWER_FRAME`]
/// (4,194,279 bytes); Sets of larger values are refused on this port.
pub fn largest_readable_value() -> usize {
    let mut value = MAX_ANSWER_FRAME;
    while get_answer_frame_len(value) > MAX_ANSWER_FRAME {
        value -= 1;
    }
    value
}

/// A Get hit, as [`largest_readable_value`] counts it.
pub fn get_hit(message_id: u64, value: bytes::Bytes) -> CacheResponse {
    CacheResponse {
        message_id,
        control_code: 0,
        kind: Some(cache_response::Kind::Get(GetResponse { value })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_readable_value_fills_the_frame_exactly() {
        let largest = largest_readable_value();
        assert_eq!(largest, 4_194_279);
        let frame = encode(&get_hit(u64::MAX, vec![7; largest].into()));
        assert_eq!(frame.len(), MAX_ANSWER_FRAME);
        let over = encode(&get_hit(u64::MAX, vec![7; largest + 1].into()));
        assert!(over.len() > MAX_ANSWER_FRAME);
    }

    #[test]
    fn length_prefixes_wait_for_their_last_byte() {
        assert_eq!(length_prefix(&[0x80]), Ok(None));
        assert_eq!(length_prefix(&[0x80, 0x01]), Ok(Some((128, 2))));
        assert!(length_prefix(&[0xff; 10]).is_err());
    }

    #[tokio::test]
    async fn frames_split_anywhere_read_whole() {
        let command = CacheCommand {
            message_id: 9,
            ..Default::default()
        };
        let mut bytes = command.encode_length_delimited_to_vec();
        bytes.extend(command.encode_length_delimited_to_vec());
        let (mut client, server) = tokio::io::duplex(64);
        let mut reader: FrameReader<_> = FrameReader::new(server, 1 << 10, Duration::from_secs(5));
        let writing = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for byte in bytes {
                client.write_all(&[byte]).await.unwrap();
            }
        });
        let mut next = async || reader.next().await.unwrap().map(|frame| frame.message);
        assert_eq!(next().await, Some(command.clone()));
        assert_eq!(next().await, Some(command));
        writing.await.unwrap();
        assert_eq!(next().await, None);
    }

    #[tokio::test]
    async fn answers_read_as_commands_do() {
        let answer = get_hit(3, vec![1, 2, 3].into());
        let bytes = encode(&answer);
        let mut reader = FrameReader::new(&bytes[..], 1 << 10, Duration::from_secs(5));
        let read = reader.next().await.unwrap().map(|frame| frame.message);
        assert_eq!(read, Some(answer));
        assert!(reader.next().await.unwrap().is_none());
    }
}
