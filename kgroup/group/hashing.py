"""Which ``__consumer_offsets`` partition a group id maps to, exactly as Kafka computes it.

Kafka: ``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``, where
``String.hashCode`` runs ``h = 31*h + c`` over UTF-16 code units with 32-bit
wrap-around, and ``Utils.abs`` maps ``Integer.MIN_VALUE`` to 0.
"""
from __future__ import annotations

from kgroup.java.strings import java_string_hash

INT_MIN = -(2**31)
OFFSETS_TOPIC = "__consumer_offsets"
DEFAULT_OFFSETS_PARTITIONS = 50


def kafka_abs(n: int) -> int:
    """``org.apache.kafka.common.utils.Utils.abs``: like Math.abs, but MIN_VALUE -> 0."""
    return 0 if n == INT_MIN else abs(n)


def offsets_partition_for(group_id: str, offsets_partitions: int) -> int:
    """The ``__consumer_offsets`` partition whose leader coordinates ``group_id``."""
    if offsets_partitions <= 0:
        raise ValueError("the offsets topic must have at least one partition")
    return kafka_abs(java_string_hash(group_id)) % offsets_partitions
