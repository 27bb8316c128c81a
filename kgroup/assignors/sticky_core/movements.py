"""``AbstractStickyAssignor.PartitionMovements``: the partitions moved during one general
assignment, so that a move undoing an earlier one is preferred (the sticky check)."""
from __future__ import annotations

from kgroup.java.hashmap import JavaHashSetFirst
from kgroup.java.topic_partition import topic_partition_tuple_hash

from ..base import TopicPartition


class PartitionMovements:
    """``AbstractStickyAssignor.PartitionMovements``: net moves per topic and member pair."""

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
        if tp in self.movements:
            source, _ = self._remove_record(tp)
            if source != new:
                self._add_record(tp, (source, new))
        else:
            self._add_record(tp, (old, new))

    def actual_partition_to_move(self, tp: TopicPartition, old: str, new: str) -> TopicPartition:
        """Prefer undoing an earlier move of this topic from ``new`` to ``old`` (stickiness)."""
        topic_moves = self.by_topic.get(tp[0])
        if topic_moves is None:
            return tp
        if tp in self.movements:
            old = self.movements[tp][0]
        reverse = topic_moves.get((new, old))
        if reverse is None:
            return tp
        return reverse.first()
