"""Streams groups' pure parts (kgroup.group.streams, streams_state, kgroup.whatif.streams) on
small groups worked out by hand."""
from __future__ import annotations

import json

import pytest
from conftest import ROOT

from kgroup.errors import UsageError
from kgroup.group import streams_state
from kgroup.group.streams import (StreamsGroup, StreamsMember, StreamsTopic, Subtopology, Tasks, Topology, explain,
                                  group_from_json, group_json, task_count)
from kgroup.whatif.streams import StreamsChange, StreamsChangeError, run, standby_replicas_seen

EXAMPLE = ROOT / "examples" / "streams-wordcount.json"
STORE = Subtopology("0", ["in"], [], [StreamsTopic("app-store-changelog", 0, 0, {})], [])


def _member(mid, process, active=None, standby=None, target_active=None, target_standby=None, epoch=5):
    now = Tasks(active or {}, standby or {}, {})
    target = Tasks(target_active if target_active is not None else (active or {}),
                   target_standby if target_standby is not None else (standby or {}), {})
    return StreamsMember(mid, process, epoch, 1, f"client-{mid}", "/h", assignment=now, target_assignment=target)


def _state(members, offsets=None, changelogs=None):
    g = StreamsGroup("app", "Stable", 5, 5, Topology(1, [STORE]), members)
    return streams_state.StreamsState(g, {"in": 2, "app-store-changelog": 2}, offsets or {}, changelogs or {})


def test_task_count_is_the_most_partitions_of_the_input_topics():
    sub = Subtopology("1", ["a", "b"], [], [], [StreamsTopic("r", 6, 0, {})])
    assert task_count(sub, {"a": 3, "b": 4}) == 6  # the repartition topic's own count where the metadata lacks it
    assert task_count(sub, {"a": 3, "b": 4, "r": 2}) == 4
    assert task_count(sub, {}) == 6
    assert task_count(Subtopology("2", ["x"], [], [], []), {}) is None


def test_who_is_still_reconciling_and_why():
    members = [
        _member("m1", "p1", active={"0": [0]}, target_active={}),  # gives up 0_0
        _member("m2", "p2", target_active={"0": [0]}),  # waits: m1 still holds 0_0 active
        _member("m3", "p1", target_standby={"0": [0]}),  # waits: m1, of its own process, holds it
        _member("m4", "p3", target_standby={"0": [0]}),  # nobody of p3 holds it: free
        _member("m5", "p4", active={"0": [1]}, epoch=4),  # holds its target, epoch behind
        _member("m6", "p5", active={"0": [2]}),  # reconciled
    ]
    why = explain(StreamsGroup("app", "Reconciling", 5, 5, Topology(1, [STORE]), members))
    assert set(why) == {"m1", "m2", "m3", "m4", "m5"}
    assert why["m1"]["to_revoke"] == {"active": {"0": [0]}} and why["m1"]["waiting_for"] == []
    assert why["m2"]["waiting_for"] == [{"kind": "active", "subtopology": "0", "partition": 0, "held_by": "m1"}]
    assert why["m3"]["waiting_for"] == [{"kind": "standby", "subtopology": "0", "partition": 0, "held_by": "m1"}]
    assert why["m4"]["waiting_for"] == [{"kind": "standby", "subtopology": "0", "partition": 0, "held_by": None}]
    assert why["m5"] == {"member_epoch": 4, "group_epoch": 5, "assignment_epoch": 5, "to_revoke": {},
                         "waiting_for": []}


def test_offsets_and_state_rows_of_the_example():
    state = streams_state.parse(json.loads(EXAMPLE.read_text()), "example")
    rows = {(r["topic"], r["partition"]): r for r in streams_state.offsets_rows(state)}
    # words-p: committed 1000(p+1) - 7p of a log end 1000(p+1); partition 3 never committed
    assert [rows[("words", p)]["lag"] for p in range(4)] == [0, 7, 14, None]
    # the repartition topic: committed 500+p, log end 510+3p
    assert [rows[("wordcount-counts-repartition", p)]["lag"] for p in range(4)] == [10, 12, 14, 16]
    assert rows[("wordcount-counts-repartition", 2)]["member_id"] is None  # its owner has not taken it yet
    assert rows[("words", 0)]["task"] == "0_0" and rows[("words", 0)]["member_id"] == "m-b1"
    tasks = streams_state.state_rows(state)
    # the changelog's partition p: log start 100p, end 2000+250p
    assert [t["to_restore"] for t in tasks] == [2000, 2150, 2300, 2450]
    assert [t["task"] for t in tasks] == ["1_0", "1_1", "1_2", "1_3"]
    assert all(t["reported"] == {} for t in tasks)


