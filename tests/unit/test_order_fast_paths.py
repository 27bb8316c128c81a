"""The shortcuts through Java's HashMap ordering give the full simulation's answer."""
from __future__ import annotations

import random

from kgroup.java.hashmap import JavaHashMap, hashset_copy_capacity, hashset_copy_initial_capacity, iteration_order


def _simulated(keys, compute_if_absent=False, **kw):
    table = JavaHashMap(**kw)
    for k in keys:
        (table.compute_if_absent if compute_if_absent else table.put)(k)
    return table.keys()


def test_compute_if_absent_shortcut_matches_the_simulated_map():
    rng = random.Random(7)
    words = [f"{rng.choice(['orders', 'pay', 'x', 'topic'])}-{rng.randint(0, 400)}" for _ in range(300)]
    for _ in range(3000):
        keys = [rng.choice(words) for _ in range(rng.randint(0, 9))]
        assert iteration_order(keys, compute_if_absent=True) == _simulated(keys, compute_if_absent=True), keys


def test_put_shortcut_matches_the_simulated_map():
    rng = random.Random(9)
    for _ in range(1500):
        n = rng.choice([1, 5, 13, 40, 200])
        keys = [f"m-{rng.randint(0, 10 * n)}" for _ in range(n)]
        assert iteration_order(keys) == _simulated(keys), keys


def test_small_partition_sets_iterate_in_ascending_order():
    rng = random.Random(11)
    for _ in range(3000):
        parts = sorted(rng.sample(range(rng.choice([8, 40, 300, 70000])), rng.randint(1, 8)))
        capacity = hashset_copy_initial_capacity(len(parts))
        full = _simulated(parts, initial_capacity=capacity, hash_of=lambda p: p, compare_key=lambda p: p)
        if parts[-1] < min(hashset_copy_capacity(len(parts)), 1 << 16):
            assert full == parts, parts


def test_partition_sets_of_the_uniform_assignor_iterate_as_the_full_simulation():
    from kgroup.whatif.assignors.uniform_input import partition_set_order as _partition_set_order

    rng = random.Random(13)
    for _ in range(5000):
        population = rng.choice([8, 40, 300, 5000, 70000, 1 << 20])
        parts = sorted(rng.sample(range(population), rng.randint(1, min(60, population))))
        full = _simulated(parts, initial_capacity=hashset_copy_initial_capacity(len(parts)),
                          hash_of=lambda p: p, compare_key=lambda p: p)
        assert _partition_set_order(parts) == full, parts
    # a bucket of nine in a 16-slot table: Java resizes, so does the simulation
    parts = [16 * i for i in range(9)]
    assert _partition_set_order(parts) == _simulated(parts, initial_capacity=16, hash_of=lambda p: p,
                                                     compare_key=lambda p: p)
    # 48 partitions (a 128-slot table on JDK 17), nine of them in bucket 0: a tree bin,
    # whose root (384) iterates first
    parts = [128 * i for i in range(9)] + list(range(1, 40))
    order = _partition_set_order(parts)
    assert order == _simulated(parts, initial_capacity=hashset_copy_initial_capacity(len(parts)),
                               hash_of=lambda p: p, compare_key=lambda p: p)
    assert order[:9] == [384, 0, 128, 256, 512, 640, 768, 896, 1024]

