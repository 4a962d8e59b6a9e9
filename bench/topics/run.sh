#!/usr/bin/env bash
# Topics: one publisher and 1 / 10 / 100 subscribers on jiffy-server
# (Publish / Subscribe) beside redis-server (PUBLISH / SUBSCRIBE) driven the
# same way by the same client (jiffy-bench-topics), in one run.
#
# Each server is pinned to core 0 and the client to core 1. For each round,
# each subscriber count and each mode (saturation: as fast as the server
# acknowledges, PUBLISHERS_IN_FLIGHT publishes outstanding; then a fixed
# RATE), it measures a fresh jiffy-server, then a fresh redis-server, so
# slow spells of this shared machine hit both. The table gives the median
# of the rounds and the ratio jiffy/redis; every run's JSON line goes to
# out/bench/topics-<time>.json.
#
# Builds the release binaries first (a no-op when they are up to date),
# then takes /tmp/jiffy-bench.lock exclusively (waiting for it if needed):
# the figures mean nothing while another benchmark shares the two cores.
#
# Usage: bash bench/topics/run.sh          (or: make bench-topics)
# Environment (defaults):
#   ROUNDS=3 DURATION=10 WARMUP=2 SUBSCRIBERS="1 10 100" RATE=1000
#   PUBLISHERS_IN_FLIGHT=8 VALUE_SIZE=100 SERVER_CORE=0 CLIENT_CORE=1
#   OUT=out/bench/topics-<time>.json
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
SUBSCRIBERS=${SUBSCRIBERS:-1 10 100}
RATE=${RATE:-1000}
PUBLISHERS_IN_FLIGHT=${PUBLISHERS_IN_FLIGHT:-8}
VALUE_SIZE=${VALUE_SIZE:-100}
SERVER_CORE=${SERVER_CORE:-0}
CLIENT_CORE=${CLIENT_CORE:-1}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"

log() { printf '%s\n' "$*" >&2; }

