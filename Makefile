# Two commands for a newcomer: `make run` and `make test`. Everything else is optional.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SAMPLES := samples/handbook

.PHONY: run test check lock install install-test train readings index chat serve eval eval-holdout eval-routing eval-solbit eval-solbit-holdout bench load teams-package clean

# A venv keeps the Python it was made with: when PYTHON is given and names another (`make run PYTHON=python3.11`
# after a first run with python3.10), or the venv's Python no longer runs, the venv is rebuilt, and said so,
# instead of failing the same way until `make clean`. The default python3 never replaces a venv made by a Python
# someone chose. An interpreter is its version and installation (a venv's python reports its base's).
PYTHON_ID = import sys; print("Python", sys.version.split()[0], "from", sys.base_prefix)
VENV_BROKEN := a Python that no longer runs
VENV_PYTHON := $(shell { [ -e $(BIN)/python ] || [ -L $(BIN)/python ]; } && { $(BIN)/python -c '$(PYTHON_ID)' 2>/dev/null || echo "$(VENV_BROKEN)"; })
ifneq ($(VENV_PYTHON),)
ifeq ($(VENV_PYTHON),$(VENV_BROKEN))
WANT_PYTHON := $(shell $(PYTHON) -c '$(PYTHON_ID)' 2>/dev/null)
else ifneq ($(filter default file,$(origin PYTHON)),)
WANT_PYTHON := $(VENV_PYTHON)
else
WANT_PYTHON := $(shell $(PYTHON) -c '$(PYTHON_ID)' 2>/dev/null)
endif
ifeq ($(WANT_PYTHON),)
$(warning PYTHON=$(PYTHON) does not run here; $(VENV) stays as it is ($(VENV_PYTHON)))
else ifneq ($(VENV_PYTHON),$(WANT_PYTHON))
$(BIN)/python $(VENV)/.installed $(VENV)/.installed-test: venv-python-changed
endif
endif

.PHONY: venv-python-changed
venv-python-changed:
	@echo "$(VENV) was made with $(VENV_PYTHON), but PYTHON=$(PYTHON) is $(WANT_PYTHON): rebuilding it"
	rm -rf $(VENV)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# requirements.lock pins every dependency (constraints: the versions CI and a fresh machine get).
$(VENV)/.installed: pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml requirements.lock | $(BIN)/python
	$(BIN)/pip install --quiet -c requirements.lock -e ".[test]"
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

install-test: $(VENV)/.installed-test

## run: install, index your configured sources (the bundled handbook when none is configured), then start
## (console chat unless Slack/Teams is configured); `docbot index` says which sources it read
run: install
	$(BIN)/docbot index
	$(BIN)/docbot run

## test: install test dependencies and run the whole suite
test: install-test
	$(BIN)/python -m pytest -q

## lock: re-pin requirements.lock after changing dependencies in pyproject.toml
lock: | $(BIN)/python
	$(BIN)/pip install --quiet pip-tools
	$(BIN)/pip-compile --quiet --extra test --strip-extras --no-emit-index-url --no-emit-find-links \
		-o requirements.lock pyproject.toml

## check: lint (ruff), the layering contract (import-linter) and types (mypy)
check: install-test
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy

index: install
	$(BIN)/docbot index

chat: install
	$(BIN)/docbot chat

serve: install
	$(BIN)/docbot serve

## eval: replay the dev sets against the bundled handbook (tuned on); eval-holdout: the frozen holdout sets
DEV_SETS := eval/conversations-dev.jsonl eval/intents-dev.jsonl eval/unanswerable-dev.jsonl eval/dev.jsonl
HOLDOUT_SETS := eval/conversations-holdout.jsonl eval/intents-holdout.jsonl eval/unanswerable-holdout.jsonl eval/holdout.jsonl
eval: install
	$(BIN)/docbot eval $(DEV_SETS) --docs $(SAMPLES) --json eval/report.json

eval-holdout: install
	$(BIN)/docbot eval $(HOLDOUT_SETS) --docs $(SAMPLES) --json eval/report-holdout.json

## eval-routing: routing rows only (issue 24 item 6: requests and thanks behind a chatty prefix, live state now,
## past mistakes, arithmetic, reactions, and document questions that look like them); tuned on
eval-routing: install
	$(BIN)/docbot eval eval/routing-dev.jsonl eval/routing-dev2.jsonl eval/routing-dev3.jsonl eval/routing-dev4.jsonl --docs $(SAMPLES) --json eval/report-routing.json

## eval-solbit: the Solbit corpus (HTML wiki exports, PDFs, Office files, Korean/English) dev set; -holdout: frozen
SOLBIT := eval/solbit
eval-solbit: install
	$(BIN)/docbot eval $(SOLBIT)/dev.jsonl --docs $(SOLBIT)/docs --json eval/report-solbit.json

eval-solbit-holdout: install
	$(BIN)/docbot eval $(SOLBIT)/holdout.jsonl --docs $(SOLBIT)/docs --json eval/report-solbit-holdout.json

## train: fit the reader model on the stored readings (eval/reader/) -> rag/answer/data/reader.json, docs/reader-model.md
train: install-test
	$(BIN)/python scripts/train_reader.py

## readings: replay every evaluation corpus and store each read line's features and label (slow; then make train)
readings: install-test
	$(BIN)/python scripts/collect_readings.py

## bench: docbot's own benchmarks (beside its peers at their best: scripts/bench_peers.py, after pip install -e ".[bench]")
bench: install
	$(BIN)/python scripts/bench_retrieval.py --chunks 1000 10000 100000
	$(BIN)/python scripts/bench_embedding.py
	$(BIN)/python scripts/bench_startup.py
	$(BIN)/python scripts/bench_reindex.py
	$(BIN)/python scripts/bench_backends.py

## load: 50 concurrent Slack threads against a real `docbot serve` on loopback
load: install-test
	$(BIN)/python scripts/load_test.py --users 10 --threads 5 --turns 3

## teams-package: build/docbot-teams.zip for Teams (needs MICROSOFT_APP_ID)
teams-package: install
	$(BIN)/python scripts/build_teams_package.py

clean:
	rm -rf $(VENV) data .pytest_cache
