"""Hand-checked cases for the client-side assignors.

Expected values are worked out by hand from the algorithms Kafka documents (the
javadoc examples of RangeAssignor, RoundRobinAssignor and StickyAssignor, KIP-881 for
racks, the cooperative protocol of KIP-429); the reasoning is in the comments.  The
differential test (test_assignors_differential.py) checks the same code against the
real Java classes on thousands of random groups.
"""
from __future__ import annotations

import pytest

from kgroup.whatif.assignors import cooperative_sticky, range as range_assignor, roundrobin, sticky
from kgroup.whatif.assignors.sticky_core import AssignmentDoesNotTerminate
from kgroup.group.assignment import by_topic
from kgroup.whatif.assignors.base import MemberSubscription
from kgroup.whatif.assignors.leader import member_info_key
from kgroup.java.hashmap import iteration_order as hash_iteration_order, spread
from kgroup.java.strings import java_string_hash, java_string_key as java_key
from kgroup.java.topic_partition import topic_partition_hash

EMOJI = "\U0001F600"  # UTF-16: D83D DE00
FULLWIDTH_A = "\uff21"  # UTF-16: FF21 -- after the emoji in Java, before it in Python


def member(member_id: str, *topics: str, instance: str | None = None, rack: str | None = None,
           owned: tuple = (), generation: int = -1) -> MemberSubscription:
    return MemberSubscription(member_id, tuple(topics), instance, rack, tuple(owned), generation)


def tps(topic: str, *partitions: int) -> list[tuple[str, int]]:
    return [(topic, p) for p in partitions]


# ---------------------------------------------------------------------------
# Java semantics
# ---------------------------------------------------------------------------

def test_java_string_hash_and_order():
    assert java_string_hash("") == 0
    assert java_string_hash("Aa") == java_string_hash("BB") == 65 * 31 + 97
    # 'O'=79 'r'=114 'd'=100 'e'=101 'r'=114, h = 31*h + c
    assert java_string_hash("Order") == 76453678
    assert java_string_hash("hello") == 99162322
    assert java_string_hash(EMOJI) == 0xD83D * 31 + 0xDE00
    # overflow wraps to a signed 32-bit int
    assert java_string_hash("polygenelubricants") == -2147483648
    assert topic_partition_hash("t", 2) == 31 * (31 + 2) + ord("t")
    # String.compareTo compares UTF-16 code units
    assert sorted([FULLWIDTH_A, EMOJI], key=java_key) == [EMOJI, FULLWIDTH_A]
    assert sorted([FULLWIDTH_A, EMOJI]) == [FULLWIDTH_A, EMOJI]
    assert sorted(["a", "B", "b", "A"], key=java_key) == ["A", "B", "a", "b"]
    # static members (group.instance.id) sort before dynamic ones
    assert member_info_key("zzz", "i") < member_info_key("aaa", None)


def test_hash_map_iteration_order():
    # "Order" -> spread(76453678) & 15 == 0, "Stock" -> 14: bucket order, not insertion order
    assert spread(java_string_hash("Order")) & 15 == 0
    assert spread(java_string_hash("Stock")) & 15 == 14
    assert hash_iteration_order(["Stock", "Order"]) == ["Order", "Stock"]
    # "t0" = 3644 -> bucket 12, "t1" -> 13, "t2" -> 14
    assert hash_iteration_order(["t2", "t0", "t1"]) == ["t0", "t1", "t2"]
    # equal hashes share a bucket: put() appends, computeIfAbsent() prepends
    assert hash_iteration_order(["BB", "Aa"]) == ["BB", "Aa"]
    assert hash_iteration_order(["BB", "Aa"], compute_if_absent=True) == ["Aa", "BB"]
    # 13 puts resize a default HashMap to 32 buckets: "t0" (3644) moves to bucket 28
    keys = [f"k{i}" for i in range(12)] + ["t0"]
    order = hash_iteration_order(keys)
    assert sorted(order) == sorted(keys) and order[-1] == "t0"


