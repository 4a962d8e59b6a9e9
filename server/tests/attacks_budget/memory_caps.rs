//! Writes past the memory caps: one collection grown without end, and a
//! mixed fill of scalars, collections and topic messages far past
//! `--max-memory` and `--max-topic-memory`. The caps must bound resident
//! memory, not only what the store counts.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use jiffy_server::proto::cache_client::pubsub::pubsub_client::PubsubClient;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{
    list_length_response, DictionaryFetchRequest, ListConcatenateBackRequest, ListFetchRequest,
    ListLengthRequest, SetBatchRequest, SetFetchRequest, SetRequest, SortedSetFetchRequest,
};
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::common::attack::{self, Ctx, Outcome, Setup, Target, CACHE, SMALL_KEY, SMALL_VALUE};
use crate::common::collections::{self, KINDS};
use crate::common::topics::{binary, publish_request};
use crate::common::{in_cache, sample};

const MIB: u64 = 1 << 20;
const TTL_MS: u64 = 3_600_000;

/// What the attack's writes were answered, counted as they come.
#[derive(Default)]
struct Answers {
    accepted: AtomicU64,
    /// RESOURCE_EXHAUSTED naming `--max-memory`.
    refused: AtomicU64,
    /// Bytes of values the accepted writes carried.
    written: AtomicU64,
    other: Mutex<Option<String>>,
}

impl Answers {
    fn count(&self, answer: Result<(), tonic::Status>, bytes: u64) {
        match answer {
            Ok(()) => {
                self.accepted.fetch_add(1, Relaxed);
                self.written.fetch_add(bytes, Relaxed);
            }
            Err(status)
                if status.code() == Code::ResourceExhausted
                    && status.message().contains("--max-memory") =>
            {
                self.refused.fetch_add(1, Relaxed);
            }
            Err(status) => {
                self.other
                    .lock()
                    .unwrap()
                    .get_or_insert(format!("{status:?}"));
            }
        }
    }

    fn line(&self) -> String {
        format!(
            "{} writes accepted ({:.0} MiB), {} refused naming --max-memory, other error: {:?}",
            self.accepted.load(Relaxed),
            self.written.load(Relaxed) as f64 / MIB as f64,
            self.refused.load(Relaxed),
            self.other.lock().unwrap()
        )
    }
}

/// A plaintext client of the attacked server that sends large requests.
async fn client(ctx: &Ctx) -> ScsClient<Channel> {
    let channel = tonic::transport::Endpoint::from_shared(format!("{}://{}", ctx.scheme, ctx.addr))
        .unwrap()
        .connect()
        .await
        .unwrap();
    ScsClient::new(channel)
        .max_encoding_message_size(64 << 20)
        .max_decoding_message_size(64 << 20)
}

/// The value of `series` in the server's metrics after the attack.
fn metric(outcome: &Outcome, series: &str) -> Option<f64> {
    sample(&outcome.metrics, series)
}

// ---------------------------------------------------------------------------
// One list grown past the cap.

const LIST_CAP: &str = "64MiB";
const LIST: &[u8] = b"grown";
/// 256 values of 4 KiB: 1 MiB a push, well under --max-request-size.
const LIST_VALUES: usize = 256;
const LIST_VALUE_SIZE: usize = 4096;

fn list_push(values: usize) -> ListConcatenateBackRequest {
    ListConcatenateBackRequest {
        list_name: Bytes::from_static(LIST),
        values: vec![Bytes::from(vec![b'l'; LIST_VALUE_SIZE]); values],
        ttl_milliseconds: TTL_MS,
        refresh_ttl: true,
        truncate_front_to_size: 0,
    }
}

async fn list_length(client: &mut ScsClient<Channel>) -> Option<u32> {
    let request = ListLengthRequest {
        list_name: Bytes::from_static(LIST),
    };
    let answer = client.list_length(in_cache(CACHE, request)).await.unwrap();
    match answer.into_inner().list {
        Some(list_length_response::List::Found(found)) => Some(found.length),
        _ => None,
    }
}

