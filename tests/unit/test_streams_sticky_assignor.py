"""kgroup.whatif.assignors.streams_sticky: Kafka 4.3's streams StickyTaskAssignor on small groups
whose answers are worked out by hand from Kafka's steps (the differential test checks it against
Kafka's class on thousands of random groups)."""
from __future__ import annotations

import pytest

from kgroup.whatif.assignors.streams_sticky import (StreamsMemberSpec, StreamsTasks, Subtopology, TaskAssignorError,
                                                    assign)
from kgroup.whatif.assignors.streams_sticky.assignor import tasks_per_member


def _m(member_id, process_id, active=None, standby=None, warmup=None):
    return StreamsMemberSpec(member_id, process_id, active or {}, standby or {}, warmup or {})


def test_quotas_are_java_int_arithmetic():
    assert tasks_per_member(7, 3) == 3
    assert tasks_per_member(6, 3) == 2
    assert tasks_per_member(5, 0) == 0
    assert tasks_per_member(-1, 2) == 0  # -1 / 2 == 0 and -1 % 2 == -1 in Java: not rounded up
    assert tasks_per_member(5, -2) == -1  # 5 / -2 == -2, 5 % -2 == 1: rounded up


def test_members_of_one_process_take_turns():
    # "m1" (hash 3428, bucket 4) and "m2" (3429, bucket 5): the members' heap is [m1, m2]; each
    # poll takes the least loaded, ties going as Java's heap leaves them: m1, m2, m1, m2
    result = assign([_m("m2", "p"), _m("m1", "p")], [Subtopology("0", 4, False)])
    assert result == {
        "m2": StreamsTasks(active={"0": (1, 3)}, standby={}, warmup={}),
        "m1": StreamsTasks(active={"0": (0, 2)}, standby={}, warmup={}),
    }
    assert list(result) == ["m2", "m1"]  # every member, in the order given


def test_a_balanced_group_keeps_its_tasks():
    members = [_m("a", "pA", active={"0": [0]}, standby={"0": [1]}),
               _m("b", "pB", active={"0": [1]}, standby={"0": [0]})]
    result = assign(members, [Subtopology("0", 2, True)], num_standby_replicas=1)
    assert result == {
        "a": StreamsTasks(active={"0": (0,)}, standby={"0": (1,)}, warmup={}),
        "b": StreamsTasks(active={"0": (1,)}, standby={"0": (0,)}, warmup={}),
    }


def test_an_instance_stops():
    # c (process pC) had 0_2 active and 0_0 standby. Quotas: 2 actives, 3 tasks per member.
    # 0_0, 0_1 stay; 0_2 goes to b, its standby (b reaches the active quota); standbys, 0_2 first:
    # b's process has 0_2, so it waits; 0_1 to a, its standby; 0_0 has no standby left: it waits.
    # The waiting ones, 0_2 then 0_0, go to the least loaded processes: pA and pB are at 2.0, pA
    # first in the HashMap ("pA" 3537, "pB" 3538 in 4 buckets) takes 0_2, then pB (2.0 < 3.0) 0_0.
    members = [_m("a", "pA", active={"0": [0]}, standby={"0": [1]}),
               _m("b", "pB", active={"0": [1]}, standby={"0": [2]})]
    result = assign(members, [Subtopology("0", 3, True)], num_standby_replicas=1, order="given")
    assert result == {
        "a": StreamsTasks(active={"0": (0,)}, standby={"0": (1, 2)}, warmup={}),
        "b": StreamsTasks(active={"0": (1, 2)}, standby={"0": (0,)}, warmup={}),
    }


def test_kafka_20899_keeps_a_standby_where_4_3_0_moves_it():
    # a holds 0_0 active; a2 (same process) and c held it as standby. 4.3.0 looks at the first
    # previous standby, a2, whose process has the task, and gives up on the previous standbys:
    # the least loaded process takes it, pD (loads pD 0, pA 0.5, pC 0; pD first in the
    # HashMap: "pD" 3540 in bucket 0). After KAFKA-20899 a2 is skipped and c keeps it.
    members = [_m("a", "pA", active={"0": [0]}), _m("a2", "pA", standby={"0": [0]}),
               _m("c", "pC", standby={"0": [0]}), _m("d", "pD")]
    topology = [Subtopology("0", 1, True)]
    old = assign(members, topology, num_standby_replicas=1, order="given")
    new = assign(members, topology, num_standby_replicas=1, order="given", kafka_20899=True)
    assert {m: t.standby for m, t in old.items()} == {"a": {}, "a2": {}, "c": {}, "d": {"0": (0,)}}
    assert {m: t.standby for m, t in new.items()} == {"a": {}, "a2": {}, "c": {"0": (0,)}, "d": {}}
    assert old["a"].active == new["a"].active == {"0": (0,)}


def test_the_member_order_is_the_hashmaps():
    # processes "BB" and "Aa" share a hash (2112): the process heap takes them in the order they
    # were put, the members' order. Java's member map puts "a" (bucket 1) before "b" (bucket 2).
    members = [_m("b", "BB"), _m("a", "Aa")]
    topology = [Subtopology("0", 2, False)]
    assert {m: t.active for m, t in assign(members, topology).items()} == {"b": {"0": (1,)}, "a": {"0": (0,)}}
    given = assign(members, topology, order="given")
    assert {m: t.active for m, t in given.items()} == {"b": {"0": (0,)}, "a": {"0": (1,)}}


def test_stale_tasks_and_warmups_are_dropped_and_one_process_gets_no_standby():
    # 0_5 and subtopology "gone" are not in the topology; warm-ups are never returned; with one
    # process no standby can be placed (a process never holds a task twice)
    members = [_m("x", "p", active={"0": [0, 5], "gone": [1]}, warmup={"0": [1]})]
    result = assign(members, [Subtopology("0", 2, True)], num_standby_replicas=2)
    assert result == {"x": StreamsTasks(active={"0": (0, 1)}, standby={}, warmup={})}


def test_subtopologies_sort_as_java_strings():
    # "10" < "2" as Strings: the unowned tasks go out by subtopology, then partition
    result = assign([_m("x", "p")], [Subtopology("2", 1, False), Subtopology("10", 1, False)])
    assert list(result["x"].active) == ["10", "2"]


def test_no_member():
    with pytest.raises(TaskAssignorError) as info:
        assign([], [Subtopology("7", 1, False)])
    assert str(info.value) == "No process available to assign active task 7_0."
    assert assign([], [Subtopology("7", 0, False)]) == {}


@pytest.mark.parametrize("members, topology, kwargs", [
    ([_m("a", "p"), _m("a", "q")], [Subtopology("0", 1, False)], {}),
    ([_m("a", "p")], [Subtopology("0", 1, False), Subtopology("0", 2, False)], {}),
    ([_m("a", "p")], [Subtopology("0", -1, False)], {}),
    ([_m("a", "p")], [Subtopology("0", 1, False)], {"num_standby_replicas": -1}),
    ([_m("a", "p")], [Subtopology("0", 1, False)], {"order": "sorted"}),
])
def test_input_no_coordinator_builds_is_refused(members, topology, kwargs):
    with pytest.raises(ValueError):
        assign(members, topology, **kwargs)
