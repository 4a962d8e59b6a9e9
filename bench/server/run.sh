#!/usr/bin/env bash
# Server CPU per request: jiffy-server over gRPC, jiffy-server over
# protosocket and redis-server, in one run.
#
# The server under test is pinned to core 0 and its load client to core 1.
# Each round measures every target in turn (TARGETS): jiffy-server under our
# closed-loop client (50% gets) over gRPC, then over its protosocket port,
# then redis-server under redis-benchmark, so slow spells of this shared
# machine hit them all; the table shows one row per target, the median of
# the rounds and its ratio to redis.
#
# CPU per request = (utime + stime of the server process, from
# /proc/PID/stat, over the measured window) / requests answered in it.
#  - jiffy (grpc, protosocket): the client reads the server's /proc/PID/stat
#    itself at the instants its measured window opens and closes (after the
#    warmup), and counts the answers handled between the two readings. The
#    server is started the same way for both, with both ports open.
#  - redis: this script reads redis-server's /proc/PID/stat just before and
#    just after the measured redis-benchmark run, whose request count is known
#    (-n per test); connection setup falls inside that window, which slightly
#    favours jiffy (a few hundred microseconds over ~10 s).
#
# Usage: bash bench/server/run.sh
# Environment (defaults):
#   ROUNDS=3 DURATION=10 WARMUP=2 CONCURRENCY=50 VALUE_SIZE=100 KEYSPACE=10000
#   SERVER_CORE=0 CLIENT_CORE=1
#   CONNECTIONS=1  connections jiffy's load client spreads its requests over;
#                  CONNECTIONS=$CONCURRENCY is one request in flight per
#                  connection, as redis-benchmark runs (no pipelining)
#   TARGETS="grpc protosocket redis"   any of them, in the order of each round;
#                  also h2-floor: jiffy-bench-h2-floor, a bare h2 server
#                  answering Get and Set from a HashMap, the least a gRPC
#                  server on the h2 crate can spend a call (CALL=get-set)
#   CALL=get-set   or a collection call beside the redis-server command doing
#                  the same work (bench/server/src/calls.rs has the table);
#                  bench/collections/run.sh runs them all. The protosocket
#                  protocol has only Get and Set: for a collection call,
#                  TARGETS defaults to "grpc redis".
#   BASELINE=PATH  another jiffy-server binary (say, a copy of main's) to
#                  measure beside this checkout's in the same rounds: adds
#                  the targets grpc-baseline and protosocket-baseline, and
#                  TARGETS defaults to "grpc-baseline grpc
#                  protosocket-baseline protosocket redis"
#   OUT=out/bench/server-<time>.json
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
CONCURRENCY=${CONCURRENCY:-50}
CONNECTIONS=${CONNECTIONS:-1}
VALUE_SIZE=${VALUE_SIZE:-100}
KEYSPACE=${KEYSPACE:-10000}
CALL=${CALL:-get-set}
BASELINE=${BASELINE:-}
if [[ $CALL == get-set && -n $BASELINE ]]; then
    TARGETS=${TARGETS:-grpc-baseline grpc protosocket-baseline protosocket redis}
elif [[ $CALL == get-set ]]; then
    TARGETS=${TARGETS:-grpc protosocket redis}
elif [[ -n $BASELINE ]]; then
    TARGETS=${TARGETS:-grpc-baseline grpc redis}
else
    TARGETS=${TARGETS:-grpc redis}
fi
SERVER_CORE=${SERVER_CORE:-0}
CLIENT_CORE=${CLIENT_CORE:-1}
# Requests per test of the redis warmup run, which also sizes the measured
# run so that it lasts about DURATION seconds.
REDIS_WARMUP_REQUESTS=${REDIS_WARMUP_REQUESTS:-50000}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
# WORK, SERVER_PID, stop_server, log
source "$ROOT/bench/server/server.sh"

# CPU time of a process in clock ticks: utime + stime, fields 14 and 15 of
# /proc/PID/stat, counted after the ')' that closes the command name.
cpu_ticks() {
    local stat fields
    stat=$(<"/proc/$1/stat")
    read -r -a fields <<<"${stat##*") "}"
    echo $((fields[11] + fields[12]))
}

