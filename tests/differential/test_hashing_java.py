"""The offsets partition of random group ids, against String.hashCode() and Utils.abs as a JDK computes them."""
from __future__ import annotations

import json
import random

import javadriver
import pytest

from kgroup.group.hashing import offsets_partition_for
from kgroup.java.strings import java_string_hash

pytestmark = pytest.mark.java


def _random_group_id(rng: random.Random) -> str:
    alphabet = ["abcXYZ019-_.", "订单消费组", "😀🚀𝄞", "\u00e9\u00fc"]
    n = rng.choice([0, 1, 2, 5, 20, 300])
    return "".join(rng.choice(rng.choice(alphabet)) for _ in range(n))


def test_differential_against_java():
    javadriver.require_java("the JDK's String.hashCode")
    rng = random.Random(20261121)
    ids = [_random_group_id(rng) for _ in range(3000)]
    # send UTF-16 code units so that no encoding layer can disagree
    lines = [",".join(str(u) for u in _units(s)) for s in ids]
    out = javadriver.compile_and_run("HashDriver", "\n".join(lines) + "\n").decode().splitlines()
    assert len(out) == len(ids)  # one answer per id: zip below cannot pass on a short output
    for group, line in zip(ids, out):
        h, p50, p13 = map(int, line.split())
        assert (java_string_hash(group), offsets_partition_for(group, 50), offsets_partition_for(group, 13)) == \
            (h, p50, p13), json.dumps(group)


def _units(s: str) -> list[int]:
    data = s.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]


def _random_topic_id(rng: random.Random) -> str:
    import base64

    raw = bytes(rng.getrandbits(8) for _ in range(16))
    if rng.random() < 0.05:  # Uuid.MIN_VALUE-like and other all-zero-ish ids
        raw = bytes(15) + bytes([rng.randrange(3)])
    text = base64.urlsafe_b64encode(raw).decode("ascii")  # padded: Uuid.fromString accepts both forms
    return text if rng.random() < 0.2 else text[:22]


def test_share_state_partition_against_java():
    """The share coordinator's key (SharePartitionKey.asCoordinatorKey: groupId:topicId:partition,
    the topic id through kafka-clients' Uuid) and Utils.abs(hashCode) % partitions, for random
    share groups, topic ids (padded and not) and partitions."""
    javadriver.require_java("kafka-clients' Uuid and Utils.abs")
    from kgroup.group.hashing import canonical_topic_id, share_coordinator_key, share_state_partition_for

    rng = random.Random(38)
    cases = [(_random_group_id(rng), _random_topic_id(rng), rng.choice([0, 1, 7, 99, rng.randrange(2**31)]))
             for _ in range(4000)]
    lines = [f"S\t{','.join(str(u) for u in _units(g))}\t{t}\t{p}" for g, t, p in cases]
    out = javadriver.compile_and_run("HashDriver", "\n".join(lines) + "\n").decode().splitlines()
    assert len(out) == len(cases)
    for (group, topic_id, partition), line in zip(cases, out):
        uuid, h, p50, p13, p1000 = line.split()
        key = share_coordinator_key(group, topic_id, partition)
        assert (canonical_topic_id(topic_id), java_string_hash(key), share_state_partition_for(group, topic_id, partition, 50),
                share_state_partition_for(group, topic_id, partition, 13),
                share_state_partition_for(group, topic_id, partition, 1000)) == \
            (uuid, int(h), int(p50), int(p13), int(p1000)), json.dumps([group, topic_id, partition])
