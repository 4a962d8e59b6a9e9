#!/usr/bin/env bash
# A real Redis Cluster on loopback for the tests: three masters, three
# replicas, from Debian's redis-server (`apt-get install redis-server`).
#
# Usage:
#   tests/redis-cluster.sh start DIR   start six nodes under DIR/PORT/, form the
#                                      cluster, wait until it serves; writes
#                                      DIR/nodes.txt (`port pid role` per line)
#                                      and prints, as the LAST line of stdout,
#                                      the six addresses comma-separated
#   tests/redis-cluster.sh stop DIR    SIGKILL every node of DIR and wait for
#                                      them to exit (dead ones are fine)
#
# Ports are picked free at random below the kernel's ephemeral range, so
# that no outgoing connection can take a port (or its bus port, +10000)
# between the check and the bind. Several clusters may start at once (the
# tests run in parallel): picking and binding happen under one lock file.
set -euo pipefail

NODES=6
BUS_OFFSET=10000
# Lowest and highest client port; bus ports go up to 31999, below 32768.
PORT_MIN=16000
PORT_MAX=21990
START_TIMEOUT_SECONDS=30
LOCK_FILE=${TMPDIR:-/tmp}/jiffy-redis-cluster-ports.lock

die() {
	echo "redis-cluster.sh: $*" >&2
	exit 1
}

usage() {
	die "usage: $0 start DIR | stop DIR"
}

require_tools() {
	local tool
	for tool in redis-server redis-cli ss; do
		command -v "$tool" >/dev/null ||
			die "$tool not found; install it with: apt-get install redis-server iproute2"
	done
}

# True when no TCP socket (listening or connected) uses local port $1.
port_free() {
	[[ -z $(ss -Htan "sport = :$1") ]]
}

# A base port B with B..B+NODES-1 and their bus ports all free.
pick_base_port() {
	local attempt base i
	for attempt in $(seq 50); do
		base=$((PORT_MIN + RANDOM % (PORT_MAX - PORT_MIN - NODES)))
		for ((i = 0; i < NODES; i++)); do
			port_free $((base + i)) && port_free $((base + i + BUS_OFFSET)) || continue 2
		done
		echo "$base"
		return
	done
	die "no $NODES free ports (and bus ports) found in $PORT_MIN-$PORT_MAX"
}

cli() {
	local port=$1
	shift
	redis-cli -h 127.0.0.1 -p "$port" "$@"
}

# Seconds left before the start deadline; dies past it with $1 as the reason.
check_deadline() {
	((SECONDS < START_TIMEOUT_SECONDS)) ||
		die "not ready after ${START_TIMEOUT_SECONDS}s: $1 (logs in $DIR/*/redis.log)"
}

start_node() {
	local port=$1 node_dir=$DIR/$1
	mkdir -p "$node_dir"
	redis-server --bind 127.0.0.1 --port "$port" \
		--cluster-enabled yes --cluster-node-timeout 1000 \
		--save '' --appendonly no \
		--repl-diskless-sync-delay 0 \
		--daemonize yes --pidfile "$node_dir/redis.pid" \
		--logfile "$node_dir/redis.log" --dir "$node_dir" ||
		die "redis-server on port $port did not start (see $node_dir/redis.log)"
}

# Waits until the node on $1 answers PING and has written its pid file.
wait_node_up() {
	local port=$1
	until [[ -s $DIR/$port/redis.pid ]] && [[ $(cli "$port" ping 2>/dev/null) == PONG ]]; do
		check_deadline "node $port does not answer PING"
		sleep 0.05
	done
}

# The value of `field` in an INFO-style answer (`field:value` lines).
info_field() {
	local port=$1 command=$2 field=$3
	cli "$port" $command 2>/dev/null | tr -d '\r' | sed -n "s/^$field://p"
}

wait_cluster_ok() {
	local port
	for port in "${PORTS[@]}"; do
		until [[ $(info_field "$port" "cluster info" cluster_state) == ok &&
			$(info_field "$port" "cluster info" cluster_known_nodes) == "$NODES" ]]; do
			check_deadline "node $port does not say cluster_state:ok with $NODES nodes"
			sleep 0.1
		done
	done
}

# Waits until every replica's link to its master is up; prints `port role` lines.
wait_replicas_linked() {
	local port role
	for port in "${PORTS[@]}"; do
		role=$(info_field "$port" "info replication" role)
		if [[ $role == slave ]]; then
			until [[ $(info_field "$port" "info replication" master_link_status) == up ]]; do
				check_deadline "replica $port is not linked to its master"
				sleep 0.1
			done
			echo "$port replica"
		else
			echo "$port master"
		fi
	done
}

cmd_start() {
	require_tools
	mkdir -p "$DIR"
	# A failed start leaves nothing running.
	trap 'status=$?; ((status == 0)) || cmd_stop >/dev/null 2>&1' EXIT

	local base i lock_fd
	exec {lock_fd}>"$LOCK_FILE"
	flock "$lock_fd"
	base=$(pick_base_port)
	PORTS=()
	for ((i = 0; i < NODES; i++)); do
		PORTS+=($((base + i)))
	done
	for port in "${PORTS[@]}"; do
		start_node "$port"
	done
	for port in "${PORTS[@]}"; do
		wait_node_up "$port"
	done
	# Bound now: the next start sees these ports taken.
	flock -u "$lock_fd"

	local addresses=()
	for port in "${PORTS[@]}"; do
		addresses+=("127.0.0.1:$port")
	done
	redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes \
		>"$DIR/create.log" 2>&1 ||
		die "redis-cli --cluster create failed: $(tail -5 "$DIR/create.log")"

	wait_cluster_ok
	local roles
	roles=$(wait_replicas_linked)
	: >"$DIR/nodes.txt"
	while read -r port role; do
		echo "$port $(<"$DIR/$port/redis.pid") $role" >>"$DIR/nodes.txt"
	done <<<"$roles"
	trap - EXIT
	(
		IFS=,
		echo "${addresses[*]}"
	)
}

cmd_stop() {
	local pid_file pid pids=()
	for pid_file in "$DIR"/*/redis.pid; do
		[[ -s $pid_file ]] || continue
		pid=$(<"$pid_file")
		# Only the node of this port: the pid may have been reused since.
		if grep -qa "redis-server.*:$(basename "$(dirname "$pid_file")")" "/proc/$pid/cmdline" 2>/dev/null; then
			kill -KILL "$pid" 2>/dev/null || true
			pids+=("$pid")
		fi
	done
	for pid in "${pids[@]}"; do
		while [[ -d /proc/$pid ]] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
			sleep 0.02
		done
	done
}

[[ $# -eq 2 ]] || usage
DIR=$2
case $1 in
start) cmd_start ;;
stop) cmd_stop ;;
*) usage ;;
esac
