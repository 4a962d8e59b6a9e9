#!/usr/bin/env bash
# Server instructions per call: jiffy-server under callgrind, driven by the
# load clients of bench/server, counted over a window and divided by the
# calls the server answered in it.
#
# Instruction counts do not move with the machine's load the way CPU time
# does, so they compare two builds on a busy machine where run.sh's
# timings cannot. They count user space only: the system calls' own cost
# is not in them (run.sh's CPU per request has it).
#
# One server per transport. For each phase (Set, then Get of the keys the
# Sets wrote, then Publish at one subscriber), the client runs for
# WARMUP + DURATION seconds; once its warmup is over the script reads the
# server's answered calls from /metrics and zeroes callgrind's counters,
# and before the client stops it dumps them and reads /metrics again.
# The calls answered between the two metric reads and the callgrind
# commands differ only by the few answered while those commands took
# effect, the same at both ends of the window.
#
# Usage: bash bench/server/instructions.sh
# Environment (defaults):
#   SERVER=target/release/jiffy-server   the binary to count (say, a copy
#                                        of main's, for a before/after)
#   CONNECTIONS=50 CONCURRENCY=50 KEYSPACE=1000 VALUE_SIZE=100
#   WARMUP=4 DURATION=20                 seconds, under callgrind's ~50x
#   PHASES="grpc protosocket publish"
#   KEEP=DIR    keep each window's callgrind dump there, for
#               callgrind_annotate (DIR/callgrind.Get-grpc, ...)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
SERVER=${SERVER:-target/release/jiffy-server}
CONNECTIONS=${CONNECTIONS:-50}
CONCURRENCY=${CONCURRENCY:-50}
KEYSPACE=${KEYSPACE:-1000}
VALUE_SIZE=${VALUE_SIZE:-100}
WARMUP=${WARMUP:-4}
DURATION=${DURATION:-20}
PHASES=${PHASES:-grpc protosocket publish}
KEEP=${KEEP:-}
CLIENT=${CLIENT:-target/release/jiffy-bench-server}
TOPICS_CLIENT=${TOPICS_CLIENT:-target/release/jiffy-bench-topics}

# WORK, SERVER_PID, stop_server, log
source "$ROOT/bench/server/server.sh"
# free_port, listening_port
source "$ROOT/bench/ports.sh"

# The calls of rpc $2 over transport $3 the server on metrics port $1 has
# answered, every status.
answered() {
    curl -s "http://127.0.0.1:$1/metrics" |
        awk -v rpc="rpc=\"$2\"" -v transport="transport=\"$3\"" \
            '/^jiffy_requests_total/ && index($0, rpc) && index($0, transport) { n += $2 }
             END { printf "%d\n", n }'
}

# Instructions in callgrind dump $1 (its `totals:` line).
instructions() {
    awk '/^totals:/ { print $2 }' "$1"
}

# Starts jiffy-server under callgrind; sets SERVER_PID, GRPC_PORT,
# METRICS_PORT and PROTOSOCKET_PORT.
start_server() {
    PROTOSOCKET_PORT=$(free_port)
    METRICS_PORT=$(free_port)
    : >"$WORK/server.log"
    valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out.%p" \
        "$SERVER" --listen 127.0.0.1:0 --metrics-listen "127.0.0.1:$METRICS_PORT" \
        --protosocket-listen "127.0.0.1:$PROTOSOCKET_PORT" \
        >"$WORK/server.log" 2>&1 &
    SERVER_PID=$!
    # Under callgrind the start takes longer than the usual 10 s.
    GRPC_PORT=$(listening_port "$WORK/server.log" "$SERVER_PID" 60) || {
        log "jiffy-server did not start:"
        cat "$WORK/server.log" >&2
        exit 1
    }
}

# Counts the window of a client already started: prints "calls
# instructions" for rpc $1 over transport $2.
count_window() {
    local rpc=$1 transport=$2 before after dump
    sleep "$WARMUP"
    before=$(answered "$METRICS_PORT" "$rpc" "$transport")
    callgrind_control --zero "$SERVER_PID" >/dev/null 2>&1
    sleep "$DURATION"
    callgrind_control --dump="$rpc-$transport" "$SERVER_PID" >/dev/null 2>&1
    after=$(answered "$METRICS_PORT" "$rpc" "$transport")
    dump=$(grep -l "^desc: Trigger: .*$rpc-$transport" "$WORK"/callgrind.out.* | tail -1)
    [[ -z $KEEP ]] || cp "$dump" "$KEEP/callgrind.$rpc-$transport"
    echo "$((after - before)) $(instructions "$dump")"
}

# One load phase of jiffy-bench-server: $1 transport, $2 get ratio, $3 rpc.
load_phase() {
    local transport=$1 ratio=$2 rpc=$3 flags=(--transport "$1") client counted
    [[ $transport == grpc ]] ||
        flags+=(--protosocket-endpoint "127.0.0.1:$PROTOSOCKET_PORT")
    "$CLIENT" --endpoint "127.0.0.1:$GRPC_PORT" "${flags[@]}" \
        --concurrency "$CONCURRENCY" --connections "$CONNECTIONS" \
        --duration "$((DURATION + 10))" --warmup "$WARMUP" \
        --value-size "$VALUE_SIZE" --keyspace "$KEYSPACE" --get-ratio "$ratio" \
        --json >/dev/null &
    client=$!
    counted=$(count_window "$rpc" "$transport")
    kill "$client" 2>/dev/null || true
    wait "$client" 2>/dev/null || true
    report "$rpc" "$transport" $counted
}

report() {
    local rpc=$1 transport=$2 calls=$3 instructions=$4
    printf '%-8s %-12s %8d calls %14d instructions %8d per call\n' \
        "$rpc" "$transport" "$calls" "$instructions" "$((instructions / calls))"
}

log "counting $SERVER under callgrind"
for phase in $PHASES; do
    start_server
    case $phase in
        grpc | protosocket)
            load_phase "$phase" 0 Set
            load_phase "$phase" 1 Get
            ;;
        publish)
            "$TOPICS_CLIENT" --target jiffy --endpoint "127.0.0.1:$GRPC_PORT" \
                --subscribers 1 --duration "$((DURATION + 10))" --warmup "$WARMUP" \
                --value-size "$VALUE_SIZE" >/dev/null &
            client=$!
            counted=$(count_window Publish grpc)
            kill "$client" 2>/dev/null || true
            wait "$client" 2>/dev/null || true
            report Publish "1-subscriber" $counted
            ;;
        *)
            log "unknown phase $phase"
            exit 2
            ;;
    esac
    stop_server
done
