//! Bad input on the protosocket port (`--protosocket-listen`), against the
//! server binary: oversized and truncated frames, garbage instead of a
//! frame, a length prefix that never ends, unknown and empty commands,
//! commands before Authenticate, duplicate message ids in flight. Each gets
//! the answer README "The protosocket port" documents (an error answer on a
//! connection that stays open, or the connection closed and counted under
//! its reason); the process stays up, a new client is served, and a known
//! baseline of caches and items is unchanged, read over gRPC and over a new
//! protosocket connection.

use crate::common;

use std::net::SocketAddr;

use common::baseline::{Baseline, CACHE, ITEMS, OTHER_CACHE, TTL_MS};
use common::protosocket::{
    auth, command_frame, delete, error_of, frame, get, set, spawn_server, value_of,
    wait_for_closes, Client, AUTH_ID, PATIENCE,
};
use common::ServerProcess;
use jiffy_server::proto::protosocket::cache::cache_command::RpcKind;
use jiffy_server::proto::protosocket::cache::cache_response::Kind;
use jiffy_server::proto::protosocket::cache::{CacheCommand, Unary};
use jiffy_server::proto::protosocket::common::Status;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};

/// Short, so that a frame left incomplete is closed within the test.
const REQUEST_TIMEOUT: &str = "1s";

struct Server {
    process: ServerProcess,
    baseline: Baseline,
    /// The protosocket port.
    addr: SocketAddr,
}

impl Server {
    async fn start() -> Server {
        let process = spawn_server(&["--request-timeout", REQUEST_TIMEOUT]);
        let baseline = Baseline::create(&process.url(), process.metrics_addr).await;
        let addr = process.protosocket_addr.expect("a protosocket port");
        Server {
            process,
            baseline,
            addr,
        }
    }

    /// The connection closes on its own (answers read on the way must all
    /// be errors: nothing a garbage-sender could take for a result).
    async fn assert_closed(&self, client: &mut Client<TcpStream>, what: &str) {
        let closing = async {
            while let Some(answer) = client.recv().await {
                let kind = answer
                    .kind
                    .unwrap_or_else(|| panic!("{what}: an empty answer"));
                assert!(
                    matches!(kind, Kind::Error(_) | Kind::Auth(_)),
                    "{what}: answered {kind:?}"
                );
            }
        };
        tokio::time::timeout(PATIENCE, closing)
            .await
            .unwrap_or_else(|_| panic!("{what}: the connection stayed open"));
    }

    /// The process is alive, the baseline unchanged over gRPC, and a new
    /// protosocket client reads it too.
    async fn assert_unaffected(&mut self) {
        assert!(
            self.process.child.try_wait().unwrap().is_none(),
            "the server process exited"
        );
        self.baseline.assert_unchanged().await;
        let mut client = Client::open(self.addr, "").await;
        for (id, (cache, key, value)) in (1..).zip(ITEMS) {
            let read = value_of(client.call(id, get(cache, key)).await);
            assert_eq!(read.as_deref(), Some(value.as_bytes()), "{cache}/{key}");
        }
    }
}

/// A Set that would overwrite a baseline item, were it run.
fn overwrite() -> Vec<u8> {
    frame(1, set(CACHE, "k", b"new", TTL_MS))
}

/// A Set of `size` bytes of value over the baseline item "k", framed whole.
fn oversized_set(id: u64, size: usize) -> Vec<u8> {
    frame(id, set(CACHE, "k", &vec![b'o'; size], TTL_MS))
}

#[tokio::test]
async fn oversized_frames_are_refused_under_their_id() {
    let mut server = Server::start().await;
    // Over --max-request-size (5 MiB by default), before and after
    // Authenticate: skipped as it arrives, refused under its id, and the
    // connection goes on.
    for authenticated in [false, true] {
        let mut client = Client::connect(server.addr).await;
        if authenticated {
            client.call(AUTH_ID, auth("")).await;
        }
        let id = 41 + u64::from(authenticated);
        client.send_raw(&oversized_set(id, 6 << 20)).await;
        let refused = client.recv().await.expect("an answer, not a close");
        assert_eq!(refused.message_id, id);
        let (status, message) = error_of(refused.kind.unwrap());
        assert_eq!(status, Status::ResourceExhausted, "{message}");
        assert!(message.contains("--max-request-size"), "{message}");
        if !authenticated {
            client.call(AUTH_ID, auth("")).await;
        }
        let (cache, key, value) = ITEMS[0];
        let read = value_of(client.call(7, get(cache, key)).await);
        assert_eq!(read.as_deref(), Some(value.as_bytes()));
    }
    // A length no frame reaches (2^64 - 1, ten bytes): waited for until
    // --request-timeout, then the connection closes.
    let mut huge = Vec::new();
    prost::encoding::encode_varint(u64::MAX, &mut huge);
    let mut client = Client::connect(server.addr).await;
    client.send_raw(&huge).await;
    server
        .assert_closed(&mut client, "a frame that never ends")
        .await;
    wait_for_closes(&server.process, "bad_frame", 1.0).await;
    server.assert_unaffected().await;
}

