"""Java ordering semantics the Kafka assignors depend on, re-implemented in Python.

Kafka's client assignors are Java code, and their output depends on three
Java-specific notions of order that Python does not share:

* ``String.compareTo`` compares UTF-16 code units, not code points: a
  character outside the BMP (an emoji, say) is a surrogate pair
  ``0xD800..0xDFFF`` and sorts *before* BMP characters ``0xE000..0xFFFF``,
  whereas Python orders it after them.  :func:`java_key` maps a string to a
  Python string that sorts like Java would.
* ``String.hashCode`` / ``TopicPartition.hashCode`` (:func:`java_string_hash`,
  :func:`topic_partition_hash`).
* ``java.util.HashMap`` / ``HashSet`` iteration order, which several
  assignors leak into their result (which member is looked at first, which
  partition of a set is picked first).  :func:`hash_iteration_order`
  simulates the insertion of keys into a ``HashMap`` (power-of-two table,
  ``h ^ (h >>> 16)`` spreading, resize at 3/4 load, resize-instead-of-treeify
  below 64 buckets, red-black tree bins for ``String`` keys from 9 colliding
  keys on) and returns the keys in the order an iterator would visit them.
  :class:`JavaHashSetFirst` models an insert/remove ``HashSet`` whose first
  element is asked for repeatedly.

It also holds what every assignor needs to see the group as Kafka's group leader
does: members in the order of its subscription ``HashMap`` (:func:`subscription_order`),
topics and owned partitions as ConsumerProtocol delivers them (sorted), the
``partitionsPerTopic`` map of ``AbstractPartitionAssignor`` and its rack helpers.
"""
from __future__ import annotations

import re
import warnings
from typing import Callable, Hashable, Iterable, Sequence

from kgroup.hashing import java_string_hash, to_int32 as _to_int32

from .base import MemberSubscription, TopicPartition, TopicRacks


_NON_BMP: re.Pattern[str] | None = None  # compiled when the first non-ASCII name needs it
_MASK32 = 0xFFFFFFFF

_key_cache: dict[str, str] = {}


def _surrogate_pair(match: re.Match[str]) -> str:
    code = ord(match.group()) - 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def java_key(text: str) -> str:
    """Sort key with which Python orders strings exactly like Java's ``String.compareTo``.

    Characters outside the BMP are replaced by their UTF-16 surrogate pair, so
    that comparing the keys code point by code point compares UTF-16 code units.
    """
    key = _key_cache.get(text)
    if key is None:
        if text.isascii():
            key = text
        else:
            global _NON_BMP
            if _NON_BMP is None:
                _NON_BMP = re.compile("[\U00010000-\U0010FFFF]")
            key = _NON_BMP.sub(_surrogate_pair, text)
        _key_cache[text] = key
    return key


def topic_partition_hash(topic: str, partition: int) -> int:
    """``org.apache.kafka.common.TopicPartition.hashCode()``."""
    return _to_int32(31 * (31 + partition) + java_string_hash(topic))


def spread(hash_code: int) -> int:
    """``HashMap.hash()``: the (signed) hash a HashMap node stores for a key."""
    h = hash_code & _MASK32
    return _to_int32(h ^ (h >> 16))


def member_info_key(member_id: str, group_instance_id: str | None) -> tuple[int, str]:
    """Sort key of ``AbstractPartitionAssignor.MemberInfo.compareTo``.

    Static members (with a group.instance.id) come first, ordered by instance
    id; dynamic members follow, ordered by member id (Java string order).
    """
    if group_instance_id is not None:
        return (0, java_key(group_instance_id))
    return (1, java_key(member_id))


def table_size_for(capacity: int) -> int:
    """``HashMap.tableSizeFor``: the smallest power of two >= capacity (at least 1)."""
    n = 1
    while n < capacity:
        n <<= 1
    return n


# ---------------------------------------------------------------------------
# HashMap iteration order
# ---------------------------------------------------------------------------

_TREEIFY_THRESHOLD = 8
_UNTREEIFY_THRESHOLD = 6
_MIN_TREEIFY_CAPACITY = 64


class _TreeNode:
    __slots__ = ("key", "hash", "sort_key", "left", "right", "parent", "red")

    def __init__(self, key: Hashable, hash_: int, sort_key: object) -> None:
        self.key = key
        self.hash = hash_
        self.sort_key = sort_key
        self.left: _TreeNode | None = None
        self.right: _TreeNode | None = None
        self.parent: _TreeNode | None = None
        self.red = False