def test_sticky_user_data_partition_order():
    # "Y4" (2811) and "z-_923" (-757765906) both land in bucket 11 of 16; StickyAssignor's
    # userData groups partitions by topic with computeIfAbsent, which prepends, so the
    # later topic comes back first
    assert spread(java_string_hash("Y4")) & 15 == spread(java_string_hash("z-_923")) & 15 == 11
    assert sticky.user_data_partitions([("Y4", 35), ("z-_923", 59)]) == [("z-_923", 59), ("Y4", 35)]
    assert sticky.user_data_partitions([("t1", 1), ("t0", 0), ("t1", 0)]) == [("t0", 0), ("t1", 1), ("t1", 0)]


# ---------------------------------------------------------------------------
# RangeAssignor
# ---------------------------------------------------------------------------

def test_range_seed_scenario():
    # Order: 7 partitions / 3 members = 2 each, the first one gets the extra one.
    # Stock: 5 / 3 = 1 each, the first two get an extra one. "Order" iterates first.
    members = [member(c, "Order", "Stock") for c in ("C1", "C2", "C3")]
    result = range_assignor.assign({"Order": 7, "Stock": 5}, members)
    assert result == {
        "C1": tps("Order", 0, 1, 2) + tps("Stock", 0, 1),
        "C2": tps("Order", 3, 4) + tps("Stock", 2, 3),
        "C3": tps("Order", 5, 6) + tps("Stock", 4),
    }
    # C3 leaves: 7 / 2 -> 4 + 3, 5 / 2 -> 3 + 2
    result = range_assignor.assign({"Order": 7, "Stock": 5}, members[:2])
    assert result == {
        "C1": tps("Order", 0, 1, 2, 3) + tps("Stock", 0, 1, 2),
        "C2": tps("Order", 4, 5, 6) + tps("Stock", 3, 4),
    }


def test_range_javadoc_example():
    members = [member("C0", "t0", "t1"), member("C1", "t0", "t1")]
    assert range_assignor.assign({"t0": 3, "t1": 3}, members) == {
        "C0": tps("t0", 0, 1) + tps("t1", 0, 1),
        "C1": tps("t0", 2) + tps("t1", 2),
    }


def test_range_static_members_sort_by_instance_id():
    # member ids C3 < ... would put C2 first; instance ids I0 < I1 put C3 first
    members = [member("C2", "t0", "t1", instance="I1"), member("C3", "t0", "t1", instance="I0")]
    assert range_assignor.assign({"t0": 3, "t1": 3}, members) == {
        "C3": tps("t0", 0, 1) + tps("t1", 0, 1),
        "C2": tps("t0", 2) + tps("t1", 2),
    }
    # a static member comes before any dynamic one
    members = [member("A", "t"), member("Z", "t", instance="zz")]
    assert range_assignor.assign({"t": 3}, members) == {"Z": tps("t", 0, 1), "A": tps("t", 2)}


def test_range_orders_member_ids_as_java_strings():
    members = [member(FULLWIDTH_A, "t"), member(EMOJI, "t")]
    assert range_assignor.assign({"t": 3}, members) == {EMOJI: tps("t", 0, 1), FULLWIDTH_A: tps("t", 2)}


def test_range_heterogeneous_and_missing_topics():
    members = [member("C0", "t0", "missing"), member("C1", "t0", "t1")]
    # t0: 3 / 2 -> C0 gets 0,1 and C1 gets 2; t1 only has C1; "missing" has no metadata
    assert range_assignor.assign({"t0": 3, "t1": 2}, members) == {
        "C0": tps("t0", 0, 1),
        "C1": tps("t0", 2) + tps("t1", 0, 1),
    }
    assert range_assignor.assign({"t0": 3}, [member("C0"), member("C1", "t0")]) == {
        "C0": [], "C1": tps("t0", 0, 1, 2)}
    assert range_assignor.assign({"t0": 3}, []) == {}


