#!/usr/bin/env bash
# The long version of the attack suite (server/tests/attacks.rs,
# attacks_tls.rs and attacks_budget.rs, modules of the `stress` test binary):
# every attack for ATTACK_SECONDS (30
# by default) instead of the 2 s of `make test`, against the release server,
# one at a time, and the budget attacks at their full size (collections of
# 1,000,000 elements rather than the 100,000-200,000 of `make test`, 100,000
# idle subscriptions rather than 6,000).
# Each attack prints one `ATTACK` line (idle and peak resident memory,
# normal-call p50/p99/max, newcomers, what the attacker saw); the log and
# those lines go to out/reliability/.
#   bash bench/reliability/attacks.sh                    ~15 minutes
#   ATTACK_SECONDS=60 bash bench/reliability/attacks.sh
#   bash bench/reliability/attacks.sh rapid_reset        only tests matching a filter
#   bash bench/reliability/attacks.sh attacks_budget::   one module
set -euo pipefail
cd "$(dirname "$0")/../.."

ATTACK_SECONDS=${ATTACK_SECONDS:-30}
LOCK=${LOCK:-/tmp/jiffy-bench.lock}
mkdir -p out/reliability
stamp=$(date -u +%Y%m%dT%H%M%SZ)
log="out/reliability/attacks-$stamp.log"

# Not a timing run of the server alone, so the lock is shared: it only must
# not overlap a benchmark that holds it exclusively.
run() { flock -s "$LOCK" "$@"; }

run cargo build --release -p jiffy-server
export JIFFY_SERVER_BIN="$PWD/target/release/jiffy-server"
export JIFFY_ATTACK_SECONDS=$ATTACK_SECONDS
export JIFFY_ATTACK_COLLECTION_ELEMENTS=${JIFFY_ATTACK_COLLECTION_ELEMENTS:-1000000}
# The idle-subscription attack at the scale its bound is stated for: about
# 70 s to open them, then ATTACK_SECONDS idle.
export JIFFY_ATTACK_SUBSCRIPTIONS=${JIFFY_ATTACK_SUBSCRIPTIONS:-100000}
set +e
{
  echo "jiffy attack suite, $(date -u +%FT%TZ), $(git rev-parse --short HEAD), ${ATTACK_SECONDS}s per attack"
  # Every module of the binary whose name has "attacks" in it, unless
  # filters are given.
  run cargo test --release --no-fail-fast -p jiffy-server --test stress \
    -- --nocapture --test-threads 1 "${@:-attacks}"
} 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
grep -h '^ATTACK\|ATTACK ' "$log" | sed 's/^test [a-z_0-9:]* \.\.\. //' > "out/reliability/attacks-$stamp.txt" || true
echo "log: $log"
echo "one line per attack: out/reliability/attacks-$stamp.txt"
exit "$status"