# Busy ticks of the whole machine: the first line of /proc/stat, the first
# eight counters (guest time is already in user) less idle and iowait.
machine_ticks() {
    local fields
    read -r -a fields </proc/stat
    echo $((fields[1] + fields[2] + fields[3] + fields[6] + fields[7] + fields[8]))
}

# Installs the Debian packages this benchmark needs that are missing.
install_tools() {
    local missing=()
    command -v redis-server >/dev/null || missing+=(redis-server)
    command -v redis-benchmark >/dev/null || missing+=(redis-tools)
    command -v jq >/dev/null || missing+=(jq)
    ((${#missing[@]})) || return 0
    local sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # Refresh the package lists only when the install fails without it.
    "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null ||
        { "${sudo[@]}" apt-get update -q >/dev/null &&
            "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null; }
}

# free_port, listening_port
source "$ROOT/bench/ports.sh"
# jq_median_def, jq_format_defs
source "$ROOT/bench/jq.sh"
# round_order
source "$ROOT/bench/rounds.sh"

# One round of jiffy-server under our client over transport $1 (grpc or
# protosocket): writes the client's JSON report to $2. $3 is the server
# binary, this checkout's by default, or h2-floor for jiffy-bench-h2-floor.
run_jiffy() {
    local transport=$1 out=$2 server=${3:-target/release/jiffy-server}
    local pid port="" protosocket_port command
    protosocket_port=$(free_port)
    if [[ $server == h2-floor ]]; then
        command=(target/release/jiffy-bench-h2-floor 127.0.0.1:0)
    else
        command=("$server" --listen 127.0.0.1:0 --protosocket-listen "127.0.0.1:$protosocket_port")
    fi
    # Emptied here, before the server starts: the redirect below runs in the
    # child, and the loop could otherwise read the previous round's port.
    : >"$WORK/jiffy.log"
    taskset -c "$SERVER_CORE" "${command[@]}" >"$WORK/jiffy.log" 2>&1 &
    pid=$! # taskset execs the server, so this is the server's pid
    SERVER_PID=$pid
    port=$(listening_port "$WORK/jiffy.log" "$pid") || {
        log "jiffy-server did not start:"
        cat "$WORK/jiffy.log" >&2
        exit 1
    }
    local transport_flags=(--transport "$transport")
    [[ $transport == grpc ]] ||
        transport_flags+=(--protosocket-endpoint "127.0.0.1:$protosocket_port")
    taskset -c "$CLIENT_CORE" target/release/jiffy-bench-server \
        --endpoint "127.0.0.1:$port" "${transport_flags[@]}" --server-pid "$pid" \
        --concurrency "$CONCURRENCY" --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup "$WARMUP" \
        --value-size "$VALUE_SIZE" --keyspace "$KEYSPACE" --get-ratio 0.5 --call "$CALL" \
        --json >"$out"
    stop_server
}

# "test","rps",... lines of redis-benchmark --csv as JSON
# {"SET": {"rps":..,"p50_ms":..,"p99_ms":..}, "GET": {...}}, one key per test
# (a custom command is named by its command line).
redis_csv_to_json() {
    jq -R -s '
        [split("\n")[] | select(length > 0 and (startswith("\"test\"") | not))
         | gsub("\""; "") | split(",")
         | {key: .[0], value: {rps: (.[1] | tonumber),
                               p50_ms: (.[4] | tonumber),
                               p99_ms: (.[6] | tonumber)}}]
        | from_entries'
}

# The redis-server command doing the work of --call $CALL (the table in
# bench/server/src/calls.rs), as redis-benchmark arguments: keys
# key:<12 digits>, like the client's, from -r KEYSPACE.
redis_command() {
    local v
    v=$(head -c "$VALUE_SIZE" /dev/zero | tr '\0' x)
    case $CALL in
    get-set) echo "-t set,get" ;;
    dictionary-set) echo "HSET key:__rand_int__ $(for i in $(seq 0 9); do printf 'f%d %s ' "$i" "$v"; done)" ;;
    dictionary-get) echo "HMGET key:__rand_int__ f0 f1 f2 f3 f4 f5 f6 f7 f8 f9" ;;
    list-push-back) echo "RPUSH key:__rand_int__ $v" ;;
    list-fetch) echo "LRANGE key:__rand_int__ 0 99" ;;
    set-union) echo "SADD key:__rand_int__ __rand_int__" ;;
    sorted-set-put) echo "ZADD key:__rand_int__ __rand_int__ __rand_int__" ;;
    sorted-set-fetch | leaderboard-fetch) echo "ZREVRANGE key:__rand_int__ 0 9 WITHSCORES" ;;
    leaderboard-upsert) echo "ZADD key:__rand_int__ __rand_int__ __rand_int__" ;;
    *) log "unknown CALL $CALL"; exit 2 ;;
    esac
}

