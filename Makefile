# The two entry points of the README. Both install everything first; `make bench` rewrites docs/benchmarks.md.
.PHONY: setup demo test completions bench

# pytest-xdist workers for `make test`: one more than the cores of a 2-core machine, since much of
# the suite waits on brokers, timeouts and JVMs starting (tests/conftest.py hands out the work)
TEST_WORKERS ?= 3

setup:
	@scripts/setup.sh

demo: setup
	@.venv/bin/python scripts/demo.py

test: setup
	@.venv/bin/python scripts/fetch_kafka_clients.py >/dev/null  # the differential tests' jars, into .cache/
	@.venv/bin/ruff check --quiet .
	@.venv/bin/python -m mypy  # settings in pyproject.toml: strict on the core
	@.venv/bin/python -m pytest -q -n $(TEST_WORKERS) --no-loadscope-reorder

completions:
	@.venv/bin/python scripts/gen_completions.py

bench: setup
	@.venv/bin/python bench/startup_bench.py --readme
	@.venv/bin/python bench/offsets_bench.py --readme
	@.venv/bin/python bench/offsets_scale_bench.py --readme
	@.venv/bin/python bench/whatif_bench.py --readme
	@.venv/bin/python bench/log_bench.py --readme
	@.venv/bin/python bench/lag_bench.py --readme
	@.venv/bin/python bench/ends_bench.py --readme
	@.venv/bin/python bench/report_bench.py --readme
	@.venv/bin/python bench/scan_bench.py --readme
