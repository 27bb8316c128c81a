"""HashMap/HashSet iteration order of String, Uuid-like and Integer keys, against a JDK."""
from __future__ import annotations

import random

import javadriver
import pytest

from kgroup.java.hashmap import hashset_copy_initial_capacity, iteration_order
from kgroup.java.uuid import uuid_hash

pytestmark = pytest.mark.java


def test_hash_order_differential_against_java():
    javadriver.require_java("the JDK's HashMap order")
    rng = random.Random(848)
    lines, expected = [], []
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
    for i in range(600):
        kind = i % 3
        n = rng.choice([1, 2, 5, 12, 13, 30, 100, 400])
        if kind == 0:
            keys = list(dict.fromkeys(
                "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24))) for _ in range(n)))
            lines.append("S " + " ".join(keys))
            expected.append(" ".join(iteration_order(keys)))
        elif kind == 1:
            keys = list(dict.fromkeys(
                (rng.getrandbits(64) - 2**63, rng.getrandbits(64) - 2**63) for _ in range(n)))
            lines.append("U " + " ".join(f"{a}:{b}" for a, b in keys))
            # the driver's key record is not Comparable: no tree bin may form (none does here)
            order = iteration_order(keys, uuid_hash, initial_capacity=hashset_copy_initial_capacity(len(keys)),
                                    compare_key=None)
            expected.append(" ".join(f"{a}:{b}" for a, b in order))
        else:
            keys = sorted(rng.sample(range(0, 5000), min(n, 200)))
            lines.append("I " + " ".join(map(str, keys)))
            order = iteration_order(keys, lambda p: p, initial_capacity=hashset_copy_initial_capacity(len(keys)),
                                    compare_key=lambda p: p)
            expected.append(" ".join(map(str, order)))
    out = javadriver.compile_and_run("OrderDriver", "\n".join(lines) + "\n").decode().splitlines()
    assert out == expected
