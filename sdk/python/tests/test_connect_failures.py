"""What a newcomer meets first: a connect that fails says why, quickly, and a
missing cache names the method (and the CLI command) that creates it.

Every case runs against real sockets: a port nothing listens on, a name
under `.invalid` (RFC 6761: never resolves), a TLS jiffy-server spoken to in
plaintext and the reverse. The clients use the default config, whose
eager_connect_timeout is 10 s: each case must fail well inside 3 s, a
correctness bound (the old behaviour waited the whole 10 s), not a benchmark.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

import jiffy
from tests.conftest import Server
from tests.test_cli import jiffy_cmd
from tests.test_tls import self_signed  # noqa: F401 - the certificate fixture

FAST = 3.0
KINDS = ["async", "sync"]


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def tls_server(
    start_server: Callable[..., Server],
    self_signed: tuple[Path, Path],  # noqa: F811 - pytest passes the imported fixture
) -> Server:
    cert, key = self_signed
    return start_server("--tls-cert", str(cert), "--tls-key", str(key))


async def connect_failure(kind: str, endpoint: jiffy.Endpoint) -> tuple[str, float]:
    """The ConnectionError's message on connecting with the default config, and its seconds."""
    started = time.monotonic()
    if kind == "async":
        client = jiffy.AsyncCacheClient(endpoint, jiffy.Config())
        with pytest.raises(jiffy.ConnectionError) as raised:
            await client.connect()
        await client.aclose()
    else:
        sync_client = jiffy.CacheClient(endpoint, jiffy.Config())
        with pytest.raises(jiffy.ConnectionError) as raised:
            await asyncio.to_thread(sync_client.connect)
        sync_client.close()
    return str(raised.value), time.monotonic() - started


@pytest.mark.parametrize("kind", KINDS)
async def test_a_refused_connection_fails_in_about_a_second(kind: str, closed_port: int) -> None:
    message, took = await connect_failure(kind, jiffy.Endpoint.local("127.0.0.1", closed_port))
    assert f"cannot connect to 127.0.0.1:{closed_port}: connection refused" in message
    assert took < FAST


@pytest.mark.parametrize("kind", KINDS)
async def test_an_unknown_host_fails_at_once(kind: str) -> None:
    message, took = await connect_failure(kind, jiffy.Endpoint.parse("name.invalid:8080"))
    assert "cannot connect to name.invalid:8080: unknown host 'name.invalid'" in message
    assert took < FAST


@pytest.mark.parametrize("kind", KINDS)
async def test_plaintext_to_a_tls_server_says_use_https(kind: str, tls_server: Server) -> None:
    message, took = await connect_failure(kind, jiffy.Endpoint.local("127.0.0.1", tls_server.port))
    assert "the server speaks TLS" in message
    assert f"use https://127.0.0.1:{tls_server.port}" in message
    assert took < FAST


@pytest.mark.parametrize("kind", KINDS)
async def test_tls_to_a_plaintext_server_says_use_http(kind: str, server: Server) -> None:
    message, took = await connect_failure(kind, jiffy.Endpoint.parse(f"https://{server.address}"))
    assert "the server speaks plaintext HTTP/2, not TLS" in message
    assert f"use http://{server.address}" in message
    assert took < FAST


async def test_an_untrusted_certificate_names_ca_file(tls_server: Server) -> None:
    endpoint = jiffy.Endpoint.with_tls("localhost", tls_server.port)  # system roots only
    message, took = await connect_failure("async", endpoint)
    assert "the server's TLS certificate is not trusted" in message
    assert "ca_file" in message
    assert took < FAST


@pytest.mark.parametrize("kind", KINDS)
async def test_a_server_that_starts_within_the_grace_is_reached(
    kind: str, start_server: Callable[..., Server]
) -> None:
    """A refused port is retried for 1 s, so a server started with its client is met."""
    server = start_server()
    server.stop()

    async def start_soon() -> None:
        await asyncio.sleep(0.3)
        await asyncio.to_thread(server.restart)

    starting = asyncio.ensure_future(start_soon())
    client: Any = (
        jiffy.AsyncCacheClient(server.endpoint, jiffy.Config())
        if kind == "async"
        else jiffy.CacheClient(server.endpoint, jiffy.Config())
    )
    try:
        if kind == "async":
            await client.connect()
            await client.ping()
        else:
            await asyncio.to_thread(client.connect)
            await asyncio.to_thread(client.ping)
    finally:
        await starting
        if kind == "async":
            await client.aclose()
        else:
            client.close()


async def test_a_failed_with_block_closes_its_channels(closed_port: int) -> None:
    """`async with` that cannot connect raises, and leaves no channel reconnecting."""
    client = jiffy.AsyncCacheClient(jiffy.Endpoint.local("127.0.0.1", closed_port), jiffy.Config())
    with pytest.raises(jiffy.ConnectionError, match="connection refused"):
        async with client:
            pass
    with pytest.raises(jiffy.ConnectionError, match="the client is closed"):
        await client.get("k", cache="c")


def test_the_cli_against_a_closed_port_exits_2_with_the_cause(closed_port: int) -> None:
    started = time.monotonic()
    done = jiffy_cmd("get", "--cache", "c", "k", endpoint=f"127.0.0.1:{closed_port}")
    took = time.monotonic() - started
    assert done.returncode == 2
    assert done.stderr == (
        f"jiffy: cannot connect to 127.0.0.1:{closed_port}: connection refused;"
        " check that the server is running and listens on that port\n"
    )
    # The interpreter's start is in this time too; the connect is about 1 s of it.
    assert took < FAST + 1


async def test_a_missing_cache_names_the_method_and_the_cli(client: Any) -> None:
    with pytest.raises(jiffy.CacheNotFoundError) as raised:
        await client.get("k", cache="no-such-cache")
    message = str(raised.value)
    assert "cache `no-such-cache` does not exist" in message
    assert "create it first with client.create_cache('no-such-cache')" in message
    assert "(CLI: jiffy cache create no-such-cache)" in message
    assert "CreateCache" not in message  # the RPC is the server's word, not the SDK's
    with pytest.raises(jiffy.CacheNotFoundError) as raised:
        await client.delete_cache("no-such-cache")
    assert "create it first" not in str(raised.value)


def test_the_server_names_the_rpc_and_the_cli(server: Server) -> None:
    """What a user of the official SDKs reads: the server's own words, unmapped."""
    with grpc.insecure_channel(server.address) as channel:
        get = channel.unary_unary("/cache_client.Scs/Get")
        with pytest.raises(grpc.RpcError) as raised:
            get(b"", metadata=(("cache", "no-such-cache"),), timeout=5)
    failed: Any = raised.value
    assert failed.code() is grpc.StatusCode.NOT_FOUND
    assert failed.details() == (
        "cache `no-such-cache` does not exist;"
        " create it first (CreateCache; CLI: jiffy cache create no-such-cache)"
    )
