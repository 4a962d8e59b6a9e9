"""Protosocket when things go wrong: deadlines and their cancel frames, a
server killed with calls in flight and restarted, ports that refuse, hosts
that do not resolve."""

from __future__ import annotations

import asyncio
import signal
import socket
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

import jiffy
from jiffy import _protosocket as ps
from jiffy import _protosocket_pool as pool
from jiffy._proto import protosocket_cache_pb2 as cache_pb
from tests.conftest import Server
from tests.test_protosocket import PROTOSOCKET, answered, config_for

NO_RETRY = jiffy.RetryPolicy(max_attempts=1)


class SilentServer:
    """A protosocket port that answers Authenticate and nothing else, and
    records every command it reads."""

    def __init__(self) -> None:
        self.commands: list[cache_pb.CacheCommand] = []
        self.cancelled = asyncio.Event()
        self.port = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decoder = ps.FrameDecoder()
        while data := await reader.read(65536):
            for frame in decoder.feed(data):
                command = cache_pb.CacheCommand.FromString(frame)
                self.commands.append(command)
                if command.unary.HasField("auth"):
                    answer = cache_pb.CacheResponse(message_id=command.message_id)
                    answer.auth.SetInParent()
                    writer.write(ps.frame(answer.SerializeToString()))
                if command.control_code == ps.CANCEL:
                    self.cancelled.set()
        writer.close()


@pytest.fixture
async def silent() -> AsyncIterator[SilentServer]:
    fake = SilentServer()
    listener = await asyncio.start_server(fake.serve, "127.0.0.1", 0)
    fake.port = listener.sockets[0].getsockname()[1]
    yield fake
    listener.close()


async def test_a_deadline_raises_timeout_and_sends_a_cancel(
    server: Server, silent: SilentServer
) -> None:
    config = jiffy.Config(
        protosocket_endpoint=f"127.0.0.1:{silent.port}", deadline=0.3, retry=NO_RETRY
    )
    async with jiffy.AsyncCacheClient(server.endpoint, config, default_cache="c") as client:
        started = time.monotonic()
        with pytest.raises(jiffy.TimeoutError, match="Get failed: DEADLINE_EXCEEDED"):
            await client.get("k")
        # Well past the deadline on a busy machine, yet far short of never.
        assert time.monotonic() - started < 0.3 + 5.0
        await asyncio.wait_for(silent.cancelled.wait(), 2)
        get, cancel = silent.commands[1:]
        assert (get.unary.get.namespace, get.unary.get.key) == ("c", b"k")
        assert (cancel.message_id, cancel.control_code) == (get.message_id, ps.CANCEL)


def stop_process(server: Server) -> None:
    """SIGSTOP the server and wait until it has stopped: the signal is
    delivered asynchronously, and a thread still running would answer."""
    assert server.process is not None
    server.process.send_signal(signal.SIGSTOP)
    stat = Path(f"/proc/{server.process.pid}/stat")
    while stat.read_text().rsplit(")", 1)[1].split()[0] != "T":
        time.sleep(0.001)


