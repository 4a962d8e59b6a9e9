//! Amplification: small requests that name one large thing many times, so
//! that a naive server builds (or reads) it once per naming. A DictionaryGet
//! of one 512 KiB field named 10,000 times is a 30 KB request whose answer
//! is 5 GB; a SortedSetUnionStore naming one set 10,000 times copied the set
//! 10,000 times before the union. The server must size an answer before it
//! builds it (`--max-response-size`) and count a union's work before it
//! reads a source (`--max-collection-elements`), refusing either with
//! RESOURCE_EXHAUSTED, and the rest of its clients must not notice.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::sorted_set_union_store_request::{
    AggregateFunction, Source,
};
use jiffy_server::proto::cache_client::{
    DictionaryFieldValuePair, DictionaryGetRequest, DictionarySetRequest, GetBatchRequest,
    GetRequest, SetLengthRequest, SetPopRequest, SetUnionRequest, SortedSetElement,
    SortedSetPutRequest, SortedSetUnionStoreRequest,
};
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::common::attack::{self, Ctx, Outcome, Setup, Target, BIG_KEY, CACHE};
use crate::common::in_cache;
use crate::common::redis_cluster::RedisCluster;

/// How many times one request names the same field or source: the most a
/// request may carry (`--max-request-items`).
const NAMINGS: usize = 10_000;
/// Attackers calling at once, each on its own connection.
const ATTACKERS: usize = 2;
const DICTIONARY: &[u8] = b"amplified-dictionary";
const FIELD: &[u8] = b"f";
const SORTED_SET: &[u8] = b"amplified-set";
const HOUR_MS: u64 = 3_600_000;

/// What the attackers' calls answered.
#[derive(Default)]
struct Answers {
    /// Refused RESOURCE_EXHAUSTED naming the flag that bounds the call.
    refused: AtomicU64,
    /// Anything else: an answer, or another status (the first one kept).
    other: AtomicU64,
    first_other: Mutex<Option<String>>,
    /// Bytes of values the attackers received: what the requests made the
    /// server send.
    received: AtomicU64,
}

impl Answers {
    fn record<T>(&self, answer: Result<T, Status>, flag: &str) {
        match answer {
            Err(status)
                if status.code() == Code::ResourceExhausted && status.message().contains(flag) =>
            {
                self.refused.fetch_add(1, Ordering::Relaxed);
            }
            other => {
                self.other.fetch_add(1, Ordering::Relaxed);
                let seen = match other {
                    Ok(_) => "an answer".to_owned(),
                    Err(status) => format!("{:?}: {}", status.code(), status.message()),
                };
                self.first_other.lock().unwrap().get_or_insert(seen);
            }
        }
    }

    /// Every call was refused, naming `flag`, and some were made.
    fn require_all_refused(&self, outcome: &mut Outcome, flag: &str) {
        let refused = self.refused.load(Ordering::Relaxed);
        let other = self.other.load(Ordering::Relaxed);
        let received = self.received.load(Ordering::Relaxed) >> 20;
        eprintln!("    {refused} calls refused naming {flag}, {other} not; {received} MiB of values received");
        outcome.require(
            refused > 0 && other == 0,
            format!(
                "{refused} calls refused RESOURCE_EXHAUSTED naming {flag}, {other} answered otherwise (first: {:?})",
                self.first_other.lock().unwrap()
            ),
        );
    }
}

/// A data-plane client on a connection of its own, accepting any answer
/// size: what the server refuses is its doing, not the client's.
async fn client(ctx_addr: std::net::SocketAddr) -> Option<ScsClient<Channel>> {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{ctx_addr}"))
        .ok()?
        .connect()
        .await
        .ok()?;
    Some(
        ScsClient::new(channel)
            .max_decoding_message_size(usize::MAX)
            .max_encoding_message_size(usize::MAX),
    )
}

/// Runs `call` in a loop on [`ATTACKERS`] connections until the attack ends.
async fn repeat<F, Fut>(ctx: Ctx, call: F)
where
    F: Fn(ScsClient<Channel>) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let call = Arc::new(call);
    let attackers: Vec<_> = (0..ATTACKERS)
        .map(|_| {
            let (ctx, call) = (ctx.clone(), call.clone());
            tokio::spawn(async move {
                let Some(client) = client(ctx.addr).await else {
                    return;
                };
                while !ctx.over() {
                    let deadline = ctx
                        .deadline
                        .saturating_duration_since(tokio::time::Instant::now());
                    let _ = tokio::time::timeout(deadline, call(client.clone())).await;
                }
            })
        })
        .collect();
    for attacker in attackers {
        let _ = attacker.await;
    }
}

