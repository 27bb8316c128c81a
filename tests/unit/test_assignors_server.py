"""KIP-848 server-side assignors: ``uniform`` and ``range`` (kgroup.whatif.assignors.uniform/server_range).

Most expected values are Kafka's own: the scenarios of UniformHomogeneousAssignmentBuilderTest,
UniformHeterogeneousAssignmentBuilderTest, RangeAssignorTest and CommonAssignorTests
(group-coordinator/src/test/java/org/apache/kafka/coordinator/group/assignor/, Kafka trunk
2026-08), re-expressed here.  Kafka's tests put members in a TreeMap and current
assignments in a LinkedHashMap, so they run with ``order="given"`` and members listed in
sorted order; they use fixed topic ids whose HashSet order decides the homogeneous
builder's topic order, so they pass those ids as ``topic_ids``.

Where Kafka's test has no concrete expectation (or the scenario is ours, like the seed
scenario), the expected values are derived by hand from the algorithm, and the derivation
is written next to them.
"""
from __future__ import annotations

import itertools
import random

import pytest

from kgroup.whatif.assignors import server_range, uniform, uniform_input
from kgroup.whatif.assignors.base import MemberSubscription
from kgroup.java.hashmap import bucket_index, iteration_order
from kgroup.java.strings import java_string_hash
from kgroup.java.uuid import parse_uuid, uuid_hash

# The topic ids Kafka's assignor tests use (Uuid.fromString of these strings).
IDS = {
    "topic1": "T1-A4s3VTwiI5CTbEp6POw",
    "topic2": "T2-B4s3VTwiI5YHbPp6YUe",
    "topic3": "T3-CU8fVTLCz5YMkLoDQsa",
    "topic4": "T4-Tw9fVTLCz5HbPp6YQsa",
}


def M(member_id, topics, owned=None, instance=None):
    """A member; ``owned`` is {topic: [partitions]} in iteration order."""
    pairs = tuple((t, p) for t, ps in (owned or {}).items() for p in ps)
    return MemberSubscription(member_id, tuple(topics), group_instance_id=instance, owned=pairs)


def A(**per_member):
    """Expected assignment: A(A={"topic1": [0, 1]}, B={}) -> {member: sorted [(t, p)]}."""
    return {m: sorted((t, p) for t, ps in tps.items() for p in ps) for m, tps in per_member.items()}


def uniform_kafka_test(topics, members, **kw):
    return uniform.assign(topics, members, topic_ids={t: IDS[t] for t in topics}, order="given", **kw)


# ------------------------------------------------------------------------------------------
# Java collection emulation: the ordering facts the rest relies on
# ------------------------------------------------------------------------------------------

def test_java_string_hash_and_buckets():
    # String.hashCode: s[0]*31^(n-1) + ... ; "C1" = 67*31 + 49 = 2126
    assert [java_string_hash(s) for s in ("C1", "C2", "C3")] == [2126, 2127, 2128]
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    # bucket = (h ^ h>>>16) & 15: 2126 -> 14, 2127 -> 15, 2128 -> 0
    assert iteration_order(["C1", "C2", "C3"]) == ["C3", "C1", "C2"]
    # colliding keys keep insertion order
    assert iteration_order(["BB", "Aa"]) == ["BB", "Aa"]
    assert iteration_order(["A", "B", "C"]) == ["A", "B", "C"]
    # and the assignor visits members in that order
    assert [m.member_id for m in uniform_input.ordered_members([M(i, []) for i in ("C1", "C2", "C3")], "java")] \
        == ["C3", "C1", "C2"]


def test_uuid_hash_order_of_kafka_test_topic_ids():
    # Uuid.hashCode = (int)(x >> 32) ^ (int)x with x = msb ^ lsb; buckets in a 16-slot table:
    # topic2 -> 1, topic3 -> 9, topic1 -> 10.  This is why Kafka's homogeneous tests
    # expect topic3 (or topic2) partitions to be handed out before topic1's.
    ids = {t: parse_uuid(IDS[t]) for t in ("topic1", "topic2", "topic3")}
    buckets = {t: bucket_index(uuid_hash(u), 16) for t, u in ids.items()}
    assert buckets == {"topic1": 10, "topic2": 1, "topic3": 9}


def test_hashmap_resizes_when_a_bucket_gets_nine_keys():
    # 16 strings with one hash code ("Aa"/"BB" blocks).  The 9th colliding key makes a
    # 16-slot HashMap resize (treeifyBin on a table < 64), the 10th again: order is kept.
    same = ["".join(p) for p in itertools.product(["Aa", "BB"], repeat=4)][:10]
    assert iteration_order(same) == same


