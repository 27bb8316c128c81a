"""``AbstractStickyAssignor.PartitionMovements``: the partitions moved during one general
assignment, so that a move undoing an earlier one is preferred, and Kafka's sticky check on them
(``isSticky``: no two members traded partitions of one topic)."""
from __future__ import annotations

from kgroup.java.hashset_first import JavaHashSetFirst
from kgroup.java.topic_partition import topic_partition_tuple_hash

from ..base import TopicPartition


class PartitionMovements:
    """``AbstractStickyAssignor.PartitionMovements``: net moves per topic and member pair.

    ``movements`` maps each moved partition to its (first owner, current owner) pair, Kafka's
    ``ConsumerPair``; ``by_topic`` groups the partitions by topic and pair.  A partition moved
    back to its first owner has no record.
    """

    def __init__(self) -> None:
        self.by_topic: dict[str, dict[tuple[str, str], JavaHashSetFirst[TopicPartition]]] = {}
        self.movements: dict[TopicPartition, tuple[str, str]] = {}

    def _remove_record(self, tp: TopicPartition) -> tuple[str, str]:
        pair = self.movements.pop(tp)
        topic_moves = self.by_topic[tp[0]]
        moved = topic_moves[pair]
        moved.discard(tp)
        if not moved:
            del topic_moves[pair]
        if not topic_moves:
            del self.by_topic[tp[0]]
        return pair

    def _add_record(self, tp: TopicPartition, pair: tuple[str, str]) -> None:
        self.movements[tp] = pair
        topic_moves = self.by_topic.setdefault(tp[0], {})
        moved = topic_moves.get(pair)
        if moved is None:
            moved = topic_moves[pair] = JavaHashSetFirst(topic_partition_tuple_hash)
        moved.add(tp)

    def move_partition(self, tp: TopicPartition, old: str, new: str) -> None:
        """``movePartition``: record ``tp`` moving from ``old`` to ``new``; a partition that moved
        before keeps its first owner as the source, and a move back to it drops the record."""
        if tp in self.movements:
            source, _ = self._remove_record(tp)
            if source != new:
                self._add_record(tp, (source, new))
        else:
            self._add_record(tp, (old, new))

    def actual_partition_to_move(self, tp: TopicPartition, old: str, new: str) -> TopicPartition:
        """``getTheActualPartitionToBeMoved``: asked to move ``tp`` from ``old`` to ``new``, move
        instead a partition of the same topic that earlier went from ``new`` to ``old`` (taking
        ``old`` as ``tp``'s first owner if ``tp`` moved before), so that the move undoes it."""
        topic_moves = self.by_topic.get(tp[0])
        if topic_moves is None:
            return tp
        if tp in self.movements:
            old = self.movements[tp][0]
        reverse = topic_moves.get((new, old))
        if reverse is None:
            return tp
        return reverse.first()

    def is_sticky(self) -> bool:
        """``isSticky``: false when, for some topic, partitions moved both from member a to b and
        from b to a (a pointless swap a sticky assignment never makes).

        Kafka's ``hasCycles`` searches the pairs of each topic for cycles of any length but only
        logs the longer ones: it reports a violation exactly when some pair and its reverse are
        both present, which is what is checked here.
        """
        for per_pair in self.by_topic.values():
            for source, destination in per_pair:
                if source != destination and (destination, source) in per_pair:
                    return False
        return True