def _direction(node_hash: int, node_key: object, other: _TreeNode) -> int:
    """Where a node goes relative to ``other`` in a tree bin (-1 left, 1 right)."""
    if other.hash > node_hash:
        return -1
    if other.hash < node_hash:
        return 1
    if node_key is None or other.sort_key is None:  # pragma: no cover - keys are comparable here
        raise NotImplementedError("tree bins of non-comparable keys are not deterministic in Java")
    return -1 if node_key < other.sort_key else 1  # equal keys never reach a tree bin twice


def _rotate_left(root: _TreeNode, p: _TreeNode) -> _TreeNode:
    r = p.right
    if r is not None:
        rl = p.right = r.left
        if rl is not None:
            rl.parent = p
        pp = r.parent = p.parent
        if pp is None:
            root = r
            r.red = False
        elif pp.left is p:
            pp.left = r
        else:
            pp.right = r
        r.left = p
        p.parent = r
    return root


def _rotate_right(root: _TreeNode, p: _TreeNode) -> _TreeNode:
    left = p.left
    if left is not None:
        lr = p.left = left.right
        if lr is not None:
            lr.parent = p
        pp = left.parent = p.parent
        if pp is None:
            root = left
            left.red = False
        elif pp.right is p:
            pp.right = left
        else:
            pp.left = left
        left.right = p
        p.parent = left
    return root


