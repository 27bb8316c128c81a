"""kgroup.java.hashmap against the JDK (tests/java/HashMapDriver.java): orders and table sizes, tree bins included."""
from __future__ import annotations

import itertools
import random

import javadriver
import pytest

from kgroup.java.hashmap import (
    JavaHashMap,
    hashset_copy_capacity,
    hashset_copy_initial_capacity,
    iteration_order,
)
from kgroup.java.strings import java_string_hash, java_string_key
from kgroup.java.uuid import uuid_hash, uuid_key

OPEN_JAVA_UTIL = ("--add-opens", "java.base/java.util=ALL-UNNAMED")
pytestmark = pytest.mark.java


# ------------------------------------------------------------------ against the JDK

@pytest.fixture(scope="module")
def java_drivers() -> None:
    javadriver.require_java("Java's HashMap")


def _colliding_strings(rng: random.Random, n: int) -> list[str]:
    blocks = ["".join(p) for p in itertools.product(["Aa", "BB"], repeat=3)]
    prefix = rng.choice(["", "m-", "consumer-"])
    return [prefix + "".join(rng.sample(blocks, 2)) for _ in range(n)]


def _case(rng: random.Random, i: int) -> tuple[str, str, str, list]:
    op = ("put", "cia", "copy")[i % 3]
    kind = ("S", "I", "U")[(i // 3) % 3]
    n = rng.choice([1, 3, 9, 12, 13, 24, 30, 48, 70, 96, 150])
    if kind == "S":
        keys: list = [f"{rng.choice(['orders', 'pay', 'c'])}-{rng.randrange(4 * n)}" for _ in range(n)]
        if rng.random() < 0.6:
            keys += _colliding_strings(rng, rng.randint(9, 20))
    elif kind == "I":
        stride = rng.choice([16, 64, 128, 256])
        keys = [rng.randrange(40) * stride + rng.choice([0, 0, 1, 3]) for _ in range(n)]
    else:
        shared = rng.getrandbits(63)
        keys = []
        for _ in range(n):
            a = rng.getrandbits(64) - 2**63
            if rng.random() < 0.5:
                keys.append((a, a ^ shared))  # every such Uuid has the same hashCode
            else:
                keys.append((a, rng.getrandbits(64) - 2**63))
    rng.shuffle(keys)
    capacity = rng.choice(["-", "-", "1", "10", "64", "200"]) if op != "copy" else "-"
    return op, capacity, kind, keys


def _encode(kind: str, key) -> str:
    if kind == "S":
        return javadriver.enc(key)
    if kind == "I":
        return str(key)
    return f"{key[0]}:{key[1]}"


def _python(op: str, capacity: str, kind: str, keys: list, jdk: int) -> tuple[tuple[int, list], bool]:
    """(table size, key indices in iteration order), and whether a tree bin formed."""
    hash_of, compare_key = {
        "S": (java_string_hash, java_string_key),
        "I": (lambda k: k, lambda k: k),
        "U": (uuid_hash, uuid_key),
    }[kind]
    if op == "copy":
        initial: int | None = hashset_copy_initial_capacity(len(keys), jdk)
    else:
        initial = None if capacity == "-" else int(capacity)
    table = JavaHashMap(initial, hash_of=hash_of, compare_key=compare_key)
    for key in keys:
        (table.compute_if_absent if op == "cia" else table.put)(key)
    order = table.keys()
    fast = iteration_order(keys, hash_of, initial_capacity=initial, compare_key=compare_key,
                           compute_if_absent=op == "cia")
    assert fast == order, (op, capacity, kind, keys)
    first = {}
    for i, key in enumerate(keys):
        first.setdefault(key, i)
    tree = any(b is not None and b.root is not None for b in table.table)
    return (table.capacity, [first[k] for k in order]), tree


def test_orders_and_table_sizes_match_the_jdk(java_drivers):
    rng = random.Random(2112)
    cases = [_case(rng, i) for i in range(900)]
    lines = [" ".join([op, capacity, kind] + [_encode(kind, k) for k in keys]) for op, capacity, kind, keys in cases]
    out = javadriver.compile_and_run("HashMapDriver", "\n".join(lines) + "\n",
                                     jvm_args=OPEN_JAVA_UTIL).decode().splitlines()
    jdk = int(out[0].split(".")[-1]) if out[0].startswith("1.") else int(out[0])
    assert len(out) == len(cases) + 1
    trees = set()
    for (op, capacity, kind, keys), line in zip(cases, out[1:]):
        java_capacity, *java_order = (int(x) for x in line.split())
        python, tree = _python(op, capacity, kind, keys, jdk)
        assert python == (java_capacity, java_order), (op, capacity, kind, keys)
        if tree:
            trees.add((op, kind))
    # tree bins of every key type under put and computeIfAbsent were compared
    assert {(op, kind) for op in ("put", "cia", "copy") for kind in "SIU"} <= trees, trees


def test_hashset_copy_sizes_match_the_jdk(java_drivers):
    lines = [" ".join(["copy", "-", "I"] + [str(i) for i in range(n)]) for n in range(0, 200)]
    out = javadriver.compile_and_run("HashMapDriver", "\n".join(lines) + "\n",
                                     jvm_args=OPEN_JAVA_UTIL).decode().splitlines()
    jdk = int(out[0])
    assert len(out) == 1 + 200  # the JDK's version, then one line per size
    for n, line in zip(range(0, 200), out[1:]):
        java_capacity = int(line.split()[0])
        expected = hashset_copy_capacity(n, jdk) if n else 0  # an empty copy allocates nothing
        assert java_capacity == expected, n
