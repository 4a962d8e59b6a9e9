//! The RPC catalogue as clients see it: a path outside it answers
//! UNIMPLEMENTED naming the path, and counts as `unknown`.

mod common;

use bytes::Bytes;
use common::{raw_grpc, sample, TestServer};
use tonic::Code;

async fn server_with_cache() -> TestServer {
    let server = TestServer::start().await;
    common::create_cache(&mut server.control().await, "c").await;
    server
}

#[tokio::test]
async fn a_path_outside_the_catalogue_is_named() {
    let server = server_with_cache().await;
    let channel = server.channel().await;
    let paths = [
        "/cache_client.pubsub.Pubsub/Publish", // a service not declared
        "/control_client.ScsControl/CreateSigningKey", // a call not declared
        "/cache_client.Scs/dictionarySet",     // names are case-sensitive
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
    let unknown = "jiffy_requests_total{code=\"UNIMPLEMENTED\",rpc=\"unknown\"}";
    assert_eq!(sample(&metrics, unknown), Some(4.0), "{metrics}");
}
