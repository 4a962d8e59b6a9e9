//! Frames: a protobuf varint holding the message's length, then the message.
//!
//! [`FrameReader`] takes commands off a byte stream without trusting it: a
//! frame whose length is over the limit is skipped as it arrives, never
//! buffered, its fields scanned for the message id so that it can be
//! refused under that id ([`FrameError::TooLarge`]) while the connection
//! goes on; a length prefix that is no varint and a message that does not
//! decode are errors, and so is a stream that ends inside a frame. Given a [`Budget`],
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

/// The control codes of protosocket-rpc.
pub(super) const NORMAL: u32 = 0;
pub(super) const CANCEL: u32 = 1;

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
    /// The frame was skipped whole: the connection may go on. `message_id`
    /// is the last one its fields held (0, as protobuf reads a missing
    /// field, if none came before anything that is no protobuf field).
    #[error("a frame of {size} bytes, over the limit of {limit} (--max-request-size)")]
    TooLarge {
        size: usize,
        limit: usize,
        message_id: u64,
    },
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
    /// The frame over the limit now being skipped.
    skipping: Option<Skipping>,
    message: PhantomData<fn() -> M>,
}

/// The protobuf field number of the message id, in a command or an answer.
pub trait MessageId {
    const ID_FIELD: u32;
}

impl MessageId for CacheCommand {
    const ID_FIELD: u32 = 2;
}

impl MessageId for CacheResponse {
    const ID_FIELD: u32 = 1;
}

