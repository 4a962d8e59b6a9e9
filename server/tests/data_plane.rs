//! The data-plane calls over a real socket, as a client sees them.

use crate::common;

use bytes::Bytes;
use common::{assert_status, in_cache, TestServer};
use jiffy_server::proto::cache_client::*;
use jiffy_server::proto::common as cond;
use tokio_stream::StreamExt;
use tonic::Code;

fn set(key: &str, value: &str, ttl_ms: u64) -> SetRequest {
    SetRequest {
        cache_key: Bytes::copy_from_slice(key.as_bytes()),
        cache_body: Bytes::copy_from_slice(value.as_bytes()),
        ttl_milliseconds: ttl_ms,
    }
}

fn get(key: &str) -> GetRequest {
    GetRequest {
        cache_key: Bytes::copy_from_slice(key.as_bytes()),
    }
}

fn result_of(response: &GetResponse) -> ECacheResult {
    ECacheResult::try_from(response.result).unwrap()
}

#[tokio::test]
async fn set_get_delete_round_trip() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    let answer = c
        .client
        .set(c.request(set("k", "v", 60_000)))
        .await
        .unwrap();
    assert_eq!(answer.get_ref().result, ECacheResult::Ok as i32);
    let hit = c
        .client
        .get(c.request(get("k")))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(result_of(&hit), ECacheResult::Hit);
    assert_eq!(hit.cache_body, "v");
    c.client
        .delete(c.request(DeleteRequest {
            cache_key: "k".into(),
        }))
        .await
        .unwrap();
    let miss = c
        .client
        .get(c.request(get("k")))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(result_of(&miss), ECacheResult::Miss);
}

#[tokio::test]
async fn caches_are_separate_namespaces() {
    let server = TestServer::start().await;
    let mut a = server.cache("a").await;
    let b = server.cache("b").await;
    a.client
        .set(a.request(set("k", "in a", 60_000)))
        .await
        .unwrap();
    let miss = a
        .client
        .get(b.request(get("k")))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(result_of(&miss), ECacheResult::Miss);
}

#[tokio::test]
async fn missing_or_unknown_cache_is_refused() {
    let server = TestServer::start().await;
    let mut client = server.data().await;
    let status = assert_status(
        client.get(tonic::Request::new(get("k"))).await,
        Code::InvalidArgument,
        None,
    );
    assert!(status.message().contains("cache"), "{status:?}");
    assert_status(
        client.get(in_cache("nope", get("k"))).await,
        Code::NotFound,
        None,
    );
}

#[tokio::test]
async fn set_if_conditions() {
    use set_if_request::Condition as C;
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    let v = |s: &str| Bytes::copy_from_slice(s.as_bytes());
    // (condition, stores when the key holds "old", stores when the key is absent)
    let cases = [
        (C::Present(cond::Present {}), true, false),
        (
            C::PresentAndNotEqual(cond::PresentAndNotEqual {
                value_to_check: v("x"),
            }),
            true,
            false,
        ),
        (C::Absent(cond::Absent {}), false, true),
        (
            C::Equal(cond::Equal {
                value_to_check: v("old"),
            }),
            true,
            false,
        ),
        (
            C::AbsentOrEqual(cond::AbsentOrEqual {
                value_to_check: v("x"),
            }),
            false,
            true,
        ),
        (
            C::NotEqual(cond::NotEqual {
                value_to_check: v("old"),
            }),
            false,
            true,
        ),
    ];
    for (condition, when_present, when_absent) in cases {
        for (present, expected) in [(true, when_present), (false, when_absent)] {
            c.client
                .delete(c.request(DeleteRequest { cache_key: v("k") }))
                .await
                .unwrap();
            if present {
                c.client
                    .set(c.request(set("k", "old", 60_000)))
                    .await
                    .unwrap();
            }
            let request = SetIfRequest {
                cache_key: v("k"),
                cache_body: v("new"),
                ttl_milliseconds: 60_000,
                condition: Some(condition.clone()),
            };
            let answer = c
                .client
                .set_if(c.request(request))
                .await
                .unwrap()
                .into_inner();
            let stored = matches!(answer.result, Some(set_if_response::Result::Stored(_)));
            assert_eq!(stored, expected, "{condition:?} with key present={present}");
            let now = c
                .client
                .get(c.request(get("k")))
                .await
                .unwrap()
                .into_inner();
            let expected_body = match (stored, present) {
                (true, _) => "new",
                (false, true) => "old",
                (false, false) => "",
            };
            assert_eq!(
                now.cache_body, expected_body,
                "{condition:?} present={present}"
            );
        }
    }
}

#[tokio::test]
async fn increment_counts_in_base_10_text() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    let inc = |amount| IncrementRequest {
        cache_key: "n".into(),
        amount,
        ttl_milliseconds: 60_000,
    };
    assert_eq!(
        c.client
            .increment(c.request(inc(5)))
            .await
            .unwrap()
            .get_ref()
            .value,
        5
    );
    assert_eq!(
        c.client
            .increment(c.request(inc(-7)))
            .await
            .unwrap()
            .get_ref()
            .value,
        -2
    );
    let text = c
        .client
        .get(c.request(get("n")))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(text.cache_body, "-2");
    c.client
        .set(c.request(set("n", "not a number", 60_000)))
        .await
        .unwrap();
    assert_status(
        c.client.increment(c.request(inc(1))).await,
        Code::FailedPrecondition,
        None,
    );
}

