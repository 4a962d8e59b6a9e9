#!/usr/bin/env bash
# `make demo`: start one jiffy-server on a free port, say hello to it through
# the official Momento Python SDK and through each of our SDKs, then run a
# short jiffy-tune sweep (its own pinned server) and print its recommendation.
# Everything this needs is built by make before it runs.
set -euo pipefail
cd "$(dirname "$0")/.."

server_bin=${JIFFY_SERVER_BIN:-target/release/jiffy-server}
python=${PYTHON:-.venv/bin/python}
log=$(mktemp -t jiffy-demo.XXXXXX.log)

coproc SERVER { exec "$server_bin" --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 2>"$log"; }
server_pid=$SERVER_PID
stop_server() { kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
trap stop_server EXIT

endpoint=""
metrics=""
while read -r -t 20 line <&"${SERVER[0]}"; do
  case $line in
    "metrics listening on "*) metrics=${line#metrics listening on } ;;
    "listening on "*) endpoint=${line#listening on }; break ;;
  esac
done
if [[ -z $endpoint ]]; then
  echo "jiffy-server did not start; its log:" >&2
  cat "$log" >&2
  exit 1
fi
export JIFFY_ENDPOINT=$endpoint
echo "jiffy-server is listening on $endpoint (metrics at http://$metrics/metrics)"

step() { printf '\n== %s\n' "$1"; }
step "the official Momento Python SDK, unchanged"
"$python" demo/momento_hello.py
step "jiffy, the Python SDK"
make -s --no-print-directory demo-python
step "jiffy, the TypeScript SDK"
make -s --no-print-directory demo-js
# Stop this server before the sweep: the tuner pins its own to one core and
# its loadgens to the other, and an idle neighbour only adds noise.
stop_server

step "jiffy-tune: a short sweep of our SDKs and the official ones"
make -s --no-print-directory demo-tune
