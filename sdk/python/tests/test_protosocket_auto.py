"""protosocket_endpoint="auto", the default, against real servers: the
client finds jiffy-server's protosocket port from its Ping answer and
carries get, set and delete there; without the port, with the knob None, or
when the port cannot be reached, everything stays on gRPC and no call fails."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import jiffy
from jiffy import _protosocket as ps
from tests.conftest import Server, ThreadedSync
from tests.test_auth import SECRET, AuthServer
from tests.test_protosocket import PROTOSOCKET, answered
from tests.test_tls import self_signed  # noqa: F401 - the fixture


@pytest.fixture(scope="module")
def ps_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("protosocket-auto"), PROTOSOCKET)
    yield running
    running.stop()


@contextlib.asynccontextmanager
async def client_of(
    kind: str, endpoint: jiffy.Endpoint, config: jiffy.Config, cache: str
) -> AsyncIterator[Any]:
    """A client of `kind` ("async" or "sync", seen through async methods),
    connected, with `cache` created; the cache and client go at the end."""
    if kind == "async":
        async with jiffy.AsyncCacheClient(endpoint, config, default_cache=cache) as made:
            await made.create_cache(cache)
            yield made
            await made.delete_cache(cache)
        return
    sync_client = jiffy.CacheClient(endpoint, config, default_cache=cache)
    try:
        await asyncio.to_thread(sync_client.connect)
        await asyncio.to_thread(sync_client.create_cache, cache)
        yield ThreadedSync(sync_client)
        await asyncio.to_thread(sync_client.delete_cache, cache)
    finally:
        await asyncio.to_thread(sync_client.close)


def counts(server: Server) -> dict[tuple[str, str], float]:
    """Get, Set and Delete answered so far, by transport."""
    return {
        (rpc, transport): answered(server, rpc, transport)
        for rpc in ("Get", "Set", "Delete")
        for transport in ("protosocket", "grpc")
    }


async def set_get_delete(client: Any) -> None:
    await client.set("k", "v")
    assert await client.get("k") == b"v"
    await client.delete("k")
    assert await client.get("k") is None


def grew(server: Server, before: dict[tuple[str, str], float]) -> dict[str, float]:
    """Per transport, how many Get, Set and Delete calls were answered since `before`."""
    after = counts(server)
    totals = {"protosocket": 0.0, "grpc": 0.0}
    for (_, transport), count in after.items():
        totals[transport] += count
    for (_, transport), count in before.items():
        totals[transport] -= count
    return totals


@pytest.mark.parametrize("kind", ["async", "sync"])
async def test_the_default_finds_the_port_and_uses_it(
    ps_server: Server, cache_name: str, kind: str
) -> None:
    before = counts(ps_server)
    async with client_of(kind, ps_server.endpoint, jiffy.Config(), cache_name) as client:
        assert client.transport == "protosocket"
        await set_get_delete(client)
        assert await client.increment("n") == 1  # gRPC: protosocket carries no Increment
    assert grew(ps_server, before) == {"protosocket": 4, "grpc": 0}


@pytest.mark.parametrize("kind", ["async", "sync"])
async def test_a_server_without_the_port_is_spoken_to_over_grpc(
    server: Server, cache_name: str, kind: str
) -> None:
    before = counts(server)
    async with client_of(kind, server.endpoint, jiffy.Config(), cache_name) as client:
        assert client.transport == "grpc"
        await set_get_delete(client)
    assert grew(server, before) == {"protosocket": 0, "grpc": 4}


async def test_none_keeps_every_call_on_grpc(ps_server: Server, cache_name: str) -> None:
    before = counts(ps_server)
    config = jiffy.Config(protosocket_endpoint=None)
    async with client_of("async", ps_server.endpoint, config, cache_name) as client:
        assert client.transport == "grpc"
        await set_get_delete(client)
    assert grew(ps_server, before) == {"protosocket": 0, "grpc": 4}


class Forwarder:
    """A TCP forwarder on 127.0.0.2 to the server's gRPC port only: a client
    that reaches the server through it finds the advertised protosocket
    port closed on 127.0.0.2, as behind a proxy or NAT that forwards one port."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self._pipes: set[asyncio.Task[None]] = set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(
            "127.0.0.1", self.target_port
        )

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        for task in (pipe(reader, upstream_writer), pipe(upstream_reader, writer)):
            running = asyncio.ensure_future(task)
            self._pipes.add(running)
            running.add_done_callback(self._pipes.discard)


