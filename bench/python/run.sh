#!/usr/bin/env bash
# Python clients side by side (bench/python/run.py): ours over gRPC and over
# protosocket, the official momento SDK, bare grpc.aio stubs. Takes the
# machine-wide benchmark lock so no other timing run overlaps; run.py pins the
# server to core 0 and clients to core 1.
#   bash bench/python/run.sh              the comparison (~11 minutes)
#   CLIENTS="jiffy jiffy-protosocket bare" bash bench/python/run.sh
#                                         some of the clients, in that order
#   bash bench/python/run.sh --variants   ours: uvloop on/off x 1/2 channels
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
exec flock /tmp/jiffy-bench.lock "$PY" bench/python/run.py "$@"