# ------------------------------------------------------------------------------------------
# uniform, homogeneous: UniformHomogeneousAssignmentBuilderTest
# ------------------------------------------------------------------------------------------

def test_homogeneous_one_member_no_topic_subscription():
    assert uniform_kafka_test({"topic1": 3}, [M("A", [])]) == A(A={})


def test_homogeneous_one_member_subscribed_to_nonexistent_topic():
    # Kafka's assignor throws here; in a broker the TopicIds resolver drops unknown names
    # before the assignor runs, which is what we mirror: nothing to assign.
    assert uniform_kafka_test({"topic1": 3}, [M("A", ["topic2"])]) == A(A={})


def test_homogeneous_first_assignment_two_members_two_topics():
    got = uniform_kafka_test({"topic1": 3, "topic3": 2},
                             [M("A", ["topic1", "topic3"]), M("B", ["topic1", "topic3"])])
    assert got == A(A={"topic3": [0, 1]}, B={"topic1": [0, 1, 2]})


def test_homogeneous_first_assignment_more_members_than_partitions():
    got = uniform_kafka_test({"topic3": 2}, [M("A", ["topic3"]), M("B", ["topic3"]), M("C", ["topic3"])])
    assert got == A(A={}, B={"topic3": [0]}, C={"topic3": [1]})


def test_homogeneous_reassignment_given_unbalanced_previous_assignment():
    got = uniform_kafka_test(
        {"topic1": 3, "topic2": 3},
        [M("A", ["topic1", "topic2"], {"topic1": [0, 1], "topic2": [0, 1]}),
         M("B", ["topic1", "topic2"], {"topic1": [2], "topic2": [2]})])
    assert got == A(A={"topic1": [0, 1], "topic2": [0]}, B={"topic1": [2], "topic2": [1, 2]})


def test_homogeneous_reassignment_when_partitions_are_added():
    got = uniform_kafka_test(
        {"topic1": 6, "topic2": 5},
        [M("A", ["topic1", "topic2"], {"topic1": [0, 2], "topic2": [0]}),
         M("B", ["topic1", "topic2"], {"topic1": [1], "topic2": [1, 2]})])
    assert got == A(A={"topic1": [0, 2], "topic2": [0, 3, 4]}, B={"topic1": [1, 3, 4, 5], "topic2": [1, 2]})


def test_homogeneous_reassignment_when_one_member_added():
    got = uniform_kafka_test(
        {"topic1": 3, "topic2": 3},
        [M("A", ["topic1", "topic2"], {"topic1": [0, 2], "topic2": [0]}),
         M("B", ["topic1", "topic2"], {"topic1": [1], "topic2": [1, 2]}),
         M("C", ["topic1", "topic2"])])
    assert got == A(A={"topic1": [0, 2]}, B={"topic1": [1], "topic2": [1]}, C={"topic2": [0, 2]})


def test_homogeneous_reassignment_when_one_member_removed():
    # The freed partitions topic2-2 and topic1-2 are handed out in topic-id HashSet order
    # (topic2 before topic1), so A gets topic2-2: this depends on the topic ids.
    members = [M("A", ["topic1", "topic2"], {"topic2": [0], "topic1": [0]}),
               M("B", ["topic1", "topic2"], {"topic2": [1], "topic1": [1]})]
    got = uniform_kafka_test({"topic1": 3, "topic2": 3}, members)
    assert got == A(A={"topic1": [0], "topic2": [0, 2]}, B={"topic1": [1, 2], "topic2": [1]})
    # Without topic ids topics go in name order: topic1-2 first, to A.
    by_name = uniform.assign({"topic1": 3, "topic2": 3}, members, order="given")
    assert by_name == A(A={"topic1": [0, 2], "topic2": [0]}, B={"topic1": [1], "topic2": [1, 2]})


def test_homogeneous_reassignment_when_one_subscription_removed():
    got = uniform_kafka_test(
        {"topic1": 2, "topic2": 2},
        [M("A", ["topic2"], {"topic1": [0], "topic2": [0]}),
         M("B", ["topic2"], {"topic1": [1], "topic2": [1]})])
    assert got == A(A={"topic2": [0]}, B={"topic2": [1]})


