"""Where the sweep ran: machine, OS, runtimes, versions."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path

from jiffy_tune.model import Environment, Point


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def cpu_model() -> str | None:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return platform.processor() or None


def memory_gib() -> float | None:
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            return round(int(line.split()[1]) / 1024**2, 1)
    return None


def os_name() -> str:
    for line in _read("/etc/os-release").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.partition("=")[2].strip().strip('"')
    return platform.platform()


def _output(argv: Sequence[str], cwd: Path | None = None) -> str | None:
    try:
        done = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=10, check=True, cwd=cwd
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def describe(repo: Path, points: Sequence[Point]) -> Environment:
    """Where the sweep ran; SDK versions and runtimes come from the loadgens' reports."""
    sdk_versions: dict[str, str] = {}
    runtimes: dict[str, str] = {}
    for point in points:
        report = point.loadgen
        if report:
            sdk_versions.setdefault(point.sdk, str(report.get("sdk_version", "")))
            runtimes.setdefault(point.sdk, str(report.get("runtime", "")))
    return Environment(
        hostname=socket.gethostname(),
        os=os_name(),
        kernel=platform.release(),
        cpu_model=cpu_model(),
        cpus_online=os.cpu_count() or 1,
        memory_gib=memory_gib(),
        python=f"{platform.python_implementation()} {platform.python_version()}",
        node=_output(["node", "--version"]),
        git_commit=_output(["git", "rev-parse", "HEAD"], cwd=repo),
        sdk_versions=sdk_versions,
        runtimes=runtimes,
    )
