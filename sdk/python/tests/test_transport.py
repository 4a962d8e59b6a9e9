"""Channels, the in-flight cap on the wire, restarts, retries, eager connection."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import grpc.aio
import pytest

import jiffy
from jiffy.loadgen._harness import count_connections
from tests.conftest import Server

PRESET = jiffy.presets.in_region.latest()


@pytest.mark.parametrize("channels", [1, 3])
async def test_n_channels_are_n_tcp_connections(
    start_server: Callable[..., Server], channels: int
) -> None:
    server = start_server()
    config = PRESET.replace(channels=channels)
    async with jiffy.AsyncCacheClient(server.endpoint, config, default_cache="c") as client:
        await client.create_cache("c")
        await asyncio.gather(*(client.get(f"k{i}") for i in range(channels * 4)))
        assert count_connections(server.address) == channels
        assert server.metric("jiffy_open_connections") == channels


async def test_5000_concurrent_calls_never_exceed_the_cap_on_the_wire(
    start_server: Callable[..., Server],
) -> None:
    server = start_server()  # its own: the peak gauge counts since server start
    config = PRESET.replace(max_concurrent_requests=100, deadline=30.0)
    async with jiffy.AsyncCacheClient(server.endpoint, config, default_cache="c") as client:
        await client.create_cache("c")
        await asyncio.gather(*(client.set(f"k{i}", "v") for i in range(5000)))
        assert client.in_flight_high_water == 100
    assert 0 < server.metric("jiffy_requests_in_flight_max") <= 100


def test_sync_client_threads_respect_the_cap(start_server: Callable[..., Server]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    server = start_server()
    config = PRESET.replace(max_concurrent_requests=4)
    with jiffy.CacheClient(server.endpoint, config, default_cache="c") as client:
        client.create_cache("c")
        with ThreadPoolExecutor(32) as pool:
            list(pool.map(lambda i: client.set(f"k{i}", "v"), range(400)))
        assert client.in_flight_high_water == 4
    assert 0 < server.metric("jiffy_requests_in_flight_max") <= 4


async def wait_until_ok(client: jiffy.AsyncCacheClient, seconds: float) -> None:
    give_up_at = time.monotonic() + seconds
    while True:
        try:
            await client.ping()
            return
        except jiffy.ConnectionError:
            if time.monotonic() > give_up_at:
                raise
            await asyncio.sleep(0.05)


async def test_client_survives_a_server_restart(start_server: Callable[..., Server]) -> None:
    server = start_server()
    async with jiffy.AsyncCacheClient(server.endpoint, PRESET, default_cache="c") as client:
        await client.create_cache("c")
        await client.set("k", "before")
        server.stop()
        started = time.monotonic()
        with pytest.raises(jiffy.ConnectionError, match="unavailable"):
            await client.get("k")
        assert time.monotonic() - started < PRESET.deadline  # failed fast, not at the deadline
        with pytest.raises(jiffy.ConnectionError):
            await client.increment("n")
        server.restart()
        await wait_until_ok(client, 10)
        await client.create_cache("c")  # the store is in memory: a new server is empty
        await client.set("k", "after")
        assert await client.get("k") == b"after"


async def test_eager_connect_failure_names_the_cause() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    config = PRESET.replace(eager_connect_timeout=0.3)
    client = jiffy.AsyncCacheClient(jiffy.Endpoint.local("127.0.0.1", closed_port), config)
    with pytest.raises(jiffy.ConnectionError, match="connection refused"):
        await client.connect()
    await client.aclose()
    sync_client = jiffy.CacheClient(jiffy.Endpoint.local("127.0.0.1", closed_port), config)
    with pytest.raises(jiffy.ConnectionError, match="connection refused"):
        sync_client.connect()
    sync_client.close()


@contextlib.asynccontextmanager
async def fake_scs_server(behaviours: dict[str, Any]) -> AsyncIterator[int]:
    """A grpc.aio server answering the named cache_client.Scs calls; its port."""
    handlers = {name: grpc.unary_unary_rpc_method_handler(h) for name, h in behaviours.items()}
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler("cache_client.Scs", handlers)]
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield port
    finally:
        await server.stop(None)


@pytest.fixture
async def unavailable_server() -> AsyncIterator[tuple[int, Counter[str]]]:
    """A grpc.aio server whose every data call answers UNAVAILABLE, counting attempts."""
    attempts: Counter[str] = Counter()

    def refuse(name: str) -> Callable[[bytes, grpc.aio.ServicerContext[Any, Any]], Any]:
        async def handler(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
            attempts[name] += 1
            await context.abort(grpc.StatusCode.UNAVAILABLE, "going away")
            return b""

        return handler

    names = ("Get", "Set", "Increment", "SetIf", "UpdateTtl", "Delete")
    async with fake_scs_server({name: refuse(name) for name in names}) as port:
        yield port, attempts


async def test_only_idempotent_calls_are_retried(
    unavailable_server: tuple[int, Counter[str]],
) -> None:
    port, attempts = unavailable_server
    retry = jiffy.RetryPolicy(max_attempts=4, initial_backoff=0.001, max_backoff=0.005)
    config = PRESET.replace(retry=retry, eager_connect_timeout=None)
    endpoint = jiffy.Endpoint.local("127.0.0.1", port)
    async with jiffy.AsyncCacheClient(endpoint, config, default_cache="c") as client:
        for call in (client.get("k"), client.set("k", "v"), client.delete("k"),
                     client.increment("k"), client.set_if("k", "v", jiffy.SetIf.absent()),
                     client.update_ttl("k", 5)):  # fmt: skip
            with pytest.raises(jiffy.ConnectionError):
                await call
    assert attempts == {"Get": 4, "Set": 4, "Delete": 4, "Increment": 1, "SetIf": 1, "UpdateTtl": 1}


async def test_sync_client_retries_the_same_way(
    unavailable_server: tuple[int, Counter[str]],
) -> None:
    port, attempts = unavailable_server
    retry = jiffy.RetryPolicy(max_attempts=3, initial_backoff=0.001, max_backoff=0.005)
    config = PRESET.replace(retry=retry, eager_connect_timeout=None)

    def run() -> None:  # in a thread: the fake server lives on this event loop
        endpoint = jiffy.Endpoint.local("127.0.0.1", port)
        with jiffy.CacheClient(endpoint, config, default_cache="c") as client:
            with pytest.raises(jiffy.ConnectionError):
                client.get("k")
            with pytest.raises(jiffy.ConnectionError):
                client.increment("k")

    await asyncio.to_thread(run)
    assert attempts == {"Get": 3, "Increment": 1}


async def test_slow_answer_is_timeout_naming_the_knob() -> None:
    async def stall(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        await asyncio.sleep(5)
        return b""

    config = PRESET.replace(deadline=0.2, eager_connect_timeout=None)
    async with fake_scs_server({"Get": stall}) as port:
        endpoint = jiffy.Endpoint.local("127.0.0.1", port)
        async with jiffy.AsyncCacheClient(endpoint, config, default_cache="c") as client:
            with pytest.raises(jiffy.TimeoutError, match="raise `deadline`") as caught:
                await client.get("k")
            assert caught.value.status == "DEADLINE_EXCEEDED"
