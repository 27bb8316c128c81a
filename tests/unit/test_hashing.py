"""The offsets partition of a group, against values Java computes.

The constants below were printed by Java 17 (``s.hashCode()`` and
``Utils.abs(h) % n``); tests/differential/test_hashing_java.py recomputes them with a JDK at
test time for many random strings.
"""
from __future__ import annotations

import pytest

from kgroup.group.hashing import kafka_abs, offsets_partition_for
from kgroup.java.strings import java_string_hash

JAVA_VALUES = [
    # (group id, String.hashCode(), partition of 50, partition of 7)
    ("G1", 2250, 0, 3),
    ("polygenelubricants", -2147483648, 0, 0),
    ("consumer-group-orders", 1903663722, 22, 2),
    ("订单消费组", -683925664, 14, 2),
    ("🚀-group", 732881429, 29, 0),
    ("𝄞", 1772394, 44, 1),
    ("GROUPS", 2110836180, 30, 5),
    ("Aa", 2112, 12, 5),
    ("BB", 2112, 12, 5),
    ("x" * 10000, 1180432384, 34, 5),
    ("消费者" * 3000 + "😀" * 500, 2067342556, 6, 6),
]


@pytest.mark.parametrize("group,hash_code,p50,p7", JAVA_VALUES, ids=lambda v: str(v)[:20])
def test_matches_java(group, hash_code, p50, p7):
    assert java_string_hash(group) == hash_code
    assert offsets_partition_for(group, 50) == p50
    assert offsets_partition_for(group, 7) == p7
    assert offsets_partition_for(group, 1) == 0


def test_utils_abs_maps_min_value_to_zero():
    assert kafka_abs(-2147483648) == 0
    assert kafka_abs(-5) == 5
    assert kafka_abs(2147483647) == 2147483647


def test_rejects_zero_partitions():
    with pytest.raises(ValueError):
        offsets_partition_for("G1", 0)
