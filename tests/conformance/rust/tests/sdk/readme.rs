//! docs/CALLS.md's Rust snippet ("The protosocket port") runs as written,
//! against a server with auth on and the key `jiffy-server token create
//! --format momento-v1` printed: the lines between the markers below are
//! the README's, but for the addresses, which are this test server's
//! instead of `127.0.0.1:8080` and `:9004`, and the key, which the test
//! holds rather than the environment (setting a variable would race with
//! the other tests' threads). `the_snippet_is_the_readmes` fails when the
//! two drift apart.

use std::error::Error;

use momento::cache::GetResponse;

use crate::auth::secret_file;
use jiffy_conformance_rust::{momento_key, JiffyServer};

/// What the README has, and what the test has in its place.
const EDITS: &[(&str, &str)] = &[
    ("\"127.0.0.1:9004\"", "protosocket.as_str()"),
    ("\"http://127.0.0.1:8080\"", "grpc.as_str()"),
    ("std::env::var(\"MOMENTO_API_KEY\")?", "printed_key"),
];

#[tokio::test]
async fn the_readme_snippet_runs() -> Result<(), Box<dyn Error>> {
    let secret = secret_file("readme");
    let server = JiffyServer::start(&["--auth-secret-file", secret.to_str().unwrap()]);
    let printed_key = momento_key(&secret, "admin");
    let protosocket = server.protosocket.to_string();
    let grpc = format!("http://{}", server.grpc);

    // README: begin
    use momento::protosocket::cache::configurations::Laptop;
    use momento::{CacheClient, CredentialProvider, ProtosocketCacheClient};

    let key = printed_key; // from token create --format momento-v1
    let caches = CacheClient::builder()
        .default_ttl(std::time::Duration::from_secs(60))
        .configuration(momento::cache::configurations::Laptop::latest())
        .credential_provider(
            CredentialProvider::from_disposable_token(key.clone())?
                .insecure_endpoint_override(grpc.as_str()), // the gRPC port, a URI
        )
        .build()?;
    caches.create_cache("my-cache").await?;
    let credentials = CredentialProvider::from_disposable_token(key)?
        .insecure_endpoint_override(protosocket.as_str()); // the protosocket port: host:port, no scheme
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
    drop((client, caches));
    server.stop().await;
    std::fs::remove_file(secret)?;
    Ok(())
}

/// The Rust block of docs/CALLS.md, its lines trimmed.
fn readme_block() -> Vec<String> {
    let readme = include_str!("../../../../../docs/CALLS.md");
    let start = readme
        .find("```rust\n")
        .expect("docs/CALLS.md has a Rust block")
        + 8;
    let end = start + readme[start..].find("```").expect("the block ends");
    let block = EDITS
        .iter()
        .fold(readme[start..end].to_owned(), |block, (readme, test)| {
            block.replace(readme, test)
        });
    trimmed_lines(&block)
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
