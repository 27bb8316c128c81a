"""kgroup/whatif/assignors/sticky_core/builder.py: the state Kafka's AbstractAssignmentBuilder holds for
both builders, Java's List.remove(Object) and the builders' two-pointer walk."""
from __future__ import annotations

import pytest

from kgroup.whatif.assignors.sticky_core.builder import AbstractAssignmentBuilder, remove_first, unassigned_walk
from kgroup.whatif.assignors.sticky_core.constrained import ConstrainedAssignmentBuilder
from kgroup.whatif.assignors.sticky_core.general import GeneralAssignmentBuilder
from kgroup.whatif.assignors.sticky_core.rack_info import RackInfo

NO_RACKS = RackInfo({}, {}, None)


def test_both_builders_share_one_base():
    assert issubclass(ConstrainedAssignmentBuilder, AbstractAssignmentBuilder)
    assert issubclass(GeneralAssignmentBuilder, AbstractAssignmentBuilder)


def test_the_base_holds_topics_racks_current_assignment_and_the_partition_total():
    current = {"a": [("U", 0)], "b": []}
    builder = AbstractAssignmentBuilder({"U": 2, "T": 3}, NO_RACKS, current)
    assert builder.total_partitions == 5
    assert builder.current_assignment is current  # the builder works on the caller's map, as Java's does
    assert builder.rack_info is NO_RACKS
    with pytest.raises(NotImplementedError):
        builder.build()


def test_all_topic_partitions_follow_the_topic_order_given():
    builder = AbstractAssignmentBuilder({"U": 2, "T": 3}, NO_RACKS, {})
    assert builder.all_topic_partitions(["T", "U"]) == [("T", 0), ("T", 1), ("T", 2), ("U", 0), ("U", 1)]
    assert builder.all_topic_partitions(["U"]) == [("U", 0), ("U", 1)]


def test_remove_first_drops_the_first_occurrence_like_java_list_remove():
    items = [("T", 1), ("T", 2), ("T", 1)]
    assert remove_first(items, ("T", 1)) is True and items == [("T", 2), ("T", 1)]
    assert remove_first(items, ("T", 9)) is False and items == [("T", 2), ("T", 1)]


ALL = [("T", 0), ("T", 1), ("T", 2), ("U", 0), ("U", 1)]


def test_the_walk_returns_every_partition_not_assigned_in_the_order_walked():
    assert unassigned_walk(ALL, [("T", 1), ("U", 0)]) == [("T", 0), ("T", 2), ("U", 1)]
    assert unassigned_walk(iter(ALL), [("U", 1)]) == ALL[:4]  # any iterable: the constrained builder's generator
    assert unassigned_walk(ALL, list(ALL)) == []


def test_the_walk_desynchronises_on_a_partition_it_never_meets_as_java_does():
    # ("T", 7) does not exist: the pointer waits on it, so ("U", 0) after it is reported unassigned
    # although it is assigned -- Java's getUnassignedPartitions gives the same
    assert unassigned_walk(ALL, [("T", 1), ("T", 7), ("U", 0)]) == [("T", 0), ("T", 2), ("U", 0), ("U", 1)]
