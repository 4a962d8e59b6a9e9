# Sourced at the top of a benchmark that must run alone (after it sets
# ROOT): re-runs the script under an exclusive flock of LOCK, waiting for
# it, so that no two timing runs share the machine's cores.
#   source "$ROOT/bench/lock.sh"
LOCK=${LOCK:-/tmp/jiffy-bench.lock}
if [[ "${JIFFY_BENCH_LOCKED:-}" != 1 ]]; then
  exec env JIFFY_BENCH_LOCKED=1 flock "$LOCK" bash "$0" "$@"
fi
