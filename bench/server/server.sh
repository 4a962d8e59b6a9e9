# Sourced by bench/server/run.sh, bench/server/instructions.sh and
# bench/topics/run.sh: their scratch directory, and the one server they have
# started and not stopped yet (SERVER_PID), stopped if they exit early.

WORK=$(mktemp -d)
SERVER_PID=""

stop_server() {
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

cleanup() {
    [[ -z $SERVER_PID ]] || stop_server
    rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf '%s\n' "$*" >&2; }
