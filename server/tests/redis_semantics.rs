//! Two stateless front-ends over one real Redis Cluster answer as one
//! server would: what is written or changed through one is seen through the
//! other at once, with the statuses and results of the embedded store.

use crate::common;

use bytes::Bytes;
use common::redis_cluster::{FrontEndClient, RedisCluster};
use common::{assert_status, in_cache};
use jiffy_server::proto::cache_client::*;
use jiffy_server::proto::common as cond;
use jiffy_server::proto::control_client::*;
use tonic::Code;

fn bytes(text: &str) -> Bytes {
    Bytes::copy_from_slice(text.as_bytes())
}

fn set(key: &str, value: &str, ttl_ms: u64) -> SetRequest {
    SetRequest {
        cache_key: bytes(key),
        cache_body: bytes(value),
        ttl_milliseconds: ttl_ms,
    }
}

fn get(key: &str) -> GetRequest {
    GetRequest {
        cache_key: bytes(key),
    }
}

fn create(name: &str) -> CreateCacheRequest {
    CreateCacheRequest {
        cache_name: name.into(),
    }
}

/// The body of `key` in `cache` read through `client`; `None` on a miss.
async fn read(client: &mut FrontEndClient, cache: &str, key: &str) -> Option<Bytes> {
    let answer = client
        .data
        .get(in_cache(cache, get(key)))
        .await
        .unwrap()
        .into_inner();
    match ECacheResult::try_from(answer.result).unwrap() {
        ECacheResult::Hit => Some(answer.cache_body),
        ECacheResult::Miss => None,
        other => panic!("Get of {key} answered {other:?}"),
    }
}

async fn ttl_left(client: &mut FrontEndClient, cache: &str, key: &str) -> Option<u64> {
    let request = ItemGetTtlRequest {
        cache_key: bytes(key),
    };
    let answer = client
        .data
        .item_get_ttl(in_cache(cache, request))
        .await
        .unwrap()
        .into_inner();
    match answer.result.unwrap() {
        item_get_ttl_response::Result::Found(found) => Some(found.remaining_ttl_millis),
        item_get_ttl_response::Result::Missing(_) => None,
    }
}

async fn two_front_ends(
    cluster: &RedisCluster,
) -> (FrontEndClient, FrontEndClient, [common::ServerProcess; 2]) {
    let servers = [cluster.front_end(&[]), cluster.front_end(&[])];
    let a = FrontEndClient::connect(&servers[0]).await;
    let b = FrontEndClient::connect(&servers[1]).await;
    (a, b, servers)
}

#[tokio::test]
async fn scalar_calls_through_one_front_end_see_writes_through_the_other() {
    let cluster = RedisCluster::start().await;
    let (mut a, mut b, _servers) = two_front_ends(&cluster).await;
    a.control.create_cache(create("c")).await.unwrap();

    a.data
        .set(in_cache("c", set("k", "from a", 60_000)))
        .await
        .unwrap();
    assert_eq!(read(&mut b, "c", "k").await, Some(bytes("from a")));

    // SetIfNotExists through B sees A's key, and stores a new one A reads.
    let if_absent = |key: &str| SetIfNotExistsRequest {
        cache_key: bytes(key),
        cache_body: bytes("from b"),
        ttl_milliseconds: 60_000,
    };
    let answer = b
        .data
        .set_if_not_exists(in_cache("c", if_absent("k")))
        .await;
    assert!(matches!(
        answer.unwrap().into_inner().result,
        Some(set_if_not_exists_response::Result::NotStored(_))
    ));
    let answer = b
        .data
        .set_if_not_exists(in_cache("c", if_absent("new")))
        .await;
    assert!(matches!(
        answer.unwrap().into_inner().result,
        Some(set_if_not_exists_response::Result::Stored(_))
    ));
    assert_eq!(read(&mut a, "c", "k").await, Some(bytes("from a")));
    assert_eq!(read(&mut a, "c", "new").await, Some(bytes("from b")));

    set_if_conditions_across(&mut a, &mut b).await;
    increments_across(&mut a, &mut b).await;
    ttls_across(&mut a, &mut b).await;

    b.data
        .delete(in_cache(
            "c",
            DeleteRequest {
                cache_key: bytes("k"),
            },
        ))
        .await
        .unwrap();
    assert_eq!(read(&mut a, "c", "k").await, None);
}