if [[ "${JIFFY_BENCH_LOCKED:-}" != 1 ]]; then
    command -v taskset >/dev/null || { log "taskset (util-linux) is needed"; exit 1; }
    missing=()
    command -v redis-server >/dev/null || missing+=(redis-server)
    command -v redis-cli >/dev/null || missing+=(redis-tools)
    command -v jq >/dev/null || missing+=(jq)
    if ((${#missing[@]})); then
        sudo=()
        [[ $(id -u) -eq 0 ]] || sudo=(sudo)
        log "installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null ||
            { "${sudo[@]}" apt-get update -q >/dev/null &&
                "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null; }
    fi
    log "building (release)"
    cargo build --release -q -p jiffy-server -p jiffy-bench-server
    log "waiting for /tmp/jiffy-bench.lock"
    exec env JIFFY_BENCH_LOCKED=1 flock /tmp/jiffy-bench.lock bash "$0" "$@"
fi

# WORK, SERVER_PID (the server started and not stopped yet), stop_server
source "$ROOT/bench/server/server.sh"
# Measurements that failed and were run again.
RETRIES=0

# free_port
source "$ROOT/bench/ports.sh"
# jq_median_def, jq_format_defs
source "$ROOT/bench/jq.sh"

# Starts jiffy-server with its default topic limits; prints its port.
start_jiffy() {
    local port=""
    # Emptied here, not by the server's redirection, which happens in the
    # background child: until then the log would still name the previous
    # server's port.
    : >"$WORK/jiffy.log"
    taskset -c "$SERVER_CORE" target/release/jiffy-server --listen 127.0.0.1:0 \
        >"$WORK/jiffy.log" 2>&1 &
    SERVER_PID=$! # taskset execs the server, so this is the server's pid
    for _ in $(seq 100); do
        port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/jiffy.log")
        [[ -n $port ]] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [[ -z $port ]]; then
        log "jiffy-server did not start:"
        cat "$WORK/jiffy.log" >&2
        exit 1
    fi
    echo "$port"
}

# Starts redis-server, no persistence; prints its port. The port was free
# when chosen but may be taken before redis-server binds it (this machine
# is shared): then another is tried.
start_redis() {
    local port attempt
    for attempt in 1 2 3 4 5; do
        port=$(free_port)
        taskset -c "$SERVER_CORE" redis-server --port "$port" --bind 127.0.0.1 \
            --save '' --appendonly no --daemonize no >"$WORK/redis.log" 2>&1 &
        SERVER_PID=$!
        for _ in $(seq 100); do
            if [[ $(redis-cli -p "$port" ping 2>/dev/null) == PONG ]]; then
                echo "$port"
                return
            fi
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        stop_server
        log "redis-server did not start on port $port (attempt $attempt):"
        tail -n 3 "$WORK/redis.log" >&2
    done
    exit 1
}

# One measurement: target $1, round $2, subscribers $3, rate $4 (0:
# saturation); writes the client's JSON line to $WORK/run.json. A failed
# client prints its error and the server's log, and the script stops.
measure_once() {
    local target=$1 subscribers=$3 rate=$4 port
    # $(start_x) would run the server in a subshell: start it here.
    if [[ $target == jiffy ]]; then start_jiffy >"$WORK/port"; else start_redis >"$WORK/port"; fi
    port=$(<"$WORK/port")
    local status=0
    taskset -c "$CLIENT_CORE" target/release/jiffy-bench-topics --target "$target" \
        --endpoint "127.0.0.1:$port" --server-pid "$SERVER_PID" \
        --subscribers "$subscribers" --rate "$rate" \
        --publishers-in-flight "$PUBLISHERS_IN_FLIGHT" --value-size "$VALUE_SIZE" \
        --duration "$DURATION" --warmup "$WARMUP" >"$WORK/run.json" || status=$?
    stop_server
    if ((status != 0)); then
        log "jiffy-bench-topics failed (exit $status); the end of the $target-server log:"
        tail -n 20 "$WORK/$target.log" >&2
    fi
    return "$status"
}

# measure_once, appending the JSON line, with the round, to runs.jsonl.
# A failed measurement is tried once more on a fresh server, and counted.
measure() {
    if ! measure_once "$@"; then
        log "trying again once"
        RETRIES=$((RETRIES + 1))
        measure_once "$@"
    fi
    jq -c --argjson round "$2" '. + {round: $round}' "$WORK/run.json" >>"$WORK/runs.jsonl"
}

main() {
    local r n rate target
    for r in $(seq "$ROUNDS"); do
        for n in $SUBSCRIBERS; do
            for rate in 0 "$RATE"; do
                for target in jiffy redis; do
                    log "round $r/$ROUNDS: $n subscribers, rate ${rate/#0/max}: $target"
                    measure "$target" "$r" "$n" "$rate"
                done
            done
        done
    done

    local stamp out
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    mkdir -p out/bench
    out=${OUT:-out/bench/topics-$stamp.json}
    jq -s --arg stamp "$stamp" --arg redis_version "$(redis-server --version)" \
        --argjson rounds "$ROUNDS" --argjson duration "$DURATION" --argjson warmup "$WARMUP" \
        --argjson in_flight "$PUBLISHERS_IN_FLIGHT" --argjson value_size "$VALUE_SIZE" \
        --argjson retries "$RETRIES" "$(summary_jq)" "$WORK/runs.jsonl" >"$out"
    print_table "$out"
    log "written to $out"
}

# The summary: the medians per (rate, subscribers, target), then every run.
summary_jq() {
    jq_median_def
    cat <<'EOF'
def medians: {
    delivered_per_s: (map(.delivered_per_s) | median),
    published_per_s: (map(.published_per_s) | median),
    p50_ms: (map(.latency_ms.p50) | median),
    p99_ms: (map(.latency_ms.p99) | median),
    p999_ms: (map(.latency_ms.p999) | median),
    max_ms: (map(.latency_ms.max) | median),
    p999_from_send_ms: (map(.latency_from_send_ms.p999) | median),
    server_us_per_delivered: (map(.server_us_per_delivered) | median),
    server_cores: (map(.server_cores) | median),
    client_cores: (map(.client_cores) | median),
    other_processes_cores: (map(.other_processes_cores) | median),
    server_runqueue_wait_ms_per_s: (map(.server_runqueue_wait_ms_per_s) | median),
    client_runqueue_wait_ms_per_s: (map(.client_runqueue_wait_ms_per_s) | median),
    lost: (map(.lost) | add),
    reordered: (map(.reordered) | add),
    repeated: (map(.repeated) | add),
    discontinuities: (map(.discontinuities) | add),
    streams_ended: (map(.streams_ended | add // 0) | add),
    publish_errors: (map(.publish_errors | add // 0) | add)
};
. as $runs
| {
    timestamp: $stamp,
    config: {rounds: $rounds, duration_s: $duration, warmup_s: $warmup,
             publishers_in_flight: $in_flight, value_size: $value_size,
             redis: $redis_version},
    measurements_run_again: $retries,
    median: [group_by([.rate, .subscribers])[]
             | {rate: .[0].rate, subscribers: .[0].subscribers,
                jiffy: (map(select(.target == "jiffy")) | medians),
                redis: (map(select(.target == "redis")) | medians)}
             | .ratio_delivered = (if .redis.delivered_per_s > 0
                                   then .jiffy.delivered_per_s / .redis.delivered_per_s
                                   else null end)],
    runs: $runs
  }
EOF
}

# Two tables: throughput (every mode, delivered/s is the headline at
# max), then latency, each with what else ran on the machine.
print_table() {
    jq -r "$(jq_format_defs)"'
        def mode: if .rate == 0 then "max" else "\(.rate)/s" end;
        (["mode", "subs", "jiffy deliv/s", "redis deliv/s", "ratio", "jiffy us/deliv",
          "redis us/deliv", "srv cores j/r", "client cores j/r", "jiffy lost", "redis lost",
          "other cores j/r"] | @tsv),
        (.median[] | [mode, (.subscribers | tostring),
            (.jiffy.delivered_per_s | f0), (.redis.delivered_per_s | f0), (.ratio_delivered | f2),
            (.jiffy.server_us_per_delivered | f2), (.redis.server_us_per_delivered | f2),
            ([.jiffy.server_cores, .redis.server_cores] | map(f2) | join("/")),
            ([.jiffy.client_cores, .redis.client_cores] | map(f2) | join("/")),
            (.jiffy.lost | tostring), (.redis.lost | tostring),
            ([.jiffy.other_processes_cores, .redis.other_processes_cores] | map(f2) | join("/"))]
         | @tsv)
    ' "$1" | column -t -s $'\t'
    echo
    jq -r "$(jq_format_defs)"'
        def mode: if .rate == 0 then "max" else "\(.rate)/s" end;
        (["mode", "subs", "jiffy p50", "p99", "p99.9", "redis p50", "p99", "p99.9",
          "p99.9 from send j/r", "srv runq wait ms/s j/r"] | @tsv),
        (.median[] | [mode, (.subscribers | tostring),
            (.jiffy.p50_ms | f3), (.jiffy.p99_ms | f3), (.jiffy.p999_ms | f3),
            (.redis.p50_ms | f3), (.redis.p99_ms | f3), (.redis.p999_ms | f3),
            ([.jiffy.p999_from_send_ms, .redis.p999_from_send_ms] | map(f3) | join("/")),
            ([.jiffy.server_runqueue_wait_ms_per_s, .redis.server_runqueue_wait_ms_per_s]
             | map(f0) | join("/"))] | @tsv)
    ' "$1" | column -t -s $'\t'
    jq -r '"latency in ms, from due (from sent at max) to delivery; medians of \(.config.rounds) " +
           "interleaved rounds of \(.config.duration_s) s; \(.config.publishers_in_flight) " +
           "publishes in flight at max; \(.config.value_size) B messages; lost: summed over " +
           "rounds; \(.config.redis)" +
           (if .measurements_run_again > 0
            then "; \(.measurements_run_again) measurement(s) failed and were run again"
            else "" end)' "$1"
}

main "$@"