async fn setup_client(target: &Target) -> ScsClient<Channel> {
    client(target.server.addr)
        .await
        .expect("the server answers before the attack")
}

/// Stores a dictionary of one field holding `value_size` bytes.
async fn store_dictionary(target: &Target, value_size: usize) {
    let set = DictionarySetRequest {
        dictionary_name: Bytes::from_static(DICTIONARY),
        items: vec![DictionaryFieldValuePair {
            field: Bytes::from_static(FIELD),
            value: Bytes::from(vec![b'd'; value_size]),
        }],
        ttl_milliseconds: HOUR_MS,
        refresh_ttl: true,
    };
    setup_client(target)
        .await
        .dictionary_set(in_cache(CACHE, set))
        .await
        .unwrap();
}

/// Stores a sorted set of `elements` elements.
async fn store_sorted_set(target: &Target, elements: usize) {
    let put = SortedSetPutRequest {
        set_name: Bytes::from_static(SORTED_SET),
        elements: (0..elements)
            .map(|i| SortedSetElement {
                value: Bytes::from(format!("member-{i:06}")),
                score: i as f64,
            })
            .collect(),
        ttl_milliseconds: HOUR_MS,
        refresh_ttl: true,
    };
    setup_client(target)
        .await
        .sorted_set_put(in_cache(CACHE, put))
        .await
        .unwrap();
}

/// DictionaryGets naming the one field [`NAMINGS`] times (a 30 KB request).
async fn dictionary_get_repeated(ctx: Ctx, answers: Arc<Answers>) {
    let fields = vec![Bytes::from_static(FIELD); NAMINGS];
    repeat(ctx, move |mut client| {
        let (fields, answers) = (fields.clone(), answers.clone());
        async move {
            let get = DictionaryGetRequest {
                dictionary_name: Bytes::from_static(DICTIONARY),
                fields,
            };
            let answer = client.dictionary_get(in_cache(CACHE, get)).await;
            answers.record(answer, "--max-response-size");
        }
    })
    .await
}

/// SortedSetUnionStores naming the one set [`NAMINGS`] times (120 KB).
async fn union_store_repeated(ctx: Ctx, answers: Arc<Answers>) {
    let sources: Vec<Source> = (0..NAMINGS)
        .map(|_| Source {
            set_name: Bytes::from_static(SORTED_SET),
            weight: 1.0,
        })
        .collect();
    repeat(ctx, move |mut client| {
        let (sources, answers) = (sources.clone(), answers.clone());
        async move {
            let union = SortedSetUnionStoreRequest {
                set_name: Bytes::from_static(b"amplified-union"),
                sources,
                aggregate: AggregateFunction::Sum.into(),
                ttl_milliseconds: HOUR_MS,
            };
            let answer = client.sorted_set_union_store(in_cache(CACHE, union)).await;
            answers.record(answer, "--max-collection-elements");
        }
    })
    .await
}

async fn attack_dictionary_get(redis: Option<&RedisCluster>, value_kib: usize) {
    let mut setup = Setup::new(&[]);
    setup.redis = redis;
    let mut target = attack::start(setup).await;
    store_dictionary(&target, value_kib << 10).await;
    let answers = Arc::new(Answers::default());
    let store = if redis.is_some() { "redis" } else { "embedded" };
    let attacking = answers.clone();
    let mut outcome = attack::run(
        &mut target,
        &format!("{store} store: DictionaryGet of one {value_kib} KiB field named 10,000 times"),
        move |ctx| dictionary_get_repeated(ctx, attacking),
    )
    .await;
    answers.require_all_refused(&mut outcome, "--max-response-size");
    outcome.assert_bounded();
}

