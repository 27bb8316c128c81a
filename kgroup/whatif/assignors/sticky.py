"""Eager sticky assignment: a Python port of Kafka's ``org.apache.kafka.clients.consumer.StickyAssignor``.

Balanced first, sticky second: every member keeps as many of its previous partitions as
the balance allows (see :mod:`.sticky_core`, the port of ``AbstractStickyAssignor``).

StickyAssignor is an eager assignor: a member revokes everything before rejoining and
reports its previous assignment in the subscription's userData, which StickyAssignor
writes from the assignment and generation it last received (``onAssignment``).  Here
``MemberSubscription.owned``/``generation`` are that previous assignment; a member with
generation -1 and nothing owned is a new member that sends no userData.  The userData
groups partitions by topic in ``HashMap`` order, which this module reproduces because
the order of owned partitions influences the result.
"""
from __future__ import annotations

from .base import GroupAssignment, MemberSubscription, TopicPartition, TopicRacks
from kgroup.java.hashmap import iteration_order

from .leader import member_rack, partitions_per_topic, protocol_topics, subscription_order
from .sticky_core import MemberData, StickySubscription, as_assignment, assign_partitions

__all__ = ["assign", "user_data_partitions"]


def user_data_partitions(owned: tuple[TopicPartition, ...] | list[TopicPartition]) -> list[TopicPartition]:
    """Previous partitions as StickyAssignor reads them back from its userData.

    ``serializeTopicPartitionAssignment`` groups them per topic with ``computeIfAbsent``
    on a ``HashMap`` (``CollectionUtils.groupPartitionsByTopic``), keeping each topic's
    partition order; topics come back in that map's iteration order.
    """
    per_topic: dict[str, list[int]] = {}
    for topic, partition in owned:
        per_topic.setdefault(topic, []).append(partition)
    topic_order = iteration_order(list(per_topic), compute_if_absent=True)
    return [(t, p) for t in topic_order for p in per_topic[t]]


def _subscription(member: MemberSubscription) -> StickySubscription:
    if member.generation < 0 and not member.owned:
        data = MemberData([], None)  # never assigned: no userData
    else:
        data = MemberData(user_data_partitions(member.owned), member.generation)
    return StickySubscription(
        member_id=member.member_id,
        topics=protocol_topics(member),
        owned_partitions=[],  # eager: revoked before joining
        generation_id=member.generation if member.generation >= 0 else None,
        rack=member_rack(member),
        member_data=data,
    )


def assign(
    topics: dict[str, int],
    members: list[MemberSubscription],
    *,
    topic_racks: TopicRacks | None = None,
) -> GroupAssignment:
    """Assign like ``StickyAssignor.assign(Cluster, GroupSubscription)``."""
    if not members:
        return {}
    ordered = subscription_order(members)
    subscriptions = {m.member_id: _subscription(m) for m in ordered}
    result = assign_partitions(partitions_per_topic(topics, ordered), subscriptions, topic_racks)
    return as_assignment([m.member_id for m in members], result.assignment)

