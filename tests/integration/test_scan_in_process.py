"""kgroup scan through the whole CLI in this process, on the test run's Spark session (which kgroup
uses and leaves running): saved logs out of order or repeated give the clean log's report with a
warning each, and a group whose lag cannot be read makes the scan INCOMPLETE. What needs a process
of its own (the JVM kgroup starts and ends, Ctrl-C) is tests/integration/test_scan_faults.py."""
from __future__ import annotations

import json
import uuid

import pytest

from conftest import run_kgroup
from integration.test_scan_faults import EXAMPLE, LINES, _only_kgroup_lines
from integration.test_scan_faults import _document as _process_document
from spark_env import spark  # noqa: F401

pytestmark = pytest.mark.spark


def _document(stdout: str) -> dict:
    doc = _process_document(stdout)
    assert doc["summary"].pop("master") == "local[2]"  # the session's, not the default
    return doc


def test_out_of_order_and_repeated_saved_logs_give_the_clean_report(spark, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import base64

    import pyarrow.parquet as pq

    clean = run_kgroup("scan", "--input", str(EXAMPLE), "-o", "json")
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    expected = _document(clean.stdout)
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
        assert _document(res.stdout) == expected
        assert _only_kgroup_lines(res.stderr) == [
            f"kgroup: warning: {path} is not in log order: its records are taken by (partition, offset)",
            f"kgroup: warning: {path} repeats {repeated} records byte for byte: each is counted once"]


def test_a_group_whose_lag_cannot_be_read_makes_the_scan_incomplete(spark):
    """A group committing to a topic the cluster does not have: its lag is unknown, said (the
    groups and why), exit 3 as offsets does, and the JSON lists them."""
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
    doc = json.loads(res.stdout)
    assert doc["summary"]["incomplete"] is True
    listed = doc["summary"]["lag_unknown"]
    assert [u for u in listed if u["group"] in unknown] == [
        {"group": g, "reason": f"topic {gone} does not exist"} for g in unknown]
    # the others: the scenario's commits are older than every record written now (the log ended at
    # 0 then), so no point of their status window is known: their status is unknown, never OK
    others = [u for u in listed if u["group"] not in unknown]
    assert others and all(u["reason"].startswith("status: ") and "is beyond the log end 0" in u["reason"]
                          for u in others), others[:3]
    assert lines[-1].startswith(f"kgroup: warning: INCOMPLETE: the lag of {len(listed)} groups is unknown")
    assert {g["group"] for g in doc["groups"] if g["lag"] is None} >= set(unknown)


def test_a_broker_gone_while_the_save_is_written_is_exit_3_and_leaves_no_save(spark, tmp_path, monkeypatch):
    """--save: the read tasks lose the cluster while the save is written (the broker stopped once
    the plan is read, as the write starts): the cluster's line and exit 3, as a scan without
    --save says it, and no partial save left in the way of the next --save to the same path."""
    from brokers import start_tansu, stop_process
    from kgroup.scan import source
    from spark_env import build_scenario, write_to_broker

    broker, bootstrap = start_tansu()
    save = tmp_path / "saved.parquet"
    write = source.save_parquet

    def broker_gone_first(df, path):
        stop_process(broker)
        write(df, path)

    monkeypatch.setattr(source, "save_parquet", broker_gone_first)
    try:
        topic = f"scan-save-{uuid.uuid4().hex[:8]}"
        write_to_broker(build_scenario(groups=40, partitions=2, seed=9), bootstrap, topic)
        res = run_kgroup("scan", "-b", bootstrap, "--offsets-topic", topic, "--timeout", "2", "--save", str(save),
                         "-o", "json")
    finally:
        stop_process(broker)
    assert res.returncode == 3 and res.stdout == "", res.stderr
    lines = _only_kgroup_lines(res.stderr)
    assert len(lines) == 1 and lines[0].startswith(f"kgroup: error: cannot reach the cluster at {bootstrap}"), lines
    assert not save.exists()