async fn attack_union_store(redis: Option<&RedisCluster>, elements: usize) {
    let mut setup = Setup::new(&[]);
    setup.redis = redis;
    let mut target = attack::start(setup).await;
    store_sorted_set(&target, elements).await;
    let answers = Arc::new(Answers::default());
    let store = if redis.is_some() { "redis" } else { "embedded" };
    let attacking = answers.clone();
    let mut outcome = attack::run(
        &mut target,
        &format!(
            "{store} store: SortedSetUnionStore of one {elements}-element set named 10,000 times"
        ),
        move |ctx| union_store_repeated(ctx, attacking),
    )
    .await;
    answers.require_all_refused(&mut outcome, "--max-collection-elements");
    outcome.assert_bounded();
}

/// On main the server aborted ("memory allocation of 4295139328 bytes
/// failed"): the answer was built as fields x value before any check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dictionary_get_of_one_large_field_named_10000_times() {
    let _serial = attack::serialize().await;
    attack_dictionary_get(None, 512).await;
}

/// With a 64 KiB field main built 655 MB per call, and refused it only
/// once encoded, closing the well-behaved client's connection to make
/// room it could not make (`InFlight::make_room`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dictionary_get_of_one_64_kib_field_named_10000_times() {
    let _serial = attack::serialize().await;
    attack_dictionary_get(None, 64).await;
}

/// The Redis store read the field once per naming, in its script, and sent
/// each copy back; it now asks once and the front-end refuses the answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_store_dictionary_get_of_one_large_field_named_10000_times() {
    let _serial = attack::serialize().await;
    let cluster = RedisCluster::start().await;
    attack_dictionary_get(Some(&cluster), 512).await;
}

/// On main each call copied the set once per naming: over +2 GiB with a
/// 10,000-element set, +423 MiB with 1,000 elements.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn union_store_of_one_set_named_10000_times() {
    let _serial = attack::serialize().await;
    attack_union_store(None, 1_000).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_store_union_store_of_one_set_named_10000_times() {
    let _serial = attack::serialize().await;
    let cluster = RedisCluster::start().await;
    attack_union_store(Some(&cluster), 1_000).await;
}

