#!/usr/bin/env bash
# The Debian packages `make test` and `make demo` need beyond the toolchains:
# installs the missing ones (as root, or with sudo when it needs no password),
# or stops at once naming the one command that does. `.ci/run` and the
# Makefile both call this, so a fresh machine needs nothing done by hand.
set -euo pipefail

need=()
command -v make >/dev/null || need+=(make)
command -v cc >/dev/null || need+=(gcc)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
command -v python3 >/dev/null || need+=(python3)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
# The tuner's HTML report is checked in a real browser (tune/tests).
command -v chromium >/dev/null || need+=(chromium)
# The Redis Cluster tests and the conformance suites over Redis.
command -v redis-server >/dev/null || need+=(redis-server)
# tests/redis-cluster.sh picks free ports with ss, which slim images lack.
command -v ss >/dev/null || need+=(iproute2)
# The deployment sample (deploy/scaleout) is checked behind a real HAProxy.
command -v haproxy >/dev/null || need+=(haproxy)
# The systemd unit (deploy/systemd) is checked with systemd-analyze verify.
command -v systemd-analyze >/dev/null || need+=(systemd)
# The official Java SDK's conformance suite (tests/conformance/java).
command -v javac >/dev/null || need+=(default-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
((${#need[@]})) || exit 0

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "missing system packages: ${need[*]}" >&2
  echo "install them with: sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "installing system packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${need[@]}"
