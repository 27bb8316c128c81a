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


# (group, topic id as given, partition, Uuid.fromString(id).toString(), key.hashCode(), partition of 50, of 13),
# printed by tests/java/HashDriver.java through kafka-clients 4.3's Uuid and Utils.abs
SHARE_JAVA_VALUES = [
    ("SG1", "AAAAAAAAAAAAAAAAAAAAAQ", 3, "AAAAAAAAAAAAAAAAAAAAAQ", -1881214682, 32, 9),
    ("share-orders", "0c2xzWoOQ7i7A7k2P3pqXA", 0, "0c2xzWoOQ7i7A7k2P3pqXA", -2087850671, 21, 10),
    ("订单", "0c2xzWoOQ7i7A7k2P3pqXA==", 11, "0c2xzWoOQ7i7A7k2P3pqXA", 1871367295, 45, 5),
    # the last character's 4 unused bits are dropped by the decoder: the same Uuid as ...AQ
    ("SG1", "AAAAAAAAAAAAAAAAAAAAAR", 3, "AAAAAAAAAAAAAAAAAAAAAQ", -1881214682, 32, 9),
]


@pytest.mark.parametrize("group,topic_id,partition,canonical,hash_code,p50,p13", SHARE_JAVA_VALUES)
def test_share_state_partition_matches_java(group, topic_id, partition, canonical, hash_code, p50, p13):
    from kgroup.group.hashing import canonical_topic_id, share_coordinator_key, share_state_partition_for

    assert canonical_topic_id(topic_id) == canonical
    key = share_coordinator_key(group, topic_id, partition)
    assert key == f"{group}:{canonical}:{partition}"
    assert java_string_hash(key) == hash_code
    assert share_state_partition_for(group, topic_id, partition, 50) == p50
    assert share_state_partition_for(group, topic_id, partition, 13) == p13


@pytest.mark.parametrize("text", ["", "orders", "AAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAA",
                                  "AAAAAAAAAAAAAAAAAAAAAQ=", "AAAAAAAAAAAAAAAAAAAA+Q", "AAAAAAAAAAAAAAAAAAAAAQ==="])
def test_a_topic_id_that_uuid_fromstring_refuses_is_refused(text):
    from kgroup.group.hashing import canonical_topic_id

    with pytest.raises(ValueError):
        canonical_topic_id(text)
