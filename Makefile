# mille-sabords: every target sets itself up on a fresh machine (creates .venv, installs).
# `make help` lists the targets from their `## ` comments.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
# One stamp per set of extras: reinstall only when pyproject.toml changes.
STAMP_RUN  := $(VENV)/.stamp-run
STAMP_TEST := $(VENV)/.stamp-test
STAMP_DEV  := $(VENV)/.stamp-dev
STAMP_REPORT := $(VENV)/.stamp-report

# `make serve HOST=0.0.0.0` lets phones on the same network open the page.
HOST ?= 127.0.0.1
PORT ?= 8000

.DEFAULT_GOAL := help
.PHONY: help run test test-fast lint tables tables-3p tables-4p tables-5p tables-play near-optimal bench report profiles serve

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  make %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(PY):
	$(PYTHON) -m venv $(VENV)

# The install also compiles the game's numba kernel into the user's cache (once per machine and
# numba version, about 10 s): a small game solve runs every compiled function. And the package's
# bytecode: where the environment forbids writing it (PYTHONDONTWRITEBYTECODE, as on this
# machine) every command would compile its modules again at each start (70 ms of `sabords solve
# --all`'s 0.8 s); an edited module's stale bytecode is ignored by Python, never used.
WARM_UP := from solver.game import solve_game; from solver.rules import Rules; \
	solve_game(Rules(target=1000))

$(STAMP_RUN): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	$(PY) -m compileall -q solver
	$(PY) -c "$(WARM_UP)"
	@touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	$(PY) -m compileall -q solver
	@touch $@ $(STAMP_RUN)

$(STAMP_DEV): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,dev]'
	$(PY) -m compileall -q solver
	@touch $@ $(STAMP_TEST) $(STAMP_RUN)

run: tables ## the main job: (re)build the default policy tables, then print `sabords ev`
	$(BIN)/sabords ev

tables: $(STAMP_RUN) ## solve the 12 cards and the two-player game (default rules) into tables/, bit for bit
	$(BIN)/sabords solve --all --out tables/
	$(BIN)/sabords solve-game --out tables/

# (after the run's install: its bytecode and the numba kernel's warm-up too)
$(STAMP_REPORT): $(STAMP_RUN) pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[report]'
	@touch $@

tables-3p: $(STAMP_RUN) ## solve the three-player game (default rules) into tables/ on Dask (about 40 minutes on 2 cores)
	$(BIN)/sabords solve-game --players 3 --out tables/

# Four and five players are played near-optimally on the exact tables of two and three
# (docs/playing-to-win.md). `make near-optimal` measures that play against exact tables solved
# here into the cache (where `sabords` finds them for --variant target=N): every seat's chance
# and the moves' loss (every state's evaluation) of four players at 2000 (its table took 1 h 29
# min to 2 h 48 min to solve on 2 cores, the measure 46 min), at MOVES_4P and at PLAY_TARGET
# (the method's final turns too), five players' chances at 1000 (a sample) and their chances
# and moves at PLAY_TARGET, three players from the pairs alone at the default target (the
# committed table), and whole games of four and five at the default target.
TARGET_4P ?= 2000
TARGET_5P ?= 1000
PLAY_TARGET ?= 500
# Four players at 1000: every state too (its table 337 s, the measure 134 s).
MOVES_4P ?= 1000

tables-4p: $(STAMP_RUN) ## solve four players exactly at target 2000 (TARGET_4P=N), and two and three there, into the cache
	$(BIN)/sabords solve-game --players 2 --variant target=$(TARGET_4P)
	$(BIN)/sabords solve-game --players 3 --variant target=$(TARGET_4P)
	$(BIN)/sabords solve-game --players 4 --variant target=$(TARGET_4P)

tables-5p: $(STAMP_RUN) ## solve five players exactly at target 1000 (TARGET_5P=N), and two and three there, into the cache
	$(BIN)/sabords solve-game --players 2 --variant target=$(TARGET_5P)
	$(BIN)/sabords solve-game --players 3 --variant target=$(TARGET_5P)
	$(BIN)/sabords solve-game --players 5 --variant target=$(TARGET_5P)

tables-play: $(STAMP_RUN) ## solve two to five players exactly at target 500 (PLAY_TARGET=N), into the cache
	for n in 2 3 4 5; do $(BIN)/sabords solve-game --players $$n --variant target=$(PLAY_TARGET) || exit 1; done

