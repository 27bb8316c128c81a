"""The sticky assignors' shared core (kgroup/assignors/sticky_core/), module by module, on small
groups worked by hand from Kafka's AbstractStickyAssignor. The differential test
(test_assignors_differential.py) holds the whole to Kafka's own assignors."""
from __future__ import annotations

from kgroup.assignors.sticky_core import MemberData, StickySubscription, assign_partitions
from kgroup.assignors.sticky_core.builder import AbstractAssignmentBuilder, remove_first
from kgroup.assignors.sticky_core.constrained import ConstrainedAssignmentBuilder
from kgroup.assignors.sticky_core.general import GeneralAssignmentBuilder
from kgroup.assignors.sticky_core.movements import PartitionMovements


def _sub(member, topics, owned=(), generation=None):
    owned = list(owned)
    return StickySubscription(member, sorted(topics), owned, generation, None, MemberData(owned, generation))


def test_both_builders_share_one_base():
    assert issubclass(ConstrainedAssignmentBuilder, AbstractAssignmentBuilder)
    assert issubclass(GeneralAssignmentBuilder, AbstractAssignmentBuilder)


def test_equal_subscriptions_take_the_constrained_builder_round_robin():
    """a and b (HashMap order a, b) on T with 4 partitions, nothing owned: minQuota = maxQuota = 2,
    the unassigned T-0..T-3 go round robin over a, b."""
    result = assign_partitions({"T": 4}, {"a": _sub("a", ["T"]), "b": _sub("b", ["T"])}, None)
    assert result.assignment == {"a": [("T", 0), ("T", 2)], "b": [("T", 1), ("T", 3)]}
    assert result.partitions_transferring_ownership == {}  # the constrained builder reports transfers


def test_constrained_builder_keeps_owned_partitions_up_to_the_quota():
    """a owned all four partitions (generation 1); b joins: a keeps its first two (maxQuota 2),
    T-2 and T-3 move to b and are reported as changing owner."""
    owned = [("T", 0), ("T", 1), ("T", 2), ("T", 3)]
    result = assign_partitions({"T": 4}, {"a": _sub("a", ["T"], owned, 1), "b": _sub("b", ["T"])}, None)
    assert result.assignment == {"a": [("T", 0), ("T", 1)], "b": [("T", 2), ("T", 3)]}
    assert result.partitions_transferring_ownership == {("T", 2): "b", ("T", 3): "b"}


def test_different_subscriptions_take_the_general_builder():
    """a subscribes to T and U, b to T only: U's two partitions can only go to a, so T's two go
    to b for balance (2 each)."""
    subs = {"a": _sub("a", ["T", "U"]), "b": _sub("b", ["T"])}
    result = assign_partitions({"T": 2, "U": 2}, subs, None)
    assert result.partitions_transferring_ownership is None  # the general builder does not report them
    assert sorted(result.assignment["a"]) == [("U", 0), ("U", 1)]
    assert sorted(result.assignment["b"]) == [("T", 0), ("T", 1)]


def test_partition_movements_prefer_undoing_an_earlier_move():
    """T-1 moved a -> b; asked next to move T-2 from b back to a, the sticky check moves T-1 back
    instead (Kafka's getTheActualPartitionToBeMoved)."""
    moves = PartitionMovements()
    moves.move_partition(("T", 1), "a", "b")
    assert moves.actual_partition_to_move(("T", 2), "b", "a") == ("T", 1)
    # no earlier move in the other direction: the partition asked for is the one moved
    assert moves.actual_partition_to_move(("T", 3), "a", "b") == ("T", 3)
    # moving T-1 back to a cancels its record: nothing left to undo
    moves.move_partition(("T", 1), "b", "a")
    assert moves.actual_partition_to_move(("T", 2), "b", "a") == ("T", 2)


def test_remove_first_drops_the_first_occurrence_like_java_list_remove():
    items = [("T", 1), ("T", 2), ("T", 1)]
    assert remove_first(items, ("T", 1)) is True and items == [("T", 2), ("T", 1)]
    assert remove_first(items, ("T", 9)) is False and items == [("T", 2), ("T", 1)]
