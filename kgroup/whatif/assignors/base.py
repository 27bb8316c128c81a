"""Shared vocabulary of every assignor: what a member brings, what it gets.

Pure data: no Kafka client, no CLI. An assignor is a plain function

    assign(topics: dict[str, int], members: list[MemberSubscription],
           *, topic_racks: TopicRacks | None = None) -> GroupAssignment

where ``topics`` maps each topic to its partition count.
"""
from __future__ import annotations

from typing import NamedTuple

# what an assignor returns: member id -> partitions, in the exact order Kafka's assignor produces them
from kgroup.group.assignment import GroupAssignment as GroupAssignment
from kgroup.group.assignment import TopicPartition as TopicPartition

# topic -> partition -> racks of that partition's replicas (KIP-881)
TopicRacks = dict[str, dict[int, frozenset[str]]]


class AssignorNeverReturns(RuntimeError):
    """Kafka's assignor would never return on this input (it loops forever), so the rebalance
    that runs it never completes: an answer about the group, not a failure of kgroup.

    Defined here, where every assignor's vocabulary is, so that a caller can catch it without
    loading the assignor that raises it. ``follow_up`` is True when a two-round assignor's first
    rebalance completes and its follow-up rebalance is the one that never does.
    """

    follow_up = False


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

