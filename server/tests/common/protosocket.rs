//! A small protosocket client for the tests: frames of a varint length and
//! a protobuf message over a TCP (or TLS) socket, written here rather than
//! taken from an SDK so that a test can send any bytes it likes.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::{Buf, BytesMut};
use jiffy_server::proto::protosocket::cache::cache_command::RpcKind;
use jiffy_server::proto::protosocket::cache::cache_response::Kind;
use jiffy_server::proto::protosocket::cache::unary::Command;
use jiffy_server::proto::protosocket::cache::{
    AuthenticateCommand, CacheCommand, CacheResponse, DeleteCommand, GetCommand, SetCommand, Unary,
};
use jiffy_server::proto::protosocket::common::Status;
use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{process_metric, ServerProcess};

/// How long any one answer may take before the test fails.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// The id the official client authenticates with.
pub const AUTH_ID: u64 = 0xDEAD_BEEF;

/// The binary with gRPC, metrics and the protosocket port on free ports,
/// plus `args`.
pub fn spawn_server(args: &[&str]) -> ServerProcess {
    let mut all = vec![
        "--listen",
        "127.0.0.1:0",
        "--metrics-listen",
        "127.0.0.1:0",
        "--protosocket-listen",
        "127.0.0.1:0",
    ];
    all.extend_from_slice(args);
    ServerProcess::spawn(&all, &[])
}

/// A protosocket client over any stream.
pub struct Client<S> {
    pub stream: S,
    buffer: BytesMut,
}

impl Client<TcpStream> {
    pub async fn connect(addr: SocketAddr) -> Self {
        Client::over(TcpStream::connect(addr).await.unwrap())
    }

    /// Connected and authenticated with `token`.
    pub async fn open(addr: SocketAddr, token: &str) -> Self {
        let mut client = Client::connect(addr).await;
        let answer = client.call(AUTH_ID, auth(token)).await;
        assert_eq!(answer, Kind::Auth(Default::default()));
        client
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Client<S> {
    pub fn over(stream: S) -> Self {
        Client {
            stream,
            buffer: BytesMut::new(),
        }
    }

    pub async fn send(&mut self, id: u64, command: Command) {
        self.send_raw(&frame(id, command)).await;
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// The next answer; `None` once the server has closed the connection.
    pub async fn recv(&mut self) -> Option<CacheResponse> {
        tokio::time::timeout(PATIENCE, self.next())
            .await
            .expect("no answer in time")
    }

    async fn next(&mut self) -> Option<CacheResponse> {
        loop {
            if let Ok(size) = prost::decode_length_delimiter(&self.buffer[..]) {
                let prefix = prost::length_delimiter_len(size);
                if self.buffer.len() >= prefix + size {
                    self.buffer.advance(prefix);
                    let message = self.buffer.split_to(size);
                    return Some(CacheResponse::decode(message).unwrap());
                }
            }
            match self.stream.read_buf(&mut self.buffer).await {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }

    /// Sends one command and waits for its answer.
    pub async fn call(&mut self, id: u64, command: Command) -> Kind {
        self.send(id, command).await;
        let answer = self.recv().await.expect("the connection closed");
        assert_eq!(answer.message_id, id);
        answer.kind.expect("an answer of some kind")
    }

    /// True once the server closes the connection (answers read on the way
    /// are dropped).
    pub async fn closed(&mut self) -> bool {
        let drain = async { while self.next().await.is_some() {} };
        tokio::time::timeout(PATIENCE, drain).await.is_ok()
    }
}

pub fn frame(id: u64, command: Command) -> Vec<u8> {
    command_frame(CacheCommand {
        message_id: id,
        control_code: 0,
        rpc_kind: Some(RpcKind::Unary(Unary {
            command: Some(command),
        })),
    })
}

pub fn command_frame(command: CacheCommand) -> Vec<u8> {
    command.encode_length_delimited_to_vec()
}

pub fn auth(token: &str) -> Command {
    Command::Auth(AuthenticateCommand {
        token: token.to_owned(),
    })
}

pub fn get(cache: &str, key: &str) -> Command {
    Command::Get(GetCommand {
        namespace: cache.to_owned(),
        key: key.as_bytes().to_vec().into(),
    })
}

pub fn set(cache: &str, key: &str, value: &[u8], ttl_ms: u64) -> Command {
    Command::Set(SetCommand {
        namespace: cache.to_owned(),
        key: key.as_bytes().to_vec().into(),
        value: value.to_vec().into(),
        ttl_milliseconds: ttl_ms,
    })
}

pub fn delete(cache: &str, key: &str) -> Command {
    Command::Delete(DeleteCommand {
        namespace: cache.to_owned(),
        key: key.as_bytes().to_vec().into(),
    })
}

/// The error of an answer: its status and message.
pub fn error_of(kind: Kind) -> (Status, String) {
    match kind {
        Kind::Error(error) => (error.code(), error.message),
        other => panic!("expected an error, got {other:?}"),
    }
}

pub fn value_of(kind: Kind) -> Option<Vec<u8>> {
    match kind {
        Kind::Get(hit) => Some(hit.value.to_vec()),
        Kind::Error(error)
            if error.code() == Status::NotFound && error.message == "Key not found" =>
        {
            None
        }
        other => panic!("expected a hit or a miss, got {other:?}"),
    }
}

async fn closes_for(server: &ServerProcess, reason: &str) -> f64 {
    let series = format!("jiffy_connections_closed_total{{reason=\"{reason}\"}}");
    process_metric(server, &series).await
}

/// Waits until `count` connections have closed for `reason` (the count
/// follows the close by a moment); fails if more have.
pub async fn wait_for_closes(server: &ServerProcess, reason: &str, count: f64) {
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let closes = closes_for(server, reason).await;
        if closes == count {
            return;
        }
        assert!(
            closes < count && std::time::Instant::now() < deadline,
            "{closes} closes for {reason}, not {count}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