def test_homogeneous_stickiness_when_already_balanced_kafka_18688():
    # testReassignmentStickinessWhenAlreadyBalanced, added by KAFKA-18688: 5 partitions,
    # 3 members, A and C hold the two "extra" partitions.  Kafka's test declares the group
    # HOMOGENEOUS although B and C also name a topic2 that does not exist; we force it too.
    members = [M("A", ["topic1"], {"topic1": [0, 3]}),
               M("B", ["topic1", "topic2"], {"topic1": [1]}),
               M("C", ["topic1", "topic2"], {"topic1": [2, 4]})]
    expected = A(A={"topic1": [0, 3]}, B={"topic1": [1]}, C={"topic1": [2, 4]})
    assert uniform_kafka_test({"topic1": 5}, members, subscription=uniform.HOMOGENEOUS) == expected
    # Kafka 4.0.0 (before the fix) gave the extra slots to the first two members in
    # iteration order: C may keep only 1 partition and gives topic1-4 to B (hand-derived).
    old = uniform_kafka_test({"topic1": 5}, members, subscription=uniform.HOMOGENEOUS, pre_kafka_18688=True)
    assert old == A(A={"topic1": [0, 3]}, B={"topic1": [1, 4]}, C={"topic1": [2]})


def test_homogeneous_pre_kafka_18688_expectations():
    # The same scenarios as above with the expectations Kafka's test had before KAFKA-18688.
    run = lambda topics, members: uniform_kafka_test(topics, members, pre_kafka_18688=True)  # noqa: E731
    assert run({"topic1": 3, "topic3": 2}, [M("A", ["topic1", "topic3"]), M("B", ["topic1", "topic3"])]) == \
        A(A={"topic1": [0], "topic3": [0, 1]}, B={"topic1": [1, 2]})
    assert run({"topic3": 2}, [M("A", ["topic3"]), M("B", ["topic3"]), M("C", ["topic3"])]) == \
        A(A={"topic3": [0]}, B={"topic3": [1]}, C={})
    assert run({"topic1": 6, "topic2": 5},
               [M("A", ["topic1", "topic2"], {"topic1": [0, 2], "topic2": [0]}),
                M("B", ["topic1", "topic2"], {"topic1": [1], "topic2": [1, 2]})]) == \
        A(A={"topic1": [0, 2, 3], "topic2": [0, 3, 4]}, B={"topic1": [1, 4, 5], "topic2": [1, 2]})


# ------------------------------------------------------------------------------------------
# uniform, heterogeneous: UniformHeterogeneousAssignmentBuilderTest
# ------------------------------------------------------------------------------------------

HET = {"subscription": uniform.HETEROGENEOUS}


def test_heterogeneous_two_members_no_topic_subscription():
    assert uniform_kafka_test({"topic1": 3}, [M("A", []), M("B", [])], **HET) == A(A={}, B={})


def test_heterogeneous_two_members_subscribed_to_nonexistent_topics():
    # Kafka's assignor throws; the broker drops unknown names first (see module docstring).
    assert uniform_kafka_test({"topic1": 3}, [M("A", ["topic3"]), M("B", ["topic2"])]) == A(A={}, B={})


def test_heterogeneous_first_assignment_two_members_two_topics():
    got = uniform_kafka_test({"topic1": 3, "topic3": 6}, [M("A", ["topic1", "topic3"]), M("B", ["topic3"])])
    assert got == A(A={"topic1": [0, 1, 2], "topic3": [4]}, B={"topic3": [0, 1, 2, 3, 5]})


def test_heterogeneous_first_assignment_more_members_than_partitions():
    got = uniform_kafka_test({"topic1": 2, "topic3": 1},
                             [M("A", ["topic3"]), M("B", ["topic3"]), M("C", ["topic1"])])
    assert got == A(A={"topic3": [0]}, B={}, C={"topic1": [0, 1]})


def test_heterogeneous_reassignment_given_unbalanced_previous_assignment():
    got = uniform_kafka_test(
        {"topic1": 6, "topic2": 4, "topic3": 4},
        [M("A", ["topic1"], {"topic1": [0, 1, 2]}),
         M("B", ["topic1", "topic2"], {"topic1": [3], "topic2": [0]}),
         M("C", ["topic1", "topic2", "topic3"], {"topic1": [4, 5], "topic2": [1, 2, 3], "topic3": [0, 1, 2, 3]})])
    assert got == A(A={"topic1": [0, 1, 2, 5]},
                    B={"topic1": [3], "topic2": [0, 1, 2, 3]},
                    C={"topic1": [4], "topic3": [0, 1, 2, 3]})


def test_heterogeneous_reassignment_when_partitions_are_added():
    got = uniform_kafka_test(
        {"topic1": 6, "topic2": 5, "topic3": 3, "topic4": 3},
        [M("A", ["topic1", "topic3"], {"topic1": [0, 1, 2, 3], "topic3": [0, 1]}),
         M("B", ["topic1", "topic2", "topic3", "topic4"], {"topic2": [0, 1, 2], "topic4": [0, 1, 2]})])
    assert got == A(A={"topic1": [0, 1, 2, 3, 4, 5], "topic3": [0, 1, 2]},
                    B={"topic2": [0, 1, 2, 3, 4], "topic4": [0, 1, 2]})


