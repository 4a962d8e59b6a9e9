//! Topics across front-ends over a real Redis Cluster (three masters, three
//! replicas): a message published through one jiffy-server reaches the
//! subscribers of every other, in order and numbered alike; a subscriber
//! resumes from the cluster's stream on another front-end; deleting the
//! cache through one front-end ends subscriptions on the other; and a
//! master failover during a subscription is a discontinuity onto a new page,
//! then the messages published since, in order.

use crate::common;

use std::time::{Duration, Instant};

use common::redis_cluster::{redis_cli, RedisCluster};
use common::topics::{publish, subscription_request, Got, Pubsub, Reader};
use common::{assert_status, ServerProcess};
use jiffy_server::proto::cache_client::pubsub::pubsub_client::PubsubClient;
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::{CreateCacheRequest, DeleteCacheRequest};
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Request};

const CACHE: &str = "topics";

async fn channel(server: &ServerProcess) -> Channel {
    Endpoint::from_shared(server.url())
        .unwrap()
        .connect()
        .await
        .unwrap()
}

/// Two front-ends over a fresh cluster, the cache made through the first,
/// and a topic client on each.
async fn start() -> (RedisCluster, [ServerProcess; 2], [Pubsub; 2]) {
    let cluster = RedisCluster::start().await;
    let servers = [cluster.front_end(&[]), cluster.front_end(&[])];
    let first = channel(&servers[0]).await;
    let create = CreateCacheRequest {
        cache_name: CACHE.to_owned(),
    };
    ScsControlClient::new(first.clone())
        .create_cache(create)
        .await
        .unwrap();
    let clients = [
        PubsubClient::new(first),
        PubsubClient::new(channel(&servers[1]).await),
    ];
    (cluster, servers, clients)
}