def test_range_rack_aware():
    # replicas: p0 on a, p1 on b, p2 on a, p3 on b; both members may take 2 partitions:
    # each takes the unassigned partitions on its rack first
    racks = {"t1": {0: frozenset("a"), 1: frozenset("b"), 2: frozenset("a"), 3: frozenset("b")}}
    members = [member("c1", "t1", rack="a"), member("c2", "t1", rack="b")]
    assert range_assignor.assign({"t1": 4}, members, topic_racks=racks) == {
        "c1": tps("t1", 0, 2), "c2": tps("t1", 1, 3)}
    # without racks: plain ranges
    assert range_assignor.assign({"t1": 4}, members) == {"c1": tps("t1", 0, 1), "c2": tps("t1", 2, 3)}


def test_range_rack_aware_co_partitioned_topics():
    # t1 and t2 have the same members and partition count: partition p of both goes to
    # the same member. p0 lives on rack b -> c2; p1 on rack a -> c1.
    racks = {t: {0: frozenset("b"), 1: frozenset("a")} for t in ("t1", "t2")}
    members = [member("c1", "t1", "t2", rack="a"), member("c2", "t1", "t2", rack="b")]
    assert range_assignor.assign({"t1": 2, "t2": 2}, members, topic_racks=racks) == {
        "c1": [("t1", 1), ("t2", 1)],
        "c2": [("t1", 0), ("t2", 0)],
    }


def test_range_racks_everywhere_is_plain_range():
    racks = {"t0": {p: frozenset({"a", "b"}) for p in range(3)}}
    members = [member("c1", "t0", rack="a"), member("c2", "t0", rack="b")]
    assert range_assignor.assign({"t0": 3}, members, topic_racks=racks) == {
        "c1": tps("t0", 0, 1), "c2": tps("t0", 2)}


# ---------------------------------------------------------------------------
# RoundRobinAssignor
# ---------------------------------------------------------------------------

def test_roundrobin_javadoc_examples():
    members = [member("C0", "t0", "t1"), member("C1", "t0", "t1")]
    assert roundrobin.assign({"t0": 3, "t1": 3}, members) == {
        "C0": [("t0", 0), ("t0", 2), ("t1", 1)],
        "C1": [("t0", 1), ("t1", 0), ("t1", 2)],
    }
    # heterogeneous: a member not subscribed to the partition's topic is skipped
    members = [member("C0", "t0"), member("C1", "t0", "t1"), member("C2", "t0", "t1", "t2")]
    assert roundrobin.assign({"t0": 1, "t1": 2, "t2": 3}, members) == {
        "C0": [("t0", 0)],
        "C1": [("t1", 0)],
        "C2": [("t1", 1), ("t2", 0), ("t2", 1), ("t2", 2)],
    }


def test_roundrobin_static_members():
    members = [member("C3", "t0", "t1", instance="I1"), member("C4", "t0", "t1", instance="I2"),
               member("C5", "t0", "t1", instance="I0")]
    assert roundrobin.assign({"t0": 3, "t1": 3}, members) == {
        "C5": [("t0", 0), ("t1", 0)],
        "C3": [("t0", 1), ("t1", 1)],
        "C4": [("t0", 2), ("t1", 2)],
    }


def test_roundrobin_java_string_order():
    # topics are dealt in Java order: the emoji topic first
    members = [member("C0", FULLWIDTH_A, EMOJI), member("C1", FULLWIDTH_A, EMOJI)]
    assert roundrobin.assign({FULLWIDTH_A: 1, EMOJI: 1}, members) == {
        "C0": [(EMOJI, 0)], "C1": [(FULLWIDTH_A, 0)]}
    # "B" (66) sorts before "a" (97)
    members = [member("a", "t"), member("B", "t")]
    assert roundrobin.assign({"t": 3}, members) == {"B": [("t", 0), ("t", 2)], "a": [("t", 1)]}


# ---------------------------------------------------------------------------
# StickyAssignor (eager)
# ---------------------------------------------------------------------------

FOUR_TOPICS = {"t0": 2, "t1": 2, "t2": 2, "t3": 2}