/// Two connections push 1 MiB at a time onto one list for the attack's
/// length. Eviction spares the item being written, so without a bound on
/// one item the list outgrows `--max-memory` (+399 MiB resident on main).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_list_grown_past_the_cap() {
    let _serial = attack::serialize().await;
    let mut target = attack::start(Setup::new(&["--max-memory", LIST_CAP])).await;
    let answers = Arc::new(Answers::default());
    let pushing = answers.clone();
    let mut outcome = attack::run(
        &mut target,
        "one list grown past --max-memory",
        |ctx| async move {
            let pushers = (0..2).map(|_| {
                let (ctx, answers) = (ctx.clone(), pushing.clone());
                tokio::spawn(async move {
                    let mut client = client(&ctx).await;
                    while !ctx.over() {
                        let push =
                            client.list_concatenate_back(in_cache(CACHE, list_push(LIST_VALUES)));
                        let bytes = (LIST_VALUES * LIST_VALUE_SIZE) as u64;
                        answers.count(push.await.map(drop), bytes);
                    }
                })
            });
            futures_util::future::join_all(pushers).await;
        },
    )
    .await;

    let cap = 64 * MIB;
    let charged = metric(&outcome, "jiffy_memory_bytes");
    outcome.require(
        charged.is_some_and(|bytes| bytes <= cap as f64),
        format!("the store charged {charged:?} bytes, over the {cap}-byte cap"),
    );
    let refused = answers.refused.load(Relaxed);
    outcome.require(
        refused > 0,
        format!(
            "no push was refused naming --max-memory: {}",
            answers.line()
        ),
    );
    if outcome.alive {
        // A refused push changes nothing: the list keeps its length.
        let mut client = client_of(&target).await;
        let before = list_length(&mut client).await;
        let push = client
            .list_concatenate_back(in_cache(CACHE, list_push(LIST_VALUES)))
            .await;
        let after = list_length(&mut client).await;
        let refused_again = push
            .as_ref()
            .is_err_and(|status| status.code() == Code::ResourceExhausted);
        outcome.require(
            before.is_some() && refused_again && after == before,
            format!("one more push onto the full list: {push:?}, length {before:?} then {after:?}"),
        );
    }
    eprintln!("    {}", answers.line());
    outcome.assert_bounded();
}

async fn client_of(target: &Target) -> ScsClient<Channel> {
    let channel = target
        .transport
        .endpoint(target.server.addr)
        .connect()
        .await
        .unwrap();
    ScsClient::new(channel)
        .max_encoding_message_size(64 << 20)
        .max_decoding_message_size(64 << 20)
}

// ---------------------------------------------------------------------------
// A mixed fill past both caps.

const FILL_ITEMS_CAP: &str = "128MiB";
const FILL_TOPICS_CAP: &str = "16MiB";
/// What the fill writes at most, set-up and attack together.
const FILL_BYTES: u64 = 1 << 30;
/// The set-up writes this much before the attack (unless it runs out of
/// SETUP_TIME), so the attack churns a store that is already full.
const SETUP_BYTES: u64 = 512 * MIB;
const SETUP_TIME: Duration = Duration::from_secs(8);
/// Tasks per writer, each with a call in flight, so the fill is fast
/// enough to pass the caps within a short attack.
const TASKS_PER_WRITER: usize = 4;

/// Resident memory may pass the fixed overhead (the idle process, measured
/// before the fill) by at most 1.25 x the caps.
fn fill_bound(caps: u64) -> u64 {
    caps * 5 / 4
}

/// What one writer of the fill writes.
#[derive(Clone, Copy, Debug)]
enum Writer {
    /// SetBatch of 64 scalars of 100 bytes under 16-byte keys: the item
    /// overhead dominates.
    Scalars,
    /// 64 small elements (40 to 200 bytes) a write into a list, a set, a
    /// dictionary or a sorted set, 32 writes a collection, then one fetch
    /// of it.
    Collections,
    /// 4 KiB binary messages round-robin over 1,000 topics: large enough
    /// that the few thousand the fill publishes pass `--max-topic-memory`.
    Topics,
}

/// Writes `bytes` of values between the writers until `deadline`.
async fn fill(
    url: String,
    deadline: tokio::time::Instant,
    bytes: u64,
    writers: &'static [Writer],
    answers: Arc<Answers>,
) {
    let tasks = writers.len() * TASKS_PER_WRITER;
    let share = bytes / tasks as u64;
    let tasks = (0..tasks).map(|n| {
        let writer = writers[n % writers.len()];
        let answers = answers.clone();
        let url = url.clone();
        tokio::spawn(async move {
            // A connection each: one HTTP/2 connection is served by one
            // server task, which would cap the fill at one core.
            let channel = tonic::transport::Endpoint::from_shared(url)
                .unwrap()
                .connect()
                .await
                .unwrap();
            let mut client = ScsClient::new(channel.clone());
            let mut pubsub = PubsubClient::new(channel);
            let (mut round, mut written) = (0u64, 0);
            while tokio::time::Instant::now() < deadline && written < share {
                written += match writer {
                    Writer::Scalars => scalars(&mut client, n, round, &answers).await,
                    Writer::Collections => collections(&mut client, n, round, &answers).await,
                    Writer::Topics => topics(&mut pubsub, n, round, &answers).await,
                };
                round += 1;
            }
        })
    });
    futures_util::future::join_all(tasks).await;
}

