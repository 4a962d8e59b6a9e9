"""Tokens against a server started with --auth-secret-file: given to the
endpoint, read from JIFFY_API_KEY, missing, and without the right."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import jiffy
from tests.conftest import Server

SECRET = "a-test-secret-that-is-long-enough-for-hs256"


@dataclass
class AuthServer:
    server: Server
    secret_file: Path

    def token(self, caches: str, role: str) -> str:
        """A token printed by `jiffy-server token create`."""
        created = subprocess.run(
            [str(self.server.binary), "token", "create",
             "--auth-secret-file", str(self.secret_file),
             "--caches", caches, "--role", role, "--expires-in", "1h"],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        return created.stdout.strip()

    def endpoint(self, token: str | None) -> jiffy.Endpoint:
        return jiffy.Endpoint.local("127.0.0.1", self.server.port, api_key=token)


@pytest.fixture
def auth_server(start_server: Callable[..., Server], tmp_path: Path) -> AuthServer:
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    return AuthServer(start_server("--auth-secret-file", str(secret_file)), secret_file)


async def test_token_from_the_endpoint(auth_server: AuthServer, cache_name: str) -> None:
    endpoint = auth_server.endpoint(auth_server.token("all", "admin"))
    async with jiffy.AsyncCacheClient(endpoint, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        await client.set("k", "v")
        assert await client.get("k") == b"v"


def test_token_from_jiffy_api_key(
    auth_server: AuthServer, cache_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JIFFY_ENDPOINT", f"127.0.0.1:{auth_server.server.port}")
    monkeypatch.setenv("JIFFY_API_KEY", auth_server.token(cache_name, "admin"))
    with jiffy.CacheClient(default_cache=cache_name) as client:
        client.create_cache(cache_name)
        client.set("k", "from the environment")
        assert client.get("k") == b"from the environment"


async def test_no_token_or_a_bad_one_is_an_authentication_error(
    auth_server: AuthServer, cache_name: str
) -> None:
    for token in (None, "not-a-token"):
        async with jiffy.AsyncCacheClient(
            auth_server.endpoint(token), default_cache=cache_name
        ) as client:
            with pytest.raises(jiffy.AuthenticationError) as caught:
                await client.get("k")
            assert caught.value.status == "UNAUTHENTICATED"


async def test_read_only_token_cannot_write(auth_server: AuthServer, cache_name: str) -> None:
    admin = auth_server.endpoint(auth_server.token("all", "admin"))
    async with jiffy.AsyncCacheClient(admin) as client:
        await client.create_cache(cache_name)
    reader = auth_server.endpoint(auth_server.token(cache_name, "read"))
    async with jiffy.AsyncCacheClient(reader, default_cache=cache_name) as client:
        assert await client.get("k") is None
        with pytest.raises(jiffy.PermissionError) as caught:
            await client.set("k", "v")
        assert caught.value.status == "PERMISSION_DENIED"
        assert "write" in str(caught.value)
        with pytest.raises(jiffy.PermissionError):
            await client.get("k", cache="another-cache")