impl<R: AsyncRead + Unpin, M: Message + Default + MessageId> FrameReader<R, M> {
    pub fn new(io: R, limit: usize, frame_timeout: Duration) -> Self {
        FrameReader {
            io,
            buffer: BytesMut::new(),
            limit,
            frame_timeout,
            frame_started: None,
            budget: None,
            arriving: None,
            skipping: None,
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
            let read = if self.buffer.is_empty() && self.skipping.is_none() {
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
        if let Some(skipping) = &mut self.skipping {
            let seen = skipping.remaining.min(self.buffer.len());
            skipping.scan.feed(&self.buffer[..seen]);
            self.buffer.advance(seen);
            skipping.remaining -= seen;
            if skipping.remaining > 0 {
                self.buffer.reserve(READ_CHUNK);
                return Ok(None);
            }
            let skipped = self.skipping.take().expect("skipping");
            self.frame_started = (!self.buffer.is_empty()).then(Instant::now);
            return Err(FrameError::TooLarge {
                size: skipped.size,
                limit: self.limit,
                message_id: skipped.scan.id,
            });
        }
        if self.buffer.is_empty() {
            self.frame_started = None;
            return Ok(None);
        }
        let Some((size, prefix)) = length_prefix(&self.buffer)? else {
            return Ok(None);
        };
        if size > self.limit {
            // Read no further than the frame: what follows is the next one.
            self.buffer.advance(prefix);
            self.skipping = Some(Skipping {
                size: size.saturating_add(prefix),
                remaining: size,
                scan: IdScan::new(M::ID_FIELD),
            });
            return self.parse();
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

/// A frame over the limit, skipped as it arrives.
struct Skipping {
    /// The whole frame, its length prefix included.
    size: usize,
    /// Bytes of it still to come.
    remaining: usize,
    scan: IdScan,
}

/// Finds a message's id among its fields as its bytes go by, keeping none
/// of them: each field's tag is read, the id's value kept, every other
/// value skipped by its length. prost has no decoder for a message that is
/// not kept whole; this reads only tags, varints and lengths
/// (protobuf.dev/programming-guides/encoding). Bytes that are no field
/// stop the search; the id found so far stands.
struct IdScan {
    id_field: u32,
    id: u64,
    state: ScanState,
}

enum ScanState {
    /// A field's tag, as a varint so far.
    Tag(Varint),
    /// The value of a varint field (the id's, if `keep`).
    Value { varint: Varint, keep: bool },
    /// The length of a length-delimited field.
    Length(Varint),
    /// Bytes of a value to pass over.
    Skip(u64),
    /// Not a protobuf field: look no further.
    Lost,
}

#[derive(Default)]
struct Varint {
    value: u64,
    shift: u32,
}

impl Varint {
    /// Adds `byte`; the value once it was the last, or an error past ten bytes.
    fn push(&mut self, byte: u8) -> Result<Option<u64>, ()> {
        if self.shift >= 64 {
            return Err(());
        }
        self.value |= u64::from(byte & 0x7f) << self.shift;
        self.shift += 7;
        Ok((byte & 0x80 == 0).then_some(self.value))
    }
}

impl IdScan {
    fn new(id_field: u32) -> IdScan {
        IdScan {
            id_field,
            id: 0,
            state: ScanState::Tag(Varint::default()),
        }
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        while let Some((&byte, rest)) = bytes.split_first() {
            if let ScanState::Skip(left) = &mut self.state {
                let passed = bytes
                    .len()
                    .min(usize::try_from(*left).unwrap_or(usize::MAX));
                *left -= passed as u64;
                bytes = &bytes[passed..];
                if *left == 0 {
                    self.state = ScanState::Tag(Varint::default());
                }
                continue;
            }
            bytes = rest;
            self.state = match std::mem::replace(&mut self.state, ScanState::Lost) {
                ScanState::Tag(mut tag) => match tag.push(byte) {
                    Ok(None) => ScanState::Tag(tag),
                    Ok(Some(tag)) => self.field(tag),
                    Err(()) => ScanState::Lost,
                },
                ScanState::Value { mut varint, keep } => match varint.push(byte) {
                    Ok(None) => ScanState::Value { varint, keep },
                    Ok(Some(value)) => {
                        if keep {
                            self.id = value;
                        }
                        ScanState::Tag(Varint::default())
                    }
                    Err(()) => ScanState::Lost,
                },
                ScanState::Length(mut length) => match length.push(byte) {
                    Ok(None) => ScanState::Length(length),
                    Ok(Some(0)) => ScanState::Tag(Varint::default()),
                    Ok(Some(length)) => ScanState::Skip(length),
                    Err(()) => ScanState::Lost,
                },
                ScanState::Skip(_) => unreachable!("handled above"),
                ScanState::Lost => return,
            };
        }
    }

    /// What follows the tag `tag`: its value, by wire type.
    fn field(&self, tag: u64) -> ScanState {
        let number = tag >> 3;
        if number == 0 {
            return ScanState::Lost;
        }
        match tag & 7 {
            0 => ScanState::Value {
                varint: Varint::default(),
                keep: number == u64::from(self.id_field),
            },
            1 => ScanState::Skip(8),
            2 => ScanState::Length(Varint::default()),
            5 => ScanState::Skip(4),
            // Groups (3, 4) are long gone from protobuf, and no other
            // wire type exists.
            _ => ScanState::Lost,
        }
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

    fn set_command(id: u64, value_len: usize) -> CacheCommand {
        use crate::proto::protosocket::cache::{cache_command::RpcKind, unary, SetCommand, Unary};
        CacheCommand {
            message_id: id,
            control_code: 0,
            rpc_kind: Some(RpcKind::Unary(Unary {
                command: Some(unary::Command::Set(SetCommand {
                    namespace: "c".into(),
                    key: "k".into(),
                    value: vec![7; value_len].into(),
                    ttl_milliseconds: 1000,
                })),
            })),
        }
    }

    #[tokio::test]
    async fn a_frame_over_the_limit_is_skipped_and_named_by_its_id() {
        let mut bytes = set_command(77, 5000).encode_length_delimited_to_vec();
        let size = bytes.len();
        let next = set_command(78, 10);
        bytes.extend(next.encode_length_delimited_to_vec());
        let (mut client, server) = tokio::io::duplex(256);
        let mut reader: FrameReader<_> = FrameReader::new(server, 1 << 10, Duration::from_secs(5));
        let writing = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for piece in bytes.chunks(100) {
                client.write_all(piece).await.unwrap();
            }
        });
        let limit = 1 << 10;
        assert_eq!(
            reader.next().await.unwrap_err(),
            FrameError::TooLarge {
                size,
                limit,
                message_id: 77
            }
        );
        // Nothing of it was kept, and the next frame reads whole.
        assert!(reader.buffer.capacity() < 2 * READ_CHUNK + 200);
        let read = reader.next().await.unwrap().unwrap();
        assert_eq!(read.message, next);
        writing.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_frame_whose_length_is_never_reached_stalls() {
        let mut bytes = Vec::new();
        prost::encoding::encode_varint(u64::MAX, &mut bytes);
        let (mut client, server) = tokio::io::duplex(64);
        let mut reader: FrameReader<_> = FrameReader::new(server, 1 << 10, Duration::from_secs(5));
        use tokio::io::AsyncWriteExt;
        client.write_all(&bytes).await.unwrap();
        assert_eq!(reader.next().await.unwrap_err(), FrameError::Stalled);
    }

    #[test]
    fn the_id_is_found_wherever_it_is_and_whatever_comes_before() {
        let scan = |bytes: &[u8], pieces: usize| {
            let mut scan = IdScan::new(2);
            for piece in bytes.chunks(pieces.max(1)) {
                scan.feed(piece);
            }
            scan.id
        };
        // prost writes fields in order of number: the id (2) first.
        let encoded = set_command(u64::MAX, 300).encode_to_vec();
        assert_eq!(scan(&encoded, 1), u64::MAX);
        assert_eq!(scan(&encoded, 7), u64::MAX);
        // Another encoder may put it last, after fixed-width fields too.
        let mut last = Vec::new();
        prost::encoding::bytes::encode(10, &vec![1u8; 300], &mut last);
        prost::encoding::fixed64::encode(5, &9, &mut last);
        prost::encoding::fixed32::encode(6, &9, &mut last);
        prost::encoding::uint64::encode(2, &42, &mut last);
        assert_eq!(scan(&last, 1), 42);
        assert_eq!(scan(&last, 64), 42);
        // No id: 0, as protobuf reads it. Garbage first: 0, and no panic.
        assert_eq!(scan(&set_command(0, 10).encode_to_vec(), 3), 0);
        assert_eq!(scan(&[0xff; 40], 3), 0);
        assert_eq!(scan(&[0x07, 0x10, 0x05], 1), 0);
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
