"""Which ``__consumer_offsets`` partition a group id maps to, exactly as Kafka computes it.

Kafka: ``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``, where
``String.hashCode`` runs ``h = 31*h + c`` over UTF-16 code units with 32-bit
wrap-around, and ``Utils.abs`` maps ``Integer.MIN_VALUE`` to 0.
"""
from __future__ import annotations

INT_MIN = -(2**31)
DEFAULT_OFFSETS_PARTITIONS = 50


def to_int32(n: int) -> int:
    """Wrap an integer to Java's signed 32-bit range."""
    n &= 0xFFFFFFFF
    return n - 0x100000000 if n & 0x80000000 else n


def utf16_units(s: str) -> list[int]:
    """The UTF-16 code units Java stores for ``s`` (non-BMP chars become surrogate pairs)."""
    data = s.encode("utf-16-be", "surrogatepass")
    return [(data[i] << 8) | data[i + 1] for i in range(0, len(data), 2)]


def java_string_hash(s: str) -> int:
    """``java.lang.String.hashCode()`` of ``s``."""
    h = 0
    for unit in utf16_units(s):
        h = (31 * h + unit) & 0xFFFFFFFF
    return to_int32(h)


def kafka_abs(n: int) -> int:
    """``org.apache.kafka.common.utils.Utils.abs``: like Math.abs, but MIN_VALUE -> 0."""
    return 0 if n == INT_MIN else abs(n)


def offsets_partition_for(group_id: str, offsets_partitions: int) -> int:
    """The ``__consumer_offsets`` partition whose leader coordinates ``group_id``."""
    if offsets_partitions <= 0:
        raise ValueError("the offsets topic must have at least one partition")
    return kafka_abs(java_string_hash(group_id)) % offsets_partitions
