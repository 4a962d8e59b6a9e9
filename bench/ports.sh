# Sourced by the benchmark scripts that start servers on ports of their own
# choosing (bench/server/run.sh, bench/topics/run.sh).

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
