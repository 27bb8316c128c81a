"""kgroup scan --master spark://: a real standalone master and worker (started from the
pyspark package on 127.0.0.1), reading the live log from Tansu in the executors; the
same results as the independent computation (and so as local[*]).

The executors run a Python that has confluent-kafka and pyarrow but not kgroup (this
environment's packages without its .pth files, so not the editable install): the scan
works only because kgroup ships its own package to them, as the README says it does."""
from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import TEST_JVM_OPTIONS
from spark_env import build_scenario, spark_subprocess_env, standalone, write_to_broker  # noqa: F401
from integration.test_scan_spark import STORM, _strip_live, expected

pytestmark = [pytest.mark.spark, pytest.mark.broker]


# the executors' JVMs tuned as the test run's other Spark JVMs (tests/conftest.py);
# given as a user gives JVM options, which kgroup appends to its own
EXECUTOR_JAVA = f"spark.executor.extraJavaOptions={TEST_JVM_OPTIONS}"


def _python_without_kgroup(tmp_path):
    """An interpreter for the executors: this one, without site processing (-S: no .pth file,
    so no editable kgroup), its site-packages on PYTHONPATH (confluent-kafka, pyarrow, pyspark)."""
    import os
    import subprocess
    import sys
    import sysconfig

    site = sysconfig.get_paths()["purelib"]
    script = tmp_path / "python-without-kgroup"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{site}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" -S "$@"\n')
    script.chmod(0o755)
    probe = "import confluent_kafka, pyarrow\ntry:\n    import kgroup\nexcept ImportError:\n    print('no kgroup')\n"
    r = subprocess.run([str(script), "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert r.stdout == "no kgroup\n", r.stderr
    return script


def test_scan_on_a_standalone_cluster(standalone, tansu, tmp_path):  # noqa: F811
    import pyarrow.parquet as pq
    from conftest import run_kgroup_process  # Spark: a process of its own

    scenario = build_scenario(groups=300, partitions=6, seed=11)
    topic = f"scan-cluster-{uuid.uuid4().hex[:8]}"
    write_to_broker(scenario, tansu, topic)
    groups, coordinators, extra = expected(scenario, live_ends=scenario.produced)
    out = tmp_path / "out"
    executor_python = _python_without_kgroup(tmp_path)
    # both scans at once, a core each (the worker has two): the one that ships kgroup to the
    # executors, and the proof that they had it from the driver (without the shipped package they fail)
    common = ("scan", "-b", tansu, "--offsets-topic", topic, "--master", standalone,
              "--conf", "spark.executor.memory=1g", "--conf", "spark.cores.max=1", "--conf", EXECUTOR_JAVA)
    env = {**spark_subprocess_env(), "PYSPARK_PYTHON": str(executor_python)}
    with ThreadPoolExecutor(2) as pool:
        shipped = pool.submit(run_kgroup_process, *common, "-o", "json", "--out", str(out), "--stale-after", "1h",
                              "--storm", str(STORM), env=env, timeout=240)
        unshipped = pool.submit(run_kgroup_process, *common, "--conf", "spark.kgroup.shipPackage=false", "-o", "json",
                                env=env, timeout=240)
        res, without = shipped.result(), unshipped.result()
    # INCOMPLETE (exit 3, before the undecodable records' 1): the scenario's commits are older than
    # every record written now (the log ended at 0 then), so no point of a status window is known
    assert res.returncode == 3, res.stderr
    assert "could not be decoded" in res.stderr and "Traceback" not in res.stderr
    assert all(line.startswith("kgroup: ") for line in res.stderr.splitlines()), res.stderr
    doc = json.loads(res.stdout)
    # every committed topic exists: each lag is a fact (null only for a group with nothing committed);
    # what is unknown is the status of the groups said, and why
    assert doc["summary"]["incomplete"] is True and doc["summary"]["lag_unknown"]
    assert all(u["reason"].startswith("status: ") for u in doc["summary"]["lag_unknown"])
    from schemas import validate

    validate("scan", doc)
    assert doc["summary"]["master"] == standalone
    assert _strip_live(doc["groups"]) == _strip_live(groups)
    assert {g["group"]: g["lag"] for g in doc["groups"]} == {g["group"]: g["lag"] for g in groups}
    host, port = tansu.rsplit(":", 1)
    assert all(g["offsets_partition_leader"] == {"id": 111, "host": host, "port": int(port)} for g in doc["groups"])
    assert _strip_live(doc["coordinators"]) == coordinators
    assert [b["id"] for b in doc["brokers"]] == [111]
    assert doc["summary"]["undecodable"] == extra["undecodable"] == 2
    assert pq.read_table(out / "groups").num_rows == len(groups)
    assert pq.read_table(out / "coordinators").num_rows == len(coordinators)
    # a broker is a struct column (id, host, port) in the tables, as it is an object in the document
    written = {r["group"]: r["offsets_partition_leader"] for r in pq.read_table(out / "groups").to_pylist()}
    assert written == {g["group"]: g["offsets_partition_leader"] for g in doc["groups"]}
    assert {r["offsets_partition_leader"]["id"] for r in pq.read_table(out / "coordinators").to_pylist()} == {111}
    assert pq.read_table(out / "brokers").num_rows == 1
    assert pq.read_table(out / "commits").num_rows == extra["offset_records"]
    assert pq.read_table(out / "group_events").num_rows == extra["events"]
    res = without
    assert res.returncode == 3 and res.stdout == "", res.stderr
    assert "Traceback" not in res.stderr
    assert "kgroup: error: the Spark job failed: ModuleNotFoundError: No module named 'kgroup' (the executors' Python" \
        in res.stderr, res.stderr[-700:]
