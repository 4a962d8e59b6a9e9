#!/usr/bin/env bash
# The long versions of the reliability tests (bench/reliability/README.md):
# the no-lost-writes checker for CHECK_SECONDS, the property tests for
# PROPTEST_CASES cases each, and the 10,000 idle connections, against the
# release server. Everything printed also goes to out/reliability/.
#   bash bench/reliability/run.sh                          ~11 minutes
#   CHECK_SECONDS=60 PROPTEST_CASES=10000 bash bench/reliability/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

CHECK_SECONDS=${CHECK_SECONDS:-300}
PROPTEST_CASES=${PROPTEST_CASES:-100000}
LOCK=${LOCK:-/tmp/jiffy-bench.lock}
mkdir -p out/reliability
log="out/reliability/run-$(date -u +%Y%m%dT%H%M%SZ).log"

# Not timing runs, so the lock is shared: they only must not overlap a
# benchmark that holds it exclusively.
run() { flock -s "$LOCK" "$@"; }

run cargo build --release -p jiffy-server
export JIFFY_SERVER_BIN="$PWD/target/release/jiffy-server"
{
  echo "jiffy reliability run, $(date -u +%FT%TZ), $(git rev-parse --short HEAD)"
  echo "CHECK_SECONDS=$CHECK_SECONDS PROPTEST_CASES=$PROPTEST_CASES"
  JIFFY_CHECK_SECONDS=$CHECK_SECONDS run cargo test --release -p jiffy-server \
    --test integration -- --nocapture no_lost_writes::
  PROPTEST_CASES=$PROPTEST_CASES run cargo test --release -p jiffy-server \
    --test integration -- proptest_store:: proptest_requests:: proptest_protosocket::
  run cargo test --release -p jiffy-server --test stress -- --nocapture idle_connections::
} 2>&1 | tee "$log"
echo "log: $log"
