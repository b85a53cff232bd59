# jobharbor: `make demo` runs the whole path offline; `make test` runs the suite.
# Every target installs what it needs into .venv first.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DATA   := .data
# bench/serving.py size under `make bench` (a few minutes); the serving targets are
# stated at 1,000,000 rows: `make bench SERVING_ROWS=1000000` (about 15 minutes).
SERVING_ROWS ?= 200000
# `make demo SERVING=separate`: the serving database in a second private cluster
# (.data/pg-serving) instead of beside the pipeline's (JOBHARBOR_SERVING_CLUSTER).
SERVING ?= shared
# pytest-xdist workers for `make test`, each with its own PostgreSQL cluster and sandbox.
# More workers than the machine's 2 cores, measured: many tests wait on sockets (the suite
# uses 109-119% of the two cores). Six were no better on this machine: 690, 877 and 946 s
# of pytest against 802 and 808 s on four.
TEST_WORKERS ?= 4
# `make up` / `make up-check` executor: local (LocalExecutor) or celery (Redis and Celery
# workers by lane; docs/operations.md#the-celery-executor-on-this-machine).
EXECUTOR ?= local

.DEFAULT_GOAL := help
.PHONY: help install demo test test-serving-separate test-fast lint format messages bench freshness chaos screenshots up up-check down clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[airflow,dev]"
	touch $(STAMP)

install: $(STAMP) ## create .venv and install jobharbor with Airflow and dev tools

demo: install ## run discover -> fetch -> parse -> sync on the embedded default against the sandbox (SERVING=separate: serving in its own cluster)
	JOBHARBOR_SERVING_CLUSTER=$(SERVING) $(BIN)/jobharbor demo

test: install ## the whole suite (real PostgreSQL, sandbox, S3 server, Airflow, Chromium) on parallel workers; prints the slowest 20
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=20

test-serving-separate: install ## tests/serving with the authoritative database on a second cluster (serving on its own server)
	$(BIN)/python -m pytest tests/serving --serving-cluster=separate -n $(TEST_WORKERS) --dist loadgroup --durations=10

test-fast: install ## the tests that need no PostgreSQL, sandbox, Airflow or browser (under a minute)
	$(BIN)/python -m pytest --fast -n 2

lint: install ## ruff lint and format check; mypy on the phases and the crawl engine
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy pipeline/phases pipeline/crawl

format: install ## apply ruff formatting and safe fixes
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

messages: install ## extract the web app's strings into web/locale/messages.pot and merge them into each language's .po
	$(BIN)/pybabel extract -F babel.cfg --no-location --sort-output --project jobharbor \
		--copyright-holder "the jobharbor authors" -o web/locale/messages.pot .
	$(BIN)/pybabel update -i web/locale/messages.pot -d web/locale --width 100 --ignore-pot-creation-date

bench: install ## run the benchmarks; each prints its figures and ends with one JSON line
	@set -e; for script in bench/*.py; do \
		case $$script in */_*) continue;; esac; \
		args=; case $$script in */serving.py) args="--rows $(SERVING_ROWS)";; esac; \
		echo "== $$script $$args"; $(BIN)/python $$script $$args; done

freshness: install ## the full freshness simulation: 10,000 boards x 7 days per policy, plot in docs/
	$(BIN)/python bench/freshness.py --boards 10000 --days 7 --plot docs/freshness.png

chaos: install ## the fault suite, long form (~1 h at 200 boards x 20 cycles): SSRF, bad input, fuzzing, crash drills, chaos run; one JSON line
	$(BIN)/python -m chaos

screenshots: install ## every web page on a phone and a desktop, axe-checked, into docs/screenshots/web
	mkdir -p docs/screenshots/web
	JOBHARBOR_SCREENSHOTS=$(CURDIR)/docs/screenshots/web $(BIN)/python -m pytest -q -p no:randomly tests/web/test_accessibility.py -k axe_clean

up: install ## start Airflow (API server, scheduler, DAG processor, triggerer; UI on http://127.0.0.1:8080) with the sandbox sources; EXECUTOR=celery adds Redis and Celery workers
	PATH="$(CURDIR)/$(BIN):$$PATH" JOBHARBOR_AIRFLOW_EXECUTOR=$(EXECUTOR) bash scripts/airflow-up.sh

up-check: install ## start Airflow like `make up`, check its listeners and locks, drive it in headless Chromium, keep screenshots; EXECUTOR=celery: the run across workers, one killed
	PATH="$(CURDIR)/$(BIN):$$PATH" JOBHARBOR_AIRFLOW_EXECUTOR=$(EXECUTOR) $(BIN)/python scripts/up_check.py

down: ## stop what `make demo` / `make up` started (Airflow, its Celery workers and Redis, sandbox, embedded PostgreSQL)
	-@[ -x scripts/airflow-down.sh ] && bash scripts/airflow-down.sh
	-@[ -x $(BIN)/python ] && $(BIN)/python -c "from pathlib import Path; from sandbox.daemon import stop_sandbox; print('sandbox stopped' if stop_sandbox(Path('$(DATA)')) else 'sandbox was not running')"
	-@[ -x $(BIN)/jobharbor ] && $(BIN)/jobharbor db stop

clean: down ## remove .venv and .data (all local data!)
	rm -rf $(VENV) $(DATA)
