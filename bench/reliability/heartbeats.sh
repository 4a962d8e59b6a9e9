#!/usr/bin/env bash
# Heartbeats disturb no one: a normal client's Get p99 (a Get every 20 ms)
# on a server holding SUBSCRIPTIONS idle subscriptions, whose heartbeats
# alone flow (every 5 s, the default), against the same server holding
# none; interleaved A B A B for ROUNDS rounds, and the median of each
# (`attacks_budget::topics::heartbeats_beside_normal_gets`, a module of the
# `stress` test binary). The server runs on core SERVER_CPU, the test (the
# subscriptions' connections and the normal client) on CLIENT_CPU. Each
# run opens the subscriptions (about 70 s for 100,000), then measures for
# IDLE_SECONDS; the log goes to out/reliability/.
#   bash bench/reliability/heartbeats.sh                          ~12 minutes
#   JIFFY_SERVER_BIN=/path/to/jiffy-server bash bench/reliability/heartbeats.sh
#   PROFILE=dev ROUNDS=5 bash bench/reliability/heartbeats.sh     a debug test build
set -euo pipefail
cd "$(dirname "$0")/../.."

SUBSCRIPTIONS=${SUBSCRIPTIONS:-100000}
ROUNDS=${ROUNDS:-3}
IDLE_SECONDS=${IDLE_SECONDS:-30}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PROFILE=${PROFILE:-release}
LOCK=${LOCK:-/tmp/jiffy-bench.lock}
mkdir -p out/reliability
log="out/reliability/heartbeats-$(date -u +%Y%m%dT%H%M%SZ).log"

if [ -z "${JIFFY_SERVER_BIN:-}" ]; then
  cargo build --release -p jiffy-server
  JIFFY_SERVER_BIN="$PWD/target/release/jiffy-server"
fi
server=$(realpath "$JIFFY_SERVER_BIN")
cargo test --profile "$PROFILE" -p jiffy-server --test stress --no-run

# The test starts the server itself: through this, on its own core (exec
# keeps the pid the test reads the server's memory and CPU by).
pinned=$(mktemp)
trap 'rm -f "$pinned"' EXIT
printf '#!/bin/sh\nexec taskset -c %s %q "$@"\n' "$SERVER_CPU" "$server" > "$pinned"
chmod +x "$pinned"

# A timing run: the lock is held exclusively.
{
  echo "jiffy heartbeats, $(date -u +%FT%TZ), $(git rev-parse --short HEAD), server $server"
  echo "SUBSCRIPTIONS=$SUBSCRIPTIONS ROUNDS=$ROUNDS IDLE_SECONDS=$IDLE_SECONDS load $(cut -d' ' -f1-3 /proc/loadavg)"
  JIFFY_SERVER_BIN=$pinned JIFFY_ATTACK_SUBSCRIPTIONS=$SUBSCRIPTIONS \
    JIFFY_ATTACK_SECONDS=$IDLE_SECONDS JIFFY_BENCH_ROUNDS=$ROUNDS \
    flock "$LOCK" taskset -c "$CLIENT_CPU" \
    cargo test --profile "$PROFILE" -p jiffy-server --test stress \
    -- --ignored --nocapture --test-threads 1 heartbeats_beside_normal_gets
} 2>&1 | tee "$log"
echo "log: $log"
