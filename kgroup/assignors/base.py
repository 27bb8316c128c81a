"""Shared vocabulary of every assignor: what a member brings, what it gets.

Pure data: no Kafka client, no CLI. An assignor is a plain function

    assign(topics: dict[str, int], members: list[MemberSubscription],
           *, topic_racks: TopicRacks | None = None) -> GroupAssignment

where ``topics`` maps each topic to its partition count.
"""
from __future__ import annotations

from typing import NamedTuple

# what an assignor returns: member id -> partitions, in the exact order Kafka's assignor produces them
from kgroup.assignment import GroupAssignment as GroupAssignment
from kgroup.assignment import TopicPartition as TopicPartition

# topic -> partition -> racks of that partition's replicas (KIP-881)
TopicRacks = dict[str, dict[int, frozenset[str]]]


class MemberSubscription(NamedTuple):
    """One member as the assignor sees it (ConsumerPartitionAssignor.Subscription)."""

    member_id: str
    topics: tuple[str, ...]
    group_instance_id: str | None = None
    rack: str | None = None
    # partitions the member owns now (cooperative: ownedPartitions; eager sticky: userData)
    owned: tuple[TopicPartition, ...] = ()
    # generation the owned partitions belong to (-1 = unknown / DEFAULT_GENERATION)
    generation: int = -1

