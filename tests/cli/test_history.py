"""kgroup history: a group's rebalances, rebuilt from the records of an offsets log (--input), golden."""
from __future__ import annotations

import json

import pytest
from conftest import ROOT, run_kgroup
from unit.test_replay import MIN, T, scenario

from kgroup.offsets_log.raw import write_jsonl


@pytest.fixture
def logfile(tmp_path):
    path = tmp_path / "log.jsonl"
    with open(path, "w") as f:
        write_jsonl(scenario().records, f)
    return path


def test_history_cli_json(logfile):
    r = run_kgroup("history", "G1", "--input", str(logfile), "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    from schemas import validate

    validate("history", doc)
    assert doc["type"] == "classic" and doc["deleted"] is True
    assert [e["generation"] for e in doc["rebalances"]] == [1, 2, 3, None]
    assert doc["rebalances"][2]["left"] == ["c2"]
    assert doc["rebalances"][1]["last_commits"] == {"Order": {"4": 160}}


def test_history_csv_has_a_row_per_rebalance_with_the_offsets_deleted_after_it():
    """examples/offsets-log-g1.jsonl: G1's three generations (c1 and c2; c3 joins; c2 leaves), the
    tombstone of Order-0's committed offset (partition 0, offset 12) after generation 3, then the
    group's tombstone."""
    r = run_kgroup("history", "G1", "--input", str(ROOT / "examples" / "offsets-log-g1.jsonl"), "-o", "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "time,type,generation,protocol,leader,members,joined,left,moved,since_previous_ms,commits,offsets_deleted",
        "2025-11-22T02:53:20.000Z,classic,1,range,c1,2,c1 c2,,6,,6,",
        "2025-11-22T02:54:20.000Z,classic,2,range,c1,3,c3,,3,60000,2,",
        "2025-11-22T02:55:20.000Z,classic,3,range,c1,2,,c2,2,60000,1,Order-0",
        "2025-11-22T02:56:20.000Z,deleted,,,,0,,,0,60000,0,",
    ]


def test_history_cli_table_says_who_left_not_why(logfile):
    r = run_kgroup("history", "G1", "--input", str(logfile), "--since", str(T + 2 * MIN))
    assert r.returncode == 0, r.stderr
    assert "generation 3, protocol range, leader c1, 2 members, 1.0m after the previous" in r.stdout
    assert "left:   c2" in r.stdout and "generation 2" not in r.stdout
    assert "group deleted" in r.stdout


def test_history_of_unknown_group(logfile):
    r = run_kgroup("history", "NOPE", "--input", str(logfile))
    assert r.returncode == 2 and "holds no record of group NOPE" in r.stderr


def test_history_of_a_kip848_group_says_who_was_still_reconciling(tmp_path):
    # the log of tests/unit/test_reconciliation.py, whose expected values are worked out there
    from unit.test_reconciliation import reconciling_log

    log, t = reconciling_log()
    path = tmp_path / "k.jsonl"
    with open(path, "w") as f:
        write_jsonl(log.records, f)
    r = run_kgroup("history", "K", "--input", str(path))
    assert r.returncode == 0, r.stderr
    titles = r.stdout.split("  group epoch ")  # each epoch's title starts its block
    epoch1, epoch2 = titles[1], titles[2]
    assert ("still reconciling when the epoch ended (2025-11-22T02:54:29.000Z): 2 members\n"
            "  B: epoch 2 (group epoch 2, assignment epoch 2); waiting for Order:2 (held by no member), "
            "Order:4 (held by C)\n"
            "  C: epoch 1 (group epoch 2, assignment epoch 2); to revoke Order:4\n") in epoch2, r.stdout
    assert "still reconciling" not in epoch1  # epoch 1 ended reconciled
    assert "still reconciling at the last record read (2025-11-22T02:54:29.000Z): 2 members\n" in titles[3]
    # the example log of docs/commands/history.md is this log
    example = (ROOT / "examples" / "offsets-log-kip848.jsonl").read_text()
    assert example == path.read_text()
    doc = json.loads(run_kgroup("history", "K", "--input", str(path), "-o", "json").stdout)
    from schemas import validate

    validate("history", doc)
    assert [e["reconciliation"]["timestamp"] - t for e in doc["rebalances"]] == [0, 9000, 9000]
    assert [[m["member_id"] for m in e["reconciliation"]["members"]] for e in doc["rebalances"]] == [
        [], ["B", "C"], ["B", "C"]]


def test_history_says_which_deleted_offsets_retention_removed(tmp_path):
    """A saved log (no cluster: Kafka's default retention, 7 days = R): G1 empties at T (the log of
    tests/unit/test_replay.py's emptied_group); Order-0's tombstone 5 min after T + R is retention,
    expired at T + R; Order-1's, an hour after T, an admin's deletion; Stock-0's, of a commit
    the log does not hold, unknown."""
    from unit.test_replay import R, emptied_group

    log = emptied_group()
    log.commit("G1", "Order", 1, 50, T - MIN)
    log.delete_commit("G1", "Order", 1, T + 60 * MIN)
    log.delete_commit("G1", "Order", 0, T + R + 5 * MIN)
    log.delete_commit("G1", "Stock", 0, T + R + 5 * MIN)
    path = tmp_path / "expired.jsonl"
    with open(path, "w") as f:
        write_jsonl(log.records, f)
    r = run_kgroup("history", "G1", "--input", str(path), "-o", "json")
    assert (r.returncode, r.stderr) == (0, "")
    doc = json.loads(r.stdout)
    from schemas import validate

    validate("history", doc)
    empty = doc["rebalances"][1]
    assert (empty["generation"], empty["members"]) == (2, [])
    assert [(d["topic"], d["partition"], d["log_offset"], d["cause"], d["expired_ms"])
            for d in empty["offsets_deleted"]] == [
        ("Order", 1, 4, "deleted", None),
        ("Order", 0, 5, "retention", 1_764_384_800_000),  # T + R
        ("Stock", 0, 6, "unknown", None)]
    r = run_kgroup("history", "G1", "--input", str(path))
    assert r.returncode == 0, r.stderr
    assert ("then 3 committed offsets deleted:\n"
            "  Order-1 (tombstone at 0/4): deleted: before it would have expired, at 2025-11-29T02:53:20.000Z\n"
            "  Order-0 (tombstone at 0/5): removed by retention: expired at 2025-11-29T02:53:20.000Z "
            "(offsets.retention.minutes (7 d) after the group became Empty (2025-11-22T02:53:20.000Z))\n"
            "  Stock-0 (tombstone at 0/6): cause unknown: no commit of it in the records read\n") in r.stdout


def test_history_from_a_cluster_follows_the_coordinators_retention(monkeypatch):
    """The same tombstone (5 min after T + R, G1 Empty from T) read from a cluster: under a
    coordinator keeping offsets 14 days it comes before the moment (T + 14 d): deleted; when the
    coordinator's settings cannot be read, Kafka's default (7 days): retention, said once."""
    from unit.test_replay import R, emptied_group

    from kgroup.errors import ClusterError
    from kgroup.group.broker import Broker
    from kgroup.group.metadata import CoordinatorLookup
    from kgroup.offsets_log.selection import Selection, select

    log = emptied_group()
    log.delete_commit("G1", "Order", 0, T + R + 5 * MIN)

    class Cluster:
        def __init__(self, minutes):
            self.minutes = minutes

        def metadata(self):
            from kgroup.group.metadata import ClusterMetadata

            return ClusterMetadata({2: Broker(2, "b2", 9092)}, {})

        def find_coordinators(self, groups, brokers):
            return {g: CoordinatorLookup(g, brokers[2]) for g in groups}

        def broker_configs(self, broker_id, names):
            if self.minutes is None:
                raise ClusterError("not authorized to describe broker 2")
            return {"offsets.retention.minutes": str(self.minutes)}

        def close(self):
            pass

    monkeypatch.setattr("kgroup.offsets_log.read.group_entries",
                        lambda group, *args: select(log.records, Selection(frozenset([group]))))
    for minutes, cause, expired, said in (
            (20160, "deleted", None, ""),
            (None, "retention", T + R, "kgroup: warning: offset retention: Kafka's default (broker 2's configuration "
                                       "cannot be read: not authorized to describe broker 2); the causes of the "
                                       "deleted offsets assume it\n")):
        monkeypatch.setattr("kgroup.kafka.cluster.connect", lambda settings, m=minutes: Cluster(m))
        r = run_kgroup("history", "G1", "-b", "x:1", "-o", "json")
        assert (r.returncode, r.stderr) == (0, said)
        (d,) = json.loads(r.stdout)["rebalances"][1]["offsets_deleted"]
        assert (d["cause"], d["expired_ms"]) == (cause, expired)
