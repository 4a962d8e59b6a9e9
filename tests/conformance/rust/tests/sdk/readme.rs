//! The top README's Rust snippet ("The protosocket port") runs as written:
//! the lines between the markers below are the README's, but for the
//! address, which is this test server's instead of `127.0.0.1:9004`.
//! `the_snippet_is_the_readmes` fails when the two drift apart.

use std::error::Error;

use momento::cache::GetResponse;

use crate::server_with_cache;
use jiffy_conformance_rust::grpc_client;

/// The README's address, which the test's own replaces.
const README_ADDRESS: &str = "\"127.0.0.1:9004\"";
const TEST_ADDRESS: &str = "address.as_str()";

#[tokio::test]
async fn the_readme_snippet_runs() -> Result<(), Box<dyn Error>> {
    let server = server_with_cache(&[]).await;
    grpc_client(&server).create_cache("my-cache").await?;
    let address = server.protosocket.to_string();

    // README: begin
    use base64::Engine;
    use momento::protosocket::cache::configurations::Laptop;
    use momento::{CredentialProvider, ProtosocketCacheClient};

    let key = base64::engine::general_purpose::URL_SAFE
        .encode(r#"{"api_key":"TOKEN","endpoint":"jiffy.localhost"}"#);
    let credentials = CredentialProvider::from_disposable_token(key)?
        .insecure_endpoint_override(address.as_str()); // host:port, no scheme
    let client = ProtosocketCacheClient::builder()
        .default_ttl(std::time::Duration::from_secs(60))
        .configuration(Laptop::latest())
        .credential_provider(credentials)
        .runtime(tokio::runtime::Handle::current())
        .build()
        .await?;
    client.set("my-cache", "greeting", "hello").await?;
    // README: end

    let got = client.get("my-cache", "greeting").await?;
    assert_eq!(got, GetResponse::from("hello"));
    drop(client);
    server.stop().await;
    Ok(())
}

/// The Rust block of the top README, its lines trimmed.
fn readme_block() -> Vec<String> {
    let readme = include_str!("../../../../../README.md");
    let start = readme
        .find("```rust\n")
        .expect("the README has a Rust block")
        + 8;
    let end = start + readme[start..].find("```").expect("the block ends");
    trimmed_lines(&readme[start..end].replace(README_ADDRESS, TEST_ADDRESS))
}

/// The lines of this file between the markers, trimmed.
fn snippet_here() -> Vec<String> {
    let source = include_str!("readme.rs");
    let begin = "// README: begin\n";
    let start = source.find(begin).expect("the begin marker") + begin.len();
    let end = start
        + source[start..]
            .find("// README: end")
            .expect("the end marker");
    trimmed_lines(&source[start..end])
}

fn trimmed_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn the_snippet_is_the_readmes() {
    assert_eq!(snippet_here(), readme_block());
}
