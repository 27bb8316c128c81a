"""``AbstractStickyAssignor.assignPartitions``: the owned partitions every member may keep
(``allSubscriptionsEqual``) and the choice of the builder."""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from kgroup.java.hashmap import iteration_order

from ..base import GroupAssignment, TopicPartition, TopicRacks
from .builder import remove_first
from .constrained import ConstrainedAssignmentBuilder
from .general import GeneralAssignmentBuilder
from .member_data import DEFAULT_GENERATION, StickySubscription
from .movements import PartitionMovements
from .rack_info import RackInfo


class StickyResult(NamedTuple):
    """The sticky assignment and, from the constrained builder, the partitions changing owner."""

    assignment: dict[str, list[TopicPartition]]
    # None when the general builder ran (the cooperative assignor then recomputes it)
    partitions_transferring_ownership: dict[TopicPartition, str] | None
    # the general builder's moves (AbstractStickyAssignor.isSticky checks them); None from the
    # constrained builder, which records none
    partition_movements: PartitionMovements | None = None


def assign_partitions(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, StickySubscription],
    topic_racks: TopicRacks | None,
) -> StickyResult:
    """``AbstractStickyAssignor.assignPartitions``.

    ``partitions_per_topic``: subscribed topics that exist (partition count > 0).
    ``subscriptions``: in the iteration order of Java's subscription ``HashMap``.
    """
    consumer_to_owned: dict[str, list[TopicPartition]] = {}
    multiple_owners: set[TopicPartition] = set()
    rack_info = RackInfo(partitions_per_topic, subscriptions, topic_racks)
    all_equal, max_generation = all_subscriptions_equal(
        partitions_per_topic, subscriptions, consumer_to_owned, multiple_owners
    )
    # consumerToOwnedPartitions is another HashMap, filled in the subscription map's
    # iteration order: the same order, except inside tree bins (many colliding ids)
    consumer_to_owned = {c: consumer_to_owned[c] for c in iteration_order(list(consumer_to_owned))}
    if all_equal:
        transferring: dict[TopicPartition, str] = {}
        builder = ConstrainedAssignmentBuilder(
            partitions_per_topic, rack_info, consumer_to_owned, multiple_owners, transferring
        )
        return StickyResult(builder.build(), transferring)
    general = GeneralAssignmentBuilder(
        partitions_per_topic, rack_info, consumer_to_owned, subscriptions, max_generation
    )
    return StickyResult(general.build(), None, general.movements)


def all_subscriptions_equal(
    all_topics: dict[str, int],
    subscriptions: dict[str, StickySubscription],
    consumer_to_owned: dict[str, list[TopicPartition]],
    multiple_owners: set[TopicPartition],
) -> tuple[bool, int]:
    """``allSubscriptionsEqual``: also collects each member's still valid owned partitions.

    A partition claimed twice goes to the claimant of the higher generation; two
    claimants of the same generation both lose it (it lands in ``multiple_owners``).
    Note the other claimant's generation is read from its Subscription, as in Java.
    """
    all_equal = True
    subscribed_topics: set[str] = set()
    previous_owner: dict[TopicPartition, str] = {}
    max_generation = DEFAULT_GENERATION
    for consumer, subscription in subscriptions.items():
        if not subscribed_topics:
            subscribed_topics.update(subscription.topics)
        elif all_equal and not (
            len(subscription.topics) == len(subscribed_topics) and subscribed_topics.issuperset(subscription.topics)
        ):
            all_equal = False

        member_data = subscription.member_data
        member_generation = DEFAULT_GENERATION if member_data.generation is None else member_data.generation
        max_generation = max(max_generation, member_generation)

        owned: list[TopicPartition] = []
        consumer_to_owned[consumer] = owned
        for tp in member_data.partitions:
            if tp[0] not in all_topics:
                continue
            other = previous_owner.get(tp)
            if other is None:
                owned.append(tp)
                previous_owner[tp] = consumer
                continue
            other_generation = subscriptions[other].generation_id
            if other_generation is None:
                other_generation = DEFAULT_GENERATION
            if member_generation == other_generation:
                multiple_owners.add(tp)
                remove_first(consumer_to_owned[other], tp)
                previous_owner[tp] = consumer
            elif member_generation > other_generation:
                owned.append(tp)
                remove_first(consumer_to_owned[other], tp)
                previous_owner[tp] = consumer
            # else: the other member keeps it
    return all_equal, max_generation


def as_assignment(member_ids: Iterable[str], result: dict[str, list[TopicPartition]]) -> GroupAssignment:
    return {m: list(result.get(m, [])) for m in member_ids}
