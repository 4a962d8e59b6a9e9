#!/usr/bin/env bash
# The Debian packages a make target needs beyond the toolchains (Rust, Python,
# Node): `bash mk/system-packages.sh demo` or `... test` (the default).
# Installs the missing ones (as root, or with sudo when it needs no password),
# or stops at once naming the one command that does. The Makefile's `demo`
# and `test`, and `.ci/run`, call this, so a fresh machine needs nothing done
# by hand, and `make demo` asks for nothing it does not use.
#
# One list per target, one line per need: `package:probe`, the probe being a
# command that must be on PATH, or a shell condition (with a space) that must
# hold. A new need goes on its own line in the list of the target that uses
# it, with a comment saying what for; `test` includes everything `demo` needs.
set -euo pipefail

target=${1:-test}

# make demo: build the server, hello through every SDK, a short jiffy-tune sweep.
demo=(
  make:make
  gcc:cc # crates with C parts (jemalloc, ring)
  nodejs:node
  npm:npm
  python3:python3
  "python3-venv:python3 -c 'import venv, ensurepip' 2>/dev/null"
  util-linux:taskset # jiffy-tune pins the server and the load generators
)

# make test: every check.
test=(
  "${demo[@]}"
  chromium:chromium # the tuner's HTML report is checked in a real browser (tune/tests)
  redis-server:redis-server # the Redis Cluster tests and the conformance suites over Redis
  iproute2:ss # tests/redis-cluster.sh picks free ports with ss, which slim images lack
  haproxy:haproxy # the deployment sample (deploy/scaleout) is checked behind a real HAProxy
  systemd:systemd-analyze # the systemd unit (deploy/systemd) is checked with systemd-analyze verify
  default-jdk-headless:javac # the official Java SDK's conformance suite (tests/conformance/java)
  maven:mvn # ... which Maven builds and runs
  openssl:openssl # the docs' secret-making commands run in tests/readme
  curl:curl # the HTTP API's examples (README, docs/HTTP.md) run in tests/readme
)

case $target in
  demo) wanted=("${demo[@]}") ;;
  test) wanted=("${test[@]}") ;;
  *)
    echo "usage: $0 [demo|test]" >&2
    exit 2
    ;;
esac

need=()
for entry in "${wanted[@]}"; do
  package=${entry%%:*}
  probe=${entry#*:}
  if [[ $probe == *" "* ]]; then
    eval "$probe" || need+=("$package")
  else
    command -v "$probe" >/dev/null || need+=("$package")
  fi
done
((${#need[@]})) || exit 0

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "make $target: missing system packages: ${need[*]}" >&2
  echo "install them with: sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "installing system packages for make $target: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${need[@]}"
