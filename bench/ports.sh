# Sourced by the benchmark scripts that start servers on ports of their own
# choosing (bench/server/run.sh, bench/topics/run.sh, bench/memory/run.sh).

# A loopback port nothing listens on, below the kernel's ephemeral range
# (32768-60999 here), so no client connection takes it between this check
# and the bind.
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 12000))
        # Free when nothing answers a connect.
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
}

# The port jiffy-server (pid $2) names in the `listening on 127.0.0.1:PORT`
# line of its log $1, printed once it is ready; fails if the server exits
# first or takes over $3 seconds (10 by default).
listening_port() {
    local log=$1 pid=$2 seconds=${3:-10} port
    for _ in $(seq $((seconds * 10))); do
        port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
        [[ -n $port ]] && { echo "$port"; return 0; }
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    return 1
}