async def test_a_timed_out_set_is_cancelled_on_the_server(
    start_server: Callable[..., Server], cache_name: str
) -> None:
    server = start_server(*PROTOSOCKET)
    config = config_for(server, deadline=0.3, retry=NO_RETRY)
    async with jiffy.AsyncCacheClient(server.endpoint, config, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        await client.set("k", "old")
        assert server.process is not None
        stop_process(server)
        try:
            with pytest.raises(jiffy.TimeoutError):
                await client.set("k", "new")
        finally:
            server.process.send_signal(signal.SIGCONT)
        # The Set and its cancel reach the server together once it runs
        # again. Which wins is the server's race (the Set may already run on
        # another thread when the cancel is read); what must hold is that
        # the Set either ran or was cancelled, and the connection serves on.
        await asyncio.sleep(0.3)
        value = await client.get("k")
        cancelled = 'code="CANCELLED",rpc="Set",transport="protosocket"' in server.metrics_text()
        assert (value == b"new") != cancelled, value
        assert await client.get("k") == value  # the connection still serves


async def test_killed_mid_flight_then_restarted(
    start_server: Callable[..., Server], cache_name: str
) -> None:
    server = start_server(*PROTOSOCKET)
    # A deadline far beyond the bound below: failing by it would take 30 s.
    config = config_for(server, deadline=30.0, max_concurrent_requests=0)
    async with jiffy.AsyncCacheClient(server.endpoint, config, default_cache=cache_name) as client:
        await client.create_cache(cache_name)
        await client.set("k", "v")
        stop_process(server)
        in_flight = [asyncio.ensure_future(client.get("k")) for _ in range(20)]
        await asyncio.sleep(0.2)
        started = time.monotonic()
        server.stop()  # SIGKILL: the connections close under the calls
        results = await asyncio.gather(*in_flight, return_exceptions=True)
        assert all(isinstance(result, jiffy.ConnectionError) for result in results), results
        assert time.monotonic() - started < 10.0  # retried, refused, failed: not the deadline
        with pytest.raises(jiffy.ConnectionError, match="connection refused"):
            await client.set("k", "down")
        server.restart()
        await client.create_cache(cache_name)  # a new server, an empty store
        await client.set("k", "back")
        assert await client.get("k") == b"back"
    assert answered(server, "Get", "protosocket") == 1


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class SteppingClock:
    """The pool's clock in these tests: every reading is `step` seconds after
    the last, so how long connect waited is a count, not the machine's speed."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def attempts(monkeypatch: pytest.MonkeyPatch) -> tuple[list[float], SteppingClock]:
    """The protosocket connection attempts connect makes, on a stepping clock."""
    clock = SteppingClock(step=0.1)
    monkeypatch.setattr(pool, "time", clock)
    opened: list[float] = []
    open_once = pool.AsyncProtosocketConnection._open

    async def counted(self: pool.AsyncProtosocketConnection, timeout: float) -> object:
        opened.append(clock.now)
        return await open_once(self, timeout)

    monkeypatch.setattr(pool.AsyncProtosocketConnection, "_open", counted)
    return opened, clock


async def test_a_refused_port_is_tried_for_the_grace_then_fails_connect(
    server: Server, attempts: tuple[list[float], SteppingClock]
) -> None:
    opened, clock = attempts
    config = jiffy.Config(protosocket_endpoint=f"127.0.0.1:{free_port()}", channels=1)
    client = jiffy.AsyncCacheClient(server.endpoint, config)
    with pytest.raises(jiffy.ConnectionError, match="protosocket port .*connection refused"):
        await client.connect()
    await client.aclose()
    # Tried again while the grace lasted (a server may be starting), and
    # given up once it was over: well before eager_connect_timeout.
    assert len(opened) > 1
    assert config.eager_connect_timeout is not None
    assert pool.REFUSED_GRACE <= clock.now < config.eager_connect_timeout


async def test_an_unknown_host_fails_connect_at_once(
    server: Server, attempts: tuple[list[float], SteppingClock]
) -> None:
    opened, _ = attempts
    config = jiffy.Config(protosocket_endpoint="no-such-host.invalid:9001", channels=1)
    client = jiffy.AsyncCacheClient(server.endpoint, config)
    with pytest.raises(jiffy.ConnectionError, match="unknown host 'no-such-host.invalid'"):
        await client.connect()
    await client.aclose()
    assert len(opened) == 1  # waiting cannot cure it: not tried again


def test_the_sync_client_fails_connect_the_same_way(server: Server) -> None:
    config = jiffy.Config(protosocket_endpoint=f"127.0.0.1:{free_port()}")
    client = jiffy.CacheClient(server.endpoint, config)
    with pytest.raises(jiffy.ConnectionError, match="connection refused"):
        client.connect()
    client.close()


async def test_calls_after_close_are_refused(server: Server, silent: SilentServer) -> None:
    # A deadline far beyond the bound below: the call ends by the close.
    config = jiffy.Config(protosocket_endpoint=f"127.0.0.1:{silent.port}", deadline=60.0)
    client = jiffy.AsyncCacheClient(server.endpoint, config, default_cache="c")
    await client.connect()
    pending = asyncio.ensure_future(client.get("k"))
    await asyncio.sleep(0.1)
    started = time.monotonic()
    await client.aclose()
    with pytest.raises(jiffy.ConnectionError):
        await pending
    assert time.monotonic() - started < 10.0
    with pytest.raises(jiffy.ConnectionError, match="closed"):
        await client.get("k")
