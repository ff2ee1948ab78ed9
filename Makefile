# Two entry points for a newcomer: `make demo` runs the main job, `make test` runs the tests.
# Each creates its own virtual environment (.venv) and installs what it needs.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $@ $(VENV)/.installed-run

demo: $(VENV)/.installed-run
	$(BIN)/cloudg-nb demo

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .

test: lint
	$(BIN)/python -m pytest -q

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/layer_overhead.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
