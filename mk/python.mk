# Python SDK (sdk/python): targets used by the root Makefile.
.PHONY: lint-python test-python demo-python bench-python
lint-python:
test-python:
demo-python:
bench-python:
