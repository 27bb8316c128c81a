"""Cooperative sticky assignment: a Python port of Kafka's
``org.apache.kafka.clients.consumer.CooperativeStickyAssignor``.

Same algorithm as the eager sticky assignor (:mod:`.sticky_core`), but members keep
their partitions while rebalancing and report them in the subscription
(``ownedPartitions`` and ``generationId``, ConsumerProtocol v2+).  A partition that has
to change owner is first revoked: the assignor leaves it out of the new owner's
assignment (``adjustAssignment``), the old owner gives it up, and the follow-up
rebalance hands it to its new owner.  :func:`assign_rounds` returns both steps.
"""
from __future__ import annotations

from .base import AssignorNeverReturns, GroupAssignment, MemberSubscription, TopicPartition, TopicRacks
from .leader import member_rack, partitions_per_topic, protocol_owned, protocol_topics, subscription_order
from .sticky_core import (
    DEFAULT_GENERATION,
    MemberData,
    StickySubscription,
    as_assignment,
    assign_partitions,
)
from .sticky_core.builder import remove_first

__all__ = ["assign", "assign_rounds"]


def _subscription(member: MemberSubscription) -> StickySubscription:
    owned = protocol_owned(member)
    generation = member.generation if member.generation >= 0 else None
    # With a generation in the subscription the assignor takes it from there; without
    # one it reads the userData, where CooperativeStickyAssignor wrote generation -1.
    data = MemberData(owned, generation if generation is not None else DEFAULT_GENERATION)
    return StickySubscription(
        member_id=member.member_id,
        topics=protocol_topics(member),
        owned_partitions=owned,
        generation_id=generation,
        rack=member_rack(member),
        member_data=data,
    )


def _partitions_transferring_ownership(
    subscriptions: dict[str, StickySubscription], assignment: dict[str, list[TopicPartition]]
) -> dict[TopicPartition, str]:
    """``computePartitionsTransferringOwnership``: new partitions that some member still owns."""
    added: dict[TopicPartition, str] = {}
    revoked: set[TopicPartition] = set()
    for consumer in subscriptions:
        assigned = assignment.get(consumer, [])
        owned = subscriptions[consumer].owned_partitions
        owned_set = set(owned)
        for tp in assigned:
            if tp not in owned_set:
                added[tp] = consumer
        assigned_set = set(assigned)
        revoked.update(tp for tp in owned if tp not in assigned_set)
    return {tp: consumer for tp, consumer in added.items() if tp in revoked}


def _assign_once(
    topics: dict[str, int], members: list[MemberSubscription], topic_racks: TopicRacks | None
) -> GroupAssignment:
    ordered = subscription_order(members)
    subscriptions = {m.member_id: _subscription(m) for m in ordered}
    result = assign_partitions(partitions_per_topic(topics, ordered), subscriptions, topic_racks)
    assignment = result.assignment
    transferring = result.partitions_transferring_ownership
    if transferring is None:
        transferring = _partitions_transferring_ownership(subscriptions, assignment)
    for tp, consumer in transferring.items():
        remove_first(assignment[consumer], tp)  # revoke first, assign next rebalance
    return as_assignment([m.member_id for m in members], assignment)


def assign(
    topics: dict[str, int],
    members: list[MemberSubscription],
    *,
    topic_racks: TopicRacks | None = None,
) -> GroupAssignment:
    """Assign like ``CooperativeStickyAssignor.assign(Cluster, GroupSubscription)`` (one rebalance)."""
    if not members:
        return {}
    return _assign_once(topics, members, topic_racks)


def assign_rounds(
    topics: dict[str, int],
    members: list[MemberSubscription],
    *,
    topic_racks: TopicRacks | None = None,
) -> tuple[GroupAssignment, GroupAssignment]:
    """The first rebalance and the follow-up one that completes the moves.

    In the follow-up every member owns exactly its first-round assignment, in the
    generation of the first rebalance (one more than the highest generation reported).
    Where Kafka's assignor never returns, raises :class:`AssignorNeverReturns`, with
    ``follow_up`` set when the first rebalance completed and the follow-up one never does.
    """
    if not members:
        return {}, {}
    first = _assign_once(topics, members, topic_racks)
    generation = max(DEFAULT_GENERATION, *(m.generation for m in members)) + 1
    follow_up = [MemberSubscription(m.member_id, m.topics, m.group_instance_id, m.rack, tuple(first[m.member_id]),
                                    generation) for m in members]  # _replace, without its overhead
    try:
        return first, _assign_once(topics, follow_up, topic_racks)
    except AssignorNeverReturns as exc:
        exc.follow_up = True  # the first rebalance completed; the follow-up one never does
        raise
