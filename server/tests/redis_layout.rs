//! Where the cluster backend puts things: one cache's items spread over
//! every master (a single hash tag per cache would pin a cache to one
//! node), and FlushCache empties a cache without walking the keyspace.

use crate::common;

use bytes::Bytes;
use common::in_cache;
use common::redis_cluster::{redis_cli, FrontEndClient, RedisCluster};
use jiffy_server::proto::cache_client::{ECacheResult, GetRequest, SetRequest};
use jiffy_server::proto::control_client::{CreateCacheRequest, FlushCacheRequest};
use tokio::task::JoinSet;

const KEYS: usize = 3_000;
/// Calls in flight while filling or reading a cache.
const TASKS: usize = 8;

fn key(i: usize) -> Bytes {
    Bytes::from(format!("key-{i}"))
}

async fn start() -> (
    RedisCluster,
    Vec<FrontEndClient>,
    Vec<common::ServerProcess>,
) {
    let cluster = RedisCluster::start().await;
    let servers = vec![cluster.front_end(&[]), cluster.front_end(&[])];
    let mut clients = Vec::new();
    for server in &servers {
        clients.push(FrontEndClient::connect(server).await);
    }
    (cluster, clients, servers)
}

async fn create_cache(client: &mut FrontEndClient, name: &str) {
    let request = CreateCacheRequest {
        cache_name: name.into(),
    };
    client.control.create_cache(request).await.unwrap();
}

/// Sets keys 0..KEYS of `cache` from TASKS tasks, spread over the front-ends.
async fn fill(clients: &[FrontEndClient], cache: &'static str) {
    let mut tasks = JoinSet::new();
    for task in 0..TASKS {
        let mut client = clients[task % clients.len()].clone();
        tasks.spawn(async move {
            for i in (task..KEYS).step_by(TASKS) {
                let set = SetRequest {
                    cache_key: key(i),
                    cache_body: Bytes::from_static(b"value"),
                    ttl_milliseconds: 600_000,
                };
                client.data.set(in_cache(cache, set)).await.unwrap();
            }
        });
    }
    tasks.join_all().await;
}

/// How many of keys 0..KEYS of `cache` are hits, read from TASKS tasks.
async fn hits(clients: &[FrontEndClient], cache: &'static str) -> usize {
    let mut tasks = JoinSet::new();
    for task in 0..TASKS {
        let mut client = clients[task % clients.len()].clone();
        tasks.spawn(async move {
            let mut hits = 0;
            for i in (task..KEYS).step_by(TASKS) {
                let get = GetRequest { cache_key: key(i) };
                let answer = client.data.get(in_cache(cache, get)).await.unwrap();
                hits += usize::from(answer.into_inner().result == ECacheResult::Hit as i32);
            }
            hits
        });
    }
    tasks.join_all().await.into_iter().sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_cache_spreads_over_every_master() {
    let (cluster, mut clients, _servers) = start().await;
    create_cache(&mut clients[0], "spread").await;
    fill(&clients, "spread").await;

    let masters = cluster.masters().await;
    assert_eq!(masters.len(), 3, "masters: {masters:?}");
    let mut sizes = Vec::new();
    for &master in &masters {
        sizes.push(cluster.dbsize(master).await);
    }
    let total: u64 = sizes.iter().sum();
    eprintln!("{KEYS} keys of one cache: {sizes:?} keys on the masters {masters:?}");
    assert!(total >= KEYS as u64, "only {total} keys in the cluster");
    for (master, size) in masters.iter().zip(&sizes) {
        assert!(
            *size as f64 >= 0.15 * total as f64,
            "master {master} holds {size} of {total} keys: {sizes:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flush_cache_does_not_scan_the_keyspace() {
    let (cluster, mut clients, _servers) = start().await;
    create_cache(&mut clients[0], "flushed").await;
    create_cache(&mut clients[1], "kept").await;
    fill(&clients, "flushed").await;
    fill(&clients, "kept").await;
    assert_eq!(hits(&clients, "flushed").await, KEYS);

    let flush = FlushCacheRequest {
        cache_name: "flushed".into(),
    };
    clients[1].control.flush_cache(flush).await.unwrap();
    assert_eq!(
        hits(&clients, "flushed").await,
        0,
        "items left after the flush"
    );
    assert_eq!(
        hits(&clients, "kept").await,
        KEYS,
        "the other cache lost items"
    );

    for node in cluster.nodes() {
        let stats = redis_cli(node.port, &["INFO", "commandstats"]).await;
        for command in ["cmdstat_scan:", "cmdstat_keys:"] {
            assert!(
                !stats.contains(command),
                "node {} ran {command} {stats}",
                node.port
            );
        }
    }
}
