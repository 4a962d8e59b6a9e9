#!/usr/bin/env bash
# TypeScript SDK benchmark: ours (each transport) vs the official
# @gomomento/sdk vs bare grpc-js stubs, one jiffy-server, closed loop (and,
# with RATES, open loop at fixed rates).
#
#   bash bench/js/run.sh                 # or: make bench-js
#   bash bench/js/run.sh --protosocket   # ours over protosocket vs ours over http2
#
# Server on core 0, clients on core 1, the whole run under
# /tmp/jiffy-bench.lock so no other benchmark overlaps it. Points are
# interleaved (every client at one point, then the next point) and repeated
# for ROUNDS rounds; the summary takes medians. Every point goes to
# out/bench/js-<timestamp>.json.
#
# Knobs (environment): ROUNDS (3), DURATION (3 s measured), WARMUP (1 s),
# CONCURRENCY ("1 2 5 10 25 50 100 200 1000 5000"; empty: no closed loop),
# RATES (none: open-loop rates in requests/s, e.g. "5000 10000 20000 30000",
# each run after the closed-loop points of the round; OPEN_CONCURRENCY (50)
# is their closed-loop warm-up's workers), OUR_CHANNELS ("1 2 5"),
# OTHER_CHANNELS ("2": the official SDK and the bare stubs, to keep the run
# near 20 minutes; empty: ours only), TRANSPORTS ("grpc-js http2"; also
# protosocket), OUR_FLAGS (none: more loadgen flags for ours, e.g.
# "--max-concurrent-requests 0"), WORKLOAD (scalar; or dictionary, list,
# sorted-set: docs/LOADGEN.md; the bare stubs and ours on protosocket serve
# only scalar and sit the others out).
#
# --protosocket is the protosocket table: TRANSPORTS="protosocket http2",
# OUR_CHANNELS=1 (the preset's), ours only, concurrency 1 to 1000, and node
# with its default flags: NODE_OPTIONS is cleared, since V8 flags such as
# --max-semi-space-size move p99.9 by an order of magnitude. The other knobs
# still apply (RATES included).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/bench/lock.sh"

MODE=${1:-}
case "$MODE" in
  "") ;;
  --protosocket)
    TRANSPORTS=${TRANSPORTS:-"protosocket http2"}
    OUR_CHANNELS=${OUR_CHANNELS:-1}
    OTHER_CHANNELS=""
    CONCURRENCY=${CONCURRENCY-"1 2 5 10 25 50 100 200 500 1000"}
    if [[ -n "${NODE_OPTIONS:-}" ]]; then
      echo "--protosocket runs node with its default flags: NODE_OPTIONS=$NODE_OPTIONS left out" >&2
    fi
    unset NODE_OPTIONS
    ;;
  *) echo "usage: bash bench/js/run.sh [--protosocket]" >&2; exit 2 ;;
esac

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-3}
WARMUP=${WARMUP:-1}
CONCURRENCY=${CONCURRENCY-"1 2 5 10 25 50 100 200 1000 5000"}
RATES=${RATES:-}
OPEN_CONCURRENCY=${OPEN_CONCURRENCY:-50}
OUR_CHANNELS=${OUR_CHANNELS:-"1 2 5"}
OTHER_CHANNELS=${OTHER_CHANNELS-"2"}
TRANSPORTS=${TRANSPORTS:-"grpc-js http2"}
OUR_FLAGS=${OUR_FLAGS:-}
WORKLOAD=${WORKLOAD:-scalar}
SERVER_BIN=${JIFFY_SERVER_BIN:-$ROOT/target/release/jiffy-server}

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$ROOT/out/bench"
OUT="$ROOT/out/bench/js-${WORKLOAD:-scalar}-$STAMP.json"
POINTS=$(mktemp)
SERVER_LOG=$(mktemp)

# Both ports picked by the server (port 0), read back from its log.
taskset -c 0 "$SERVER_BIN" --listen 127.0.0.1:0 --protosocket-listen 127.0.0.1:0 >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true; rm -f "$POINTS" "$SERVER_LOG"' EXIT
for _ in $(seq 100); do
  grep -q '^listening on ' "$SERVER_LOG" && grep -q '^protosocket listening on ' "$SERVER_LOG" && break
  sleep 0.1