def _balance_insertion(root: _TreeNode, x: _TreeNode) -> _TreeNode:
    """Red-black fix-up after inserting ``x``, as HashMap.TreeNode does it."""
    x.red = True
    while True:
        xp = x.parent
        if xp is None:
            x.red = False
            return x
        xpp = xp.parent
        if not xp.red or xpp is None:
            return root
        xppl = xpp.left
        if xp is xppl:
            xppr = xpp.right
            if xppr is not None and xppr.red:
                xppr.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.right:
                    x = xp
                    root = _rotate_left(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_right(root, xpp)
        else:
            if xppl is not None and xppl.red:
                xppl.red = False
                xp.red = False
                xpp.red = True
                x = xpp
            else:
                if x is xp.left:
                    x = xp
                    root = _rotate_right(root, x)
                    xp = x.parent
                    xpp = None if xp is None else xp.parent
                if xp is not None:
                    xp.red = False
                    if xpp is not None:
                        xpp.red = True
                        root = _rotate_left(root, xpp)


class _Bin:
    """One bucket: the ``next`` chain (iteration order) plus, for tree bins, the tree root."""

    __slots__ = ("chain", "root")

    def __init__(self, chain: list[_TreeNode]) -> None:
        self.chain = chain
        self.root: _TreeNode | None = None

    def treeify(self) -> None:
        root: _TreeNode | None = None
        for x in self.chain:
            x.left = x.right = None
            if root is None:
                x.parent = None
                x.red = False
                root = x
                continue
            p = root
            while True:
                direction = _direction(x.hash, x.sort_key, p)
                xp = p
                p = p.left if direction <= 0 else p.right
                if p is None:
                    x.parent = xp
                    if direction <= 0:
                        xp.left = x
                    else:
                        xp.right = x
                    root = _balance_insertion(root, x)
                    break
        self.root = root
        self._move_root_to_front()

    def _move_root_to_front(self) -> None:
        root = self.root
        if root is not None and self.chain[0] is not root:
            self.chain.remove(root)
            self.chain.insert(0, root)

    def tree_insert(self, x: _TreeNode) -> None:
        assert self.root is not None
        p = self.root
        while True:
            direction = _direction(x.hash, x.sort_key, p)
            xp = p
            p = p.left if direction <= 0 else p.right
            if p is None:
                # the new node is linked right after its tree parent in the chain
                self.chain.insert(self.chain.index(xp) + 1, x)
                if direction <= 0:
                    xp.left = x
                else:
                    xp.right = x
                x.parent = xp
                self.root = _balance_insertion(self.root, x)
                self._move_root_to_front()
                return

    def untreeify(self) -> None:
        self.root = None
        for node in self.chain:
            node.left = node.right = node.parent = None


class _SimulatedHashMap:
    """Insert-only model of ``java.util.HashMap`` that tracks its iteration order."""

    def __init__(self, initial_capacity: int | None) -> None:
        self.capacity = 0
        self.pending_capacity = 16 if initial_capacity is None else table_size_for(initial_capacity)
        self.threshold = 0
        self.size = 0
        self.bins: list[_Bin | None] = []

    def _resize(self) -> None:
        if self.capacity == 0:
            new_capacity = self.pending_capacity
            self.bins = [None] * new_capacity
            self.capacity = new_capacity
            self.threshold = int(new_capacity * 0.75)
            return
        old_bins, old_capacity = self.bins, self.capacity
        new_capacity = old_capacity * 2
        new_bins: list[_Bin | None] = [None] * new_capacity
        for index, bin_ in enumerate(old_bins):
            if bin_ is None:
                continue
            low = [n for n in bin_.chain if (n.hash & old_capacity) == 0]
            high = [n for n in bin_.chain if (n.hash & old_capacity) != 0]
            was_tree = bin_.root is not None
            for target, part, other in ((index, low, high), (index + old_capacity, high, low)):
                if not part:
                    continue
                new_bin = _Bin(part)
                if was_tree:
                    if len(part) <= _UNTREEIFY_THRESHOLD:
                        new_bin.untreeify()
                    elif other:
                        new_bin.treeify()
                    else:
                        new_bin.root = bin_.root  # the whole tree stays, root already first
                new_bins[target] = new_bin
        self.bins = new_bins
        self.capacity = new_capacity
        self.threshold = int(new_capacity * 0.75)

    def _treeify_bin(self, bin_: _Bin) -> None:
        if self.capacity < _MIN_TREEIFY_CAPACITY:
            self._resize()
        else:
            bin_.treeify()

    def put(self, key: Hashable, hash_code: int, sort_key: object) -> None:
        """``HashMap.put``: a new key goes to the tail of its bucket; resize after inserting."""
        if self.capacity == 0:
            self._resize()
        h = spread(hash_code)
        index = h & (self.capacity - 1)
        bin_ = self.bins[index]
        node = _TreeNode(key, h, sort_key)
        if bin_ is None:
            self.bins[index] = _Bin([node])
        else:
            for existing in bin_.chain:
                if existing.key == key:
                    return
            if bin_.root is not None:
                bin_.tree_insert(node)
            else:
                bin_.chain.append(node)
                if len(bin_.chain) > _TREEIFY_THRESHOLD:
                    self._treeify_bin(bin_)
        self.size += 1
        if self.size > self.threshold:
            self._resize()

    def compute_if_absent(self, key: Hashable, hash_code: int, sort_key: object) -> None:
        """``HashMap.computeIfAbsent``: resize *before* inserting; a new key goes to the head."""
        if self.capacity == 0 or self.size > self.threshold:
            self._resize()
        h = spread(hash_code)
        index = h & (self.capacity - 1)
        bin_ = self.bins[index]
        node = _TreeNode(key, h, sort_key)
        if bin_ is None:
            self.bins[index] = _Bin([node])
        else:
            for existing in bin_.chain:
                if existing.key == key:
                    return
            if bin_.root is not None:
                bin_.tree_insert(node)
            else:
                existing_count = len(bin_.chain)
                bin_.chain.insert(0, node)
                if existing_count >= _TREEIFY_THRESHOLD - 1:
                    self._treeify_bin(bin_)
        self.size += 1

    def keys(self) -> list[Hashable]:
        return [node.key for bin_ in self.bins if bin_ is not None for node in bin_.chain]


def hash_iteration_order(
    keys: Iterable[Hashable],
    hash_of: Callable[[Hashable], int] = java_string_hash,  # type: ignore[assignment]
    *,
    initial_capacity: int | None = None,
    sort_key_of: Callable[[Hashable], object] | None = java_key,  # type: ignore[assignment]
    compute_if_absent: bool = False,
) -> list[Hashable]:
    """Iteration order of a ``java.util.HashMap`` after ``put`` of ``keys`` in that order.

    ``initial_capacity`` is the constructor argument (``None`` = ``new HashMap<>()``).
    Duplicate keys keep their first position, as a ``put`` of an existing key does.
    ``sort_key_of`` gives the ``Comparable`` order used inside tree bins (Java
    ``String`` order by default); tree bins only appear with 8-9+ keys in one bucket.
    ``compute_if_absent``: the keys were added with ``computeIfAbsent`` instead, which
    puts a new key at the head of its bucket and resizes before, not after, inserting.
    """
    key_list = list(keys)
    if compute_if_absent:
        unique = list(dict.fromkeys(key_list))
        if initial_capacity is None and len(unique) <= _TREEIFY_THRESHOLD - 1:
            # Fast path: up to 7 keys in a new HashMap's 16 buckets neither resize (threshold
            # 12) nor treeify a bucket; each new key goes to the head of its bucket, so the
            # order is by bucket, then latest inserted first.
            buckets = [spread(hash_of(k)) & 15 for k in unique]
            order = sorted(range(len(unique)), key=lambda i: (buckets[i], -i))
            return [unique[i] for i in order]
        table = _SimulatedHashMap(initial_capacity)
        for key in key_list:
            table.compute_if_absent(key, hash_of(key), None if sort_key_of is None else sort_key_of(key))
        return table.keys()
    unique = list(dict.fromkeys(key_list))
    spreads = [spread(hash_of(k)) for k in unique]
    capacity = 16 if initial_capacity is None else table_size_for(initial_capacity)
    # Fast path: while no bucket ever holds more than 8 keys, chains keep insertion
    # order through every resize, so the order is "by final bucket, then by insertion".
    counts: dict[int, int] = {}
    for size, h in enumerate(spreads, start=1):
        bucket = h & (capacity - 1)
        count = counts.get(bucket, 0) + 1
        if count > _TREEIFY_THRESHOLD:
            break
        counts[bucket] = count
        if size > int(capacity * 0.75):
            capacity *= 2
            counts = {}
            for earlier in spreads[:size]:
                b = earlier & (capacity - 1)
                counts[b] = counts.get(b, 0) + 1
    else:
        mask = capacity - 1
        order = sorted(range(len(unique)), key=lambda i: spreads[i] & mask)
        return [unique[i] for i in order]
    # Slow path: a long chain made Java resize early or build a red-black tree bin.
    table = _SimulatedHashMap(initial_capacity)
    for key in key_list:
        table.put(key, hash_of(key), None if sort_key_of is None else sort_key_of(key))
    return table.keys()


class JavaHashSetFirst:
    """A ``new HashSet<TopicPartition>()`` that only needs ``add``, ``remove`` and ``iterator().next()``.

    Within a bucket Java keeps insertion order (resizes split chains without
    reordering), so the first element is the one with the lowest bucket index,
    earliest inserted among equals.  The table grows past 3/4 load, and a
    bucket reaching 9 entries while the table is smaller than 64 doubles it.
    Tree bins (9+ entries in one bucket of a table of 64+) are not modelled.  The
    set only ever holds partitions of one topic, whose hashes are ``31 * partition``
    apart: for partition numbers below 256 at most 8 of them can share a bucket of a
    64+ table, so this only matters for topics with more than 256 partitions, and
    then only if 9 partitions moved between the same two members share a bucket.
    That case sets :attr:`tree_bin_seen` and emits a warning (the first element
    Java picks may then differ).
    """

    __slots__ = ("items", "capacity", "counter", "tree_bin_seen")

    def __init__(self) -> None:
        self.items: dict[tuple[str, int], tuple[int, int]] = {}  # tp -> (spread hash, insertion seq)
        self.capacity = 16
        self.counter = 0
        self.tree_bin_seen = False

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, tp: object) -> bool:
        return tp in self.items

    def add(self, tp: tuple[str, int]) -> None:
        if tp in self.items:
            return
        h = spread(topic_partition_hash(tp[0], tp[1]))
        self.counter += 1
        self.items[tp] = (h, self.counter)
        mask = self.capacity - 1
        chain = sum(1 for other_h, _ in self.items.values() if (other_h & mask) == (h & mask))
        if chain > _TREEIFY_THRESHOLD:
            if self.capacity < _MIN_TREEIFY_CAPACITY:
                self.capacity *= 2
            elif not self.tree_bin_seen:
                self.tree_bin_seen = True
                warnings.warn(
                    "a HashSet of moved partitions became a tree bin in Java; "
                    "the sticky assignment may differ from Kafka's",
                    RuntimeWarning,
                    stacklevel=2,
                )
        if len(self.items) > int(self.capacity * 0.75):
            self.capacity *= 2

    def discard(self, tp: tuple[str, int]) -> None:
        self.items.pop(tp, None)

    def first(self) -> tuple[str, int]:
        mask = self.capacity - 1
        return min(self.items.items(), key=lambda kv: (kv[1][0] & mask, kv[1][1]))[0]


