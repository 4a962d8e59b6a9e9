//! The memory cap holds for collections as it does for scalars: writing
//! 1 GiB into dictionaries, lists, sets and sorted sets under a 64 MiB
//! `--max-memory` evicts whole collections, never some of their elements
//! (a collection holds a whole number of its writes, or is gone), keeps
//! resident memory under 1.5x the cap, and the server keeps answering.

use crate::common;

use bytes::Bytes;
use common::collections::{self, Kind, KINDS};
use common::{in_cache, sample};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{
    dictionary_length_response, list_length_response, set_length_response,
    sorted_set_length_response, DictionaryLengthRequest, ListLengthRequest, SetLengthRequest,
    SortedSetLengthRequest,
};
use tonic::transport::Channel;

const CAP: u64 = 64 << 20;
const WRITTEN: u64 = 1 << 30;
/// Element sizes cycle through these, so the per-element accounting is tried
/// on small and large elements alike.
const SIZES: [usize; 4] = [60, 500, 2_000, 8_000];
/// Elements per request, and requests per collection: each collection ends
/// with 1,024 elements, so a collection is about 2.6 MiB, several percent
/// of the cap, and eviction must remove whole ones.
const PER_REQUEST: usize = 64;
const REQUESTS_PER_COLLECTION: usize = 16;
const TTL_MS: u64 = 3_600_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writing_1_gib_of_collections_into_a_64_mib_cap_stays_near_the_cap() {
    let (server, channel) = common::spawn_with_cache("64MiB").await;

    let per_writer = WRITTEN / KINDS.len() as u64;
    let writers = KINDS.map(|kind| {
        let client = ScsClient::new(channel.clone());
        tokio::spawn(write_collections(client, kind, per_writer))
    });
    let written = futures_util::future::try_join_all(writers).await.unwrap();

    let resident = server.resident_bytes();
    assert!(
        resident < CAP * 3 / 2,
        "resident memory {} MiB is over 1.5x the 64 MiB cap",
        resident >> 20
    );
    let metrics = common::scrape(server.metrics_addr.unwrap()).await;
    let evictions = sample(&metrics, "jiffy_evictions_total").unwrap();
    let accounted = sample(&metrics, "jiffy_memory_bytes").unwrap();
    assert!(evictions > 0.0, "nothing was evicted");
    assert!(accounted <= CAP as f64, "accounted {accounted} bytes");

    // Eviction takes whole items: every collection holds whole writes (a
    // collection evicted while it was written is begun again by the writes
    // after), or is gone.
    let mut client = ScsClient::new(channel);
    let whole = Some(PER_REQUEST * REQUESTS_PER_COLLECTION);
    let mut kept = 0;
    for (kind, collections) in KINDS.into_iter().zip(written) {
        for n in 0..collections {
            let name = collection_name(kind, n);
            let length = length(&mut client, kind, name.clone()).await;
            let whole_writes = length.is_none_or(|n| n > 0 && n % PER_REQUEST == 0);
            assert!(whole_writes, "{name:?}: {length:?}");
            kept += length.is_some() as usize;
        }
    }
    assert!(kept > 0, "no collection survived");
    // Still answering: a new collection of each kind is written whole.
    for kind in KINDS {
        let name = write_collection(&mut client, kind, usize::MAX).await;
        assert_eq!(length(&mut client, kind, name).await, whole, "{kind:?}");
    }
    eprintln!(
        "wrote {} MiB of collections; resident {} MiB; accounted {} MiB; {evictions} evictions",
        WRITTEN >> 20,
        resident >> 20,
        accounted as u64 >> 20
    );
}

/// Writes `total` bytes of elements into collections of one kind, one
/// collection after another; answers how many collections it wrote.
async fn write_collections(mut client: ScsClient<Channel>, kind: Kind, total: u64) -> usize {
    let (mut written, mut collections) = (0u64, 0usize);
    while written < total {
        written += write_collection_bytes(&mut client, kind, collections).await;
        collections += 1;
    }
    collections
}

fn collection_name(kind: Kind, n: usize) -> Bytes {
    Bytes::from(format!("{kind:?}-{n}"))
}

/// Writes collection `n` of `kind` whole; answers its name.
async fn write_collection(client: &mut ScsClient<Channel>, kind: Kind, n: usize) -> Bytes {
    write_collection_bytes(client, kind, n).await;
    collection_name(kind, n)
}

/// Writes collection `n` of `kind` in REQUESTS_PER_COLLECTION requests of
/// PER_REQUEST distinct elements; answers the bytes of elements written.
async fn write_collection_bytes(client: &mut ScsClient<Channel>, kind: Kind, n: usize) -> u64 {
    let mut written = 0;
    for request in 0..REQUESTS_PER_COLLECTION {
        let elements: Vec<Bytes> = (0..PER_REQUEST)
            .map(|i| {
                let element = request * PER_REQUEST + i;
                let size = SIZES[element % SIZES.len()];
                written += size as u64;
                // Distinct within the collection, so sets and sorted sets
                // grow by every element; the first 13 bytes are a field name.
                let mut bytes = format!("{element:012}-").into_bytes();
                bytes.resize(size, b'x');
                Bytes::from(bytes)
            })
            .collect();
        write(client, kind, collection_name(kind, n), elements).await;
    }
    written
}

async fn write(client: &mut ScsClient<Channel>, kind: Kind, name: Bytes, elements: Vec<Bytes>) {
    collections::write(client, "c", kind, name, elements, TTL_MS, |e| e.slice(..13))
        .await
        .unwrap();
}

async fn length(client: &mut ScsClient<Channel>, kind: Kind, name: Bytes) -> Option<usize> {
    match kind {
        Kind::Dictionary => {
            use dictionary_length_response::Dictionary;
            let message = DictionaryLengthRequest {
                dictionary_name: name,
            };
            let answer = client.dictionary_length(in_cache("c", message)).await;
            match answer.unwrap().into_inner().dictionary {
                Some(Dictionary::Found(found)) => Some(found.length as usize),
                _ => None,
            }
        }
        Kind::List => {
            use list_length_response::List;
            let message = ListLengthRequest { list_name: name };
            let answer = client.list_length(in_cache("c", message)).await;
            match answer.unwrap().into_inner().list {
                Some(List::Found(found)) => Some(found.length as usize),
                _ => None,
            }
        }
        Kind::Set => {
            use set_length_response::Set;
            let message = SetLengthRequest { set_name: name };
            let answer = client.set_length(in_cache("c", message)).await;
            match answer.unwrap().into_inner().set {
                Some(Set::Found(found)) => Some(found.length as usize),
                _ => None,
            }
        }
        Kind::SortedSet => {
            use sorted_set_length_response::SortedSet;
            let message = SortedSetLengthRequest { set_name: name };
            let answer = client.sorted_set_length(in_cache("c", message)).await;
            match answer.unwrap().into_inner().sorted_set {
                Some(SortedSet::Found(found)) => Some(found.length as usize),
                _ => None,
            }
        }
    }
}