#[tokio::test]
async fn ttl_calls() {
    use update_ttl_request::UpdateTtl;
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    c.client
        .set(c.request(set("k", "v", 10_000)))
        .await
        .unwrap();
    let ttl_of = |key: &str| ItemGetTtlRequest {
        cache_key: Bytes::copy_from_slice(key.as_bytes()),
    };
    let found = c
        .client
        .item_get_ttl(c.request(ttl_of("k")))
        .await
        .unwrap()
        .into_inner();
    let Some(item_get_ttl_response::Result::Found(found)) = found.result else {
        panic!("expected Found, got {found:?}")
    };
    assert!((9_000..=10_000).contains(&found.remaining_ttl_millis));

    let update = |update| UpdateTtlRequest {
        cache_key: "k".into(),
        update_ttl: Some(update),
    };
    let outcome = |answer: UpdateTtlResponse| answer.result.unwrap();
    use update_ttl_response::Result as R;
    let increase = c
        .client
        .update_ttl(c.request(update(UpdateTtl::IncreaseToMilliseconds(5_000))));
    assert!(matches!(
        outcome(increase.await.unwrap().into_inner()),
        R::NotSet(_)
    ));
    let increase = c
        .client
        .update_ttl(c.request(update(UpdateTtl::IncreaseToMilliseconds(20_000))));
    assert!(matches!(
        outcome(increase.await.unwrap().into_inner()),
        R::Set(_)
    ));
    let decrease = c
        .client
        .update_ttl(c.request(update(UpdateTtl::DecreaseToMilliseconds(30_000))));
    assert!(matches!(
        outcome(decrease.await.unwrap().into_inner()),
        R::NotSet(_)
    ));
    let overwrite = c
        .client
        .update_ttl(c.request(update(UpdateTtl::OverwriteToMilliseconds(1_000))));
    assert!(matches!(
        outcome(overwrite.await.unwrap().into_inner()),
        R::Set(_)
    ));
    let missing = UpdateTtlRequest {
        cache_key: "absent".into(),
        update_ttl: Some(UpdateTtl::OverwriteToMilliseconds(1_000)),
    };
    let missing = c
        .client
        .update_ttl(c.request(missing))
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(outcome(missing), R::Missing(_)));

    let kind = c
        .client
        .item_get_type(c.request(ItemGetTypeRequest {
            cache_key: "k".into(),
        }))
        .await
        .unwrap()
        .into_inner();
    let Some(item_get_type_response::Result::Found(found)) = kind.result else {
        panic!("expected Found, got {kind:?}")
    };
    assert_eq!(
        found.item_type,
        item_get_type_response::ItemType::Scalar as i32
    );
}

#[tokio::test]
async fn expired_items_are_never_returned() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    c.client
        .set(c.request(set("short", "v", 50)))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    let miss = c
        .client
        .get(c.request(get("short")))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(result_of(&miss), ECacheResult::Miss);
    let exists = c
        .client
        .keys_exist(c.request(KeysExistRequest {
            cache_keys: vec!["short".into()],
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(exists.exists, vec![false]);
}

#[tokio::test]
async fn batches_answer_in_request_order() {
    let server = TestServer::start().await;
    let mut c = server.cache("c").await;
    let items = vec![set("a", "1", 60_000), set("b", "2", 60_000)];
    let stream = c
        .client
        .set_batch(c.request(SetBatchRequest { items }))
        .await
        .unwrap()
        .into_inner();
    let answers: Vec<_> = stream.collect::<Result<_, _>>().await.unwrap();
    assert_eq!(answers.len(), 2);
    let items = vec![get("a"), get("missing"), get("b")];
    let stream = c
        .client
        .get_batch(c.request(GetBatchRequest { items }))
        .await
        .unwrap()
        .into_inner();
    let answers: Vec<GetResponse> = stream.collect::<Result<_, _>>().await.unwrap();
    let bodies: Vec<_> = answers
        .iter()
        .map(|a| (result_of(a), a.cache_body.clone()))
        .collect();
    assert_eq!(
        bodies,
        vec![
            (ECacheResult::Hit, Bytes::from("1")),
            (ECacheResult::Miss, Bytes::new()),
            (ECacheResult::Hit, Bytes::from("2")),
        ]
    );
    let exists = c
        .client
        .keys_exist(c.request(KeysExistRequest {
            cache_keys: vec!["a".into(), "zz".into(), "b".into()],
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(exists.exists, vec![true, false, true]);
}

#[tokio::test]
async fn ping_answers() {
    let server = TestServer::start().await;
    let mut ping = ping_client::PingClient::new(server.channel().await);
    ping.ping(PingRequest {}).await.unwrap();
}
