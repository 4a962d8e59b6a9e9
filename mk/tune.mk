# jiffy-tune (tune/): targets used by the root Makefile.
#   lint-tune    ruff (check + format) and mypy --strict
#   test-tune    recorded-results tests, one tiny live sweep, the report in headless Chromium
#   demo-tune    the demo's short sweep: our two SDKs and the two official ones
#   tune         a full sweep on this machine (ARGS="..." adds or overrides flags)
.PHONY: lint-tune test-tune demo-tune tune

TUNE_DIR := tune
TUNE_INSTALLED := $(VENV)/.tune-installed
# What a sweep of every SDK needs: the server, both SDKs' loadgens, the official adapters.
TUNE_SWEEP_DEPS := build $(TUNE_INSTALLED) $(JS_BUILT) $(BENCH_JS_INSTALLED)

# Installed into the root venv beside jiffy and momento: the tuner runs their
# loadgens with the same interpreter it runs on.
$(TUNE_INSTALLED): $(TUNE_DIR)/pyproject.toml $(PY_SDK_INSTALLED)
	$(PY) -m pip install --quiet -e '$(TUNE_DIR)[dev]'
	touch $@

lint-tune: $(TUNE_INSTALLED)
	$(VENV)/bin/ruff check $(TUNE_DIR)
	$(VENV)/bin/ruff format --check $(TUNE_DIR)
	cd $(TUNE_DIR) && $(CURDIR)/$(VENV)/bin/mypy --strict src/jiffy_tune

test-tune: $(TUNE_SWEEP_DEPS)
	JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) $(VENV)/bin/pytest -q $(TUNE_DIR)/tests

# About a minute on a 2-core machine: 4 SDKs x 3 concurrencies, one
# channel, and our two SDKs over protosocket too (jiffy-tune's default transports).
# One round, so it shows the sweep and the report but recommends nothing:
# a recommendation needs 3 rounds a point (`make tune ARGS="--rounds 3"`).
# Both Node loadgens get the V8 flags our SDK's README recommends for a low
# p99.9 (sdk/js/docs/transport.md): the young-generation GC sets Node's floor.
NODE_GC_FLAGS := --node-option=--max-semi-space-size=1 --node-option=--single-threaded-gc
DEMO_TUNE_ARGS := --sdk jiffy-python,jiffy-js,momento-python,momento-js \
	--concurrency 1,10,50 --channels 1 --duration 2 --warmup 1 --targets 20,5 $(NODE_GC_FLAGS)

demo-tune: $(TUNE_SWEEP_DEPS)
	JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) $(VENV)/bin/jiffy-tune $(DEMO_TUNE_ARGS)

tune: $(TUNE_SWEEP_DEPS)
	JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) $(VENV)/bin/jiffy-tune $(ARGS)
