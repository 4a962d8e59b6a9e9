"""The load loop, shared by every driver: workers, histograms, the report.

A driver (jiffy, the official momento SDK, bare grpc.aio stubs) only says
how to start, get, set (and the operations of the other workloads,
_workloads.py), name an error and close; everything measured is measured
here, the same way for all of them.

Closed loop: `concurrency` workers, each with one request in flight.
Open loop (`rate` > 0): requests are due at fixed intervals from the start;
a worker takes the next due slot, waits until it is due, and its latency is
timed from when it was due, not from when it was sent (wrk2), so a stalled
server shows in the tail instead of hiding behind fewer sends.
"""

from __future__ import annotations

import asyncio
import random
import resource
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from hdrh.histogram import HdrHistogram

from jiffy.loadgen._options import Options
from jiffy.loadgen._workloads import key_name, operations

HISTOGRAM_MAX_US = 60_000_000  # one minute, far beyond any deadline
HISTOGRAM_DIGITS = 3
PERCENTILES = (("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p999", 99.9))
ALWAYS_REPORTED_ERRORS = ("DEADLINE_EXCEEDED", "UNAVAILABLE")
LIMIT_SAMPLE_INTERVAL = 0.1
"""Seconds between two samples of the client's in-flight limit (the report's in_flight_limit)."""


class Driver(Protocol):
    """What a client must provide to be driven by the harness.

    Optional: `adaptive_cap = True` for a driver that takes
    `--max-concurrent-requests auto`, `fault_delay = True` for one that
    sends `--delay-ms`, `protosocket = True` for one that takes `--transport
    protosocket`, `in_flight_limit()` (the client's cap now), which the
    harness samples into the report, and once started `transport` (what
    carries get and set, "grpc" or "protosocket", for the report) and
    `protosocket_address` (host:port of the protosocket port it uses).
    """

    sdk: str
    sdk_version: str

    async def start(self, options: Options) -> tuple[int, int | str]:
        """Connect and create the cache; (channels, in-flight cap, 0 = none or "auto") in effect."""
        ...

    async def get(self, key: bytes) -> object: ...

    async def set(self, key: bytes, value: bytes) -> object: ...

    def error_name(self, exc: BaseException) -> str:
        """The gRPC status name of a failed call (e.g. UNAVAILABLE)."""
        ...

    async def close(self) -> None: ...


def new_histogram() -> HdrHistogram:
    return HdrHistogram(1, HISTOGRAM_MAX_US, HISTOGRAM_DIGITS)


@dataclass
class Recorder:
    """Latency per operation (µs) and errors by status, for the measured window only."""

    recording: bool = False
    stopping: bool = False
    by_op: dict[str, HdrHistogram] = field(
        default_factory=lambda: {"get": new_histogram(), "set": new_histogram()}
    )
    errors: Counter[str] = field(default_factory=Counter)
    completed: int = 0
    """Requests finished since the start, warmup included (for the progress bar)."""


async def _closed_worker(
    driver: Driver, options: Options, keys: list[bytes], value: bytes, rec: Recorder, seed: int
) -> None:
    rand = random.Random(seed).random
    (get, set_), name_error = operations(driver, options.workload, seed), driver.error_name
    get_hist, set_hist = rec.by_op["get"].record_value, rec.by_op["set"].record_value
    keyspace, ratio, clock = len(keys), options.get_ratio, time.perf_counter_ns
    while not rec.stopping:
        key = keys[int(rand() * keyspace)]
        is_get = rand() < ratio
        started = clock()
        try:
            if is_get:
                await get(key)
            else:
                await set_(key, value)
        except Exception as exc:
            if rec.recording:
                rec.errors[name_error(exc)] += 1
            # A call refused before any I/O never yields: without this a
            # worker failing that way would hold the loop forever.
            await asyncio.sleep(0)
        elapsed_us = (clock() - started) // 1000
        rec.completed += 1
        if rec.recording:
            (get_hist if is_get else set_hist)(min(max(elapsed_us, 1), HISTOGRAM_MAX_US))


async def _open_worker(
    driver: Driver,
    options: Options,
    keys: list[bytes],
    value: bytes,
    rec: Recorder,
    seed: int,
    schedule: dict[str, int],
) -> None:
    rand = random.Random(seed).random
    read, write = operations(driver, options.workload, seed)
    interval_ns = round(1e9 / options.rate)
    clock = time.perf_counter_ns
    while not rec.stopping:
        slot = schedule["next"]
        schedule["next"] = slot + 1
        due = schedule["start"] + slot * interval_ns
        wait_ns = due - clock()
        if wait_ns > 0:
            await asyncio.sleep(wait_ns / 1e9)
        if rec.stopping:
            return
        key = keys[int(rand() * len(keys))]
        is_get = rand() < options.get_ratio
        try:
            if is_get:
                await read(key)
            else:
                await write(key, value)
        except Exception as exc:
            if rec.recording:
                rec.errors[driver.error_name(exc)] += 1
            await asyncio.sleep(0)  # as in _closed_worker
        elapsed_us = (clock() - due) // 1000
        rec.completed += 1
        if rec.recording:
            rec.by_op["get" if is_get else "set"].record_value(
                min(max(elapsed_us, 1), HISTOGRAM_MAX_US)
            )