/// Each SetIf condition, through B, against a key A wrote or A deleted.
async fn set_if_conditions_across(a: &mut FrontEndClient, b: &mut FrontEndClient) {
    use set_if_request::Condition as C;
    // (condition, stores when the key holds "old", stores when it is absent)
    let cases = [
        (C::Present(cond::Present {}), true, false),
        (
            C::PresentAndNotEqual(cond::PresentAndNotEqual {
                value_to_check: bytes("x"),
            }),
            true,
            false,
        ),
        (C::Absent(cond::Absent {}), false, true),
        (
            C::Equal(cond::Equal {
                value_to_check: bytes("old"),
            }),
            true,
            false,
        ),
        (
            C::AbsentOrEqual(cond::AbsentOrEqual {
                value_to_check: bytes("x"),
            }),
            false,
            true,
        ),
        (
            C::NotEqual(cond::NotEqual {
                value_to_check: bytes("old"),
            }),
            false,
            true,
        ),
    ];
    for (condition, when_present, when_absent) in cases {
        for (present, expected) in [(true, when_present), (false, when_absent)] {
            if present {
                a.data
                    .set(in_cache("c", set("cond", "old", 60_000)))
                    .await
                    .unwrap();
            } else {
                let delete = DeleteRequest {
                    cache_key: bytes("cond"),
                };
                a.data.delete(in_cache("c", delete)).await.unwrap();
            }
            let request = SetIfRequest {
                cache_key: bytes("cond"),
                cache_body: bytes("new"),
                ttl_milliseconds: 60_000,
                condition: Some(condition.clone()),
            };
            let answer = b
                .data
                .set_if(in_cache("c", request))
                .await
                .unwrap()
                .into_inner();
            let stored = matches!(answer.result, Some(set_if_response::Result::Stored(_)));
            assert_eq!(stored, expected, "{condition:?} with key present={present}");
            let expected_body = match (stored, present) {
                (true, _) => Some(bytes("new")),
                (false, true) => Some(bytes("old")),
                (false, false) => None,
            };
            assert_eq!(
                read(a, "c", "cond").await,
                expected_body,
                "{condition:?} present={present}"
            );
        }
    }
}

/// Increments alternating between the front-ends add up exactly.
async fn increments_across(a: &mut FrontEndClient, b: &mut FrontEndClient) {
    let mut total = 0;
    for amount in 1..=60_i64 {
        let client = if amount % 2 == 0 { &mut *a } else { &mut *b };
        let request = IncrementRequest {
            cache_key: bytes("n"),
            amount,
            ttl_milliseconds: 60_000,
        };
        let answer = client.data.increment(in_cache("c", request)).await.unwrap();
        total += amount;
        assert_eq!(answer.into_inner().value, total);
    }
    let text = total.to_string();
    assert_eq!(read(a, "c", "n").await, Some(bytes(&text)));
    assert_eq!(read(b, "c", "n").await, Some(bytes(&text)));
}

async fn update_ttl(
    client: &mut FrontEndClient,
    key: &str,
    update: update_ttl_request::UpdateTtl,
) -> update_ttl_response::Result {
    let request = UpdateTtlRequest {
        cache_key: bytes(key),
        update_ttl: Some(update),
    };
    let answer = client.data.update_ttl(in_cache("c", request)).await;
    answer.unwrap().into_inner().result.unwrap()
}

