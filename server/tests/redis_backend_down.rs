//! A front-end whose cluster is gone or hung answers UNAVAILABLE within
//! bounded time instead of holding calls, and serves again, without a
//! restart, once the cluster is back.

use crate::common;

use std::time::{Duration, Instant};

use bytes::Bytes;
use common::in_cache;
use common::redis_cluster::{timed, with_deadline, Ending, FrontEndClient, RedisCluster};
use jiffy_server::proto::cache_client::{ECacheResult, GetRequest, SetRequest};
use jiffy_server::proto::control_client::{CreateCacheRequest, ListCachesRequest};
use tonic::Code;

fn get(key: &str) -> GetRequest {
    GetRequest {
        cache_key: Bytes::copy_from_slice(key.as_bytes()),
    }
}

fn set(key: &str, value: &str) -> SetRequest {
    SetRequest {
        cache_key: Bytes::copy_from_slice(key.as_bytes()),
        cache_body: Bytes::copy_from_slice(value.as_bytes()),
        ttl_milliseconds: 60_000,
    }
}

async fn ready_cache(client: &mut FrontEndClient) {
    let create = CreateCacheRequest {
        cache_name: "c".into(),
    };
    client.control.create_cache(create).await.unwrap();
    client
        .data
        .set(in_cache("c", set("k", "before")))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_cluster_is_unavailable_at_once() {
    let cluster = RedisCluster::start().await;
    let server = cluster.front_end(&[]);
    let mut client = FrontEndClient::connect(&server).await;
    ready_cache(&mut client).await;

    cluster.kill_all();
    // Several calls: reconnect attempts must not start to hold them.
    for attempt in 0..3 {
        let call = client.data.get(with_deadline(
            in_cache("c", get("k")),
            Duration::from_secs(5),
        ));
        let (result, elapsed) = timed(call).await;
        eprintln!(
            "dead cluster: Get {attempt} answered {:?} in {elapsed:?}",
            Ending::of(&result)
        );
        assert_eq!(
            Ending::of(&result),
            Ending::Failed(Code::Unavailable),
            "{result:?}"
        );
        assert!(
            elapsed < Duration::from_secs(2),
            "UNAVAILABLE took {elapsed:?}"
        );
    }
    let (result, elapsed) = timed(client.data.set(in_cache("c", set("k", "after")))).await;
    assert_eq!(
        Ending::of(&result),
        Ending::Failed(Code::Unavailable),
        "{result:?}"
    );
    assert!(elapsed < Duration::from_secs(2), "Set took {elapsed:?}");
    let list = client.control.list_caches(ListCachesRequest::default());
    let (result, elapsed) = timed(list).await;
    assert_eq!(
        Ending::of(&result),
        Ending::Failed(Code::Unavailable),
        "{result:?}"
    );
    assert!(
        elapsed < Duration::from_secs(2),
        "ListCaches took {elapsed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_cluster_is_unavailable_by_the_store_timeout_and_then_serves_again() {
    let cluster = RedisCluster::start().await;
    let server = cluster.front_end(&["--store-timeout", "500ms"]);
    let mut client = FrontEndClient::connect(&server).await;
    ready_cache(&mut client).await;

    let masters = cluster.masters().await;
    for &master in &masters {
        cluster.pause(master);
    }
    // Both calls at once, and the masters resumed right after: frozen for
    // more than the cluster's node timeout (1 s), they would be failed over.
    let mut other = client.clone();
    let no_deadline = timed(client.data.get(in_cache("c", get("k"))));
    let short_deadline = timed(other.data.get(with_deadline(
        in_cache("c", get("k")),
        Duration::from_millis(300),
    )));
    let ((unbounded, unbounded_took), (bounded, bounded_took)) =
        tokio::join!(no_deadline, short_deadline);
    for &master in &masters {
        cluster.resume(master);
    }
    let resumed = Instant::now();
    eprintln!(
        "hung cluster: no deadline: {:?} in {unbounded_took:?}; 300 ms deadline: {:?} in {bounded_took:?}",
        Ending::of(&unbounded),
        Ending::of(&bounded)
    );
    assert_eq!(
        Ending::of(&unbounded),
        Ending::Failed(Code::Unavailable),
        "{unbounded:?}"
    );
    assert!(
        unbounded_took < Duration::from_millis(1_500),
        "took {unbounded_took:?}"
    );
    assert!(
        matches!(
            Ending::of(&bounded),
            Ending::Failed(Code::DeadlineExceeded | Code::Unavailable) | Ending::ClientGaveUp
        ),
        "{bounded:?}"
    );
    assert!(
        bounded_took < Duration::from_secs(1),
        "took {bounded_took:?}"
    );

    // Serving again, same process: the first call may still meet a
    // connection the timeout gave up on, so allow a few seconds.
    let answered = loop {
        let call = client.data.get(with_deadline(
            in_cache("c", get("k")),
            Duration::from_secs(2),
        ));
        match call.await {
            Ok(answer) => break answer.into_inner(),
            Err(status) => {
                assert!(
                    resumed.elapsed() < Duration::from_secs(5),
                    "still failing 5 s after SIGCONT: {status:?}"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    eprintln!(
        "hung cluster: serving again {:?} after SIGCONT",
        resumed.elapsed()
    );
    assert_eq!(answered.result, ECacheResult::Hit as i32);
    assert_eq!(answered.cache_body, "before");
    client
        .data
        .set(in_cache("c", set("k", "after")))
        .await
        .unwrap();
    let answered = client.data.get(in_cache("c", get("k"))).await.unwrap();
    assert_eq!(answered.into_inner().cache_body, "after");
}
