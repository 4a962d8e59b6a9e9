# Deployment samples (deploy/): targets used by the root Makefile.
#   test-deploy   deploy/scaleout run for real: a Redis Cluster, three
#                 jiffy-servers with the sample TOML, HAProxy with the sample
#                 config (needs `haproxy`: apt-get install haproxy); the
#                 container, systemd, compose and Grafana files checked
.PHONY: test-deploy

# What the deploy tests read beyond the SDK: the compose files (YAML).
DEPLOY_TEST_PINS := pyyaml==6.0.3
DEPLOY_TOOLS := $(VENV)/.deploy-tools-installed

$(DEPLOY_TOOLS): mk/deploy.mk $(VENV)/.installed
	$(PY) -m pip install --quiet $(DEPLOY_TEST_PINS)
	touch $@

test-deploy: build $(PY_SDK_INSTALLED) $(DEPLOY_TOOLS)
	JIFFY_SERVER_BIN=$(CURDIR)/$(SERVER_RELEASE) $(VENV)/bin/pytest -q tests/deploy
