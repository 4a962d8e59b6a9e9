#!/usr/bin/env bash
# Resident memory per item: jiffy-server (embedded store) beside
# redis-server, shape by shape, in one run.
#
# For each shape both servers are started afresh, pinned to SERVER_CORE:
# jiffy-server with a --max-memory far above what the fill needs (nothing is
# evicted), redis-server with no persistence. The fill client
# (target/release/jiffy-bench-memory, on CLIENT_CORE) reads each server's
# idle VmRSS, writes the same ITEMS items into it, waits for its VmRSS to
# settle, and reports the growth per item; for jiffy also what it charges
# itself per item (jiffy_memory_bytes) and what jemalloc allocated. Each
# server is filled twice: from the idle of a fresh process (cold), then,
# once those items are deleted and 11 s have passed, from the idle it
# comes back to (warm: what a server that has served such a fill keeps,
# its code pages first run and its buffers, is then idle, not the items').
#
# Usage: bash bench/memory/run.sh        (make bench-memory)
# Environment (defaults):
#   ITEMS=1000000   items per shape: scalars, or collection elements
#   SHAPES="scalar-10 scalar-10-ttl scalar-100 scalar-100-ttl scalar-1000
#           scalar-1000-ttl dictionary-big dictionary-small list-big
#           list-small list-big-hashed set-big set-small sorted-set-big
#           sorted-set-small"
#   MAX_MEMORY=16GiB   jiffy-server's --max-memory
#   SERVER_CORE=0 CLIENT_CORE=1
#   JIFFY_SERVER_BIN=target/release/jiffy-server   (built unless given)
#   FILL_BIN=target/release/jiffy-bench-memory      (built unless given; a
#     debug build fills as well, slower, and saves a release build)
#   OUT=out/bench/memory-<time>.json
set -euo pipefail

ITEMS=${ITEMS:-1000000}
SHAPES=${SHAPES:-scalar-10 scalar-10-ttl scalar-100 scalar-100-ttl scalar-1000 scalar-1000-ttl dictionary-big dictionary-small list-big list-small list-big-hashed set-big set-small sorted-set-big sorted-set-small}
MAX_MEMORY=${MAX_MEMORY:-16GiB}
SERVER_CORE=${SERVER_CORE:-0}
CLIENT_CORE=${CLIENT_CORE:-1}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
WORK=$(mktemp -d)
# The servers this script started and has not stopped yet.
PIDS=()

stop_servers() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    PIDS=()
}
cleanup() {
    stop_servers
    rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '%s\n' "$*" >&2; }

# free_port, listening_port
source "$ROOT/bench/ports.sh"

# Starts jiffy-server; sets JIFFY_PID, JIFFY_PORT and METRICS_PORT.
start_jiffy() {
    METRICS_PORT=$(free_port)
    : >"$WORK/jiffy.log"
    taskset -c "$SERVER_CORE" "$JIFFY_SERVER_BIN" --listen 127.0.0.1:0 \
        --metrics-listen "127.0.0.1:$METRICS_PORT" --max-memory "$MAX_MEMORY" \
        >"$WORK/jiffy.log" 2>&1 &
    JIFFY_PID=$! # taskset execs the server, so this is the server's pid
    PIDS+=("$JIFFY_PID")
    JIFFY_PORT=$(listening_port "$WORK/jiffy.log" "$JIFFY_PID") || {
        log "jiffy-server did not start:"
        cat "$WORK/jiffy.log" >&2
        exit 1
    }
}

# Starts redis-server; sets REDIS_PID and REDIS_PORT.
start_redis() {
    REDIS_PORT=$(free_port)
    taskset -c "$SERVER_CORE" redis-server --port "$REDIS_PORT" --bind 127.0.0.1 \
        --save '' --appendonly no --daemonize no >"$WORK/redis.log" 2>&1 &
    REDIS_PID=$!
    PIDS+=("$REDIS_PID")
    for _ in $(seq 100); do
        [[ $(redis-cli -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]] && return
        sleep 0.1
    done
    log "redis-server did not start:"
    cat "$WORK/redis.log" >&2
    exit 1
}

main() {
    local tool
    for tool in taskset redis-server redis-cli jq; do
        command -v "$tool" >/dev/null ||
            { log "$tool is needed (apt-get install util-linux redis-server redis-tools jq)"; exit 1; }
    done
    if [[ -z ${JIFFY_SERVER_BIN:-} ]]; then
        log "building (release)"
        cargo build --release -q -p jiffy-server -p jiffy-bench-memory
        JIFFY_SERVER_BIN=target/release/jiffy-server
    elif [[ -z ${FILL_BIN:-} ]]; then
        cargo build --release -q -p jiffy-bench-memory
    fi
    FILL_BIN=${FILL_BIN:-target/release/jiffy-bench-memory}

    local shape started=$SECONDS
    for shape in $SHAPES; do
        log "$shape: $ITEMS items"
        start_jiffy
        start_redis
        taskset -c "$CLIENT_CORE" "$FILL_BIN" --shape "$shape" \
            --items "$ITEMS" --jiffy "127.0.0.1:$JIFFY_PORT" \
            --jiffy-metrics "127.0.0.1:$METRICS_PORT" --jiffy-pid "$JIFFY_PID" \
            --redis "127.0.0.1:$REDIS_PORT" --redis-pid "$REDIS_PID" >>"$WORK/shapes.jsonl"
        stop_servers
    done

    local stamp out
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    mkdir -p out/bench
    out=${OUT:-out/bench/memory-$stamp.json}
    jq -s --arg stamp "$stamp" --arg redis_version "$(redis-server --version)" \
        --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" --argjson seconds "$((SECONDS - started))" '
        {stamp: $stamp, redis_version: $redis_version, load_average: $load,
         seconds: $seconds, shapes: .}' "$WORK/shapes.jsonl" >"$out"

    jq -r '
        def f0: if . == null then "-" else round | tostring end;
        def f2: . * 100 | round / 100 | tostring;
        (["shape", "items", "jiffy B/item", "redis B/item", "ratio", "charged B/item",
          "charged/resident", "allocated B/item", "cold: jiffy", "redis", "ratio",
          "charged/resident", "fill s (jiffy, redis)"] | @tsv),
        (.shapes[] | [.shape, (.items | tostring), (.jiffy.resident_per_item | f0),
            (.redis.resident_per_item | f0), (.ratio | f2), (.jiffy.charged_per_item | f0),
            (.jiffy.charged_to_resident | f2), (.jiffy.allocated_per_item | f0),
            (.jiffy.cold.resident_per_item | f0), (.redis.cold.resident_per_item | f0),
            (.cold_ratio | f2), (.jiffy.cold.charged_to_resident | f2),
            "\(.jiffy.cold.fill_seconds | f2), \(.redis.cold.fill_seconds | f2)"] | @tsv)' "$out" |
        column -t -s $'\t'
    log "resident bytes over idle per item, VmRSS settled: each server filled twice, first from its fresh idle (cold), then from its idle once the first fill's items are deleted (warm, the first columns); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); written to $out"
}

main "$@"
