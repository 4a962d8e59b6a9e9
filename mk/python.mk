# Python SDK (sdk/python): targets used by the root Makefile.
#   lint-python   ruff (check + format) and mypy --strict
#   test-python   pytest against the release jiffy-server (unit + integration)
#   demo-python   sdk/python/examples/hello.py against $JIFFY_ENDPOINT
#   bench-python  ours vs the official momento SDK vs bare grpc.aio stubs
.PHONY: lint-python test-python demo-python bench-python

PY_SDK := sdk/python
PY_SDK_INSTALLED := $(VENV)/.jiffy-installed

# The SDK in editable mode with its pinned dev tools, in the root venv (where
# the official momento SDK already is: the benchmarks load both at once).
$(PY_SDK_INSTALLED): $(PY_SDK)/pyproject.toml $(VENV)/.installed
	$(PY) -m pip install --quiet -e '$(PY_SDK)[dev,uvloop]'
	touch $@

lint-python: $(PY_SDK_INSTALLED)
	cd $(PY_SDK) && $(CURDIR)/$(VENV)/bin/ruff check . && $(CURDIR)/$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check bench/*.py bench/python bench/sdk
	$(VENV)/bin/ruff format --check bench/*.py bench/python bench/sdk
	cd $(PY_SDK) && $(CURDIR)/$(VENV)/bin/mypy --strict src/jiffy

test-python: build $(PY_SDK_INSTALLED)
	cd $(PY_SDK) && JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) $(CURDIR)/$(VENV)/bin/pytest -q

demo-python: $(PY_SDK_INSTALLED)
	$(PY) $(PY_SDK)/examples/hello.py

bench-python: build $(PY_SDK_INSTALLED)
	bash bench/python/run.sh
