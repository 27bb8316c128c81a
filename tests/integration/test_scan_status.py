"""kgroup scan's STATUS per group equals kgroup lag's for the same groups on the same log (a real
broker, Tansu, and Spark): the scenario of tests/integration/test_lag_live.py (one record a second
on five partitions, one way of consuming each), read by six groups: one per partition and one
committing to all five."""
from __future__ import annotations

import json
import time
import uuid

import pytest
from conftest import run_kgroup
from logbuilder import Log, produce
from spark_env import spark  # noqa: F401

pytestmark = [pytest.mark.broker, pytest.mark.spark]

RECORDS = 200
BASE = (int(time.time()) - 3600) * 1000
UNTIL = BASE + 130_000
SCENARIOS = {  # partition -> (commits as (seconds after BASE, offset), the status of that partition)
    0: ([(10 * k, 10 * k) for k in range(1, 14)], "OK"),
    1: ([(10 * k, 5 * k) for k in range(1, 14)], "WARN"),
    2: ([(10 * k, 20) for k in range(3, 14)], "STALL"),
    3: ([(10 * k, 10 * k) for k in range(1, 6)], "STOP"),
    4: ([(10 * k, 10 * k) for k in range(1, 9)] + [(10 * k, 10 * k - 60) for k in range(9, 14)], "REWIND"),
}
GROUP_STATUS = {"OK": "OK", "WARN": "WARN", "STALL": "ERR", "STOP": "ERR", "REWIND": "ERR"}


@pytest.fixture(scope="module")
def fleet(tansu):
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    data = f"statusdata-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic(data, len(SCENARIOS), 1)], request_timeout=10).values():
        f.result(15)
    producer = Producer({"bootstrap.servers": tansu, "linger.ms": 0, "batch.num.messages": 1})
    for i in range(RECORDS):
        for p in SCENARIOS:
            producer.produce(data, value=b"x", partition=p, timestamp=BASE + i * 1000)
        producer.flush(10)  # one record per batch and partition
    log = Log(partitions=3)
    for p, (commits, _) in SCENARIOS.items():
        for seconds, offset in commits:
            log.commit(f"status-{p}", data, p, offset, BASE + seconds * 1000)
            log.commit("status-all", data, p, offset, BASE + seconds * 1000 - 1)
    offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
    produce(tansu, offsets_topic, log)
    return data, offsets_topic


def test_scan_statuses_equal_lag_statuses(spark, tansu, fleet):
    data, offsets_topic = fleet
    r = run_kgroup("scan", "-b", tansu, "--offsets-topic", offsets_topic, "--until", str(UNTIL), "-o", "json",
                   timeout=600)  # the whole CLI in this process, on the test run's Spark session
    assert r.returncode == 0, r.stderr
    groups = {g["group"]: g for g in json.loads(r.stdout)["groups"]}
    assert sorted(groups) == sorted([f"status-{p}" for p in SCENARIOS] + ["status-all"])
    for name, g in groups.items():
        lag = run_kgroup("lag", name, "-b", tansu, "--offsets-topic", offsets_topic, "--since", str(BASE),
                         "--until", str(UNTIL), "-o", "json", timeout=120)
        assert lag.returncode == 0, lag.stderr
        doc = json.loads(lag.stdout)
        assert (g["status"], g["status_complete"]) == (doc["status"], doc["complete"]), name
    # and what that is, by hand: each scenario's group status; all five together ERR, four of five
    # partitions with ten commits (complete 0.8)
    for p, (_, status) in SCENARIOS.items():
        assert groups[f"status-{p}"]["status"] == GROUP_STATUS[status]
        assert groups[f"status-{p}"]["status_complete"] == (0.0 if p == 3 else 1.0)
    assert (groups["status-all"]["status"], groups["status-all"]["status_complete"]) == ("ERR", 0.8)
    # the scan's lag is against the log ends of now (200 records each), not of --until
    assert groups["status-all"]["lag"] == 5 * RECORDS - (130 + 65 + 20 + 50 + 70)


def test_a_commit_beyond_the_log_end_is_no_lag_and_no_status(spark, tansu, fleet):
    """The page once floored "COMMITTED 10000, END 200" to lag 0 and OK: the group's lag and status
    are unknown, said per group, and the scan is INCOMPLETE (exit 3)."""
    data, _ = fleet
    log = Log(partitions=3)
    log.commit("beyond", data, 0, 10_000, BASE + 120_000)
    log.commit("fine", data, 0, 130, BASE + 130_000)
    offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
    produce(tansu, offsets_topic, log)
    r = run_kgroup("scan", "-b", tansu, "--offsets-topic", offsets_topic, "--until", str(UNTIL), "-o", "json",
                   timeout=600)
    assert r.returncode == 3, r.stderr
    doc = json.loads(r.stdout)
    groups = {g["group"]: g for g in doc["groups"]}
    assert (groups["beyond"]["lag"], groups["beyond"]["status"]) == (None, None)
    assert (groups["fine"]["lag"], groups["fine"]["status"]) == (RECORDS - 130, "OK")
    assert doc["summary"]["lag_unknown"] == [
        {"group": "beyond", "reason": f"{data}-0: committed 10000 is beyond the log end {RECORDS}"}]
    assert doc["summary"]["incomplete"] is True


