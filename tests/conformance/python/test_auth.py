"""The official SDK's AuthClient against jiffy-servers with auth on.

It mints disposable tokens with the key `jiffy-server token create --role
admin --caches all --format momento-v1` prints (the SDK sends that key
inside the request message), and the SDK's own CacheClient and TopicClient,
given each minted token, may do exactly what it grants: anything else is a
PERMISSION_ERROR that changes nothing. The Python SDK has no api-key calls
(GenerateApiKey, RefreshApiKey); those are sent on the wire here, with the
SDK's own stubs.

Over a Redis Cluster the auth front-ends share the suite's store, and
tokens are minted on one front-end and used on the other.
"""

from __future__ import annotations

import re
import socket
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path

import grpc
import pytest
from conftest import JiffyServer, on, secret_file, token_create
from momento import (
    AuthClient,
    CacheClient,
    Configurations,
    CredentialProvider,
    TopicClient,
    TopicConfigurations,
)
from momento.auth.access_control.disposable_token_scope import (
    CacheItemKey,
    CacheItemKeyPrefix,
    CacheItemSelector,
    DisposableTokenCachePermission,
    DisposableTokenCachePermissions,
    DisposableTokenProps,
    DisposableTokenScope,
)
from momento.auth.access_control.disposable_token_scopes import DisposableTokenScopes
from momento.auth.access_control.permission_scope import (
    ALL_DATA_READ_WRITE,
    AllCaches,
    CacheRole,
    CacheSelector,
)
from momento.config.auth_configurations import AuthConfigurations
from momento.errors import MomentoErrorCode
from momento.internal._utilities._permissions import permissions_from_disposable_token_scope
from momento.responses import (
    CacheGet,
    CacheIncrement,
    CacheSet,
    CacheSetIfNotExists,
    CreateCache,
    TopicPublish,
    TopicSubscribe,
    TopicSubscriptionItem,
)
from momento.responses.auth.generate_disposable_token import GenerateDisposableToken
from momento.utilities import ExpiresIn
from momento_wire_types import auth_pb2, auth_pb2_grpc
from momento_wire_types import cachepubsub_pb2 as pubsub_pb
from momento_wire_types import cachepubsub_pb2_grpc as pubsub_grpc
from shared_store import Store

PUBLIC_ENDPOINT = "jiffy.example.com"


class Ring:
    """The auth front-ends and the clients opened on them, closed at the end."""

    def __init__(self, servers: list[JiffyServer], root: str, stack: ExitStack) -> None:
        self.servers = servers
        self.root = root
        self._stack = stack

    def server(self, n: int) -> JiffyServer:
        """The `n`th front-end, round the ring: 0 and 1 differ over a Redis Cluster."""
        return self.servers[n % len(self.servers)]

    def cache(self, key: str, n: int = 0) -> CacheClient:
        client = CacheClient.create(
            Configurations.Laptop.latest(), on(self.server(n), key), timedelta(seconds=60)
        )
        return self._stack.enter_context(client)

    def topics(self, key: str, n: int = 0) -> TopicClient:
        client = TopicClient(TopicConfigurations.Default.latest(), on(self.server(n), key))
        return self._stack.enter_context(client)

    def auth(self, key: str, n: int = 0) -> AuthClient:
        client = AuthClient(AuthConfigurations.Laptop.latest(), on(self.server(n), key))
        return self._stack.enter_context(client)

    def channel(self, n: int = 0) -> grpc.Channel:
        server = self.server(n)
        return self._stack.enter_context(grpc.insecure_channel(f"{server.host}:{server.port}"))

    def new_cache(self) -> str:
        name = f"py-auth-{uuid.uuid4().hex[:8]}"
        assert isinstance(self.cache(self.root).create_cache(name), CreateCache.Success)
        return name

    def mint(
        self, scope: DisposableTokenScope, token_id: str | None = None
    ) -> GenerateDisposableToken.Success:
        """A disposable token of `scope` for five minutes, minted by the root key."""
        props = DisposableTokenProps(token_id) if token_id else None
        minted = self.auth(self.root).generate_disposable_token(scope, ExpiresIn.minutes(5), props)
        assert isinstance(minted, GenerateDisposableToken.Success), minted
        return minted