/// TTL changes through one front-end are what the other reports.
async fn ttls_across(a: &mut FrontEndClient, b: &mut FrontEndClient) {
    use update_ttl_request::UpdateTtl;
    use update_ttl_response::Result as R;
    a.data
        .set(in_cache("c", set("t", "v", 10_000)))
        .await
        .unwrap();
    let left = ttl_left(b, "c", "t").await.unwrap();
    assert!((9_000..=10_000).contains(&left), "{left} ms left");

    let r = update_ttl(b, "t", UpdateTtl::IncreaseToMilliseconds(5_000)).await;
    assert!(matches!(r, R::NotSet(_)), "{r:?}");
    let r = update_ttl(b, "t", UpdateTtl::IncreaseToMilliseconds(20_000)).await;
    assert!(matches!(r, R::Set(_)), "{r:?}");
    let left = ttl_left(a, "c", "t").await.unwrap();
    assert!((19_000..=20_000).contains(&left), "{left} ms left");
    let r = update_ttl(a, "t", UpdateTtl::DecreaseToMilliseconds(30_000)).await;
    assert!(matches!(r, R::NotSet(_)), "{r:?}");
    let r = update_ttl(a, "t", UpdateTtl::DecreaseToMilliseconds(8_000)).await;
    assert!(matches!(r, R::Set(_)), "{r:?}");
    let left = ttl_left(b, "c", "t").await.unwrap();
    assert!((7_000..=8_000).contains(&left), "{left} ms left");
    let r = update_ttl(b, "t", UpdateTtl::OverwriteToMilliseconds(50_000)).await;
    assert!(matches!(r, R::Set(_)), "{r:?}");
    let left = ttl_left(a, "c", "t").await.unwrap();
    assert!((49_000..=50_000).contains(&left), "{left} ms left");
    let r = update_ttl(a, "absent", UpdateTtl::OverwriteToMilliseconds(1_000)).await;
    assert!(matches!(r, R::Missing(_)), "{r:?}");
    assert_eq!(ttl_left(b, "c", "absent").await, None);
}

#[tokio::test]
async fn caches_made_flushed_and_deleted_through_one_front_end_are_so_through_the_other() {
    let cluster = RedisCluster::start().await;
    let (mut a, mut b, _servers) = two_front_ends(&cluster).await;

    a.control.create_cache(create("shared")).await.unwrap();
    let listed = b.control.list_caches(ListCachesRequest::default()).await;
    let names: Vec<String> = listed
        .unwrap()
        .into_inner()
        .cache
        .into_iter()
        .map(|cache| cache.cache_name)
        .collect();
    assert_eq!(names, ["shared"]);
    assert_status(
        b.control.create_cache(create("shared")).await,
        Code::AlreadyExists,
        None,
    );

    // Enough keys to land in many buckets, hence on every master.
    let keys: Vec<String> = (0..200).map(|i| format!("key-{i}")).collect();
    for key in &keys {
        a.data
            .set(in_cache("shared", set(key, "v", 60_000)))
            .await
            .unwrap();
    }
    let flush = FlushCacheRequest {
        cache_name: "shared".into(),
    };
    b.control.flush_cache(flush).await.unwrap();
    // No sleep: the flush is complete when it is acknowledged.
    for key in &keys {
        assert_eq!(
            read(&mut a, "shared", key).await,
            None,
            "{key} after the flush"
        );
    }
    // The flushed cache is still there and takes writes.
    a.data
        .set(in_cache("shared", set("after", "flush", 60_000)))
        .await
        .unwrap();
    assert_eq!(read(&mut b, "shared", "after").await, Some(bytes("flush")));

    let delete = DeleteCacheRequest {
        cache_name: "shared".into(),
    };
    a.control.delete_cache(delete.clone()).await.unwrap();
    assert_status(
        b.data.get(in_cache("shared", get("after"))).await,
        Code::NotFound,
        None,
    );
    assert_status(b.control.delete_cache(delete).await, Code::NotFound, None);
    let flush = FlushCacheRequest {
        cache_name: "shared".into(),
    };
    assert_status(b.control.flush_cache(flush).await, Code::NotFound, None);
    let listed = a.control.list_caches(ListCachesRequest::default()).await;
    assert!(listed.unwrap().into_inner().cache.is_empty());

    // A cache made again after its deletion starts empty.
    b.control.create_cache(create("shared")).await.unwrap();
    assert_eq!(read(&mut a, "shared", "after").await, None);
}
