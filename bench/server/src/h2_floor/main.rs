//! jiffy-bench-h2-floor: the least any gRPC server built on the h2 crate
//! spends on a call, to set beside jiffy-server's gRPC port in
//! `bench/server/run.sh` (`TARGETS="h2-floor grpc redis"`).
//!
//! It answers the load client's Get and Set from a `HashMap` behind a lock,
//! and any other call (the client's CreateCache) with an empty message, on
//! h2's server connection alone: no hyper, no tonic, no tower layers, no
//! task per stream (each connection's task polls its streams itself), no
//! metrics, auth, limits or deadlines. Whatever it costs a call is what h2,
//! tokio and the kernel cost; a server doing a cache's real work over h2
//! can only cost more.
//!
//! A measuring tool only: it bounds nothing, trusts its client, and never
//! runs outside this benchmark.

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use futures_util::stream::{FuturesUnordered, StreamExt};
use http::{HeaderMap, HeaderValue, Request, Response};
use jiffy_server::proto::cache_client::{
    ECacheResult, GetRequest, GetResponse, SetRequest, SetResponse,
};
use prost::Message;
use tokio::net::{TcpListener, TcpStream};

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

type Items = Arc<Mutex<HashMap<Bytes, Bytes>>>;

/// The gRPC message prefix: a compression flag and a 4-byte length.
const PREFIX: usize = 5;

fn main() -> ExitCode {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into());
    // One worker, as jiffy-server runs when pinned to one core.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("cannot start the tokio runtime");
    runtime.block_on(async {
        let listener = match TcpListener::bind(&address).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("jiffy-bench-h2-floor: cannot listen on {address}: {error}");
                return ExitCode::FAILURE;
            }
        };
        // The line bench/ports.sh's listening_port reads.
        match listener.local_addr() {
            Ok(bound) => println!("listening on {bound}"),
            Err(error) => {
                eprintln!("jiffy-bench-h2-floor: {error}");
                return ExitCode::FAILURE;
            }
        }
        let items = Items::default();
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                continue;
            };
            tokio::spawn(serve(socket, items.clone()));
        }
    })
}

/// One connection: accepted streams are answered by futures this task polls
/// beside `accept`, not by tasks of their own.
async fn serve(socket: TcpStream, items: Items) {
    let _ = socket.set_nodelay(true);
    let Ok(mut connection) = h2::server::handshake(socket).await else {
        return;
    };
    let mut streams = FuturesUnordered::new();
    loop {
        tokio::select! {
            accepted = connection.accept() => match accepted {
                Some(Ok((request, respond))) => streams.push(answer(request, respond, items.clone())),
                _ => return,
            },
            Some(()) = streams.next(), if !streams.is_empty() => {}
        }
    }
}

async fn answer(
    request: Request<h2::RecvStream>,
    mut respond: h2::server::SendResponse<Bytes>,
    items: Items,
) {
    let is_get = request.uri().path().ends_with("/Get");
    let is_set = request.uri().path().ends_with("/Set");
    let mut body = request.into_body();
    let mut message = BytesMut::new();
    while let Some(Ok(chunk)) = body.data().await {
        let _ = body.flow_control().release_capacity(chunk.len());
        message.extend_from_slice(&chunk);
    }
    if message.len() >= PREFIX {
        message.advance(PREFIX);
    }
    let message = message.freeze();
    let reply = if is_get {
        let key = GetRequest::decode(message).unwrap_or_default().cache_key;
        let value = items.lock().expect("items lock").get(&key).cloned();
        let result = if value.is_some() {
            ECacheResult::Hit
        } else {
            ECacheResult::Miss
        };
        framed(&GetResponse {
            result: result as i32,
            cache_body: value.unwrap_or_default(),
            ..Default::default()
        })
    } else if is_set {
        let set = SetRequest::decode(message).unwrap_or_default();
        items
            .lock()
            .expect("items lock")
            .insert(set.cache_key, set.cache_body);
        framed(&SetResponse {
            result: ECacheResult::Ok as i32,
            ..Default::default()
        })
    } else {
        framed(&SetResponse::default())
    };
    let head = Response::builder()
        .header("content-type", "application/grpc")
        .body(())
        .expect("a static response head");
    let Ok(mut send) = respond.send_response(head, false) else {
        return;
    };
    let _ = send.send_data(reply, false);
    let mut trailers = HeaderMap::new();
    trailers.insert("grpc-status", HeaderValue::from_static("0"));
    let _ = send.send_trailers(trailers);
}

/// `message` as a gRPC length-prefixed message.
fn framed<M: Message>(message: &M) -> Bytes {
    let len = message.encoded_len();
    let mut out = BytesMut::with_capacity(PREFIX + len);
    out.put_u8(0);
    out.put_u32(len as u32);
    message
        .encode(&mut out)
        .expect("room reserved for the message");
    out.freeze()
}
