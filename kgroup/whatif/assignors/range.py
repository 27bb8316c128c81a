"""Range assignment: a Python port of Kafka's ``org.apache.kafka.clients.consumer.RangeAssignor``.

Per topic, the members subscribed to it are sorted (static members by group.instance.id
first, then dynamic members by member id, in Java string order) and each takes a
contiguous range of partitions; the first ``partitions % members`` members get one more.
A member's list follows the order in which Java iterates the topics (a ``HashMap``).

Rack-aware (KIP-881) when members have racks and some partition is not replicated on
every rack: partitions are first matched to members of the same rack without breaking
the per-topic balance (topics with the same partition count and the same subscribers
are matched partition by partition, to keep them co-partitioned), the rest is assigned
as above, and each member's list is then sorted by topic and partition.
"""
from __future__ import annotations

from typing import Any

from kgroup.java.strings import java_string_key

from .base import GroupAssignment, MemberSubscription, TopicPartition, TopicRacks
from .leader import (
    member_info_key,
    member_rack,
    partitions_per_topic,
    protocol_topics,
    replica_racks,
    subscription_order,
    use_rack_aware_assignment,
)

__all__ = ["assign"]


class _TopicAssignmentState:
    """``RangeAssignor.TopicAssignmentState``: one topic's members, quotas and unassigned partitions."""

    def __init__(
        self,
        topic: str,
        partition_count: int,
        consumers: dict[str, str | None],
        consumer_racks: set[str],
        topic_racks: TopicRacks | None,
    ) -> None:
        self.topic = topic
        # member id -> rack, in assignment order (already sorted by the caller); shared by
        # every topic with the same subscribers, never changed
        self.consumers = consumers
        self.unassigned: list[TopicPartition] = [(topic, p) for p in range(partition_count)]
        self.assigned_count = dict.fromkeys(self.consumers, 0)
        n = len(self.consumers)
        self.per_consumer = partition_count // n if n else 0
        self.remaining_with_extra = partition_count % n if n else 0

        self.partition_racks: dict[TopicPartition, frozenset[str]] = {}
        all_partition_racks: set[str] = set()
        if consumer_racks:
            for p in range(partition_count):
                racks = replica_racks(topic_racks, topic, p)
                self.partition_racks[(topic, p)] = racks
                all_partition_racks.update(racks)
        self.needs_rack_aware = use_rack_aware_assignment(consumer_racks, all_partition_racks, self.partition_racks)

    def racks_match(self, consumer: str, tp: TopicPartition) -> bool:
        rack = self.consumers[consumer]
        if rack is None:
            return True
        replica_racks = self.partition_racks.get(tp)
        return replica_racks is not None and rack in replica_racks

    def max_assignable(self, consumer: str) -> int:
        extra = 1 if self.remaining_with_extra > 0 else 0
        return max(0, self.per_consumer + extra - self.assigned_count[consumer])

    def on_assigned(self, consumer: str, partitions: list[TopicPartition]) -> None:
        count = self.assigned_count[consumer] + len(partitions)
        self.assigned_count[consumer] = count
        if count > self.per_consumer:
            self.remaining_with_extra -= 1
        if len(partitions) == 1:
            self.unassigned.remove(partitions[0])
        else:
            taken = set(partitions)
            self.unassigned = [tp for tp in self.unassigned if tp not in taken]


def _give(consumer: str, partitions: list[TopicPartition], state: _TopicAssignmentState,
          assignment: dict[str, list[TopicPartition]]) -> None:
    assignment[consumer].extend(partitions)
    state.on_assigned(consumer, partitions)


def _assign_ranges(state: _TopicAssignmentState, assignment: dict[str, list[TopicPartition]],
                   rack_matching: bool) -> None:
    for consumer in state.consumers:
        if not state.unassigned:
            break
        limit = state.max_assignable(consumer)
        if limit == 0:
            continue
        if rack_matching:
            partitions = []
            for tp in state.unassigned:
                if state.racks_match(consumer, tp):
                    partitions.append(tp)
                    if len(partitions) == limit:
                        break
        else:
            partitions = state.unassigned[:limit]
        if partitions:
            _give(consumer, partitions, state, assignment)