# Writes, for the reads, the collections the client's prefill writes.
redis_prefill() {
    local port=$1 v i
    v=$(head -c "$VALUE_SIZE" /dev/zero | tr '\0' x)
    case $CALL in
    dictionary-get)
        for ((i = 0; i < KEYSPACE; i++)); do
            printf 'HSET key:%012d' "$i"
            for f in $(seq 0 9); do printf ' f%d %s' "$f" "$v"; done
            echo
        done ;;
    list-fetch)
        for ((i = 0; i < KEYSPACE; i++)); do
            printf 'RPUSH key:%012d' "$i"
            for _ in $(seq 100); do printf ' %s' "$v"; done
            echo
        done ;;
    sorted-set-fetch | leaderboard-fetch)
        # A leaderboard's members are its numeric ids.
        local members format='%012d'
        [[ $CALL == leaderboard-fetch ]] && format='%d'
        members=$(for m in $(seq 0 999); do printf " %d $format" "$m" "$m"; done)
        for ((i = 0; i < KEYSPACE; i++)); do
            printf 'ZADD key:%012d%s\n' "$i" "$members"
        done ;;
    *) return 0 ;;
    esac | redis-cli -p "$port" >/dev/null
}

# One round of redis-server under redis-benchmark: writes JSON to $1.
#
# redis-benchmark keeps one request in flight per connection (its pipeline,
# -P, defaults to 1), so -c CONCURRENCY matches our closed loop of
# CONCURRENCY tasks. It runs SET and GET as two phases rather than a 50% mix;
# for CPU per request that makes no difference worth the name, as both are
# counted and their total divides the CPU time of both.
run_redis() {
    local out=$1 port pid warm tests per_test t0 t1 c0 c1 m0 m1 ticks_per_s
    port=$(free_port)
    taskset -c "$SERVER_CORE" redis-server --port "$port" --bind 127.0.0.1 \
        --save '' --appendonly no --daemonize no >"$WORK/redis.log" 2>&1 &
    pid=$!
    SERVER_PID=$pid
    local ready=""
    for _ in $(seq 100); do
        [[ $(redis-cli -p "$port" ping 2>/dev/null) == PONG ]] && ready=1 && break
        sleep 0.1
    done
    if [[ -z $ready ]]; then
        log "redis-server did not start:"
        cat "$WORK/redis.log" >&2
        exit 1
    fi
    redis_prefill "$port"
    local command
    read -r -a command <<<"$(redis_command)"
    local bench=(taskset -c "$CLIENT_CORE" redis-benchmark -p "$port"
        -c "$CONCURRENCY" -d "$VALUE_SIZE" -r "$KEYSPACE" --csv)

    # Warmup, not measured: fills the keyspace, and its rate sizes the
    # measured run (one or two tests of per_test requests each, ~DURATION
    # seconds in all).
    warm=$("${bench[@]}" -n "$REDIS_WARMUP_REQUESTS" "${command[@]}" | redis_csv_to_json)
    tests=$(jq -r 'length' <<<"$warm")
    per_test=$(jq -r --argjson d "$DURATION" --argjson t "$tests" \
        '[.[].rps] | min * $d / $t | floor' <<<"$warm")

    # GNU time, when present, gives redis-benchmark's own CPU: near one core
    # means redis-benchmark, not redis-server, set the pace.
    local timed=()
    [[ -x /usr/bin/time ]] && timed=(/usr/bin/time -f '%U %S' -o "$WORK/redis.time")
    rm -f "$WORK/redis.time"

    m0=$(machine_ticks)
    c0=$(cpu_ticks "$pid")
    t0=$(date +%s.%N)
    "${timed[@]}" "${bench[@]}" -n "$per_test" "${command[@]}" >"$WORK/redis.csv"
    t1=$(date +%s.%N)
    c1=$(cpu_ticks "$pid")
    m1=$(machine_ticks)
    stop_server
    local client_cpu=null
    [[ -s $WORK/redis.time ]] && client_cpu=$(awk '{print $1 + $2}' "$WORK/redis.time")

    ticks_per_s=$(getconf CLK_TCK)
    redis_csv_to_json <"$WORK/redis.csv" | jq \
        --argjson n "$((tests * per_test))" --argjson t0 "$t0" --argjson t1 "$t1" \
        --argjson ticks "$((c1 - c0))" --argjson hz "$ticks_per_s" \
        --argjson client "$client_cpu" --argjson machine "$((m1 - m0))" '
        {requests: $n, seconds: ($t1 - $t0), rps: ($n / ($t1 - $t0)),
         server_cpu: {cpu_seconds: ($ticks / $hz),
                      cores: ($ticks / $hz / ($t1 - $t0)),
                      us_per_request: ($ticks / $hz * 1e6 / $n),
                      clock_ticks_per_second: $hz},
         client_cpu: (if $client == null then null
                      else {cpu_seconds: $client, cores: ($client / ($t1 - $t0))} end),
         other_processes_cores: (if $client == null then null
             else [($machine - $ticks) / $hz - $client, 0] | max / ($t1 - $t0) end),
         by_test: .}' >"$out"
}

