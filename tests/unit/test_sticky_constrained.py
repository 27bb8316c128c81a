"""kgroup/whatif/assignors/sticky_core/constrained.py: Kafka's ConstrainedAssignmentBuilder (every member
subscribes to the same topics), on groups worked by hand from its three steps: keep owned
partitions up to the quota, rack-aware round robin, round robin."""
from __future__ import annotations

from kgroup.whatif.assignors.base import TopicPartition, TopicRacks
from kgroup.whatif.assignors.sticky_core import MemberData, StickySubscription, assign_partitions
from kgroup.whatif.assignors.sticky_core.constrained import ConstrainedAssignmentBuilder
from kgroup.whatif.assignors.sticky_core.rack_info import RackInfo


def _sub(member: str, topics: list[str], owned: tuple[TopicPartition, ...] | list[TopicPartition] = (), generation: int | None = None,
         rack: str | None = None) -> StickySubscription:
    return StickySubscription(member, sorted(topics), [], generation, rack, MemberData(list(owned), generation))


def _assign(topics: dict[str, int], *subs: StickySubscription, racks: TopicRacks | None = None):
    result = assign_partitions(topics, {s.member_id: s for s in subs}, racks)
    return result.assignment, result.partitions_transferring_ownership


def T(p: int) -> TopicPartition:
    return ("T", p)


def test_round_robin_fills_members_to_min_quota_then_one_to_max_quota():
    """5 partitions over a and b: minQuota 2, maxQuota 3, one member may get 3. Round robin
    over the unfilled members [a, b]: T-0 a, T-1 b, T-2 a (a reaches 2), T-3 b (b reaches 2),
    T-4 to the first member left at exactly minQuota, a."""
    assignment, transferring = _assign({"T": 5}, _sub("a", ["T"]), _sub("b", ["T"]))
    assert assignment == {"a": [T(0), T(2), T(4)], "b": [T(1), T(3)]}
    assert transferring == {}


def test_an_owner_keeps_max_quota_while_members_over_min_quota_are_expected():
    """a owned all 5 (generation 1), b joins: a keeps maxQuota = 3 (T-0..T-2, the one member
    allowed over minQuota), T-3 and T-4 go to b and are reported as changing owner."""
    assignment, transferring = _assign({"T": 5}, _sub("a", ["T"], [T(0), T(1), T(2), T(3), T(4)], 1), _sub("b", ["T"]))
    assert assignment == {"a": [T(0), T(1), T(2)], "b": [T(3), T(4)]}
    assert transferring == {T(3): "b", T(4): "b"}


def test_owned_partitions_are_kept_lowest_partition_number_first_across_topics():
    """a owned T-1, U-0, T-0, U-1; with b joining its quota is 2. Kafka sorts owned partitions by
    partition number, then topic (T-0, U-0, T-1, U-1): a keeps T-0 and U-0, not both of T."""
    assignment, transferring = _assign(
        {"T": 2, "U": 2}, _sub("a", ["T", "U"], [T(1), ("U", 0), T(0), ("U", 1)], 1), _sub("b", ["T", "U"])
    )
    assert assignment == {"a": [T(0), ("U", 0)], "b": [T(1), ("U", 1)]}
    assert transferring == {T(1): "b", ("U", 1): "b"}


def test_a_partition_claimed_twice_in_one_generation_is_reassigned_and_reported():
    """a and b (both generation 1) claim T-1: neither keeps it (it has multiple previous owners);
    a keeps T-0, T-1 goes round robin to b and counts as changing owner."""
    assignment, transferring = _assign({"T": 2}, _sub("a", ["T"], [T(0), T(1)], 1), _sub("b", ["T"], [T(1)], 1))
    assert assignment == {"a": [T(0)], "b": [T(1)]}
    assert transferring == {T(1): "b"}


def test_rack_aware_round_robin_places_partitions_on_their_racks():
    """a on r1, b on r2; T-0's replicas are on r2, T-1's on r1. Plain round robin would give
    T-0 to a; the rack-aware pass gives T-0 to b and T-1 to a."""
    racks = {"T": {0: frozenset({"r2"}), 1: frozenset({"r1"})}}
    assignment, _ = _assign({"T": 2}, _sub("a", ["T"], rack="r1"), _sub("b", ["T"], rack="r2"), racks=racks)
    assert assignment == {"a": [T(1)], "b": [T(0)]}


def test_an_owned_partition_off_the_member_s_rack_is_given_up():
    """a (r1) owned T-0, whose replicas are on r2 only, and T-1 (on r1); b is on r2. Rack-aware,
    a keeps only T-1; T-0 goes to b on its rack and counts as changing owner."""
    racks = {"T": {0: frozenset({"r2"}), 1: frozenset({"r1"})}}
    assignment, transferring = _assign(
        {"T": 2}, _sub("a", ["T"], [T(0), T(1)], 1, rack="r1"), _sub("b", ["T"], rack="r2"), racks=racks
    )
    assert assignment == {"a": [T(1)], "b": [T(0)]}
    assert transferring == {T(0): "b"}


def test_unassigned_partitions_walk_topics_in_java_order_past_the_assigned_ones():
    """Topics B (2) and A (3), partitions A-1 and B-0 assigned: the rest in topic order A, B."""
    builder = ConstrainedAssignmentBuilder({"B": 2, "A": 3}, RackInfo({}, {}, None), {"a": []}, set(), {})
    assert builder._unassigned_partitions([("B", 0), ("A", 1)]) == [("A", 0), ("A", 2), ("B", 1)]
    assert builder._unassigned_partitions([]) == [("A", 0), ("A", 1), ("A", 2), ("B", 0), ("B", 1)]


def test_quotas():
    """7 partitions over 3 members: minQuota 2, maxQuota 3, one member over minQuota."""
    builder = ConstrainedAssignmentBuilder({"T": 7}, RackInfo({}, {}, None), {"a": [], "b": [], "c": []}, set(), {})
    assert (builder.min_quota, builder.max_quota, builder.expected_over_min) == (2, 3, 1)
