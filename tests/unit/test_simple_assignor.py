"""The share-group ``simple`` assignor and the Java collections it runs on, on small inputs whose
answers are worked out by hand below from Kafka's rules (the differential test compares
thousands of random inputs with Kafka's own classes).

Topic ids are chosen by their ``Uuid.hashCode()`` (``T0`` hashes to 0, ``T1`` to 1), so that the
order of the coordinator's maps is easy to follow: a ``TopicIdPartition`` of ``T0`` hashes to its
partition number, and ``Integer`` keys below a table's size iterate in ascending order. Member ids
"a", "b", "c" hash to 97, 98, 99: buckets 1, 2, 3 of any table of 4 or more.
"""
from __future__ import annotations

import base64
import struct

import pytest

from kgroup.java.mutable import JavaIterator, JavaMap, JavaSet, TreeBinNotModelled, int_hash, presized_capacity
from kgroup.java.strings import java_string_hash
from kgroup.java.uuid import parse_uuid, uuid_hash
from kgroup.whatif.assignors import simple
from kgroup.whatif.assignors.base import AssignorNeverReturns
from kgroup.whatif.assignors.simple.model import desired_counts

ShareTopic, ShareMember = simple.ShareTopic, simple.ShareMember


def _topic_id(msb: int, lsb: int) -> str:
    return base64.urlsafe_b64encode(struct.pack(">qq", msb, lsb)).decode().rstrip("=")


T0 = _topic_id(5, 5)  # msb ^ lsb = 0: hashCode 0
T1 = _topic_id(4, 5)  # msb ^ lsb = 1: hashCode 1


def test_topic_ids_hash_as_the_tests_assume():
    assert uuid_hash(parse_uuid(T0)) == 0 and uuid_hash(parse_uuid(T1)) == 1
    assert [java_string_hash(m) for m in "abc"] == [97, 98, 99]
    assert java_string_hash("Aa") == java_string_hash("BB")


# ------------------------------------------------------------------------------------------
# the Java collections
# ------------------------------------------------------------------------------------------

def test_presized_capacity_is_kafkas_float_formula():
    # (int) (((n + 1) / 0.75f) + 1)
    assert [presized_capacity(n) for n in (0, 1, 2, 7, 11)] == [2, 3, 5, 11, 17]


def test_compute_if_absent_grows_an_over_full_table_even_for_a_present_key():
    m: JavaMap[int, str] = JavaMap(0, hash_of=int_hash)  # new HashMap<>(0): a table of 1
    for key in (1, 2, 0, 4):
        m.compute_if_absent(key, lambda: "v")
    # tables 1 -> 2 -> 4 (each grown before an insertion once size > 3/4); 4 and 0 share bucket 0,
    # the later one at its head
    assert m.capacity == 4 and m.keys() == [4, 0, 1, 2]
    m.compute_if_absent(1, lambda: "other")  # present, but 4 > 3: Java grows the table first
    assert m.capacity == 8 and m.keys() == [0, 1, 2, 4] and m.get(1) == "v"


def test_put_grows_after_inserting_and_a_key_put_again_goes_last():
    m: JavaMap[int, None] = JavaMap(0, hash_of=int_hash)
    for key in (1, 2, 0, 4):
        m.put(key, None)
    assert m.capacity == 8 and m.keys() == [0, 1, 2, 4]  # the 4th put made 4 > 3: grown after it
    s: JavaSet[int] = JavaSet(hash_of=int_hash)
    for key in (1, 17, 33):
        s.add(key)
    assert s.remove(1) and not s.remove(1)
    s.add(1)
    assert s.elements() == [17, 33, 1]


def test_a_long_chain_grows_a_small_table_and_is_refused_in_a_large_one():
    m: JavaMap[int, None] = JavaMap(hash_of=lambda k: 0 if k < 100 else k)
    for key in range(9):
        m.put(key, None)
    assert m.capacity == 32  # the 9th key in one bucket of 16 doubles the table instead of a tree
    big: JavaMap[int, None] = JavaMap(64, hash_of=lambda k: 0)
    for key in range(8):
        big.put(key, None)
    with pytest.raises(TreeBinNotModelled):
        big.put(8, None)


