"""Entry point shared by every loadgen: flags, event loop, progress, output."""

from __future__ import annotations

import asyncio
import json
import platform
import sys
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any

from jiffy.loadgen._harness import Driver, measure
from jiffy.loadgen._options import Options, parse_options
from jiffy.loadgen._workloads import missing_operations


def _run_loop(coroutine: Coroutine[Any, Any, dict[str, Any]], use_uvloop: bool) -> dict[str, Any]:
    if use_uvloop:
        import uvloop

        return uvloop.run(coroutine)
    return asyncio.run(coroutine)


@contextmanager
def _progress_bar(options: Options) -> Iterator[Callable[[str, float, float, float], None] | None]:
    """A rich progress bar on stderr, or None with --json (stdout stays one object)."""
    if options.json:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[rps]:>9,.0f} req/s"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(phase: str, done: float, total: float, rps: float) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total, rps=0.0)
            bar.update(tasks[phase], completed=done, rps=rps)

        yield update


def _summary(report: dict[str, Any]) -> str:
    config = report["config"]
    loop = f"open loop at {config['rate']:g} req/s" if config["rate"] else "closed loop"
    cap = config["max_concurrent_requests"] or "none"
    if cap == "auto" and report.get("in_flight_limit"):
        cap = f"auto (last {report['in_flight_limit'][-1][1]})"
    lines = [
        f"{report['sdk']} {report['sdk_version']} on {report['runtime']}",
        f"{loop}, concurrency {config['concurrency']}, channels {config['channels']},"
        f" in-flight cap {cap},"
        f" preset {config['preset']}, workload {config['workload']},"
        f" transport {config.get('transport', 'grpc')}",
        f"{report['requests']:,} requests in {config['duration_s']:g} s:"
        f" {report['rps']:,.1f} req/s, client CPU {report['client_cpu_percent']:.0f}%,"
        f" {report['connections']} connection(s)",
        "",
        f"{'latency ms':<10} {'p50':>8} {'p90':>8} {'p99':>8} {'p99.9':>8} {'max':>8}",
    ]
    rows = {"all": report["latency_ms"], **report["latency_ms_by_op"]}
    for name, row in rows.items():
        cells = " ".join(f"{row[key]:>8.2f}" for key in ("p50", "p90", "p99", "p999", "max"))
        lines.append(f"{name:<10} {cells}")
    failed = {name: count for name, count in report["errors"].items() if count}
    lines.append("errors: " + (", ".join(f"{k} {v}" for k, v in failed.items()) or "none"))
    return "\n".join(lines)


def _transport(options: Options, driver: Driver) -> dict[str, str]:
    """The report's `transport`: the one forced by --transport, else what the
    client's default picked (drivers that cannot tell report none)."""
    if options.transport != "auto":
        return {"transport": options.transport}
    picked = getattr(driver, "transport", None)
    return {"transport": picked} if picked else {}


def main(
    make_driver: Callable[[], Driver], argv: list[str] | None = None, description: str = ""
) -> int:
    options = parse_options(argv, description or "Load generator (docs/LOADGEN.md contract)")
    driver = make_driver()
    if options.max_concurrent_requests == "auto" and not getattr(driver, "adaptive_cap", False):
        sys.stderr.write(
            f"loadgen: {driver.sdk} has no adaptive cap (--max-concurrent-requests auto)\n"
        )
        return 2
    if options.delay_ms and not getattr(driver, "fault_delay", False):
        sys.stderr.write(f"loadgen: {driver.sdk} cannot send delay-ms (--delay-ms)\n")
        return 2
    if options.transport == "protosocket" and not getattr(driver, "protosocket", False):
        sys.stderr.write(f"loadgen: {driver.sdk} has no protosocket transport (--transport)\n")
        return 2
    missing = missing_operations(driver, options.workload)
    if missing:
        sys.stderr.write(
            f"loadgen: {driver.sdk} has no {options.workload} workload"
            f" (its driver lacks {', '.join(missing)})\n"
        )
        return 2
    with _progress_bar(options) as progress:
        measured = _run_loop(measure(driver, options, progress), options.uvloop)
    runtime = f"{platform.python_implementation().lower()} {platform.python_version()}"
    report = {
        "sdk": driver.sdk,
        "sdk_version": driver.sdk_version,
        "runtime": runtime + (" uvloop" if options.uvloop else ""),
        "config": {
            "concurrency": options.concurrency,
            "rate": options.rate,
            "channels": measured.pop("channels"),
            "max_concurrent_requests": measured.pop("max_concurrent_requests"),
            "preset": options.preset,
            "duration_s": options.duration,
            "warmup_s": options.warmup,
            "value_size": options.value_size,
            "keyspace": options.keyspace,
            "get_ratio": options.get_ratio,
            "workload": options.workload,
            **_transport(options, driver),
            **({"delay_ms": options.delay_ms} if options.delay_ms else {}),
        },
        **measured,
    }
    if options.json:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        print(_summary(report))
    return 0
