//! Minted tokens: GenerateDisposableToken, GenerateApiToken and
//! RefreshApiToken with the minting token in the message, and what the
//! minted tokens may do on both ports, key, prefix and topic scopes
//! included.

use crate::common;

use bytes::Bytes;
use common::protosocket::{self as ps, error_of, value_of};
use common::topics::{publish_request, subscription_request, text, Reader};
use common::{assert_status, TestServer};
use jiffy_server::auth::{CacheScope, Role, Secret};
use jiffy_server::proto::auth::auth_client::AuthClient;
use jiffy_server::proto::auth::{
    generate_api_token_request, GenerateApiTokenRequest, GenerateApiTokenResponse,
    RefreshApiTokenRequest,
};
use jiffy_server::proto::cache_client::pubsub::pubsub_client::PubsubClient;
use jiffy_server::proto::cache_client::pubsub::subscription_item;
use jiffy_server::proto::cache_client::scs_client::ScsClient;
use jiffy_server::proto::cache_client::{
    GetBatchRequest, GetRequest, IncrementRequest, SetIfNotExistsRequest, SetRequest,
};
use jiffy_server::proto::control_client::scs_control_client::ScsControlClient;
use jiffy_server::proto::control_client::CreateCacheRequest;
use jiffy_server::proto::permission_messages as wire;
use jiffy_server::proto::protosocket::cache::cache_response::Kind as PsKind;
use jiffy_server::proto::protosocket::common::Status as PsStatus;
use jiffy_server::proto::token::token_client::TokenClient;
use jiffy_server::proto::token::{
    generate_disposable_token_request::Expires, GenerateDisposableTokenRequest,
};
use tonic::metadata::MetadataValue;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};
use wire::permissions_type::{
    cache_item_selector, cache_permissions, cache_selector, topic_permissions, topic_selector, All,
    CacheItemSelector, CachePermissions, CacheSelector, Kind, TopicPermissions, TopicSelector,
};

const SECRET: &[u8] = common::TEST_SECRET;
const CACHE: &str = "minted";
const OTHER: &str = "other";

fn signed(caches: CacheScope, role: Role) -> String {
    common::signed_token(SECRET, caches, role, None)
}

struct Server {
    server: TestServer,
    root: String,
}

impl Server {
    async fn start() -> Server {
        let mut config = common::config(&["--protosocket-listen", "127.0.0.1:0"]);
        config.auth = Some(Secret::from_bytes(SECRET).unwrap());
        let server = TestServer::with_config(config).await;
        let root = signed(CacheScope::All, Role::Admin);
        let mut control = ScsControlClient::new(server.channel().await);
        for cache in [CACHE, OTHER] {
            let create = CreateCacheRequest {
                cache_name: cache.into(),
            };
            control
                .create_cache(with(&root, None, create))
                .await
                .unwrap();
        }
        Server { server, root }
    }

    async fn mint(
        &self,
        minter: &str,
        permissions: wire::Permissions,
        seconds: u32,
        token_id: &str,
    ) -> Result<String, Status> {
        let mut client = TokenClient::new(self.server.channel().await);
        // No `authorization` header: the token is in the message, as the
        // official clients send it.
        let request = GenerateDisposableTokenRequest {
            expires: Some(Expires {
                valid_for_seconds: seconds,
            }),
            auth_token: minter.to_owned(),
            permissions: Some(permissions),
            token_id: token_id.to_owned(),
        };
        let answer = client
            .generate_disposable_token(request)
            .await?
            .into_inner();
        assert_eq!(answer.endpoint, "localhost");
        Ok(answer.api_key)
    }

    async fn data(&self) -> ScsClient<Channel> {
        ScsClient::new(self.server.channel().await)
    }

    async fn get(&self, token: &str, cache: &str, key: &str) -> Result<(), Status> {
        let get = GetRequest {
            cache_key: Bytes::copy_from_slice(key.as_bytes()),
        };
        let mut data = self.data().await;
        data.get(with(token, Some(cache), get)).await.map(drop)
    }

    async fn set(&self, token: &str, cache: &str, key: &str) -> Result<(), Status> {
        let set = SetRequest {
            cache_key: Bytes::copy_from_slice(key.as_bytes()),
            cache_body: Bytes::from_static(b"v"),
            ttl_milliseconds: 60_000,
        };
        let mut data = self.data().await;
        data.set(with(token, Some(cache), set)).await.map(drop)
    }

