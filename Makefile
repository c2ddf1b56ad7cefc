# The CI contract: `make demo` and `make test` work on a fresh machine with
# nothing but Python 3.9+ and make; each installs what it needs into .venv.

PYTHON ?= python3
VENV ?= .venv
VENV_PYTHON := $(VENV)/bin/python
PIP := $(VENV_PYTHON) -m pip --disable-pip-version-check --quiet
PYTEST_ARGS ?=
BENCH_ARGS ?=
SOAK_SECONDS ?= 120
CONFORMANCE_ARGS ?=

# One stamp per set of extras; each is redone when the package metadata changes.
RUNTIME_STAMP := $(VENV)/.installed-runtime
TEST_STAMP := $(VENV)/.installed-test
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: install demo test conformance lint typecheck bench soak clean

$(VENV_PYTHON):
	$(PYTHON) -m venv $(VENV)

$(RUNTIME_STAMP): setup.cfg setup.py pyproject.toml | $(VENV_PYTHON)
	$(PIP) install -e .
	touch $@

$(TEST_STAMP): setup.cfg setup.py pyproject.toml | $(VENV_PYTHON)
	$(PIP) install -e '.[test]'
	touch $@ $(RUNTIME_STAMP)

$(DEV_STAMP): setup.cfg setup.py pyproject.toml | $(VENV_PYTHON)
	$(PIP) install -e '.[test,dev]'
	touch $@ $(TEST_STAMP) $(RUNTIME_STAMP)

## install: create .venv if missing and install mcpsync (editable) with its test extra
install: $(TEST_STAMP)

## demo: run the demo against the bundled test server over stdio
demo: $(RUNTIME_STAMP)
	$(VENV_PYTHON) -m mcpsync demo

# Test-only peers from the npm registry (oidc-provider): installed when npm is there, else their tests skip.
NODE_DIR := tests/interop/node
NODE_STAMP := $(NODE_DIR)/node_modules/.installed

$(NODE_STAMP): $(NODE_DIR)/package.json $(NODE_DIR)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix $(NODE_DIR) --no-audit --no-fund --loglevel=error && touch $@; \
	else \
		echo "npm not found: the tests against oidc-provider will be skipped"; \
	fi

# The official conformance suite (client mode) with the Node 22 it needs, both from the npm registry.
CONFORMANCE_DIR := tests/conformance
CONFORMANCE_STAMP := $(CONFORMANCE_DIR)/node_modules/.installed

$(CONFORMANCE_STAMP): $(CONFORMANCE_DIR)/package.json $(CONFORMANCE_DIR)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix $(CONFORMANCE_DIR) --no-audit --no-fund --loglevel=error && touch $@; \
	else \
		echo "npm not found: the conformance suite will be skipped"; \
	fi

## test: run the whole test suite
test: $(TEST_STAMP) $(NODE_STAMP) $(CONFORMANCE_STAMP)
	$(VENV_PYTHON) -m pytest $(PYTEST_ARGS)

## conformance: the official MCP conformance suite (client mode), every scenario at every wire, one line per run
conformance: $(TEST_STAMP) $(CONFORMANCE_STAMP)
	$(VENV_PYTHON) $(CONFORMANCE_DIR)/run.py $(CONFORMANCE_ARGS)

## lint: ruff (rules and formatting), and the layer check (no lower layer imports a higher one)
lint: $(DEV_STAMP)
	$(VENV_PYTHON) -m ruff check mcpsync tests benchmarks
	$(VENV_PYTHON) -m ruff format --check mcpsync tests benchmarks
	$(VENV_PYTHON) -m pytest -q -p no:cacheprovider tests/test_layers.py

## typecheck: mypy (strict) on the package
typecheck: $(DEV_STAMP)
	$(VENV_PYTHON) -m mypy

## bench: mcpsync beside the official SDK and a raw client, in one run, with the targets (benchmarks/README.md)
bench: $(TEST_STAMP)
	$(VENV_PYTHON) benchmarks/run.py $(BENCH_ARGS)

## soak: mixed traffic with reconnects and cancellations; memory, threads and descriptors must stay flat
soak: $(TEST_STAMP)
	$(VENV_PYTHON) benchmarks/soak.py --seconds $(SOAK_SECONDS)

## clean: remove the virtualenv and build leftovers
clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache $(NODE_DIR)/node_modules $(CONFORMANCE_DIR)/node_modules
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