def _no_commit_log(data: str) -> tuple[Log, dict[str, object]]:
    """Groups whose commit records are no commit to read: cut short (key readable, value not), or
    with a negative commit time; a record so as the last of its partition, and one before a
    readable commit."""
    log = Log(partitions=3)
    log.commit("cut-last", data, 0, 50, BASE + 50_000)
    last = log.cut_commit("cut-last", data, 0, 100, BASE + 100_000)
    before = log.cut_commit("cut-before", data, 0, 40, BASE + 40_000)
    log.commit("cut-before", data, 0, 130, BASE + 130_000)
    log.commit("negative", data, 0, 60, BASE + 60_000)
    negative = log.add("negative", BASE + 70_000, 1, {"group": "negative", "topic": data, "partition": 0}, 3,
                       {"offset": 70, "leaderEpoch": -1, "metadata": "", "commitTimestamp": -5, "expireTimestamp": -1})
    return log, {"cut-last": last, "cut-before": before, "negative": negative}


def test_a_commit_record_that_is_no_commit_makes_the_scan_incomplete_naming_it(spark, tansu, fleet, tmp_path):
    """Before, a cut commit record was skipped and the older commit shown as current (exit 1, an
    undecodable record), and a negative commit time was taken for a commit: the group is INCOMPLETE
    (exit 3) with the record's position, live and from a saved log; a cut record that is the last
    of its partition makes the lag and the status unknown (the committed offset is)."""
    from kgroup.offsets_log.raw import write_jsonl

    data, _ = fleet
    log, bad = _no_commit_log(data)
    offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
    produce(tansu, offsets_topic, log)

    def reason(group: str, what: str, error: str, last: bool) -> str:
        rec = bad[group]
        then = ("the committed offset since then is unknown, so are the lag and the status" if last
                else "one commit of its history is unknown")
        return (f"{data}-0: the commit record at offsets-log partition {rec.partition} offset {rec.offset} {what} "
                f"({error}): {then}")

    expected = [{"group": "cut-before", "reason": reason("cut-before", "cannot be decoded",
                                                         "truncated value of record type 1 v3", False)},
                {"group": "cut-last", "reason": reason("cut-last", "cannot be decoded",
                                                       "truncated value of record type 1 v3", True)},
                {"group": "negative", "reason": reason("negative", "is not a commit",
                                                       "commit timestamp -5 is not a time", True)}]
    r = run_kgroup("scan", "-b", tansu, "--offsets-topic", offsets_topic, "--until", str(UNTIL), "-o", "json",
                   timeout=600)
    assert r.returncode == 3, r.stderr
    doc = json.loads(r.stdout)
    assert doc["summary"]["lag_unknown"] == expected
    groups = {g["group"]: g for g in doc["groups"]}
    # cut-last: its 50 is no longer what it has committed; cut-before: its readable 130 is
    assert (groups["cut-last"]["lag"], groups["cut-last"]["status"]) == (None, None)
    assert (groups["cut-before"]["lag"], groups["cut-before"]["commits"]) == (RECORDS - 130, 1)
    # negative: its last record (offset 70 with a time before 1970) is no commit to read, as lag reads it
    assert (groups["negative"]["lag"], groups["negative"]["status"], groups["negative"]["commits"]) == (None, None, 1)
    assert "kgroup: warning: INCOMPLETE: the lag of 3 groups is unknown (shown as -): cut-before (" in r.stderr

    saved = tmp_path / "log.jsonl"
    with open(saved, "w", encoding="utf-8") as f:
        write_jsonl(log.records, f)
    r = run_kgroup("scan", "--input", str(saved), "-o", "json", timeout=600)
    assert r.returncode == 3, r.stderr
    assert json.loads(r.stdout)["summary"]["lag_unknown"] == expected
    assert "kgroup: warning: INCOMPLETE: some commits of 3 groups are unknown: cut-before (" in r.stderr


def test_a_lag_of_nothing_but_a_transaction_marker_is_none_in_the_scan(spark, tansu):
    """As in kgroup lag at --until now: a group that committed 3 on a transactional partition
    (records 0-2, commit marker 3, end 4) again and again has lag 0 (one transaction marker) and
    is OK, not STALL; one that keeps a real record unconsumed (2 of 3) keeps lag 1 and is ERR."""
    import transactions

    base = int(time.time() * 1000) - 600_000
    topic, open_ = transactions.transactional_topic(tansu, timestamp_ms=base)
    try:
        log = Log(partitions=3)
        for k in range(1, 10):  # a commit a minute, the last a minute ago
            log.commit("txn-caught", topic, 0, 3, base + k * 60_000)
            log.commit("txn-behind", topic, 1, 2, base + k * 60_000)
        offsets_topic = f"offsets-{uuid.uuid4().hex[:8]}"
        produce(tansu, offsets_topic, log)
        r = run_kgroup("scan", "-b", tansu, "--offsets-topic", offsets_topic, "-o", "json", timeout=600)
    finally:
        open_.abort_transaction(10)
    assert r.returncode == 0, r.stderr
    from schemas import validate

    doc = json.loads(r.stdout)
    validate("scan", doc)
    got = {g["group"]: (g["lag"], g["transaction_markers"], g["status"]) for g in doc["groups"]}
    assert got == {"txn-caught": (0, 1, "OK"), "txn-behind": (1, 0, "ERR")}
