"""Tokens against a server started with --auth-secret-file: given to the
endpoint, read from JIFFY_API_KEY, missing, and without the right."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
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


async def test_a_disposable_token_scoped_to_one_key(
    auth_server: AuthServer, cache_name: str
) -> None:
    admin = auth_server.endpoint(auth_server.token("all", "admin"))
    async with jiffy.AsyncCacheClient(admin, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        before = datetime.now(timezone.utc)  # noqa: UP017 (the SDK runs on 3.10)
        minted = await client.generate_disposable_token(
            [jiffy.CachePermission("read_write", cache=cache_name, key="mine")], 60
        )
    assert minted.endpoint
    assert before < minted.expires_at <= before + timedelta(seconds=62)
    scoped = auth_server.endpoint(minted.token)
    with jiffy.CacheClient(scoped, default_cache=cache_name) as client:
        client.set("mine", "v")
        assert client.get("mine") == b"v"
        with pytest.raises(jiffy.PermissionError) as caught:
            client.set("theirs", "v")
        assert caught.value.status == "PERMISSION_DENIED"
        # A minted token that is no super user mints nothing.
        with pytest.raises(jiffy.PermissionError):
            client.generate_disposable_token("all_data_read_write", 60)


async def test_an_api_key_and_its_refresh(auth_server: AuthServer, cache_name: str) -> None:
    admin = auth_server.endpoint(auth_server.token("all", "admin"))
    async with jiffy.AsyncCacheClient(admin, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        forever = await client.generate_api_key([jiffy.CachePermission("read_only")])
        key = await client.generate_api_key("all_data_read_write", timedelta(hours=2))
    assert forever.valid_until is None
    assert key.valid_until is not None
    async with jiffy.AsyncCacheClient(
        auth_server.endpoint(key.api_key), default_cache=cache_name
    ) as client:
        await client.set("k", "with the api key")
        renewed = await client.refresh_api_key(key.refresh_token)
        # A refresh token renews a key of its own permissions only.
        with pytest.raises(jiffy.InvalidArgumentError):
            await client.refresh_api_key(forever.refresh_token)
    # (Minted in the same second as the key, the new key may read the same.)
    assert renewed.valid_until is not None
    assert renewed.valid_until >= key.valid_until
    async with jiffy.AsyncCacheClient(
        auth_server.endpoint(renewed.api_key), default_cache=cache_name
    ) as client:
        assert await client.get("k") == b"with the api key"
        # Control calls need a super user: all data read-write is data only.
        with pytest.raises(jiffy.PermissionError):
            await client.create_cache(cache_name + "-2")
    async with jiffy.AsyncCacheClient(
        auth_server.endpoint(key.refresh_token), default_cache=cache_name
    ) as client:
        with pytest.raises(jiffy.AuthenticationError):
            await client.get("k")


def test_the_readme_snippet_runs(
    auth_server: AuthServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """README's Minting tokens snippet, as written, against this server."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## Minting tokens", 1)[1]
    snippet = section.split("```python\n", 1)[1].split("```", 1)[0]
    admin_token = auth_server.token("all", "admin")
    admin = auth_server.endpoint(admin_token)
    with jiffy.CacheClient(admin, default_cache="game") as client:
        client.create_cache("game")
        exec(  # noqa: S102 (the README's own code)
            snippet.replace("8080", str(auth_server.server.port)), {"admin_token": admin_token}
        )
        assert client.get("player-7") == b"ready"
        assert client.get("player-8") is None
    assert capsys.readouterr().out.startswith("player-8 is out of reach until 20")
