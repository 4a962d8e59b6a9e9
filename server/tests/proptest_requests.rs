//! Property tests of request handling over a real server (in the test's
//! runtime, reached over sockets):
//!
//! - any bytes as the message of any call never break the server, and each
//!   answer is either a message that decodes as the call's response or a
//!   status the call can give;
//! - keys, values, TTLs and batches drawn within and over the limits get
//!   exactly the status the limits table gives, and only accepted writes
//!   change what is stored.
//!
//! Short by default (256 and 128 cases, a few seconds). The long run:
//!
//! ```sh
//! PROPTEST_CASES=100000 cargo test --release -p jiffy-server --test integration -- proptest_requests::
//! ```
//!
//! proptest rather than cargo-fuzz: it runs on stable Rust inside `cargo
//! test`; cargo-fuzz needs a nightly toolchain.

use crate::common;

use std::collections::HashMap;

use bytes::Bytes;
use common::{in_cache, raw_grpc, TestServer};
use jiffy_server::proto::cache_client as cc;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::control_client as ctl;
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use prost::Message;
use tonic::transport::Channel;
use tonic::Code;

const MAX_KEY: usize = 16;
const MAX_VALUE: usize = 1024;
const MAX_REQUEST: usize = 4096;
const MAX_TTL_MS: u64 = 3_600_000;
const ARGS: &[&str] = &[
    "--max-key-size",
    "16B",
    "--max-value-size",
    "1KiB",
    "--max-request-size",
    "4KiB",
    "--max-ttl",
    "1h",
];
const CACHE: &str = "c";

/// `PROPTEST_CASES` when set (the long run), else `default` cases. Shrunk
/// failures are printed, not saved: these runners share one server.
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

