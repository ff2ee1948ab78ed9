# Two entry points for a newcomer: `make demo` runs the main job (JupyterLab), `make test` runs
# the tests.
# Each creates its own virtual environment (.venv) and installs what it needs.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test lint typecheck bench clean browser-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
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

test: lint typecheck browser-deps
	$(BIN)/python -m pytest -q

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/layer_overhead.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
