"""Instructions the Python SDK spends per call, this checkout vs a baseline.

Counts with callgrind, not a clock: an instruction count does not move with
the machine's load, so two versions of the client compare within a fraction
of a percent on a busy machine where timings move by 10 %. The workload is
python_calls.py (get+set pairs over protosocket, or gRPC with --grpc) against
one jiffy-server pinned to another core. Each version runs it twice, with
SMALL and LARGE pairs; the difference of the two counts over the difference
of calls is the cost of one call, start-up (imports, connect) cancelled.
Only the main thread is counted (the event loop and everything the SDK does
per call); grpc's own threads wake on timers, so their counts follow the
wall clock, and are shown apart.

    .venv/bin/python bench/sdk/call_cost.py --baseline 7b449a7
    JIFFY_SERVER_BIN=target/debug/jiffy-server .venv/bin/python bench/sdk/call_cost.py --grpc

The baseline is a git revision, its sdk/python/src exported to a temporary
directory (git archive): nothing of this checkout changes.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench" / "python"))
from run import CLIENT_CORE, start_server  # noqa: E402  (bench/python/run.py)

WORKLOAD = Path(__file__).with_name("python_calls.py")
SMALL, LARGE = 200, 1200


def instructions(src: Path, server: tuple[str, str | None], pairs: int, tasks: int) -> list[int]:
    """Per thread, the instructions of one workload run (the main thread first)."""
    endpoint, protosocket = server
    with tempfile.TemporaryDirectory() as out:
        command = [
            "taskset", "-c", CLIENT_CORE,
            "valgrind", "--tool=callgrind", "--separate-threads=yes",
            f"--callgrind-out-file={out}/callgrind.out", sys.executable, str(WORKLOAD),
            "--endpoint", endpoint, "--pairs", str(pairs), "--tasks", str(tasks),
        ]  # fmt: skip
        if protosocket is not None:
            command += ["--protosocket-endpoint", protosocket]
        # PYTHONHASHSEED: the same dict and set layouts in every run.
        env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr}")
        expected = "grpc" if protosocket is None else "protosocket"
        if done.stdout.strip() != expected:
            raise RuntimeError(f"calls went over {done.stdout.strip()!r}, not {expected}")
        counts = []
        for path in sorted(Path(out).glob("callgrind.out-*")):
            totals = [line for line in path.read_text().splitlines() if line.startswith("totals:")]
            counts.append(int(totals[0].split()[1]))
        return counts


def per_call(src: Path, server: tuple[str, str | None], tasks: int) -> tuple[float, float]:
    """(main thread, all threads) instructions per call."""
    small = instructions(src, server, SMALL, tasks)
    large = instructions(src, server, LARGE, tasks)
    calls = 2 * (LARGE - SMALL)
    return (large[0] - small[0]) / calls, (sum(large) - sum(small)) / calls


def export(revision: str, into: Path) -> Path:
    """The SDK's sources at `revision`, under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", revision, "sdk/python/src"],
        check=True,
        capture_output=True,
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "sdk" / "python" / "src"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline", help="a git revision to compare with (e.g. 7b449a7)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each version (default 3)")
    parser.add_argument("--tasks", type=int, default=1, help="tasks sending the calls (default 1)")
    parser.add_argument("--grpc", action="store_true", help="over gRPC instead of protosocket")
    parser.add_argument(
        "--auto",
        action="store_true",
        help='protosocket_endpoint="auto" (the default config) instead of the port itself',
    )
    args = parser.parse_args()
    # Stopped (kill), still stop the server: `finally` runs on SystemExit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory() as scratch:
        versions = {"this checkout": REPO / "sdk" / "python" / "src"}
        if args.baseline:
            versions[args.baseline] = export(args.baseline, Path(scratch))
        process, endpoint, protosocket = start_server()
        server = (endpoint, None if args.grpc else "auto" if args.auto else protosocket)
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in versions}
        try:
            for _ in range(args.rounds):
                for name, src in versions.items():  # interleaved, as the timing benches are
                    results[name].append(per_call(src, server, args.tasks))
                    print(f"{name}: {results[name][-1][0]:,.0f}", file=sys.stderr)
        finally:
            process.kill()
    transport = "gRPC" if args.grpc else 'protosocket ("auto")' if args.auto else "protosocket"
    print(f"instructions per call over {transport}, {args.tasks} task(s), {args.rounds} rounds")
    print("| version | main thread (median) | min | max | all threads (median) |")
    print("|---|---:|---:|---:|---:|")
    for name, rows in results.items():
        main_thread = [row[0] for row in rows]
        every = statistics.median(row[1] for row in rows)
        print(
            f"| {name} | {statistics.median(main_thread):,.0f} | {min(main_thread):,.0f}"
            f" | {max(main_thread):,.0f} | {every:,.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
