"""The shortcuts the assignors take through Java's HashMap ordering give the full simulation's answer."""
from __future__ import annotations

import random

from kgroup.assignors._order import _SimulatedHashMap, hash_iteration_order, java_key
from kgroup.assignors.uniform import hashset_copy_capacity, java_hash_order
from kgroup.hashing import java_string_hash


def test_compute_if_absent_shortcut_matches_the_simulated_map():
    rng = random.Random(7)
    words = [f"{rng.choice(['orders', 'pay', 'x', 'topic'])}-{rng.randint(0, 400)}" for _ in range(300)]
    for _ in range(3000):
        keys = [rng.choice(words) for _ in range(rng.randint(0, 9))]
        table = _SimulatedHashMap(None)
        for k in keys:
            table.compute_if_absent(k, java_string_hash(k), java_key(k))
        assert hash_iteration_order(keys, compute_if_absent=True) == table.keys(), keys


def test_small_partition_sets_iterate_in_ascending_order():
    rng = random.Random(11)
    for _ in range(3000):
        parts = sorted(rng.sample(range(rng.choice([8, 40, 300, 70000])), rng.randint(1, 8)))
        capacity = hashset_copy_capacity(len(parts))
        full = java_hash_order(parts, lambda p: p, initial_capacity=capacity)
        if parts[-1] < min(capacity, 1 << 16):
            assert full == parts, parts


def test_partition_sets_of_the_uniform_assignor_iterate_as_the_full_simulation():
    from kgroup.assignors.uniform import _partition_set_order

    rng = random.Random(13)
    for _ in range(5000):
        population = rng.choice([8, 40, 300, 5000, 70000, 1 << 20])
        parts = sorted(rng.sample(range(population), rng.randint(1, min(60, population))))
        capacity = hashset_copy_capacity(len(parts))
        assert _partition_set_order(parts) == java_hash_order(parts, lambda p: p, initial_capacity=capacity), parts
    # a bucket of nine in a 16-slot table: Java resizes, so does the simulation
    parts = [16 * i for i in range(9)]
    assert _partition_set_order(parts) == java_hash_order(parts, lambda p: p, initial_capacity=16)