    async fn get_batch(&self, token: &str, keys: &[&str]) -> Result<(), Status> {
        let batch = GetBatchRequest {
            items: keys
                .iter()
                .map(|key| GetRequest {
                    cache_key: Bytes::copy_from_slice(key.as_bytes()),
                })
                .collect(),
        };
        let mut data = self.data().await;
        data.get_batch(with(token, Some(CACHE), batch))
            .await
            .map(drop)
    }

    async fn api_token(
        &self,
        minter: &str,
        permissions: wire::Permissions,
        expiry: generate_api_token_request::Expiry,
    ) -> Result<GenerateApiTokenResponse, Status> {
        let mut client = AuthClient::new(self.server.channel().await);
        let request = GenerateApiTokenRequest {
            expiry: Some(expiry),
            auth_token: minter.to_owned(),
            permissions: Some(permissions),
            ..Default::default()
        };
        Ok(client.generate_api_token(request).await?.into_inner())
    }
}

fn with<T>(token: &str, cache: Option<&str>, message: T) -> Request<T> {
    let mut request = Request::new(message);
    let metadata = request.metadata_mut();
    metadata.insert("authorization", MetadataValue::try_from(token).unwrap());
    if let Some(cache) = cache {
        metadata.insert("cache", MetadataValue::try_from(cache).unwrap());
    }
    request
}