def test_sticky_fresh_group_is_round_robin_over_sorted_partitions():
    # 8 partitions, 3 members: quotas 2..3. Partitions t0p0, t0p1, t1p0, ... are dealt to
    # C0, C1, C2, C0, C1, C2 (everybody at 2), then to C0 and C1 (the two allowed 3)
    members = [member(c, *FOUR_TOPICS) for c in ("C0", "C1", "C2")]
    assert sticky.assign(FOUR_TOPICS, members) == {
        "C0": [("t0", 0), ("t1", 1), ("t3", 0)],
        "C1": [("t0", 1), ("t2", 0), ("t3", 1)],
        "C2": [("t1", 0), ("t2", 1)],
    }


def test_sticky_member_leaves_keeps_previous_partitions():
    # continuing the group above (generation 1) without C1: quota 4 each. Both keep what
    # they own (sorted by partition number, then topic) and the rest is dealt round robin
    members = [
        member("C0", *FOUR_TOPICS, owned=[("t0", 0), ("t1", 1), ("t3", 0)], generation=1),
        member("C2", *FOUR_TOPICS, owned=[("t1", 0), ("t2", 1)], generation=1),
    ]
    assert sticky.assign(FOUR_TOPICS, members) == {
        "C0": [("t0", 0), ("t3", 0), ("t1", 1), ("t0", 1)],
        "C2": [("t1", 0), ("t2", 1), ("t2", 0), ("t3", 1)],
    }


def test_sticky_heterogeneous_javadoc_example():
    topics = {"t0": 1, "t1": 2, "t2": 3}
    members = [member("C0", "t0"), member("C1", "t0", "t1"), member("C2", "t0", "t1", "t2")]
    # topics are handled from the fewest subscribers (t2) up, each partition to the least
    # loaded subscriber
    assert sticky.assign(topics, members) == {
        "C0": [("t0", 0)],
        "C1": [("t1", 0), ("t1", 1)],
        "C2": [("t2", 0), ("t2", 1), ("t2", 2)],
    }
    # C0 leaves: C1 and C2 keep everything; t0p0 goes to the less loaded C1
    members = [
        member("C1", "t0", "t1", owned=[("t1", 0), ("t1", 1)], generation=1),
        member("C2", "t0", "t1", "t2", owned=[("t2", 0), ("t2", 1), ("t2", 2)], generation=1),
    ]
    assert sticky.assign(topics, members) == {
        "C1": [("t1", 0), ("t1", 1), ("t0", 0)],
        "C2": [("t2", 0), ("t2", 1), ("t2", 2)],
    }


def test_sticky_higher_generation_wins_a_double_claim():
    members = [
        member("C0", "t0", owned=[("t0", 0), ("t0", 1)], generation=1),
        member("C1", "t0", owned=[("t0", 0)], generation=2),
    ]
    assert sticky.assign({"t0": 2}, members) == {"C0": [("t0", 1)], "C1": [("t0", 0)]}


def test_sticky_new_member_takes_over_the_surplus():
    members = [member("C0", "t0", owned=tps("t0", 0, 1, 2, 3), generation=1), member("C1", "t0")]
    assert sticky.assign({"t0": 4}, members) == {"C0": tps("t0", 0, 1), "C1": tps("t0", 2, 3)}


def test_sticky_rack_aware():
    # p0, p1 on rack a and p2, p3 on rack b: each member gets the partitions of its rack
    # (without racks the round robin would give C0 p0, p2 and C1 p1, p3)
    racks = {"t0": {0: frozenset("a"), 1: frozenset("a"), 2: frozenset("b"), 3: frozenset("b")}}
    members = [member("C0", "t0", rack="a"), member("C1", "t0", rack="b")]
    assert sticky.assign({"t0": 4}, members, topic_racks=racks) == {"C0": tps("t0", 0, 1), "C1": tps("t0", 2, 3)}
    assert sticky.assign({"t0": 4}, members) == {"C0": tps("t0", 0, 2), "C1": tps("t0", 1, 3)}


def test_sticky_java_member_order():
    members = [member(FULLWIDTH_A, "t0"), member(EMOJI, "t0")]
    assert sticky.assign({"t0": 2}, members) == {EMOJI: [("t0", 0)], FULLWIDTH_A: [("t0", 1)]}


# ---------------------------------------------------------------------------
# CooperativeStickyAssignor
# ---------------------------------------------------------------------------