# Refuses a TARGETS entry this script does not know, or one CALL lacks.
check_targets() {
    local target
    for target in $TARGETS; do
        case $target in
        grpc | redis) ;;
        h2-floor)
            [[ $CALL == get-set ]] ||
                { log "TARGETS: h2-floor answers only Get and Set, not CALL=$CALL"; exit 2; } ;;
        protosocket)
            [[ $CALL == get-set ]] ||
                { log "TARGETS: protosocket has only Get and Set, not CALL=$CALL"; exit 2; } ;;
        grpc-baseline | protosocket-baseline)
            [[ -x $BASELINE ]] ||
                { log "TARGETS: $target needs BASELINE, a jiffy-server binary"; exit 2; }
            [[ $target == grpc-baseline || $CALL == get-set ]] ||
                { log "TARGETS: protosocket has only Get and Set, not CALL=$CALL"; exit 2; } ;;
        *) log "TARGETS: unknown target $target (grpc, protosocket, redis, h2-floor, and with BASELINE grpc-baseline, protosocket-baseline)"; exit 2 ;;
        esac
    done
    [[ -n ${TARGETS// /} ]] || { log "TARGETS is empty"; exit 2; }
}

main() {
    command -v taskset >/dev/null || { log "taskset (util-linux) is needed"; exit 1; }
    check_targets
    install_tools
    log "building (release)"
    cargo build --release -q -p jiffy-server -p jiffy-bench-server

    # Every measurement, one JSON object a line: {round, target, result}.
    local r target
    for r in $(seq "$ROUNDS"); do
        for target in $(round_order "$r" $TARGETS); do
            log "round $r/$ROUNDS: $target"
            case $target in
            redis) run_redis "$WORK/result.json" ;;
            h2-floor) run_jiffy grpc "$WORK/result.json" h2-floor ;;
            *-baseline) run_jiffy "${target%-baseline}" "$WORK/result.json" "$BASELINE" ;;
            *) run_jiffy "$target" "$WORK/result.json" ;;
            esac
            jq -c --argjson r "$r" --arg t "$target" '{round: $r, target: $t, result: .}' \
                "$WORK/result.json" >>"$WORK/all.jsonl"
        done
    done

    local stamp out redis_version=null
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    mkdir -p out/bench
    out=${OUT:-out/bench/server-$stamp.json}
    [[ " $TARGETS " != *" redis "* ]] || redis_version=$(redis-server --version | jq -R .)
    jq -s --arg stamp "$stamp" --argjson redis_version "$redis_version" \
        --argjson targets "$(jq -cn --arg t "$TARGETS" '$t | split(" ") | map(select(. != ""))')" \
        --argjson rounds "$ROUNDS" --argjson duration "$DURATION" \
        --argjson concurrency "$CONCURRENCY" --argjson value_size "$VALUE_SIZE" \
        --argjson keyspace "$KEYSPACE" --arg call "$CALL" "$(summary_jq)" \
        "$WORK/all.jsonl" >"$out"
    print_table "$out"
    log "written to $out"
}