def _percentiles(histogram: HdrHistogram) -> dict[str, float]:
    table = {name: histogram.get_value_at_percentile(pct) / 1000.0 for name, pct in PERCENTILES}
    table["max"] = histogram.get_max_value() / 1000.0
    return table


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def count_connections(*endpoints: str) -> int:
    """TCP connections this process holds to the servers' ports (as lsof would show)."""
    import psutil

    ports = {int(endpoint.rpartition(":")[2]) for endpoint in endpoints}
    return sum(
        1
        for conn in psutil.Process().net_connections(kind="tcp")
        if conn.raddr and conn.raddr.port in ports and conn.status == psutil.CONN_ESTABLISHED
    )


async def _sample_limit(read: Any, samples: list[list[float]], rec: Recorder) -> None:
    """[seconds since the load began, the client's in-flight limit], every LIMIT_SAMPLE_INTERVAL."""
    began = time.perf_counter()
    while not rec.stopping:
        samples.append([round(time.perf_counter() - began, 3), read()])
        await asyncio.sleep(LIMIT_SAMPLE_INTERVAL)


async def measure(driver: Driver, options: Options, progress: Any = None) -> dict[str, Any]:
    """Run the load described by `options` through `driver`; the report's measured part."""
    channels, cap = await driver.start(options)
    keys = [key_name(options.workload, index).encode() for index in range(options.keyspace)]
    value = bytes(random.Random(1).getrandbits(8) for _ in range(options.value_size))
    rec = Recorder()
    schedule = {"next": 0, "start": time.perf_counter_ns()}
    workers = [
        asyncio.create_task(
            _open_worker(driver, options, keys, value, rec, seed, schedule)
            if options.rate > 0
            else _closed_worker(driver, options, keys, value, rec, seed)
        )
        for seed in range(options.concurrency)
    ]
    read_limit = getattr(driver, "in_flight_limit", None)
    limits: list[list[float]] = []
    if read_limit is not None:
        workers.append(asyncio.create_task(_sample_limit(read_limit, limits, rec)))
    try:
        await _sleep_with_progress(options.warmup, rec, progress, "warmup")
        rec.recording = True
        cpu_started, wall_started = _cpu_seconds(), time.perf_counter()
        await _sleep_with_progress(options.duration, rec, progress, "measuring")
        rec.recording = False
        wall = time.perf_counter() - wall_started
        cpu = _cpu_seconds() - cpu_started
        # With protosocket the client holds connections to both ports: count both.
        ports = [options.endpoint]
        protosocket = getattr(driver, "protosocket_address", None) or options.protosocket_endpoint
        if protosocket:
            ports.append(protosocket)
        connections = count_connections(*ports)
        rec.stopping = True
        await asyncio.gather(*workers)
    finally:
        rec.stopping = True
        for worker in workers:
            worker.cancel()
        await driver.close()
    total = new_histogram()
    for histogram in rec.by_op.values():
        total.add(histogram)
    errors = {name: 0 for name in ALWAYS_REPORTED_ERRORS} | dict(rec.errors)
    requests = total.get_total_count()  # failed calls are timed too
    return {
        "channels": channels,
        "max_concurrent_requests": cap,
        "requests": requests,
        "rps": round(requests / wall, 1),
        "errors": errors,
        "latency_ms": _percentiles(total),
        "latency_ms_by_op": {
            op: _percentiles(hist) for op, hist in rec.by_op.items() if hist.get_total_count()
        },
        "connections": connections,
        "client_cpu_percent": round(100.0 * cpu / wall, 1),
        **({"in_flight_limit": limits} if read_limit is not None else {}),
    }


async def _sleep_with_progress(seconds: float, rec: Recorder, progress: Any, phase: str) -> None:
    if progress is None:
        await asyncio.sleep(seconds)
        return
    ends = time.perf_counter() + seconds
    last_count, last_time = rec.completed, time.perf_counter()
    while (left := ends - time.perf_counter()) > 0:
        await asyncio.sleep(min(0.25, left))
        now = time.perf_counter()
        rps = (rec.completed - last_count) / max(now - last_time, 1e-9)
        last_count, last_time = rec.completed, now
        progress(phase, seconds - max(left, 0.0), seconds, rps)
