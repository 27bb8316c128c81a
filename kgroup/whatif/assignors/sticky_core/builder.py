"""``AbstractStickyAssignor.AbstractAssignmentBuilder``: the state both builders share, and the
Java list operation and two-pointer walk they both rely on."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..base import TopicPartition
from .rack_info import RackInfo


def remove_first(items: list[Any], value: object) -> bool:
    """``List.remove(Object)``: drop the first occurrence, if any."""
    try:
        items.remove(value)
    except ValueError:
        return False
    return True


def unassigned_walk(all_sorted: Iterable[TopicPartition], assigned: list[TopicPartition]) -> list[TopicPartition]:
    """Both builders' ``getUnassignedPartitions`` walk: the partitions of ``all_sorted`` that
    ``assigned`` (non-empty, sorted the same way) does not hold, by Java's two pointers. Like
    Java's, the walk assumes ``assigned`` only holds partitions of ``all_sorted``: one that is
    not (a partition number beyond its topic's count) desynchronises it the same way."""
    unassigned: list[TopicPartition] = []
    add_directly = False
    iterator = iter(assigned)
    next_assigned = next(iterator)
    for tp in all_sorted:
        if add_directly or next_assigned != tp:
            unassigned.append(tp)
        else:
            following = next(iterator, None)
            if following is None:
                add_directly = True
            else:
                next_assigned = following
    return unassigned


class AbstractAssignmentBuilder:
    """``AbstractAssignmentBuilder``: the topics and their partition counts, the rack information,
    the members' current assignment (which the builder turns into the new one) and the number of
    partitions to assign."""

    def __init__(self, partitions_per_topic: dict[str, int], rack_info: RackInfo,
                 current_assignment: dict[str, list[TopicPartition]]) -> None:
        self.partitions_per_topic = partitions_per_topic
        self.rack_info = rack_info
        self.current_assignment = current_assignment
        self.total_partitions = sum(partitions_per_topic.values())

    def build(self) -> dict[str, list[TopicPartition]]:
        """The new assignment: member -> partitions, in the order Kafka's builder adds them."""
        raise NotImplementedError

    def all_topic_partitions(self, sorted_topics: Iterable[str]) -> list[TopicPartition]:
        """``getAllTopicPartitions``: every partition of the given topics, topic by topic in the
        order given, partitions in ascending order."""
        counts = self.partitions_per_topic
        return [(t, p) for t in sorted_topics for p in range(counts[t])]
