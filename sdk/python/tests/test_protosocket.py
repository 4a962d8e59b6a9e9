"""Config.protosocket_endpoint against a real server with --protosocket-listen:
get, get_str, set and delete over protosocket and every other call over gRPC
on the same client; pipelining, the in-flight cap, errors, auth and TLS."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import jiffy
from jiffy import _protosocket as ps
from jiffy._protosocket_pool import AsyncProtosocketPool
from tests.conftest import Server, ThreadedSync
from tests.test_auth import SECRET, AuthServer
from tests.test_tls import self_signed  # noqa: F401 - the fixture

PROTOSOCKET = ("--protosocket-listen", "127.0.0.1:0")


@pytest.fixture(scope="module")
def ps_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("protosocket"), PROTOSOCKET)
    yield running
    running.stop()


def config_for(server: Server, **knobs: Any) -> jiffy.Config:
    return jiffy.Config(protosocket_endpoint=server.protosocket_address, **knobs)


@pytest.fixture(params=["async", "sync"])
async def ps_client(
    request: pytest.FixtureRequest, ps_server: Server, cache_name: str
) -> AsyncIterator[Any]:
    """A connected client of each kind, protosocket on, with a fresh default cache."""
    config = config_for(ps_server)
    if request.param == "async":
        async with jiffy.AsyncCacheClient(
            ps_server.endpoint, config, default_cache=cache_name
        ) as made:
            await made.create_cache(cache_name)
            yield made
            await made.delete_cache(cache_name)
    else:
        sync_client = jiffy.CacheClient(ps_server.endpoint, config, default_cache=cache_name)
        await asyncio.to_thread(sync_client.connect)
        await asyncio.to_thread(sync_client.create_cache, cache_name)
        yield ThreadedSync(sync_client)
        await asyncio.to_thread(sync_client.delete_cache, cache_name)
        await asyncio.to_thread(sync_client.close)


def answered(server: Server, rpc: str, transport: str) -> float:
    """Calls of `rpc` answered OK over `transport`, from the server's metrics."""
    pattern = re.compile(
        rf'^jiffy_requests_total\{{code="OK",rpc="{rpc}",transport="{transport}"\}} (\S+)$', re.M
    )
    found = pattern.search(server.metrics_text())
    return float(found[1]) if found else 0.0


async def test_data_calls_over_protosocket_the_rest_over_grpc(
    ps_client: Any, ps_server: Server
) -> None:
    def counts() -> list[float]:
        return [
            answered(ps_server, rpc, transport)
            for rpc in ("Get", "Set", "Delete", "Increment")
            for transport in ("protosocket", "grpc")
        ]

    before = counts()
    await ps_client.set("greeting", "hello", ttl=30)
    assert await ps_client.get("greeting") == b"hello"
    assert await ps_client.get_str("greeting") == "hello"
    assert await ps_client.get("absent") is None
    assert 29 < await ps_client.get_ttl("greeting") <= 30  # gRPC
    assert await ps_client.increment("n", 2) == 2  # gRPC
    await ps_client.delete("greeting")
    assert await ps_client.get("greeting") is None
    await ps_client.delete("greeting")  # a missing key is no error
    assert await ps_client.keys_exist(["greeting", "n"]) == [False, True]  # gRPC
    after = counts()
    grew = [round(b - a) for a, b in zip(before, after, strict=True)]
    # Get, Set, Delete over protosocket only; Increment over gRPC only.
    assert grew == [4, 0, 1, 0, 2, 0, 0, 1]


async def test_bytes_and_other_caches(ps_client: Any, cache_name: str) -> None:
    other = cache_name + "-b"
    await ps_client.create_cache(other)
    try:
        await ps_client.set(b"\x00k", b"\xff\x00", cache=other)
        assert await ps_client.get(b"\x00k", cache=other) == b"\xff\x00"
        assert await ps_client.get(b"\x00k") is None
    finally:
        await ps_client.delete_cache(other)


async def test_many_concurrent_calls_are_matched_by_id(ps_server: Server, cache_name: str) -> None:
    for channels in (1, 3):
        config = config_for(ps_server, max_concurrent_requests=0, channels=channels)
        async with jiffy.AsyncCacheClient(
            ps_server.endpoint, config, default_cache=cache_name
        ) as client:
            await client.create_cache(cache_name)
            count = 3000
            await asyncio.gather(*(client.set(f"k{i}", f"v{i}" * (i % 50)) for i in range(count)))
            got = await asyncio.gather(*(client.get_str(f"k{i}") for i in range(count)))
            assert got == [f"v{i}" * (i % 50) for i in range(count)]
            assert client.in_flight_high_water > 100
            await client.delete_cache(cache_name)


@pytest.mark.parametrize("cap", [5, "auto"])
async def test_the_in_flight_cap_holds(ps_server: Server, cache_name: str, cap: Any) -> None:
    config = config_for(ps_server, max_concurrent_requests=cap)
    async with jiffy.AsyncCacheClient(
        ps_server.endpoint, config, default_cache=cache_name
    ) as client:
        await client.create_cache(cache_name)
        await asyncio.gather(*(client.set(f"k{i}", "v") for i in range(2000)))
        ceiling = 5 if cap == 5 else 100
        assert 1 < client.in_flight_high_water <= ceiling
        if cap == "auto":
            assert client.in_flight_limit() >= 4
        await client.delete_cache(cache_name)


async def test_a_missing_cache_is_cache_not_found(ps_client: Any) -> None:
    for call in (
        ps_client.get("k", cache="no-such-cache"),
        ps_client.set("k", "v", cache="no-such-cache"),
        ps_client.delete("k", cache="no-such-cache"),
    ):
        with pytest.raises(jiffy.CacheNotFoundError, match="create_cache\\('no-such-cache'\\)"):
            await call