/// GetBatches naming the 4 MiB item [`NAMINGS`] times (a 40 KB request for
/// 40 GB of answers), read to the end: the whole stream is one answer,
/// sized before its first item is encoded.
async fn get_batch_repeated(ctx: Ctx, answers: Arc<Answers>) {
    let items: Vec<GetRequest> = (0..NAMINGS)
        .map(|_| GetRequest {
            cache_key: Bytes::from_static(BIG_KEY),
        })
        .collect();
    repeat(ctx, move |mut client| {
        let (items, answers) = (items.clone(), answers.clone());
        async move {
            let batch = GetBatchRequest { items };
            let answer = match client.get_batch(in_cache(CACHE, batch)).await {
                Ok(stream) => {
                    let mut stream = stream.into_inner();
                    loop {
                        match stream.message().await {
                            Ok(Some(item)) => {
                                let size = item.cache_body.len() as u64;
                                answers.received.fetch_add(size, Ordering::Relaxed);
                            }
                            Ok(None) => break Ok(()),
                            Err(status) => break Err(status),
                        }
                    }
                }
                Err(status) => Err(status),
            };
            answers.record(answer, "--max-response-size");
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_batch_of_one_large_key_named_10000_times() {
    let _serial = attack::serialize().await;
    let mut setup = Setup::new(&[]);
    setup.big_value = true;
    let mut target = attack::start(setup).await;
    let answers = Arc::new(Answers::default());
    let attacking = answers.clone();
    let mut outcome = attack::run(
        &mut target,
        "embedded store: GetBatch of one 4 MiB key named 10,000 times, read",
        move |ctx| get_batch_repeated(ctx, attacking),
    )
    .await;
    answers.require_all_refused(&mut outcome, "--max-response-size");
    outcome.assert_bounded();
}

/// A union at the bound (a 1,000-element set named 1,000 times: a million
/// elements read) is answered, reading the set once per call, and its
/// work does not hold up the calls queued on its worker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn union_store_at_the_work_bound() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(&[])).await;
    store_sorted_set(&target, 1_000).await;
    let answered = Arc::new(AtomicU64::new(0));
    let attacking = answered.clone();
    let sources: Vec<Source> = (0..1_000)
        .map(|i| Source {
            set_name: Bytes::from_static(SORTED_SET),
            weight: 1.0 + i as f32,
        })
        .collect();
    let mut outcome = attack::run(
        &mut target,
        "embedded store: SortedSetUnionStore of one 1000-element set named 1,000 times",
        move |ctx| {
            repeat(ctx, move |mut client| {
                let (sources, answered) = (sources.clone(), attacking.clone());
                async move {
                    let union = SortedSetUnionStoreRequest {
                        set_name: Bytes::from_static(b"amplified-union"),
                        sources,
                        aggregate: AggregateFunction::Sum.into(),
                        ttl_milliseconds: HOUR_MS,
                    };
                    if let Ok(answer) = client.sorted_set_union_store(in_cache(CACHE, union)).await
                    {
                        if answer.into_inner().length == 1_000 {
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        },
    )
    .await;
    let answered = answered.load(Ordering::Relaxed);
    eprintln!("    {answered} unions answered");
    outcome.require(answered > 0, "no union at the bound was answered");
    outcome.assert_bounded();
}

/// A set over `--max-response-size` (8 MiB against 5,243,000 bytes), in
/// unions under `--max-request-size`.
const POPPED_SET: &[u8] = b"popped-set";
const POPPED_ELEMENTS: usize = 8;

async fn store_large_set(target: &Target) {
    let mut client = setup_client(target).await;
    for half in 0..2 {
        let union = SetUnionRequest {
            set_name: Bytes::from_static(POPPED_SET),
            elements: (0..POPPED_ELEMENTS / 2)
                .map(|i| Bytes::from(vec![b'a' + (half * 4 + i) as u8; 1 << 20]))
                .collect(),
            ttl_milliseconds: HOUR_MS,
            refresh_ttl: true,
        };
        client.set_union(in_cache(CACHE, union)).await.unwrap();
    }
}

async fn large_set_length(target: &Target) -> Option<u32> {
    use jiffy_server::proto::cache_client::set_length_response::Set;
    let length = SetLengthRequest {
        set_name: Bytes::from_static(POPPED_SET),
    };
    let answer = setup_client(target)
        .await
        .set_length(in_cache(CACHE, length))
        .await
        .ok()?;
    match answer.into_inner().set {
        Some(Set::Found(found)) => Some(found.length),
        _ => None,
    }
}

/// SetPops of the whole set: each answer would be over the limit.
async fn set_pop_of_everything(ctx: Ctx, answers: Arc<Answers>) {
    repeat(ctx, move |mut client| {
        let answers = answers.clone();
        async move {
            let pop = SetPopRequest {
                set_name: Bytes::from_static(POPPED_SET),
                count: u32::MAX,
            };
            let answer = client.set_pop(in_cache(CACHE, pop)).await;
            answers.record(answer, "--max-response-size");
        }
    })
    .await
}

/// A pop whose answer is over `--max-response-size` must be refused before
/// it removes anything. On main the store emptied the set into an answer
/// that tonic's encoding limit then refused (OUT_OF_RANGE): the elements
/// were lost, and every later pop answered a missing set.
async fn attack_set_pop(redis: Option<&RedisCluster>) {
    let mut setup = Setup::new(&[]);
    setup.redis = redis;
    let mut target = attack::start(setup).await;
    store_large_set(&target).await;
    let answers = Arc::new(Answers::default());
    let store = if redis.is_some() { "redis" } else { "embedded" };
    let attacking = answers.clone();
    let mut outcome = attack::run(
        &mut target,
        &format!("{store} store: SetPop of a whole 8 MiB set, over --max-response-size"),
        move |ctx| set_pop_of_everything(ctx, attacking),
    )
    .await;
    answers.require_all_refused(&mut outcome, "--max-response-size");
    let left = large_set_length(&target).await;
    outcome.require(
        left == Some(POPPED_ELEMENTS as u32),
        format!("the set holds {left:?} elements after the refused pops, not {POPPED_ELEMENTS}"),
    );
    outcome.assert_bounded();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_pop_over_the_response_limit() {
    let _serial = attack::serialize().await;
    attack_set_pop(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_store_set_pop_over_the_response_limit() {
    let _serial = attack::serialize().await;
    let cluster = RedisCluster::start().await;
    attack_set_pop(Some(&cluster)).await;
}
