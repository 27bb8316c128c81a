"""history of a streams group (KIP-1071) from its records in the offsets log: each group epoch
with the members that joined and left, the topology then, and the tasks whose holders changed in
the epoch's target assignment. The log is written here record by record (tests/logbuilder.py,
kgroup's own writer, whose layouts are held to Kafka's classes by the decoding vectors); the
expected history is worked out by hand below."""
from __future__ import annotations

import json

from conftest import run_kgroup
from logbuilder import Log, streams_group, streams_member
from schemas import validate

from kgroup.offsets_log.raw import write_jsonl

G = "wordcount"


def _target(log, ts, member, active=None, standby=None, gone=False):
    def tasks(m):
        return [{"subtopologyId": s, "partitions": ps} for s, ps in (m or {}).items()]
    log.add(G, ts, 21, {"groupId": G, "memberId": member}, 0, None if gone else {
        "activeTasks": tasks(active), "standbyTasks": tasks(standby), "warmupTasks": []})


def _epoch(log, ts, epoch):
    log.add(G, ts, 17, {"groupId": G}, 0, {"epoch": epoch, "metadataHash": 0})


def _assigned(log, ts, epoch):
    log.add(G, ts, 20, {"groupId": G}, 0, {"assignmentEpoch": epoch})


def _log(tmp_path):
    log = Log()
    t = 1_790_000_000_000
    streams_member(log, G, t, "m1")
    streams_member(log, G, t, "m2")
    streams_group(log, G, t, ["words"])  # epoch 1 and the topology (epoch 1, subtopology 0)
    _target(log, t, "m1", active={"0": [0, 1]})
    _target(log, t, "m2", active={"0": [2, 3]}, standby={"0": [0]})
    _assigned(log, t, 1)
    # m2 leaves: epoch 2, m1 takes every task, m2's target goes
    streams_member(log, G, t + 60_000, "m2", joined=False)
    _epoch(log, t + 60_000, 2)
    _target(log, t + 60_000, "m1", active={"0": [0, 1, 2, 3]})
    _target(log, t + 60_000, "m2", gone=True)
    _assigned(log, t + 60_000, 2)
    # m3 joins: epoch 3, whose target assignment the log does not hold yet
    streams_member(log, G, t + 120_000, "m3")
    _epoch(log, t + 120_000, 3)
    path = tmp_path / "log.jsonl"
    with open(path, "w") as f:
        write_jsonl(log.records, f)
    return path


def test_each_epoch_its_members_topology_and_task_moves(tmp_path):
    r = run_kgroup("history", G, "--input", str(_log(tmp_path)), "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate("history", doc)
    assert doc["type"] == "streams"
    e1, e2, e3 = doc["rebalances"]
    assert [(e["type"], e["generation"], e["joined"], e["left"]) for e in (e1, e2, e3)] == [
        ("streams", 1, ["m1", "m2"], []), ("streams", 2, [], ["m2"]), ("streams", 3, ["m3"], [])]
    assert all(e["topology"] == {"epoch": 1, "subtopologies": ["0"], "input_topics": {"0": ["words"]}}
               for e in (e1, e2, e3))
    # epoch 1: every task handed out from nobody (active first, then standby)
    assert e1["tasks_moved"] == [
        {"task": "0_0", "kind": "active", "from": None, "to": "m1"},
        {"task": "0_1", "kind": "active", "from": None, "to": "m1"},
        {"task": "0_2", "kind": "active", "from": None, "to": "m2"},
        {"task": "0_3", "kind": "active", "from": None, "to": "m2"},
        {"task": "0_0", "kind": "standby", "from": None, "to": "m2"}]
    # epoch 2: m2's active tasks go to m1, its standby to nobody
    assert e2["tasks_moved"] == [
        {"task": "0_2", "kind": "active", "from": "m2", "to": "m1"},
        {"task": "0_3", "kind": "active", "from": "m2", "to": "m1"},
        {"task": "0_0", "kind": "standby", "from": "m2", "to": None}]
    assert e3["tasks_moved"] is None  # its target assignment is not in the log read
    table = run_kgroup("history", G, "--input", str(_log(tmp_path)))
    assert table.returncode == 0, table.stderr
    assert "tasks moved: 0_2 (active) m2 → m1; 0_3 (active) m2 → m1; 0_0 (standby) m2 → (none)" in table.stdout
    assert "tasks moved: not known (the epoch's target assignment is not in the records read)" in table.stdout
    assert "topology epoch 1: subtopologies 0" in table.stdout
