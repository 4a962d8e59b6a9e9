# TypeScript SDK (sdk/js): targets used by the root Makefile.
#   make lint-js    tsc --noEmit + eslint
#   make test-js    unit and integration tests (starts jiffy-server on free ports)
#   make demo-js    examples/hello.mjs against $JIFFY_ENDPOINT
#   make bench-js   ours vs the official @gomomento/sdk vs bare grpc-js (bench/js)

.PHONY: lint-js test-js demo-js bench-js build-js
JS_DIR := sdk/js
JS_INSTALLED := $(JS_DIR)/node_modules/.installed
JS_BUILT := $(JS_DIR)/dist/.built
JS_SOURCES := $(shell find $(JS_DIR)/src -name '*.ts' 2>/dev/null) $(JS_DIR)/tsconfig.json $(JS_DIR)/tsconfig.build.json $(JS_DIR)/tsconfig.cjs.json
BENCH_JS_INSTALLED := bench/node_modules/.installed

# --ignore-scripts: the package's own `prepare` would build dist/ here, and
# $(JS_BUILT) builds it again from the same sources right after.
$(JS_INSTALLED): $(JS_DIR)/package-lock.json $(JS_DIR)/package.json
	cd $(JS_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

$(JS_BUILT): $(JS_INSTALLED) $(JS_SOURCES)
	cd $(JS_DIR) && npm run --silent build
	touch $@

$(BENCH_JS_INSTALLED): bench/package-lock.json bench/package.json
	cd bench && npm ci --no-audit --no-fund --loglevel=error
	touch $@

build-js: $(JS_BUILT)

lint-js: $(JS_INSTALLED)
	cd $(JS_DIR) && npm run --silent lint

test-js: build $(JS_BUILT)
	cd $(JS_DIR) && JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) npm run --silent test

demo-js: $(JS_BUILT)
	node $(JS_DIR)/examples/hello.mjs

bench-js: build $(JS_BUILT) $(BENCH_JS_INSTALLED)
	bash bench/js/run.sh
