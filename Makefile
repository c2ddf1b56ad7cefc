# The CI contract: `make demo` and `make test` work on a fresh machine with
# nothing but Python 3.9+ and make; each installs what it needs into .venv.

PYTHON ?= python3
VENV ?= .venv
VENV_PYTHON := $(VENV)/bin/python
PIP := $(VENV_PYTHON) -m pip --disable-pip-version-check --quiet
PYTEST_ARGS ?=
# Python may keep the bytecode of what it compiles (where the environment says not to, as on the
# development machine): pytest then keeps each test module it rewrote for its assertions in
# __pycache__, which saves every worker about 6 s of collection on every run after the first.
unexport PYTHONDONTWRITEBYTECODE
# The suite's workers (pytest-xdist): auto is one per core; 0 runs every test in this process.
TEST_WORKERS ?= auto
# make check's tests mostly wait (for timeouts, child processes, sockets): two workers a core unless
# TEST_WORKERS says otherwise (on 2 cores: 101 s with 2 workers, 85 s with 3, 82 s with 4).
CHECK_WORKERS ?= $(if $(filter auto,$(TEST_WORKERS)),$(shell n=$$(nproc 2>/dev/null || echo 1); echo $$((n * 2))),$(TEST_WORKERS))
BENCH_ARGS ?=
SOAK_SECONDS ?= 120
CONFORMANCE_ARGS ?=

# One stamp per set of extras; each is redone when the package metadata changes.
RUNTIME_STAMP := $(VENV)/.installed-runtime
TEST_STAMP := $(VENV)/.installed-test
DEV_STAMP := $(VENV)/.installed-dev
MUTATE_STAMP := $(VENV)/.installed-mutate
DIST_STAMP := $(VENV)/.installed-dist
MUTATE_MODULES ?=

.PHONY: install demo notebook test check conformance lint typecheck bench soak mutate dist clean

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

# The example notebook, run headless in a real Jupyter kernel (nbclient): mcpsync with its notebook
# extra and what runs a kernel, nothing else.
NOTEBOOK_STAMP := $(VENV)/.installed-notebook
NOTEBOOK_OUT ?= build/quickstart.executed.ipynb

$(NOTEBOOK_STAMP): setup.cfg setup.py pyproject.toml | $(VENV_PYTHON)
	$(PIP) install -e '.[notebook]' 'nbclient>=0.10' 'nbformat>=5.9' 'ipykernel>=6.29'
	touch $@ $(RUNTIME_STAMP)

## notebook: run examples/quickstart.ipynb top to bottom in a headless kernel; the executed copy goes to NOTEBOOK_OUT
notebook: $(NOTEBOOK_STAMP)
	mkdir -p $(dir $(NOTEBOOK_OUT))
	$(VENV_PYTHON) tests/notebook_runner.py execute examples/quickstart.ipynb $(NOTEBOOK_OUT)
	@echo "ran examples/quickstart.ipynb; its outputs are in $(NOTEBOOK_OUT)"

# Test-only peers from the npm registry, each folder installed by `npm ci` when npm is there (else
# the tests that need it skip, saying so): oidc-provider, server-everything and the MCP Apps example servers in tests/interop/node;
# the official conformance suite (client mode) with the Node 22 it needs in tests/conformance.
NODE_DIR := tests/interop/node
NODE_STAMP := $(NODE_DIR)/node_modules/.installed
CONFORMANCE_DIR := tests/conformance
CONFORMANCE_STAMP := $(CONFORMANCE_DIR)/node_modules/.installed

%/node_modules/.installed: %/package.json %/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix $* --no-audit --no-fund --loglevel=error && touch $@; \
	else \
		echo "npm not found: the tests that need $* will be skipped"; \
	fi

# The browser the MCP Apps tests drive (tests/edges/apps_browser, Playwright pointed at it): Debian's
# Chromium, installed with apt-get when it is missing and we can (root, apt-get there); otherwise we
# say why and the browser tests skip. Never fails the build.
CHROMIUM := /usr/bin/chromium

