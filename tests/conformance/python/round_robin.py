"""One object that hands each attribute read to the next of several targets.

Over a shared store (the Redis Cluster backend) every jiffy-server must read
what another one wrote. The cases each talk to one client or stub; giving
them this wrapper over one client per front-end puts consecutive calls on
different front-ends, so a write through one is read through another
without rewriting a case. It serves the sync and async SDK clients and the
raw gRPC stubs and channels alike, since it only forwards attributes.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


class RoundRobin(Generic[T]):
    """Forwards every attribute read (a method, mostly) to the next target in turn."""

    def __init__(self, targets: Sequence[T]) -> None:
        self.targets = tuple(targets)
        self._turns = itertools.cycle(self.targets)

    def __getattr__(self, name: str) -> Any:
        # Called only for names this class lacks, that is every client method.
        return getattr(next(self._turns), name)


def round_robin(targets: Sequence[T]) -> T:
    """One target as it is; several behind a RoundRobin used as if it were one."""
    if not targets:
        raise ValueError("round_robin needs at least one target")
    if len(targets) == 1:
        return targets[0]
    return cast(T, RoundRobin(targets))
