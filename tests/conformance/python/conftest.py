"""Fixtures: one jiffy-server per session, a fresh cache per test.

The server binary comes from $JIFFY_SERVER_BIN, else the repository's
release build. A second server with a 1 MiB value limit backs the
size-limit tests, so they stay fast.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import grpc
import pytest
from momento import CacheClient, Configurations, CredentialProvider
from momento.responses import CreateCache
from momento_wire_types import cacheclient_pb2_grpc

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_SERVER_BIN = REPO_ROOT / "target" / "release" / "jiffy-server"
STARTUP_TIMEOUT_SECONDS = 20
SHUTDOWN_TIMEOUT_SECONDS = 10
LISTENING_LINE = re.compile(r"^listening on 127\.0\.0\.1:(\d+)$")

DEFAULT_TTL = timedelta(seconds=60)


class JiffyServer:
    """A running jiffy-server child process."""

    def __init__(self, log_path: Path, extra_args: list[str]) -> None:
        binary = Path(os.environ.get("JIFFY_SERVER_BIN", DEFAULT_SERVER_BIN))
        if not binary.is_file():
            pytest.exit(
                f"jiffy-server binary not found at {binary}; build it or set JIFFY_SERVER_BIN"
            )
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            [str(binary), "--listen", "127.0.0.1:0", *extra_args],
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        self.host = "127.0.0.1"
        self.port = self._wait_for_port()

    def _wait_for_port(self) -> int:
        assert self.process.stdout is not None
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 0.1)
            if ready:
                line = self.process.stdout.readline().decode().strip()
                match = LISTENING_LINE.match(line)
                if match:
                    return int(match.group(1))
                if not line and self.process.poll() is not None:
                    break
        self.stop()
        raise RuntimeError(
            f"jiffy-server did not print its port; stderr:\n{self.log_path.read_text()}"
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(SHUTDOWN_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def _start(tmp_path_factory: pytest.TempPathFactory, name: str, args: list[str]) -> JiffyServer:
    return JiffyServer(tmp_path_factory.mktemp(name) / "stderr.log", args)


def _stop(server: JiffyServer) -> None:
    server.stop()
    # SIGTERM is the documented way to stop; a crash on it is a bug too.
    assert server.process.returncode == 0, (
        f"exit status {server.process.returncode}; stderr:\n{server.log_path.read_text()}"
    )


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    running = _start(tmp_path_factory, "server", [])
    yield running.host, running.port
    _stop(running)


@pytest.fixture(scope="session")
def small_limit_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    running = _start(tmp_path_factory, "small-limit-server", ["--max-value-size", "1MiB"])
    yield running.host, running.port
    _stop(running)


def make_client(host: str, port: int) -> CacheClient:
    return CacheClient.create(
        Configurations.Laptop.latest(),
        CredentialProvider.for_momento_local(host, port),
        DEFAULT_TTL,
    )


@pytest.fixture(scope="session")
def client(server: tuple[str, int]) -> Iterator[CacheClient]:
    with make_client(*server) as cache_client:
        yield cache_client


@pytest.fixture(scope="session")
def small_limit_client(small_limit_server: tuple[str, int]) -> Iterator[CacheClient]:
    with make_client(*small_limit_server) as cache_client:
        yield cache_client


def unique_cache_name(request: pytest.FixtureRequest) -> str:
    test_name = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name)[:40]
    return f"py-{test_name}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def cache_name(client: CacheClient, request: pytest.FixtureRequest) -> Iterator[str]:
    name = unique_cache_name(request)
    created = client.create_cache(name)
    assert isinstance(created, CreateCache.Success), created
    yield name
    # Best effort: some tests delete their cache themselves.
    client.delete_cache(name)


@pytest.fixture
def channel(server: tuple[str, int]) -> Iterator[grpc.Channel]:
    host, port = server
    with grpc.insecure_channel(f"{host}:{port}") as raw_channel:
        yield raw_channel


@pytest.fixture
def scs(channel: grpc.Channel) -> cacheclient_pb2_grpc.ScsStub:
    """Raw data-plane stub, for the RPCs the Python SDK does not expose."""
    return cacheclient_pb2_grpc.ScsStub(channel)


@pytest.fixture
def cache_metadata(cache_name: str) -> list[tuple[str, str]]:
    # The headers the SDKs send in local mode: no token, the cache by name.
    return [("cache", cache_name), ("authorization", "")]