def test_heterogeneous_reassignment_when_member_and_partitions_added():
    got = uniform_kafka_test(
        {"topic1": 6, "topic2": 7},
        [M("A", ["topic1"], {"topic1": [0, 2], "topic2": [0]}),
         M("B", ["topic1", "topic2"], {"topic1": [1], "topic2": [1, 2]}),
         M("C", ["topic1", "topic2"])])
    assert got == A(A={"topic1": [0, 2, 3, 4, 5]}, B={"topic1": [1], "topic2": [1, 2, 6]},
                    C={"topic2": [0, 3, 4, 5]})


def test_heterogeneous_reassignment_when_one_member_removed():
    got = uniform_kafka_test(
        {"topic1": 3, "topic2": 8, "topic3": 3},
        [M("A", ["topic1", "topic3"], {"topic1": [0, 1, 2], "topic3": [0, 1]}),
         M("B", ["topic2"], {"topic2": [3, 4, 5, 6]})])
    assert got == A(A={"topic1": [0, 1, 2], "topic3": [0, 1, 2]}, B={"topic2": list(range(8))})


def test_heterogeneous_reassignment_when_one_subscription_removed():
    got = uniform_kafka_test(
        {"topic1": 3, "topic2": 5},
        [M("A", ["topic1"], {"topic1": [0, 2], "topic2": [1, 3]}),
         M("B", ["topic1", "topic2"], {"topic1": [1], "topic2": [0, 2, 4]})])
    assert got == A(A={"topic1": [0, 1, 2]}, B={"topic2": [0, 1, 2, 3, 4]})


def test_heterogeneous_topic_partitions_run_out_before_balanced():
    # Identical subscriptions, but Kafka's test forces the heterogeneous builder.  All
    # topics tie on partitions per subscriber and subscriber count, so the topic-id order
    # (topic1 < topic2 < topic3) decides which topic moves first.
    all3 = ["topic1", "topic2", "topic3"]
    got = uniform_kafka_test(
        {"topic1": 2, "topic2": 2, "topic3": 2},
        [M("A", all3, {"topic1": [0, 1], "topic2": [0, 1], "topic3": [0, 1]}), M("B", all3)], **HET)
    assert got == A(A={"topic2": [0], "topic3": [0, 1]}, B={"topic1": [0, 1], "topic2": [1]})


def test_heterogeneous_tie_break_uses_topic_id_not_name():
    # The scenario above with topics renamed so that name order and id order disagree:
    # x has topic3's id, y topic2's, z topic1's, so by id z < y < x and z plays topic1.
    all3 = ["x", "y", "z"]
    members = [M("A", all3, {"x": [0, 1], "y": [0, 1], "z": [0, 1]}), M("B", all3)]
    topics = {"x": 2, "y": 2, "z": 2}
    ids = {"x": IDS["topic3"], "y": IDS["topic2"], "z": IDS["topic1"]}
    got = uniform.assign(topics, members, topic_ids=ids, order="given", **HET)
    assert got == A(A={"y": [0], "x": [0, 1]}, B={"z": [0, 1], "y": [1]})
    # Without ids the name breaks the tie: x plays topic1.
    got = uniform.assign(topics, members, order="given", **HET)
    assert got == A(A={"y": [0], "z": [0, 1]}, B={"x": [0, 1], "y": [1]})


def test_heterogeneous_one_member_without_subscriptions():
    got = uniform_kafka_test({"topic1": 3}, [M("A", ["topic1"]), M("B", [])])
    assert got == A(A={"topic1": [0, 1, 2]}, B={})


# ------------------------------------------------------------------------------------------
# CommonAssignorTests (both builders, and range): assignment reuse and stickiness
# ------------------------------------------------------------------------------------------

COMMON_TOPICS = {"topic1": 2, "topic2": 5, "topic3": 7}


def _with_owned(members, assignment):
    return [MemberSubscription(m.member_id, m.topics, m.group_instance_id, m.rack,
                               tuple(assignment[m.member_id])) for m in members]


@pytest.mark.parametrize("kind", [uniform.HOMOGENEOUS, uniform.HETEROGENEOUS])
def test_common_assignment_reuse_and_reassignment_stickiness_uniform(kind):
    members = [M(m, list(COMMON_TOPICS)) for m in "ABC"]
    first = uniform.assign(COMMON_TOPICS, members, subscription=kind)
    # testAssignmentReuse: feeding the assignment back changes nothing.
    assert uniform.assign(COMMON_TOPICS, _with_owned(members, first), subscription=kind) == first
    # testReassignmentStickiness: nor does any member order.
    for perm in itertools.permutations(_with_owned(members, first)):
        assert uniform.assign(COMMON_TOPICS, list(perm), subscription=kind, order="given") == first


