"""Python clients side by side on one jiffy-server: ours (gRPC and protosocket),
the official SDK, bare stubs.

Run through bench/python/run.sh (which takes the machine-wide benchmark lock).
The server runs on core 0, every loadgen on core 1. For each round, for each
concurrency, each client runs once (A B C A B C ...), so drift in the machine
hits all clients alike; each point is the median over the rounds. Every run
is a fresh process with the same docs/LOADGEN.md flags and JSON.

    run.py                 the comparison: 8 concurrencies x 4 clients x 3 rounds
    run.py --clients jiffy jiffy-protosocket bare
                           some of the clients (also CLIENTS="..." in the environment)
    run.py --variants      ours only: uvloop off/on x 1/2 channels
    run.py --workload sorted-set   a collection workload (docs/LOADGEN.md);
                           the bare stubs serve only scalar and sit it out, and so
                           does jiffy-protosocket (protosocket carries only get and set)
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SERVER_BIN = Path(os.environ.get("JIFFY_SERVER_BIN", REPO / "target" / "release" / "jiffy-server"))
PYTHON = sys.executable
LOADGENS = {
    # gRPC only: the server has a protosocket port, which the SDK's default
    # would find and use.
    "jiffy": [PYTHON, "-m", "jiffy.loadgen", "--transport", "grpc"],
    # Gets and sets over the server's protosocket port; creating the cache over
    # gRPC. --protosocket-endpoint is added once the server has its port.
    "jiffy-protosocket": [PYTHON, "-m", "jiffy.loadgen", "--transport", "protosocket"],
    "official": [PYTHON, str(REPO / "bench" / "momento_python_loadgen.py")],
    "bare": [PYTHON, str(REPO / "bench" / "python" / "bare_grpc_loadgen.py")],
}
SCALAR_ONLY = ("jiffy-protosocket", "bare")
# The ratios of best rps the summary gives, each when both clients ran.
RATIOS = (
    ("jiffy", "official"),
    ("jiffy", "bare"),
    ("jiffy-protosocket", "jiffy"),
    ("jiffy-protosocket", "bare"),
)
CONCURRENCIES = (1, 2, 5, 10, 25, 50, 100, 200)
VARIANT_CONCURRENCIES = (5, 25, 50)
VARIANTS = {
    "asyncio, 1 channel": [],
    "uvloop, 1 channel": ["--uvloop"],
    "asyncio, 2 channels": ["--channels", "2"],
    "uvloop, 2 channels": ["--uvloop", "--channels", "2"],
}
TARGETS_MS = (20.0, 5.0)
SERVER_CORE, CLIENT_CORE = "0", "1"


def start_server() -> tuple[subprocess.Popen[bytes], str, str]:
    """The server on free ports it picks itself: its gRPC and protosocket addresses."""
    server = subprocess.Popen(
        ["taskset", "-c", SERVER_CORE, str(SERVER_BIN), "--listen", "127.0.0.1:0",
         "--protosocket-listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert server.stdout is not None
    addresses: dict[str, str] = {}  # "" for gRPC, "protosocket " for the other
    for raw in server.stdout:
        if match := re.match(r"(protosocket |)listening on (127\.0\.0\.1:\d+)", raw.decode()):
            addresses[match.group(1)] = match.group(2)
        if len(addresses) == 2:
            return server, addresses[""], addresses["protosocket "]
    server.kill()
    raise RuntimeError("jiffy-server did not start")


def run_point(command: list[str], endpoint: str, args: argparse.Namespace) -> dict[str, Any]:
    full = ["taskset", "-c", CLIENT_CORE, *command, "--endpoint", endpoint, "--json",
            "--duration", str(args.duration), "--warmup", str(args.warmup),
            "--workload", args.workload]  # fmt: skip
    done = subprocess.run(full, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(full)} failed:\n{done.stderr}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def median_point(reports: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "rps": statistics.median(r["rps"] for r in reports),
        "p50_ms": statistics.median(r["latency_ms"]["p50"] for r in reports),
        "p999_ms": statistics.median(r["latency_ms"]["p999"] for r in reports),
        "cpu_percent": statistics.median(r["client_cpu_percent"] for r in reports),
        "cap": reports[0]["config"]["max_concurrent_requests"],
        "errors": sum(sum(r["errors"].values()) for r in reports),
    }


def best_under(points: dict[int, dict[str, Any]], target_ms: float) -> tuple[float, int | None]:
    """The highest median rps among points whose median p99.9 is under the target."""
    eligible = [(p["rps"], c) for c, p in points.items() if p["p999_ms"] < target_ms]
    return max(eligible) if eligible else (0.0, None)


def table(medians: dict[str, dict[int, dict[str, Any]]]) -> str:
    clients = list(medians)
    lines = ["| concurrency | " + " | ".join(f"{c} rps (p99.9 ms)" for c in clients) + " |",
             "|---:|" + "---:|" * len(clients)]  # fmt: skip
    for concurrency in sorted(next(iter(medians.values()))):
        cells = []
        for client in clients:
            point = medians[client][concurrency]
            cap = f", cap {point['cap']}" if point["cap"] else ""
            cells.append(f"{point['rps']:,.0f} ({point['p999_ms']:.1f}{cap})")
        lines.append(f"| {concurrency} | " + " | ".join(cells) + " |")
    headers = " | ".join(f"best rps, p99.9 < {t:g} ms" for t in TARGETS_MS)
    lines += ["", f"| client | {headers} |", "|---|" + "---:|" * len(TARGETS_MS)]
    best = {c: [best_under(medians[c], t) for t in TARGETS_MS] for c in clients}
    for client in clients:
        cells = [f"{rps:,.0f} (c={conc})" if conc else "none" for rps, conc in best[client]]
        lines.append(f"| {client} | " + " | ".join(cells) + " |")
    for ours, other in RATIOS:
        if ours in best and other in best:
            ratios = [
                f"{mine[0] / theirs[0]:.2f}" if theirs[0] else "n/a"
                for mine, theirs in zip(best[ours], best[other], strict=True)
            ]
            lines.append(f"| {ours} / {other} | " + " | ".join(ratios) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--variants", action="store_true", help="uvloop and channel variants")
    parser.add_argument("--concurrency", type=int, nargs="*", help="override the list")
    parser.add_argument(
        "--clients",
        nargs="+",
        choices=list(LOADGENS),
        default=os.environ.get("CLIENTS", " ".join(LOADGENS)).split(),
        help="which clients, in the order they run at each point (default: $CLIENTS, else all)",
    )
    parser.add_argument(
        "--workload", default="scalar", choices=["scalar", "dictionary", "list", "sorted-set"]
    )
    args = parser.parse_args()
    unknown = set(args.clients) - set(LOADGENS)
    if unknown:
        parser.error(f"unknown client(s) in CLIENTS: {' '.join(sorted(unknown))}")
    if args.variants:
        runs = {name: LOADGENS["jiffy"] + extra for name, extra in VARIANTS.items()}
        concurrencies = args.concurrency or VARIANT_CONCURRENCIES
    else:
        runs = {
            name: LOADGENS[name]
            for name in dict.fromkeys(args.clients)
            if args.workload == "scalar" or name not in SCALAR_ONLY
        }
        concurrencies = args.concurrency or CONCURRENCIES
    if not runs:
        parser.error(f"none of {' '.join(args.clients)} serves the {args.workload} workload")
    server, endpoint, protosocket_endpoint = start_server()
    if "jiffy-protosocket" in runs:
        extra = ["--protosocket-endpoint", protosocket_endpoint]
        runs["jiffy-protosocket"] = [*runs["jiffy-protosocket"], *extra]
    started = datetime.datetime.now(datetime.UTC)
    reports: dict[str, dict[int, list[dict[str, Any]]]] = {
        n: {c: [] for c in concurrencies} for n in runs
    }
    try:
        for round_number in range(1, args.rounds + 1):
            for concurrency in concurrencies:
                for name, command in runs.items():
                    report = run_point(
                        [*command, "--concurrency", str(concurrency)], endpoint, args
                    )
                    reports[name][concurrency].append(report)
                    p999 = report["latency_ms"]["p999"]
                    print(f"round {round_number} c={concurrency:<3} {name:<20} "
                          f"{report['rps']:>9,.0f} rps  p99.9 {p999:6.2f} ms",
                          file=sys.stderr, flush=True)  # fmt: skip
    finally:
        server.terminate()
        server.wait()
    medians = {n: {c: median_point(rs) for c, rs in by_c.items()} for n, by_c in reports.items()}
    out_dir = REPO / "out" / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    kind = "python-variants" if args.variants else "python"
    if args.workload != "scalar":
        kind += f"-{args.workload}"
    out = out_dir / f"{kind}-{started:%Y%m%dT%H%M%SZ}.json"
    out.write_text(json.dumps({
        "started": started.isoformat(), "command": " ".join(sys.argv), "rounds": args.rounds,
        "duration_s": args.duration, "warmup_s": args.warmup, "workload": args.workload,
        "clients": list(runs),
        "medians": medians,
        "runs": reports,
    }, indent=1))  # fmt: skip
    print(table(medians))
    print(f"\nall points: {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
