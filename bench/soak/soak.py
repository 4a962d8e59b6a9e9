"""The soak: jiffy-server under an open-loop load at a share of its peak, minute by minute.

Run it through run.sh (which takes the benchmark lock exclusively). Steps:

1. start the release server pinned to core 0, metrics on;
2. measure peak throughput: the JS SDK's load generator (http2 transport,
   the fastest of our clients) in closed loop, pinned to core 1;
3. run the same load generator in open loop at RATE_FRACTION of that peak,
   one process per minute (each prints one JSON report at its end), and
   after each minute read the server's resident memory (/proc/PID/status
   VmRSS) and its /metrics gauges;
4. write out/bench/soak-<ts>.json and .md, and print the verdict.

Settings (environment): MINUTES (10), RATE_FRACTION (0.8), PEAK_SECONDS
(10), PEAK_CONCURRENCY (50), CHANNELS (2), MAX_CONCURRENT_REQUESTS (50:
fixed rather than the preset's, so runs stay comparable), WINDOW_SECONDS (60), VALUE_SIZE
(100), KEYSPACE (10000), JIFFY_SERVER_BIN.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LOADGEN = ROOT / "sdk" / "js" / "dist" / "loadgen.js"
# Pinned to one core, node's young-generation GC sets the p99.9 floor; these
# are the flags the loadgen's help recommends for latency runs.
NODE_FLAGS = ["--max-semi-space-size=1", "--single-threaded-gc"]
# Statuses the deadline explains; any other error fails the soak.
EXPLAINED_BY_DEADLINE = {"DEADLINE_EXCEEDED"}
BUCKET = re.compile(r'^jiffy_request_duration_seconds_bucket\{.*le="([^"]+)".*\} (\S+)$')
GAUGES = ("jiffy_items", "jiffy_memory_bytes", "jiffy_open_connections", "jiffy_requests_in_flight")


def setting(name: str, default: float) -> float:
    return float(os.environ.get(name, default))


def start_server(binary: str) -> tuple[subprocess.Popen[bytes], str, str]:
    """The server on core 0: its process, data endpoint and metrics endpoint."""
    server = subprocess.Popen(
        ["taskset", "-c", "0", binary, "--listen", "127.0.0.1:0",
         "--metrics-listen", "127.0.0.1:0", "--log-level", "warn"],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    assert server.stdout is not None
    metrics = ""
    for raw in server.stdout:
        line = raw.decode().strip()
        if line.startswith("metrics listening on "):
            metrics = line.removeprefix("metrics listening on ")
        elif line.startswith("listening on "):
            return server, line.removeprefix("listening on "), metrics
    raise SystemExit("jiffy-server did not start")


def resident_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmRSS:\s+(\d+) kB$", status, re.MULTILINE)
    assert match, "no VmRSS in /proc/PID/status"
    return int(match.group(1))


def scrape(metrics: str) -> str:
    with urllib.request.urlopen(f"http://{metrics}/metrics", timeout=5) as response:
        return str(response.read().decode())


def gauges(text: str) -> dict[str, float]:
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in GAUGES:
            found[name] = float(value)
    return found


def latency_buckets(text: str) -> dict[float, float]:
    """The server's latency histogram, every RPC summed: cumulative count by bucket bound (s)."""
    buckets: dict[float, float] = {}
    for line in text.splitlines():
        if match := BUCKET.match(line):
            bound = float(match.group(1))
            buckets[bound] = buckets.get(bound, 0.0) + float(match.group(2))
    return buckets


def server_quantiles(before: dict[float, float], after: dict[float, float]) -> dict[str, float]:
    """p50/p99/p99.9 of the calls answered between two scrapes, in ms: the upper
    bound of the bucket holding each (buckets are 25% apart, so within 25%)."""
    window = sorted((bound, after[bound] - before.get(bound, 0.0)) for bound in after)
    total = window[-1][1] if window else 0.0
    found: dict[str, float] = {}
    for name, quantile in (("p50", 0.5), ("p99", 0.99), ("p999", 0.999)):
        bound = next((b for b, n in window if total and n >= quantile * total), float("nan"))
        found[name] = round(bound * 1000, 3)
    return found


