"""The embedded jiffy-server: started on free ports, pinned, stopped at the end.

Its gRPC and metrics ports always; its protosocket port (`--protosocket-listen`)
when the sweep runs an SDK over protosocket.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from jiffy_tune.cpus import pinned_command
from jiffy_tune.jsonfields import JsonRecord

START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 5.0
LISTENING = re.compile(r"^listening on (\S+)")
METRICS_LISTENING = re.compile(r"^metrics listening on (\S+)")
PROTOSOCKET_LISTENING = re.compile(r"^protosocket listening on (\S+)")


@dataclass(frozen=True)
class ServerInfo(JsonRecord):
    kind: str
    endpoint: str
    metrics_url: str | None
    binary: str | None
    version: str | None
    cpus: list[int] | None
    # Its protosocket port (--protosocket-listen); None when the sweep has none.
    protosocket_endpoint: str | None = None


def find_binary(repo: Path, given: str | None) -> str:
    """--server-bin, else $JIFFY_SERVER_BIN, else the repo's release build, else PATH."""
    for candidate in (given, os.environ.get("JIFFY_SERVER_BIN")):
        if candidate:
            return candidate
    built = repo / "target/release/jiffy-server"
    if built.exists():
        return str(built)
    on_path = shutil.which("jiffy-server")
    if on_path is None:
        raise FileNotFoundError(
            "no jiffy-server: build it (cargo build --release -p jiffy-server), "
            "pass --server-bin, or use --endpoint"
        )
    return on_path


def binary_version(binary: str) -> str | None:
    try:
        out = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=10, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.split()[-1] if out.split() else None


class EmbeddedServer:
    """`with EmbeddedServer(...) as info:` a running server until the block ends."""

    def __init__(
        self,
        binary: str,
        cpus: list[int] | None,
        extra_args: list[str],
        protosocket: bool = False,
    ) -> None:
        self.binary = binary
        self.cpus = cpus
        self.extra_args = extra_args
        self.protosocket = protosocket
        self._process: subprocess.Popen[str] | None = None
        self.log: list[str] = []

    def __enter__(self) -> ServerInfo:
        argv = [
            self.binary,
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
            *(["--protosocket-listen", "127.0.0.1:0"] if self.protosocket else []),
            *self.extra_args,
        ]
        # Its own session: a Ctrl-C in the terminal reaches jiffy-tune, which
        # stops the server itself after writing the results.
        self._process = subprocess.Popen(
            pinned_command(argv, self.cpus),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            found = self._wait_for_addresses()
        except BaseException:
            self.stop()
            raise
        return ServerInfo(
            kind="embedded",
            endpoint=found["endpoint"],
            metrics_url=f"http://{found['metrics']}/metrics",
            binary=self.binary,
            version=binary_version(self.binary),
            cpus=self.cpus,
            protosocket_endpoint=found.get("protosocket"),
        )

    def _wait_for_addresses(self) -> dict[str, str]:
        """The addresses the server printed, by "endpoint", "metrics" (and "protosocket")."""
        assert self._process is not None
        stdout = self._process.stdout
        assert stdout is not None
        patterns = [("endpoint", LISTENING), ("metrics", METRICS_LISTENING)]
        if self.protosocket:
            patterns.append(("protosocket", PROTOSOCKET_LISTENING))
        found: dict[str, str] = {}
        done = threading.Event()

        def read() -> None:
            # Keeps draining after start-up so a chatty server never blocks on a full pipe.
            for line in stdout:
                self.log.append(line.rstrip())
                del self.log[:-50]
                for key, pattern in patterns:
                    match = pattern.match(line)
                    if match:
                        found[key] = match.group(1)
                if len(found) == len(patterns):
                    done.set()
            done.set()

        threading.Thread(target=read, name="jiffy-server-log", daemon=True).start()
        done.wait(START_TIMEOUT_S)
        if len(found) < len(patterns):
            tail = "\n".join(self.log[-10:])
            raise RuntimeError(f"jiffy-server did not report its addresses:\n{tail}")
        return dict(found)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(STOP_TIMEOUT_S)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