async def test_values_protosocket_cannot_carry(ps_server: Server, cache_name: str) -> None:
    grpc_only = jiffy.AsyncCacheClient(
        ps_server.endpoint, jiffy.Config(protosocket_endpoint=None), default_cache=cache_name
    )
    config = config_for(ps_server)
    async with (
        grpc_only,
        jiffy.AsyncCacheClient(ps_server.endpoint, config, default_cache=cache_name) as client,
    ):
        await client.create_cache(cache_name)
        largest = b"x" * ps.MAX_VALUE
        await client.set("largest", largest)
        assert await client.get("largest") == largest
        with pytest.raises(jiffy.LimitExceededError, match="protosocket_endpoint is None"):
            await client.set("over", largest + b"x")
        # Stored over gRPC, it cannot come back over protosocket.
        await grpc_only.set("over", largest + b"x")
        with pytest.raises(jiffy.LimitExceededError, match="read it over gRPC"):
            await client.get("over")
        assert await client.get("largest") == largest  # the connection is fine
        await client.delete_cache(cache_name)


def test_an_endpoint_knob_with_a_scheme_is_refused() -> None:
    with pytest.raises(jiffy.InvalidArgumentError, match="host:port"):
        jiffy.Config(protosocket_endpoint="https://127.0.0.1:9001")


@pytest.fixture
def ps_auth_server(start_server: Callable[..., Server], tmp_path: Path) -> AuthServer:
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    server = start_server("--auth-secret-file", str(secret_file), *PROTOSOCKET)
    return AuthServer(server, secret_file)


async def test_a_protosocket_client_mints_over_grpc(
    ps_auth_server: AuthServer, cache_name: str
) -> None:
    server = ps_auth_server.server
    config = jiffy.Config(protosocket_endpoint=server.protosocket_address)
    admin = ps_auth_server.endpoint(ps_auth_server.token("all", "admin"))
    async with jiffy.AsyncCacheClient(admin, config, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        await client.set("k", "v")
        assert client.transport == "protosocket"
        await client.generate_disposable_token("all_data_read_write", 60)
    assert answered(server, "Set", "protosocket") == 1
    assert answered(server, "GenerateDisposableToken", "grpc") == 1


async def test_auth_good_and_bad_keys(ps_auth_server: AuthServer, cache_name: str) -> None:
    server = ps_auth_server.server
    config = config_for(server)
    admin = ps_auth_server.endpoint(ps_auth_server.token("all", "admin"))
    async with jiffy.AsyncCacheClient(admin, config, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        await client.set("k", "v")
        assert await client.get("k") == b"v"
    for token in (None, "not-a-token"):
        client = jiffy.AsyncCacheClient(
            ps_auth_server.endpoint(token), config, default_cache=cache_name
        )
        with pytest.raises(jiffy.AuthenticationError, match="Authenticate failed: UNAUTHENTICATED"):
            await client.connect()
        await client.aclose()
    reader = ps_auth_server.endpoint(ps_auth_server.token(cache_name, "read"))
    async with jiffy.AsyncCacheClient(reader, config, default_cache=cache_name) as client:
        assert await client.get("k") == b"v"
        with pytest.raises(jiffy.PermissionError):
            await client.set("k", "w")
    assert answered(server, "Set", "protosocket") == 1


async def test_tls_with_a_ca_file(
    start_server: Callable[..., Server],
    self_signed: tuple[Path, Path],  # noqa: F811
    cache_name: str,
) -> None:
    cert, key = self_signed
    server = start_server("--tls-cert", str(cert), "--tls-key", str(key), *PROTOSOCKET)
    endpoint = jiffy.Endpoint.with_tls("localhost", server.port, ca_file=str(cert))
    config = jiffy.Config(protosocket_endpoint=f"localhost:{server.protosocket_port}")
    async with jiffy.AsyncCacheClient(endpoint, config, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        await client.set("k", "over tls")
        assert await client.get("k") == b"over tls"
    assert answered(server, "Get", "protosocket") == 1
    # The protosocket connections alone (a client's gRPC side would fail first).
    untrusted = AsyncProtosocketPool(
        jiffy.Endpoint.with_tls("localhost", server.port), config, str(config.protosocket_endpoint)
    )
    with pytest.raises(jiffy.ConnectionError, match="protosocket port .*not trusted"):
        await untrusted.connect(3.0)
    await untrusted.aclose()


def test_the_readme_snippet_runs(ps_server: Server) -> None:
    """README's Protosocket snippet, as written, inside the program a user
    would put it in: the default config finds the port."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## Protosocket", 1)[1]
    snippet = section.split("```python\n", 1)[1].split("```", 1)[0]
    port = ps_server.address.rsplit(":", 1)[1]
    program = "\n".join(
        [
            "import asyncio, contextlib, jiffy",
            "async def main() -> None:",
            f"    endpoint = jiffy.Endpoint.local('127.0.0.1', {port})",
            "    async with jiffy.AsyncCacheClient(endpoint, default_cache='demo') as admin:",
            "        with contextlib.suppress(jiffy.AlreadyExistsError):",
            "            await admin.create_cache('demo')",
            *("    " + line for line in snippet.splitlines()),
            "asyncio.run(main())",
        ]
    )
    command = [sys.executable, "-c", program]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["protosocket", "hello"]
    assert lines[2] != "None"
    assert answered(ps_server, "Set", "protosocket") >= 1, "the set did not go over protosocket"
