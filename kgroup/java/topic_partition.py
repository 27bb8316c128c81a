"""``org.apache.kafka.common.TopicPartition.hashCode()``.

The sticky assignors keep moved partitions in a ``HashSet<TopicPartition>`` and take its
first element, so which partition moves back depends on this hash (see
:class:`kgroup.java.hashset_first.JavaHashSetFirst`). TopicPartition is not ``Comparable``.
"""
from __future__ import annotations

from kgroup.java.primitives import to_int32
from kgroup.java.strings import java_string_hash


def topic_partition_hash(topic: str, partition: int) -> int:
    """``31 * (31 + partition) + topic.hashCode()``, signed 32-bit."""
    return to_int32(31 * (31 + partition) + java_string_hash(topic))


def topic_partition_tuple_hash(tp: tuple[str, int]) -> int:
    """:func:`topic_partition_hash` of a ``(topic, partition)`` tuple."""
    return topic_partition_hash(tp[0], tp[1])
