# Two entry points for a newcomer: `make demo` runs the main job (JupyterLab), `make test` runs
# the tests.
# Each creates its own virtual environment (.venv) and installs what it needs.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test test-fast lint typecheck bench clean browser-deps client-deps hub-deps \
	labextension

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The lab extension's bundle is copied at install time (also by -e): reinstall when it changes.
$(VENV)/.installed-run: pyproject.toml labextension/prebuilt/build-sources.json | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml labextension/prebuilt/build-sources.json | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $@ $(VENV)/.installed-run

# The main job: JupyterLab with the cloudg extension and the demo estate, on loopback.
# `cloudg-nb demo` still tours the estate in the terminal without a server.
demo: $(VENV)/.installed-run
	$(BIN)/cloudg-nb lab

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .

# mypy over cloudg_nb/ and jupyter_server_ext/ (settings in pyproject.toml [tool.mypy]).
typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

# The browser tests drive Debian's headless Chromium through its chromedriver. As root with
# apt-get (CI), this installs both once; otherwise it says why it did not.
BROWSER_PACKAGES := chromium chromium-driver
browser-deps:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "browser-deps: not root, so not installing $(BROWSER_PACKAGES); the browser tests" \
	       "need them (sudo apt-get install $(BROWSER_PACKAGES))"; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
	  echo "browser-deps: no apt-get here; install Chromium and its chromedriver for the" \
	       "browser tests"; \
	else \
	  echo "browser-deps: apt-get install $(BROWSER_PACKAGES) (for the browser tests)"; \
	  export DEBIAN_FRONTEND=noninteractive; log=$$(mktemp); \
	  { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
	      $(BROWSER_PACKAGES); } >"$$log" 2>&1 || { cat "$$log"; rm -f "$$log"; exit 1; }; \
	  rm -f "$$log"; \
	fi

# The MCP client frameworks tests/clients/ connects to the Jupyter endpoint, at the versions
# the README's compatibility table names. Their mcp pins disagree with ours (and with each
# other: langchain-mcp-adapters wants mcp<2), so the Python ones live in venvs of their own,
# each rebuilt only when its requirements file changes; the npm ones come from package-lock.json.
CLIENTS := tests/clients
define client_venv
	rm -rf $(@D)
	$(PYTHON) -m venv $(@D)
	$(@D)/bin/python -m pip install --quiet --upgrade pip
	$(@D)/bin/pip install --quiet --requirement $<
	touch $@
endef

.venv-clients/.installed: $(CLIENTS)/python/requirements.txt
	$(client_venv)

.venv-clients-langchain/.installed: $(CLIENTS)/python/requirements-langchain.txt
	$(client_venv)

$(CLIENTS)/node/node_modules/.installed: $(CLIENTS)/node/package.json \
		$(CLIENTS)/node/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "client-deps: npm (Node.js 18 or later) is" \
	  "needed for the TypeScript SDK and mcp-remote tests; install Node.js"; exit 1; }
	cd $(CLIENTS)/node && npm ci --no-audit --no-fund --loglevel=error
	touch $@

client-deps: .venv-clients/.installed .venv-clients-langchain/.installed \
	$(CLIENTS)/node/node_modules/.installed

# JupyterHub's proxy (configurable-http-proxy, from npm at the version package-lock.json pins)
# for the real-hub tests in tests/hub/; JupyterHub itself comes with the test extra.
HUB := tests/hub/node
$(HUB)/node_modules/.installed: $(HUB)/package.json $(HUB)/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "hub-deps: npm (Node.js 18 or later) is" \
	  "needed for JupyterHub's proxy in the hub tests; install Node.js"; exit 1; }
	cd $(HUB) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

hub-deps: $(HUB)/node_modules/.installed

# The JupyterLab extension: rebuild the prebuilt bundle the wheel ships
# (labextension/prebuilt/, committed, so installing needs no Node) from its TypeScript sources
# in labextension/. Needs Node.js 20.19+ and npm; the same sources and package-lock.json give
# the same bytes (tests/clients/test_labextension_build.py checks it).
LABEXT := labextension
$(LABEXT)/node_modules/.installed: $(LABEXT)/package.json $(LABEXT)/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "labextension: npm (Node.js 20.19 or later) is" \
	  "needed to build the JupyterLab extension; install Node.js"; exit 1; }
	cd $(LABEXT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

labextension: $(LABEXT)/node_modules/.installed
	cd $(LABEXT) && npm run build

# The whole suite in TEST_WORKERS processes (pytest-xdist), each taking whole test modules, so
# a module's shared server stays in one process; TEST_WORKERS=0 runs it in this one.
TEST_WORKERS ?= 2
test: lint typecheck browser-deps client-deps hub-deps
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

# The fast lane: the in-process tests only, none that starts a Jupyter server, kernel, browser,
# MCP client framework or JupyterHub (their markers; tests/lanes.py). `make test` runs everything.
FAST_LANE := not server and not kernel and not browser and not clients and not hub
test-fast: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile -m "$(FAST_LANE)"

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/layer_overhead.py

clean:
	rm -rf $(VENV) .venv-clients .venv-clients-langchain $(CLIENTS)/node/node_modules \
	  $(HUB)/node_modules $(LABEXT)/node_modules $(LABEXT)/lib .pytest_cache .ruff_cache
