"""The official SDK with auth on, given the key `jiffy-server token create
--format momento-v1` prints: it reads the key as it reads Momento's own,
sends the token inside, and the server's roles apply.

The SDK derives TLS endpoints on port 443 from the key's host
(`cache.HOST`, `control.HOST`); a local server is reached by replacing
them, and the port, in the CredentialProvider the key made (a port other
than 443 is plaintext), as README "Official Momento SDKs with auth on"
shows.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import JiffyServer, on, secret_file, token_create
from momento import CacheClient, Configurations, CredentialProvider
from momento.errors import MomentoErrorCode
from momento.responses import CacheGet, CacheSet, CreateCache
from shared_store import Store

SECRET = "a conformance test secret of at least thirty-two bytes"
OTHER_SECRET = "another conformance secret, also thirty-two bytes long"


@pytest.fixture(scope="module")
def auth_server(
    tmp_path_factory: pytest.TempPathFactory, store: Store
) -> Iterator[tuple[JiffyServer, Path]]:
    """A server with auth on, and its secret file."""
    directory = tmp_path_factory.mktemp("auth-server")
    secret = secret_file(directory, SECRET)
    server = JiffyServer(directory / "stderr.log", [*store.args, "--auth-secret-file", str(secret)])
    try:
        yield server, secret
    finally:
        server.stop()
    assert server.process.returncode == 0


def client_for(server: JiffyServer, key: str) -> CacheClient:
    return CacheClient.create(
        Configurations.Laptop.latest(), on(server, key), timedelta(seconds=60)
    )


def test_the_sdk_derives_its_endpoints_from_the_key_host(tmp_path: Path) -> None:
    secret = secret_file(tmp_path, SECRET)
    default = CredentialProvider.from_disposable_token(
        token_create(secret, "read", "--format", "momento-v1")
    )
    assert (default.cache_endpoint, default.control_endpoint, default.port) == (
        "cache.localhost",
        "control.localhost",
        443,
    )
    named = CredentialProvider.from_disposable_token(
        token_create(
            secret, "read", "--format", "momento-v1", "--momento-endpoint", "jiffy.example.com"
        )
    )
    assert named.cache_endpoint == "cache.jiffy.example.com"
    assert named.control_endpoint == "control.jiffy.example.com"
    # The token inside is the one `token create` prints without --format.
    assert named.auth_token.count(".") == 2


def test_a_momento_v1_key_authenticates_the_sdk(auth_server: tuple[JiffyServer, Path]) -> None:
    server, secret = auth_server
    key = token_create(secret, "admin", "--format", "momento-v1")
    cache = f"py-keys-{uuid.uuid4().hex[:8]}"
    with client_for(server, key) as client:
        assert isinstance(client.create_cache(cache), CreateCache.Success)
        assert isinstance(client.set(cache, "greeting", "hello"), CacheSet.Success)
        got = client.get(cache, "greeting")
        assert isinstance(got, CacheGet.Hit), got
        assert got.value_string == "hello"
        client.delete_cache(cache)


def test_the_role_in_the_key_holds(auth_server: tuple[JiffyServer, Path]) -> None:
    server, secret = auth_server
    cache = f"py-keys-{uuid.uuid4().hex[:8]}"
    with client_for(server, token_create(secret, "admin", "--format", "momento-v1")) as admin:
        assert isinstance(admin.create_cache(cache), CreateCache.Success)
        with client_for(server, token_create(secret, "read", "--format", "momento-v1")) as reader:
            assert isinstance(reader.get(cache, "greeting"), CacheGet.Miss)
            refused = reader.set(cache, "greeting", "hello")
            assert isinstance(refused, CacheSet.Error), refused
            assert refused.error_code == MomentoErrorCode.PERMISSION_ERROR
        admin.delete_cache(cache)


def test_a_key_of_another_secret_is_an_authentication_error(
    auth_server: tuple[JiffyServer, Path], tmp_path: Path
) -> None:
    server, _ = auth_server
    foreign = token_create(secret_file(tmp_path, OTHER_SECRET), "admin", "--format", "momento-v1")
    with client_for(server, foreign) as client:
        refused = client.get("any-cache", "greeting")
        assert isinstance(refused, CacheGet.Error), refused
        assert refused.error_code == MomentoErrorCode.AUTHENTICATION_ERROR