/// Back to one cache, `CACHE`: any bytes sent to CreateCache or DeleteCache
/// may well decode as a valid name, or as `CACHE`.
async fn reset_caches(channel: &Channel) {
    let mut control = ScsControlClient::new(channel.clone());
    let caches = control
        .list_caches(ctl::ListCachesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .cache;
    for cache in caches.into_iter().filter(|c| c.cache_name != CACHE) {
        let delete = ctl::DeleteCacheRequest {
            cache_name: cache.cache_name,
        };
        control.delete_cache(delete).await.unwrap();
    }
    ensure_cache(channel).await;
}

async fn ensure_cache(channel: &Channel) {
    let create = ctl::CreateCacheRequest {
        cache_name: CACHE.into(),
    };
    match ScsControlClient::new(channel.clone())
        .create_cache(create)
        .await
    {
        Ok(_) => {}
        Err(status) => assert_eq!(status.code(), Code::AlreadyExists, "{status:?}"),
    }
}

// --- any bytes as any call's message -------------------------------------

/// Whether bytes decode as a call's response message.
type Decodes = fn(&[u8]) -> bool;

/// Every call served, whether it streams, and whether an answer decodes as
/// its response message.
const CALLS: &[(&str, bool, Decodes)] = &[
    ("/cache_client.Scs/Get", false, |b| {
        cc::GetResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/GetBatch", true, |b| {
        cc::GetResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/Set", false, |b| {
        cc::SetResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetBatch", true, |b| {
        cc::SetResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetIf", false, |b| {
        cc::SetIfResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetIfNotExists", false, |b| {
        cc::SetIfNotExistsResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/Delete", false, |b| {
        cc::DeleteResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/KeysExist", false, |b| {
        cc::KeysExistResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/Increment", false, |b| {
        cc::IncrementResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/UpdateTtl", false, |b| {
        cc::UpdateTtlResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ItemGetTtl", false, |b| {
        cc::ItemGetTtlResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ItemGetType", false, |b| {
        cc::ItemGetTypeResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListPushFront", false, |b| {
        cc::ListPushFrontResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListPushBack", false, |b| {
        cc::ListPushBackResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListConcatenateFront", false, |b| {
        cc::ListConcatenateFrontResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListConcatenateBack", false, |b| {
        cc::ListConcatenateBackResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListPopFront", false, |b| {
        cc::ListPopFrontResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListPopBack", false, |b| {
        cc::ListPopBackResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListFetch", false, |b| {
        cc::ListFetchResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListLength", false, |b| {
        cc::ListLengthResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListRetain", false, |b| {
        cc::ListRetainResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListRemove", false, |b| {
        cc::ListRemoveResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/ListErase", false, |b| {
        cc::ListEraseResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetUnion", false, |b| {
        cc::SetUnionResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetDifference", false, |b| {
        cc::SetDifferenceResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetFetch", false, |b| {
        cc::SetFetchResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetContains", false, |b| {
        cc::SetContainsResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetLength", false, |b| {
        cc::SetLengthResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetPop", false, |b| {
        cc::SetPopResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SetSample", false, |b| {
        cc::SetSampleResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/DictionaryGet", false, |b| {
        cc::DictionaryGetResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/DictionaryFetch", false, |b| {
        cc::DictionaryFetchResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/DictionarySet", false, |b| {
        cc::DictionarySetResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/DictionaryIncrement", false, |b| {
        cc::DictionaryIncrementResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/DictionaryDelete", false, |b| {
        cc::DictionaryDeleteResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/DictionaryLength", false, |b| {
        cc::DictionaryLengthResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SortedSetPut", false, |b| {
        cc::SortedSetPutResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SortedSetFetch", false, |b| {
        cc::SortedSetFetchResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SortedSetGetScore", false, |b| {
        cc::SortedSetGetScoreResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SortedSetGetRank", false, |b| {
        cc::SortedSetGetRankResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SortedSetIncrement", false, |b| {
        cc::SortedSetIncrementResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SortedSetRemove", false, |b| {
        cc::SortedSetRemoveResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SortedSetLength", false, |b| {
        cc::SortedSetLengthResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SortedSetLengthByScore", false, |b| {
        cc::SortedSetLengthByScoreResponse::decode(b).is_ok()
    }),
    ("/cache_client.Scs/SortedSetUnionStore", false, |b| {
        cc::SortedSetUnionStoreResponse::decode(b).is_ok()
    }),
    ("/control_client.ScsControl/CreateCache", false, |b| {
        ctl::CreateCacheResponse::decode(b).is_ok()
    }),
    ("/control_client.ScsControl/DeleteCache", false, |b| {
        ctl::DeleteCacheResponse::decode(b).is_ok()
    }),
    ("/control_client.ScsControl/ListCaches", false, |b| {
        ctl::ListCachesResponse::decode(b).is_ok()
    }),
    ("/control_client.ScsControl/FlushCache", false, |b| {
        ctl::FlushCacheResponse::decode(b).is_ok()
    }),
    ("/cache_client.Ping/Ping", false, |b| {
        cc::PingResponse::decode(b).is_ok()
    }),
];

/// Calls that are not served: UNIMPLEMENTED naming the call (or the path,
/// outside the catalogue). A call of the catalogue decodes its message first,
/// so a body that is not its message is refused as for a served call.
const NOT_SERVED: &[&str] = &["/no.such.Service/Call"];

/// Whether field `number` is sent length-delimited (bytes, strings and
/// messages) rather than as a varint, given a roll of 0..10. Biased towards
/// the type the request messages give each number (1: a key or name, 3: a
/// TTL), so most bodies decode and reach the handlers; the rest test the
/// decoder.
fn length_delimited(number: u64, roll: u8) -> bool {
    match number {
        1 => roll < 9,
        3 => roll < 1,
        _ => roll < 5,
    }
}

/// Small numbers (TTLs, amounts, oneof choices) and any u64.
fn varint_value() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..100_000, any::<u64>()]
}

/// A field of a nested message: a bytes or varint field numbered 1 to 4.
fn inner_field() -> BoxedStrategy<Vec<u8>> {
    (1u64..5, 0u8..10)
        .prop_flat_map(|(number, roll)| {
            if length_delimited(number, roll) {
                prop::collection::vec(any::<u8>(), 0..24)
                    .prop_map(move |bytes| len_field(number, bytes))
                    .boxed()
            } else {
                varint_value()
                    .prop_map(move |v| [varint(number << 3), varint(v)].concat())
                    .boxed()
            }
        })
        .boxed()
}

/// A top-level field: bytes, a nested message (batch items, the oneofs of
/// SetIf and UpdateTtl), a varint, or now and then a fixed-width field.
fn field() -> BoxedStrategy<Vec<u8>> {
    (1u64..10, 0u8..10)
        .prop_flat_map(|(number, roll)| {
            if length_delimited(number, roll) {
                prop_oneof![
                    prop::collection::vec(any::<u8>(), 0..40),
                    prop::collection::vec(inner_field(), 0..4).prop_map(|f| f.concat()),
                ]
                .prop_map(move |payload| len_field(number, payload))
                .boxed()
            } else {
                prop_oneof![
                    9 => varint_value().prop_map(move |v| [varint(number << 3), varint(v)].concat()),
                    1 => any::<u64>().prop_map(move |v| {
                        [varint(number << 3 | 1), v.to_le_bytes().to_vec()].concat()
                    }),
                ]
                .boxed()
            }
        })
        .boxed()
}

fn len_field(number: u64, payload: Vec<u8>) -> Vec<u8> {
    [
        varint(number << 3 | 2),
        varint(payload.len() as u64),
        payload,
    ]
    .concat()
}

