# Code generated from the catalogue of calls (sdk/spec.json): targets used by
# the root Makefile. The server generates its own rows when it builds
# (server/build.rs); these are the checked-in ones.
#   make generate          rewrite Python's RPC table (jiffy/_calls.py), TypeScript's
#                          RPCS (src/rpcs.gen.ts) and the lists of calls in docs/
#   make check-generated   fail naming each of them that is stale (part of `make lint`)

.PHONY: generate check-generated

generate:
	python3 sdk/gen_calls.py

check-generated:
	python3 sdk/gen_calls.py --check

lint: check-generated
