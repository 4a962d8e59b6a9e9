"""Throwaway jiffy-servers for your own tests: a pytest plugin and a context manager.

With jiffy installed, pytest loads this module as a plugin (entry point
`pytest11`), so a test only names the fixtures:

    def test_greeting(jiffy_client):
        jiffy_client.set("greeting", "hello")
        assert jiffy_client.get_str("greeting") == "hello"

- `jiffy_server` (session scope): one jiffy-server for the whole run, on a
  free port of 127.0.0.1, stopped when the run ends; its value is the
  `jiffy.Endpoint` to connect to (`endpoint.data_target` is its host:port,
  the form JIFFY_ENDPOINT takes).
- `jiffy_client`: a blocking `jiffy.CacheClient` for it, whose default cache
  is a fresh one made for the test and deleted after it.

Outside pytest, `server()` is the same server as a context manager:

    with jiffy.testing.server() as endpoint:
        with jiffy.CacheClient(endpoint, default_cache="demo") as client:
            ...

The binary is $JIFFY_SERVER_BIN when set, else `jiffy-server` on PATH or in
this Python environment (where the wheel `make dist` builds puts it), else
the build of the jiffy checkout the tests run in (`target/release/jiffy-server`
in the working directory or above); without any, FileNotFoundError says how
to get one.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import subprocess
import sysconfig
import tempfile
import threading
import uuid
from collections.abc import Iterator
from typing import IO

from jiffy import presets
from jiffy._endpoint import Endpoint
from jiffy._exceptions import CacheError
from jiffy._sync_client import CacheClient

__all__ = ["find_server_binary", "server"]

STARTUP_TIMEOUT = 30.0
"""Seconds to wait for the server's `listening on` line; a start takes milliseconds."""
STOP_TIMEOUT = 10.0
"""Seconds between SIGTERM and SIGKILL when stopping it."""

CHECKOUT_BUILD = os.path.join("target", "release", "jiffy-server")
"""Where a jiffy checkout's `cargo build --release` (`make build`) puts the server."""

_LISTENING = re.compile(r"^listening on 127\.0\.0\.1:(\d+)$")
_LOG_TAIL_BYTES = 4000


def find_server_binary() -> str:
    """The jiffy-server to run: $JIFFY_SERVER_BIN, else `jiffy-server` on PATH or
    in this Python environment's scripts directory, else the checkout's build."""
    configured = os.environ.get("JIFFY_SERVER_BIN")
    if configured:
        if not (os.path.isfile(configured) and os.access(configured, os.X_OK)):
            raise FileNotFoundError(
                f"JIFFY_SERVER_BIN is {configured!r}, which is not an executable file"
            )
        return configured
    # PATH, then the scripts directory of this Python environment: where the
    # server's wheel put it when the environment is not activated
    # (`.venv/bin/pytest` run as it is), then a checkout's build.
    found = (
        shutil.which("jiffy-server")
        or shutil.which("jiffy-server", path=sysconfig.get_path("scripts"))
        or _checkout_build()
    )
    if found is None:
        raise FileNotFoundError(
            "jiffy-server not found: JIFFY_SERVER_BIN is unset, jiffy-server is not on PATH"
            f" nor in this Python environment, and there is no {CHECKOUT_BUILD} in"
            f" {os.getcwd()} or above. Build it in a jiffy checkout with"
            " `cargo build --release -p jiffy-server` (or `make build`), then run the tests"
            f" inside the checkout or set JIFFY_SERVER_BIN to the path of its {CHECKOUT_BUILD};"
            " or install the server's wheel into this environment"
            " (`make dist`, then `pip install dist/jiffy_server-*.whl`)"
        )
    return found


def _checkout_build() -> str | None:
    """The server a jiffy checkout built: CHECKOUT_BUILD in the working
    directory or the nearest directory above it that has one."""
    directory = os.getcwd()
    while True:
        candidate = os.path.join(directory, CHECKOUT_BUILD)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