# ---------------------------------------------------------------------------
# what the group leader's assignor receives
# ---------------------------------------------------------------------------

def subscription_order(members: Sequence[MemberSubscription]) -> list[MemberSubscription]:
    """Members in the iteration order of the leader's ``HashMap<String, Subscription>``.

    ``ConsumerCoordinator.onLeaderElected`` puts the JoinGroup members into a plain
    ``HashMap`` keyed by member id; ``members`` is taken as that insertion order.
    """
    by_id: dict[str, MemberSubscription] = {}
    for member in members:
        if member.member_id in by_id:
            raise ValueError(f"duplicate member id {member.member_id!r}")
        by_id[member.member_id] = member
    ids = tuple(by_id)
    order = _member_order_cache.get(ids)
    if order is None:  # every assignor of a what-if asks for the same group's order
        order = hash_iteration_order(ids)
        _member_order_cache.clear()
        _member_order_cache[ids] = order
    return [by_id[m] for m in order]  # type: ignore[index]


_member_order_cache: dict[tuple[str, ...], list] = {}  # the last group's member order


_protocol_topics_cache: dict[tuple[str, ...], tuple[str, ...]] = {}
_PROTOCOL_TOPICS_CACHE_LIMIT = 4096


def _sorted_topics(topics: tuple[str, ...]) -> tuple[str, ...]:
    """``topics`` as a set sorted in Java order, memoised: every member of a group usually
    subscribes to the same topics, and every assignor asks for every member's list."""
    cached = _protocol_topics_cache.get(topics)
    if cached is None:
        cached = tuple(sorted(set(topics), key=java_key))
        if len(_protocol_topics_cache) >= _PROTOCOL_TOPICS_CACHE_LIMIT:
            _protocol_topics_cache.clear()
        _protocol_topics_cache[topics] = cached
    return cached