@pytest.fixture(scope="module")
def ring(tmp_path_factory: pytest.TempPathFactory, store: Store) -> Iterator[Ring]:
    """The store's front-ends with auth on, one secret, naming PUBLIC_ENDPOINT."""
    directory = tmp_path_factory.mktemp("auth-ring")
    secret = secret_file(directory, uuid.uuid4().hex * 2)
    args = [*store.args, "--auth-secret-file", str(secret), "--public-endpoint", PUBLIC_ENDPOINT]
    servers: list[JiffyServer] = []
    with ExitStack() as stack:
        try:
            for index in range(store.front_ends):
                servers.append(JiffyServer(directory / f"stderr-{index}.log", args))
            yield Ring(servers, token_create(secret, "admin", "--format", "momento-v1"), stack)
        finally:
            stack.close()
            for server in servers:
                server.stop()
    for server in servers:
        assert server.process.returncode == 0, server.log_path.read_text()


def refused(response: object, code: MomentoErrorCode = MomentoErrorCode.PERMISSION_ERROR) -> None:
    assert getattr(response, "error_code", None) == code, response


def test_a_token_reaches_only_its_key_and_its_key_prefix(ring: Ring) -> None:
    cache, other = ring.new_cache(), ring.new_cache()
    root = ring.cache(ring.root)
    assert isinstance(root.set(cache, "cow", "moo"), CacheSet.Success)
    scope = DisposableTokenScope(
        DisposableTokenCachePermissions(
            [
                DisposableTokenCachePermission(
                    CacheSelector(cache),
                    CacheRole.READ_ONLY,
                    CacheItemSelector(CacheItemKey("cow")),
                ),
                DisposableTokenCachePermission(
                    CacheSelector(AllCaches()),
                    CacheRole.READ_WRITE,
                    CacheItemSelector(CacheItemKeyPrefix("pet-")),
                ),
            ]
        )
    )
    minted = ring.mint(scope)
    assert minted.expires_at.does_expire()
    client = ring.cache(minted.auth_token, 1)
    got = client.get(cache, "cow")
    assert isinstance(got, CacheGet.Hit), got
    assert got.value_string == "moo"
    refused(client.set(cache, "cow", "oink"))
    refused(client.get(cache, "horse"))
    refused(client.get(other, "cow"))
    for name in (cache, other):
        assert isinstance(client.set(name, "pet-fish", "blub"), CacheSet.Success)
        assert isinstance(client.get(name, "pet-fish"), CacheGet.Hit)
    # Control calls need a super user.
    refused(client.create_cache(f"py-auth-{uuid.uuid4().hex[:8]}"))
    unchanged = root.get(cache, "cow")
    assert isinstance(unchanged, CacheGet.Hit)
    assert unchanged.value_string == "moo"


def test_the_scopes_of_single_keys_and_prefixes(ring: Ring) -> None:
    cache = ring.new_cache()
    root = ring.cache(ring.root)
    writer = ring.cache(
        ring.mint(DisposableTokenScopes.cache_key_write_only(cache, "k")).auth_token
    )
    assert isinstance(writer.set(cache, "k", "v"), CacheSet.Success)
    refused(writer.get(cache, "k"))
    refused(writer.set(cache, "k2", "v"))
    reader = ring.cache(
        ring.mint(DisposableTokenScopes.cache_key_prefix_read_only(cache, "k")).auth_token, 1
    )
    assert isinstance(reader.get(cache, "k"), CacheGet.Hit)
    assert isinstance(reader.get(cache, "k2"), CacheGet.Miss)
    refused(reader.get(cache, "other"))
    refused(reader.set(cache, "k", "changed"))
    got = root.get(cache, "k")
    assert isinstance(got, CacheGet.Hit)
    assert got.value_string == "v"
    assert isinstance(root.get(cache, "k2"), CacheGet.Miss)


