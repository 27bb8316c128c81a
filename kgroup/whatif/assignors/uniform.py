"""KIP-848 server-side ``uniform`` assignor, as Kafka's group coordinator runs it.

Mirrors (re-written in Python, not copied) ``UniformAssignor`` and the two builders it
delegates to, ``UniformHomogeneousAssignmentBuilder`` and
``UniformHeterogeneousAssignmentBuilder``, in
``group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/`` of Apache
Kafka trunk as merged into the confluentinc/kafka mirror at commit
06d492d81361d053700c7cd6a932d7f361ea8309 (2026-08-22).  The last functional changes to
these files are KAFKA-17710 (heterogeneous rework, Oct 2024, in 4.0.0) and KAFKA-18688
(homogeneous stability fix, apache commit c16c240b, May 2025, shipped in 4.0.1 and 4.1.0);
the 4.0, 4.1, 4.2 and trunk branches are functionally identical since then.
Pass ``pre_kafka_18688=True`` to get the homogeneous behaviour of 4.0.0.

What the coordinator does, and so what this module does
-------------------------------------------------------
* Subscription type: the group is HOMOGENEOUS when every topic *name* that any member
  subscribes to is subscribed by every member (``ConsumerGroup.subscriptionType``; names
  of topics that do not exist count too), otherwise HETEROGENEOUS.
* Homogeneous builder: total partitions / members gives a minimum quota, the remainder
  ``r`` is the number of members that get one extra.  Members are visited in iteration
  order; each keeps its current (target) partitions up to its quota, the excess is
  revoked.  Since KAFKA-18688 a member that cannot fill its "+1" quota from what it
  already owns gives the extra slot up unless it is one of the last ``r`` members still
  to be visited, so that members already holding the extra keep it.  Then the list of
  unassigned partitions (never-owned ones first, in subscribed-topic order and ascending
  partition, followed by revoked ones in revocation order) is dealt out, in order, to the
  members still under quota, in member order.
* Heterogeneous builder: keeps every current partition of a still-subscribed topic
  (no quota at this stage), then hands out unassigned partitions topic by topic to the
  least-loaded subscriber, then moves partitions from the most- to the least-loaded
  subscribers of each topic (at most 16 rounds over the topics).  Topics are processed
  by partitions-per-subscriber descending, then subscriber count ascending, then topic id
  ascending; members with equal load are ordered by their index in the member
  iteration order.
* Not rack aware: the current assignor ignores member and partition racks
  (``topic_racks`` is accepted for interface compatibility and ignored).  A rack-aware
  homogeneous builder exists only as an unmerged pull request (apache/kafka#20000).
* Topics that do not exist are silently dropped from subscriptions: the coordinator
  resolves names through ``TopicIds``, which skips unknown names, so the assignor never
  sees them (the assignor itself would throw, which is what Kafka's unit tests check).
* Every member appears in the result (Kafka leaves members out when nobody subscribes to
  anything; the coordinator then treats them as having an empty assignment).
* ``subscription=`` forces the builder (Kafka's unit tests do; the coordinator also says
  HETEROGENEOUS when members mix regex and topic-name subscriptions, which
  ``MemberSubscription`` cannot express).

Ordering: what we emulate and what we cannot know
-------------------------------------------------
The result of the homogeneous builder depends on iteration orders of Java collections;
the heterogeneous one only on the member order and on the topic-id tie-break.

* Members (``order="java"``, the default): the coordinator hands the assignor a
  ``java.util.HashMap<String, ...>`` keyed by member id, built with ``new HashMap<>()``
  and one ``put`` per member, so members are visited in Java HashMap iteration order:
  by bucket ``(h ^ (h >>> 16)) & (capacity - 1)`` of ``String.hashCode()``, capacity 16
  doubled whenever more than 3/4 full.  Members that share a bucket are visited in
  insertion order, which in the broker is the iteration order of the group's own member
  table; we cannot observe that and use the order of the ``members`` list instead.
  Tree bins (9+ ids colliding in one bucket of a 64+ slot table) are modelled too
  (:mod:`kgroup.java.hashmap`), here and for the topic-id and partition sets below.
  ``order="given"`` visits members in list order (what Kafka's unit tests do with
  TreeMap/LinkedHashMap).
* Subscribed topics (homogeneous): Kafka iterates a ``HashSet<Uuid>`` of topic ids.  We
  do not know topic ids from names, so by default topics are visited in **topic name
  order** (Python ``sorted``).  If you pass ``topic_ids`` (name -> the base64 ``Uuid``
  string Kafka prints, e.g. from ``kafka-topics --describe``) we emulate the HashSet
  exactly: bucket of ``Uuid.hashCode()`` (``(int)(msb^lsb >> 32) ^ (int)(msb^lsb)``)
  in a table sized by ``new HashSet<>(collection)``; ids that share a bucket keep the
  order in which they were inserted, which is the iteration order of the member's
  ``HashSet<String>`` of subscribed names (built from its subscription list).
* Topic tie-break (heterogeneous): ``Uuid.compareTo`` (signed msb, then signed lsb) when
  ``topic_ids`` is given, else topic name order.
* A member's current assignment (homogeneous revocation order): with ``order="java"``
  the topics are iterated like the ``HashMap<Uuid, Set<Integer>>`` the coordinator
  rebuilds from its log records (``Collectors.toMap``: default capacity, bucket order by
  ``Uuid.hashCode()`` when ``topic_ids`` is given, else topic name order) and the
  partitions like a ``HashSet<Integer>`` built from an ascending list (ascending while
  partition numbers are below the table size).  A live coordinator that has not been
  reloaded may hold maps built with other capacities, whose order we cannot know.
  With ``order="given"`` topics and partitions are taken in the order they appear in
  ``MemberSubscription.owned`` (Kafka's tests use LinkedHashMap for this).
* The broker's JDK: ``new HashSet<>(collection)`` (subscribed names, subscribed topic ids,
  a topic's current partitions) sizes its table differently on JDK 19+ than on JDK 17
  when the collection has 12, 24, 48, 96, ... elements
  (:func:`kgroup.java.hashmap.hashset_copy_initial_capacity`), which changes the
  iteration order.  ``jdk=`` names the broker's JDK; the default is JDK 17.

Output partition lists are sorted by topic then partition (Kafka returns sets).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Literal

from kgroup.whatif.assignors.base import GroupAssignment, MemberSubscription, TopicPartition, TopicRacks
from kgroup.java.hashmap import (DEFAULT_JDK, TREEIFY_THRESHOLD, hashset_copy_capacity, hashset_copy_initial_capacity,
                                 iteration_order)
from kgroup.java.strings import java_string_key
from kgroup.java.uuid import parse_uuid, uuid_hash, uuid_key

# Mirrors apache/kafka (trunk via confluentinc/kafka@06d492d81361d053700c7cd6a932d7f361ea8309)
# group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/
# {UniformAssignor,UniformHomogeneousAssignmentBuilder,UniformHeterogeneousAssignmentBuilder}.java

HOMOGENEOUS = "HOMOGENEOUS"
HETEROGENEOUS = "HETEROGENEOUS"

# The heterogeneous builder gives up balancing after this many passes over the topics.
MAX_ITERATION_COUNT = 16

Order = Literal["java", "given"]


class PartitionAssignorError(Exception):
    """What Kafka raises as PartitionAssignorException."""


# ---------------------------------------------------------------------------------------
# Java collections as the coordinator builds them (the emulation is kgroup.java.hashmap)
# ---------------------------------------------------------------------------------------

def _int_hash(value: Hashable) -> int:
    """``Integer.hashCode()`` (the value; partition numbers are never negative here)."""
    return value  # type: ignore[return-value]  # called with partition numbers only


def _int_key(value: Hashable) -> object:
    """``Integer.compareTo`` order."""
    return value


def subscribed_names_order(topics: Sequence[str], jdk: int = DEFAULT_JDK) -> list[str]:
    """Iteration order of ``new HashSet<>(list)`` of topic names (a member's subscribed names)."""
    return iteration_order(list(topics), initial_capacity=hashset_copy_initial_capacity(len(topics), jdk))


def subscription_type(members: Sequence[MemberSubscription]) -> str:
    """``ConsumerGroup.subscriptionType`` for name-only subscriptions (no regex)."""
    counts: dict[str, int] = {}
    members_per_subscription: dict[tuple[str, ...], int] = {}
    for m in members:  # members mostly share a subscription: count each distinct one once
        key = tuple(m.topics)
        members_per_subscription[key] = members_per_subscription.get(key, 0) + 1
    for subscription, n in members_per_subscription.items():
        for topic in set(subscription):
            counts[topic] = counts.get(topic, 0) + n
    return HOMOGENEOUS if all(c == len(members) for c in counts.values()) else HETEROGENEOUS


# ---------------------------------------------------------------------------------------
# Input normalisation
# ---------------------------------------------------------------------------------------

class _Topics:
    """Topic metadata plus the ordering rules documented in the module docstring."""

    def __init__(self, topics: dict[str, int], topic_ids: dict[str, str] | None):
        for name, count in topics.items():
            if not isinstance(count, int) or count < 0:
                raise ValueError(f"topic {name!r}: partition count must be an int >= 0, got {count!r}")
        self.counts = dict(topics)
        self.ids: dict[str, tuple[int, int]] | None = None
        if topic_ids is not None:
            missing = sorted(set(topics) - set(topic_ids))
            if missing:
                raise ValueError(f"topic_ids lacks an id for: {', '.join(missing)}")
            self.ids = {name: parse_uuid(topic_ids[name]) for name in topics}
            if len(set(self.ids.values())) != len(self.ids):
                raise ValueError("two topics share the same topic id")

    def exists(self, name: str) -> bool:
        return name in self.counts

    def hash_code(self, name: Hashable) -> int:
        """``Uuid.hashCode()`` of the topic's id."""
        assert self.ids is not None
        return uuid_hash(self.ids[name])  # type: ignore[index]  # called with topic names only

    def compare_key(self, name: Hashable) -> object:
        """``Uuid.compareTo`` order of the topic's id (for tree bins)."""
        assert self.ids is not None
        return uuid_key(self.ids[name])  # type: ignore[index]  # called with topic names only

    def set_order(self, names: Iterable[str], initial_capacity: int | None, *, inserted: bool = False) -> list[str]:
        """Iteration order of a HashSet/HashMap keyed by these topics' ids.

        ``initial_capacity`` is the constructor argument (``None``: ``new HashMap<>()``).
        ``names`` are inserted in name order, or in the order given when ``inserted``;
        without topic ids the answer is name order."""
        if self.ids is None:
            return sorted(set(names))
        names = list(dict.fromkeys(names)) if inserted else sorted(set(names))
        return iteration_order(
            names, self.hash_code, initial_capacity=initial_capacity, compare_key=self.compare_key
        )

    def id_key(self, name: str) -> tuple[int, int] | str:
        """Sort key for ``Uuid.compareTo`` (or the name when ids are unknown)."""
        return uuid_key(self.ids[name]) if self.ids is not None else java_string_key(name)


def _validate_members(members: Sequence[MemberSubscription]) -> None:
    seen: set[str] = set()
    for m in members:
        if m.member_id in seen:
            raise ValueError(f"duplicate member id {m.member_id!r}")
        seen.add(m.member_id)


def _current_assignment(
    member: MemberSubscription, topics: _Topics, order: Order, jdk: int = DEFAULT_JDK
) -> list[tuple[str, list[int]]]:
    """The member's current target assignment as an ordered list of (topic, partitions).

    Partitions of unknown topics, or beyond a topic's partition count, are dropped: they
    belong to a topic id the coordinator no longer knows (deleted or re-created topic).
    """
    grouped: dict[str, list[int]] = {}
    for topic, partition in member.owned:
        if not topics.exists(topic) or not 0 <= partition < topics.counts[topic]:
            continue
        parts = grouped.setdefault(topic, [])
        if partition not in parts:
            parts.append(partition)
    if order == "given":
        return list(grouped.items())
    out = []
    # Collectors.toMap -> new HashMap<>() (capacity 16, putIfAbsent); new HashSet<>(list) per topic.
    for topic in topics.set_order(grouped, None):
        out.append((topic, _partition_set_order(sorted(grouped[topic]), jdk)))
    return out


def _partition_set_order(parts: list[int], jdk: int = DEFAULT_JDK) -> list[int]:
    """``new HashSet<>(parts)`` iteration order, ``parts`` distinct, in the order they are added."""
    if parts and max(parts) < 1 << 16:
        # Integer.hashCode(p) = p, which HashMap.hash leaves as it is below 2**16: p sits in bucket
        # p & (size - 1) of a table sized for them all (no resize). With at most 8 keys no bucket
        # becomes a tree, so the order is by bucket, then as added (a stable sort)
        mask = hashset_copy_capacity(len(parts), jdk) - 1
        if len(parts) <= TREEIFY_THRESHOLD:
            return sorted(parts, key=lambda p: p & mask)
        if max(parts) <= mask:  # a bucket each: ascending
            return sorted(parts)
    return iteration_order(
        parts, _int_hash, initial_capacity=hashset_copy_initial_capacity(len(parts), jdk), compare_key=_int_key
    )


def _check_no_double_ownership(members: Sequence[MemberSubscription], topics: _Topics) -> None:
    owner: dict[TopicPartition, str] = {}
    for m in members:
        for tp in m.owned:
            if not topics.exists(tp[0]):
                continue
            if tp in owner and owner[tp] != m.member_id:
                raise ValueError(
                    f"{tp[0]}-{tp[1]} is in the current assignment of both {owner[tp]!r} and "
                    f"{m.member_id!r}; a target assignment never has that"
                )
            owner[tp] = m.member_id


def _ordered_members(members: Sequence[MemberSubscription], order: Order) -> list[MemberSubscription]:
    if order == "given":
        return list(members)
    if order != "java":
        raise ValueError(f"order must be 'java' or 'given', not {order!r}")
    by_id = {m.member_id: m for m in members}
    # the coordinator's new HashMap<>() of members, one put per member id
    return [by_id[mid] for mid in iteration_order([m.member_id for m in members])]


def _result(members: Sequence[MemberSubscription], owned: dict[str, dict[str, set[int]]]) -> GroupAssignment:
    out: GroupAssignment = {}
    for m in members:
        parts = owned.get(m.member_id, {})
        out[m.member_id] = sorted((t, p) for t, ps in parts.items() for p in ps)
    return out


# ---------------------------------------------------------------------------------------
# The assignor
# ---------------------------------------------------------------------------------------

def assign(
    topics: dict[str, int],
    members: list[MemberSubscription],
    *,
    topic_racks: TopicRacks | None = None,
    topic_ids: dict[str, str] | None = None,
    order: Order = "java",
    subscription: str | None = None,
    pre_kafka_18688: bool = False,
    jdk: int = DEFAULT_JDK,
) -> GroupAssignment:
    """Compute the next target assignment the ``uniform`` assignor produces.

    ``members[i].owned`` is the member's current *target* assignment.  ``topic_racks`` is
    ignored (the assignor is not rack aware).  See the module docstring for ``topic_ids``,
    ``order``, ``pre_kafka_18688`` and ``jdk`` (the broker's JDK).  ``subscription`` forces ``"HOMOGENEOUS"`` or
    ``"HETEROGENEOUS"`` instead of deriving it from topic names (the coordinator also
    reports HETEROGENEOUS when members mix regex and name subscriptions, which this API
    cannot express).  Raises :class:`PartitionAssignorError` where Kafka would throw.
    """
    del topic_racks  # not used by Kafka's uniform assignor
    if order not in ("java", "given"):
        raise ValueError(f"order must be 'java' or 'given', not {order!r}")
    if not members:
        return {}
    _validate_members(members)
    meta = _Topics(topics, topic_ids)
    _check_no_double_ownership(members, meta)
    ordered = _ordered_members(members, order)
    kind = subscription or subscription_type(members)
    if kind not in (HOMOGENEOUS, HETEROGENEOUS):
        raise ValueError(f"subscription must be {HOMOGENEOUS!r} or {HETEROGENEOUS!r}, not {kind!r}")
    if kind == HOMOGENEOUS:
        owned = _homogeneous(meta, ordered, order, pre_kafka_18688, jdk)
    else:
        owned = _heterogeneous(meta, ordered, order)
    return _result(members, owned)


def _homogeneous(
    meta: _Topics, members: list[MemberSubscription], order: Order, pre_kafka_18688: bool, jdk: int
) -> dict[str, dict[str, set[int]]]:
    first = members[0]
    # The member's names are a HashSet<String> built from its subscription list
    # (ConsumerGroupMember: new HashSet<>(list)); TopicIds iterates that set, skipping names
    # that are not topics, and new HashSet<>(TopicIds) inserts the ids in that order into a
    # table sized from the number of *names*.
    names = subscribed_names_order(first.topics, jdk)
    subscribed = meta.set_order(
        [t for t in names if meta.exists(t)], hashset_copy_initial_capacity(len(names), jdk), inserted=True
    )
    if not subscribed:
        return {}
    subscribed_set = set(subscribed)

    assigned_now = {(t, p) for m in members for t, p in m.owned if meta.exists(t)}
    unassigned: list[TopicPartition] = []
    total = 0
    for topic in subscribed:
        count = meta.counts[topic]
        for p in range(count):
            if (topic, p) not in assigned_now:
                unassigned.append((topic, p))
        total += count

    n = len(members)
    min_quota, remaining_extra = divmod(total, n)

    target: dict[str, dict[str, set[int]]] = {}
    unfilled: list[tuple[str, int]] = []
    for index, member in enumerate(members):
        quota = min_quota
        has_extra = False
        if remaining_extra > 0:
            quota += 1
            has_extra = True
            if pre_kafka_18688:
                remaining_extra -= 1
        kept: dict[str, set[int]] = {}
        for topic, parts in _current_assignment(member, meta, order, jdk):
            if topic not in subscribed_set:
                continue  # the whole topic is revoked
            if len(parts) <= quota:
                quota -= len(parts)
                kept[topic] = set(parts)
                continue
            for p in parts:
                if quota > 0:
                    quota -= 1
                    kept.setdefault(topic, set()).add(p)
                else:
                    unassigned.append((topic, p))
        if not pre_kafka_18688:
            if quota > 0 and has_extra and n - index > remaining_extra:
                # Leave the extra slot to a later member that may already hold it, unless
                # this member is one of the last `remaining_extra` members and must take it.
                quota -= 1
                has_extra = False
            if has_extra:
                remaining_extra -= 1
        if quota > 0:
            unfilled.append((member.member_id, quota))
        target[member.member_id] = kept

    next_index = 0
    for member_id, quota in unfilled:
        kept = target[member_id]
        for _ in range(quota):
            if next_index >= len(unassigned):
                break
            topic, p = unassigned[next_index]
            next_index += 1
            kept.setdefault(topic, set()).add(p)
    if next_index < len(unassigned):
        raise PartitionAssignorError("Partitions were left unassigned")
    return target


class _Balancer:
    """Least/most-loaded ranges over one topic's subscribers (MemberAssignmentBalancer)."""

    def __init__(self, sizes: list[int]):
        self.sizes = sizes  # shared with the builder: sizes change while balancing
        self.sorted: list[int] = []
        self.least_end = 0
        self.least_count = -1
        self.next_least = 0
        self.most_start = 0
        self.most_end = 0
        self.most_count = 1
        self.next_most = -1

    def initialize(self, subscribers: list[int]) -> int:
        if not subscribers:
            raise ValueError("Cannot balance an empty subscriber list.")
        self.sorted = sorted(subscribers, key=lambda i: (self.sizes[i], i))
        s = self.sorted
        self.least_end = 0
        self.least_count = self.sizes[s[0]] - 1
        self.next_least = 0
        self.most_start = len(s)
        self.most_end = len(s)
        self.most_count = self.sizes[s[-1]] + 1
        self.next_most = len(s) - 1
        return self.sizes[s[-1]] - self.sizes[s[0]]

    def next_least_loaded(self) -> int:
        s = self.sorted
        if self.next_least >= self.least_end:
            self.least_count += 1
            while self.least_end < len(s) and self.sizes[s[self.least_end]] == self.least_count:
                self.least_end += 1
            self.next_least = 0
        member = s[self.next_least]
        self.next_least += 1
        return member

    def next_most_loaded(self) -> int:
        s = self.sorted
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = self.sizes[s[self.most_start - 1]]
            else:
                self.most_count -= 1
            while self.most_start > 0 and self.sizes[s[self.most_start - 1]] == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = s[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        s = self.sorted
        i = self.next_most + 1
        s[i], s[self.most_end - 1] = s[self.most_end - 1], s[i]
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_count - self.least_count <= 1


def _heterogeneous(
    meta: _Topics, members: list[MemberSubscription], order: Order
) -> dict[str, dict[str, set[int]]]:
    del order  # the current assignment's iteration order does not matter here
    ids = [m.member_id for m in members]
    subs: list[set[str]] = [{t for t in m.topics if meta.exists(t)} for m in members]
    subscribers: dict[str, list[int]] = {}
    for index, topics_of_member in enumerate(subs):
        for topic in topics_of_member:
            subscribers.setdefault(topic, []).append(index)
    if not subscribers:
        return {}

    def topic_key(topic: str) -> tuple[float, int, tuple[int, int] | str]:
        # partitions per subscriber descending, subscriber count ascending, topic id ascending
        return (-(meta.counts[topic] / len(subscribers[topic])), len(subscribers[topic]), meta.id_key(topic))

    sizes = [0] * len(members)
    owners = {topic: [-1] * meta.counts[topic] for topic in subscribers}
    target: dict[str, dict[str, set[int]]] = {mid: {} for mid in ids}

    for index, member in enumerate(members):
        grouped: dict[str, set[int]] = {}
        for topic, p in member.owned:
            if meta.exists(topic) and 0 <= p < meta.counts[topic]:
                grouped.setdefault(topic, set()).add(p)
        for topic, parts in grouped.items():
            if topic in subs[index]:
                sizes[index] += len(parts)
                for p in parts:
                    owners[topic][p] = index
                target[ids[index]][topic] = set(parts)
            # else: the topic is no longer subscribed and is revoked entirely

    def move(topic: str, p: int, new_owner: int) -> None:
        old = owners[topic][p]
        if old != -1:
            parts = target[ids[old]].get(topic)
            if parts is not None:
                parts.discard(p)
                if not parts:
                    del target[ids[old]][topic]
            owners[topic][p] = -1
            sizes[old] -= 1
        target[ids[new_owner]].setdefault(topic, set()).add(p)
        owners[topic][p] = new_owner
        sizes[new_owner] += 1

    # Hand out unassigned partitions.
    unassigned = {
        topic: [p for p in range(meta.counts[topic]) if owners[topic][p] == -1] for topic in subscribers
    }
    balancer = _Balancer(sizes)
    for topic in sorted((t for t, ps in unassigned.items() if ps), key=topic_key):
        balancer.initialize(subscribers[topic])
        for p in unassigned[topic]:
            move(topic, p, balancer.next_least_loaded())

    # Iteratively balance topics that have at least two subscribers.
    movable = sorted((t for t in subscribers if len(subscribers[t]) >= 2), key=topic_key)
    if movable:
        last_rebalanced = -1
        balancer = _Balancer(sizes)
        done = False
        for _ in range(MAX_ITERATION_COUNT):
            for topic_index, topic in enumerate(movable):
                if topic_index == last_rebalanced:
                    done = True
                    break
                moved = _balance_topic(topic, meta.counts[topic], subscribers[topic], owners, balancer, move)
                if moved > 0 or last_rebalanced == -1:
                    last_rebalanced = topic_index
            if done:
                break
    return target


def _balance_topic(topic: str, num_partitions: int, topic_subscribers: list[int], owners: dict[str, list[int]],
                   balancer: _Balancer, move: Callable[[str, int, int], None]) -> int:
    moved = 0
    if balancer.initialize(topic_subscribers) <= 1:
        return moved
    owner = owners[topic]
    partitions = sorted(range(num_partitions), key=lambda p: (owner[p], p))
    start: dict[int, int] = {}
    end: dict[int, int] = {}
    for i, p in enumerate(partitions):
        start.setdefault(owner[p], i)
        end[owner[p]] = i + 1
    while not balancer.is_balanced():
        most = -1
        while True:
            most = balancer.next_most_loaded()
            if most == -1:
                break
            if most not in end or end[most] - start[most] <= 0:
                balancer.exclude_most_loaded()
                continue
            break
        if most == -1:
            break
        p = partitions[end[most] - 1]
        end[most] -= 1
        least = balancer.next_least_loaded()
        if balancer.is_balanced():
            break
        move(topic, p, least)
        moved += 1
    return moved
