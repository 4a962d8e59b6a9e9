"""Fixtures: the session's jiffy-servers, clients on them, a fresh cache per test.

The server binary comes from $JIFFY_SERVER_BIN, else the repository's
release build. Servers with a 1 MiB value limit back the size-limit tests,
so they stay fast.

With JIFFY_CONFORMANCE_STORE=redis-cluster (see shared_store.py) each of
those is two front-ends over one Redis Cluster, and every client, stub and
channel fixture alternates between them call by call (round_robin.py).
"""

from __future__ import annotations

import dataclasses
import os
import re
import select
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, ExitStack, contextmanager
from datetime import timedelta
from pathlib import Path

import grpc
import pytest
import pytest_asyncio
from momento import CacheClient, CacheClientAsync, Configurations, CredentialProvider
from momento.responses import CreateCache
from momento_wire_types import cacheclient_pb2_grpc
from round_robin import round_robin
from shared_store import EMBEDDED, Store, cluster_store, store_mode

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_SERVER_BIN = REPO_ROOT / "target" / "release" / "jiffy-server"
STARTUP_TIMEOUT_SECONDS = 20
SHUTDOWN_TIMEOUT_SECONDS = 10
LISTENING_LINE = re.compile(r"^listening on 127\.0\.0\.1:(\d+)$")
METRICS_LINE = re.compile(r"^metrics listening on 127\.0\.0\.1:(\d+)$")

DEFAULT_TTL = timedelta(seconds=60)


class JiffyServer:
    """A running jiffy-server child process."""

    def __init__(self, log_path: Path, extra_args: list[str], with_metrics: bool = False) -> None:
        binary = Path(os.environ.get("JIFFY_SERVER_BIN", DEFAULT_SERVER_BIN))
        if not binary.is_file():
            pytest.exit(
                f"jiffy-server binary not found at {binary}; build it or set JIFFY_SERVER_BIN"
            )
        metrics_args = ["--metrics-listen", "127.0.0.1:0"] if with_metrics else []
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            [str(binary), "--listen", "127.0.0.1:0", *metrics_args, *extra_args],
            stdout=subprocess.PIPE,
            stderr=self._log,
            # Unbuffered, so a second line is never hidden from select() in a read buffer.
            bufsize=0,
        )
        self.host = "127.0.0.1"
        self.metrics_port: int | None = None
        self.port = self._wait_for_port()

    @property
    def address(self) -> tuple[str, int]:
        return self.host, self.port

    def _wait_for_port(self) -> int:
        assert self.process.stdout is not None
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 0.1)
            if ready:
                line = self.process.stdout.readline().decode().strip()
                # The metrics line, when asked for, comes before the listening one.
                if metrics := METRICS_LINE.match(line):
                    self.metrics_port = int(metrics.group(1))
                if match := LISTENING_LINE.match(line):
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


@contextmanager
def _front_ends(
    tmp_path_factory: pytest.TempPathFactory, name: str, store: Store, args: list[str]
) -> Iterator[list[JiffyServer]]:
    """Starts the store's front-ends; stops every one started, whatever happens."""
    started: list[JiffyServer] = []
    try:
        for index in range(store.front_ends):
            log_path = tmp_path_factory.mktemp(f"{name}-{index}") / "stderr.log"
            # Metrics only where there is a shared store: they show the spread of calls.
            started.append(JiffyServer(log_path, [*store.args, *args], store.shared))
        yield started
    finally:
        for server in started:
            server.stop()
    for server in started:
        # SIGTERM is the documented way to stop; a crash on it is a bug too.
        assert server.process.returncode == 0, (
            f"exit status {server.process.returncode}; stderr:\n{server.log_path.read_text()}"
        )


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """The store every front-end of the session uses; a Redis Cluster if asked for."""
    if store_mode() == "embedded":
        yield EMBEDDED
        return
    with cluster_store(tmp_path_factory.mktemp("redis-cluster")) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def front_ends(
    tmp_path_factory: pytest.TempPathFactory, store: Store
) -> Iterator[list[JiffyServer]]:
    with _front_ends(tmp_path_factory, "server", store, []) as servers:
        yield servers