#[tokio::test]
async fn truncated_frames_then_close() {
    let mut server = Server::start().await;
    let whole = [frame(AUTH_ID, auth("")), overwrite()].concat();
    let auth_len = frame(AUTH_ID, auth("")).len();
    let cases: [(&str, &[u8]); 4] = [
        ("half an Authenticate", &whole[..auth_len / 2]),
        ("a Set short of one byte", &whole[..whole.len() - 1]),
        ("a length prefix cut short", &[0x80]),
        ("a length and nothing else", &[0x20]),
    ];
    for (what, bytes) in cases {
        let mut client = Client::connect(server.addr).await;
        client.send_raw(bytes).await;
        client.stream.shutdown().await.unwrap();
        server.assert_closed(&mut client, what).await;
    }
    wait_for_closes(&server.process, "bad_frame", cases.len() as f64).await;
    server.assert_unaffected().await;
}

/// Other protocols' first bytes, and noise. Some read as a length longer
/// than what follows: those are closed once `--request-timeout` passes.
#[tokio::test]
async fn garbage_instead_of_a_frame() {
    let mut server = Server::start().await;
    let tls_client_hello = [
        &b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"[..],
        &[0x42; 53],
    ]
    .concat();
    let cases: [(&str, Vec<u8>); 6] = [
        ("noise with every high bit set", vec![0xab; 4096]),
        (
            "the HTTP/2 preface",
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec(),
        ),
        (
            "an HTTP/1.1 request",
            b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".to_vec(),
        ),
        ("a TLS ClientHello", tls_client_hello),
        // A frame of three bytes that decode as no message: field 0.
        ("a frame that is no message", vec![3, 0x03, 0x00, 0x00]),
        // A gRPC-framed message of 300 bytes: its prefix is three empty
        // commands (answered UNIMPLEMENTED), then a frame of one byte that
        // is no message (0x2c: an end-group tag).
        (
            "a gRPC message",
            [&[0, 0, 0, 0x01, 0x2c][..], &[0x0a; 300]].concat(),
        ),
    ];
    for (what, bytes) in &cases {
        let mut client = Client::connect(server.addr).await;
        client.send_raw(bytes).await;
        server.assert_closed(&mut client, what).await;
    }
    wait_for_closes(&server.process, "bad_frame", cases.len() as f64).await;
    server.assert_unaffected().await;
}

#[tokio::test]
async fn a_length_prefix_that_never_ends() {
    let mut server = Server::start().await;
    // Continuation bits past the ten bytes a varint may take: closed at
    // once. Nine of them and silence: closed after --request-timeout.
    // After a valid Authenticate, the same.
    let endless = vec![0x80; 64];
    let unfinished = vec![0x80; 9];
    let after_auth = [frame(AUTH_ID, auth("")), vec![0xff; 11]].concat();
    for (what, bytes) in [
        ("64 continuation bytes", endless),
        ("9 continuation bytes, then silence", unfinished),
        ("11 continuation bytes after Authenticate", after_auth),
    ] {
        let mut client = Client::connect(server.addr).await;
        client.send_raw(&bytes).await;
        server.assert_closed(&mut client, what).await;
    }
    wait_for_closes(&server.process, "bad_frame", 3.0).await;
    server.assert_unaffected().await;
}

#[tokio::test]
async fn unknown_and_empty_commands_are_answered() {
    let mut server = Server::start().await;
    let mut client = Client::open(server.addr, "").await;
    let no_kind = CacheCommand {
        message_id: 1,
        control_code: 0,
        rpc_kind: None,
    };
    let no_command = CacheCommand {
        message_id: 2,
        control_code: 0,
        rpc_kind: Some(RpcKind::Unary(Unary { command: None })),
    };
    // Message id 3, and a Unary whose command is field 99, which this
    // server does not know: as a newer client would send a newer command.
    let unknown = [0x10, 0x03, 0x52, 0x03, 0x9a, 0x06, 0x00];
    let unknown_frame = [&[unknown.len() as u8][..], &unknown].concat();
    // A frame of length 0: an empty command, message id 0.
    let empty_frame = vec![0];
    for (id, bytes) in [
        (1, command_frame(no_kind)),
        (2, command_frame(no_command)),
        (3, unknown_frame),
        (0, empty_frame),
    ] {
        client.send_raw(&bytes).await;
        let answer = client.recv().await.expect("the connection stays open");
        assert_eq!(answer.message_id, id);
        let (code, message) = error_of(answer.kind.unwrap());
        assert_eq!(code, Status::Unimplemented, "{id}");
        assert!(message.contains("unknown command"), "{message}");
    }
    for control_code in [2, 9, u32::MAX] {
        let odd = CacheCommand {
            message_id: 4,
            control_code,
            rpc_kind: Some(RpcKind::Unary(Unary {
                command: Some(delete(CACHE, "k")),
            })),
        };
        client.send_raw(&command_frame(odd)).await;
        let (code, message) = error_of(client.recv().await.unwrap().kind.unwrap());
        assert_eq!(code, Status::InvalidArgument);
        assert!(message.contains("control code"), "{message}");
    }
    // The same connection still serves.
    let read = value_of(client.call(5, get(CACHE, "k")).await);
    assert_eq!(read.as_deref(), Some(&b"old"[..]));
    server.assert_unaffected().await;
}

