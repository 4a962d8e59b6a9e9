"""Which store the suite's front-ends use, and the Redis Cluster when it is that.

JIFFY_CONFORMANCE_STORE unset (or `embedded`): one jiffy-server with its
embedded store, as always. `redis-cluster`: a real 6-node Redis Cluster from
tests/redis-cluster.sh and two jiffy-servers over it, so every case also checks
that one front-end sees what another wrote.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

STORE_VARIABLE = "JIFFY_CONFORMANCE_STORE"
CLUSTER_SCRIPT = Path(__file__).resolve().parents[2] / "redis-cluster.sh"
# Creating a cluster waits for the nodes to agree on slots: seconds, not minutes.
CLUSTER_START_TIMEOUT_SECONDS = 120
CLUSTER_STOP_TIMEOUT_SECONDS = 60
# Two is enough for "a write through one is read through the other".
CLUSTER_FRONT_ENDS = 2


@dataclass(frozen=True)
class Store:
    """The --store arguments every front-end gets, and how many front-ends share it."""

    args: tuple[str, ...]
    front_ends: int

    @property
    def shared(self) -> bool:
        return self.front_ends > 1


EMBEDDED = Store(args=(), front_ends=1)


def store_mode() -> str:
    mode = os.environ.get(STORE_VARIABLE, "") or "embedded"
    if mode not in ("embedded", "redis-cluster"):
        raise ValueError(f"{STORE_VARIABLE}={mode!r}: expected `embedded` or `redis-cluster`")
    return mode


@contextmanager
def redis_cluster(directory: Path) -> Iterator[Store]:
    """A Redis Cluster in `directory`, stopped on exit whatever happened."""
    try:
        started = subprocess.run(
            ["bash", str(CLUSTER_SCRIPT), "start", str(directory)],
            capture_output=True,
            text=True,
            timeout=CLUSTER_START_TIMEOUT_SECONDS,
        )
        if started.returncode != 0 or not started.stdout.strip():
            raise RuntimeError(
                f"{CLUSTER_SCRIPT.name} start exited {started.returncode}; "
                f"stdout:\n{started.stdout}\nstderr:\n{started.stderr}"
            )
        # The script's contract: the node list is its last stdout line.
        nodes = started.stdout.strip().splitlines()[-1].strip()
        yield Store(args=("--store", f"redis-cluster://{nodes}"), front_ends=CLUSTER_FRONT_ENDS)
    finally:
        subprocess.run(
            ["bash", str(CLUSTER_SCRIPT), "stop", str(directory)],
            capture_output=True,
            timeout=CLUSTER_STOP_TIMEOUT_SECONDS,
            check=False,
        )
