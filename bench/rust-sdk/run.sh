#!/usr/bin/env bash
# The official Rust SDK (crate momento, the version pinned in
# tests/conformance/rust): its protosocket client against its gRPC client,
# both on one jiffy-server.
#
# One jiffy-server (release build, gRPC and protosocket ports) runs pinned to
# core 0 for the whole run. The load program,
# tests/conformance/rust/examples/bench.rs, measures one client at one
# concurrency per run, pinned to core 1. Each round runs every concurrency,
# gRPC then protosocket, so slow spells of this shared machine hit both; the
# table shows the medians of the rounds and the ratios protosocket / gRPC.
#
# Server CPU per request: the program reads the server's /proc/PID/stat when
# its warmup ends and when its window closes, and divides by the calls
# answered between the two readings (bench/README.md has the details).
#
# Usage: bash bench/rust-sdk/run.sh   (or make bench-rust-sdk)
# Environment (defaults):
#   ROUNDS=3 DURATION=10 WARMUP=2 CONCURRENCY="1 10 50 200" VALUE_SIZE=100
#   KEYS=1000 SERVER_CORE=0 CLIENT_CORE=1 OUT=out/bench/rust-sdk-<time>.json
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
CONCURRENCY=${CONCURRENCY:-1 10 50 200}
VALUE_SIZE=${VALUE_SIZE:-100}
KEYS=${KEYS:-1000}
SERVER_CORE=${SERVER_CORE:-0}
CLIENT_CORE=${CLIENT_CORE:-1}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
SDK_DIR=tests/conformance/rust
# The conformance crate's own target directory, as the Makefile sets it.
SDK_TARGET=$ROOT/$SDK_DIR/target
BENCH=$SDK_TARGET/release/examples/bench
WORK=$(mktemp -d)
SERVER_PID=""

cleanup() {
    if [[ -n $SERVER_PID ]]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '%s\n' "$*" >&2; }

# free_port
source "$ROOT/bench/ports.sh"
# jq_median_def, jq_format_defs
source "$ROOT/bench/jq.sh"

# Starts jiffy-server on core SERVER_CORE; sets SERVER_PID, GRPC_PORT and
# PROTOSOCKET_PORT.
start_server() {
    PROTOSOCKET_PORT=$(free_port)
    GRPC_PORT=""
    taskset -c "$SERVER_CORE" target/release/jiffy-server --listen 127.0.0.1:0 \
        --protosocket-listen "127.0.0.1:$PROTOSOCKET_PORT" >"$WORK/server.log" 2>&1 &
    SERVER_PID=$! # taskset execs the server, so this is the server's pid
    for _ in $(seq 100); do
        GRPC_PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/server.log")
        [[ -n $GRPC_PORT ]] && return
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    log "jiffy-server did not start:"
    cat "$WORK/server.log" >&2
    exit 1
}

# One run of the SDK's client $1 at concurrency $2: its JSON report on stdout.
run_sdk() {
    taskset -c "$CLIENT_CORE" "$BENCH" --transport "$1" --concurrency "$2" \
        --grpc-endpoint "127.0.0.1:$GRPC_PORT" \
        --protosocket-endpoint "127.0.0.1:$PROTOSOCKET_PORT" --server-pid "$SERVER_PID" \
        --seconds "$DURATION" --warmup "$WARMUP" --value-size "$VALUE_SIZE" --keys "$KEYS"
    kill -0 "$SERVER_PID" 2>/dev/null ||
        { log "jiffy-server ended during the run:"; cat "$WORK/server.log" >&2; exit 1; }
}

# The momento version Cargo.lock pins.
sdk_version() {
    sed -n '/^name = "momento"$/{n;s/^version = "\(.*\)"$/\1/p;}' "$SDK_DIR/Cargo.lock"
}

main() {
    command -v taskset >/dev/null || { log "taskset (util-linux) is needed"; exit 1; }
    command -v jq >/dev/null || { log "jq is needed (apt-get install jq)"; exit 1; }
    log "building (release): jiffy-server, and the SDK's load program"
    cargo build --release -q -p jiffy-server
    (cd "$SDK_DIR" && CARGO_TARGET_DIR=$SDK_TARGET cargo build --release -q --example bench)

    start_server
    local r c transport
    for r in $(seq "$ROUNDS"); do
        for c in $CONCURRENCY; do
            for transport in grpc protosocket; do
                log "round $r/$ROUNDS: concurrency $c, $transport"
                run_sdk "$transport" "$c" |
                    jq -c --argjson r "$r" '{round: $r, result: .}' >>"$WORK/runs.jsonl"
            done
        done
    done

    local stamp out
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    mkdir -p out/bench
    out=${OUT:-out/bench/rust-sdk-$stamp.json}
    jq -s --arg stamp "$stamp" --arg momento "$(sdk_version)" \
        --argjson concurrency "$(jq -cn --arg c "$CONCURRENCY" '$c | split(" ") | map(select(. != "") | tonumber)')" \
        --argjson rounds "$ROUNDS" --argjson duration "$DURATION" --argjson warmup "$WARMUP" \
        --argjson value_size "$VALUE_SIZE" --argjson keys "$KEYS" \
        "$(summary_jq)" "$WORK/runs.jsonl" >"$out"
    print_table "$out"
    log "written to $out"
}

