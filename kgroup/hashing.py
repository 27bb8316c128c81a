"""Which ``__consumer_offsets`` partition a group id maps to, exactly as Kafka computes it.

Kafka: ``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``, where
``String.hashCode`` runs ``h = 31*h + c`` over UTF-16 code units with 32-bit
wrap-around, and ``Utils.abs`` maps ``Integer.MIN_VALUE`` to 0.
"""
from __future__ import annotations

INT_MIN = -(2**31)
OFFSETS_TOPIC = "__consumer_offsets"
DEFAULT_OFFSETS_PARTITIONS = 50


_MASK32 = 0xFFFFFFFF
_hash_cache: dict[str, int] = {}


def to_int32(n: int) -> int:
    """Wrap an integer to Java's signed 32-bit range."""
    n &= _MASK32
    return n - 0x100000000 if n & 0x80000000 else n


def java_string_hash(s: str) -> int:
    """``java.lang.String.hashCode()``: ``h = 31*h + c`` over UTF-16 code units (a
    character outside the BMP counts as its two surrogates), signed 32-bit.

    The one implementation in kgroup: the coordinator hash and the assignors' emulation
    of Java's HashMap ordering both use it. Results are cached (assignors hash the same
    topic and member names many times).
    """
    value = _hash_cache.get(s)
    if value is not None:
        return value
    if s.isascii():
        units = s.encode("ascii")
    else:
        raw = s.encode("utf-16-be", "surrogatepass")
        units = [(raw[i] << 8) | raw[i + 1] for i in range(0, len(raw), 2)]
    h = 0
    for unit in units:
        h = (31 * h + unit) & _MASK32
    value = to_int32(h)
    if len(_hash_cache) < 1_000_000:
        _hash_cache[s] = value
    return value


def kafka_abs(n: int) -> int:
    """``org.apache.kafka.common.utils.Utils.abs``: like Math.abs, but MIN_VALUE -> 0."""
    return 0 if n == INT_MIN else abs(n)


def offsets_partition_for(group_id: str, offsets_partitions: int) -> int:
    """The ``__consumer_offsets`` partition whose leader coordinates ``group_id``."""
    if offsets_partitions <= 0:
        raise ValueError("the offsets topic must have at least one partition")
    return kafka_abs(java_string_hash(group_id)) % offsets_partitions
