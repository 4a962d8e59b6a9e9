"""Which CPUs the server and the loadgens run on."""

from __future__ import annotations

import os
import shutil

NO_PINNING = "none"


def parse_cpu_list(text: str) -> list[int] | None:
    """`0`, `1-3`, `0,2-3` (taskset's syntax); `none` = not pinned."""
    if text.strip().lower() == NO_PINNING:
        return None
    cpus: list[int] = []
    for part in text.split(","):
        first, sep, last = part.strip().partition("-")
        if sep:
            cpus.extend(range(int(first), int(last) + 1))
        else:
            cpus.append(int(first))
    if not cpus or any(cpu < 0 for cpu in cpus):
        raise ValueError(f"bad CPU list {text!r}")
    return sorted(set(cpus))


def available() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def default_split(cpus: list[int]) -> tuple[list[int] | None, list[int] | None]:
    """Server on the first CPU, loadgens on the rest; nothing pinned on one CPU."""
    if len(cpus) < 2:
        return None, None
    return cpus[:1], cpus[1:]


def pinned_command(argv: list[str], cpus: list[int] | None) -> list[str]:
    """`argv` under taskset, so every thread the child starts (Node's too) is pinned."""
    if cpus is None:
        return argv
    taskset = shutil.which("taskset")
    if taskset is None:
        raise RuntimeError(
            "pinning needs taskset (util-linux); pass --server-cpus none --client-cpus none"
        )
    return [taskset, "-c", ",".join(map(str, cpus)), *argv]
