"""kgroup scan keeps Spark behind the curtain, run as a user runs it (a subprocess, where its JVM
is what is checked): a clean scan, a bad --master, a broker killed during the scan and Ctrl-C at
many moments give the answer or one line (``kgroup:`` lines only on stderr), the documented exit
code, and no JVM left running (nor a file of it left in a temp folder) once kgroup has exited. Saved logs out of order or repeated, and a
group whose lag cannot be read: tests/integration/test_scan_in_process.py. The saved-log corpus that never reaches
Spark is tests/cli/test_saved_logs.py."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import ROOT, run_kgroup_process
from spark_env import spark_subprocess_env

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


def _temp_env(tmp: Path) -> dict:
    """A temp folder of the run's own, for Python (TMPDIR) and for the JVM (JAVA_TOOL_OPTIONS,
    which every JVM reads and a -Djava.io.tmpdir on its command line overrides): what Spark's
    JVM would leave in the system's temp folder is left here, to be seen."""
    (tmp / "temp").mkdir(exist_ok=True)
    return {"TMPDIR": str(tmp / "temp"), "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={tmp / 'temp'}"}


def _nothing_left(tag: str, tmp: Path) -> None:
    assert _jvms(tag) == [], "a JVM of the scan outlived kgroup"
    # the quiet log configuration is kept on purpose (written once, read by every scan)
    left = sorted(p.name for p in (tmp / "temp").iterdir() if not p.name.startswith("kgroup-log4j2-"))
    assert left == [], "files of the scan left in the temp folder"


def _only_kgroup_lines(stderr: str) -> list[str]:
    lines = stderr.splitlines()
    assert all(line.startswith("kgroup: ") for line in lines), stderr
    return lines


def _scan(tmp: Path, *args: str, tag_conf: str | None = None):
    extra = ("--conf", tag_conf) if tag_conf else ()
    return run_kgroup_process("scan", *args, *extra, env={**spark_subprocess_env(), **_temp_env(tmp)}, timeout=300)


def _document(stdout: str) -> dict:
    doc = json.loads(stdout)
    for key in ("source", "seconds", "spark_start_seconds"):
        doc["summary"].pop(key)
    return doc


def test_a_clean_scan_answers_and_leaves_no_jvm(tmp_path):
    """With Spark's scratch folder chosen by the user (the JVM is let end by itself, and Spark
    removes what it made there); the scans of the other tests leave it to kgroup."""
    conf, tag = _marker()
    local = tmp_path / "local"
    local.mkdir()
    clean = _scan(tmp_path, "--input", str(EXAMPLE), "-o", "json", "--conf", f"spark.local.dir={local}", tag_conf=conf)
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    _nothing_left(tag, tmp_path)
    assert list(local.iterdir()) == []
    doc = _document(clean.stdout)
    assert doc["summary"]["master"] == "local[*]"
    # worked from the example by hand: G1's three generations, nine commits, deleted at the end
    g1 = doc["groups"][0]
    assert (g1["group"], g1["rebalance_count"], g1["commits"], g1["deleted"]) == ("G1", 3, 9, True)


def test_a_bad_master_is_one_line_naming_the_cause(tmp_path):
    conf, tag = _marker()
    res = _scan(tmp_path, "--input", str(EXAMPLE), "--master", "bogus://x", tag_conf=conf)
    assert res.returncode == 2
    assert res.stderr == ("kgroup: error: --master bogus://x: Master must either be yarn or start with spark, "
                          "k8s, or local\n")
    assert res.stdout == ""
    _nothing_left(tag, tmp_path)


