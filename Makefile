# Croupier: every target does its own set-up on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test demo bench soak clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,analysis]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -p no:cacheprovider

demo: $(STAMP)
	$(VENV)/bin/croupier demo

bench: $(STAMP)
	$(PY) -m bench

soak: $(STAMP)
	$(PY) -m pytest -p no:cacheprovider -m soak tests

clean:
	rm -rf $(VENV) build *.egg-info
