//! The control-plane calls over a real socket.

use crate::common;

use common::{assert_status, in_cache, TestServer};
use jiffy_server::proto::cache_client::{ECacheResult, GetRequest};
use jiffy_server::proto::control_client::*;
use tonic::Code;

#[tokio::test]
async fn cache_lifecycle() {
    let server = TestServer::start().await;
    let mut control = server.control().await;
    let create = |name: &str| CreateCacheRequest {
        cache_name: name.into(),
    };
    control.create_cache(create("b")).await.unwrap();
    control.create_cache(create("a")).await.unwrap();
    assert_status(
        control.create_cache(create("a")).await,
        Code::AlreadyExists,
        None,
    );
    let listed = control
        .list_caches(ListCachesRequest::default())
        .await
        .unwrap()
        .into_inner();
    let names: Vec<_> = listed.cache.iter().map(|c| c.cache_name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let limits = listed.cache[0].cache_limits.as_ref().unwrap();
    assert_eq!(limits.max_item_size_kb, 5 * 1024);

    control
        .delete_cache(DeleteCacheRequest {
            cache_name: "a".into(),
        })
        .await
        .unwrap();
    assert_status(
        control
            .delete_cache(DeleteCacheRequest {
                cache_name: "a".into(),
            })
            .await,
        Code::NotFound,
        None,
    );
    assert_status(
        control
            .flush_cache(FlushCacheRequest {
                cache_name: "a".into(),
            })
            .await,
        Code::NotFound,
        None,
    );
}

#[tokio::test]
async fn flush_empties_a_cache_and_keeps_it() {
    let server = TestServer::start().await;
    let mut data = server.cache("c").await;
    data.put(b"k", b"v").await;
    let mut control = server.control().await;
    control
        .flush_cache(FlushCacheRequest {
            cache_name: "c".into(),
        })
        .await
        .unwrap();
    let get = GetRequest {
        cache_key: "k".into(),
    };
    let answer = data
        .client
        .get(in_cache("c", get))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.result, ECacheResult::Miss as i32);
}

#[tokio::test]
async fn deleting_a_cache_drops_its_items() {
    let server = TestServer::start().await;
    let mut data = server.cache("c").await;
    data.put(b"k", b"v").await;
    let mut control = server.control().await;
    control
        .delete_cache(DeleteCacheRequest {
            cache_name: "c".into(),
        })
        .await
        .unwrap();
    common::create_cache(&mut control, "c").await;
    let get = GetRequest {
        cache_key: "k".into(),
    };
    let answer = data
        .client
        .get(data.request(get))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.result, ECacheResult::Miss as i32);
}
