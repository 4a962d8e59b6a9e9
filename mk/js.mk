# TypeScript SDK (sdk/js): targets used by the root Makefile.
.PHONY: lint-js test-js demo-js bench-js
lint-js:
test-js:
demo-js:
bench-js:
