"""Real processes for the deployment tests: a Redis Cluster, jiffy-servers, HAProxy.

Each is a context manager that starts the process, waits until it serves,
and stops it on exit whatever happened.
"""

from __future__ import annotations

import os
import re
import secrets
import selectors
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from redis_cluster import redis_cluster

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT_SECONDS = 15
# HAProxy checks every 2 s and needs 2 results either way (the sample's
# inter / rise / fall), plus a check timeout of 2 s: well within this.
CHECK_STATE_TIMEOUT_SECONDS = 15
# The calls whose counts show which front-end served the client (HAProxy's
# health checks, on the metrics port, are not calls at all).
CLIENT_RPCS = ("Get", "Set")
# HAProxy's connection cap in the tests (see HaProxy.started).
MAX_CONNECTIONS = 500


def server_binary() -> str:
    return os.environ.get("JIFFY_SERVER_BIN") or str(REPO / "target" / "release" / "jiffy-server")


@dataclass(frozen=True)
class RedisCluster:
    store_url: str

    @classmethod
    @contextmanager
    def started(cls, directory: Path) -> Iterator[RedisCluster]:
        with redis_cluster(directory) as store_url:
            yield cls(store_url=store_url)


def write_secret(path: Path) -> Path:
    """A token secret of 48 random bytes (base64), readable by its owner only."""
    path.touch(mode=0o600)
    path.write_text(secrets.token_urlsafe(48))
    return path


def create_token(secret: Path) -> str:
    """An admin token for every cache, signed with `secret`."""
    result = subprocess.run(
        [server_binary(), "token", "create", "--auth-secret-file", str(secret)]
        + ["--caches", "all", "--role", "admin", "--expires-in", "1h", "--subject", "deploy"],
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_SECONDS,
        check=True,
    )
    return result.stdout.strip()


class FrontEnd:
    """One jiffy-server with a config file, on free loopback ports."""

    def __init__(self, process: subprocess.Popen[bytes], address: str, metrics: str) -> None:
        self.process = process
        self.address = address
        self.metrics = metrics

    @classmethod
    @contextmanager
    def started(cls, config: Path, log: Path) -> Iterator[FrontEnd]:
        # --listen and --metrics-listen win over the file's keys.
        command = [server_binary(), "--config", str(config)]
        command += ["--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"]
        with log.open("w") as stderr:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr)
        try:
            lines = read_lines(process, 2, log)
            metrics = lines[0].removeprefix("metrics listening on ")
            address = lines[1].removeprefix("listening on ")
            yield cls(process, address, metrics)
        finally:
            process.kill()
            process.wait()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


@contextmanager
def metrics_server(log: Path) -> Iterator[tuple[str, str]]:
    """A jiffy-server on free loopback ports, metrics on: (data address, metrics address)."""
    command = [server_binary(), "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"]
    with log.open("w") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr)
    try:
        metrics, data = read_lines(process, 2, log)
        yield data.removeprefix("listening on "), metrics.removeprefix("metrics listening on ")
    finally:
        process.kill()
        process.wait()


def check_serves(argv: list[str], env: dict[str, str], log: Path) -> None:
    """Starts `argv` with `env` (which, or its config file, puts both listeners on
    loopback port 0):
    it listens, and its metrics port answers /healthz."""
    with (
        log.open("w") as stderr,
        subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=stderr) as process,
    ):
        try:
            metrics, data = read_lines(process, 2, log)
            assert data.startswith("listening on 127.0.0.1:")
            address = metrics.removeprefix("metrics listening on ")
            with urllib.request.urlopen(f"http://{address}/healthz", timeout=5) as reply:
                assert reply.status == 200
        finally:
            process.kill()


def read_lines(process: subprocess.Popen[bytes], count: int, log: Path) -> list[str]:
    """The first `count` stdout lines of a starting server, or an error with its log."""
    assert process.stdout is not None
    # The raw descriptor, not readline(): a buffered reader may take both
    # lines at once and leave select() waiting for data it already has.
    descriptor = process.stdout.fileno()
    selector = selectors.DefaultSelector()
    selector.register(descriptor, selectors.EVENT_READ)
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    received = b""
    while received.count(b"\n") < count:
        if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
            raise RuntimeError(f"no `listening on` in {START_TIMEOUT_SECONDS}s: {log.read_text()}")
        chunk = os.read(descriptor, 4096)
        if not chunk:
            raise RuntimeError(f"jiffy-server exited {process.wait()}: {log.read_text()}")
        received += chunk
    return [line.strip() for line in received.decode().splitlines()[:count]]