def _start_scan(args: list[str], conf: str, tmp: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "KGROUP_BOOTSTRAP_SERVERS"}
    env.update(spark_subprocess_env())
    env.update(_temp_env(tmp))
    return subprocess.Popen([sys.executable, "-m", "kgroup", "scan", *args, "--conf", conf], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _children(parents: set[str], marker: bytes) -> list[str]:
    """Processes of ``parents`` whose command line holds ``marker`` (read from /proc: cheaper
    than a pgrep at every look)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_bytes()
            if stat.rsplit(b")", 1)[1].split()[1].decode() in parents and \
                    marker in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except (OSError, IndexError):  # ended meanwhile
            continue
    return found


def _wait_until(present, proc: subprocess.Popen, limit: float = 120) -> bool:
    """Until ``present()`` holds (True), the scan has ended or ``limit`` has passed (False)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        if present():
            return True
        time.sleep(0.05)
    return False


def _wait_for_jvm(tag: str, proc: subprocess.Popen, limit: float = 120) -> bool:
    return _wait_until(lambda: _jvms(tag), proc, limit)


def _wait_for_python_workers(tag: str, proc: subprocess.Popen, limit: float = 120) -> bool:
    """Until the scan's JVM has started its Python workers (PySpark's daemon): when a task of the
    scan first runs Python, that is when the job reads the log."""
    if not _wait_for_jvm(tag, proc, limit):
        return False
    jvms = set(_jvms(tag))
    return _wait_until(lambda: _children(jvms, b"pyspark.daemon"), proc, limit)


# moments: (seconds after start, after the JVM process appears, or after the Python workers do):
# before the JVM, as it starts, while the session is made (about 3.5 s with the tests' JVM
# options) and the plan, as the job starts and within it. The job's moments follow the workers,
# not the clock: on an idle 2-core machine the whole scan can end 8 s after the JVM appears
# (a fixed "8 s after the JVM" once came after the answer), on a busy one much later.
MOMENTS = [("start", 0.3), ("start", 1.0), ("jvm", 0.0), ("jvm", 1.5), ("jvm", 3.0), ("jvm", 5.5), ("workers", 0.3)]


@pytest.mark.parametrize("after,delay", MOMENTS, ids=[f"{a}+{d}s" for a, d in MOMENTS])
def test_ctrl_c_at_any_moment_is_one_line_130_and_no_jvm_left(tmp_path, after, delay):
    twice = tmp_path / "twice.jsonl"
    twice.write_text("\n".join(LINES + LINES) + "\n")  # warnings first, as a real run may say
    conf, tag = _marker()
    proc = _start_scan(["--input", str(twice), "-o", "json"], conf, tmp_path)
    try:
        if after != "start":
            assert (_wait_for_jvm if after == "jvm" else _wait_for_python_workers)(tag, proc), proc.communicate()
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
    _nothing_left(tag, tmp_path)


def test_a_broker_killed_during_the_scan_is_one_line_exit_3_and_no_jvm_left(tmp_path):
    from brokers import start_tansu, stop_process
    from spark_env import build_scenario, write_to_broker

    broker, bootstrap = start_tansu()
    try:
        topic = f"scan-fault-{uuid.uuid4().hex[:8]}"
        write_to_broker(build_scenario(groups=200, partitions=4), bootstrap, topic)
        conf, tag = _marker()
        proc = _start_scan(["-b", bootstrap, "--offsets-topic", topic, "--timeout", "2", "-o", "json"], conf, tmp_path)
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
        _nothing_left(tag, tmp_path)
    finally:
        stop_process(broker)


def test_a_jvm_option_java_refuses_is_one_line_naming_it(tmp_path):
    """java's own line, not PySpark's "Java gateway process exited before sending its port number"
    (an unknown -XX option would be ignored: Spark starts its JVM with -XX:+IgnoreUnrecognizedVMOptions)."""
    conf, tag = _marker()
    res = _scan(tmp_path, "--input", str(EXAMPLE), "--conf", "spark.driver.extraJavaOptions=-XX:MaxHeapSize=abc", tag_conf=conf)
    assert res.returncode == 3 and res.stdout == ""
    assert res.stderr == "kgroup: error: cannot start Spark on local[*]: Invalid maximum heap size: -XX:MaxHeapSize=abc\n"
    _nothing_left(tag, tmp_path)
