#!/usr/bin/env bash
# max_concurrent_requests "auto" against fixed caps, both SDKs, with 0, 1 and
# 10 ms added per call (the server's fault-injection delay): compare.py, see
# README.md. Not a test: long (about 40 minutes with the defaults).
#
#   bash bench/adaptive/run.sh                  the comparison
#   DELAYS_MS=10 SDKS=js bash bench/adaptive/run.sh   one environment
#   bash bench/adaptive/run.sh overhead         the auto path's cost per call
#                                               (micro-benchmarks, ~1 minute)
#
# Takes /tmp/jiffy-bench.lock exclusively (waiting for it if needed): its
# figures mean nothing while other work shares the two cores.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/bench/lock.sh"

cd "$ROOT"
export JIFFY_SERVER_BIN=${JIFFY_SERVER_BIN:-$ROOT/target/release/jiffy-server}
[[ -x "$JIFFY_SERVER_BIN" ]] || cargo build --release -p jiffy-server
[[ -f sdk/js/dist/loadgen.js ]] || make build-js
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
[[ -x "$PYTHON" ]] || PYTHON=python3

if [[ "${1:-}" == overhead ]]; then
  taskset -c "${CLIENT_CORE:-1}" "$PYTHON" bench/adaptive/overhead.py
  taskset -c "${CLIENT_CORE:-1}" node bench/adaptive/overhead.mjs
  exit 0
fi
exec "$PYTHON" bench/adaptive/compare.py
