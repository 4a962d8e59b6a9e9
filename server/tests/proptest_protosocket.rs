//! Property tests of the protosocket port's input, the frame reader alone
//! and the whole server:
//!
//! - any bytes, cut into any pieces, through the frame reader never panic:
//!   they yield commands, then either the end of the stream or one of the
//!   documented errors (too large, garbage, truncated), and the same ones
//!   however they were cut;
//! - well-formed frames of any commands, cut anywhere, come out whole and
//!   in order, whatever bytes follow them;
//! - any bytes after Authenticate on a real server's port are answered
//!   with messages that decode and errors the port documents, or the
//!   connection is closed; the server keeps serving.
//!
//! Short by default (256 cases each, a few seconds). The long run:
//!
//! ```sh
//! PROPTEST_CASES=100000 cargo test --release -p jiffy-server --test integration -- proptest_protosocket::
//! ```

use crate::common;

use std::time::Duration;

use bytes::Bytes;
use common::protosocket::{get, value_of, Client, PATIENCE};
use common::TestServer;
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::CreateCacheRequest;
use jiffy_server::proto::protosocket::cache::cache_command::RpcKind;
use jiffy_server::proto::protosocket::cache::cache_response::Kind;
use jiffy_server::proto::protosocket::cache::unary::Command;
use jiffy_server::proto::protosocket::cache::{
    AuthenticateCommand, CacheCommand, DeleteCommand, GetCommand, SetCommand, Unary,
};
use jiffy_server::proto::protosocket::common::Status;
use jiffy_server::protosocket::framing::{FrameError, FrameReader};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use prost::Message;
use tokio::io::AsyncWriteExt;

/// The frame limit in these tests (`--max-request-size 2KiB` on the real
/// port): small, so that random lengths pass it often.
const LIMIT: usize = 2048;
const CACHE: &str = "c";

/// `PROPTEST_CASES` when set (the long run), else `default` cases.
fn config(default: u32) -> Config {
    let mut config = if std::env::var_os("PROPTEST_CASES").is_some() {
        Config::default()
    } else {
        Config::with_cases(default)
    };
    config.failure_persistence = None;
    config
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

// --- what the generators make ---------------------------------------------

fn small_bytes(max: usize) -> impl Strategy<Value = Bytes> {
    prop::collection::vec(any::<u8>(), 0..max).prop_map(Bytes::from)
}

/// A cache name: the one that exists, one that does not, or anything.
fn namespace() -> impl Strategy<Value = String> {
    prop_oneof![3 => Just(CACHE.to_owned()), 1 => Just("nope".to_owned()), 1 => ".{0,8}"]
}

fn ttl() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0u64), 1..100_000u64, any::<u64>()]
}

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        1 => ".{0,12}".prop_map(|token| Command::Auth(AuthenticateCommand { token })),
        3 => (namespace(), small_bytes(8))
            .prop_map(|(namespace, key)| Command::Get(GetCommand { namespace, key })),
        3 => (namespace(), small_bytes(8), small_bytes(64), ttl()).prop_map(
            |(namespace, key, value, ttl_milliseconds)| Command::Set(SetCommand {
                namespace,
                key,
                value,
                ttl_milliseconds,
            })
        ),
        2 => (namespace(), small_bytes(8))
            .prop_map(|(namespace, key)| Command::Delete(DeleteCommand { namespace, key })),
    ]
}

/// Any command message: mostly ones the port serves, some cancels, other
/// control codes, and empty ones.
fn cache_command() -> impl Strategy<Value = CacheCommand> {
    let id = prop_oneof![0..8u64, any::<u64>()];
    let code = prop_oneof![8 => Just(0u32), 1 => Just(1u32), 1 => any::<u32>()];
    let kind = prop::option::weighted(
        0.9,
        prop::option::weighted(0.95, command())
            .prop_map(|command| RpcKind::Unary(Unary { command })),
    );
    (id, code, kind).prop_map(|(message_id, control_code, rpc_kind)| CacheCommand {
        message_id,
        control_code,
        rpc_kind,
    })
}

/// A length prefix and that many bytes of noise: a frame, but likely no
/// command.
fn noise_frame() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..48).prop_map(|payload| {
        let mut bytes = Vec::new();
        prost::encode_length_delimiter(payload.len(), &mut bytes).unwrap();
        bytes.extend(payload);
        bytes
    })
}

/// Bytes for the port: well-formed frames of commands, noise frames,
/// lengths over the limit, raw noise, one after another.
fn stream() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => cache_command().prop_map(|c| c.encode_length_delimited_to_vec()),
        2 => noise_frame(),
        1 => (LIMIT as u64 + 1..u64::MAX).prop_map(|length| {
            let mut bytes = Vec::new();
            prost::encoding::encode_varint(length, &mut bytes);
            bytes
        }),
        2 => prop::collection::vec(any::<u8>(), 0..32),
    ];
    prop::collection::vec(piece, 0..6).prop_map(|pieces| pieces.concat())
}

/// Where a stream is cut: the sizes of its pieces, repeated.
fn cuts() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..40, 1..6)
}

// --- the frame reader ------------------------------------------------------

/// How a stream of frames ended.
#[derive(Debug, PartialEq)]
enum End {
    /// Between two frames.
    Clean,
    Error(FrameError),
}