enum Items {
    All,
    Key(&'static str),
    Prefix(&'static str),
}

fn cache(role: wire::CacheRole, cache: Option<&str>, items: Items) -> wire::PermissionsType {
    let cache = match cache {
        Some(name) => cache_permissions::Cache::CacheSelector(CacheSelector {
            kind: Some(cache_selector::Kind::CacheName(name.into())),
        }),
        None => cache_permissions::Cache::AllCaches(All {}),
    };
    let selector =
        |kind| cache_permissions::CacheItem::ItemSelector(CacheItemSelector { kind: Some(kind) });
    let items = match items {
        Items::All => cache_permissions::CacheItem::AllItems(All {}),
        Items::Key(key) => selector(cache_item_selector::Kind::Key(
            key.as_bytes().to_vec().into(),
        )),
        Items::Prefix(prefix) => selector(cache_item_selector::Kind::KeyPrefix(
            prefix.as_bytes().to_vec().into(),
        )),
    };
    wire::PermissionsType {
        kind: Some(Kind::CachePermissions(CachePermissions {
            role: role.into(),
            cache: Some(cache),
            cache_item: Some(items),
        })),
    }
}

fn topics(role: wire::TopicRole, cache: &str, prefix: &str) -> wire::PermissionsType {
    wire::PermissionsType {
        kind: Some(Kind::TopicPermissions(TopicPermissions {
            role: role.into(),
            cache: Some(topic_permissions::Cache::CacheSelector(CacheSelector {
                kind: Some(cache_selector::Kind::CacheName(cache.into())),
            })),
            topic: Some(topic_permissions::Topic::TopicSelector(TopicSelector {
                kind: Some(topic_selector::Kind::TopicNamePrefix(prefix.into())),
            })),
        })),
    }
}

fn explicit(permissions: Vec<wire::PermissionsType>) -> wire::Permissions {
    wire::Permissions {
        kind: Some(wire::permissions::Kind::Explicit(
            wire::ExplicitPermissions { permissions },
        )),
    }
}

fn super_user() -> wire::Permissions {
    wire::Permissions {
        kind: Some(wire::permissions::Kind::SuperUser(
            wire::SuperUserPermissions::SuperUser.into(),
        )),
    }
}

fn denied(result: Result<(), Status>, naming: &str) {
    let status = assert_status(result, Code::PermissionDenied, None);
    assert!(status.message().contains(naming), "{status:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_disposable_token_reaches_exactly_its_keys_and_prefixes() {
    let server = Server::start().await;
    let scoped = explicit(vec![
        cache(
            wire::CacheRole::CacheReadOnly,
            Some(CACHE),
            Items::Key("cow"),
        ),
        cache(wire::CacheRole::CacheReadWrite, None, Items::Prefix("pet-")),
    ]);
    let token = server.mint(&server.root, scoped, 60, "").await.unwrap();
    server.get(&token, CACHE, "cow").await.unwrap();
    denied(server.set(&token, CACHE, "cow").await, "`cow`");
    denied(server.get(&token, CACHE, "horse").await, "`horse`");
    denied(server.get(&token, OTHER, "cow").await, OTHER);
    for cache in [CACHE, OTHER] {
        server.set(&token, cache, "pet-fish").await.unwrap();
        server.get(&token, cache, "pet-fish").await.unwrap();
    }
    // A batch: every key must be in reach.
    server
        .get_batch(&token, &["cow", "pet-fish"])
        .await
        .unwrap();
    denied(server.get_batch(&token, &["cow", "horse"]).await, "`horse`");

    // The protosocket port asks the same.
    let addr = server.server.protosocket_addr.unwrap();
    let mut client = ps::Client::open(addr, &token).await;
    assert_eq!(value_of(client.call(1, ps::get(CACHE, "cow")).await), None);
    let (code, message) = error_of(client.call(2, ps::get(CACHE, "horse")).await);
    assert_eq!(code, PsStatus::PermissionDenied, "{message}");
    assert!(message.contains("`horse`"), "{message}");
    let set = ps::set(CACHE, "pet-cat", b"v", 60_000);
    assert!(matches!(client.call(3, set).await, PsKind::Set(_)));
    let (code, _) = error_of(client.call(4, ps::set(CACHE, "cow", b"v", 60_000)).await);
    assert_eq!(code, PsStatus::PermissionDenied);
}

#[tokio::test(flavor = "multi_thread")]
async fn write_only_neither_reads_nor_writes_conditionally() {
    let server = Server::start().await;
    let write_only = explicit(vec![cache(
        wire::CacheRole::CacheWriteOnly,
        Some(CACHE),
        Items::All,
    )]);
    let token = server.mint(&server.root, write_only, 60, "").await.unwrap();
    server.set(&token, CACHE, "k").await.unwrap();
    denied(server.get(&token, CACHE, "k").await, "read");
    let mut data = server.data().await;
    let set_if = SetIfNotExistsRequest {
        cache_key: Bytes::from_static(b"k"),
        cache_body: Bytes::from_static(b"v"),
        ttl_milliseconds: 60_000,
    };
    let refused = data
        .set_if_not_exists(with(&token, Some(CACHE), set_if))
        .await;
    assert_status(refused, Code::PermissionDenied, None);
    let increment = IncrementRequest {
        cache_key: Bytes::from_static(b"n"),
        amount: 1,
        ttl_milliseconds: 60_000,
    };
    let refused = data.increment(with(&token, Some(CACHE), increment)).await;
    assert_status(refused, Code::PermissionDenied, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn topic_scopes_and_the_token_id_subscribers_see() {
    let server = Server::start().await;
    let publisher = explicit(vec![topics(wire::TopicRole::TopicWriteOnly, CACHE, "t-")]);
    let token = server
        .mint(&server.root, publisher, 60, "kiosk-7")
        .await
        .unwrap();
    let mut pubsub = PubsubClient::new(server.server.channel().await);
    let subscribe = with(&server.root, None, subscription_request(CACHE, "t-1", 0, 0));
    let mut reader = Reader::open(&mut pubsub, subscribe).await.unwrap();
    let publish = with(&token, None, publish_request(CACHE, "t-1", text("hi")));
    pubsub.publish(publish).await.unwrap();
    let raw = reader.stream.message().await.unwrap().unwrap();
    match raw.kind {
        Some(subscription_item::Kind::Item(item)) => assert_eq!(item.publisher_id, "kiosk-7"),
        other => panic!("expected an item, got {other:?}"),
    }
    for (cache, topic) in [(CACHE, "u"), (OTHER, "t-1")] {
        let publish = with(&token, None, publish_request(cache, topic, text("x")));
        denied(pubsub.publish(publish).await.map(drop), "publish");
    }
    let subscribe = with(&token, None, subscription_request(CACHE, "t-1", 0, 0));
    denied(pubsub.subscribe(subscribe).await.map(drop), "subscribe");
}

#[tokio::test(flavor = "multi_thread")]
async fn who_may_mint_and_for_how_long() {
    let server = Server::start().await;
    let read_all = || {
        explicit(vec![cache(
            wire::CacheRole::CacheReadOnly,
            None,
            Items::All,
        )])
    };
    // Expiry: 1 second to an hour.
    for seconds in [0, 3601] {
        let refused = server.mint(&server.root, read_all(), seconds, "").await;
        assert_status(refused, Code::InvalidArgument, None);
    }
    let refused = server
        .mint(&server.root, read_all(), 60, &"x".repeat(65))
        .await;
    assert_status(refused, Code::InvalidArgument, None);
    let refused = server.mint(&server.root, explicit(vec![]), 60, "").await;
    assert_status(refused, Code::InvalidArgument, None);
    // No token, a bad one, one that may not mint, a minted one.
    let refused = server.mint("", read_all(), 60, "").await;
    assert_status(refused, Code::Unauthenticated, None);
    let refused = server.mint("not-a-token", read_all(), 60, "").await;
    assert_status(refused, Code::Unauthenticated, None);
    let writer = signed(CacheScope::All, Role::Write);
    let refused = server.mint(&writer, read_all(), 60, "").await;
    assert_status(refused, Code::PermissionDenied, None);
    let minted = server.mint(&server.root, read_all(), 60, "").await.unwrap();
    let refused = server.mint(&minted, read_all(), 60, "").await;
    assert_status(refused, Code::PermissionDenied, None);
    // An admin of some caches mints within them only.
    let team = signed(CacheScope::Names(vec![CACHE.into()]), Role::Admin);
    let within = explicit(vec![cache(
        wire::CacheRole::CacheReadOnly,
        Some(CACHE),
        Items::All,
    )]);
    server.mint(&team, within, 60, "").await.unwrap();
    let refused = server.mint(&team, read_all(), 60, "").await;
    assert_status(refused, Code::PermissionDenied, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn api_tokens_refresh_with_the_same_permissions() {
    use generate_api_token_request::{Expires, Expiry, Never};
    let server = Server::start().await;
    let read_only = explicit(vec![cache(
        wire::CacheRole::CacheReadOnly,
        Some(CACHE),
        Items::All,
    )]);
    let expiry = Expiry::Expires(Expires {
        valid_for_seconds: 600,
    });
    let first = server
        .api_token(&server.root, read_only.clone(), expiry)
        .await
        .unwrap();
    assert!(first.valid_until > 0);
    server.get(&first.api_key, CACHE, "k").await.unwrap();
    denied(server.set(&first.api_key, CACHE, "k").await, "write");
    // A refresh token serves no call.
    let refused = server.get(&first.refresh_token, CACHE, "k").await;
    let status = assert_status(refused, Code::Unauthenticated, None);
    assert!(status.message().contains("refresh"), "{status:?}");

    let mut client = AuthClient::new(server.server.channel().await);
    let refresh = |api_key: &str, refresh_token: &str| RefreshApiTokenRequest {
        api_key: api_key.to_owned(),
        refresh_token: refresh_token.to_owned(),
    };
    let second = client
        .refresh_api_token(refresh(&first.api_key, &first.refresh_token))
        .await
        .unwrap()
        .into_inner();
    assert!(second.valid_until >= first.valid_until);
    server.get(&second.api_key, CACHE, "k").await.unwrap();
    denied(server.set(&second.api_key, CACHE, "k").await, "write");

    // Another token's refresh token, or the api key in its place: refused.
    let never = server
        .api_token(&server.root, super_user(), Expiry::Never(Never {}))
        .await
        .unwrap();
    assert_eq!(never.valid_until, 0, "never expires");
    let refused = client
        .refresh_api_token(refresh(&first.api_key, &never.refresh_token))
        .await;
    assert_status(refused, Code::InvalidArgument, None);
    let refused = client
        .refresh_api_token(refresh(&first.api_key, &first.api_key))
        .await;
    assert_status(refused, Code::InvalidArgument, None);
    // A super user made by the root may create caches, and mint, but not
    // another super user.
    let mut control = ScsControlClient::new(server.server.channel().await);
    let create = CreateCacheRequest {
        cache_name: "made-by-minted".into(),
    };
    control
        .create_cache(with(&never.api_key, None, create))
        .await
        .unwrap();
    let read_all = explicit(vec![cache(
        wire::CacheRole::CacheReadOnly,
        None,
        Items::All,
    )]);
    server.mint(&never.api_key, read_all, 60, "").await.unwrap();
    let refused = server.mint(&never.api_key, super_user(), 60, "").await;
    assert_status(refused, Code::PermissionDenied, None);
}
