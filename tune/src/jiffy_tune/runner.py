"""Runs one point: a fresh loadgen process, pinned, with server scrapes around it."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path

from jiffy_tune import caps, failure, metrics, transports
from jiffy_tune.cpus import pinned_command
from jiffy_tune.loadgen_report import LoadgenReport, parse_report
from jiffy_tune.model import Effective, Point
from jiffy_tune.plan import PointSpec
from jiffy_tune.sdks import Loadgen

# Beyond warmup + duration: process start, connecting, creating the cache.
TIMEOUT_MARGIN_S = 60.0
# A loadgen asked to stop gets this long to exit before it is killed.
KILL_GRACE_S = 2.0
# The loadgens' own defaults (docs/LOADGEN.md). The cache is passed
# explicitly all the same, so that the presets can name the one the sweep used.
DEFAULT_ENDPOINT = "127.0.0.1:8080"
DEFAULT_CACHE = "loadgen"


@dataclass(frozen=True)
class RunSettings:
    endpoint: str
    metrics_url: str | None
    duration_s: float
    warmup_s: float
    value_size: int
    keyspace: int
    get_ratio: float
    preset: str
    node_options: tuple[str, ...]
    client_cpus: list[int] | None
    workload: str = "scalar"
    cache: str = DEFAULT_CACHE
    # The server's protosocket port (its --protosocket-listen), for protosocket points.
    protosocket_endpoint: str | None = None
    # The server holds every call this long (the loadgens' --delay-ms); 0 = not sent.
    delay_ms: int = 0


@dataclass(frozen=True)
class Finished:
    """A loadgen process that ended (or was stopped at the timeout), with its output."""

    stdout: str
    stderr: str
    returncode: int
    timed_out: bool


def _runs_node_directly(loadgen: Loadgen) -> bool:
    return loadgen.runtime == "node" and Path(loadgen.command[0]).name.startswith("node")


def loadgen_argv(loadgen: Loadgen, spec: PointSpec, settings: RunSettings) -> list[str]:
    command = list(loadgen.command)
    if _runs_node_directly(loadgen):
        # On node's own command line every V8 flag is allowed; NODE_OPTIONS
        # refuses some (--single-threaded-gc), so it is only the fallback.
        command[1:1] = settings.node_options
    argv = [
        *command,
        "--endpoint",
        settings.endpoint,
        "--cache",
        settings.cache,
        "--json",
        "--concurrency",
        str(spec.concurrency),
        "--channels",
        str(spec.channels),
        "--max-concurrent-requests",
        str(spec.max_concurrent_requests),
        "--preset",
        settings.preset,
        "--duration",
        f"{settings.duration_s:g}",
        "--warmup",
        f"{settings.warmup_s:g}",
        "--value-size",
        str(settings.value_size),
        "--keyspace",
        str(settings.keyspace),
        "--get-ratio",
        f"{settings.get_ratio:g}",
    ]
    if spec.rate is not None:
        argv += ["--rate", f"{spec.rate:g}"]
    # Only when asked: the official SDKs' drivers refuse the flag (cli.check refuses them first).
    if settings.delay_ms:
        argv += ["--delay-ms", str(settings.delay_ms)]
    # Only when not the default: a loadgen of the contract before workloads
    # (or one that has only scalar calls) still runs the scalar sweeps.
    if settings.workload != "scalar":
        argv += ["--workload", settings.workload]
    # Only to the loadgens with a choice: the others refuse or ignore the flag.
    if transports.chooses(spec.sdk):
        argv += ["--transport", spec.transport_name]
        if spec.transport_name == transports.PROTOSOCKET:
            if settings.protosocket_endpoint is None:
                raise ValueError("a protosocket point needs the server's protosocket endpoint")
            argv += ["--protosocket-endpoint", settings.protosocket_endpoint]
    return argv


def loadgen_env(loadgen: Loadgen, settings: RunSettings) -> dict[str, str]:
    env = dict(os.environ)
    if loadgen.runtime == "node" and settings.node_options and not _runs_node_directly(loadgen):
        env["NODE_OPTIONS"] = " ".join(
            filter(None, [env.get("NODE_OPTIONS", ""), *settings.node_options])
        )
    return env


def empty_point(spec: PointSpec) -> Point:
    """The point of `spec` before it is measured: failed, with no numbers."""
    return Point(
        sdk=spec.sdk,
        transport=spec.transport_name,
        channels=spec.channels,
        concurrency=spec.concurrency,
        max_concurrent_requests=spec.max_concurrent_requests,
        rate=spec.rate,
        round=spec.round,
    )


def client_share(client_p999: float | None, server_p999: float | None) -> float | None:
    """The client's share of p99.9: 1 - server / client, at least 0.

    Clamped because the server's quantile is only as fine as its buckets
    (up to +-25%) and can come out a little above a fast client's.
    """
    if client_p999 is None or server_p999 is None or client_p999 <= 0:
        return None
    return round(max(0.0, 1.0 - server_p999 / client_p999), 4)


def fill_from_loadgen(point: Point, report: LoadgenReport) -> Point:
    """The point with its fields from the loadgen's report (docs/LOADGEN.md)."""
    errors = {name: count for name, count in report.errors.items() if count}
    config = report.config
    auto = caps.is_auto(point.max_concurrent_requests)
    return replace(
        point,
        status="ok",
        rps=report.rps,
        requests=report.requests,
        errors=errors,
        errors_total=sum(errors.values()),
        client_ms=report.latency_ms,
        connections=report.connections,
        client_cpu_percent=report.client_cpu_percent,
        effective=Effective(
            channels=config.channels,
            max_concurrent_requests=config.max_concurrent_requests,
            transport=config.transport,
        ),
        # An auto point's in-flight limit over the run, as reported.
        in_flight_limit=report.in_flight_limit if auto else None,
        loadgen=dict(report.raw),
    )