def test_common_reassignment_stickiness_range():
    members = [M(m, list(COMMON_TOPICS)) for m in "ABC"]
    first = server_range.assign(COMMON_TOPICS, members)
    for perm in itertools.permutations(_with_owned(members, first)):
        assert server_range.assign(COMMON_TOPICS, list(perm)) == first


# ------------------------------------------------------------------------------------------
# The seed scenario: Order (7), Stock (5), C1..C3 subscribed to both
# ------------------------------------------------------------------------------------------

SEED_TOPICS = {"Order": 7, "Stock": 5}
SEED = [M(c, ["Order", "Stock"]) for c in ("C1", "C2", "C3")]


def test_seed_uniform_in_broker_member_order():
    # 12 partitions / 3 members = 4 each, no extra.  The broker visits members in Java
    # HashMap order: C3 (bucket 0), C1 (14), C2 (15).  Topics in name order (no ids):
    # Order-0..6 then Stock-0..4, dealt 4 at a time.
    assert uniform.assign(SEED_TOPICS, SEED) == A(
        C1={"Order": [4, 5, 6], "Stock": [0]}, C2={"Stock": [1, 2, 3, 4]}, C3={"Order": [0, 1, 2, 3]})


def test_seed_uniform_in_given_order():
    assert uniform.assign(SEED_TOPICS, SEED, order="given") == A(
        C1={"Order": [0, 1, 2, 3]}, C2={"Order": [4, 5, 6], "Stock": [0]}, C3={"Stock": [1, 2, 3, 4]})


def test_seed_uniform_stickiness_when_c4_joins():
    # Current (given-order) assignment above; C4 joins: 12 / 4 = 3 each.  Member order
    # C3 (0), C4 (1), C1 (14), C2 (15).  C3 keeps Stock-1,2,3 and frees Stock-4; C1 keeps
    # Order-0,1,2 and frees Order-3; C2 keeps Order-4,5,6 (Order iterated first) and frees
    # Stock-0.  C4 (the only member under quota) gets them: Stock-4, Order-3, Stock-0.
    current = uniform.assign(SEED_TOPICS, SEED, order="given")
    members = _with_owned(SEED, current) + [M("C4", ["Order", "Stock"])]
    got = uniform.assign(SEED_TOPICS, members)
    assert got == A(C1={"Order": [0, 1, 2]}, C2={"Order": [4, 5, 6]}, C3={"Stock": [1, 2, 3]},
                    C4={"Order": [3], "Stock": [0, 4]})
    for member in ("C1", "C2", "C3"):
        assert set(got[member]) <= set(current[member])


def test_seed_range():
    # Sorted member ids C1 < C2 < C3; Order 7 = 3+2+2, Stock 5 = 2+2+1.
    assert server_range.assign(SEED_TOPICS, SEED) == A(
        C1={"Order": [0, 1, 2], "Stock": [0, 1]},
        C2={"Order": [3, 4], "Stock": [2, 3]},
        C3={"Order": [5, 6], "Stock": [4]})


# ------------------------------------------------------------------------------------------
# range: RangeAssignorTest
# ------------------------------------------------------------------------------------------

def test_range_one_member_no_topic():
    assert server_range.assign({}, [M("A", [])]) == A(A={})


def test_range_one_member_subscribed_to_nonexistent_topic():
    # Kafka's assignor throws; the broker never passes unknown topics (TopicIds).
    assert server_range.assign({"topic1": 3}, [M("A", ["topic2"])]) == A(A={})


def test_range_first_assignment_same_subscriptions():
    got = server_range.assign({"topic1": 3, "topic3": 2},
                              [M("A", ["topic1", "topic3"]), M("B", ["topic1", "topic3"])])
    assert got == A(A={"topic1": [0, 1], "topic3": [0]}, B={"topic1": [2], "topic3": [1]})


def test_range_first_assignment_different_subscriptions():
    got = server_range.assign({"topic1": 3, "topic2": 3, "topic3": 2},
                              [M("A", ["topic1", "topic2"]), M("B", ["topic3"]), M("C", ["topic2", "topic3"])])
    assert got == A(A={"topic1": [0, 1, 2], "topic2": [0, 1]}, B={"topic3": [0]},
                    C={"topic2": [2], "topic3": [1]})


