"""kgroup scan keeps Spark behind the curtain, run as a user runs it (a subprocess, where its JVM
is what is checked): a clean scan, a bad --master, a broker killed during the scan and Ctrl-C at
many moments give the answer or one line (``kgroup:`` lines only on stderr), the documented exit
code, and no JVM left running once kgroup has exited. Saved logs out of order or repeated give the
clean log's report, and a group whose lag cannot be read makes the scan INCOMPLETE (the whole CLI
in this process, on the test run's Spark session). The saved-log corpus that never reaches
Spark is tests/cli/test_saved_logs.py."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from conftest import ROOT, run_kgroup, run_kgroup_process
from spark_env import spark, spark_subprocess_env  # noqa: F401

pytestmark = pytest.mark.spark

EXAMPLE = ROOT / "examples" / "offsets-log-g1.jsonl"
LINES = EXAMPLE.read_text().splitlines()


def _marker() -> tuple[str, str]:
    """A --conf that names this run's JVM on its command line, to find it."""
    m = f"spark.kgroup.testRun={uuid.uuid4().hex}"
    return m, m.split("=", 1)[1]


def _jvms(tag: str) -> list[str]:
    """The processes of the JVM a scan started (spark-submit, the launcher, the JVM it becomes),
    not kgroup's own, whose command line carries the same --conf."""
    pattern = f"(spark-submit|spark-class|SparkSubmit|org.apache.spark).*{tag}"
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()


def _no_jvm_left(tag: str) -> None:
    assert _jvms(tag) == [], "a JVM of the scan outlived kgroup"


