"""Which store the suite's front-ends use, and the Redis Cluster when it is that.

JIFFY_CONFORMANCE_STORE unset (or `embedded`): one jiffy-server with its
embedded store, as always. `redis-cluster`: a real 6-node Redis Cluster from
tests/redis-cluster.sh and two jiffy-servers over it, so every case also checks
that one front-end sees what another wrote.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from redis_cluster import redis_cluster

STORE_VARIABLE = "JIFFY_CONFORMANCE_STORE"
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
def cluster_store(directory: Path) -> Iterator[Store]:
    """The front-ends' store: a Redis Cluster in `directory`, stopped on exit."""
    with redis_cluster(directory) as url:
        yield Store(args=("--store", url), front_ends=CLUSTER_FRONT_ENDS)
