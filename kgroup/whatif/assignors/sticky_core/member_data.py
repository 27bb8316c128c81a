"""What a member brings to the sticky assignors: its subscription and its previous assignment
(``AbstractStickyAssignor.MemberData``), and the generation it belongs to."""
from __future__ import annotations

from typing import NamedTuple

from ..base import TopicPartition

DEFAULT_GENERATION = -1


class MemberData(NamedTuple):
    """``AbstractStickyAssignor.MemberData``: what a member says it owned, and in which generation."""

    partitions: list[TopicPartition]
    generation: int | None  # None = Optional.empty()


class StickySubscription(NamedTuple):
    """One member's ``Subscription`` as the group leader's assignor receives it."""

    member_id: str
    topics: list[str]  # sorted (Java order), without duplicates, as ConsumerProtocol sends them
    owned_partitions: list[TopicPartition]  # Subscription.ownedPartitions()
    generation_id: int | None  # Subscription.generationId()
    rack: str | None
    member_data: MemberData
