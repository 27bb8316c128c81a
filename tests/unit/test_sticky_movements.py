"""kgroup/whatif/assignors/sticky_core/movements.py: Kafka's PartitionMovements, worked by hand.

A record is (first owner, current owner) per moved partition, grouped by topic and pair; the
HashSet of a pair is asked for its first partition, which Java picks by bucket:
TopicPartition.hashCode() = 31 * (31 + partition) + topic.hashCode(), and "T".hashCode() = 84,
so in a 16-bucket table T-1 (1076) sits in bucket 4 and T-2 (1107) in bucket 3.
"""
from __future__ import annotations

from kgroup.whatif.assignors.sticky_core.movements import PartitionMovements


def test_a_move_is_recorded_from_its_first_owner_to_its_current_one():
    moves = PartitionMovements()
    moves.move_partition(("T", 1), "a", "b")
    moves.move_partition(("T", 1), "b", "c")  # moved on: the record keeps a as the source
    assert moves.movements == {("T", 1): ("a", "c")}
    assert list(moves.by_topic) == ["T"]
    assert list(moves.by_topic["T"]) == [("a", "c")]  # the a -> b record is gone
    moved = moves.by_topic["T"][("a", "c")]
    assert len(moved) == 1 and ("T", 1) in moved


def test_a_move_back_to_the_first_owner_drops_the_record():
    moves = PartitionMovements()
    moves.move_partition(("T", 1), "a", "b")
    moves.move_partition(("T", 1), "b", "a")
    assert moves.movements == {}
    assert moves.by_topic == {}


def test_the_partition_asked_for_moves_when_nothing_can_be_undone():
    moves = PartitionMovements()
    assert moves.actual_partition_to_move(("T", 2), "a", "b") == ("T", 2)  # no move of T yet
    moves.move_partition(("U", 1), "b", "a")
    # a move of another topic from b to a does not count
    assert moves.actual_partition_to_move(("T", 2), "a", "b") == ("T", 2)
    moves.move_partition(("T", 1), "a", "b")
    # the same direction as the earlier move: nothing to undo
    assert moves.actual_partition_to_move(("T", 3), "a", "b") == ("T", 3)


def test_a_move_undoes_an_earlier_one_of_the_same_topic():
    """T-1 went a -> b; asked to move T-2 from b to a, Kafka moves T-1 back instead."""
    moves = PartitionMovements()
    moves.move_partition(("T", 1), "a", "b")
    assert moves.actual_partition_to_move(("T", 2), "b", "a") == ("T", 1)


def test_a_partition_that_moved_before_counts_from_its_first_owner():
    """T-5 went b -> c and T-1 went a -> b. Asked to move T-5 from c to a, its first owner b is
    the source that counts: T-1 (a -> b) is the move to undo."""
    moves = PartitionMovements()
    moves.move_partition(("T", 5), "b", "c")
    moves.move_partition(("T", 1), "a", "b")
    assert moves.actual_partition_to_move(("T", 5), "c", "a") == ("T", 1)


def test_the_partition_undone_is_the_first_of_the_hash_set():
    """T-1 and T-2 both went a -> b (T-1 first); the HashSet iterates bucket 3 (T-2) before
    bucket 4 (T-1), so T-2 is the one moved back."""
    moves = PartitionMovements()
    moves.move_partition(("T", 1), "a", "b")
    moves.move_partition(("T", 2), "a", "b")
    assert moves.actual_partition_to_move(("T", 7), "b", "a") == ("T", 2)


def test_sticky_check_fails_only_when_two_members_traded_partitions_of_one_topic():
    swap = PartitionMovements()
    swap.move_partition(("T", 1), "a", "b")
    swap.move_partition(("T", 2), "b", "a")
    assert swap.is_sticky() is False

    across_topics = PartitionMovements()  # a -> b on T, b -> a on U: no topic has both directions
    across_topics.move_partition(("T", 1), "a", "b")
    across_topics.move_partition(("U", 1), "b", "a")
    assert across_topics.is_sticky() is True

    three_cycle = PartitionMovements()  # a -> b -> c -> a: Kafka only logs cycles longer than two
    three_cycle.move_partition(("T", 1), "a", "b")
    three_cycle.move_partition(("T", 2), "b", "c")
    three_cycle.move_partition(("T", 3), "c", "a")
    assert three_cycle.is_sticky() is True

    assert PartitionMovements().is_sticky() is True


def test_undoing_instead_of_swapping_keeps_the_moves_sticky():
    """Moving back through actual_partition_to_move cancels the record instead of adding the
    reverse pair, which is what keeps Kafka's general builder sticky."""
    moves = PartitionMovements()
    moves.move_partition(("T", 1), "a", "b")
    undo = moves.actual_partition_to_move(("T", 2), "b", "a")
    moves.move_partition(undo, "b", "a")
    assert moves.movements == {} and moves.is_sticky() is True