def requests_served(front_end: FrontEnd) -> int:
    """Client calls (Get and Set, any status) this front-end has answered, from /metrics."""
    with urllib.request.urlopen(f"http://{front_end.metrics}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    rpcs = "|".join(CLIENT_RPCS)
    pattern = re.compile(rf'^jiffy_requests_total\{{[^}}]*rpc="(?:{rpcs})"[^}}]*\}} (\S+)$', re.M)
    return sum(int(float(value)) for value in pattern.findall(text))


def free_port() -> int:
    # HAProxy cannot bind port 0 and report it, so this picks one; another
    # process could take it before HAProxy binds, which start() reports.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class HaProxy:
    """HAProxy in the foreground with a generated config and a stats socket."""

    BACKEND = "jiffy_front_ends"

    def __init__(self, port: int, stats_socket: Path) -> None:
        self.port = port
        self.stats_socket = stats_socket

    @staticmethod
    def binary() -> str:
        found = shutil.which("haproxy")
        if found is None:
            raise RuntimeError("haproxy not found; install it with: apt-get install haproxy")
        return found

    @classmethod
    @contextmanager
    def started(cls, render: Callable[[int, Path], str], directory: Path) -> Iterator[HaProxy]:
        port, stats_socket = free_port(), directory / "haproxy.sock"
        config = directory / "haproxy.cfg"
        config.write_text(render(port, stats_socket))
        log = directory / "haproxy.log"
        with log.open("w") as output:
            # -n: the sample's maxconn needs more file descriptors than a
            # test machine may grant; this test holds a handful of connections.
            command = [cls.binary(), "-db", "-n", str(MAX_CONNECTIONS), "-f", str(config)]
            process = subprocess.Popen(command, stdout=output, stderr=output)
        try:
            lb = cls(port, stats_socket)
            lb.wait_serving(process, log)
            yield lb
        finally:
            process.kill()
            process.wait()

    def wait_serving(self, process: subprocess.Popen[bytes], log: Path) -> None:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self.stats_socket.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"haproxy did not start: {log.read_text()}")
            time.sleep(0.05)

    def server_states(self) -> dict[str, tuple[str, str]]:
        """Server name -> (status, last check status) of the backend, from `show stat`."""
        with socket.socket(socket.AF_UNIX) as connection:
            connection.connect(str(self.stats_socket))
            connection.sendall(b"show stat\n")
            chunks = []
            while chunk := connection.recv(65536):
                chunks.append(chunk)
        header, *rows = b"".join(chunks).decode().splitlines()
        columns = header.removeprefix("# ").split(",")
        states = {}
        for row in rows:
            fields = dict(zip(columns, row.split(","), strict=False))
            if fields.get("pxname") == self.BACKEND and fields["svname"] != "BACKEND":
                check = fields["check_status"].lstrip("* ")
                states[fields["svname"]] = (fields["status"], check)
        return states

    def wait_for(self, done: Callable[[dict[str, tuple[str, str]]], bool], what: str) -> None:
        deadline = time.monotonic() + CHECK_STATE_TIMEOUT_SECONDS
        while not done(states := self.server_states()):
            if time.monotonic() > deadline:
                raise AssertionError(f"haproxy: {what} not reached: {states}")
            time.sleep(0.2)

    def wait_all_up(self, count: int) -> None:
        """Until `count` servers are UP after a passing health check of their own."""
        self.wait_for(
            lambda states: (
                len(states) == count
                and all(status == "UP" and check == "L7OK" for status, check in states.values())
            ),
            f"{count} servers UP with L7OK",
        )

    def wait_down(self, server: str) -> None:
        self.wait_for(lambda states: states[server][0].startswith("DOWN"), f"{server} DOWN")
