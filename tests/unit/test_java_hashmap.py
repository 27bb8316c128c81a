"""kgroup.java.hashmap: HashMap/HashSet sizing and iteration order.

The sizing and small orders below are worked by hand from the rules in the module
docstring; the ``java`` tests compare many more orders and table sizes with the JDK that
runs them (tests/java/HashMapDriver.java), tree bins included.
"""
from __future__ import annotations

import itertools
import random

import pytest

from kgroup.java.hashmap import (
    JavaHashMap,
    bucket_index,
    hashset_copy_capacity,
    hashset_copy_initial_capacity,
    iteration_order,
    spread,
    table_size_for,
)
from kgroup.java.hashset_first import JavaHashSetFirst
from kgroup.java.strings import java_string_hash
from kgroup.java.topic_partition import topic_partition_hash, topic_partition_tuple_hash
from kgroup.java.uuid import uuid_hash, uuid_key



def _ints(keys, **kw):
    return iteration_order(keys, lambda p: p, compare_key=lambda p: p, **kw)


# ------------------------------------------------------------------------------- sizing

def test_table_size_for():
    assert [table_size_for(n) for n in (0, 1, 2, 3, 16, 17, 100)] == [1, 1, 2, 4, 16, 32, 128]
    assert table_size_for(2**30 + 1) == 2**30  # MAXIMUM_CAPACITY


@pytest.mark.parametrize("size,jdk17,jdk21", [
    # (int)(n / .75f) + 1, at least 16  |  ceil(max(n, 12) / 0.75)
    (0, 16, 16),
    (1, 16, 16),
    (11, 16, 16),    # 14.67 -> 15 -> 16    | 16
    (12, 17, 16),    # 16 + 1 = 17          | 16
    (13, 18, 18),    # 17.33 -> 18          | 17.33 -> 18
    (24, 33, 32),
    (25, 34, 34),    # 33.33 -> 34          | 33.33 -> 34
    (48, 65, 64),
    (96, 129, 128),
    (100, 134, 134),
])
def test_hashset_copy_initial_capacity(size, jdk17, jdk21):
    assert hashset_copy_initial_capacity(size, jdk=17) == jdk17
    assert hashset_copy_initial_capacity(size, jdk=21) == jdk21
    assert hashset_copy_initial_capacity(size, jdk=8) == jdk17
    assert hashset_copy_initial_capacity(size, jdk=19) == jdk21
    assert hashset_copy_initial_capacity(size) == jdk17  # the default stays JDK 17


@pytest.mark.parametrize("size,jdk17,jdk21", [
    (0, 16, 16), (11, 16, 16), (12, 32, 16), (13, 32, 32), (23, 32, 32), (24, 64, 32),
    (25, 64, 64), (47, 64, 64), (48, 128, 64), (96, 256, 128), (100, 256, 256), (192, 512, 256),
    # float arithmetic: 25165823 / .75f is exactly 2**25 in float (the int rounds up to
    # 3 * 2**23 first), + 1 asks for 2**26; in exact arithmetic it is 33554430.67 -> 2**25
    (25165823, 2**26, 2**25),
])
def test_hashset_copy_table_sizes(size, jdk17, jdk21):
    assert hashset_copy_capacity(size, jdk=17) == jdk17
    assert hashset_copy_capacity(size, jdk=21) == jdk21


def test_sizing_rejects_what_java_would():
    with pytest.raises(ValueError):
        hashset_copy_initial_capacity(-1)
    with pytest.raises(ValueError):
        hashset_copy_initial_capacity(3, jdk=7)


def test_jdk_sizing_changes_the_order_of_twelve_partitions():
    # 1..6 and 17..22: in 32 buckets (JDK 17) every partition has its own bucket; in 16
    # (JDK 21) 17 shares bucket 1 with 1, 18 bucket 2 with 2, ...
    parts = [1, 2, 3, 4, 5, 6, 17, 18, 19, 20, 21, 22]
    assert _ints(parts, initial_capacity=hashset_copy_initial_capacity(12, jdk=17)) == parts
    assert _ints(parts, initial_capacity=hashset_copy_initial_capacity(12, jdk=21)) == \
        [1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22]


# ------------------------------------------------------------------------- hash and order

def test_spread_and_buckets():
    # spread(h) = h ^ (h >>> 16): 2112 < 65536 is unchanged; bucket = spread & (capacity - 1)
    assert spread(2112) == 2112 and bucket_index(2112, 16) == 0
    # 0x12345678 ^ 0x1234 = 0x1234444C; & 15 = 12; & 63 = 12; signed result
    assert spread(0x12345678) == 0x1234444C and bucket_index(0x12345678, 64) == 0x0C
    assert spread(-1) == to_signed(0xFFFF0000)


def to_signed(n: int) -> int:
    return n - 2**32 if n >= 2**31 else n