def test_cooperative_new_member_waits_for_revocation():
    # C0 must give up t0p2 and t0p3: they are withheld from C1 in the first rebalance
    # and assigned to it in the follow-up one
    members = [member("C0", "t0", owned=tps("t0", 0, 1, 2, 3), generation=1), member("C1", "t0")]
    first, converged = cooperative_sticky.assign_rounds({"t0": 4}, members)
    assert first == {"C0": tps("t0", 0, 1), "C1": []}
    assert converged == {"C0": tps("t0", 0, 1), "C1": tps("t0", 2, 3)}
    assert cooperative_sticky.assign({"t0": 4}, members) == first


def test_cooperative_same_generation_double_claim():
    # two members of generation 2 claim t0p0: neither keeps it, and since it was claimed
    # it is "transferring ownership", so C1 only gets it in the follow-up rebalance
    members = [
        member("C0", "t0", owned=[("t0", 0), ("t0", 1)], generation=2),
        member("C1", "t0", owned=[("t0", 0)], generation=2),
    ]
    first, converged = cooperative_sticky.assign_rounds({"t0": 2}, members)
    assert first == {"C0": [("t0", 1)], "C1": []}
    assert converged == {"C0": [("t0", 1)], "C1": [("t0", 0)]}


def test_cooperative_stable_group_and_leaving_member():
    members = [member("C0", "t0", owned=[("t0", 0)], generation=1),
               member("C1", "t0", owned=[("t0", 1)], generation=1)]
    first, converged = cooperative_sticky.assign_rounds({"t0": 2}, members)
    assert first == converged == {"C0": [("t0", 0)], "C1": [("t0", 1)]}
    # C2 (which owned t0p3) left: nobody has to revoke t0p3, C1 gets it at once
    members = [member("C0", "t0", owned=tps("t0", 0, 1), generation=1),
               member("C1", "t0", owned=tps("t0", 2), generation=1)]
    first, converged = cooperative_sticky.assign_rounds({"t0": 4}, members)
    assert first == converged == {"C0": tps("t0", 0, 1), "C1": tps("t0", 2, 3)}


def test_every_member_is_reported():
    members = [member("A", "t0"), member("B", "t0"), member("C", "t0"), member("D")]
    for assign in (range_assignor.assign, roundrobin.assign, sticky.assign, cooperative_sticky.assign):
        result = assign({"t0": 2}, members)
        assert set(result) == {"A", "B", "C", "D"}
        assert sorted(tp for ps in result.values() for tp in ps) == tps("t0", 0, 1)
        assert by_topic(result["A"] + result["B"] + result["C"]) == {"t0": [0, 1]}


def test_duplicate_member_ids_are_rejected():
    with pytest.raises(ValueError):
        range_assignor.assign({"t0": 1}, [member("A", "t0"), member("A", "t0")])


def test_non_terminating_input_is_reported():
    # Found by the differential test (seed 1) and shrunk: on this fresh group Kafka's
    # StickyAssignor and CooperativeStickyAssignor never return -- a pass of
    # performReassignments moves partitions and ends where it started, forever (checked
    # against kafka-clients 4.3.0: still running after minutes).  The port notices the
    # repeated state and raises instead of hanging.
    racks = {"a": {p: frozenset(r) for p, r in enumerate(["ba", "c", "b", "c", "a", "b", "c", "a", "b"])}}
    members = [
        member("c6", "b"), member("c7", "a"), member("c2", "a", "b", rack="x"), member("c4", "a", rack="a"),
        member("c5", "a", rack="b"), member("c1", "a", "b", rack="x"), member("c3", "b"), member("c9", "b"),
        member("c0", "a", "b", rack="x"), member("c8", "b", "a", rack="x"),
    ]
    for assign in (sticky.assign, cooperative_sticky.assign):
        with pytest.raises(AssignmentDoesNotTerminate):
            assign({"a": 9, "b": 23}, members, topic_racks=racks)
    # the same group without racks is fine
    result = sticky.assign({"a": 9, "b": 23}, members)
    assert sorted(tp for ps in result.values() for tp in ps) == tps("a", *range(9)) + tps("b", *range(23))
