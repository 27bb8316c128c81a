"""What the ``uniform`` assignor (:mod:`kgroup.whatif.assignors.uniform`) builds from its input, as
Kafka's coordinator builds it: the subscription type, the topics with their ids and the Java
collections whose iteration order the builders depend on (the emulation is
:mod:`kgroup.java.hashmap`), the members checked and ordered, their current assignment, and the
result in kgroup's form; the constants and the error both builders share.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Literal

from kgroup.whatif.assignors.base import GroupAssignment, MemberSubscription, TopicPartition
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

def int_hash(value: Hashable) -> int:
    """``Integer.hashCode()`` (the value; partition numbers are never negative here)."""
    return value  # type: ignore[return-value]  # called with partition numbers only


def int_key(value: Hashable) -> object:
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

class SubscribedTopics:
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


def validate_members(members: Sequence[MemberSubscription]) -> None:
    seen: set[str] = set()
    for m in members:
        if m.member_id in seen:
            raise ValueError(f"duplicate member id {m.member_id!r}")
        seen.add(m.member_id)


def current_assignment(
    member: MemberSubscription, topics: SubscribedTopics, order: Order, jdk: int = DEFAULT_JDK
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
        out.append((topic, partition_set_order(sorted(grouped[topic]), jdk)))
    return out


def partition_set_order(parts: list[int], jdk: int = DEFAULT_JDK) -> list[int]:
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
        parts, int_hash, initial_capacity=hashset_copy_initial_capacity(len(parts), jdk), compare_key=int_key
    )


def check_no_double_ownership(members: Sequence[MemberSubscription], topics: SubscribedTopics) -> None:
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


def ordered_members(members: Sequence[MemberSubscription], order: Order) -> list[MemberSubscription]:
    if order == "given":
        return list(members)
    if order != "java":
        raise ValueError(f"order must be 'java' or 'given', not {order!r}")
    by_id = {m.member_id: m for m in members}
    # the coordinator's new HashMap<>() of members, one put per member id
    return [by_id[mid] for mid in iteration_order([m.member_id for m in members])]


def group_result(members: Sequence[MemberSubscription], owned: dict[str, dict[str, set[int]]]) -> GroupAssignment:
    out: GroupAssignment = {}
    for m in members:
        parts = owned.get(m.member_id, {})
        out[m.member_id] = sorted((t, p) for t, ps in parts.items() for p in ps)
    return out
