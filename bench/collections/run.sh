#!/usr/bin/env bash
# Server CPU per request of the collection calls, jiffy-server beside
# redis-server doing the same work (the table in bench/server/src/calls.rs),
# server on core 0 and client on core 1, in one run.
#
# Each round runs every call once, jiffy-server then redis-server, through
# bench/server/run.sh (ROUNDS=1): A B A B for each call, so a slow spell of
# this shared machine hits both. The table is the median of the rounds and
# the ratio of the medians.
#
# Usage: bash bench/collections/run.sh
# Environment (defaults): ROUNDS=3 DURATION=10 WARMUP=2 CONCURRENCY=50
#   VALUE_SIZE=100 CALLS="dictionary-set dictionary-get list-push-back
#   list-fetch set-union sorted-set-put sorted-set-fetch leaderboard-upsert
#   leaderboard-fetch"
#   BASELINE=PATH  another jiffy-server binary (say, a copy of main's),
#                  measured in the same rounds just before this checkout's:
#                  adds the columns "baseline us/req" and "vs baseline"
# The reads run on fewer keys, each prefilled whole on both servers:
# list-fetch on 1,000 lists of 100 values, sorted-set-fetch and
# leaderboard-fetch on 100 sorted sets (leaderboards) of 1,000 elements; the
# others on 10,000 keys.
set -euo pipefail

ROUNDS=${ROUNDS:-3}
BASELINE=${BASELINE:-}
TARGETS="grpc redis"
[[ -z $BASELINE ]] || TARGETS="grpc-baseline grpc redis"
CALLS=${CALLS:-dictionary-set dictionary-get list-push-back list-fetch set-union sorted-set-put sorted-set-fetch leaderboard-upsert leaderboard-fetch}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
# jq_median_def, jq_format_defs
source "$ROOT/bench/jq.sh"
# round_order
source "$ROOT/bench/rounds.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

keyspace() {
    case $1 in
    list-fetch) echo 1000 ;;
    sorted-set-fetch | leaderboard-fetch) echo 100 ;;
    *) echo 10000 ;;
    esac
}

for r in $(seq "$ROUNDS"); do
    for call in $CALLS; do
        echo "round $r/$ROUNDS: $call" >&2
        # Round r of a call measures its targets in bench/server's order for
        # round r: reversed every other round.
        CALL=$call ROUNDS=1 KEYSPACE=$(keyspace "$call") OUT="$WORK/$call-$r.json" \
            TARGETS="$(round_order "$r" $TARGETS)" BASELINE="$BASELINE" bash bench/server/run.sh >/dev/null
    done
done

stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p out/bench
out="out/bench/collections-$stamp.json"
jq -s --argjson rounds "$ROUNDS" "$(jq_median_def)"'
    group_by(.config.call) | map({
        call: .[0].config.call,
        keyspace: .[0].config.keyspace,
        jiffy_us_per_request: ([.[].median.grpc.us_per_request] | median),
        redis_us_per_request: ([.[].median.redis.us_per_request] | median),
        baseline_us_per_request: ([.[].median["grpc-baseline"].us_per_request // empty] | median),
        jiffy_rps: ([.[].median.grpc.rps] | median),
        jiffy_p50_ms: ([.[].median.grpc.p50_ms] | median),
        jiffy_p99_ms: ([.[].median.grpc.p99_ms] | median),
        jiffy_p999_ms: ([.[].median.grpc.p999_ms] | median),
        jiffy_errors: ([.[].errors.grpc] | add),
        wrong_answers: ([.[].rounds[].grpc.gets | .misses + .wrong_size_hits] | add),
        rounds: [.[].rounds[0]]
    } | .ratio = .jiffy_us_per_request / .redis_us_per_request
      | .vs_baseline = (if .baseline_us_per_request == null then null
                        else .jiffy_us_per_request / .baseline_us_per_request end))
    | {rounds: $rounds, calls: .}' "$WORK"/*.json >"$out"

jq -r "$(jq_format_defs)"'
    (["call", "jiffy us/req", "redis us/req", "ratio", "baseline us/req", "vs baseline", "jiffy rps", "p50 ms", "p99 ms", "p99.9 ms", "errors", "misses"] | @tsv),
    (.calls[] | [.call, (.jiffy_us_per_request | f2), (.redis_us_per_request | f2),
                 (.ratio | f2), (.baseline_us_per_request | f2), (.vs_baseline | f2),
                 (.jiffy_rps | round | tostring), (.jiffy_p50_ms | f3),
                 (.jiffy_p99_ms | f3), (.jiffy_p999_ms | f3), (.jiffy_errors | tostring),
                 (.wrong_answers | tostring)] | @tsv)' "$out" | column -t -s $'\t'
echo "median of $ROUNDS interleaved rounds; server on core ${SERVER_CORE:-0}, client on core ${CLIENT_CORE:-1}; written to $out"