done
ENDPOINT=$(sed -n 's/^listening on //p' "$SERVER_LOG" | head -1)
PROTOSOCKET_ENDPOINT=$(sed -n 's/^protosocket listening on //p' "$SERVER_LOG" | head -1)
[[ -n "$ENDPOINT" && -n "$PROTOSOCKET_ENDPOINT" ]] || { echo "jiffy-server did not start" >&2; cat "$SERVER_LOG" >&2; exit 1; }

# One point: client label, channels, round, then the command. The load is
# $LOAD: "--concurrency N", or "--rate R --concurrency N" in open loop.
point() {
  local label=$1 channels=$2 round=$3
  shift 3
  local json
  # shellcheck disable=SC2086 # $LOAD is flags and numbers, split on purpose
  if json=$(taskset -c 1 node "$@" --endpoint "$ENDPOINT" --cache bench --json $LOAD \
      --channels "$channels" --duration "$DURATION" --warmup "$WARMUP" --workload "$WORKLOAD" 2>/dev/null); then
    printf '{"client":"%s","round":%d,"report":%s}\n' "$label" "$round" "$json" >>"$POINTS"
    printf '  %-20s ch=%s %-28s %s\n' "$label" "$channels" "$LOAD" \
      "$(node -e 'const r=JSON.parse(process.argv[1]); console.log(`${r.rps} rps p99.9 ${r.latency_ms.p999} ms errors ${JSON.stringify(r.errors)}`)' "$json")" >&2
  else
    echo "  $label ch=$channels $LOAD: run failed" >&2
  fi
}

# Every client once at the point $LOAD: ours on each transport and channel
# count, the others on OTHER_CHANNELS.
clients_at_point() {
  local round=$1 channels transport
  for channels in $OUR_CHANNELS; do
    for transport in $TRANSPORTS; do
      # Protosocket carries only gets and sets: on a collection workload it
      # would be http2 under another name.
      [[ $transport != protosocket || $WORKLOAD == scalar ]] || continue
      local ours=("$ROOT/sdk/js/dist/loadgen.js" --transport "$transport")
      [[ $transport != protosocket ]] || ours+=(--protosocket-endpoint "$PROTOSOCKET_ENDPOINT")
      # shellcheck disable=SC2086 # OUR_FLAGS is a list of flags
      point "jiffy-$transport" "$channels" "$round" "${ours[@]}" $OUR_FLAGS
    done
    if [[ " $OTHER_CHANNELS " == *" $channels "* ]]; then
      point momento-js "$channels" "$round" "$ROOT/bench/momento_js_loadgen.mjs"
      [[ $WORKLOAD != scalar ]] || point bare-grpc-js "$channels" "$round" "$ROOT/bench/js/bare-grpc-js-loadgen.mjs"
    fi
  done
}

echo "server $ENDPOINT, protosocket $PROTOSOCKET_ENDPOINT (core 0), clients on core 1;" \
  "$ROUNDS rounds of ${WARMUP}+${DURATION} s points; node flags: ${NODE_OPTIONS:-default}" >&2
for round in $(seq "$ROUNDS"); do
  echo "round $round" >&2
  for concurrency in $CONCURRENCY; do
    LOAD="--concurrency $concurrency"
    clients_at_point "$round"
  done
  for rate in $RATES; do
    LOAD="--rate $rate --concurrency $OPEN_CONCURRENCY"
    clients_at_point "$round"
  done
done

node "$ROOT/bench/js/summarize.mjs" "$POINTS" "$OUT" \
  "bash bench/js/run.sh $MODE (ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP WORKLOAD=$WORKLOAD TRANSPORTS=\"$TRANSPORTS\" OUR_CHANNELS=\"$OUR_CHANNELS\" OTHER_CHANNELS=\"$OTHER_CHANNELS\" CONCURRENCY=\"$CONCURRENCY\" RATES=\"$RATES\" OUR_FLAGS=\"$OUR_FLAGS\" NODE_OPTIONS=\"${NODE_OPTIONS:-}\")"
