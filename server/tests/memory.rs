//! The memory cap holds for the real process: writing far more than
//! `--max-memory` evicts, keeps resident memory near the cap, and the server
//! keeps answering.

use crate::common;

use bytes::Bytes;
use common::{in_cache, sample};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{ECacheResult, GetRequest, SetBatchRequest, SetRequest};
use tokio_stream::StreamExt;

const CAP: u64 = 64 << 20;
const WRITTEN: u64 = 1 << 30;
/// Value sizes cycle through these, so the accounting is tried on small and
/// large items alike.
const VALUE_SIZES: [usize; 4] = [100, 1_000, 4_000, 16_000];
const WRITERS: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writing_1_gib_into_a_64_mib_cap_stays_near_the_cap() {
    let (server, channel) = common::spawn_with_cache("64MiB").await;

    let per_writer = WRITTEN / WRITERS as u64;
    let writers = (0..WRITERS).map(|writer| {
        let mut client = ScsClient::new(channel.clone());
        tokio::spawn(async move {
            let (mut written, mut n) = (0u64, 0usize);
            while written < per_writer {
                let items: Vec<SetRequest> = (0..64)
                    .map(|_| {
                        n += 1;
                        let size = VALUE_SIZES[n % VALUE_SIZES.len()];
                        written += size as u64;
                        SetRequest {
                            cache_key: format!("w{writer}-{n}").into(),
                            cache_body: Bytes::from(vec![(n % 251) as u8; size]),
                            ttl_milliseconds: 3_600_000,
                        }
                    })
                    .collect();
                let request = in_cache("c", SetBatchRequest { items });
                let mut answers = client.set_batch(request).await.unwrap().into_inner();
                while let Some(answer) = answers.next().await {
                    answer.unwrap();
                }
            }
            format!("w{writer}-{n}")
        })
    });
    let last_keys = futures_util::future::try_join_all(writers).await.unwrap();

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
    // Still answering, and the newest writes are there.
    let mut client = ScsClient::new(channel);
    let mut hits = 0;
    for key in last_keys {
        let get = in_cache(
            "c",
            GetRequest {
                cache_key: key.into(),
            },
        );
        let answer = client.get(get).await.unwrap().into_inner();
        hits += (answer.result == ECacheResult::Hit as i32) as usize;
    }
    assert!(hits > 0, "none of the newest keys survived");
    eprintln!(
        "wrote {} MiB; resident {} MiB; accounted {} MiB; {evictions} evictions",
        WRITTEN >> 20,
        resident >> 20,
        accounted as u64 >> 20
    );
}
