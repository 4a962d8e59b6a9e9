"""The scale-out table: medians of A, B and C over the rounds, and their ratios.

Reads the client reports run.sh wrote (`<setup>-<round>.json`, the JSON of
jiffy-bench-server), prints a table and writes one JSON file with the
configuration, the medians, the ratios and every round as measured.
Standard library only, so it runs with any python3.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

SETUPS = {
    "A": "one jiffy-server, embedded store",
    "B": "one front-end over the Redis Cluster",
    "C": "two front-ends over the Redis Cluster",
}
RATIOS = (("B", "A"), ("C", "A"), ("C", "B"))

# (key, label, decimals): what each round is reduced to, in table order.
METRICS = (
    ("rps", "throughput, requests/s", 0),
    ("p50_ms", "latency p50, ms", 3),
    ("p99_ms", "latency p99, ms", 3),
    ("p999_ms", "latency p99.9, ms", 3),
    ("front_end_us_per_request", "front-end CPU, us/request", 2),
    ("store_us_per_request", "Redis Cluster CPU, us/request", 2),
    ("server_us_per_request", "all servers' CPU, us/request", 2),
    ("front_end_cores", "front-end cores", 2),
    ("store_cores", "Redis Cluster cores", 2),
    ("client_cores", "client cores", 2),
    ("other_processes_cores", "other processes cores", 2),
)
# Ratios of these only: the cores rows describe the run, not the set-up.
RATIO_METRICS = (
    "rps",
    "p50_ms",
    "p99_ms",
    "p999_ms",
    "front_end_us_per_request",
    "server_us_per_request",
)


def reduce_round(report: dict[str, Any]) -> dict[str, float | None]:
    """The figures of one client report that the table compares."""
    server = report["server_cpu"]
    store = report.get("store_cpu")
    latency = report["latency_ms"]
    store_us = store["us_per_request"] if store else None
    return {
        "rps": report["rps"],
        "p50_ms": latency["p50"],
        "p99_ms": latency["p99"],
        "p999_ms": latency["p999"],
        "front_end_us_per_request": server["us_per_request"],
        "store_us_per_request": store_us,
        "server_us_per_request": server["us_per_request"] + (store_us or 0.0),
        "front_end_cores": server["cores"],
        "store_cores": store["cores"] if store else None,
        "client_cores": report["client_cpu"]["cores"],
        "other_processes_cores": report["other_processes_cores"],
        "errors": report["requests"] - report["ok"],
    }


def median_of(rounds: list[dict[str, float | None]], key: str) -> float | None:
    values = [value for value in (r[key] for r in rounds) if value is not None]
    return statistics.median(values) if values else None


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def summarize(reports: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    rounds = {setup: [reduce_round(r) for r in runs] for setup, runs in reports.items()}
    medians = {
        setup: {key: median_of(runs, key) for key, _, _ in METRICS}
        for setup, runs in rounds.items()
    }
    ratios = {
        f"{top}/{bottom}": {
            key: ratio(medians[top][key], medians[bottom][key]) for key in RATIO_METRICS
        }
        for top, bottom in RATIOS
    }
    errors = {setup: sum(int(r["errors"] or 0) for r in runs) for setup, runs in rounds.items()}
    return {"medians": medians, "ratios": ratios, "errors": errors, "rounds": rounds}


def number(value: float | None, decimals: int) -> str:
    return "-" if value is None else f"{value:,.{decimals}f}"


def table(summary: dict[str, Any]) -> str:
    headers = ["median of the rounds", *SETUPS, *(f"{t}/{b}" for t, b in RATIOS)]
    rows = [headers]
    for key, label, decimals in METRICS:
        row = [label, *(number(summary["medians"][s][key], decimals) for s in SETUPS)]
        for top, bottom in RATIOS:
            value = summary["ratios"][f"{top}/{bottom}"].get(key)
            row.append(number(value, 2))
        rows.append(row)
    rows.append(["errors (all rounds)", *(str(summary["errors"][s]) for s in SETUPS)])
    widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(len(headers))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])]
        cells += [cell.rjust(widths[i + 1]) for i, cell in enumerate(row[1:])]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def rounds_table(summary: dict[str, Any]) -> str:
    """rps and p99.9 of every round, to see the scatter behind the medians."""
    lines = ["rounds (rps / p99.9 ms):"]
    for setup in SETUPS:
        cells = [
            f"{number(r['rps'], 0)} / {number(r['p999_ms'], 3)}" for r in summary["rounds"][setup]
        ]
        lines.append(f"  {setup}  " + "   ".join(cells))
    return "\n".join(lines)


def load_reports(directory: Path, rounds: int) -> dict[str, list[dict[str, Any]]]:
    return {
        setup: [
            json.loads((directory / f"{setup}-{n}.json").read_text()) for n in range(1, rounds + 1)
        ]
        for setup in SETUPS
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=Path, required=True, help="directory of <setup>-<n>.json")
    parser.add_argument("--rounds", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--timestamp", required=True)
    parser.add_argument("--redis-version", required=True)
    parser.add_argument("--cluster-role-changes", type=int, required=True)
    parser.add_argument("--server-core", required=True)
    parser.add_argument("--client-core", required=True)
    parser.add_argument("--cores", type=int, required=True)
    args = parser.parse_args()

    reports = load_reports(args.runs, args.rounds)
    summary = summarize(reports)
    first = reports["A"][0]["config"]
    config = {
        key: first[key]
        for key in (
            "concurrency",
            "connections",
            "duration_s",
            "warmup_s",
            "value_size",
            "keyspace",
            "get_ratio",
        )
    }
    pinning = (
        f"servers (front-ends and the 6 redis-server nodes) on core {args.server_core}, "
        f"client on core {args.client_core}, of {args.cores}"
    )
    document = {
        "timestamp": args.timestamp,
        "setups": SETUPS,
        "config": {**config, "rounds": args.rounds, "redis": args.redis_version},
        "pinning": pinning,
        "cluster_role_changes": args.cluster_role_changes,
        **{key: summary[key] for key in ("medians", "ratios", "errors")},
        "rounds": [
            {"round": n + 1, **{setup: reports[setup][n] for setup in SETUPS}}
            for n in range(args.rounds)
        ],
    }
    args.out.write_text(json.dumps(document, indent=2) + "\n")

    for setup, meaning in SETUPS.items():
        print(f"{setup}: {meaning}")
    print()
    print(table(summary))
    print()
    print(rounds_table(summary))
    print()
    print(
        f"{config['concurrency']} requests in flight over {config['connections']} connections, "
        f"{int(config['get_ratio'] * 100)}% gets, {config['value_size']} B values, "
        f"{args.rounds} interleaved rounds of {config['duration_s']:g} s; {args.redis_version}"
    )
    print(f"pinning: {pinning}.")
    if args.cores <= 2:
        print(
            "On this machine the front-ends and the cluster share one core: C measures what "
            "the architecture costs, not the scale-out of front-ends on machines of their own."
        )
    if args.cluster_role_changes:
        print(
            f"WARNING: {args.cluster_role_changes} cluster node(s) changed role during the run "
            "(a failover): the rounds after it are suspect."
        )
    if any(summary["errors"].values()):
        print("WARNING: some calls failed; see `errors` in the JSON.", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