def test_copy_of_sizes_the_set_by_jdk():
    # 12 elements: JDK 17 sizes new HashSet<>(c) at 32 buckets, JDK 19+ at 16, so 16 and 0 swap places
    elements = [16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    assert JavaSet.copy_of(elements, 12, hash_of=int_hash, jdk=17).elements() == sorted(elements)
    assert JavaSet.copy_of(elements, 12, hash_of=int_hash, jdk=21).elements()[:2] == [16, 0]


def test_iterator_sees_what_was_there_when_it_started():
    s: JavaSet[int] = JavaSet(hash_of=int_hash)
    for key in (3, 1, 2):
        s.add(key)
    it = JavaIterator(s)
    assert it.next() == 1
    it.remove()
    assert it.next() == 2 and it.next() == 3 and not it.has_next()
    assert s.elements() == [2, 3]
    with pytest.raises(LookupError):
        it.next()


# ------------------------------------------------------------------------------------------
# the assignor
# ------------------------------------------------------------------------------------------

def test_desired_counts_keep_javas_rounding():
    # 7 partitions, 3 members: ceil(7/3) = 3, ceil(14/3) - 3 = 2, 7 - 5 = 2
    assert desired_counts(1, 7, 3) == [3, 2, 2]
    # 29 partitions, 7 members: q = 29 / 7.0 and 7q = 29.000000000000004 in doubles, whose ceiling
    # is 30: the last member wants 5 although the 7 want 30 of 29 partitions between them
    assert (29 / 7) * 7 > 29
    assert desired_counts(1, 29, 7) == [5, 4, 4, 4, 4, 4, 5]
    assert desired_counts(1, 4, 2) == [2, 2]
    assert desired_counts(3, 1, 3) == [1, 1, 1]


def test_no_members_no_assignment():
    assert simple.assign([ShareTopic(T0, "t", 3)], []) == {}


def test_homogeneous_round_robin_over_unfilled_members():
    # 2 members, 4 partitions: each partition shared by 1, each member wants 2. Partitions in
    # order 0..3, the iterator over the unfilled members restarts after b: a 0, b 1, a 2, b 3
    members = [ShareMember("b", ("t",)), ShareMember("a", ("t",))]
    got = simple.assign([ShareTopic(T0, "t", 4)], members)
    assert got == {"a": {T0: [0, 2]}, "b": {T0: [1, 3]}}
    assert list(got) == ["a", "b"]  # the result map's order (buckets 1, 2), not the input's


def test_homogeneous_shares_a_partition_among_more_members_than_partitions():
    members = [ShareMember(m, ("t",)) for m in "abc"]
    assert simple.assign([ShareTopic(T0, "t", 1)], members) == {m: {T0: [0]} for m in "abc"}


def test_homogeneous_gives_the_first_members_the_extra_partitions():
    # desired [3, 2, 2]: a 0, b 1, c 2, a 3, b 4 (b full), c 5 (c full), then the iterator
    # restarted over {a} gives a 6
    members = [ShareMember(m, ("t",)) for m in "abc"]
    assert simple.assign([ShareTopic(T0, "t", 7)], members) == {
        "a": {T0: [0, 3, 6]}, "b": {T0: [1, 4]}, "c": {T0: [2, 5]}}


def test_homogeneous_keeps_what_members_hold():
    # a holds 3 and 2 (its 2), b holds 0 and lacks one: b gets 1, the only partition without a member
    members = [ShareMember("a", ("t",), ((T0, (3, 2)),)), ShareMember("b", ("t",), ((T0, (0,)),))]
    assert simple.assign([ShareTopic(T0, "t", 4)], members) == {"a": {T0: [2, 3]}, "b": {T0: [0, 1]}}


def test_member_ids_with_one_hash_keep_the_groups_order():
    # "Aa" and "BB" share a bucket: the first listed is member 0, who wants 2 of the 3 partitions
    # (q = 1.5: ceil(1.5) = 2, then 3 - 2 = 1)
    topics = [ShareTopic(T0, "t", 3)]
    first = simple.assign(topics, [ShareMember("BB", ("t",)), ShareMember("Aa", ("t",))])
    assert first == {"BB": {T0: [0, 2]}, "Aa": {T0: [1]}}
    second = simple.assign(topics, [ShareMember("Aa", ("t",)), ShareMember("BB", ("t",))])
    assert second == {"Aa": {T0: [0, 2]}, "BB": {T0: [1]}}


def test_a_stale_partition_makes_kafka_throw():
    # one assignable partition, two members: it should be shared by both (desired sharing 2), each
    # wants 1. a already counts its stale, uninitialized partition 1, so only b is unfilled; b takes
    # partition 0 and leaves the unfilled set empty while partition 0 still wants a member: Java's
    # restarted iterator is empty and next() throws
    topics = [ShareTopic(T0, "t", 2)]
    members = [ShareMember("a", ("t",), ((T0, (1,)),)), ShareMember("b", ("t",))]
    with pytest.raises(simple.SimpleAssignorThrows) as caught:
        simple.assign(topics, members, assignable={T0: [0]})
    assert caught.value.java_exception == "java.util.NoSuchElementException"
    assert isinstance(caught.value, AssignorNeverReturns)
    # with every partition assignable, partition 1 is a real one and the answer is ordinary
    assert simple.assign(topics, members) == {"a": {T0: [1]}, "b": {T0: [0]}}


def test_heterogeneous_balances_topic_by_topic_and_leaves_an_empty_topic_behind():
    # T0 (subscribed by a and b) first, then T1 (b only; a held its partition 0 and loses it, its
    # T1 entry stays, empty). T0: a 0, b 1. T1: b wants both.
    topics = [ShareTopic(T0, "t0", 2), ShareTopic(T1, "t1", 2)]
    members = [ShareMember("a", ("t0",), ((T1, (0,)),)), ShareMember("b", ("t0", "t1"))]
    assert simple.subscription_type(members) == simple.HETEROGENEOUS
    got = simple.assign(topics, members)
    assert got == {"a": {T0: [0], T1: []}, "b": {T0: [1], T1: [0, 1]}}
    assert [list(t) for t in got.values()] == [[T0, T1], [T0, T1]]


def test_subscriptions_naming_no_topic_give_an_empty_result():
    members = [ShareMember("a", ()), ShareMember("b", ())]
    assert simple.subscription_type(members) == simple.HOMOGENEOUS
    assert simple.assign([ShareTopic(T0, "t", 2)], members) == {}
    # a name that no topic has: subscribed, but nothing to assign; held topics not subscribed go
    ghosts = [ShareMember("a", ("nope",), ((T0, (0,)),))]
    assert simple.assign([ShareTopic(T0, "t", 2)], ghosts) == {"a": {}}


def test_input_the_coordinator_cannot_hold_is_refused():
    topics = [ShareTopic(T0, "t", 2)]
    with pytest.raises(ValueError, match="duplicate member"):
        simple.assign(topics, [ShareMember("a", ("t",)), ShareMember("a", ("t",))])
    with pytest.raises(ValueError, match="listed twice"):
        simple.assign(topics, [ShareMember("a", ("t",), ((T0, (0,)), (T0, (1,))))])
    with pytest.raises(ValueError, match="listed twice"):
        simple.assign([*topics, ShareTopic(T1, "t", 1)], [ShareMember("a", ("t",))])
