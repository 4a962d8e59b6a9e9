#!/usr/bin/env bash
# The soak, on demand (not in `make test`): jiffy-server under an open-loop
# load at RATE_FRACTION (0.8) of its measured peak for MINUTES (10) minutes,
# latency, errors and server memory logged per minute. See README.md.
#
#   bash bench/soak/run.sh
#   MINUTES=2 bash bench/soak/run.sh
#
# Takes /tmp/jiffy-bench.lock exclusively (waiting for it if needed): its
# figures mean nothing while other work shares the two cores.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/bench/lock.sh"

cd "$ROOT"
[[ -x target/release/jiffy-server ]] || cargo build --release -p jiffy-server
[[ -f sdk/js/dist/loadgen.js ]] || make build-js
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
[[ -x "$PYTHON" ]] || PYTHON=python3
exec "$PYTHON" bench/soak/soak.py
