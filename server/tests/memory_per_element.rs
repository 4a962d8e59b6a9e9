//! What the store charges an item or element is what it really holds:
//! at least (within [`SLACK`]) and at most [`OVER`] times as much.
//! For scalars and each collection type: 200,000 small elements written
//! into a server whose cap is far away, every one then read once (a read
//! of a scalar over 2 KiB leaves a shared header behind on the value it
//! hands out; smaller ones are copied out and leave nothing), and the growth
//! of resident memory compared with what `jiffy_memory_bytes` says.
//!
//! Resident memory is read from idle after a warm-up: the same number of
//! elements written, read and deleted (with their cache) first, so that
//! what the process keeps once it has served them, whatever the store
//! holds (request and answer buffers, each thread's cache of freed blocks,
//! the allocator's own metadata, code first run: 1 to 2 MiB, 5 to 8 bytes
//! an element here), is in the idle figure, not counted per element.
//! Part of that idle figure is free room the elements then fill without
//! a new page: freed blocks in the threads' caches and in partly used
//! slabs (jemalloc counts both). What of it the elements took is added to
//! their resident growth; left out, it made a set's 200,000 elements look
//! 6 to 8 bytes each cheaper than the blocks they hold, from one run to the
//! next. jemalloc's own figures are printed beside it.
//!
//! `-- --nocapture` prints the figures per element; they are where the
//! overhead constants of `store/shard.rs` and the collection files come from.

use crate::common;

use bytes::Bytes;
use common::collections;
use common::{in_cache, sample, ServerProcess};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{
    DictionaryFetchRequest, GetBatchRequest, GetRequest, ListFetchRequest, SetBatchRequest,
    SetFetchRequest, SetRequest, SortedSetFetchRequest,
};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::DeleteCacheRequest;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

const TTL_MS: u64 = 3_600_000;
/// Elements of each type written; enough that their memory dwarfs the noise.
const ELEMENTS: usize = 200_000;
/// 32 bytes: charged at the 32-byte class, the common case of small
/// elements, where what is charged per element matters most.
const ELEMENT_SIZE: usize = 32;
/// Collection lengths cycle through these, so hash tables and deques are
/// measured across their growth, not at one lucky or unlucky load.
const LENGTHS: [usize; 6] = [96, 200, 448, 1_000, 1_800, 3_500];
/// Resident growth may exceed the charge by at most this much (allocator
/// pages, tables between two sizes); past it the cap would not bound memory.
const SLACK: f64 = 1.10;
/// The charge may exceed resident growth by at most this much; past it
/// the cap would evict items that fit (`--max-memory` means resident
/// memory within 15%, issue 30).
const OVER: f64 = 1.15;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Scalar,
    List,
    Set,
    Dictionary,
    SortedSet,
}

impl Kind {
    fn as_collection(self) -> Option<collections::Kind> {
        match self {
            Kind::Scalar => None,
            Kind::List => Some(collections::Kind::List),
            Kind::Set => Some(collections::Kind::Set),
            Kind::Dictionary => Some(collections::Kind::Dictionary),
            Kind::SortedSet => Some(collections::Kind::SortedSet),
        }
    }
}

fn element(n: usize) -> Bytes {
    let mut bytes = format!("{n:012}-").into_bytes();
    bytes.resize(ELEMENT_SIZE, b'e');
    Bytes::from(bytes)
}

/// Writes elements `numbers` of `kind` into collections of the LENGTHS in
/// `cache`; answers each collection's name.
async fn write(
    client: &mut ScsClient<Channel>,
    cache: &str,
    kind: Kind,
    numbers: std::ops::Range<usize>,
) -> Vec<Bytes> {
    let mut names = Vec::new();
    let mut n = numbers.start;
    while n < numbers.end {
        let name = Bytes::from(format!("{kind:?}-{}", names.len()));
        let length = LENGTHS[names.len() % LENGTHS.len()].min(numbers.end - n);
        let elements: Vec<Bytes> = (n..n + length).map(element).collect();
        n += length;
        for chunk in elements.chunks(500) {
            write_chunk(client, cache, kind, name.clone(), chunk.to_vec()).await;
        }
        names.push(name);
    }
    names
}

async fn write_chunk(
    client: &mut ScsClient<Channel>,
    cache: &str,
    kind: Kind,
    name: Bytes,
    elements: Vec<Bytes>,
) {
    let ttl_milliseconds = TTL_MS;
    match kind {
        Kind::Scalar => {
            let items = elements
                .into_iter()
                .map(|e| SetRequest {
                    cache_key: e.slice(..16),
                    cache_body: e,
                    ttl_milliseconds,
                })
                .collect();
            let request = in_cache(cache, SetBatchRequest { items });
            let mut answers = client.set_batch(request).await.unwrap().into_inner();
            while let Some(answer) = answers.next().await {
                answer.unwrap();
            }
        }
        collection => {
            let kind = collection.as_collection().expect("a collection kind");
            collections::write(client, cache, kind, name, elements, ttl_milliseconds, |e| {
                e.clone()
            })
            .await
            .unwrap();
        }
    }
}