# The summary of the runs (the input, an array): per concurrency, the
# medians of each client's rounds and the ratios protosocket / gRPC; and
# every run as measured.
summary_jq() {
    jq_median_def
    cat <<'EOF'
def ratio($a; $b): if $a == null or $b == null or $b == 0 then null else $a / $b end;
. as $runs
| def results($c; $t): [$runs[].result
                        | select(.config.concurrency == $c and .config.transport == $t)];
def medians($c; $t): results($c; $t) as $r | {
    rps: ([$r[].rps] | median),
    p50_ms: ([$r[].latency_ms.p50] | median),
    p99_ms: ([$r[].latency_ms.p99] | median),
    p999_ms: ([$r[].latency_ms.p999] | median),
    server_us_per_request: ([$r[].server_cpu.us_per_request] | median),
    server_us_per_request_rounds: [$r[].server_cpu.us_per_request],
    server_cores: ([$r[].server_cpu.cores] | median),
    client_us_per_request: ([$r[].client_cpu.us_per_request] | median),
    client_cores: ([$r[].client_cpu.cores] | median),
    other_processes_cores: ([$r[].other_processes_cores] | median),
    errors: ([$r[].errors] | add)
};
{
  timestamp: $stamp,
  config: {rounds: $rounds, duration_s: $duration, warmup_s: $warmup,
           concurrency: $concurrency, value_size: $value_size, keys: $keys,
           get_ratio: 0.5, momento: $momento},
  by_concurrency: [$concurrency[] as $c
      | {concurrency: $c, grpc: medians($c; "grpc"), protosocket: medians($c; "protosocket")}
      | .protosocket_over_grpc = (. as $m | {
            rps: ratio($m.protosocket.rps; $m.grpc.rps),
            p50_ms: ratio($m.protosocket.p50_ms; $m.grpc.p50_ms),
            p99_ms: ratio($m.protosocket.p99_ms; $m.grpc.p99_ms),
            p999_ms: ratio($m.protosocket.p999_ms; $m.grpc.p999_ms),
            server_us_per_request: ratio($m.protosocket.server_us_per_request;
                                         $m.grpc.server_us_per_request),
            client_us_per_request: ratio($m.protosocket.client_us_per_request;
                                         $m.grpc.client_us_per_request)})],
  runs: $runs
}
EOF
}

# Per concurrency, a row per client (medians, and the server's CPU per
# request of each round) and a row of the ratios protosocket / gRPC.
print_table() {
    jq -r "$(jq_format_defs)"'
        (["conc", "client", "rps", "p50 ms", "p99 ms", "p99.9 ms", "server us/req",
          "rounds", "client us/req", "server cores", "client cores", "other cores", "errors"]
         | @tsv),
        (.by_concurrency[] | .concurrency as $c
         | ((["grpc", "protosocket"][] as $t | .[$t]
             | [$c, $t, (.rps | f0), (.p50_ms | f3), (.p99_ms | f3), (.p999_ms | f3),
                (.server_us_per_request | f2), ([.server_us_per_request_rounds[] | f2] | join(" ")),
                (.client_us_per_request | f2), (.server_cores | f2), (.client_cores | f2),
                (.other_processes_cores | f2), (.errors | tostring)] | @tsv),
            (.protosocket_over_grpc
             | [$c, "protosocket/grpc", (.rps | f2), (.p50_ms | f2), (.p99_ms | f2),
                (.p999_ms | f2), (.server_us_per_request | f2), "", (.client_us_per_request | f2),
                "", "", "", ""] | @tsv)))
    ' "$1" | column -t -s $'\t'
    jq -r '"momento \(.config.momento), \(.config.value_size) B values, \(.config.keys) keys, " +
           "medians of \(.config.rounds) interleaved rounds of \(.config.duration_s) s"' "$1"
}

main "$@"