def test_range_more_members_than_partitions():
    both = ["topic1", "topic3"]
    got = server_range.assign({"topic1": 3, "topic3": 2}, [M("A", both), M("B", both), M("C", both)])
    assert got == A(A={"topic1": [0], "topic3": [0]}, B={"topic1": [1], "topic3": [1]}, C={"topic1": [2]})


def test_range_static_membership():
    first = server_range.assign({"topic1": 3}, [M("A", ["topic1"], instance="instanceA"),
                                                M("B", ["topic1"], instance="instanceB")])
    again = server_range.assign({"topic1": 3}, [M("B", ["topic1"], instance="instanceB"),
                                                M("memberA1", ["topic1"], instance="instanceA")])
    assert again["memberA1"] == first["A"] and again["B"] == first["B"]


def test_range_mixed_static_membership():
    members = [M("A", ["topic1"], instance="instanceA"), M("C", ["topic1"], instance="instanceC"),
               M("B", ["topic1"])]
    first = server_range.assign({"topic1": 5}, members)
    again = server_range.assign({"topic1": 5}, [M("memberA1", ["topic1"], instance="instanceA")] + members[1:])
    assert again["memberA1"] == first["A"] and again["B"] == first["B"] and again["C"] == first["C"]
    # Static members first (instanceA, instanceC), then dynamic B: 5 = 2 + 2 + 1.
    assert first == A(A={"topic1": [0, 1]}, B={"topic1": [4]}, C={"topic1": [2, 3]})


def test_range_reassignment_when_member_added_and_partitions_run_out():
    both = ["topic1", "topic2"]
    got = server_range.assign({"topic1": 2, "topic2": 2}, [
        M("A", both, {"topic1": [0], "topic2": [0]}), M("B", both, {"topic1": [1], "topic2": [1]}), M("C", both)])
    assert got == A(A={"topic1": [0], "topic2": [0]}, B={"topic1": [1], "topic2": [1]}, C={})


def test_range_reassignment_when_one_partition_added():
    both = ["topic1", "topic2"]
    got = server_range.assign({"topic1": 4, "topic2": 4}, [
        M("A", both, {"topic1": [0, 1], "topic2": [0, 1]}), M("B", both, {"topic1": [2], "topic2": [2]})])
    assert got == A(A={"topic1": [0, 1], "topic2": [0, 1]}, B={"topic1": [2, 3], "topic2": [2, 3]})


def test_range_reassignment_when_one_member_added():
    both = ["topic1", "topic2"]
    got = server_range.assign({"topic1": 3, "topic2": 3}, [
        M("A", both, {"topic1": [0, 1], "topic2": [0, 1]}), M("B", both, {"topic1": [2], "topic2": [2]}),
        M("C", both)])
    assert got == A(A={"topic1": [0], "topic2": [0]}, B={"topic1": [1], "topic2": [1]},
                    C={"topic1": [2], "topic2": [2]})


def test_range_reassignment_when_member_and_partition_added_heterogeneous():
    both = ["topic1", "topic2"]
    got = server_range.assign({"topic1": 4, "topic2": 3}, [
        M("A", both, {"topic1": [0, 1], "topic2": [0, 1]}), M("B", both, {"topic1": [2], "topic2": [2]}),
        M("C", ["topic1"])])
    assert got == A(A={"topic1": [0, 1], "topic2": [0, 1]}, B={"topic1": [2], "topic2": [2]}, C={"topic1": [3]})


def test_range_reassignment_when_one_member_removed():
    got = server_range.assign({"topic1": 3, "topic2": 3},
                              [M("B", ["topic1", "topic2"], {"topic1": [2], "topic2": [2]})])
    assert got == A(B={"topic1": [0, 1, 2], "topic2": [0, 1, 2]})


def test_range_reassignment_when_subscriptions_change():
    got = server_range.assign({"topic1": 3, "topic2": 3, "topic3": 2}, [
        M("A", ["topic1"], {"topic1": [0, 1, 2], "topic2": [0]}),
        M("B", ["topic1", "topic2", "topic3"], {"topic2": [1]}),
        M("C", ["topic2"], {"topic2": [2], "topic3": [0, 1]})])
    assert got == A(A={"topic1": [0, 1]}, B={"topic1": [2], "topic2": [0, 1], "topic3": [0, 1]},
                    C={"topic2": [2]})