# Five players' final round costs the most (its first phase, four final turns to race, took
# 358 s for 3,000 states at 500): at 1000 and 500 every state of normal play and sudden death
# and 3,000 of each final phase, the moves' loss too (691 s at 500).
# Whole games, 20,000 a state: four players' in one run (2500 s on 2 cores, the largest
# process 4.3 GB); five players' about 6.4 h, so in chunks of 1,000 games, each stored as it
# ends: the run resumes from the chunks stored (--resume: those of the same states, seeds,
# chances shown and play) and can be stopped and run again. Where the method changed since, the
# stored games would be lost: refused, unless `make near-optimal REPLACE=1`.
near-optimal: tables-4p tables-5p tables-play ## measure near-optimal play into tables/near-optimal.json (solves every exact table it measures against first, again: hours on 2 cores; `make -n near-optimal` lists every step)
	$(PY) scripts/measure_reduced.py exact --players 4 --variant target=$(TARGET_4P) --write
	$(PY) scripts/measure_reduced.py exact --players 5 --variant target=$(TARGET_5P) --final-sample 3000 --jobs 2 --write
	$(PY) scripts/measure_reduced.py exact --players 4 --variant target=$(PLAY_TARGET) --final-play --write
	$(MAKE) tables-4p TARGET_4P=$(MOVES_4P)
	$(PY) scripts/measure_reduced.py exact --players 4 --variant target=$(MOVES_4P) --final-sample 5000 --write
	$(PY) scripts/measure_reduced.py exact --players 5 --variant target=$(PLAY_TARGET) --final-sample 3000 --write
	$(PY) scripts/measure_reduced.py down --write
	$(PY) scripts/measure_reduced.py games --players 4 --games 20000 --jobs 2 --write
	$(PY) scripts/measure_reduced.py games --players 5 --games 20000 --chunk 1000 --resume --jobs 2 --write $(if $(REPLACE),--replace)

# The report reads the edge of playing to win of three players from tables/profiles.json
# (`make profiles`, about 20 minutes on 2 cores, from the committed three-player table) and
# computes the rest, about 90 seconds.
report: $(STAMP_REPORT) ## write docs/strategy.md and its plots (installs matplotlib)
	$(PY) scripts/report.py

profiles: $(STAMP_RUN) ## the edge of playing to win of three players, from the committed table, into tables/profiles.json
	$(PY) scripts/profiles.py

bench: $(STAMP_REPORT) ## speed and memory figures of this machine (scripts/bench.py; installs matplotlib for the report's figure)
	$(PY) scripts/bench.py

serve: $(STAMP_RUN) ## the advisor in a browser: http://127.0.0.1:8000/ (HOST=0.0.0.0 for phones)
	$(BIN)/sabords serve --host $(HOST) --port $(PORT)

# `make test` runs the tests in a process per core (pytest-xdist, at most 4; none where there
# is one core): each process keeps its own tables' cache, numba's compiled kernel is shared.
# TEST_JOBS=0 runs them in this process. A process that is done takes tests from another's
# share (--dist worksteal): the browser's long games no longer end the run alone (5 min 57 s
# against 6 min 9 s with fixed shares, on 2 cores).
TEST_JOBS ?= $(shell $(PY) -c "from solver.limits import cores; c = min(cores(), 4); \
	print(c if c > 1 else 0)")

test: $(STAMP_TEST) ## run the test suite (in a process per core)
	$(PY) -m pytest -n $(TEST_JOBS) --dist worksteal

# What a developer runs after each change (under a minute on 2 cores): the rules, the engine,
# the advice and the tables on small games; `make test` runs everything.
FAST := tests/test_scoring.py tests/test_moves.py tests/test_notation.py \
	tests/test_rules_examples.py tests/test_variants.py tests/test_advisor.py \
	tests/test_ranking.py tests/test_engine_invariants.py tests/test_engine_bruteforce.py \
	tests/test_engine_reference.py tests/test_kernel.py tests/test_properties.py \
	tests/test_turn.py tests/test_tables.py tests/test_quick.py tests/test_imports.py \
	tests/test_exact.py tests/test_simulate.py

test-fast: $(STAMP_TEST) ## the quick tier of the tests: rules, engine, advice, tables
	$(PY) -m pytest -q -m "not slow" $(FAST)

lint: $(STAMP_DEV) ## ruff (lint) and mypy (types)
	$(BIN)/ruff check .
	$(BIN)/mypy