.PHONY: chromium
## chromium: install Debian's Chromium for the browser tests when it is missing (needs root and apt-get)
chromium:
	@if [ -x $(CHROMIUM) ]; then \
		:; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
		echo "no $(CHROMIUM) and no apt-get: the browser tests (tests/edges/apps_browser) will be skipped"; \
	elif [ "$$(id -u)" != 0 ]; then \
		echo "no $(CHROMIUM) and not root: the browser tests (tests/edges/apps_browser) will be skipped;" \
			"as root: apt-get install -y --no-install-recommends chromium"; \
	else \
		echo "installing Debian's Chromium for the browser tests (apt-get install chromium)"; \
		{ DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; } || \
			echo "apt-get could not install chromium: the browser tests (tests/edges/apps_browser) will be skipped"; \
	fi

## test: run the whole test suite, one worker per core (installs the test extra, the npm peers and Debian's Chromium first)
test: $(TEST_STAMP) $(NODE_STAMP) $(CONFORMANCE_STAMP) chromium
	$(VENV_PYTHON) -m pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

# The fast tier: no server we did not write, no browser, no kernel, nothing marked slow (setup.cfg's markers).
FAST_TIER := not (slow or peer or browser or kernel or long)

## check: the edit loop's tier: lint, then every test that needs no peer, browser or kernel and is not slow
check: lint
	$(VENV_PYTHON) -m pytest -n $(CHECK_WORKERS) -q -m "$(FAST_TIER)" $(PYTEST_ARGS)

## conformance: the official MCP conformance suite (client mode), every scenario at every wire, one line per run
conformance: $(TEST_STAMP) $(CONFORMANCE_STAMP)
	$(VENV_PYTHON) $(CONFORMANCE_DIR)/run.py $(CONFORMANCE_ARGS)

## lint: ruff (rules and formatting), the layer check (no lower layer imports a higher one, no import circle), every module named in docs/architecture.md and none over 650 lines
lint: $(DEV_STAMP)
	$(VENV_PYTHON) -m ruff check mcpsync tests benchmarks
	$(VENV_PYTHON) -m ruff format --check mcpsync tests benchmarks
	$(VENV_PYTHON) -m pytest -q -p no:cacheprovider tests/test_layers.py tests/test_architecture_doc.py

## typecheck: mypy (strict) on the package
typecheck: $(DEV_STAMP)
	$(VENV_PYTHON) -m mypy

## bench: mcpsync beside the official SDK and a raw client, in one run, with the targets (benchmarks/README.md)
bench: $(TEST_STAMP)
	$(VENV_PYTHON) benchmarks/run.py $(BENCH_ARGS)

## soak: mixed traffic with reconnects and cancellations; memory, threads and descriptors must stay flat
soak: $(TEST_STAMP)
	$(VENV_PYTHON) benchmarks/soak.py --seconds $(SOAK_SECONDS)

$(MUTATE_STAMP): setup.cfg setup.py pyproject.toml | $(VENV_PYTHON)
	$(PIP) install -e '.[test,mutate]'
	touch $@ $(TEST_STAMP) $(RUNTIME_STAMP)

## mutate: mutmut over the modules that carry the promises, each against its own tests (setup.cfg's [mutate]; MUTATE_MODULES=pending,timeouts to pick); survivors in build/mutate/*/survivors.txt
mutate: $(MUTATE_STAMP)
	MUTATE_MODULES=$(MUTATE_MODULES) $(VENV_PYTHON) tests/mutate_runner.py

$(DIST_STAMP): setup.cfg setup.py pyproject.toml | $(VENV_PYTHON)
	$(PIP) install -e '.[dist]'
	touch $@ $(RUNTIME_STAMP)

# mcpsync is on no package index: what installs it where there is no checkout is the wheel built here
# (pip install dist/mcpsync-*.whl). python -m build makes the sdist, then the wheel from the sdist (so
# the sdist holds all a build needs), each with pyproject.toml's build requirements in an environment of
# its own; twine check reads both as an index would (the README is the long description).
## dist: build the sdist and, from it, the wheel into dist/ (python -m build), then check both (twine check)
dist: $(DIST_STAMP)
	rm -rf dist
	$(VENV_PYTHON) -m build --outdir dist .
	$(VENV_PYTHON) -m twine check --strict dist/*

## clean: remove the virtualenv and build leftovers
clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache $(NODE_DIR)/node_modules $(CONFORMANCE_DIR)/node_modules
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