#[tokio::test(flavor = "multi_thread")]
async fn messages_reach_every_front_end_in_order_and_numbered_alike() {
    let (_cluster, _servers, [mut a, mut b]) = start().await;
    let mut on_a = Reader::subscribe(&mut a, CACHE, "orders").await;
    let mut on_b = Reader::subscribe(&mut b, CACHE, "orders").await;
    // Through both front-ends, one after the other.
    for n in 1..=60 {
        let through = if n % 2 == 0 { &mut a } else { &mut b };
        publish(through, CACHE, "orders", &format!("m{n}"))
            .await
            .unwrap();
    }
    let mut page = None;
    for n in 1..=60u64 {
        let (seq_a, page_a, value_a) = on_a.item().await;
        let (seq_b, page_b, value_b) = on_b.item().await;
        assert_eq!((seq_a, &value_a), (n, &format!("m{n}")));
        assert_eq!((seq_b, page_b, &value_b), (seq_a, page_a, &value_a));
        assert_eq!(*page.get_or_insert(page_a), page_a, "one page");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn topics_spread_over_the_cluster_each_keep_their_numbering() {
    let (_cluster, _servers, [mut a, mut b]) = start().await;
    let topics: Vec<String> = (0..12).map(|n| format!("topic-{n}")).collect();
    let mut readers = Vec::new();
    for topic in &topics {
        readers.push(Reader::subscribe(&mut a, CACHE, topic).await);
    }
    for round in 1..=3 {
        for topic in &topics {
            publish(&mut b, CACHE, topic, &format!("{topic}/{round}"))
                .await
                .unwrap();
        }
    }
    for (topic, reader) in topics.iter().zip(&mut readers) {
        for round in 1..=3u64 {
            let (seq, _, value) = reader.item().await;
            assert_eq!((seq, value), (round, format!("{topic}/{round}")));
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_subscriber_resumes_from_the_cluster_on_another_front_end() {
    let (_cluster, _servers, [mut a, mut b]) = start().await;
    // Published through one front-end with no subscriber anywhere.
    for n in 1..=10 {
        publish(&mut a, CACHE, "t", &format!("m{n}")).await.unwrap();
    }
    let page = Reader::subscribe(&mut b, CACHE, "t").await.item().await.1;
    let request = Request::new(subscription_request(CACHE, "t", 4, page));
    let mut reader = Reader::open(&mut b, request).await.unwrap();
    for n in 4..=10 {
        assert_eq!(reader.item().await, (n, page, format!("m{n}")));
    }
    publish(&mut a, CACHE, "t", "m11").await.unwrap();
    assert_eq!(reader.item().await.0, 11);
}

#[tokio::test(flavor = "multi_thread")]
async fn deleting_the_cache_through_one_front_end_ends_subscriptions_on_the_other() {
    let (_cluster, servers, [_a, mut b]) = start().await;
    let mut on_b = Reader::subscribe(&mut b, CACHE, "t").await;
    let delete = DeleteCacheRequest {
        cache_name: CACHE.to_owned(),
    };
    let started = Instant::now();
    ScsControlClient::new(channel(&servers[0]).await)
        .delete_cache(delete)
        .await
        .unwrap();
    let status = on_b.end().await;
    assert_status::<()>(Err(status), Code::NotFound, None);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let missing = publish(&mut b, CACHE, "t", "x").await;
    assert_status(missing, Code::NotFound, None);
}

/// The master that holds `key`, by asking each.
async fn master_holding(cluster: &RedisCluster, key: &str) -> u16 {
    for port in cluster.masters().await {
        if redis_cli(port, &["EXISTS", key]).await.trim() == "1" {
            return port;
        }
    }
    panic!("no master holds {key}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_master_failover_is_a_discontinuity_onto_a_new_page() {
    let (cluster, _servers, [mut a, mut b]) = start().await;
    let mut on_a = Reader::subscribe(&mut a, CACHE, "t").await;
    for n in 1..=5 {
        publish(&mut b, CACHE, "t", &format!("before-{n}"))
            .await
            .unwrap();
    }
    let mut old_page = 0;
    for n in 1..=5 {
        let (seq, page, _) = on_a.item().await;
        assert_eq!(seq, n);
        old_page = page;
    }
    // The topic's hash, under the tag of the bucket its name falls in.
    let key = format!("jt:{{{CACHE}/{}}}:t", jiffy_bucket("t"));
    let victim = master_holding(&cluster, &key).await;
    let replica = cluster.replica_of(victim).await;
    cluster.wait_synced(victim, replica).await;
    cluster.kill(victim);
    cluster.promote(replica).await;

    // Publishing answers UNAVAILABLE until the front-ends follow the new
    // slot map, then goes on.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut published = 0;
    while published < 5 {
        assert!(Instant::now() < deadline, "publishing did not recover");
        match publish(&mut b, CACHE, "t", &format!("after-{}", published + 1)).await {
            Ok(()) => published += 1,
            Err(status) => {
                assert_eq!(status.code(), Code::Unavailable, "{status:?}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    // The subscriber: a discontinuity naming the new page, then the new
    // messages from 1, in order.
    let mut told = None;
    let mut after = Vec::new();
    while after.len() < 5 {
        match on_a.next_event().await.unwrap() {
            Some(Got::Discontinuity { last, page, .. }) => {
                assert!(told.is_none(), "one discontinuity");
                assert_eq!(last, 5);
                told = Some(page);
            }
            Some(Got::Item { seq, page, value }) => {
                assert_eq!(
                    Some(page),
                    told,
                    "items after the discontinuity, on its page"
                );
                after.push((seq, common::topics::as_text(&value)));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(told.unwrap() > old_page);
    let expected: Vec<(u64, String)> = (1..=5).map(|n| (n, format!("after-{n}"))).collect();
    assert_eq!(after, expected);
    // Live again through pub/sub on the new master, not only through the
    // once-a-second read-back: three messages, each within half a second.
    for n in 6..=8 {
        let sent = Instant::now();
        publish(&mut b, CACHE, "t", "live").await.unwrap();
        assert_eq!(on_a.item().await.0, n);
        assert!(
            sent.elapsed() < Duration::from_millis(500),
            "{:?}",
            sent.elapsed()
        );
    }
}

/// The bucket of a topic name: the first 1,024 buckets of FNV-1a, as the
/// Redis store's keys use (`backend/redis/keys.rs`, checked there).
fn jiffy_bucket(name: &str) -> u64 {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    hash % 1024
}