def _only_kgroup_lines(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    assert all(line.startswith("kgroup: ") for line in lines), stderr
    return lines


def _scan(*args: str, tag_conf: str | None = None):
    extra = ("--conf", tag_conf) if tag_conf else ()
    return run_kgroup_process("scan", *args, *extra, env=spark_subprocess_env(), timeout=300)


def _document(stdout: str) -> dict:
    doc = json.loads(stdout)
    for key in ("source", "seconds", "spark_start_seconds"):
        doc["summary"].pop(key)
    return doc


def test_out_of_order_and_repeated_saved_logs_give_the_clean_report(spark, tmp_path):
    """The clean log in a process of its own (its JVM ends with it); the disordered ones through
    the whole CLI in this process, on the test run's session."""
    pa = pytest.importorskip("pyarrow")
    import base64

    import pyarrow.parquet as pq

    conf, tag = _marker()
    clean = _scan("--input", str(EXAMPLE), "-o", "json", tag_conf=conf)
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    _no_jvm_left(tag)
    expected = _document(clean.stdout)
    assert expected["summary"].pop("master") == "local[*]"
    # worked from the example by hand: G1's three generations, nine commits, deleted at the end
    g1 = expected["groups"][0]
    assert (g1["group"], g1["rebalance_count"], g1["commits"], g1["deleted"]) == ("G1", 3, 9, True)
    twice = tmp_path / "twice.jsonl"
    twice.write_text("\n".join(LINES + LINES) + "\n")
    records = [json.loads(line) for line in LINES]
    dataset = tmp_path / "dataset"
    dataset.mkdir()
    for name, recs in (("part-0.parquet", records[::-1]), ("part-1.parquet", records[3:9])):
        pq.write_table(pa.table({
            "partition": pa.array([r["partition"] for r in recs], pa.int32()),
            "offset": pa.array([r["offset"] for r in recs], pa.int64()),
            "timestamp": pa.array([r["timestamp"] for r in recs], pa.int64()),
            "key": pa.array([base64.b64decode(r["key"]) for r in recs], pa.binary()),
            "value": pa.array([None if r["value"] is None else base64.b64decode(r["value"]) for r in recs],
                              pa.binary())}), dataset / name)
    for path, repeated in ((twice, 15), (dataset, 6)):
        res = run_kgroup("scan", "--input", str(path), "-o", "json")
        assert res.returncode == 0, res.stderr
        doc = _document(res.stdout)
        assert doc["summary"].pop("master") == "local[2]"
        assert doc == expected
        assert _only_kgroup_lines(res.stderr) == [
            f"kgroup: warning: {path} is not in log order: its records are taken by (partition, offset)",
            f"kgroup: warning: {path} repeats {repeated} records byte for byte: each is counted once"]


def test_a_bad_master_is_one_line_naming_the_cause():
    conf, tag = _marker()
    res = _scan("--input", str(EXAMPLE), "--master", "bogus://x", tag_conf=conf)
    assert res.returncode == 2
    assert res.stderr == ("kgroup: error: --master bogus://x: Master must either be yarn or start with spark, "
                          "k8s, or local\n")
    assert res.stdout == ""
    _no_jvm_left(tag)


def _start_scan(args: list[str], conf: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "KGROUP_BOOTSTRAP_SERVERS"}
    env.update(spark_subprocess_env())
    return subprocess.Popen([sys.executable, "-m", "kgroup", "scan", *args, "--conf", conf], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _wait_for_jvm(tag: str, proc: subprocess.Popen, limit: float = 120) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        if _jvms(tag):
            return True
        time.sleep(0.05)
    return False


# moments: (seconds after start, or after the JVM process appears): before the JVM, as it starts,
# while the session is made (about 5 s with the tests' JVM options), early and late in the job
# (the whole scan ends about 13 s after the JVM appears on an idle 2-core machine, later when busy)
MOMENTS = [("start", 0.3), ("start", 1.0), ("jvm", 0.0), ("jvm", 1.5), ("jvm", 4.0), ("jvm", 7.0), ("jvm", 10.0)]


@pytest.mark.parametrize("after,delay", MOMENTS, ids=[f"{a}+{d}s" for a, d in MOMENTS])
def test_ctrl_c_at_any_moment_is_one_line_130_and_no_jvm_left(tmp_path, after, delay):
    twice = tmp_path / "twice.jsonl"
    twice.write_text("\n".join(LINES + LINES) + "\n")  # warnings first, as a real run may say
    conf, tag = _marker()
    proc = _start_scan(["--input", str(twice), "-o", "json"], conf)
    try:
        if after == "jvm":
            assert _wait_for_jvm(tag, proc), proc.communicate()
        time.sleep(delay)
        if proc.poll() is not None:
            pytest.skip("the scan ended before the moment to interrupt it")
        os.killpg(proc.pid, signal.SIGINT)  # as the terminal does: the whole foreground group
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert out == ""
    lines = _only_kgroup_lines(err)
    assert lines[-1] == "kgroup: interrupted" and all("warning" in line for line in lines[:-1]), err
    _no_jvm_left(tag)


def test_a_broker_killed_during_the_scan_is_one_line_exit_3_and_no_jvm_left():
    from brokers import start_tansu, stop_process
    from spark_env import build_scenario, write_to_broker

    broker, bootstrap = start_tansu()
    try:
        topic = f"scan-fault-{uuid.uuid4().hex[:8]}"
        write_to_broker(build_scenario(groups=200, partitions=4), bootstrap, topic)
        conf, tag = _marker()
        proc = _start_scan(["-b", bootstrap, "--offsets-topic", topic, "--timeout", "2", "-o", "json"], conf)
        try:
            assert _wait_for_jvm(tag, proc), proc.communicate()
            stop_process(broker)  # the plan is read; the executors have yet to read the log
            out, err = proc.communicate(timeout=240)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 3, err
        assert out == ""
        lines = _only_kgroup_lines(err)
        assert len(lines) == 1 and lines[0].startswith(f"kgroup: error: cannot reach the cluster at {bootstrap}"), err
        _no_jvm_left(tag)
    finally:
        stop_process(broker)


def test_a_group_whose_lag_cannot_be_read_makes_the_scan_incomplete(spark):
    """A group committing to a topic the cluster does not have: its lag is unknown, said (the
    groups and why), exit 3 as offsets does, and the JSON lists them. The whole CLI in this
    process, on the test run's session (the JVM of a scan that ends is checked above)."""
    from brokers import start_tansu, stop_process
    from spark_env import build_scenario, write_to_broker

    scenario = build_scenario(groups=120, partitions=2, seed=5)
    gone = sorted(scenario.data_topics)[0]
    del scenario.data_topics[gone]  # never created on the broker
    # worked from the records: the groups whose newest commit of some partition of `gone` has a value
    newest = {}
    for r in scenario.records:  # per partition in log order; a group lives in one partition
        if r.type in (0, 1) and r.raw_key is None and r.key["topic"] == gone:
            newest[(r.key["group"], r.key["partition"])] = r.value is not None
    unknown = sorted({g for (g, _), has_value in newest.items() if has_value})
    assert unknown
    broker, bootstrap = start_tansu()
    try:
        topic = f"scan-gone-{uuid.uuid4().hex[:8]}"
        write_to_broker(scenario, bootstrap, topic)
        res = run_kgroup("scan", "-b", bootstrap, "--offsets-topic", topic, "-o", "json")
    finally:
        stop_process(broker)
    assert res.returncode == 3, res.stderr  # INCOMPLETE wins over the undecodable records' 1
    lines = _only_kgroup_lines(res.stderr)
    named = "; ".join(f"{g} (topic {gone} does not exist)" for g in unknown[:5])
    assert f"kgroup: warning: INCOMPLETE: the lag of {len(unknown)} groups is unknown (shown as -): {named}" \
        in lines[-1]
    doc = json.loads(res.stdout)
    assert doc["summary"]["incomplete"] is True
    assert doc["summary"]["lag_unknown"] == [{"group": g, "reason": f"topic {gone} does not exist"} for g in unknown]
    assert {g["group"] for g in doc["groups"] if g["lag"] is None} >= set(unknown)
