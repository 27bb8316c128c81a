"""kgroup/whatif/assignors/sticky_core/rack_info.py: Kafka's AbstractStickyAssignor.RackInfo (KIP-881),
on racks worked by hand."""
from __future__ import annotations

from kgroup.whatif.assignors.sticky_core import MemberData, StickySubscription
from kgroup.whatif.assignors.sticky_core.rack_info import RackInfo


def _sub(member: str, rack: str | None) -> StickySubscription:
    return StickySubscription(member, ["T"], [], None, rack, MemberData([], None))


def _members(**racks: str | None) -> dict[str, StickySubscription]:
    return {m: _sub(m, rack) for m, rack in racks.items()}


# T-0 has replicas on r1, T-1 on r2, T-2 on both
RACKS = {"T": {0: frozenset({"r1"}), 1: frozenset({"r2"}), 2: frozenset({"r1", "r2"})}}


def test_rack_aware_when_member_racks_hold_replicas_and_partitions_differ():
    info = RackInfo({"T": 3}, _members(a="r1", b="r2", c=None), RACKS)
    assert info.consumer_racks == {"a": "r1", "b": "r2"}  # c has no rack
    assert info.partition_racks == {("T", 0): {"r1"}, ("T", 1): {"r2"}, ("T", 2): {"r1", "r2"}}
    assert info.racks_mismatch("a", ("T", 0)) is False
    assert info.racks_mismatch("a", ("T", 1)) is True
    assert info.racks_mismatch("b", ("T", 2)) is False
    assert info.racks_mismatch("c", ("T", 1)) is False  # a member without a rack matches anything
    # members whose rack holds a replica: one for T-0 (a), one for T-1 (b), two for T-2
    assert info.num_consumers_by_partition == {("T", 0): 1, ("T", 1): 1, ("T", 2): 2}


def test_partitions_sort_by_members_on_their_racks_keeping_ties_in_order():
    info = RackInfo({"T": 3}, _members(a="r1", b="r2"), RACKS)
    assert info.sort_partitions_by_rack_consumers([("T", 2), ("T", 1), ("T", 0)]) == [
        ("T", 1), ("T", 0), ("T", 2)
    ]


def test_next_rack_consumer_scans_round_from_the_index_given():
    info = RackInfo({"T": 3}, _members(a="r1", b="r2", c=None), RACKS)
    assert info.next_rack_consumer(("T", 1), ["a", "c", "b"], 0) == 2  # b, the only one on r2
    assert info.next_rack_consumer(("T", 2), ["a", "c", "b"], 1) == 2  # from c on: c has no rack, b matches
    assert info.next_rack_consumer(("T", 2), ["a", "c", "b"], 2) == 2
    assert info.next_rack_consumer(("T", 0), ["a", "c", "b"], 1) == 0  # wraps round to a
    assert info.next_rack_consumer(("T", 0), ["c", "b"], 0) == -1


def test_not_rack_aware_when_every_partition_is_on_every_rack():
    """Every partition on r1 and r2: no assignment can do better, so Kafka ignores racks; the
    per-partition member counts are still computed (2 each), and sorting keeps the order."""
    everywhere = {"T": {0: frozenset({"r1", "r2"}), 1: frozenset({"r1", "r2"})}}
    info = RackInfo({"T": 2}, _members(a="r1", b="r2"), everywhere)
    assert info.consumer_racks == {} and info.partition_racks == {}
    assert info.racks_mismatch("a", ("T", 0)) is False
    assert info.num_consumers_by_partition == {("T", 0): 2, ("T", 1): 2}
    assert info.next_rack_consumer(("T", 0), ["a", "b"], 0) == -1


def test_not_rack_aware_when_no_member_rack_holds_a_replica():
    info = RackInfo({"T": 3}, _members(a="r9"), RACKS)
    assert info.consumer_racks == {}
    assert info.num_consumers_by_partition == {("T", 0): 0, ("T", 1): 0, ("T", 2): 0}


def test_nothing_is_computed_when_no_member_has_a_rack():
    info = RackInfo({"T": 3}, _members(a=None, b=""), RACKS)  # an empty rack is no rack
    assert info.consumer_racks == {} and info.partition_racks == {}
    assert info.num_consumers_by_partition == {}
    partitions = [("T", 2), ("T", 0)]
    assert info.sort_partitions_by_rack_consumers(partitions) is partitions