def test_read_only_reads_and_write_only_writes_unconditionally(ring: Ring) -> None:
    cache = ring.new_cache()
    root = ring.cache(ring.root)
    assert isinstance(root.set(cache, "k", "v"), CacheSet.Success)
    reader = ring.cache(ring.mint(DisposableTokenScopes.cache_read_only(cache)).auth_token)
    assert isinstance(reader.get(cache, "k"), CacheGet.Hit)
    refused(reader.set(cache, "k", "changed"))
    refused(reader.increment(cache, "n", 1))
    writer = ring.cache(ring.mint(DisposableTokenScopes.cache_write_only(cache)).auth_token, 1)
    assert isinstance(writer.set(cache, "w", "written"), CacheSet.Success)
    refused(writer.get(cache, "w"))
    refused(writer.set_if_not_exists(cache, "n", "v"))
    refused(writer.increment(cache, "n", 1))
    # What was refused changed nothing; the root reads and writes it all.
    got = root.get(cache, "k")
    assert isinstance(got, CacheGet.Hit)
    assert got.value_string == "v"
    assert isinstance(root.get(cache, "w"), CacheGet.Hit)
    assert isinstance(root.set_if_not_exists(cache, "n", "1"), CacheSetIfNotExists.Stored)
    counted = root.increment(cache, "n", 1)
    assert isinstance(counted, CacheIncrement.Success), counted
    assert counted.value == 2


def test_topic_roles_and_the_token_id_subscribers_see(ring: Ring) -> None:
    cache = ring.new_cache()
    publisher = ring.mint(DisposableTokenScopes.topic_publish_only(cache, "news"), "kiosk-7")
    reader = ring.mint(DisposableTokenScopes.topic_subscribe_only(cache, "news"))
    subscription = ring.topics(reader.auth_token).subscribe(cache, "news")
    assert isinstance(subscription, TopicSubscribe.Subscription), subscription
    # The SDK does not show who published; its wire stub, with the same token, does.
    stub = pubsub_grpc.PubsubStub(ring.channel())  # type: ignore[no-untyped-call]
    inner = CredentialProvider.from_disposable_token(reader.auth_token).auth_token
    stream = stub.Subscribe(
        pubsub_pb._SubscriptionRequest(cache_name=cache, topic="news"),
        metadata=[("authorization", inner)],
        timeout=10,
    )
    try:
        assert next(stream).WhichOneof("kind") == "heartbeat"
        topics = ring.topics(publisher.auth_token, 1)
        assert isinstance(topics.publish(cache, "news", "hello"), TopicPublish.Success)
        item = next(subscription)
        assert isinstance(item, TopicSubscriptionItem.Text), item
        assert item.value == "hello"
        wire = next(kind for kind in stream if kind.WhichOneof("kind") == "item")
        assert wire.item.publisher_id == "kiosk-7"
        refused(topics.publish(cache, "sports", "x"))
        refused(topics.subscribe(cache, "news"))
        refused(ring.topics(reader.auth_token).publish(cache, "news", "x"))
    finally:
        stream.cancel()
        subscription.unsubscribe()


def test_expiry_is_at_most_an_hour_and_minted_tokens_may_not_mint(ring: Ring) -> None:
    auth = ring.auth(ring.root)
    refused(
        auth.generate_disposable_token(
            DisposableTokenScope(ALL_DATA_READ_WRITE), ExpiresIn.hours(2)
        ),
        MomentoErrorCode.INVALID_ARGUMENT_ERROR,
    )
    minted = ring.mint(DisposableTokenScope(ALL_DATA_READ_WRITE))
    refused(
        ring.auth(minted.auth_token, 1).generate_disposable_token(
            DisposableTokenScope(ALL_DATA_READ_WRITE), ExpiresIn.minutes(1)
        )
    )
    # AllDataReadWrite: data, not the control plane.
    cache = ring.new_cache()
    client = ring.cache(minted.auth_token, 1)
    assert isinstance(client.set(cache, "k", "v"), CacheSet.Success)
    assert isinstance(client.get(cache, "k"), CacheGet.Hit)
    refused(client.delete_cache(cache))


def test_two_mints_of_the_same_permissions_in_one_second_differ(ring: Ring) -> None:
    scope = DisposableTokenScopes.cache_read_only(AllCaches())
    for _ in range(5):
        first, second = ring.mint(scope), ring.mint(scope)
        if first.expires_at.epoch() == second.expires_at.epoch():
            break
    # Minted in the same second, so issued and expiring at the same time.
    assert first.expires_at.epoch() == second.expires_at.epoch()
    assert first.auth_token != second.auth_token