/// Keys are unique per task and call: the fill never overwrites, it evicts.
async fn scalars(client: &mut ScsClient<Channel>, n: usize, round: u64, answers: &Answers) -> u64 {
    let items: Vec<SetRequest> = (0..64)
        .map(|i| SetRequest {
            cache_key: format!("s{n:02}-{round:08}-{i:02}").into(),
            cache_body: Bytes::from(vec![b's'; 100]),
            ttl_milliseconds: TTL_MS,
        })
        .collect();
    let bytes = 64 * (16 + 100);
    let answer = async {
        let request = in_cache(CACHE, SetBatchRequest { items });
        let mut stream = client.set_batch(request).await?.into_inner();
        while let Some(item) = stream.next().await {
            item?;
        }
        Ok(())
    };
    answers.count(answer.await, bytes);
    bytes
}

/// Collections of the four kinds in turn, each written 32 times.
async fn collections(
    client: &mut ScsClient<Channel>,
    n: usize,
    round: u64,
    answers: &Answers,
) -> u64 {
    let collection = round / 32;
    let name = Bytes::from(format!("c{n:02}-{collection}"));
    let elements: Vec<Bytes> = (0..64usize)
        .map(|i| {
            let mut element = format!("{round:08}-{i:02}-").into_bytes();
            element.resize(40 + (i * 37) % 160, b'e');
            Bytes::from(element)
        })
        .collect();
    let bytes: u64 = elements.iter().map(|e| e.len() as u64).sum();
    let kind = KINDS[(collection % 4) as usize];
    let field_of: fn(&Bytes) -> Bytes = |e| e.slice(..12);
    let answer = collections::write(client, CACHE, kind, name, elements, TTL_MS, field_of).await;
    answers.count(answer, bytes);
    if round % 32 == 31 {
        // Read once, whole, as a client would: on main a read left a
        // header on each element the store did not charge.
        let name = Bytes::from(format!("c{n:02}-{collection}"));
        let read = fetch(client, collection % 4, name).await;
        answers.count(read, 0);
    }
    bytes
}

async fn fetch(client: &mut ScsClient<Channel>, kind: u64, name: Bytes) -> Result<(), Status> {
    match kind {
        0 => {
            let request = ListFetchRequest {
                list_name: name,
                start_index: None,
                end_index: None,
            };
            client.list_fetch(in_cache(CACHE, request)).await.map(drop)
        }
        1 => {
            let request = SetFetchRequest { set_name: name };
            client.set_fetch(in_cache(CACHE, request)).await.map(drop)
        }
        2 => {
            let request = DictionaryFetchRequest {
                dictionary_name: name,
            };
            client
                .dictionary_fetch(in_cache(CACHE, request))
                .await
                .map(drop)
        }
        _ => {
            let request = SortedSetFetchRequest {
                set_name: name,
                order: 0,
                with_scores: true,
                range: None,
            };
            client
                .sorted_set_fetch(in_cache(CACHE, request))
                .await
                .map(drop)
        }
    }
}

const TOPIC_MESSAGE: usize = 4096;

async fn topics(
    pubsub: &mut PubsubClient<Channel>,
    n: usize,
    round: u64,
    answers: &Answers,
) -> u64 {
    let topic = format!("t{}", (round * TASKS_PER_WRITER as u64 + n as u64) % 1000);
    let message = publish_request(CACHE, &topic, binary(&[b't'; TOPIC_MESSAGE]));
    let bytes = TOPIC_MESSAGE as u64;
    answers.count(pubsub.publish(message).await.map(drop), bytes);
    bytes
}

