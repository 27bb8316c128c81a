"""Round-robin assignment: a Python port of Kafka's ``org.apache.kafka.clients.consumer.RoundRobinAssignor``.

All partitions of all subscribed topics (topics in Java string order, partitions in
numeric order) are dealt one by one to the members, sorted like ``MemberInfo`` (static
members by group.instance.id first, then dynamic members by member id), cycling
through them and skipping a member that is not subscribed to the partition's topic.
Not rack-aware.
"""
from __future__ import annotations

import bisect

from kgroup.java.strings import java_string_key

from .base import GroupAssignment, MemberSubscription, TopicPartition, TopicRacks
from .leader import member_info_key, protocol_topics, subscription_order

__all__ = ["assign"]


def assign(
    topics: dict[str, int],
    members: list[MemberSubscription],
    *,
    topic_racks: TopicRacks | None = None,  # noqa: ARG001 - RoundRobinAssignor ignores racks
) -> GroupAssignment:
    """Assign like ``RoundRobinAssignor.assign(Cluster, GroupSubscription)``."""
    if not members:
        return {}
    ordered = subscription_order(members)
    circle = sorted(ordered, key=lambda m: member_info_key(m.member_id, m.group_instance_id))
    # positions in the circle of each topic's subscribers, to skip non-subscribers in O(log n)
    positions: dict[str, list[int]]
    if len({tuple(m.topics) for m in circle}) == 1:  # one subscription: everybody takes every topic
        all_topics = protocol_topics(circle[0])
        everybody = list(range(len(circle)))
        positions = {t: everybody for t in all_topics}
    else:
        subscribed = [set(protocol_topics(m)) for m in circle]
        all_topics = sorted({t for topic_set in subscribed for t in topic_set}, key=java_string_key)
        positions = {t: [] for t in all_topics}
        for index, topic_set in enumerate(subscribed):
            for t in topic_set:
                positions[t].append(index)

    assignment: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    lists = [assignment[m.member_id] for m in circle]
    size = len(circle)
    cursor = 0  # the CircularIterator's next member
    for topic in all_topics:
        count = topics.get(topic, 0)
        if count <= 0:
            continue
        subscriber_positions = positions[topic]
        for partition in range(count):
            k = bisect.bisect_left(subscriber_positions, cursor)
            cursor = subscriber_positions[k] if k < len(subscriber_positions) else subscriber_positions[0]
            lists[cursor].append((topic, partition))
            cursor = (cursor + 1) % size
    return assignment