def delay_ignored(point: Point, delay_ms: int) -> bool:
    """Whether a point asked for --delay-ms had calls answered sooner: the
    server ignored the header (a server of --endpoint started without
    --enable-fault-injection does), so the point measured no delay at all."""
    return bool(delay_ms) and point.client_ms is not None and point.client_ms.p50 < delay_ms


def delay_ignored_error(point: Point, delay_ms: int) -> str:
    p50 = point.client_ms.p50 if point.client_ms is not None else 0.0
    return (
        f"--delay-ms {delay_ms}: half the calls took under {p50:g} ms, "
        "so the server ignored the delay header; start it with --enable-fault-injection"
    )


def run_point(loadgen: Loadgen, spec: PointSpec, settings: RunSettings) -> Point:
    """Measure one point; failures are recorded in the point, never raised.

    A failed point's `error` is one line (why, and the loadgen's own
    exception line); `stderr_excerpt` has the first and last lines of its stderr.
    KeyboardInterrupt stops the loadgen and propagates.
    """
    point = empty_point(spec)
    before = _scrape(settings.metrics_url)
    started = time.monotonic()
    argv = pinned_command(loadgen_argv(loadgen, spec, settings), settings.client_cpus)
    timeout = settings.warmup_s + settings.duration_s + TIMEOUT_MARGIN_S
    try:
        done = _run(argv, loadgen_env(loadgen, settings), timeout)
    except OSError as exc:
        return replace(point, error=f"could not start {argv[0]}: {exc}", wall_s=_since(started))
    point = replace(point, wall_s=_since(started))
    if done.timed_out:
        return _failed(point, f"timed out after {timeout:g} s", done.stderr)
    if done.returncode != 0:
        return _failed(point, failure.exit_reason(done.returncode), done.stderr)
    try:
        point = fill_from_loadgen(point, parse_report(json.loads(done.stdout)))
    except ValueError as exc:
        return _failed(point, f"unreadable JSON ({exc})", done.stderr or done.stdout)
    if delay_ignored(point, settings.delay_ms):
        return replace(point, status="failed", error=delay_ignored_error(point, settings.delay_ms))
    after = _scrape(settings.metrics_url)
    if before is None or after is None or point.client_ms is None:
        return point
    server = metrics.latency_ms(metrics.diff(after, before))
    return replace(
        point,
        server_ms=server,
        client_share_p999=client_share(point.client_ms.p999, server.p999),
    )


def _failed(point: Point, reason: str, output: str) -> Point:
    error, excerpt = failure.describe(reason, output)
    return replace(point, status="failed", error=error, stderr_excerpt=excerpt)


def _run(argv: list[str], env: dict[str, str], timeout: float) -> Finished:
    # Its own session: a Ctrl-C reaches jiffy-tune only, which stops the loadgen.
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # What it wrote before it hung says where it hung.
        stdout, stderr = _stop(process)
        return Finished(stdout, stderr, process.returncode, timed_out=True)
    except BaseException:
        _stop(process)
        raise
    return Finished(stdout, stderr, process.returncode, timed_out=False)


def _stop(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Terminate, then kill; the output it wrote (empty if even that did not end it)."""
    process.terminate()
    try:
        return process.communicate(timeout=KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            return process.communicate(timeout=KILL_GRACE_S)
    return "", ""


def _scrape(url: str | None) -> metrics.Histogram | None:
    if url is None:
        return None
    try:
        return metrics.scrape(url)
    except OSError:
        return None


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)
