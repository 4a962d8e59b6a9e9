# Jiffy: the two commands a newcomer needs are `make demo` and `make test`.
# Both install what this checkout needs (Python venv, npm packages, Rust
# components) on first use, and the system packages their target needs
# (mk/system-packages.sh: `make demo` needs none beyond the toolchains).

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
SERVER_RELEASE := target/release/jiffy-server
CONFORMANCE_JS := tests/conformance/js
CONFORMANCE_RUST := tests/conformance/rust
CONFORMANCE_JAVA := tests/conformance/java

.PHONY: help
help:
	@echo "make demo          build jiffy-server, hello through every SDK, then a short jiffy-tune sweep and its report (about 9 min on a busy 2-core machine, 6.5 of them the release build)"
	@echo "make test          every check and test: lint, unit, integration, conformance with official SDKs (about 22-35 min on a 2-core machine)"
	@echo "make test-conformance-redis  the conformance suites through two front-ends over a real Redis Cluster"
	@echo "make test-conformance-rust   the official Rust SDK (crate momento): its protosocket and gRPC clients"
	@echo "make test-conformance-java   the official Java SDK (software.momento.java:sdk): cache and topic clients"
	@echo "make test-conformance-js-retry  the official JS SDK's own retry job (fault headers, admin port), from its source"
	@echo "make test-deploy   the deploy/scaleout sample for real: Redis Cluster, three front-ends, HAProxy"
	@echo "make build         release build of jiffy-server (target/release/jiffy-server; about 6.5 min on a busy 2-core machine)"
	@echo "make generate      rewrite what is generated from the catalogue of calls (sdk/spec.json): Python and TypeScript RPC tables, the tables of calls and roles in docs/"
	@echo "make dist          packages into dist/: the jiffy-server wheel, the SDKs' and jiffy-tune's wheels, sdists, npm tarball"
	@echo "make bench         server CPU per request beside redis-server (bench/server)"
	@echo "make bench-collections  collection calls' server CPU per request beside redis-server (bench/collections)"
	@echo "make bench-topics  publish and subscribe, 1/10/100 subscribers, beside redis-server (bench/topics)"
	@echo "make bench-memory  resident bytes per item, shape by shape, beside redis-server (bench/memory)"
	@echo "make bench-rust-sdk  the official Rust SDK: its protosocket client vs its gRPC client (bench/rust-sdk)"
	@echo "make bench-python  Python SDK vs the official momento SDK (bench/python)"
	@echo "make bench-js      TypeScript SDK vs the official @gomomento/sdk (bench/js)"
	@echo "make tune ARGS=..  jiffy-tune: sweep, chart and recommend a configuration (tune/README.md)"

# Each SDK keeps its own targets (lint-X, test-X, demo-X, bench-X) in mk/X.mk.
include mk/python.mk mk/js.mk mk/tune.mk mk/deploy.mk mk/dist.mk mk/generate.mk

.PHONY: build
build:
	cargo build --release -p jiffy-server

$(VENV)/.installed: tests/conformance/python/requirements.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r tests/conformance/python/requirements.txt ruff
	touch $@

$(CONFORMANCE_JS)/node_modules/.installed: $(CONFORMANCE_JS)/package-lock.json
	cd $(CONFORMANCE_JS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# System packages, per target (mk/system-packages.sh has one list each):
# installed when missing, or the one command that installs them is named.
.PHONY: system-packages system-packages-demo
system-packages:
	@bash mk/system-packages.sh test

system-packages-demo:
	@bash mk/system-packages.sh demo

.PHONY: demo
demo: system-packages-demo build $(VENV)/.installed $(TUNE_SWEEP_DEPS)
	JIFFY_SERVER_BIN=$(SERVER_RELEASE) PYTHON=$(PY) bash demo/run.sh

.PHONY: test
test: system-packages lint test-rust test-conformance test-conformance-rust test-conformance-java test-conformance-redis test-python test-js test-tune test-deploy test-readme test-packaging

.PHONY: lint
lint: $(VENV)/.installed
	cargo fmt --all --check
	cd $(CONFORMANCE_RUST) && cargo fmt --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(VENV)/bin/ruff check tests demo
	$(VENV)/bin/ruff format --check tests demo

lint: lint-python lint-js lint-tune

# Tests that start the server as a process use the release build: its memory
# and speed are what users get (tests/memory.rs checks resident memory).
# The top README's and its docs/ pages' programs and shell commands, and the
# SDK READMEs' programs, run as pasted against fresh servers (tests/readme).
.PHONY: test-readme
test-readme: build $(PY_SDK_INSTALLED) $(JS_BUILT) $(CONFORMANCE_JS)/node_modules/.installed
	JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) $(VENV)/bin/pytest -q tests/readme

.PHONY: test-rust
test-rust: build
	JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) cargo test --workspace

.PHONY: test-conformance
test-conformance: build $(VENV)/.installed $(CONFORMANCE_JS)/node_modules/.installed
	JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) $(VENV)/bin/pytest -q tests/conformance/python
	cd $(CONFORMANCE_JS) && JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) npm test

# The official Rust SDK against the release build: its own cargo project
# (outside the workspace) with its own lock file and target directory; its
# clippy runs here rather than in `lint`, which would build the SDK twice.
.PHONY: test-conformance-rust
test-conformance-rust: build
	cd $(CONFORMANCE_RUST) && export CARGO_TARGET_DIR=$(CURDIR)/$(CONFORMANCE_RUST)/target && \
		cargo clippy --all-targets --quiet -- -D warnings && \
		JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) cargo test

# The official Java SDK against the release build: a Maven project (Maven
# fetches the SDK and JUnit into ~/.m2 on its first run). `-Pnetns` runs the
# tests in a network namespace of their own (netns/bin/java), where the
# TopicClient and Momento keys, which always dial port 443, reach a TLS
# jiffy-server.
.PHONY: test-conformance-java
test-conformance-java: build
	cd $(CONFORMANCE_JAVA) && JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) mvn -B -ntp test -Pnetns

# The official JS SDK's own retry job, unchanged, against the release build
# with --enable-fault-injection and --admin-listen in momento-local's place
# (tests/conformance/js/upstream-retry.mjs; the SDK's source is cloned into
# target/upstream/ on the first run, or taken from $$JIFFY_UPSTREAM_JS).
.PHONY: test-conformance-js-retry
test-conformance-js-retry: build
	cd $(CONFORMANCE_JS) && JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) npm run --silent test:upstream-retry

# The same suites through two jiffy-servers over one real Redis Cluster
# (tests/redis-cluster.sh): every client alternates between the two, so a
# write through one front-end is read through the other.
.PHONY: test-conformance-redis
test-conformance-redis: build $(VENV)/.installed $(CONFORMANCE_JS)/node_modules/.installed
	JIFFY_CONFORMANCE_STORE=redis-cluster JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) \
		$(VENV)/bin/pytest -q tests/conformance/python
	cd $(CONFORMANCE_JS) && JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) npm run --silent test:redis-cluster

.PHONY: bench bench-collections bench-topics bench-memory bench-rust-sdk
bench:
	bash bench/server/run.sh

bench-collections:
	bash bench/collections/run.sh

bench-topics:
	bash bench/topics/run.sh

bench-memory:
	bash bench/memory/run.sh

bench-rust-sdk:
	bash bench/rust-sdk/run.sh

.PHONY: clean
clean:
	cargo clean
	rm -rf $(VENV) $(CONFORMANCE_JS)/node_modules out