# The summary of the measurements (the input, an array): every round as
# measured, and per target the medians of the rounds.
summary_jq() {
    jq_median_def
    cat <<'EOF'
. as $all
| def runs($t): [$all[] | select(.target == $t) | .result];
def medians($t): runs($t) as $runs | {
    us_per_request: ([$runs[].server_cpu.us_per_request] | median),
    rps: ([$runs[].rps] | median),
    # redis-benchmark's latency is its own, per SET and GET phase: in the
    # rounds' by_test, not here.
    p50_ms: ([$runs[].latency_ms.p50 // empty] | median),
    p99_ms: ([$runs[].latency_ms.p99 // empty] | median),
    p999_ms: ([$runs[].latency_ms.p999 // empty] | median),
    server_cores: ([$runs[].server_cpu.cores] | median),
    client_cores: ([$runs[].client_cpu.cores // empty] | median),
    other_processes_cores: ([$runs[].other_processes_cores // empty] | median)
};
($targets | map({key: ., value: medians(.)}) | from_entries) as $median
| {
  timestamp: $stamp,
  config: {rounds: $rounds, duration_s: $duration, concurrency: $concurrency,
           value_size: $value_size, keyspace: $keyspace, call: $call, get_ratio: 0.5,
           targets: $targets, redis: $redis_version},
  median: ($median | map_values(
      .ratio_to_redis = (if $median.redis == null then null
                         else .us_per_request / $median.redis.us_per_request end))),
  # Failed calls of our client, all rounds (redis-benchmark reports none).
  errors: ($targets - ["redis"] | map({key: ., value: ([runs(.)[] | .requests - .ok] | add)})
           | from_entries),
  rounds: [range(1; $rounds + 1) as $r
           | {round: $r} + ([$all[] | select(.round == $r) | {key: .target, value: .result}]
                            | from_entries)]
}
EOF
}

# One row per target: CPU per request (median, then each round), its ratio
# to redis, and the rest as medians of the rounds.
print_table() {
    jq -r "$(jq_format_defs)"'
        . as $s |
        (["target", "cpu us/req", "rounds", "vs redis", "rps", "p50 ms", "p99 ms", "p99.9 ms",
          "server cores", "client cores", "other cores"] | @tsv),
        ($s.config.targets[] as $t | $s.median[$t] as $m |
         [$t, ($m.us_per_request | f2),
          ([$s.rounds[][$t].server_cpu.us_per_request | f2] | join(" ")),
          ($m.ratio_to_redis | f2), ($m.rps | f0),
          ($m.p50_ms | f3), ($m.p99_ms | f3), ($m.p999_ms | f3),
          ($m.server_cores | f2), ($m.client_cores | f2), ($m.other_processes_cores | f2)]
         | @tsv)
    ' "$1" | column -t -s $'\t'
    jq -r '.errors | to_entries[] | select(.value > 0)
           | "\(.key): \(.value) failed calls (see the JSON)"' "$1"
    jq -r '"concurrency \(.config.concurrency), \(.config.value_size) B values, " +
           "\(.config.rounds) interleaved rounds of \(.config.duration_s) s " +
           "(\(.config.targets | join(", ")))" +
           (if .config.redis == null then "" else "; \(.config.redis)" end)' "$1"
}

main "$@"