@pytest.fixture(scope="session")
def small_limit_front_ends(
    tmp_path_factory: pytest.TempPathFactory, store: Store
) -> Iterator[list[JiffyServer]]:
    args = ["--max-value-size", "1MiB"]
    with _front_ends(tmp_path_factory, "small-limit-server", store, args) as servers:
        yield servers


@pytest.fixture(scope="session")
def server(front_ends: list[JiffyServer]) -> tuple[str, int]:
    return front_ends[0].address


@pytest.fixture(scope="session")
def small_limit_server(small_limit_front_ends: list[JiffyServer]) -> tuple[str, int]:
    return small_limit_front_ends[0].address


def make_client(host: str, port: int) -> CacheClient:
    return CacheClient.create(
        Configurations.Laptop.latest(),
        CredentialProvider.for_momento_local(host, port),
        DEFAULT_TTL,
    )


async def make_async_client(host: str, port: int) -> CacheClientAsync:
    return await CacheClientAsync.create(
        Configurations.Laptop.latest(),
        CredentialProvider.for_momento_local(host, port),
        DEFAULT_TTL,
    )


@contextmanager
def _clients(servers: list[JiffyServer]) -> Iterator[list[CacheClient]]:
    with ExitStack() as stack:
        yield [stack.enter_context(make_client(*server.address)) for server in servers]


@pytest.fixture(scope="session")
def client(front_ends: list[JiffyServer]) -> Iterator[CacheClient]:
    with _clients(front_ends) as clients:
        yield round_robin(clients)


@pytest.fixture(scope="session")
def small_limit_client(small_limit_front_ends: list[JiffyServer]) -> Iterator[CacheClient]:
    with _clients(small_limit_front_ends) as clients:
        yield round_robin(clients)


# Function scope: the async client lives on the event loop of one test.
@pytest_asyncio.fixture
async def async_client(front_ends: list[JiffyServer]) -> AsyncIterator[CacheClientAsync]:
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(await make_async_client(*server.address))
            for server in front_ends
        ]
        yield round_robin(clients)


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
def channels(front_ends: list[JiffyServer]) -> Iterator[list[grpc.Channel]]:
    with ExitStack() as stack:
        yield [
            stack.enter_context(grpc.insecure_channel(f"{server.host}:{server.port}"))
            for server in front_ends
        ]


@pytest.fixture
def channel(channels: list[grpc.Channel]) -> grpc.Channel:
    return round_robin(channels)


@pytest.fixture
def scs(channels: list[grpc.Channel]) -> cacheclient_pb2_grpc.ScsStub:
    """Raw data-plane stub, for the RPCs the Python SDK does not expose."""
    # One stub per front-end, alternated per call: a stub built on the
    # alternating channel would pin each RPC to one front-end for good.
    stubs: list[cacheclient_pb2_grpc.ScsStub] = [
        cacheclient_pb2_grpc.ScsStub(each)  # type: ignore[no-untyped-call]
        for each in channels
    ]
    return round_robin(stubs)


def token_create(secret: Path, role: str, *args: str) -> str:
    """What `jiffy-server token create` prints for a key of `role` on every cache."""
    binary = os.environ.get("JIFFY_SERVER_BIN", str(DEFAULT_SERVER_BIN))
    done = subprocess.run(
        [binary, "token", "create", "--auth-secret-file", str(secret)]
        + ["--role", role, "--caches", "all", "--expires-in", "1h", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def secret_file(directory: Path, secret: str) -> Path:
    path = directory / "secret"
    path.write_text(secret)
    return path


def on(server: JiffyServer, key: str) -> CredentialProvider:
    """The key's credentials (a Momento v1 key, or a token the SDK's
    AuthClient minted), pointed at `server` in plaintext: the SDK derives
    TLS endpoints on port 443 from the key's host, a port other than 443
    is plaintext."""
    credentials = CredentialProvider.from_disposable_token(key)
    return dataclasses.replace(
        credentials,
        control_endpoint=server.host,
        cache_endpoint=server.host,
        token_endpoint=server.host,
        port=server.port,
    )


@pytest.fixture
def cache_metadata(cache_name: str) -> list[tuple[str, str]]:
    # The headers the SDKs send in local mode: no token, the cache by name.
    return [("cache", cache_name), ("authorization", "")]