def test_topic_partition_and_uuid_hashes():
    assert topic_partition_hash("t", 2) == 31 * (31 + 2) + 116
    assert topic_partition_tuple_hash(("t", 2)) == topic_partition_hash("t", 2)
    # x = msb ^ lsb = 0x00000001_00000002 -> 1 ^ 2 = 3
    assert uuid_hash((0x100000000, 2)) == 3
    assert uuid_hash((-1, 0)) == 0  # 0xFFFFFFFF ^ 0xFFFFFFFF
    assert sorted([(1, -5), (-2, 7), (1, -9)], key=uuid_key) == [(-2, 7), (1, -9), (1, -5)]


def test_put_order_by_hand():
    # "t0" = 116*31 + 48 = 3644 -> bucket 12 of 16, "t1" 13, "t2" 14
    assert iteration_order(["t2", "t0", "t1"]) == ["t0", "t1", "t2"]
    # equal hashes: put appends to the bucket, computeIfAbsent prepends
    assert iteration_order(["BB", "Aa"]) == ["BB", "Aa"]
    assert iteration_order(["BB", "Aa"], compute_if_absent=True) == ["Aa", "BB"]
    # 13 puts resize 16 -> 32 buckets: 3644 & 31 = 28, the last bucket used
    keys = [f"k{i}" for i in range(12)] + ["t0"]
    assert iteration_order(keys)[-1] == "t0"


def test_tree_bin_order_by_hand():
    # 48 Integers in a 128-slot table, nine of them (0, 128, ..., 1024) in bucket 0.  The
    # ninth turns the bucket into a red-black tree: inserting 0..512 in order rotates 128,
    # then 384 to the root, and treeify moves the root to the head of the chain.
    parts = [128 * i for i in range(9)] + list(range(1, 40))
    order = _ints(parts, initial_capacity=hashset_copy_initial_capacity(48))
    assert order[:9] == [384, 0, 128, 256, 512, 640, 768, 896, 1024]
    assert order[9:] == list(range(1, 40))
    # the same keys with 8 in bucket 0 stay a plain chain, in insertion order
    parts = [128 * i for i in range(8)] + list(range(1, 41))
    assert _ints(parts, initial_capacity=hashset_copy_initial_capacity(48))[:8] == [128 * i for i in range(8)]


def test_nine_collisions_in_a_small_table_resize_instead():
    same = ["".join(p) for p in itertools.product(["Aa", "BB"], repeat=4)][:10]
    assert len({java_string_hash(s) for s in same}) == 1
    table = JavaHashMap()
    for key in same:
        table.put(key)
    assert table.capacity == 64  # 9th key: 16 -> 32, 10th: 32 -> 64
    assert table.keys() == same


def test_java_hash_map_capacity_after_puts():
    table = JavaHashMap()
    assert table.capacity == 0  # allocated on the first insertion
    for i in range(12):
        table.put(f"k{i}")
    assert table.capacity == 16
    table.put("k12")
    assert table.capacity == 32
    table = JavaHashMap(100)
    table.put("x")
    assert table.capacity == 128


# ------------------------------------------------------------------- JavaHashSetFirst

def _first_by_scan(elements: list, capacity: int) -> object:
    """The first element by definition: lowest bucket, earliest inserted (``elements`` in
    insertion order)."""
    return min(enumerate(elements),
               key=lambda ie: (spread(topic_partition_tuple_hash(ie[1])) & (capacity - 1), ie[0]))[1]


def test_hash_set_first_matches_the_definition():
    rng = random.Random(5)
    for _ in range(300):
        s = JavaHashSetFirst(topic_partition_tuple_hash)
        present: list = []
        for _ in range(rng.randint(1, 120)):
            tp = ("orders", rng.randrange(200))
            if tp in s and rng.random() < 0.5:
                s.discard(tp)
                present.remove(tp)
            elif tp not in s:
                s.add(tp)
                present.append(tp)
            if present:
                assert s.first() == _first_by_scan(present, s.capacity)
            assert len(s) == len(present)


def test_hash_set_first_is_fast_for_large_sets():
    s = JavaHashSetFirst(topic_partition_tuple_hash)
    for p in range(200_000):
        s.add(("t", p))
    for p in range(0, 200_000, 2):
        s.discard(("t", p))
        s.first()
    assert s.capacity == 2**19  # 200000 > 3/4 of 2**18
    odd = [("t", p) for p in range(1, 200_000, 2)]
    assert len(s) == 100_000 and s.first() == _first_by_scan(odd, s.capacity)


def test_hash_set_first_warns_on_a_tree_bin():
    # TopicPartition hashes are 31 * partition apart: partitions 0, 64, ..., 512 share
    # bucket 53 of a 64-slot table (31 * 64 is a multiple of 64, h >>> 16 stays 0)
    s = JavaHashSetFirst(topic_partition_tuple_hash)
    for p in range(30):
        s.add(("t", p))
    assert s.capacity == 64
    for p in range(64, 512, 64):
        s.add(("t", p))
    assert not s.tree_bin_seen
    with pytest.warns(RuntimeWarning):
        s.add(("t", 512))
    assert s.tree_bin_seen and s.capacity == 64
