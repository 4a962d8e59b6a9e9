#!/usr/bin/env bash
# Scale-out: the embedded store against front-ends over a Redis Cluster, in
# one run.
#
# Three set-ups, interleaved A B C A B C ... for ROUNDS rounds so slow spells
# of this shared machine hit all three:
#   A  one jiffy-server with its embedded store;
#   B  one jiffy-server front-end over a 3-master + 3-replica Redis Cluster;
#   C  two front-ends over the same cluster, the client's connections spread
#      over both (as a TCP load balancer would).
# The same closed-loop client (bench/server's jiffy-bench-server) drives all
# three: CONCURRENCY requests in flight, 50% gets / 50% sets, VALUE_SIZE-byte
# values, over CONNECTIONS HTTP/2 connections. Every server (the front-ends
# and the six redis-server nodes) is pinned to SERVER_CORE and the client to
# CLIENT_CORE. On a 2-core machine the front-ends and the cluster therefore
# share one core: C measures what the architecture costs, not the scale-out
# that front-ends on machines of their own would give.
#
# The client reads the CPU time (/proc/PID/stat) of the front-ends and of the
# cluster's nodes at both ends of its measured window, so the table also
# gives server CPU per request, front-end and store apart.
#
# Usage: flock /tmp/jiffy-bench.lock bash bench/scaleout/run.sh
# Environment (defaults):
#   ROUNDS=3 DURATION=12 WARMUP=2 CONCURRENCY=50 CONNECTIONS=2
#   VALUE_SIZE=100 KEYSPACE=10000 SERVER_CORE=0 CLIENT_CORE=1
# Prints a table; writes out/bench/scaleout-<timestamp>.json.
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-12}
WARMUP=${WARMUP:-2}
CONCURRENCY=${CONCURRENCY:-50}
# Two, so C has one connection per front-end and A and B get as many.
CONNECTIONS=${CONNECTIONS:-2}
VALUE_SIZE=${VALUE_SIZE:-100}
KEYSPACE=${KEYSPACE:-10000}
SERVER_CORE=${SERVER_CORE:-0}
CLIENT_CORE=${CLIENT_CORE:-1}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
SERVER_BIN=target/release/jiffy-server
CLIENT_BIN=target/release/jiffy-bench-server
WORK=$(mktemp -d)
CLUSTER_DIR=$WORK/cluster
# Front-ends started and not stopped yet, and the addresses they listen on.
FRONT_END_PIDS=()
FRONT_END_ADDRESSES=()
CLUSTER_STARTED=""

log() { printf '%s\n' "$*" >&2; }

stop_front_ends() {
    local pid
    for pid in "${FRONT_END_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${FRONT_END_PIDS[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    FRONT_END_PIDS=()
    FRONT_END_ADDRESSES=()
}

cleanup() {
    stop_front_ends
    [[ -z $CLUSTER_STARTED ]] || bash tests/redis-cluster.sh stop "$CLUSTER_DIR" || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# Starts one jiffy-server on SERVER_CORE with the arguments given and waits
# for its `listening on` line; adds it to FRONT_END_PIDS / _ADDRESSES.
start_front_end() {
    local log_file pid address=""
    log_file=$WORK/server-${#FRONT_END_PIDS[@]}.log
    taskset -c "$SERVER_CORE" "$SERVER_BIN" --listen 127.0.0.1:0 "$@" >"$log_file" 2>&1 &
    pid=$! # taskset execs the server, so this is the server's pid
    FRONT_END_PIDS+=("$pid")
    for _ in $(seq 100); do
        address=$(sed -n 's/^listening on \(.*\)/\1/p' "$log_file")
        [[ -n $address ]] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if [[ -z $address ]]; then
        log "jiffy-server $* did not start:"
        cat "$log_file" >&2
        exit 1
    fi
    FRONT_END_ADDRESSES+=("$address")
}

# The cluster on SERVER_CORE: redis-server daemonizes from the script's
# process tree, so the nodes inherit taskset's affinity.
start_cluster() {
    local nodes
    nodes=$(taskset -c "$SERVER_CORE" bash tests/redis-cluster.sh start "$CLUSTER_DIR" | tail -1)
    CLUSTER_STARTED=1
    STORE_URL="redis-cluster://$nodes"
    CLUSTER_PIDS=$(awk '{print $2}' "$CLUSTER_DIR/nodes.txt" | paste -sd,)
    local pid
    for pid in ${CLUSTER_PIDS//,/ }; do
        [[ $(taskset -cp "$pid") == *": $SERVER_CORE" ]] ||
            { log "redis-server $pid is not pinned to core $SERVER_CORE"; exit 1; }
    done
}

# `port role` of every node now, one per line: a failover during the run
# (a node starved past cluster-node-timeout) shows as a changed role.
cluster_roles() {
    local port
    while read -r port _ _; do
        echo "$port $(redis-cli -p "$port" role 2>/dev/null | head -1)"
    done <"$CLUSTER_DIR/nodes.txt"
}

# One run of set-up $1 (A, B or C); the client's JSON report goes to $2.
run_setup() {
    local setup=$1 out=$2 pids store_pids=()
    case $setup in
    A) start_front_end ;;
    B) start_front_end --store "$STORE_URL" ;;
    C)
        start_front_end --store "$STORE_URL"
        start_front_end --store "$STORE_URL"
        ;;
    esac
    [[ $setup == A ]] || store_pids=(--store-pid "$CLUSTER_PIDS")
    pids=$(IFS=,; echo "${FRONT_END_PIDS[*]}")
    taskset -c "$CLIENT_CORE" "$CLIENT_BIN" \
        --endpoint "$(IFS=,; echo "${FRONT_END_ADDRESSES[*]}")" \
        --server-pid "$pids" "${store_pids[@]}" \
        --concurrency "$CONCURRENCY" --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup "$WARMUP" \
        --value-size "$VALUE_SIZE" --keyspace "$KEYSPACE" --get-ratio 0.5 \
        --json >"$out"
    stop_front_ends
}

main() {
    command -v taskset >/dev/null || { log "taskset (util-linux) is needed"; exit 1; }
    command -v redis-server >/dev/null ||
        { log "redis-server is needed: apt-get install redis-server"; exit 1; }
    ((CONNECTIONS >= 2)) || { log "CONNECTIONS must be at least 2 (one per front-end of C)"; exit 1; }
    log "building (release)"
    cargo build --release -q -p jiffy-server -p jiffy-bench-server

    log "starting the Redis Cluster on core $SERVER_CORE"
    start_cluster
    cluster_roles >"$WORK/roles-before.txt"

    local round setup
    for round in $(seq "$ROUNDS"); do
        for setup in A B C; do
            log "round $round/$ROUNDS: $setup"
            run_setup "$setup" "$WORK/$setup-$round.json"
        done
    done
    cluster_roles >"$WORK/roles-after.txt"

    local stamp out failovers
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    failovers=$(diff "$WORK/roles-before.txt" "$WORK/roles-after.txt" | grep -c '^>' || true)
    mkdir -p out/bench
    out=out/bench/scaleout-$stamp.json
    python3 bench/scaleout/report.py --runs "$WORK" --rounds "$ROUNDS" --out "$out" \
        --timestamp "$stamp" --redis-version "$(redis-server --version)" \
        --cluster-role-changes "$failovers" --server-core "$SERVER_CORE" \
        --client-core "$CLIENT_CORE" --cores "$(nproc)"
    log "written to $out"
}

main "$@"
