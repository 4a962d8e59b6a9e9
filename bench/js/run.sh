#!/usr/bin/env bash
# TypeScript SDK benchmark: ours (each transport) vs the official
# @gomomento/sdk vs bare grpc-js stubs, one jiffy-server, closed loop.
#
#   bash bench/js/run.sh            # or: make bench-js
#
# Server on core 0, clients on core 1, the whole run under
# /tmp/jiffy-bench.lock so no other benchmark overlaps it. Points are
# interleaved (every client at one point, then the next point) and repeated
# for ROUNDS rounds; the summary takes medians. Every point goes to
# out/bench/js-<timestamp>.json.
#
# Knobs (environment): ROUNDS (3), DURATION (3 s measured), WARMUP (1 s),
# CONCURRENCY ("1 2 5 10 25 50 100 200 1000 5000"), OUR_CHANNELS ("1 2 5"),
# OTHER_CHANNELS ("2": the official SDK and the bare stubs, to keep the run
# near 20 minutes), TRANSPORTS ("grpc-js http2"), WORKLOAD (scalar; or
# dictionary, list, sorted-set: docs/LOADGEN.md; the bare stubs serve only
# scalar and sit the others out).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOCK=/tmp/jiffy-bench.lock
if [[ "${JIFFY_BENCH_LOCKED:-}" != 1 ]]; then
  exec env JIFFY_BENCH_LOCKED=1 flock "$LOCK" bash "$0" "$@"
fi

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-3}
WARMUP=${WARMUP:-1}
CONCURRENCY=${CONCURRENCY:-"1 2 5 10 25 50 100 200 1000 5000"}
OUR_CHANNELS=${OUR_CHANNELS:-"1 2 5"}
OTHER_CHANNELS=${OTHER_CHANNELS:-"2"}
TRANSPORTS=${TRANSPORTS:-"grpc-js http2"}
WORKLOAD=${WORKLOAD:-scalar}
SERVER_BIN=${JIFFY_SERVER_BIN:-$ROOT/target/release/jiffy-server}

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$ROOT/out/bench"
OUT="$ROOT/out/bench/js-${WORKLOAD:-scalar}-$STAMP.json"
POINTS=$(mktemp)
SERVER_LOG=$(mktemp)

taskset -c 0 "$SERVER_BIN" --listen 127.0.0.1:0 >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true; rm -f "$POINTS" "$SERVER_LOG"' EXIT
for _ in $(seq 100); do
  grep -q '^listening on ' "$SERVER_LOG" && break
  sleep 0.1
done
ENDPOINT=$(sed -n 's/^listening on //p' "$SERVER_LOG" | head -1)
[[ -n "$ENDPOINT" ]] || { echo "jiffy-server did not start" >&2; cat "$SERVER_LOG" >&2; exit 1; }

# One point: client label, command, channels, concurrency, round.
point() {
  local label=$1 channels=$2 concurrency=$3 round=$4
  shift 4
  local json
  if json=$(taskset -c 1 node "$@" --endpoint "$ENDPOINT" --cache bench --json \
      --concurrency "$concurrency" --channels "$channels" --duration "$DURATION" --warmup "$WARMUP" --workload "$WORKLOAD" 2>/dev/null); then
    printf '{"client":"%s","round":%d,"report":%s}\n' "$label" "$round" "$json" >>"$POINTS"
    printf '  %-16s ch=%s c=%-5s %s\n' "$label" "$channels" "$concurrency" \
      "$(node -e 'const r=JSON.parse(process.argv[1]); console.log(`${r.rps} rps p99.9 ${r.latency_ms.p999} ms errors ${JSON.stringify(r.errors)}`)' "$json")" >&2
  else
    echo "  $label ch=$channels c=$concurrency: run failed" >&2
  fi
}

echo "server $ENDPOINT (core 0), clients on core 1; $ROUNDS rounds of ${WARMUP}+${DURATION} s points" >&2
for round in $(seq "$ROUNDS"); do
  echo "round $round" >&2
  for concurrency in $CONCURRENCY; do
    for channels in $OUR_CHANNELS; do
      for transport in $TRANSPORTS; do
        point "jiffy-$transport" "$channels" "$concurrency" "$round" "$ROOT/sdk/js/dist/loadgen.js" --transport "$transport"
      done
      if [[ " $OTHER_CHANNELS " == *" $channels "* ]]; then
        point momento-js "$channels" "$concurrency" "$round" "$ROOT/bench/momento_js_loadgen.mjs"
        [[ $WORKLOAD != scalar ]] || point bare-grpc-js "$channels" "$concurrency" "$round" "$ROOT/bench/js/bare-grpc-js-loadgen.mjs"
      fi
    done
  done
done

node "$ROOT/bench/js/summarize.mjs" "$POINTS" "$OUT" "bash bench/js/run.sh (ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP WORKLOAD=$WORKLOAD)"