def _assign_co_partitioned(consumers: list[str], partition_count: int, states: list[_TopicAssignmentState],
                           assignment: dict[str, list[TopicPartition]]) -> None:
    """Match partition p of all these topics to the first member whose rack holds all of them."""
    remaining = list(consumers)
    for p in range(partition_count):
        match = next(
            (c for c in remaining
             if all(s.racks_match(c, (s.topic, p)) and s.max_assignable(c) > 0 for s in states)),
            None,
        )
        if match is None:
            continue
        for s in states:
            _give(match, [(s.topic, p)], s, assignment)
        if not any(s.max_assignable(match) > 0 for s in states):
            remaining.remove(match)
            if not remaining:
                break


def _assign_with_rack_matching(states: list[_TopicAssignmentState],
                               assignment: dict[str, list[TopicPartition]]) -> None:
    # Java groups topics by their (member -> rack) map, then by partition count (the size
    # of the partition rack map, 0 when no subscriber has a rack). Groups are independent.
    groups: dict[frozenset[Any], dict[int, list[_TopicAssignmentState]]] = {}
    for state in states:
        by_count = groups.setdefault(frozenset(state.consumers.items()), {})
        by_count.setdefault(len(state.partition_racks), []).append(state)
    for by_count in groups.values():
        for partition_count, co_partitioned in by_count.items():
            if len(co_partitioned) > 1:
                _assign_co_partitioned(list(co_partitioned[0].consumers), partition_count, co_partitioned, assignment)
            elif co_partitioned[0].needs_rack_aware:
                _assign_ranges(co_partitioned[0], assignment, rack_matching=True)


def assign(
    topics: dict[str, int],
    members: list[MemberSubscription],
    *,
    topic_racks: TopicRacks | None = None,
) -> GroupAssignment:
    """Assign like ``RangeAssignor.assign(Cluster, GroupSubscription)``.

    ``topics``: partition count per topic in the cluster metadata (missing or 0 = no such
    topic). ``members``: in the order the group coordinator listed them. Returns every
    member's partitions in Kafka's order.
    """
    if not members:
        return {}
    ordered = subscription_order(members)
    per_topic = partitions_per_topic(topics, ordered)

    in_order = sorted(ordered, key=lambda m: member_info_key(m.member_id, m.group_instance_id))
    if len({tuple(m.topics) for m in in_order}) == 1:
        # every member subscribes to the same topics: one subscriber list for every topic
        subscribers = {t: in_order for t in per_topic}
    else:
        subscribers = {t: [] for t in per_topic}
        for member in in_order:
            for topic in protocol_topics(member):
                if topic in subscribers:
                    subscribers[topic].append(member)
    # member id -> rack and the set of racks, computed once per distinct subscriber list
    shared: dict[int, tuple[dict[str, str | None], set[str]]] = {}
    states = []
    for t, n in per_topic.items():
        members_of = subscribers[t]
        consumers_and_racks = shared.get(id(members_of))
        if consumers_and_racks is None:
            consumers: dict[str, str | None] = {}
            for member in members_of:
                consumers.setdefault(member.member_id, member_rack(member))
            consumers_and_racks = consumers, {rack for rack in consumers.values() if rack is not None}
            shared[id(members_of)] = consumers_and_racks
        states.append(_TopicAssignmentState(t, n, *consumers_and_racks, topic_racks))

    assignment: dict[str, list[TopicPartition]] = {m.member_id: [] for m in members}
    rack_aware = any(s.needs_rack_aware for s in states)
    if rack_aware:
        _assign_with_rack_matching(states, assignment)
    for state in states:
        _assign_ranges(state, assignment, rack_matching=False)
    if rack_aware:
        for partitions in assignment.values():
            partitions.sort(key=lambda tp: (java_string_key(tp[0]), tp[1]))
    return assignment
