#!/usr/bin/env bash
# Per-cache limits, measured (not in `make test`): one cache driven far over
# its calls-a-second limit beside another under its own, and the other's
# latency beside what it is when it runs alone. The closing figure: a
# throttled cache does not slow its neighbour.
#
#   bash bench/cache-limits/run.sh
#   LIMIT=2000 RATE=1000 SECONDS_EACH=10 bash bench/cache-limits/run.sh
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

echo "steady alone: --rate $RATE for ${SECONDS_EACH}s" >&2
loadgen steady --rate "$RATE" > "$work/alone.json"
echo "steady beside throttled (limit $LIMIT/s, $OFFERED/s offered)" >&2
loadgen throttled --rate "$OFFERED" > "$work/throttled.json" &
noisy=$!
loadgen steady --rate "$RATE" > "$work/beside.json"
wait "$noisy"

row() { # LABEL FILE
  jq -r --arg name "$1" \
    '[$name, (.rps | floor), .latency_ms.p50, .latency_ms.p99, .latency_ms.p999,
      ((.errors // {}) | to_entries | map("\(.key) \(.value)") | join(", "))] | @tsv' "$2"
}
{
  printf 'run\trps\tp50 ms\tp99 ms\tp99.9 ms\terrors\n'
  row "steady, alone" "$work/alone.json"
  row "steady, beside the throttled cache" "$work/beside.json"
  row "throttled ($OFFERED/s offered, limit $LIMIT/s)" "$work/throttled.json"
} | column -t -s $'\t'
