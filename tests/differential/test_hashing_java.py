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
