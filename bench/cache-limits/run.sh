#!/usr/bin/env bash
# Per-cache limits, measured (not in `make test`): one cache driven far over
# its calls-a-second limit beside another under its own, and the other's
# latency beside what it is when it runs alone. The closing figure: a
# throttled cache does not slow its neighbour.
#
#   bash bench/cache-limits/run.sh
#   LIMIT=2000 RATE=1000 OFFERED=3000 SECONDS_EACH=10 ROUNDS=3 bash bench/cache-limits/run.sh
#
# The server is pinned to core 0, both load generators (the JS SDK's, in
# open loop: OFFERED calls a second on the throttled cache, so that its
# client leaves the steady one's room on core 1) to core 1. Takes /tmp/jiffy-bench.lock exclusively:
# its figures mean nothing while other work shares the two cores.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/bench/lock.sh"
cd "$ROOT"
source bench/ports.sh

LIMIT=${LIMIT:-1000}              # the throttled cache's calls a second
RATE=${RATE:-1000}                # the steady cache's calls a second, open loop
OFFERED=${OFFERED:-5000}          # the throttled cache's calls a second, open loop
SECONDS_EACH=${SECONDS_EACH:-10}
ROUNDS=${ROUNDS:-3}
BIN=${JIFFY_SERVER_BIN:-target/release/jiffy-server}
[[ -x $BIN ]] || cargo build --release -p jiffy-server
[[ -f sdk/js/dist/loadgen.js ]] || make build-js

work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
cat > "$work/jiffy.toml" <<TOML
[caches.throttled]
max-calls-per-second = $LIMIT
TOML
env -u JIFFY_BENCH_LOCKED taskset -c 0 "$BIN" --listen 127.0.0.1:0 --config "$work/jiffy.toml" \
  --log-level warn > "$work/server.log" &
server=$!
port=$(listening_port "$work/server.log" "$server")

loadgen() { # CACHE ARGS...: one JSON report
  local cache=$1
  shift
  taskset -c 1 node --max-semi-space-size=1 --single-threaded-gc sdk/js/dist/loadgen.js \
    --endpoint "127.0.0.1:$port" --cache "$cache" --duration "$SECONDS_EACH" \
    --warmup 2 --json "$@"
}

# Interleaved A B A B: the machine's noise moves one round's p99 more than
# a neighbour does, so each side's median of ROUNDS is what is compared.
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round: steady alone, --rate $RATE for ${SECONDS_EACH}s" >&2
  loadgen steady --rate "$RATE" > "$work/alone-$round.json"
  echo "round $round: steady beside throttled (limit $LIMIT/s, $OFFERED/s offered)" >&2
  loadgen throttled --rate "$OFFERED" > "$work/throttled-$round.json" &
  noisy=$!
  loadgen steady --rate "$RATE" > "$work/beside-$round.json"
  wait "$noisy"
  # The control: the same load on a cache under no limit. What steady
  # loses beside it is the load's (both clients share core 1, the server
  # core 0), not the throttling's.
  echo "round $round: steady beside unthrottled ($OFFERED/s offered)" >&2
  loadgen busy --rate "$OFFERED" > "$work/busy-$round.json" &
  noisy=$!
  loadgen steady --rate "$RATE" > "$work/control-$round.json"
  wait "$noisy"
done

row() { # LABEL FILE
  jq -r --arg name "$1" \
    '[$name, (.rps | floor), .latency_ms.p50, .latency_ms.p99, .latency_ms.p999,
      ((.errors // {}) | to_entries | map("\(.key) \(.value)") | join(", "))] | @tsv' "$2"
}
median_p99() { # FILE...
  jq -s 'map(.latency_ms.p99) | sort | .[(length - 1) / 2 | floor]' "$@"
}
{
  printf 'run\trps\tp50 ms\tp99 ms\tp99.9 ms\terrors\n'
  for round in $(seq 1 "$ROUNDS"); do
    row "$round: steady, alone" "$work/alone-$round.json"
    row "$round: steady, beside the throttled cache" "$work/beside-$round.json"
    row "$round: throttled ($OFFERED/s offered, limit $LIMIT/s)" "$work/throttled-$round.json"
    row "$round: steady, beside the same load unthrottled" "$work/control-$round.json"
    row "$round: unthrottled ($OFFERED/s offered)" "$work/busy-$round.json"
  done
} | column -t -s $'\t'
echo "steady's median p99: alone $(median_p99 "$work"/alone-*.json) ms, beside the throttled cache $(median_p99 "$work"/beside-*.json) ms, beside the same load unthrottled $(median_p99 "$work"/control-*.json) ms"
