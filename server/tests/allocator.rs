//! `jiffy_allocator_allocated_bytes` and `jiffy_allocator_resident_bytes`
//! are jemalloc's own figures for the real process: non-zero, allocated
//! within resident, and both grow by what a fill holds.

use crate::common;

use bytes::Bytes;
use common::{in_cache, sample};
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{SetBatchRequest, SetRequest};
use tokio_stream::StreamExt;

/// Bytes of values written: far above the idle heap and its noise.
const WRITTEN: usize = 32 << 20;
const VALUE_SIZE: usize = 4_000;

/// (allocated, resident), from one scrape.
async fn allocator_bytes(server: &common::ServerProcess) -> (f64, f64) {
    let metrics = common::scrape(server.metrics_addr.unwrap()).await;
    let read = |name| sample(&metrics, name).unwrap_or_else(|| panic!("{name} not served"));
    (
        read("jiffy_allocator_allocated_bytes"),
        read("jiffy_allocator_resident_bytes"),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allocator_figures_are_plausible_and_grow_with_a_fill() {
    let (server, channel) = common::spawn_with_cache("1GiB").await;
    let (allocated, resident) = allocator_bytes(&server).await;
    assert!(allocated > 0.0, "allocated {allocated}");
    assert!(
        allocated <= resident,
        "allocated {allocated} over resident {resident}"
    );

    let mut client = ScsClient::new(channel);
    let items: Vec<SetRequest> = (0..WRITTEN / VALUE_SIZE)
        .map(|n| SetRequest {
            cache_key: format!("key:{n}").into(),
            cache_body: Bytes::from(vec![(n % 251) as u8; VALUE_SIZE]),
            ttl_milliseconds: 3_600_000,
        })
        .collect();
    for chunk in items.chunks(256) {
        let request = in_cache(
            "c",
            SetBatchRequest {
                items: chunk.to_vec(),
            },
        );
        let mut answers = client.set_batch(request).await.unwrap().into_inner();
        while let Some(answer) = answers.next().await {
            answer.unwrap();
        }
    }

    let (filled_allocated, filled_resident) = allocator_bytes(&server).await;
    eprintln!(
        "allocated {:.1} -> {:.1} MiB; resident {:.1} -> {:.1} MiB; {} MiB written",
        allocated / 1048576.0,
        filled_allocated / 1048576.0,
        resident / 1048576.0,
        filled_resident / 1048576.0,
        WRITTEN >> 20
    );
    assert!(
        filled_allocated - allocated >= WRITTEN as f64,
        "allocated grew by {} bytes for {WRITTEN} bytes of values",
        filled_allocated - allocated
    );
    assert!(filled_resident - resident >= WRITTEN as f64);
    assert!(filled_allocated <= filled_resident);
    // The process's own resident memory holds the allocator's.
    assert!(server.resident_bytes() as f64 >= filled_resident);
}

/// A worker left idle after a burst of large calls gives the freed blocks
/// its cache holds back within two seconds (`thread_cache.rs`). Without
/// that it kept them until its next calls: 1.0 to 1.2 MiB cached 3 s after
/// this burst, against 0.4 MiB with it (what the scrape that reads the
/// gauge itself leaves, and the main thread's cache).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_left_idle_gives_its_cache_of_freed_blocks_back() {
    use jiffy_server::proto::cache_client::DeleteRequest;
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--metrics-listen",
        "127.0.0.1:0",
        "--workers",
        "1",
    ];
    let server = common::ServerProcess::spawn(&args, &[]);
    let channel = common::connect_with_cache(server.url()).await;
    // 50 calls at a time, each with a 24 KiB value (a large size class the
    // cache keeps up to 20 of), written and deleted: 4.8 MiB freed.
    let client = ScsClient::new(channel);
    let mut callers = tokio::task::JoinSet::new();
    for caller in 0..50u32 {
        let mut client = client.clone();
        callers.spawn(async move {
            for n in (0..4).map(|i| caller * 4 + i) {
                let key = Bytes::from(format!("key:{n}"));
                let set = SetRequest {
                    cache_key: key.clone(),
                    cache_body: Bytes::from(vec![n as u8; 24 << 10]),
                    ttl_milliseconds: 60_000,
                };
                client.set(in_cache("c", set)).await.unwrap();
                let delete = DeleteRequest { cache_key: key };
                client.delete(in_cache("c", delete)).await.unwrap();
            }
        });
    }
    while let Some(caller) = callers.join_next().await {
        caller.unwrap();
    }
    // No call meanwhile, not even a scrape: a scrape's allocations would
    // trim the cache as any work does. A second of margin.
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let metrics = common::scrape(server.metrics_addr.unwrap()).await;
    let cached = sample(&metrics, "jiffy_allocator_thread_cache_bytes").unwrap();
    eprintln!("cached 3 s after the burst: {} KiB", cached / 1024.0);
    assert!(cached < (640 << 10) as f64, "{cached} bytes still cached");
}
