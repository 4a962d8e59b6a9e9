//! The RPC catalogue as clients see it: every call it lists as served has a
//! handler, every other call answers UNIMPLEMENTED naming itself, and the
//! metrics count each under its own name; paths outside it name the path.

use crate::common;

use bytes::Bytes;
use common::{raw_grpc, sample, TestServer};
use jiffy_server::rpcs::{RPCS, STANDARD_SERVICES};
use tonic::Code;

async fn server_with_cache() -> TestServer {
    let server = TestServer::start().await;
    common::create_cache(&mut server.control().await, "c").await;
    server
}

/// Each call of the catalogue, with an empty message (every field at its
/// default), in cache `c`.
#[tokio::test]
async fn each_call_is_served_or_names_itself() {
    let server = server_with_cache().await;
    let channel = server.channel().await;
    // The standard services (health, reflection) are tested in health.rs:
    // Watch answers a stream that never ends.
    let ours = RPCS.iter().filter(|rpc| {
        !STANDARD_SERVICES
            .iter()
            .any(|s| rpc.path.starts_with(&format!("/{s}/")))
    });
    for rpc in ours {
        let answer = raw_grpc::call(
            channel.clone(),
            rpc.path,
            Some("c"),
            Bytes::new(),
            rpc.streaming,
        )
        .await;
        let status = answer.err();
        let code = status.as_ref().map(|status| status.code());
        if rpc.served {
            assert_ne!(code, Some(Code::Unimplemented), "{}: {status:?}", rpc.name);
        } else {
            let status = status.unwrap_or_else(|| panic!("{} answered", rpc.name));
            assert_eq!(
                status.code(),
                Code::Unimplemented,
                "{}: {status:?}",
                rpc.name
            );
            assert_eq!(
                status.message(),
                format!("{} is not served by this jiffy-server yet", rpc.name)
            );
        }
    }
}

#[tokio::test]
async fn a_collection_call_is_counted_under_its_own_name() {
    let server = server_with_cache().await;
    let before = server.metrics().await;
    // A collection call's latency series appears with its first call
    // (metrics.rs, EAGER_LATENCY); Get's is there from the start.
    let latency =
        "jiffy_request_duration_seconds_count{rpc=\"SortedSetUnionStore\",transport=\"grpc\"}";
    assert_eq!(sample(&before, latency), None, "{before}");
    let get = "jiffy_request_duration_seconds_count{rpc=\"Get\",transport=\"grpc\"}";
    assert_eq!(sample(&before, get), Some(0.0), "{before}");

    let channel = server.channel().await;
    for _ in 0..2 {
        // No destination name: refused before the store.
        let answer = raw_grpc::call(
            channel.clone(),
            "/cache_client.Scs/SortedSetUnionStore",
            Some("c"),
            Bytes::new(),
            false,
        )
        .await;
        assert_eq!(answer.unwrap_err().code(), Code::InvalidArgument);
    }

    let after = server.metrics().await;
    let count = "jiffy_requests_total{code=\"INVALID_ARGUMENT\",rpc=\"SortedSetUnionStore\",transport=\"grpc\"}";
    assert_eq!(sample(&after, count), Some(2.0), "{after}");
    assert_eq!(sample(&after, latency), Some(2.0), "{after}");
    let unknown =
        "jiffy_requests_total{code=\"INVALID_ARGUMENT\",rpc=\"unknown\",transport=\"grpc\"}";
    assert_eq!(sample(&after, unknown), None, "{after}");
}

#[tokio::test]
async fn a_path_outside_the_catalogue_is_named() {
    let server = server_with_cache().await;
    let channel = server.channel().await;
    let paths = [
        "/cache_client.webhook.Webhook/PutWebhook", // a service not declared
        "/control_client.ScsControl/CreateIndex",   // a call not declared
        "/cache_client.Scs/dictionarySet",          // names are case-sensitive
    ];
    for path in paths {
        let answer = raw_grpc::call(channel.clone(), path, Some("c"), Bytes::new(), false).await;
        let status = answer.unwrap_err();
        assert_eq!(status.code(), Code::Unimplemented, "{path}: {status:?}");
        assert_eq!(
            status.message(),
            format!("{path} is not served by this jiffy-server")
        );
    }
    // A path too long to echo whole is cut.
    let long = format!("/cache_client.Scs/{}", "x".repeat(4000));
    let answer = raw_grpc::call(channel.clone(), &long, Some("c"), Bytes::new(), false).await;
    let status = answer.unwrap_err();
    assert_eq!(status.code(), Code::Unimplemented);
    assert!(
        status.message().len() < 300 && status.message().contains("/cache_client.Scs/xxx"),
        "{status:?}"
    );

    let metrics = server.metrics().await;
    let unknown = "jiffy_requests_total{code=\"UNIMPLEMENTED\",rpc=\"unknown\",transport=\"grpc\"}";
    assert_eq!(sample(&metrics, unknown), Some(4.0), "{metrics}");
}