fn varint(mut value: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            bytes.push(byte);
            return bytes;
        }
        bytes.push(byte | 0x80);
    }
}

/// Raw bytes (mostly undecodable), or well-formed fields after a field 1
/// that is usually a short name or key, so that many bodies decode and reach
/// the handlers with random keys, values, TTLs and oneofs.
fn body() -> impl Strategy<Value = Bytes> {
    let first = prop_oneof![
        3 => "[a-z0-9]{1,20}".prop_map(|name| len_field(1, name.into_bytes())),
        1 => Just(len_field(1, CACHE.as_bytes().to_vec())),
        1 => field(),
    ];
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..64),
        3 => (first, prop::collection::vec(field(), 0..5))
            .prop_map(|(first, rest)| [first, rest.concat()].concat()),
    ]
    .prop_map(Bytes::from)
}

/// Which cache header a call carries.
fn cache_header() -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![8 => Just(Some(CACHE)), 1 => Just(Some("no-such-cache")), 1 => Just(None)]
}

#[test]
fn any_bytes_as_any_message() {
    let runtime = runtime();
    let (server, channel) = runtime.block_on(async {
        let server = TestServer::with_args(ARGS).await;
        let channel = server.channel().await;
        ensure_cache(&channel).await;
        (server, channel)
    });
    let call = (0..CALLS.len() + NOT_SERVED.len(), body(), cache_header());
    let mut runner = TestRunner::new(config(256));
    let outcome = runner.run(&call, |(index, body, cache)| {
        runtime.block_on(async {
            let served = CALLS.get(index);
            let path = served.map_or_else(|| NOT_SERVED[index - CALLS.len()], |c| c.0);
            let streaming = served.is_some_and(|c| c.1);
            let answer = raw_grpc::call(channel.clone(), path, cache, body, streaming).await;
            match (served, answer) {
                (Some((_, _, decodes)), Ok(messages)) => {
                    for message in messages {
                        prop_assert!(
                            decodes(&message),
                            "{path}: answer {message:?} does not decode"
                        );
                    }
                }
                (Some(_), Err(status)) => {
                    let allowed = [
                        Code::InvalidArgument,
                        Code::NotFound,
                        Code::AlreadyExists,
                        Code::FailedPrecondition,
                        Code::ResourceExhausted,
                    ];
                    let undecodable =
                        status.code() == Code::Internal && status.message().contains("decode");
                    prop_assert!(
                        allowed.contains(&status.code()) || undecodable,
                        "{path}: {status:?}"
                    );
                    prop_assert!(
                        !status.message().is_empty(),
                        "{path}: a status without words"
                    );
                }
                (None, answer) => {
                    let status = answer.expect_err(path);
                    let name = path.rsplit('/').next().unwrap();
                    let named =
                        status.code() == Code::Unimplemented && status.message().contains(name);
                    let undecodable = status.code() == Code::Internal
                        && status.message().contains("decode")
                        && jiffy_server::rpcs::find(path).is_some();
                    prop_assert!(named || undecodable, "{path}: {status:?}");
                }
            }
            reset_caches(&channel).await;
            Ok(())
        })
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    runtime.block_on(async {
        assert!(!server.handle.is_finished(), "the server stopped");
        let mut ping = cc::ping_client::PingClient::new(server.channel().await);
        ping.ping(cc::PingRequest {}).await.unwrap();
    });
}

// --- keys, values, TTLs and batches around the limits ----------------------

/// A write or read of a key drawn around the limits.
#[derive(Debug, Clone)]
enum Op {
    Set(cc::SetRequest),
    SetBatch(Vec<cc::SetRequest>),
    Get(Bytes),
}

/// Keys of three letters, at lengths around the limit: often the same key.
fn key() -> impl Strategy<Value = Bytes> {
    let length = prop_oneof![Just(0usize), 1..4usize, MAX_KEY - 1..MAX_KEY + 3];
    (length, 0u8..3).prop_map(|(length, letter)| Bytes::from(vec![b'a' + letter; length]))
}

fn value() -> impl Strategy<Value = Bytes> {
    let length = prop_oneof![0..8usize, MAX_VALUE - 2..MAX_VALUE + 3];
    (length, any::<u8>()).prop_map(|(length, fill)| Bytes::from(vec![fill; length]))
}

/// Valid TTLs are long enough that nothing expires during a case.
fn ttl_ms() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 60_000..=MAX_TTL_MS,
        1 => Just(0u64),
        1 => MAX_TTL_MS + 1..=u64::MAX,
        1 => Just(u64::MAX),
    ]
}