@pytest.fixture
async def forwarder(ps_server: Server) -> AsyncIterator[Forwarder]:
    forwarding = Forwarder(ps_server.port)
    listener = await asyncio.start_server(forwarding.handle, "127.0.0.2", 0)
    forwarding.port = listener.sockets[0].getsockname()[1]
    yield forwarding
    listener.close()


@pytest.mark.parametrize("kind", ["async", "sync"])
async def test_a_port_out_of_reach_warns_once_and_stays_on_grpc(
    ps_server: Server,
    forwarder: Forwarder,
    cache_name: str,
    kind: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    endpoint = jiffy.Endpoint.local("127.0.0.2", forwarder.port)
    before = counts(ps_server)
    config = jiffy.Config(channels=2)
    with caplog.at_level(logging.WARNING, logger="jiffy"):
        async with client_of(kind, endpoint, config, cache_name) as client:
            assert client.transport == "grpc"
            await set_get_delete(client)
    [warning] = [record.getMessage() for record in caplog.records if record.name == "jiffy"]
    closed = f"127.0.0.2:{ps_server.protosocket_port}"
    assert f"cannot connect to the protosocket port {closed}: connection refused" in warning
    assert "stay on gRPC" in warning
    assert grew(ps_server, before) == {"protosocket": 0, "grpc": 4}


async def test_a_lazy_client_decides_at_its_first_call(ps_server: Server, cache_name: str) -> None:
    before = counts(ps_server)
    config = jiffy.Config(eager_connect_timeout=None)
    async with jiffy.AsyncCacheClient(ps_server.endpoint, config, default_cache=cache_name) as lazy:
        assert lazy.transport == "grpc"  # nothing asked yet
        await lazy.create_cache(cache_name)
        await lazy.set("k", "v")  # connects, asks; this call still goes over gRPC
        assert lazy.transport == "protosocket"
        assert await lazy.get("k") == b"v"
        await lazy.delete_cache(cache_name)
    assert grew(ps_server, before) == {"protosocket": 1, "grpc": 1}


async def test_values_protosocket_cannot_carry_go_over_grpc(
    ps_server: Server, cache_name: str
) -> None:
    over = b"x" * (ps.MAX_VALUE + 1)
    async with client_of("async", ps_server.endpoint, jiffy.Config(), cache_name) as client:
        assert client.transport == "protosocket"
        before = counts(ps_server)
        await client.set("over", over)
        assert await client.get("over") == over  # refused over protosocket, read over gRPC
        assert grew(ps_server, before) == {"protosocket": 0, "grpc": 2}
        await client.set("small", "v")
        assert await client.get("small") == b"v"
        assert grew(ps_server, before) == {"protosocket": 2, "grpc": 2}


async def test_tls_and_the_api_key_carry_over(
    start_server: Callable[..., Server],
    self_signed: tuple[Path, Path],  # noqa: F811
    tmp_path: Path,
    cache_name: str,
) -> None:
    cert, key = self_signed
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET + "\n")
    tls = ("--tls-cert", str(cert), "--tls-key", str(key))
    served = AuthServer(
        start_server(*tls, "--auth-secret-file", str(secret_file), *PROTOSOCKET), secret_file
    )
    token = served.token("all", "admin")
    endpoint = jiffy.Endpoint.with_tls(
        "localhost", served.server.port, ca_file=str(cert), api_key=token
    )
    async with client_of("async", endpoint, jiffy.Config(), cache_name) as client:
        assert client.transport == "protosocket"
        await set_get_delete(client)
    assert answered(served.server, "Set", "protosocket") == 1
    # A bad key: the Ping is refused, so no protosocket; connect still
    # succeeds and the calls fail as they would over gRPC.
    bad = jiffy.Endpoint.with_tls(
        "localhost", served.server.port, ca_file=str(cert), api_key="not-a-token"
    )
    async with jiffy.AsyncCacheClient(bad, default_cache=cache_name) as refused:
        assert refused.transport == "grpc"
        with pytest.raises(jiffy.AuthenticationError):
            await refused.get("k")