/// Fills the store (and the topics, with `topics_cap`) during set-up, then
/// goes on writing through the attack; resident memory must stay within
/// `fill_bound` of the caps above the idle process measured before the fill.
async fn mixed_fill(name: &str, topics_cap: Option<&str>, writers: &'static [Writer]) {
    let _serial = attack::serialize().await;
    let mut args = vec!["--max-memory", FILL_ITEMS_CAP];
    if let Some(cap) = topics_cap {
        args.extend(["--max-topic-memory", cap]);
    }
    let mut target = attack::start(Setup::new(&args)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fixed = target.server.resident_bytes();
    let caps = 128 * MIB + topics_cap.map_or(0, |_| 16 * MIB);
    let bound = fill_bound(caps);
    // The harness bounds the attack's peak above the full store's idle;
    // the fill's own bound, above the empty process, is checked below.
    target.rss_bound = bound;
    // Past the cap the store may evict any key, the well-behaved client's
    // included (SIEVE spares what is read, but a write that must sweep a
    // shard holding little can take it): a miss is a right answer here, and
    // the client's latency and the newcomers are what is asserted.
    target.small_key_may_be_evicted = true;
    let url = target.server.url();
    let answers = Arc::new(Answers::default());
    let deadline = tokio::time::Instant::now() + SETUP_TIME;
    fill(url.clone(), deadline, SETUP_BYTES, writers, answers.clone()).await;
    let set_up = answers.written.load(Relaxed);
    // The fill evicted the normal client's key too; put it back, so that
    // its reads find it unless the fill evicts it again.
    let small = SetRequest {
        cache_key: Bytes::from_static(SMALL_KEY),
        cache_body: Bytes::from_static(SMALL_VALUE),
        ttl_milliseconds: TTL_MS,
    };
    client_of(&target)
        .await
        .set(in_cache(CACHE, small))
        .await
        .unwrap();
    let writing = answers.clone();
    let mut outcome = attack::run(&mut target, name, |ctx| {
        fill(url, ctx.deadline, FILL_BYTES - set_up, writers, writing)
    })
    .await;

    let charged = metric(&outcome, "jiffy_memory_bytes").unwrap_or(0.0);
    let topic_bytes = metric(&outcome, "jiffy_topic_memory_bytes").unwrap_or(0.0);
    let evictions = metric(&outcome, "jiffy_evictions_total").unwrap_or(0.0);
    // jemalloc's own split of the end state: live allocations against its
    // resident pages, so a breach shows whether the charges fell short of
    // what items hold or freed pages stayed resident.
    let allocated = metric(&outcome, "jiffy_allocator_allocated_bytes").unwrap_or(0.0);
    let allocator_resident = metric(&outcome, "jiffy_allocator_resident_bytes").unwrap_or(0.0);
    let slab_free = metric(&outcome, "jiffy_allocator_slab_free_bytes").unwrap_or(0.0);
    let moves = metric(&outcome, "jiffy_defrag_moves_total").unwrap_or(0.0);
    let first_other = answers.other.lock().unwrap().clone();
    outcome.require(
        first_other.is_none(),
        format!("a write failed: {first_other:?}"),
    );
    // The fill must have gone past the item cap, or it proves nothing.
    outcome.require(evictions > 0.0, "the fill never made the store evict");
    // Past the topic cap the hub empties rings down to three quarters of it:
    // a fill that never got there would prove nothing about topics.
    if topics_cap.is_some() {
        outcome.require(
            topic_bytes >= (16 * MIB / 2) as f64,
            format!("the fill never filled the topics: {topic_bytes} bytes"),
        );
    }
    outcome.require(
        outcome.peak <= fixed + bound,
        format!(
            "peak resident memory {} MiB is more than 1.25 x the caps ({} MiB) above the idle process ({} MiB)",
            outcome.peak / MIB,
            bound / MIB,
            fixed / MIB
        ),
    );
    eprintln!(
        "    {} | set-up wrote {:.0} MiB | fixed {:.1} MiB, peak {:.1} MiB = fixed + {:.2} x caps | charged {:.1} MiB items, {:.1} MiB topics | {evictions} evictions | at the end jemalloc: {:.1} MiB allocated, {:.1} MiB resident, {:.1} MiB free in slabs | {moves} items moved by defragmentation",
        answers.line(),
        set_up as f64 / MIB as f64,
        fixed as f64 / MIB as f64,
        outcome.peak as f64 / MIB as f64,
        outcome.peak.saturating_sub(fixed) as f64 / caps as f64,
        charged / MIB as f64,
        topic_bytes / MIB as f64,
        allocated / MIB as f64,
        allocator_resident / MIB as f64,
        slab_free / MIB as f64,
    );
    outcome.assert_bounded();
}

/// Scalars and collections of small elements, past `--max-memory 128MiB`:
/// resident memory stays within 1.25 x the cap above the idle process.
///
/// Measured 1.14 to 1.19 x in release builds (1.47 x before the
/// per-element charges; 1.31 to 1.36 x without active defragmentation:
/// the scalars' slabs left 57 % full as collections grew in their place).
/// The debug-built client writes 130 to 180 MiB of values in the ten
/// seconds, about three times that in charged bytes (each scalar carries its
/// key and a fixed item overhead): the store turns over several times, not
/// the 1 GiB the fill would write given the time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_fill_of_items_stays_near_the_cap() {
    const WRITERS: &[Writer] = &[Writer::Scalars, Writer::Collections];
    mixed_fill("mixed fill of scalars and collections", None, WRITERS).await;
}

/// The same fill with topic messages beside it, past `--max-topic-memory
/// 16MiB` too: resident memory stays within 1.25 x the sum of the caps
/// above the idle process. It holds only with the topic side's own bound
/// (published messages copied out of their request, each topic's overhead
/// charged): the store's side alone measured 1.61 x (main 1.56 x).
/// Measured 1.13 to 1.14 x (1.25 to 1.26 x without defragmentation).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_fill_with_topics_stays_near_the_caps() {
    const WRITERS: &[Writer] = &[Writer::Scalars, Writer::Collections, Writer::Topics];
    mixed_fill(
        "mixed fill of scalars, collections and topic messages",
        Some(FILL_TOPICS_CAP),
        WRITERS,
    )
    .await;
}