def test_range_javadoc_example_and_member_id_order():
    # RangeAssignor's Javadoc: M0, M1 and two 3-partition topics -> M0 [T1P0, T1P1, T2P0,
    # T2P1], M1 [T1P2, T2P2].  Renamed members (M3 was M0, M2 was M1) swap ranges.
    both = ["T1", "T2"]
    topics = {"T1": 3, "T2": 3}
    assert server_range.assign(topics, [M("M0", both), M("M1", both)]) == A(
        M0={"T1": [0, 1], "T2": [0, 1]}, M1={"T1": [2], "T2": [2]})
    assert server_range.assign(topics, [M("M3", both), M("M2", both)]) == A(
        M3={"T1": [2], "T2": [2]}, M2={"T1": [0, 1], "T2": [0, 1]})
    # ... unless instance ids pin the order.
    assert server_range.assign(topics, [M("M3", both, instance="I0"), M("M2", both, instance="I1")]) == A(
        M3={"T1": [0, 1], "T2": [0, 1]}, M2={"T1": [2], "T2": [2]})


def test_range_sorts_like_java_string_compare_to():
    # U+FF5E (one UTF-16 unit) sorts after U+1F600 (surrogates D83D DE00) in Java,
    # although its code point is smaller.
    members = [M("\uff5e", ["t"]), M("\U0001F600", ["t"])]
    assert [m.member_id for m in server_range.sorted_members(members)] == ["\U0001F600", "\uff5e"]


def test_range_ignores_current_assignment():
    both = ["t"]
    plain = server_range.assign({"t": 4}, [M("A", both), M("B", both)])
    owned = server_range.assign({"t": 4}, [M("A", both, {"t": [2, 3]}), M("B", both, {"t": [0, 1]})])
    assert plain == owned == A(A={"t": [0, 1]}, B={"t": [2, 3]})


# ------------------------------------------------------------------------------------------
# Properties on random groups
# ------------------------------------------------------------------------------------------

def _random_group(rng, homogeneous):
    names = [f"t{i}" for i in range(rng.randint(1, 6))]
    topics = {t: rng.randint(0, 20) for t in names}
    ids = [f"m{i}" if rng.random() < 0.5 else f"consumer-{rng.getrandbits(40):x}" for i in range(rng.randint(1, 15))]
    ids = list(dict.fromkeys(ids))
    common = rng.sample(names, rng.randint(1, len(names)))
    tps = [(t, p) for t in names for p in range(topics[t])]
    owner = {tp: rng.choice(ids + [None, None]) for tp in tps}
    members = []
    for mid in ids:
        subs = common if homogeneous else rng.sample(names, rng.randint(0, len(names)))
        members.append(MemberSubscription(mid, tuple(subs), owned=tuple(tp for tp in tps if owner[tp] == mid)))
    return topics, members


def _check_valid(topics, members, result):
    subs = {m.member_id: set(m.topics) for m in members}
    assert set(result) == set(subs)
    seen = {}
    for mid, tps in result.items():
        for t, p in tps:
            assert t in subs[mid], "partition of a topic the member does not subscribe to"
            assert (t, p) not in seen, f"{t}-{p} assigned twice"
            seen[(t, p)] = mid
    wanted = {(t, p) for s in subs.values() for t in s if t in topics for p in range(topics[t])}
    assert set(seen) == wanted, "every subscribed partition is assigned exactly once"


def for_each_seed(seeds, prop) -> None:
    """Run a property over many seeded random groups in one test; a failure names its seed."""
    for seed in seeds:
        try:
            prop(seed)
        except Exception as exc:
            raise AssertionError(f"{prop.__name__} fails for seed {seed}: {exc!r}") from exc


def test_uniform_homogeneous_properties():
    for_each_seed(range(150), _uniform_homogeneous_property)


