"""``java.util.HashMap`` / ``HashSet``: table sizing and iteration order, tree bins included.

Several of Kafka's results depend on the order in which a ``HashMap`` or ``HashSet`` is
iterated: which member an assignor looks at first, which partition of a set it picks
first, which protocol wins a tied vote. That order is not insertion order. A HashMap is a
power-of-two table of buckets; a key goes to bucket ``spread(hashCode) & (capacity - 1)``
where ``spread(h) = h ^ (h >>> 16)``; iteration walks the buckets in index order and each
bucket's chain from its head. This module reproduces that, JDK 8 to 25 (the algorithm has
not changed since JDK 8):

* sizing: ``new HashMap<>()`` allocates 16 buckets on the first insertion,
  ``new HashMap<>(n)`` allocates :func:`table_size_for` ``(n)``; the table doubles once it
  holds more than 3/4 of its capacity. ``new HashSet<>(collection)`` picks its own
  initial capacity, differently before and after JDK 19 (:func:`hashset_copy_capacity`).
* ``put`` appends a new key to the tail of its bucket and resizes *after* inserting;
  ``computeIfAbsent`` (and ``compute``/``merge``) resize *before* inserting and put the
  new key at the *head* of its bucket.
* a resize splits every chain into a low and a high half keeping their relative order.
* a bucket reaching 9 keys resizes the table while it has fewer than 64 buckets, and
  otherwise becomes a red-black *tree bin* ordered by hash, then by ``compareTo`` when the
  key class is ``Comparable`` (String, Integer, Uuid). A tree bin still iterates along
  its ``next`` chain, but treeifying moves the tree's root to the head of the chain and a
  key inserted into a tree is linked right after its tree parent, so its order differs
  from a plain chain's. A tree bin split by a resize into a part of 6 or fewer keys turns
  back into a plain chain.

Tree bins are in :mod:`kgroup.java.treebin`. Removal is modelled only by
:class:`kgroup.java.hashset_first.JavaHashSetFirst`, for plain chains (removing a key from a
tree bin can rebalance the tree and move another root to the front).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

from kgroup.java.primitives import float32_div, to_int32
from kgroup.java.strings import java_string_hash, java_string_key
from kgroup.java.treebin import Bin, Node

K = TypeVar("K", bound=Hashable)  # the keys of a map or the elements of a set

DEFAULT_INITIAL_CAPACITY = 16
MAXIMUM_CAPACITY = 1 << 30
LOAD_FACTOR = 0.75
TREEIFY_THRESHOLD = 8
UNTREEIFY_THRESHOLD = 6
MIN_TREEIFY_CAPACITY = 64

_MASK32 = 0xFFFFFFFF


def spread(hash_code: int) -> int:
    """``HashMap.hash()``: the (signed) hash a HashMap node stores for a key."""
    h = hash_code & _MASK32
    return to_int32(h ^ (h >> 16))


def bucket_index(hash_code: int, capacity: int) -> int:
    """Bucket of a key with ``hashCode()`` ``hash_code`` in a table of ``capacity`` buckets."""
    return spread(hash_code) & (capacity - 1)


def table_size_for(capacity: int) -> int:
    """``HashMap.tableSizeFor``: the smallest power of two >= ``capacity`` (1 to 2**30)."""
    n = 1
    while n < capacity:
        n <<= 1
    return min(n, MAXIMUM_CAPACITY)


def threshold(capacity: int) -> int:
    """Size above which a table of ``capacity`` buckets doubles (``(int)(capacity * 0.75f)``)."""
    return int(capacity * LOAD_FACTOR)


# ---------------------------------------------------------------------------
# new HashSet<>(Collection): JDK 17 and JDK 19+ size the table differently
# ---------------------------------------------------------------------------

#: The JDK whose ``HashSet(Collection)`` sizing is emulated unless a caller names another.
#: kgroup has always modelled JDK 17 (Kafka's minimum for brokers); the official
#: ``apache/kafka`` image runs JDK 21, which sizes some sets differently (see below).
DEFAULT_JDK = 17


def hashset_copy_initial_capacity(size: int, jdk: int = DEFAULT_JDK) -> int:
    """The ``initialCapacity`` that ``new HashSet<>(c)`` passes to its ``HashMap``, for ``c.size() == size``.

    * JDK 8 to 18: ``new HashMap<>(Math.max((int) (size / .75f) + 1, 16))``, the division
      in ``float`` arithmetic.
    * JDK 19 and later: ``HashMap.newHashMap(Math.max(size, 12))``, which is
      ``new HashMap<>((int) Math.ceil(n / 0.75))``.

    The two give the same table except when ``size`` is 12, 24, 48, 96, ... (``3 * 2**k``,
    ``k >= 2``): there ``4 * size / 3`` is a power of two, which JDK 19+ takes as it is and
    JDK 17 exceeds by one, so JDK 17's table is twice as large (and iterates differently).
    """
    if size < 0:
        raise ValueError(f"a collection has no negative size ({size})")
    if jdk < 8:
        raise ValueError(f"JDK {jdk} has no HashMap as modelled here (JDK 8 or later)")
    if jdk >= 19:
        n = max(size, 12)
        return -(-4 * n // 3)  # ceil(n / 0.75), exact
    return max(int(float32_div(size, 0.75)) + 1, 16)


def hashset_copy_capacity(size: int, jdk: int = DEFAULT_JDK) -> int:
    """Table size of ``new HashSet<>(c)`` for ``c.size() == size`` on ``jdk`` (before any resize)."""
    return table_size_for(hashset_copy_initial_capacity(size, jdk))


# ---------------------------------------------------------------------------
# the map
# ---------------------------------------------------------------------------

class JavaHashMap(Generic[K]):
    """The key set of a ``java.util.HashMap`` under ``put`` and ``computeIfAbsent``, in Java's order.

    ``hash_of`` is the keys' ``hashCode()`` and ``compare_key`` a sort key giving their
    ``compareTo`` order (used inside tree bins; ``None`` for keys that are not
    ``Comparable``, which then must never share a tree bin). Both default to ``String``'s.
    Values are not stored: only the keys and their order matter here.
    """

    def __init__(
        self,
        initial_capacity: int | None = None,
        *,
        hash_of: Callable[[K], int] = java_string_hash,  # type: ignore[assignment]  # the default is for K = str
        compare_key: Callable[[K], object] | None = java_string_key,  # type: ignore[assignment]  # the default is for K = str
    ) -> None:
        self.hash_of = hash_of
        self.compare_key = compare_key
        self.table: list[Bin | None] = []
        self.capacity = 0  # no table until the first insertion, as in Java
        self._initial = DEFAULT_INITIAL_CAPACITY if initial_capacity is None else table_size_for(initial_capacity)
        self.threshold = 0
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def keys(self) -> list[K]:
        """The keys in iteration order (``keySet().iterator()``)."""
        return [node.key for bin_ in self.table if bin_ is not None for node in bin_.chain]

    def _new_node(self, key: K) -> Node:
        return Node(key, spread(self.hash_of(key)), None if self.compare_key is None else self.compare_key(key))

    def resize(self) -> None:
        """``HashMap.resize``: allocate the first table, or double it splitting every bin in two."""
        if self.capacity == 0:
            self.table = [None] * self._initial
            self.capacity = self._initial
            self.threshold = threshold(self.capacity)
            return
        old_table, old_capacity = self.table, self.capacity
        new_capacity = old_capacity * 2
        new_table: list[Bin | None] = [None] * new_capacity
        for index, bin_ in enumerate(old_table):
            if bin_ is None:
                continue
            low = [n for n in bin_.chain if (n.hash & old_capacity) == 0]
            high = [n for n in bin_.chain if (n.hash & old_capacity) != 0]
            was_tree = bin_.root is not None
            for target, part, other in ((index, low, high), (index + old_capacity, high, low)):
                if not part:
                    continue
                new_bin = Bin(part)
                if was_tree:
                    if len(part) <= UNTREEIFY_THRESHOLD:
                        new_bin.untreeify()
                    elif other:
                        new_bin.treeify()
                    else:
                        new_bin.root = bin_.root  # the whole tree moves, its root already first
                new_table[target] = new_bin
        self.table = new_table
        self.capacity = new_capacity
        self.threshold = threshold(new_capacity)

    def _treeify_bin(self, bin_: Bin) -> None:
        """``HashMap.treeifyBin``: a small table grows instead of building a tree."""
        if self.capacity < MIN_TREEIFY_CAPACITY:
            self.resize()
        else:
            bin_.treeify()

    def _find(self, bin_: Bin, key: K) -> bool:
        return any(node.key == key for node in bin_.chain)

    def put(self, key: K) -> None:
        """``HashMap.put`` (``putVal``): a new key goes to the tail of its bucket, resize after."""
        if self.capacity == 0:
            self.resize()
        node = self._new_node(key)
        index = node.hash & (self.capacity - 1)
        bin_ = self.table[index]
        if bin_ is None:
            self.table[index] = Bin([node])
        else:
            if self._find(bin_, key):
                return
            if bin_.root is not None:
                bin_.put_tree_val(node)
            else:
                bin_.chain.append(node)
                if len(bin_.chain) > TREEIFY_THRESHOLD:
                    self._treeify_bin(bin_)
        self.size += 1
        if self.size > self.threshold:
            self.resize()

    def compute_if_absent(self, key: K) -> None:
        """``HashMap.computeIfAbsent``: resize *before* inserting; a new key goes to the head."""
        if self.capacity == 0 or self.size > self.threshold:
            self.resize()
        node = self._new_node(key)
        index = node.hash & (self.capacity - 1)
        bin_ = self.table[index]
        if bin_ is None:
            self.table[index] = Bin([node])
        else:
            if self._find(bin_, key):
                return
            if bin_.root is not None:
                bin_.put_tree_val(node)
            else:
                existing = len(bin_.chain)
                bin_.chain.insert(0, node)
                if existing >= TREEIFY_THRESHOLD - 1:
                    self._treeify_bin(bin_)
        self.size += 1


def iteration_order(
    keys: Iterable[K],
    hash_of: Callable[[K], int] = java_string_hash,  # type: ignore[assignment]  # the default is for K = str
    *,
    initial_capacity: int | None = None,
    compare_key: Callable[[K], object] | None = java_string_key,  # type: ignore[assignment]  # the default is for K = str
    compute_if_absent: bool = False,
) -> list[K]:
    """Iteration order of a ``HashMap``/``HashSet`` after inserting ``keys`` in that order.

    ``initial_capacity`` is the constructor argument (``None`` = ``new HashMap<>()``; for
    ``new HashSet<>(collection)`` pass :func:`hashset_copy_initial_capacity`). Duplicate
    keys keep their first position, as a ``put`` of an existing key does. ``hash_of`` and
    ``compare_key`` as for :class:`JavaHashMap` (String keys by default).
    ``compute_if_absent``: the keys were added with ``computeIfAbsent`` instead of ``put``.

    Same answer as :class:`JavaHashMap`, faster in the common case: while no bucket ever
    holds more than 8 keys, chains keep insertion order through every resize, so the order
    is "by final bucket, then by insertion" (``put``) or "latest inserted first"
    (``computeIfAbsent``); otherwise the map is simulated.
    """
    key_list = list(keys)
    unique = list(dict.fromkeys(key_list))
    if compute_if_absent:
        if initial_capacity is None and len(unique) <= TREEIFY_THRESHOLD - 1:
            # up to 7 keys in 16 buckets neither resize (threshold 12) nor treeify
            buckets = [spread(hash_of(k)) & 15 for k in unique]
            order = sorted(range(len(unique)), key=lambda i: (buckets[i], -i))
            return [unique[i] for i in order]
        table = JavaHashMap(initial_capacity, hash_of=hash_of, compare_key=compare_key)
        for key in key_list:
            table.compute_if_absent(key)
        return table.keys()
    spreads = [spread(hash_of(k)) for k in unique]
    capacity = DEFAULT_INITIAL_CAPACITY if initial_capacity is None else table_size_for(initial_capacity)
    counts: dict[int, int] = {}
    for size, h in enumerate(spreads, start=1):
        bucket = h & (capacity - 1)
        count = counts.get(bucket, 0) + 1
        if count > TREEIFY_THRESHOLD:
            break
        counts[bucket] = count
        if size > threshold(capacity):
            capacity *= 2
            counts = {}
            for earlier in spreads[:size]:
                b = earlier & (capacity - 1)
                counts[b] = counts.get(b, 0) + 1
    else:
        mask = capacity - 1
        order = sorted(range(len(unique)), key=lambda i: spreads[i] & mask)
        return [unique[i] for i in order]
    # a long chain made Java resize early or build a tree bin: simulate
    table = JavaHashMap(initial_capacity, hash_of=hash_of, compare_key=compare_key)
    for key in key_list:
        table.put(key)
    return table.keys()