def test_minted_tokens_name_the_public_endpoint(ring: Ring) -> None:
    minted = ring.mint(DisposableTokenScopes.cache_read_only(AllCaches()))
    assert minted.endpoint == PUBLIC_ENDPOINT
    derived = CredentialProvider.from_disposable_token(minted.auth_token)
    assert (derived.cache_endpoint, derived.control_endpoint, derived.token_endpoint) == (
        f"cache.{PUBLIC_ENDPOINT}",
        f"control.{PUBLIC_ENDPOINT}",
        f"token.{PUBLIC_ENDPOINT}",
    )


def test_keys_name_the_listen_host_unless_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = secret_file(tmp_path, uuid.uuid4().hex * 2)

    def endpoint(*args: str) -> str:
        key = token_create(secret, "read", "--format", "momento-v1", *args)
        return CredentialProvider.from_disposable_token(key).cache_endpoint

    assert endpoint() == "cache.localhost"
    assert endpoint("--public-endpoint", "cache-host.example") == "cache.cache-host.example"
    monkeypatch.setenv("JIFFY_LISTEN", "192.0.2.7:8080")
    assert endpoint() == "cache.192.0.2.7"
    monkeypatch.setenv("JIFFY_LISTEN", ":8080")
    name = socket.gethostname()
    fits = re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?", name) and len(name) <= 253
    assert endpoint() == f"cache.{name if fits else 'localhost'}"


def api_key(
    ring: Ring, scope: DisposableTokenScope, seconds: int, n: int = 0
) -> auth_pb2._GenerateApiTokenResponse:
    """An api key and its refresh token, from GenerateApiToken on the wire."""
    stub = auth_pb2_grpc.AuthStub(ring.channel(n))  # type: ignore[no-untyped-call]
    request = auth_pb2._GenerateApiTokenRequest(
        auth_token=CredentialProvider.from_disposable_token(ring.root).auth_token,
        permissions=permissions_from_disposable_token_scope(scope),
        expires=auth_pb2._GenerateApiTokenRequest.Expires(valid_for_seconds=seconds),
    )
    response: auth_pb2._GenerateApiTokenResponse = stub.GenerateApiToken(request, timeout=10)
    return response


def refresh(
    ring: Ring, key: str, refresh_token: str, n: int = 0
) -> auth_pb2._RefreshApiTokenResponse:
    stub = auth_pb2_grpc.AuthStub(ring.channel(n))  # type: ignore[no-untyped-call]
    request = auth_pb2._RefreshApiTokenRequest(api_key=key, refresh_token=refresh_token)
    response: auth_pb2._RefreshApiTokenResponse = stub.RefreshApiToken(request, timeout=10)
    return response


def test_a_refresh_token_renews_its_own_api_key_only(ring: Ring) -> None:
    scope = DisposableTokenScopes.cache_read_only(AllCaches())
    # Same permissions, same second: only the key's id tells them apart.
    mine, theirs = api_key(ring, scope, 600), api_key(ring, scope, 600, 1)
    assert mine.api_key != theirs.api_key
    assert mine.refresh_token != theirs.refresh_token
    with pytest.raises(grpc.RpcError) as other:
        refresh(ring, mine.api_key, theirs.refresh_token)
    assert other.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "not the one of this api token" in str(other.value.details())
    renewed = refresh(ring, mine.api_key, mine.refresh_token, 1)
    assert renewed.valid_until >= mine.valid_until
    assert renewed.endpoint == PUBLIC_ENDPOINT
    # The renewed key's refresh token renews the renewed key, not the first.
    with pytest.raises(grpc.RpcError) as stale:
        refresh(ring, mine.api_key, renewed.refresh_token)
    assert stale.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refresh(ring, renewed.api_key, renewed.refresh_token).api_key != renewed.api_key


def test_a_refresh_token_lasts_as_long_as_its_api_key(ring: Ring) -> None:
    short = api_key(ring, DisposableTokenScopes.cache_read_only(AllCaches()), 1)
    time.sleep(2.1)
    with pytest.raises(grpc.RpcError) as expired:
        refresh(ring, short.api_key, short.refresh_token)
    # As on Momento, whose SDKs' tests expect AUTHENTICATION_ERROR here.
    assert expired.value.code() == grpc.StatusCode.UNAUTHENTICATED
