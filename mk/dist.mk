# Packages, built into dist/: targets used by the root Makefile.
#   dist          all of the below
#   dist-server   the jiffy-server wheel (server/pyproject.toml: maturin, the release
#                 binary without its debug info) and that debug info beside it
#                 (jiffy-server-VERSION.debug)
#   dist-python   the Python SDK's wheel and sdist (sdk/python)
#   dist-tune     jiffy-tune's wheel and sdist (tune)
#   dist-js       the npm tarball of @jiffy/sdk (sdk/js)
# Each target first removes its own earlier files from dist/, so dist/ holds
# one version of each package. The Python builds run in isolated build
# environments with the backends each pyproject.toml pins (maturin,
# hatchling), as a user's `pip install ./server` would.
.PHONY: dist dist-server dist-python dist-tune dist-js

DIST := dist
# The PEP 517 front-end that builds the Python packages, and the tool that
# unpacks and repacks a wheel (RECORD rewritten) around the binary's stripping.
DIST_BUILD_PIN := build==1.6.1
DIST_WHEEL_PIN := wheel==0.48.0
SERVER_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' server/Cargo.toml | head -n 1)
SERVER_DEBUG := $(DIST)/jiffy-server-$(SERVER_VERSION).debug
DIST_TOOLS := $(VENV)/.dist-tools-installed

$(DIST_TOOLS): mk/dist.mk $(VENV)/.installed
	$(PY) -m pip install --quiet '$(DIST_BUILD_PIN)' '$(DIST_WHEEL_PIN)'
	touch $@

dist: dist-server dist-python dist-tune dist-js
	@echo "built into $(DIST)/:"
	@ls -1 $(DIST)

# maturin calls cargo with the release profile, so a fresh `make build`
# makes this a copy of target/release/jiffy-server into a wheel, not a build.
# --compatibility pypi: a manylinux tag read from the binary (server/pyproject.toml
# says why), where maturin's PEP 517 default is a plain linux tag PyPI refuses.
#
# Then the wheel's binary loses its debug info (48 of its 62 MB: line tables
# and the standard library's DWARF) to $(SERVER_DEBUG), which debuggers and
# panic backtraces find by the binary's .gnu_debuglink (beside it, or in
# /usr/lib/debug) or its unchanged build ID. The symbol table stays, so a
# backtrace names functions without the file. objcopy strips after the link:
# the wheel keeps `make build`'s binary (same build ID), never a relinked one.
dist-server: $(DIST_TOOLS)
	mkdir -p $(DIST)
	rm -f $(DIST)/jiffy_server-*.whl $(DIST)/jiffy-server-*.debug
	$(PY) -m build --wheel --outdir $(DIST) -C maturin.build-args='--compatibility pypi' server
	unpacked=$$(mktemp -d) \
	&& $(PY) -m wheel unpack --dest "$$unpacked" $(DIST)/jiffy_server-*.whl \
	&& binary=$$(echo "$$unpacked"/*/jiffy_server-*.data/scripts/jiffy-server) \
	&& objcopy --only-keep-debug "$$binary" $(SERVER_DEBUG) \
	&& objcopy --strip-debug --add-gnu-debuglink=$(SERVER_DEBUG) "$$binary" \
	&& rm $(DIST)/jiffy_server-*.whl \
	&& $(PY) -m wheel pack --dest-dir $(DIST) "$$unpacked"/* \
	&& rm -rf "$$unpacked"

# An sdist, then the wheel built from that sdist: what an installer from the
# sdist would get.
dist-python: $(DIST_TOOLS)
	mkdir -p $(DIST)
	rm -f $(DIST)/jiffy-[0-9]*.whl $(DIST)/jiffy-[0-9]*.tar.gz
	$(PY) -m build --outdir $(DIST) $(PY_SDK)

dist-tune: $(DIST_TOOLS)
	mkdir -p $(DIST)
	rm -f $(DIST)/jiffy_tune-*.whl $(DIST)/jiffy_tune-*.tar.gz
	$(PY) -m build --outdir $(DIST) $(TUNE_DIR)

dist-js: $(JS_BUILT)
	mkdir -p $(DIST)
	rm -f $(DIST)/jiffy-sdk-*.tgz
	cd $(JS_DIR) && npm pack --silent --pack-destination $(CURDIR)/$(DIST)

# Install paths as a new user meets them (tests/packaging): the SDKs and
# jiffy-tune from a clone, each package's contents, and the server wheel
# installed into a fresh virtualenv.
.PHONY: test-packaging
test-packaging: build $(PY_SDK_INSTALLED) $(TUNE_INSTALLED) $(JS_BUILT) $(DIST_TOOLS)
	JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) $(VENV)/bin/pytest -q tests/packaging
