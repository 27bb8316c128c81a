"""A ``java.util.HashSet`` asked only to add, remove and give its first element
(``iterator().next()``), as the sticky assignors use it; its table sized and grown as
:mod:`kgroup.java.hashmap` sizes a HashMap's.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable
from heapq import heapify, heappop, heappush
from typing import Any, Generic, TypeVar

from kgroup.java.hashmap import DEFAULT_INITIAL_CAPACITY, MIN_TREEIFY_CAPACITY, TREEIFY_THRESHOLD, spread, threshold

K = TypeVar("K", bound=Hashable)  # the set's elements


class JavaHashSetFirst(Generic[K]):
    """A ``new HashSet<>()`` that only needs ``add``, ``remove`` and ``iterator().next()``.

    Within a bucket Java keeps insertion order (a resize splits chains without reordering
    them, a removal unlinks one node), so the first element is the earliest inserted of
    the lowest non-empty bucket. The table grows past 3/4 load, and a bucket reaching 9
    entries while the table is smaller than 64 doubles it. ``add`` and ``remove`` cost
    O(log n) (amortised), ``first`` too.

    Tree bins (9+ entries in one bucket of a table of 64+) are not modelled: Kafka keeps
    ``TopicPartition`` keys here, which are not ``Comparable``, so Java orders such a tree
    by identity hash codes, which no one can predict. The sticky assignors' sets hold
    partitions of one topic, whose hashes are ``31 * partition`` apart: for partition
    numbers below 256 at most 8 of them share a bucket of a 64+ table. Should 9 share one,
    :attr:`tree_bin_seen` is set and a warning is emitted (the first element Java picks
    may then differ).
    """

    __slots__ = ("hash_of", "_spread", "_buckets", "_heap", "capacity", "tree_bin_seen")

    def __init__(self, hash_of: Callable[[K], int]) -> None:
        self.hash_of = hash_of
        self._spread: dict[K, int] = {}  # element -> spread hash
        self._buckets: dict[int, dict[K, None]] = {}  # bucket -> its chain, in order
        self._heap: list[int] = []  # indices of non-empty buckets (may hold stale entries)
        self.capacity = DEFAULT_INITIAL_CAPACITY
        self.tree_bin_seen = False

    def __len__(self) -> int:
        return len(self._spread)

    def __contains__(self, element: object) -> bool:
        return element in self._spread

    def add(self, element: K) -> None:
        if element in self._spread:
            return
        h = spread(self.hash_of(element))
        self._spread[element] = h
        index = h & (self.capacity - 1)
        chain = self._buckets.get(index)
        if chain is None:
            chain = self._buckets[index] = {}
            heappush(self._heap, index)
        chain[element] = None
        if len(chain) > TREEIFY_THRESHOLD:
            if self.capacity < MIN_TREEIFY_CAPACITY:
                self._resize()
            elif not self.tree_bin_seen:
                self.tree_bin_seen = True
                warnings.warn(
                    "a HashSet of moved partitions became a tree bin in Java; "
                    "the sticky assignment may differ from Kafka's",
                    RuntimeWarning,
                    stacklevel=2,
                )
        if len(self._spread) > threshold(self.capacity):
            self._resize()

    def _resize(self) -> None:
        old_capacity = self.capacity
        self.capacity *= 2
        buckets: dict[int, dict[K, None]] = {}
        for index, chain in self._buckets.items():
            for element in chain:  # each new bucket gets the elements of one old bucket, in order
                target = index if (self._spread[element] & old_capacity) == 0 else index + old_capacity
                buckets.setdefault(target, {})[element] = None
        self._buckets = buckets
        self._heap = list(buckets)
        heapify(self._heap)

    def discard(self, element: K) -> None:
        h = self._spread.pop(element, None)
        if h is None:
            return
        index = h & (self.capacity - 1)
        chain = self._buckets[index]
        del chain[element]
        if not chain:
            del self._buckets[index]  # its heap entry goes stale

    def state(self) -> tuple[Any, ...]:
        """Everything Java's set holds that its future answers depend on: the table size and
        every bucket's chain (for comparing states, e.g. to detect an endless loop)."""
        return (self.capacity, tuple((i, tuple(self._buckets[i])) for i in sorted(self._buckets)))

    def first(self) -> K:
        """``iterator().next()``: raises ``KeyError`` on an empty set."""
        heap = self._heap
        while heap and heap[0] not in self._buckets:
            heappop(heap)
        if not heap:
            raise KeyError("first() of an empty set")
        return next(iter(self._buckets[heap[0]]))
