# The two commands of the README are `make run` and `make test`; the rest are for developers.
PYTHON ?= python3

.PHONY: install install-tests run test test-load test-fast lint format bench

install:
	bash scripts/install.sh

install-tests:
	bash scripts/install.sh --tests

run: install
	$(PYTHON) app.py

test: install-tests
	$(PYTHON) -m pytest

# The suite beside one CPU hog per core: it must stay green on a busy machine.
test-load: install-tests
	$(PYTHON) scripts/under_load.py -- $(PYTHON) -m pytest

test-fast:
	$(PYTHON) -m pytest --fast

lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .

format:
	$(PYTHON) -m ruff format .
	$(PYTHON) -m ruff check --fix .

bench:
	$(PYTHON) bench/agent_overhead.py
	$(PYTHON) bench/executor.py
	$(PYTHON) bench/stop_latency.py
	$(PYTHON) bench/remote_executor.py
	$(PYTHON) bench/models.py
	$(PYTHON) bench/uploads.py
	$(PYTHON) bench/store.py
	$(PYTHON) bench/tracing.py
	$(PYTHON) bench/ui.py
	$(PYTHON) bench/ways_in.py
	$(PYTHON) bench/turn_cost.py
	$(PYTHON) bench/soak.py
	$(PYTHON) bench/service_costs.py
	$(PYTHON) bench/app_image.py
