# Croupier: every target does its own set-up on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
BROWSER_STAMP := $(VENV)/.chromium
POSTGRES_STAMP := $(VENV)/.postgresql
NFT_STAMP := $(VENV)/.nftables
AXE := node_modules/axe-core/axe.min.js
TSC := node_modules/typescript/bin/tsc

.PHONY: test demo bench soak clean compiled compiled-test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,analysis,web,floor]'
	touch $(STAMP)

# the browser tests' Chromium and the pages' fixed fonts (DejaVu, for the screenshots): Debian's
# packages, installed once when missing (as root, as in CI)
DEJAVU := /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
$(BROWSER_STAMP): $(STAMP)
	test -x $(CHROMIUM) || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }
	test -f $(DEJAVU) || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-dejavu-core; }
	test -x $(CHROMIUM) && test -f $(DEJAVU)
	touch $(BROWSER_STAMP)

# the floor's tests' PostgreSQL server: Debian's package, installed once when initdb is missing (as root, as in CI);
# the tests make a throw-away cluster in a temporary directory and stop it at the end
$(POSTGRES_STAMP): $(STAMP)
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; }
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null
	touch $(POSTGRES_STAMP)

# `croupier firewall`'s test loads its rules in a throw-away network namespace (tests/cli/test_cmd_firewall.py): Debian's
# nftables, installed once when nft is missing (as root, as in CI)
$(NFT_STAMP): $(STAMP)
	test -x /usr/sbin/nft || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nftables; }
	test -x /usr/sbin/nft
	touch $(NFT_STAMP)

# axe-core for the pages' accessibility checks (tests/web/test_accessibility.py): the npm registry's package,
# pinned by package-lock.json; Debian's npm installed once when missing (as root, as in CI)
$(AXE): package.json package-lock.json
	test -x /usr/bin/npm || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y npm; }
	npm ci --no-audit --no-fund
	test -f $(AXE) && touch $(AXE)

# typescript, whose tsc checks the pages' JavaScript (tests/web/test_pages_code.py): installed by the same `npm ci`
$(TSC): $(AXE)
	test -f $(TSC) || npm ci --no-audit --no-fund
	test -f $(TSC) && touch $(TSC)

# three workers on the 2 cores (most tests wait on processes, sockets and browsers: measured 529 s against 623 s
# with two, the cores ~87% busy), a test file to each in turn (a file's module fixtures, its PostgreSQL
# cluster or its tables, stay on one worker); --durations=30 names the slowest thirty in every CI log. The packages
# compiled first: the hundreds of processes the tests start (controllers, displays, demos) then read their bytecode
# rather than each compiling the sources again where PYTHONDONTWRITEBYTECODE is set, as on CI (0.50 -> 0.36 s a start)
PACKAGES := analysis bench cli drivers engine firmware_host floor pages protocol sim
# Then the test modules as pytest rewrites their asserts, written once to its cache beside them (two collections side
# by side, about half the tests' sources each): where PYTHONDONTWRITEBYTECODE is set (as on CI) each of the three
# workers rewrote every test module itself, 13 s of CPU a worker against 4 s with the cache; the two collections take
# 12 s of CPU in all (39.8 -> 23.8 s of CPU a run, measured one process at a time). A collection error is not
# stopped at here: the run after it reports it.
TESTS_A := tests/firmware_host tests/web
TESTS_B := tests --ignore=tests/firmware_host --ignore=tests/web
test: $(STAMP) $(BROWSER_STAMP) $(POSTGRES_STAMP) $(NFT_STAMP) $(AXE) $(TSC)
	$(PY) -m compileall -q -j 2 $(PACKAGES) > /dev/null
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -p no:cacheprovider --collect-only -q $(TESTS_A) > /dev/null & \
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -p no:cacheprovider --collect-only -q $(TESTS_B) > /dev/null; wait
	$(PY) -m pytest -p no:cacheprovider -n 3 --dist loadfile --no-loadscope-reorder --durations=30

demo: $(STAMP)
	$(VENV)/bin/croupier demo

# the bench's speed peers (treys, eval7) beside the rest: the `bench` extra, installed once; and the `fast`
# extra's TOML reader, whose whole-file PHH replay the bench measures beside tomllib's
BENCH_STAMP := $(VENV)/.bench
$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install -q -e '.[bench,fast]'
	touch $(BENCH_STAMP)

# engine/ compiled by mypyc (the dev extra's mypy), an optional accelerator over the same source: built into
# build/compiled, never into engine/; only a process that puts it first on its path runs it (PYTHONPATH=build/compiled,
# the bench's PHH run, compiled-test). Needs a C compiler and the Python headers; one C file of ~390,000 lines: 2 min 7 s
# of CPU here, 4-5 min at load 5 (docs/architecture.md)
COMPILED := build/compiled/.built
$(COMPILED): $(STAMP) tools/compile_engine.py $(shell find engine -name '*.py' -o -name '*.toml')
	$(PY) tools/compile_engine.py build/compiled
	touch $(COMPILED)
compiled: $(COMPILED)

# The engine's and the controller's suites against the compiled engine, as the Pi runs it: its tree first on the path
# of the tests' processes (pytest's pythonpath, ahead of the root its conftest puts first) and of every process they
# start (PYTHONSAFEPATH: the working directory, which holds the pure engine/, not on it); the doctests skip (mypyc's functions carry none); tests/engine/test_compiled.py compares both
# forms' outcomes (`make test` runs that one too). Not part of `make test` (its 10 minutes): about 6 minutes more.
compiled-test: $(COMPILED) $(POSTGRES_STAMP)
	PYTHONSAFEPATH=1 PYTHONPATH="$(CURDIR)/build/compiled:$(CURDIR)" $(PY) -m pytest -p no:cacheprovider -n 3 \
		-o pythonpath="build/compiled ." --dist loadfile tests/engine tests/firmware_host tests/cli tests/harness tests/sim tests/fuzz tests/floor

bench: $(STAMP) $(BENCH_STAMP) $(COMPILED)
	$(PY) -m bench

soak: $(STAMP)
	$(PY) -m pytest -p no:cacheprovider -m soak tests

clean:
	rm -rf $(VENV) build *.egg-info node_modules
