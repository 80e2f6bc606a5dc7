# Every target bootstraps .venv itself, so a fresh machine needs only Python >= 3.11.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench calibrate lint clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "logagent needs Python >= 3.11 (found %s)" % sys.version.split()[0])'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@$(BIN)/python -m compileall -q logagent >/dev/null  # start-up: bytecode even if PYTHONDONTWRITEBYTECODE
	@$(BIN)/python -m logagent.cli.codecache analyze sample_logs/nginx_access.log --llm off --json --quiet >/dev/null  # and the classes' compiled code (logagent/cli/codecache.py)
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/logagent analyze sample_logs/nginx_access.log
	$(BIN)/python benchmarks/demo.py

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	@$(BIN)/python -m compileall -q logagent >/dev/null
	@$(BIN)/python -m logagent.cli.codecache analyze sample_logs/nginx_access.log --llm off --json --quiet >/dev/null
	$(BIN)/python benchmarks/bench.py $(BENCH_ARGS)
	$(BIN)/python benchmarks/window_bench.py $(WINDOW_BENCH_ARGS)
	$(BIN)/python benchmarks/timeline_bench.py $(TIMELINE_BENCH_ARGS)
	$(BIN)/python benchmarks/service_bench.py --big benchmarks/data/dominant_1000mb_s1.log $(SERVICE_BENCH_ARGS)
	$(BIN)/python benchmarks/cron_bench.py $(CRON_BENCH_ARGS)
	$(BIN)/python benchmarks/dask_bench.py $(DASK_BENCH_ARGS)

calibrate: $(STAMP)
	$(BIN)/python benchmarks/calibrate.py $(CALIBRATE_ARGS)
	$(BIN)/python benchmarks/calibrate.py --top 5 --adaptive --scenarios dominant close \
		late_incident --naive none --timeline-runs 0 $(CALIBRATE_TOP5_ARGS)
	$(BIN)/python benchmarks/calibrate_healthy.py $(CALIBRATE_HEALTHY_ARGS)
	$(BIN)/python benchmarks/calibrate_dask.py $(CALIBRATE_DASK_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check logagent tests benchmarks
	$(BIN)/ruff format --check logagent tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .cache
