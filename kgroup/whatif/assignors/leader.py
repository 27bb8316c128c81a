"""What the group leader's assignor sees: the leader-side helpers of Kafka's client assignors.

Kafka's client assignors run on the group leader. ``ConsumerCoordinator.onLeaderElected``
collects the members' subscriptions into a ``HashMap`` keyed by member id and
``AbstractPartitionAssignor.assign`` turns them into what every assignor works from. This
module reproduces that view:

* members in the iteration order of that ``HashMap`` (:func:`subscription_order`);
* topics and owned partitions as ``ConsumerProtocol`` delivers them, sorted
  (:func:`protocol_topics`, :func:`protocol_owned`);
* ``partitionsPerTopic`` (:func:`partitions_per_topic`);
* ``MemberInfo`` order (:func:`member_info_key`);
* the KIP-881 rack helpers (:func:`member_rack`, :func:`replica_racks`,
  :func:`use_rack_aware_assignment`).

The Java semantics underneath (String order, HashMap iteration order) live in
:mod:`kgroup.java`.
"""
from __future__ import annotations

from typing import Any, Sequence

from kgroup.java.hashmap import iteration_order
from kgroup.java.strings import java_string_key

from .base import MemberSubscription, TopicPartition, TopicRacks


def member_info_key(member_id: str, group_instance_id: str | None) -> tuple[int, str]:
    """Sort key of ``AbstractPartitionAssignor.MemberInfo.compareTo``.

    Static members (with a group.instance.id) come first, ordered by instance
    id; dynamic members follow, ordered by member id (Java string order).
    """
    if group_instance_id is not None:
        return (0, java_string_key(group_instance_id))
    return (1, java_string_key(member_id))


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
        order = iteration_order(ids)
        _member_order_cache.clear()
        _member_order_cache[ids] = order
    return [by_id[m] for m in order]


_member_order_cache: dict[tuple[str, ...], list[Any]] = {}  # the last group's member order


_protocol_topics_cache: dict[tuple[str, ...], tuple[str, ...]] = {}
_PROTOCOL_TOPICS_CACHE_LIMIT = 4096


def _sorted_topics(topics: tuple[str, ...]) -> tuple[str, ...]:
    """``topics`` as a set sorted in Java order, memoised: every member of a group usually
    subscribes to the same topics, and every assignor asks for every member's list."""
    cached = _protocol_topics_cache.get(topics)
    if cached is None:
        cached = tuple(sorted(set(topics), key=java_string_key))
        if len(_protocol_topics_cache) >= _PROTOCOL_TOPICS_CACHE_LIMIT:
            _protocol_topics_cache.clear()
        _protocol_topics_cache[topics] = cached
    return cached


def protocol_topics(member: MemberSubscription) -> list[str]:
    """The member's topics as ConsumerProtocol delivers them: a set, sorted in Java order."""
    return list(_sorted_topics(tuple(member.topics)))


def protocol_owned(member: MemberSubscription) -> list[tuple[str, int]]:
    """Owned partitions as ConsumerProtocol delivers them: sorted by topic (Java order), partition."""
    return sorted(((t, p) for t, p in member.owned), key=lambda tp: (java_string_key(tp[0]), tp[1]))


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
    subscribed = iteration_order(dict.fromkeys(t for ts in distinct for t in _sorted_topics(ts)))
    existing = [t for t in subscribed if topics.get(t, 0) > 0]
    return {t: topics[t] for t in iteration_order(existing)}


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