/// Feeds `bytes` to a frame reader in pieces of the sizes in `cuts` (taken
/// in turn), then ends the stream; every command it yields, and how it
/// ended.
async fn read_all(bytes: &[u8], cuts: &[usize]) -> (Vec<CacheCommand>, End) {
    let (mut client, server) = tokio::io::duplex(256);
    let pieces: Vec<Vec<u8>> = {
        let (mut rest, mut sizes) = (bytes, cuts.iter().cycle());
        let mut pieces = Vec::new();
        while !rest.is_empty() {
            let size = (*sizes.next().unwrap()).min(rest.len());
            pieces.push(rest[..size].to_vec());
            rest = &rest[size..];
        }
        pieces
    };
    let writing = tokio::spawn(async move {
        for piece in pieces {
            // The reader may stop early (an error): the rest is not read.
            if client.write_all(&piece).await.is_err() {
                return;
            }
        }
    });
    let mut reader = FrameReader::new(server, LIMIT, Duration::from_secs(60));
    let mut commands = Vec::new();
    let end = loop {
        match reader.next().await {
            Ok(Some(frame)) => commands.push(frame.message),
            Ok(None) => break End::Clean,
            Err(error) => break End::Error(error),
        }
    };
    drop(reader);
    writing.await.unwrap();
    (commands, end)
}

#[test]
fn any_bytes_through_the_frame_reader() {
    let runtime = runtime();
    let mut runner = TestRunner::new(config(256));
    let input = (
        prop_oneof![stream(), prop::collection::vec(any::<u8>(), 0..256)],
        cuts(),
    );
    let outcome = runner.run(&input, |(bytes, cuts)| {
        runtime.block_on(async {
            let (commands, end) = read_all(&bytes, &cuts).await;
            let documented = match &end {
                End::Clean => true,
                End::Error(FrameError::TooLarge { size, limit, .. }) => size > limit,
                End::Error(FrameError::Garbage(_) | FrameError::Truncated) => true,
                // No budget here; no clock runs out.
                End::Error(FrameError::InFlightFull | FrameError::Stalled) => false,
            };
            prop_assert!(documented, "{end:?}");
            // The same, read in one piece.
            let whole = read_all(&bytes, &[bytes.len().max(1)]).await;
            prop_assert_eq!(&whole, &(commands, end));
            Ok(())
        })
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}

#[test]
fn well_formed_frames_come_out_whole_whatever_follows() {
    let runtime = runtime();
    let mut runner = TestRunner::new(config(256));
    let input = (
        prop::collection::vec(cache_command(), 0..8),
        prop::collection::vec(any::<u8>(), 0..16),
        cuts(),
    );
    let outcome = runner.run(&input, |(sent, tail, cuts)| {
        runtime.block_on(async {
            let mut bytes: Vec<u8> = sent
                .iter()
                .flat_map(|c| c.encode_length_delimited_to_vec())
                .collect();
            bytes.extend(&tail);
            let (read, end) = read_all(&bytes, &cuts).await;
            prop_assert!(read.len() >= sent.len(), "{} of {}", read.len(), sent.len());
            prop_assert_eq!(&read[..sent.len()], &sent[..]);
            if tail.is_empty() {
                prop_assert_eq!(read.len(), sent.len());
                prop_assert_eq!(end, End::Clean);
            }
            Ok(())
        })
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}

// --- the whole port ----------------------------------------------------------

/// What the port may answer any command with (auth is off, and the only
/// cache is `CACHE`): a result, or one of these errors.
const DOCUMENTED_ERRORS: &[Status] = &[
    Status::InvalidArgument,
    Status::NotFound,
    Status::Unimplemented,
    Status::ResourceExhausted,
];

#[test]
fn any_bytes_after_authenticate_on_a_real_port() {
    let runtime = runtime();
    let server = runtime.block_on(async {
        let server = TestServer::with_args(&[
            "--protosocket-listen",
            "127.0.0.1:0",
            "--max-key-size",
            "16B",
            "--max-value-size",
            "1KiB",
            "--max-request-size",
            "2KiB",
            "--max-ttl",
            "1h",
        ])
        .await;
        let mut control = ScsControlClient::new(server.channel().await);
        control
            .create_cache(CreateCacheRequest {
                cache_name: CACHE.into(),
            })
            .await
            .unwrap();
        server
    });
    let addr = server.protosocket_addr.unwrap();
    let mut runner = TestRunner::new(config(256));
    let outcome = runner.run(&stream(), |bytes| {
        runtime.block_on(async {
            let mut client = Client::open(addr, "").await;
            client.send_raw(&bytes).await;
            // The end of the stream: the server answers what it read, then
            // closes, whatever state the bytes left it in.
            client.stream.shutdown().await.unwrap();
            let answers = async {
                let mut answers = Vec::new();
                while let Some(answer) = client.recv().await {
                    answers.push(answer);
                }
                answers
            };
            let answers = tokio::time::timeout(PATIENCE, answers)
                .await
                .map_err(|_| TestCaseError::fail("the connection stayed open"))?;
            for answer in answers {
                match answer.kind {
                    Some(Kind::Error(error)) => prop_assert!(
                        DOCUMENTED_ERRORS.contains(&error.code()) && !error.message.is_empty(),
                        "{error:?}"
                    ),
                    Some(Kind::Auth(_) | Kind::Get(_) | Kind::Set(_) | Kind::Delete(_)) => {}
                    None => prop_assert!(false, "an answer of no kind"),
                }
            }
            Ok(())
        })
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    runtime.block_on(async {
        assert!(!server.handle.is_finished(), "the server stopped");
        // A hit or a miss, whatever the cases stored.
        let mut client = Client::open(addr, "").await;
        value_of(client.call(1, get(CACHE, "k")).await);
    });
}
