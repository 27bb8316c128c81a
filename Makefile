# The two entry points of the README. Both install everything first; `make bench` rewrites docs/benchmarks.md.
.PHONY: setup demo test completions bench

setup:
	@scripts/setup.sh

demo: setup
	@.venv/bin/python scripts/demo.py

test: setup
	@.venv/bin/python scripts/fetch_kafka_clients.py >/dev/null  # the differential tests' jars, into .cache/
	@.venv/bin/ruff check --quiet .
	@.venv/bin/python -m mypy  # settings in pyproject.toml: strict on the core
	@.venv/bin/python -m pytest -q

completions:
	@.venv/bin/python scripts/gen_completions.py

bench: setup
	@.venv/bin/python bench/startup_bench.py --readme
	@.venv/bin/python bench/offsets_bench.py --readme
	@.venv/bin/python bench/offsets_scale_bench.py --readme
	@.venv/bin/python bench/whatif_bench.py --readme
	@.venv/bin/python bench/log_bench.py --readme
	@.venv/bin/python bench/lag_bench.py --readme
	@.venv/bin/python bench/report_bench.py --readme
	@.venv/bin/python bench/scan_bench.py --readme
