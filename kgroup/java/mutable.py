"""``java.util.HashMap`` and ``HashSet`` that hold values and lose keys, iterated in Java's order.

:mod:`kgroup.java.hashmap` gives the order of a map that only grows; the share-group assignor
(:mod:`kgroup.whatif.assignors.simple`) also removes keys, copies maps and sets, and iterates
them while it changes them, and its answer is the order in which Java then iterates them. The
rules (JDK 8 to 25, unchanged since 8) are those of :mod:`kgroup.java.hashmap`:

* a key lives in bucket ``spread(hashCode) & (capacity - 1)``; iteration walks the buckets in
  index order, each bucket's chain from its head;
* ``put`` (and ``putIfAbsent``, ``HashSet.add``) appends a new key to its chain and then grows
  the table if the map holds more than 3/4 of its capacity; ``computeIfAbsent`` grows an
  over-full table *before* it looks the key up (so also when the key is there) and puts a new
  key at the *head* of its chain;
* growing doubles the table and splits every chain into a low and a high part that keep their
  order; a chain reaching 9 keys grows a table smaller than 64 buckets instead;
* ``remove`` unlinks the key; the table never shrinks, a key put again goes to its chain's end.

A chain reaching 9 keys in a table of 64 or more becomes a red-black tree bin in Java. For the
keys used here (``Integer``, ``Uuid``, ``TopicIdPartition``) that takes 9 equal hashes modulo the
table size, which the assignor's inputs do not come near; it is not modelled and raises
:class:`TreeBinNotModelled` instead of answering in an order Java might not use.

Iterating returns a snapshot: removing the element just returned, the only change Java's
iterators allow during an iteration, leaves the rest of Java's iteration as the snapshot has it.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Generic, TypeVar

from kgroup.java.hashmap import (DEFAULT_INITIAL_CAPACITY, DEFAULT_JDK, MIN_TREEIFY_CAPACITY, TREEIFY_THRESHOLD,
                                 hashset_copy_initial_capacity, spread, table_size_for, threshold)
from kgroup.java.primitives import float32_div, to_float32, to_int32

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TreeBinNotModelled(RuntimeError):
    """Java would turn a bucket into a tree bin here, whose order this emulation does not know."""


def int_hash(value: int) -> int:
    """``Integer.hashCode()``: the value."""
    return to_int32(value)


def presized_capacity(expected: int) -> int:
    """The argument Kafka's ``AssignorHelpers.newHashMap(n)``/``newHashSet(n)`` passes to the constructor:
    ``(int) (((n + 1) / 0.75f) + 1)``, in ``float`` arithmetic."""
    return int(to_float32(float32_div(expected + 1, 0.75) + 1.0))


class JavaMap(Generic[K, V]):
    """A ``java.util.HashMap<K, V>``: its table, chains and values.

    ``initial_capacity`` is the constructor's argument (``None``: ``new HashMap<>()``);
    ``hash_of`` the keys' ``hashCode()``.
    """

    __slots__ = ("hash_of", "_initial", "_table", "_values", "_spread", "capacity")

    def __init__(self, initial_capacity: int | None = None, *, hash_of: Callable[[K], int]) -> None:
        self.hash_of = hash_of
        self._initial = DEFAULT_INITIAL_CAPACITY if initial_capacity is None else table_size_for(initial_capacity)
        self._table: list[list[K]] = []
        self._values: dict[K, V] = {}
        self._spread: dict[K, int] = {}
        self.capacity = 0  # no table until the first insertion, as in Java

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def get(self, key: K) -> V | None:
        return self._values.get(key)

    def keys(self) -> list[K]:
        """The keys in iteration order (a snapshot)."""
        return [key for chain in self._table for key in chain]

    def items(self) -> list[tuple[K, V]]:
        """The entries in iteration order (a snapshot; the values are the live objects)."""
        values = self._values
        return [(key, values[key]) for chain in self._table for key in chain]

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())

    def _resize(self) -> None:
        if self.capacity == 0:
            self._table = [[] for _ in range(self._initial)]
            self.capacity = self._initial
            return
        old = self.capacity
        table: list[list[K]] = [[] for _ in range(2 * old)]
        for index, chain in enumerate(self._table):
            for key in chain:
                table[index + old if self._spread[key] & old else index].append(key)
        self._table = table
        self.capacity = 2 * old

    def _long_chain(self) -> None:
        """``treeifyBin``: a small table grows, a large one would build a tree bin."""
        if self.capacity < MIN_TREEIFY_CAPACITY:
            self._resize()
        else:
            raise TreeBinNotModelled(
                f"{TREEIFY_THRESHOLD + 1} keys share a bucket of a table of {self.capacity}: Java makes it a tree bin")

    def _slot(self, key: K) -> list[K]:
        h = self._spread.get(key)
        if h is None:
            h = self._spread[key] = spread(self.hash_of(key))
        return self._table[h & (self.capacity - 1)]

    def put(self, key: K, value: V) -> None:
        """``put``/``putIfAbsent`` of a new key (an existing key keeps its place, ``put`` its new value)."""
        if key in self._values:
            self._values[key] = value
            return
        if self.capacity == 0:
            self._resize()
        chain = self._slot(key)
        chain.append(key)
        self._values[key] = value
        if len(chain) > TREEIFY_THRESHOLD:
            self._long_chain()
        if len(self._values) > threshold(self.capacity):
            self._resize()

    def put_if_absent(self, key: K, value: V) -> None:
        if key not in self._values:
            self.put(key, value)

    def compute_if_absent(self, key: K, factory: Callable[[], V]) -> V:
        """``computeIfAbsent``: the table grows first (if over its threshold, *even when the key is
        there*), then a new key goes to the head of its chain."""
        if self.capacity == 0 or len(self._values) > threshold(self.capacity):
            self._resize()
        if key in self._values:
            return self._values[key]
        chain = self._slot(key)
        existing = len(chain)
        chain.insert(0, key)
        value = self._values[key] = factory()
        if existing >= TREEIFY_THRESHOLD - 1:
            self._long_chain()
        return value

    def remove(self, key: K) -> bool:
        """``remove``: True if the key was there."""
        if key not in self._values:
            return False
        self._slot(key).remove(key)
        del self._values[key]
        del self._spread[key]
        return True


class JavaSet(Generic[K]):
    """A ``java.util.HashSet<K>`` (a :class:`JavaMap` of its elements)."""

    __slots__ = ("_map",)

    def __init__(self, initial_capacity: int | None = None, *, hash_of: Callable[[K], int]) -> None:
        self._map: JavaMap[K, None] = JavaMap(initial_capacity, hash_of=hash_of)

    @classmethod
    def copy_of(cls, elements: Iterable[K], size: int, *, hash_of: Callable[[K], int],
                jdk: int = DEFAULT_JDK) -> JavaSet[K]:
        """``new HashSet<>(collection)`` of a collection of ``size`` elements iterated as ``elements``."""
        copy = cls(hashset_copy_initial_capacity(size, jdk), hash_of=hash_of)
        for element in elements:
            copy.add(element)
        return copy

    @property
    def hash_of(self) -> Callable[[K], int]:
        return self._map.hash_of

    def __len__(self) -> int:
        return len(self._map)

    def __contains__(self, element: object) -> bool:
        return element in self._map

    def __iter__(self) -> Iterator[K]:
        return iter(self._map.keys())

    def elements(self) -> list[K]:
        """The elements in iteration order (a snapshot)."""
        return self._map.keys()

    def add(self, element: K) -> bool:
        """``add``: True if the element is new."""
        if element in self._map:
            return False
        self._map.put(element, None)
        return True

    def remove(self, element: K) -> bool:
        """``remove``: True if the element was there."""
        return self._map.remove(element)


class JavaIterator(Generic[K]):
    """A ``HashSet``'s iterator while the set changes only through it (``remove`` of the last element
    returned): what is left to visit is fixed when it starts. ``next`` on an exhausted iterator
    raises ``LookupError``; callers turn it into what Java throws (``NoSuchElementException``)."""

    __slots__ = ("_set", "_pending", "_position", "_current")

    def __init__(self, source: JavaSet[K]) -> None:
        self._set = source
        self._pending = source.elements()
        self._position = 0
        self._current: K | None = None

    def has_next(self) -> bool:
        return self._position < len(self._pending)

    def next(self) -> K:
        if self._position >= len(self._pending):
            raise LookupError("next() on an exhausted iterator")
        self._current = self._pending[self._position]
        self._position += 1
        return self._current

    def remove(self) -> None:
        if self._current is None:
            raise LookupError("remove() before next()")
        self._set.remove(self._current)
        self._current = None