def loadgen(endpoint: str, seconds: float, warmup: float, extra: list[str]) -> dict[str, Any]:
    """One load-generator run on core 1; its JSON report."""
    command = [
        "taskset", "-c", "1", "node", *NODE_FLAGS, str(LOADGEN), "--json",
        "--transport", "http2", "--endpoint", endpoint, "--cache", "soak",
        "--channels", str(int(setting("CHANNELS", 2))),
        "--max-concurrent-requests", str(int(setting("MAX_CONCURRENT_REQUESTS", 50))),
        "--value-size", str(int(setting("VALUE_SIZE", 100))),
        "--keyspace", str(int(setting("KEYSPACE", 10000))),
        "--duration", f"{seconds:g}", "--warmup", f"{warmup:g}", *extra,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"loadgen failed ({done.returncode}): {done.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def minute_row(
    minute: int,
    report: dict[str, Any],
    rss_kib: int,
    server: dict[str, float],
    server_latency: dict[str, float],
) -> dict[str, Any]:
    latency = report["latency_ms"]
    return {
        "minute": minute,
        "rps": report["rps"],
        "requests": report["requests"],
        "p50_ms": latency["p50"],
        "p99_ms": latency["p99"],
        "p999_ms": latency["p999"],
        "max_ms": latency["max"],
        "errors": {name: n for name, n in report["errors"].items() if n},
        "server_rss_mib": round(rss_kib / 1024, 1),
        "server": server,
        "server_latency_ms": server_latency,
        "client_cpu_percent": report.get("client_cpu_percent"),
    }


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"Soak {result['started']}: peak {result['peak_rps']:,.0f} rps (closed loop, "
        f"concurrency {result['peak_concurrency']}), target {result['target_rps']:,.0f} rps "
        f"({result['rate_fraction']:.0%}), {len(result['minutes'])} minutes.",
        "",
        "| minute | rps | p50 ms | p99 ms | p99.9 ms | max ms | errors | server RSS MiB | items "
        "| client CPU % | server p99.9 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in result["minutes"]:
        errors = ", ".join(f"{k} {v}" for k, v in row["errors"].items()) or "0"
        lines.append(
            f"| {row['minute']} | {row['rps']:,.0f} | {row['p50_ms']} | {row['p99_ms']} | "
            f"{row['p999_ms']} | {row['max_ms']} | {errors} | {row['server_rss_mib']} | "
            f"{row['server'].get('jiffy_items', 0):,.0f} | {row['client_cpu_percent']} | "
            f"{row.get('server_latency_ms', {}).get('p999', 'n/a')} |"
        )
    lines += ["", *result["verdict"]]
    return "\n".join(lines) + "\n"


def verdict(result: dict[str, Any]) -> tuple[list[str], bool]:
    minutes = result["minutes"]
    unexplained = sum(
        n
        for row in minutes
        for name, n in row["errors"].items()
        if name not in EXPLAINED_BY_DEADLINE
    )
    deadline = sum(row["errors"].get("DEADLINE_EXCEEDED", 0) for row in minutes)
    first, last = minutes[0]["server_rss_mib"], minutes[-1]["server_rss_mib"]
    drift = (last - first) / first * 100
    p999 = ", ".join(f"{row['p999_ms']}" for row in minutes)
    lines = [
        f"- errors beyond DEADLINE_EXCEEDED: {unexplained} (DEADLINE_EXCEEDED: {deadline})",
        f"- server RSS first -> last minute: {first} -> {last} MiB ({drift:+.1f}%)",
        f"- p99.9 per minute (ms): {p999}",
        "- server-side p99.9 per minute (ms, bucket bound): "
        + ", ".join(str(row.get("server_latency_ms", {}).get("p999", "n/a")) for row in minutes),
        f"- requests: {sum(row['requests'] for row in minutes):,}",
    ]
    return lines, unexplained == 0


def main() -> int:
    minutes = int(setting("MINUTES", 10))
    fraction = setting("RATE_FRACTION", 0.8)
    window = setting("WINDOW_SECONDS", 60)
    concurrency = int(setting("PEAK_CONCURRENCY", 50))
    binary = os.environ.get("JIFFY_SERVER_BIN", str(ROOT / "target" / "release" / "jiffy-server"))
    started = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    server, endpoint, metrics = start_server(binary)
    try:
        peak_seconds = setting("PEAK_SECONDS", 10)
        peak = loadgen(endpoint, peak_seconds, 2, ["--concurrency", str(concurrency)])
        target = round(peak["rps"] * fraction)
        print(f"peak {peak['rps']:.0f} rps; soaking at {target} rps for {minutes} min", flush=True)
        rows = []
        for minute in range(1, minutes + 1):
            before = latency_buckets(scrape(metrics))
            report = loadgen(endpoint, window, 2, ["--rate", str(target)])
            text = scrape(metrics)
            latency = server_quantiles(before, latency_buckets(text))
            row = minute_row(minute, report, resident_kib(server.pid), gauges(text), latency)
            rows.append(row)
            print(json.dumps(row), flush=True)
            time.sleep(0.5)
    finally:
        server.terminate()
        server.wait()
    result: dict[str, Any] = {
        "started": started,
        "server": binary,
        "peak_rps": peak["rps"],
        "peak_concurrency": concurrency,
        "peak_report": peak,
        "rate_fraction": fraction,
        "target_rps": target,
        "window_seconds": window,
        "loadgen": f"jiffy-js http2 ({peak.get('runtime', '')})",
        "minutes": rows,
    }
    result["verdict"], ok = verdict(result)
    out = ROOT / "out" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    (out / f"soak-{started}.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / f"soak-{started}.md").write_text(markdown(result))
    print(markdown(result))
    print(f"written: out/bench/soak-{started}.json and .md")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