/// Reads elements `numbers` once: the scalars of those numbers, or the
/// collections `names`, in `cache`.
async fn read(
    client: &mut ScsClient<Channel>,
    cache: &str,
    kind: Kind,
    numbers: std::ops::Range<usize>,
    names: &[Bytes],
) {
    if let Kind::Scalar = kind {
        let keys: Vec<Bytes> = numbers.map(|n| element(n).slice(..16)).collect();
        for chunk in keys.chunks(500) {
            let items = chunk
                .iter()
                .map(|key| GetRequest {
                    cache_key: key.clone(),
                })
                .collect();
            let request = in_cache(cache, GetBatchRequest { items });
            let mut answers = client.get_batch(request).await.unwrap().into_inner();
            while let Some(answer) = answers.next().await {
                answer.unwrap();
            }
        }
        return;
    }
    for name in names.iter().cloned() {
        match kind {
            Kind::Scalar => unreachable!(),
            Kind::List => {
                let request = ListFetchRequest {
                    list_name: name,
                    start_index: None,
                    end_index: None,
                };
                client.list_fetch(in_cache(cache, request)).await.unwrap();
            }
            Kind::Set => {
                let request = SetFetchRequest { set_name: name };
                client.set_fetch(in_cache(cache, request)).await.unwrap();
            }
            Kind::Dictionary => {
                let request = DictionaryFetchRequest {
                    dictionary_name: name,
                };
                client
                    .dictionary_fetch(in_cache(cache, request))
                    .await
                    .unwrap();
            }
            Kind::SortedSet => {
                let request = SortedSetFetchRequest {
                    set_name: name,
                    order: 0,
                    with_scores: true,
                    range: None,
                };
                client
                    .sorted_set_fetch(in_cache(cache, request))
                    .await
                    .unwrap();
            }
        }
    }
}

/// Resident memory once the allocator has given back what it will.
async fn settled_resident(server: &ServerProcess) -> f64 {
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    server.resident_bytes() as f64
}

/// jemalloc's figures at one moment.
struct Allocator {
    /// Live bytes.
    allocated: f64,
    /// Resident pages.
    resident: f64,
    /// Free blocks already resident: in the threads' caches and in partly
    /// used slabs. An allocation that takes one needs no new page.
    free_resident: f64,
}

async fn allocator(server: &ServerProcess) -> Allocator {
    let metrics = common::scrape(server.metrics_addr.unwrap()).await;
    let read = |name| sample(&metrics, name).expect(name);
    Allocator {
        allocated: read("jiffy_allocator_allocated_bytes"),
        resident: read("jiffy_allocator_resident_bytes"),
        free_resident: read("jiffy_allocator_thread_cache_bytes")
            + read("jiffy_allocator_slab_free_bytes"),
    }
}

/// Resident growth since `idle`, with the free room that was already
/// resident at idle and has since been taken.
async fn growth(server: &ServerProcess, idle: (f64, &Allocator)) -> f64 {
    let resident = settled_resident(server).await;
    let taken = idle.1.free_resident - allocator(server).await.free_resident;
    resident - idle.0 + taken.max(0.0)
}

async fn measure(kind: Kind) -> (f64, f64, f64) {
    let (server, channel) = common::spawn_with_cache("4GiB").await;
    let mut control = ScsControlClient::new(channel.clone());
    let mut client = ScsClient::new(channel)
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20);
    let warm_up = ELEMENTS..2 * ELEMENTS;
    common::create_cache(&mut control, "warm-up").await;
    let names = write(&mut client, "warm-up", kind, warm_up.clone()).await;
    read(&mut client, "warm-up", kind, warm_up, &names).await;
    let request = DeleteCacheRequest {
        cache_name: "warm-up".into(),
    };
    control.delete_cache(request).await.unwrap();
    let idle = (settled_resident(&server).await, &allocator(&server).await);
    let names = write(&mut client, "c", kind, 0..ELEMENTS).await;
    let written = growth(&server, idle).await;
    read(&mut client, "c", kind, 0..ELEMENTS, &names).await;
    let read = growth(&server, idle).await;
    let read_allocator = allocator(&server).await;
    let metrics = common::scrape(server.metrics_addr.unwrap()).await;
    let charged = sample(&metrics, "jiffy_memory_bytes").unwrap();
    let per = |bytes: f64| bytes / ELEMENTS as f64;
    eprintln!(
        "{kind:?}: jemalloc: {:.1} B/element allocated, {:.1} B/element of resident pages",
        per(read_allocator.allocated - idle.1.allocated),
        per(read_allocator.resident - idle.1.resident),
    );
    (per(written), per(read), per(charged))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_type_is_charged_what_it_holds() {
    let mut problems = Vec::new();
    for kind in [
        Kind::Scalar,
        Kind::List,
        Kind::Set,
        Kind::Dictionary,
        Kind::SortedSet,
    ] {
        let (written, read, charged) = measure(kind).await;
        eprintln!(
            "{kind:?}: {ELEMENT_SIZE}-byte elements: resident {written:.0} B/element written, {read:.0} B/element after a read; charged {charged:.0} B/element ({:.2} x resident)",
            charged / read.max(written)
        );
        let resident = read.max(written);
        if resident > charged * SLACK || charged > resident * OVER {
            problems.push(format!(
                "{kind:?}: {resident:.0} B resident per element, charged {charged:.0}"
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:?}");
}