@contextlib.contextmanager
def server(
    *args: str, binary: str | None = None, log_path: str | os.PathLike[str] | None = None
) -> Iterator[Endpoint]:
    """Start a jiffy-server on a free port of 127.0.0.1; stop it on leaving the block.

    `args` are more flags for it (`"--max-memory", "64MiB"`); the listening
    address is this function's to choose. `binary` overrides the lookup of
    `find_server_binary()`. The server's log (its stderr) goes to `log_path`,
    else to a temporary file; its end is quoted if the server fails to start.
    """
    command = [binary or find_server_binary(), "--listen", "127.0.0.1:0", *args]
    with contextlib.ExitStack() as stack:
        if log_path is None:
            log: IO[bytes] = stack.enter_context(
                tempfile.TemporaryFile(prefix="jiffy-server-", suffix=".log")
            )
        else:
            log = stack.enter_context(open(log_path, "w+b"))
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log
        )
        stack.callback(_stop, process)
        port = _wait_for_port(process, command, log)
        yield Endpoint.local("127.0.0.1", port)


def _wait_for_port(process: subprocess.Popen[bytes], command: list[str], log: IO[bytes]) -> int:
    """The port from the server's `listening on 127.0.0.1:PORT` line.

    A thread reads stdout for as long as the server runs, so that the wait
    has a timeout and the server never blocks on a full pipe.
    """
    ports: queue.Queue[int | None] = queue.Queue()

    def read_stdout() -> None:
        assert process.stdout is not None
        with process.stdout:
            for raw in process.stdout:
                if match := _LISTENING.match(raw.decode(errors="replace").strip()):
                    ports.put(int(match[1]))
        ports.put(None)  # stdout closed: the server exited

    threading.Thread(target=read_stdout, name="jiffy-server stdout", daemon=True).start()
    try:
        port = ports.get(timeout=STARTUP_TIMEOUT)
    except queue.Empty:
        why = f"printed no 'listening on' line within {STARTUP_TIMEOUT:g} s"
    else:
        if port is not None:
            return port
        try:
            why = f"exited with status {process.wait(timeout=STOP_TIMEOUT)}"
        except subprocess.TimeoutExpired:
            why = "closed its output without saying where it listens"
    _stop(process)
    raise RuntimeError(f"jiffy-server did not start: {why}\n  {' '.join(command)}\n{_tail(log)}")


def _tail(log: IO[bytes]) -> str:
    log.flush()
    log.seek(0, os.SEEK_END)
    log.seek(max(0, log.tell() - _LOG_TAIL_BYTES))
    text = log.read().decode(errors="replace").strip()
    return f"its log ends:\n{text}" if text else "its log is empty"


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the server drains its calls), then SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


try:
    import pytest
except ImportError:  # used outside pytest: server() alone
    pass
else:

    @pytest.fixture(scope="session")
    def jiffy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Endpoint]:
        """A throwaway jiffy-server for the session: the Endpoint to connect to."""
        log_path = tmp_path_factory.mktemp("jiffy-server") / "server.log"
        with contextlib.ExitStack() as stack:
            try:
                endpoint = stack.enter_context(server(log_path=log_path))
            except (FileNotFoundError, RuntimeError) as exc:
                # The message alone, as a failed setup: no traceback into this module.
                raise pytest.fail.Exception(f"jiffy_server: {exc}", pytrace=False) from None
            yield endpoint

    @pytest.fixture
    def jiffy_client(jiffy_server: Endpoint) -> Iterator[CacheClient]:
        """A CacheClient for `jiffy_server` whose default cache is new for this test."""
        cache = f"test-{uuid.uuid4().hex[:12]}"
        with CacheClient(jiffy_server, presets.laptop.latest(), default_cache=cache) as client:
            client.create_cache(cache)
            try:
                yield client
            finally:
                # The test may have deleted it already; the server keeps at
                # most 100 caches (--max-caches), so each goes when done.
                with contextlib.suppress(CacheError):
                    client.delete_cache(cache)