def protocol_topics(member: MemberSubscription) -> list[str]:
    """The member's topics as ConsumerProtocol delivers them: a set, sorted in Java order."""
    return list(_sorted_topics(tuple(member.topics)))


def protocol_owned(member: MemberSubscription) -> list[tuple[str, int]]:
    """Owned partitions as ConsumerProtocol delivers them: sorted by topic (Java order), partition."""
    return sorted(((t, p) for t, p in member.owned), key=lambda tp: (java_key(tp[0]), tp[1]))


def member_rack(member: MemberSubscription) -> str | None:
    """Subscription.rackId(): an empty rack is no rack."""
    return member.rack or None


def partitions_per_topic(
    topics: dict[str, int], members_in_order: Sequence[MemberSubscription]
) -> dict[str, int]:
    """``AbstractPartitionAssignor.assign``'s ``partitionsPerTopic``, in Java iteration order.

    Subscribed topics (collected into a ``HashSet`` member by member) that exist in
    the metadata with at least one partition, put into a ``HashMap``.
    """
    # Members of a group mostly share one subscription: walk each distinct one once, in the
    # order the members bring them (a topic's first appearance is all a HashSet keeps).
    distinct = dict.fromkeys(tuple(m.topics) for m in members_in_order)
    subscribed = hash_iteration_order(dict.fromkeys(t for ts in distinct for t in _sorted_topics(ts)))
    existing = [t for t in subscribed if topics.get(t, 0) > 0]  # type: ignore[call-overload]
    return {t: topics[t] for t in hash_iteration_order(existing)}  # type: ignore[index]


def replica_racks(topic_racks: TopicRacks | None, topic: str, partition: int) -> frozenset[str]:
    """Racks of a partition's replicas (``Node::rack`` of ``PartitionInfo.replicas()``, nulls dropped)."""
    if not topic_racks:
        return frozenset()
    racks = topic_racks.get(topic, {}).get(partition)
    if not racks:
        return frozenset()
    return frozenset(r for r in racks if r is not None)


def use_rack_aware_assignment(
    consumer_racks: set[str] | frozenset[str],
    partition_racks: set[str] | frozenset[str],
    racks_per_partition: dict[TopicPartition, frozenset[str]],
) -> bool:
    """``AbstractPartitionAssignor.useRackAwareAssignment``.

    Rack-aware only if some member rack holds replicas and not every partition has
    replicas on every rack.
    """
    if not consumer_racks or consumer_racks.isdisjoint(partition_racks):
        return False
    return not all(racks == partition_racks for racks in racks_per_partition.values())