fn set_request() -> impl Strategy<Value = cc::SetRequest> {
    (key(), value(), ttl_ms()).prop_map(|(cache_key, cache_body, ttl_milliseconds)| {
        cc::SetRequest {
            cache_key,
            cache_body,
            ttl_milliseconds,
        }
    })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => set_request().prop_map(Op::Set),
        1 => prop::collection::vec(set_request(), 1..7).prop_map(Op::SetBatch),
        3 => key().prop_map(Op::Get),
    ]
}

/// The status the limits table gives a key, or none.
fn key_fault(key: &[u8]) -> Option<Code> {
    (key.is_empty() || key.len() > MAX_KEY).then_some(Code::InvalidArgument)
}

/// The status (and `err` reason) the limits table gives one item, checked
/// in the server's order: key, value, TTL.
fn item_fault(item: &cc::SetRequest) -> Option<(Code, Option<&'static str>)> {
    if let Some(code) = key_fault(&item.cache_key) {
        return Some((code, None));
    }
    if item.cache_body.len() > MAX_VALUE {
        return Some((Code::ResourceExhausted, Some("item_size_limit_exceeded")));
    }
    let ttl = item.ttl_milliseconds;
    (ttl == 0 || ttl > MAX_TTL_MS).then_some((Code::InvalidArgument, None))
}

fn request_fault(message: &impl Message) -> Option<(Code, Option<&'static str>)> {
    (message.encoded_len() > MAX_REQUEST)
        .then_some((Code::ResourceExhausted, Some("request_size_limit_exceeded")))
}

fn fault_of<T>(answer: &Result<T, tonic::Status>) -> Option<(Code, Option<String>)> {
    answer.as_ref().err().map(|status| {
        let err = status
            .metadata()
            .get("err")
            .map(|v| v.to_str().unwrap().to_owned());
        (status.code(), err)
    })
}

fn owned(fault: Option<(Code, Option<&'static str>)>) -> Option<(Code, Option<String>)> {
    fault.map(|(code, reason)| (code, reason.map(str::to_owned)))
}

#[test]
fn limits_give_the_documented_status() {
    let runtime = runtime();
    let (_server, channel) = runtime.block_on(async {
        let server = TestServer::with_args(ARGS).await;
        let channel = server.channel().await;
        ensure_cache(&channel).await;
        (server, channel)
    });
    let mut runner = TestRunner::new(config(128));
    let outcome = runner.run(&prop::collection::vec(op(), 1..24), |ops| {
        runtime.block_on(async {
            let flush = ctl::FlushCacheRequest {
                cache_name: CACHE.into(),
            };
            ScsControlClient::new(channel.clone())
                .flush_cache(flush)
                .await
                .unwrap();
            let mut data = ScsClient::new(channel.clone());
            let mut model: HashMap<Bytes, Bytes> = HashMap::new();
            for op in ops {
                match op {
                    Op::Set(item) => {
                        let expected = request_fault(&item).or_else(|| item_fault(&item));
                        let answer = data.set(in_cache(CACHE, item.clone())).await;
                        prop_assert_eq!(fault_of(&answer), owned(expected), "Set {:?}", item);
                        if expected.is_none() {
                            model.insert(item.cache_key, item.cache_body);
                        }
                    }
                    Op::SetBatch(items) => {
                        let batch = cc::SetBatchRequest { items };
                        let expected = request_fault(&batch)
                            .or_else(|| batch.items.iter().find_map(item_fault));
                        let answer = data.set_batch(in_cache(CACHE, batch.clone())).await;
                        prop_assert_eq!(fault_of(&answer), owned(expected), "SetBatch");
                        if expected.is_none() {
                            let mut answers = answer.unwrap().into_inner();
                            let mut count = 0;
                            while let Some(answer) = answers.message().await.unwrap() {
                                prop_assert_eq!(answer.result(), cc::ECacheResult::Ok);
                                count += 1;
                            }
                            prop_assert_eq!(count, batch.items.len());
                            for item in batch.items {
                                model.insert(item.cache_key, item.cache_body);
                            }
                        }
                    }
                    Op::Get(key) => {
                        let get = cc::GetRequest {
                            cache_key: key.clone(),
                        };
                        let answer = data.get(in_cache(CACHE, get)).await;
                        let expected = key_fault(&key).map(|code| (code, None));
                        prop_assert_eq!(fault_of(&answer), expected, "Get {:?}", key);
                        if let Ok(answer) = answer {
                            let answer = answer.into_inner();
                            match model.get(&key) {
                                Some(value) => {
                                    prop_assert_eq!(answer.result(), cc::ECacheResult::Hit);
                                    prop_assert_eq!(&answer.cache_body, value);
                                }
                                None => prop_assert_eq!(answer.result(), cc::ECacheResult::Miss),
                            }
                        }
                    }
                }
            }
            Ok(())
        })
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}