def test_the_snapshot_reads_back_what_was_written():
    doc = json.loads(EXAMPLE.read_text())
    state = streams_state.parse(doc, "example")
    assert streams_state.dump(state) == doc
    assert group_from_json(group_json(state.group)) == state.group


@pytest.mark.parametrize("path,value,problem", [
    (("group", "members", 0, "member_epoch"), "7", "$.group.members[0].member_epoch has the wrong type"),
    (("group", "topology", "subtopologies", 0, "source_topics"), "words", "must be a list"),
    (("group", "members", 1, "assignment", "active"), [], "$.group.members[1].assignment.active must be an object"),
    (("kgroup_streams_snapshot",), 9, "this kgroup reads version 1"),
    (("offsets",), {"words": {"committed": 1}}, "is not TOPIC:PARTITION"),
    (("num_standby_replicas",), {"value": -1, "source": "x"}, "$.num_standby_replicas.value is -1; it must be 0 or more"),
    (("num_standby_replicas",), {"value": True, "source": "x"}, "must not be true or false"),
    (("num_standby_replicas",), {"value": 1}, "$.num_standby_replicas"),
])
def test_a_damaged_snapshot_is_refused_with_where(path, value, problem):
    doc = json.loads(EXAMPLE.read_text())
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(UsageError, match=problem.replace("[", r"\[").replace("]", r"\]").replace("$", r"\$")):
        streams_state.parse(doc, "x")


def test_removing_a_member_moves_its_active_task_to_the_standby_holder():
    members = [_member("m1", "p1", active={"0": [0]}, standby={"0": [1]}),
               _member("m2", "p2", active={"0": [1]}, standby={"0": [0]})]
    state = _state(members, changelogs={("app-store-changelog", 0): (10, 110), ("app-store-changelog", 1): (0, 40)})
    assert standby_replicas_seen(state) == 1
    doc = run(state, StreamsChange(remove=["m2"]), 1)
    # one process left: m1 takes both tasks, and no standby can be placed
    assert doc["members"][0]["after"] == {"active": {"0": [0, 1]}, "standby": {}, "warmup": {}}
    assert doc["members"][1]["after"] is None
    assert doc["moved_active_tasks"] == [{
        "task": "0_1", "subtopology": "0", "partition": 1, "from": ["m2"], "to": "m1", "stateful": True,
        "to_restore": None, "restore_from_scratch": 40, "held_as": "standby",
        "note": "less: its new owner's process holds it as standby; how much less is not reported "
                "(the broker reports no task offsets)"}]
    assert doc["to_restore_from_scratch"] == 0


def test_a_new_process_restores_from_scratch():
    members = [_member("m1", "p1", active={"0": [0, 1]})]
    state = _state(members, changelogs={("app-store-changelog", 0): (10, 110), ("app-store-changelog", 1): (0, 40)})
    doc = run(state, StreamsChange(add=[("n1", None)]), 0)
    moved = doc["moved_active_tasks"]
    assert len(moved) == 1 and moved[0]["to"] == "n1" and moved[0]["held_as"] is None
    # whichever task moves, its whole changelog partition is restored: 100 (task 0) or 40 (task 1)
    assert moved[0]["to_restore"] == {"0_0": 100, "0_1": 40}[moved[0]["task"]]
    assert doc["to_restore_from_scratch"] == moved[0]["to_restore"]
    assert doc["added"] == [{"member_id": "n1", "process_id": "n1"}]


def test_changes_the_group_cannot_take():
    state = _state([_member("m1", "p1", active={"0": [0, 1]})])
    with pytest.raises(StreamsChangeError, match="--remove nobody"):
        run(state, StreamsChange(remove=["nobody"]), 0)
    with pytest.raises(StreamsChangeError, match="--remove-process p9"):
        run(state, StreamsChange(remove_process=["p9"]), 0)
    with pytest.raises(StreamsChangeError, match="--add m1: a member with that id already exists"):
        run(state, StreamsChange(add=[("m1", None)]), 0)


def test_no_member_left_is_what_kafkas_assignor_throws():
    state = _state([_member("m1", "p1", active={"0": [0, 1]})])
    doc = run(state, StreamsChange(remove_process=["p1"]), 0)
    assert doc["error"] and doc["moved_active_tasks"] == []