def _uniform_homogeneous_property(seed):
    rng = random.Random(seed)
    topics, members = _random_group(rng, homogeneous=True)
    result = uniform.assign(topics, members)
    _check_valid(topics, members, result)
    sizes = [len(v) for v in result.values()]
    assert max(sizes) - min(sizes) <= 1
    total = sum(sizes)
    quota_max = -(-total // len(members))
    for m in members:
        kept = set(m.owned) & set(result[m.member_id])
        owned_valid = {tp for tp in m.owned if tp[0] in m.topics}
        new = set(result[m.member_id])
        # stickiness: a member either keeps all it had (and may gain) or only loses
        assert owned_valid <= new or new <= owned_valid
        # and keeps as much as the quota allows
        assert len(kept) >= min(len(owned_valid), total // len(members))
        assert len(new) <= quota_max
    # an already balanced assignment is kept as is
    again = uniform.assign(topics, _with_owned(members, result))
    assert again == result


def test_uniform_heterogeneous_properties():
    for_each_seed(range(150), _uniform_heterogeneous_property)


def _uniform_heterogeneous_property(seed):
    rng = random.Random(10_000 + seed)
    topics, members = _random_group(rng, homogeneous=False)
    result = uniform.assign(topics, members, subscription=uniform.HETEROGENEOUS)
    _check_valid(topics, members, result)
    # the builder's own fixpoint: its output fed back is kept
    assert uniform.assign(topics, _with_owned(members, result), subscription=uniform.HETEROGENEOUS) == result
    # no partition of a topic can move to a less loaded subscriber of it and improve balance
    # by two or more (the builder's per-topic balancing goal): whoever holds a partition of t
    # has at most one partition more than any other subscriber of t
    size = {mid: len(tps) for mid, tps in result.items()}
    for mid, tps in result.items():
        for t in {t for t, _ in tps}:
            for other in members:
                if t in other.topics:
                    assert size[mid] - size[other.member_id] <= 1, (t, mid, other.member_id, size)


def test_uniform_heterogeneous_balances_identical_subscriptions():
    for_each_seed(range(60), _heterogeneous_identical_subscriptions_property)


def _heterogeneous_identical_subscriptions_property(seed):
    # "This method produces perfectly balanced assignments when all subscribers of a topic
    # have the same subscriptions" (UniformHeterogeneousAssignmentBuilder.balanceTopics).
    rng = random.Random(30_000 + seed)
    topics, members = _random_group(rng, homogeneous=True)
    result = uniform.assign(topics, members, subscription=uniform.HETEROGENEOUS)
    _check_valid(topics, members, result)
    sizes = [len(v) for v in result.values()]
    assert max(sizes) - min(sizes) <= 1


def test_range_properties():
    for_each_seed(range(100), _range_property)


def _range_property(seed):
    rng = random.Random(20_000 + seed)
    topics, members = _random_group(rng, homogeneous=rng.random() < 0.5)
    result = server_range.assign(topics, members)
    _check_valid(topics, members, result)
    order = [m.member_id for m in server_range.sorted_members(members)]
    for t, count in topics.items():
        subs = [mid for mid in order if t in next(m.topics for m in members if m.member_id == mid)]
        got = [sorted(p for tt, p in result[mid] if tt == t) for mid in subs]
        # contiguous ranges, handed out in sorted member order, sizes differ by at most one
        flat = [p for ps in got for p in ps]
        if subs:
            assert flat == list(range(count))
        sizes = [len(ps) for ps in got]
        if sizes:
            assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


def test_validity_and_balance_for_large_sample_set():
    # testValidityAndBalanceForLargeSampleSet: 100 topics x 3 partitions, 49 members.
    topics = {f"topic-{i}": 3 for i in range(1, 101)}
    members = [M(f"member{i}", list(topics)) for i in range(1, 50)]
    result = uniform.assign(topics, members)
    _check_valid(topics, members, result)
    assert {len(v) for v in result.values()} == {6, 7}


def test_rejects_double_ownership_and_bad_input():
    with pytest.raises(ValueError):
        uniform.assign({"t": 2}, [M("A", ["t"], {"t": [0]}), M("B", ["t"], {"t": [0]})])
    with pytest.raises(ValueError):
        uniform.assign({"t": 2}, [M("A", ["t"]), M("A", ["t"])])
    with pytest.raises(ValueError):
        uniform.assign({"t": 2}, [M("A", ["t"])], topic_ids={"t": "not-a-uuid"})
    with pytest.raises(ValueError):
        uniform.assign({"t": 2}, [M("A", ["t"])], order="sorted")


def test_racks_are_ignored():
    members = [MemberSubscription("A", ("t",), rack="r1"), MemberSubscription("B", ("t",), rack="r2")]
    racks = {"t": {0: frozenset({"r2"}), 1: frozenset({"r1"})}}
    assert uniform.assign({"t": 2}, members, topic_racks=racks) == uniform.assign({"t": 2}, members)
    assert server_range.assign({"t": 2}, members, topic_racks=racks) == server_range.assign({"t": 2}, members)


def test_the_brokers_jdk_decides_which_partitions_a_member_over_quota_keeps():
    # A's 12 partitions come back from the log as new HashSet<>(list): 32 buckets on JDK 17
    # (ascending), 16 on JDK 21 (1, 17, 2, 18, ...); with quota 6, A keeps the first six
    parts = [1, 2, 3, 4, 5, 6, 17, 18, 19, 20, 21, 22]
    members = [M("A", ["t"], owned={"t": parts})] + [M(x, ["t"]) for x in "BCD"]
    assert uniform.assign({"t": 24}, members)["A"] == [("t", p) for p in (1, 2, 3, 4, 5, 6)]
    assert uniform.assign({"t": 24}, members, jdk=17)["A"] == [("t", p) for p in (1, 2, 3, 4, 5, 6)]
    assert uniform.assign({"t": 24}, members, jdk=21)["A"] == [("t", p) for p in (1, 2, 3, 17, 18, 19)]
