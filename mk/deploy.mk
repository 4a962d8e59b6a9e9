# Deployment samples (deploy/): targets used by the root Makefile.
#   test-deploy   deploy/scaleout run for real: a Redis Cluster, three
#                 jiffy-servers with the sample TOML, HAProxy with the sample
#                 config (needs `haproxy`: apt-get install haproxy)
.PHONY: test-deploy

test-deploy: build $(PY_SDK_INSTALLED)
	JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) $(VENV)/bin/pytest -q tests/deploy