#[tokio::test]
async fn commands_before_authenticate_are_refused_and_not_run() {
    let mut server = Server::start().await;
    let mut client = Client::connect(server.addr).await;
    for (id, command) in [
        (1, set(CACHE, "k", b"new", TTL_MS)),
        (2, delete(OTHER_CACHE, "k")),
        (3, get(CACHE, "k")),
    ] {
        let (code, message) = error_of(client.call(id, command).await);
        assert_eq!(code, Status::Unauthenticated);
        assert!(message.contains("authenticate first"), "{message}");
    }
    // A failed Authenticate leaves it unauthenticated: with auth off there
    // is no such thing, so a good one opens the connection at last.
    assert_eq!(
        client.call(AUTH_ID, auth("")).await,
        Kind::Auth(Default::default())
    );
    let read = value_of(client.call(4, get(CACHE, "k")).await);
    assert_eq!(read.as_deref(), Some(&b"old"[..]));
    server.assert_unaffected().await;
}

/// The answer frames of this test: 128 KiB each, so that a few hundred fill
/// the socket and the server's queue of answers.
const PADDING: usize = 128 << 10;

/// Holds commands in flight: Gets whose answers cannot be written, because
/// this client reads nothing until the test says so, and its receive
/// buffer is small. Enough of them to fill the server's send buffer (the
/// largest the kernel lets it grow to) and its queue of 100 answers, and a
/// few more, which then wait with their answers in hand.
fn enough_to_stall() -> usize {
    let send_buffer_max = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_wmem")
        .ok()
        .and_then(|s| s.split_whitespace().nth(2)?.parse::<usize>().ok())
        .unwrap_or(4 << 20);
    send_buffer_max / PADDING + 100 + 40
}

#[tokio::test]
async fn a_duplicate_message_id_gets_one_answer_per_command() {
    let mut server = Server::start().await;
    let mut writer = Client::open(server.addr, "").await;
    writer
        .call(1, set(CACHE, "padding", &vec![7; PADDING], TTL_MS))
        .await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(16 << 10).unwrap();
    let mut client = Client::over(socket.connect(server.addr).await.unwrap());
    assert_eq!(
        client.call(AUTH_ID, auth("")).await,
        Kind::Auth(Default::default())
    );
    let stalled = enough_to_stall() as u64;
    let mut batch = Vec::new();
    for id in 1..=stalled {
        batch.extend(frame(id, get(CACHE, "padding")));
    }
    // The first Set under id 0 runs; if its answer has to wait for room
    // (the socket and the queue of answers are full), the second meets it
    // in flight and is refused. On the embedded store a command runs in
    // line as it is read, so when the queue still had room, the first was
    // answered before the second was read, and both run: the unit test
    // `a_duplicate_id_in_flight_is_refused_and_the_first_runs` holds the
    // refusal itself. Either way each command gets exactly one answer and
    // the cache holds what the commands that ran wrote.
    const DUPLICATE: u64 = 0;
    batch.extend(frame(DUPLICATE, set(CACHE, "dup", b"first", TTL_MS)));
    batch.extend(frame(DUPLICATE, set(CACHE, "dup", b"second", TTL_MS)));
    client.send_raw(&batch).await;
    let (mut hits, mut set, mut refused) = (0, 0, 0);
    for _ in 0..stalled + 2 {
        let answer = client.recv().await.expect("the connection stays open");
        match (answer.message_id, answer.kind.unwrap()) {
            (DUPLICATE, Kind::Set(_)) => set += 1,
            (DUPLICATE, kind) => {
                let (code, message) = error_of(kind);
                assert_eq!(code, Status::InvalidArgument);
                assert!(message.contains("already in flight"), "{message}");
                refused += 1;
            }
            (_, kind) => {
                assert_eq!(value_of(kind).map(|v| v.len()), Some(PADDING));
                hits += 1;
            }
        }
    }
    assert_eq!(hits, stalled);
    assert!(
        (set, refused) == (1, 1) || (set, refused) == (2, 0),
        "{set} sets, {refused} refused"
    );
    let last_run: &[u8] = if refused == 1 { b"first" } else { b"second" };
    let read = value_of(writer.call(2, get(CACHE, "dup")).await);
    assert_eq!(read.as_deref(), Some(last_run));
    // The test's own items aside, the baseline is as it was.
    writer.call(3, delete(CACHE, "dup")).await;
    writer.call(4, delete(CACHE, "padding")).await;
    server.assert_unaffected().await;
}
