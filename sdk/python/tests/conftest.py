"""Fixtures: a real jiffy-server on a free port, clients of both kinds, fresh caches.

The binary comes from $JIFFY_SERVER_BIN, else <repo>/target/release/jiffy-server.
The session server also serves metrics; tests that need a server of their
own (restart, the in-flight peak since start) use `start_server`.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import urllib.request
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import jiffy

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_SERVER_BIN = REPO_ROOT / "target" / "release" / "jiffy-server"
LISTENING = re.compile(r"^listening on 127\.0\.0\.1:(\d+)$")
METRICS_LISTENING = re.compile(r"^metrics listening on 127\.0\.0\.1:(\d+)$")
PROTOSOCKET_LISTENING = re.compile(r"^protosocket listening on 127\.0\.0\.1:(\d+)$")


class Server:
    """A jiffy-server child process; `restart()` brings it back on the same port."""

    def __init__(self, log_dir: Path, extra_args: tuple[str, ...] = ()) -> None:
        self.binary = Path(os.environ.get("JIFFY_SERVER_BIN", DEFAULT_SERVER_BIN))
        if not self.binary.is_file():
            pytest.exit(
                f"jiffy-server not found at {self.binary}; build it or set JIFFY_SERVER_BIN"
            )
        self.log_dir = log_dir
        self.port = 0
        self.metrics_port = 0
        self.protosocket_port = 0
        """Set when started with --protosocket-listen; kept by restart()."""
        self.process: subprocess.Popen[bytes] | None = None
        self.extra_args = extra_args
        self._start("127.0.0.1:0")

    def _start(self, listen: str) -> None:
        log = (self.log_dir / f"server-{uuid.uuid4().hex[:6]}.log").open("wb")
        self.process = subprocess.Popen(
            [
                str(self.binary),
                "--listen",
                listen,
                "--metrics-listen",
                "127.0.0.1:0",
                *self._extra_args(),
            ],
            stdout=subprocess.PIPE,
            stderr=log,
        )
        assert self.process.stdout is not None
        # Blocking reads: the server prints both lines at once when ready, and
        # closes stdout (an empty read) if it dies; pytest-timeout bounds a hang.
        for raw in self.process.stdout:
            line = raw.decode().strip()
            if match := METRICS_LISTENING.match(line):
                self.metrics_port = int(match.group(1))
            elif match := PROTOSOCKET_LISTENING.match(line):
                self.protosocket_port = int(match.group(1))
            elif match := LISTENING.match(line):
                self.port = int(match.group(1))
                return
        self.stop()
        raise RuntimeError(f"jiffy-server did not start; log in {self.log_dir}")

    def _extra_args(self) -> list[str]:
        """The extra flags; after a first start, the protosocket port it got."""
        args = list(self.extra_args)
        if self.protosocket_port and "--protosocket-listen" in args:
            args[args.index("--protosocket-listen") + 1] = f"127.0.0.1:{self.protosocket_port}"
        return args

    @property
    def protosocket_address(self) -> str:
        return f"127.0.0.1:{self.protosocket_port}"

    @property
    def endpoint(self) -> jiffy.Endpoint:
        return jiffy.Endpoint.local("127.0.0.1", self.port)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def metrics_text(self) -> str:
        """The server's Prometheus text."""
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as response:
            text: str = response.read().decode()
        return text

    def metric(self, name: str) -> float:
        """One value of the server's Prometheus text."""
        for line in self.metrics_text().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        raise KeyError(f"metric {name} not served")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def restart(self) -> None:
        """Start again on the same port (after `stop()`)."""
        self._start(f"127.0.0.1:{self.port}")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("server"))
    yield running
    running.stop()


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """Start servers of the test's own (extra flags as arguments); all stop at its end."""
    started: list[Server] = []

    def start(*extra_args: str) -> Server:
        started.append(Server(tmp_path, extra_args))
        return started[-1]

    yield start
    for running in started:
        running.stop()


@pytest.fixture
def cache_name() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


class ThreadedSync:
    """The sync CacheClient seen through async methods (each call in a thread),
    so one integration test body covers both clients."""

    def __init__(self, client: jiffy.CacheClient) -> None:
        self.sync = client

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.sync, name)
        if not callable(attribute):
            return attribute

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(attribute, *args, **kwargs)

        return call


@pytest.fixture(params=["async", "sync"])
async def client(
    request: pytest.FixtureRequest, server: Server, cache_name: str
) -> AsyncIterator[Any]:
    """A connected client of each kind with a fresh default cache."""
    config = jiffy.presets.in_region.latest()
    if request.param == "async":
        async_client = jiffy.AsyncCacheClient(server.endpoint, config, default_cache=cache_name)
        await async_client.connect()
        await async_client.create_cache(cache_name)
        yield async_client
        await async_client.delete_cache(cache_name)
        await async_client.aclose()
    else:
        sync_client = jiffy.CacheClient(server.endpoint, config, default_cache=cache_name)
        await asyncio.to_thread(sync_client.connect)
        await asyncio.to_thread(sync_client.create_cache, cache_name)
        yield ThreadedSync(sync_client)
        await asyncio.to_thread(sync_client.delete_cache, cache_name)
        await asyncio.to_thread(sync_client.close)


@pytest.fixture
async def async_client(server: Server, cache_name: str) -> AsyncIterator[jiffy.AsyncCacheClient]:
    """The async client alone, with a fresh default cache: the thorough suites
    use it (the sync client is generated from it and gets a smoke test each)."""
    config = jiffy.presets.in_region.latest()
    async with jiffy.AsyncCacheClient(server.endpoint, config, default_cache=cache_name) as made:
        await made.create_cache(cache_name)
        yield made
        await made.delete_cache(cache_name)
