"""What type of group a name is: for a group a command cannot answer for (librdkafka and the
consumer-group describes say a share or streams group is unknown, or "not a consumer group" for a
Kafka Connect group), so that the command says what the group is instead.

``group_types`` asks ListGroups of every broker (kgroup.kafka.wire.list_groups: v5 names the
type; v4 brokers have no share or streams groups) and keeps the groups named. The commands that
cannot answer for a share or streams group yet raise ``other_type_error``'s GroupOfOtherType (exit
2, one line); where support for a type is added, its commands answer instead of raising.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from kgroup.errors import ClusterError, GroupOfOtherType

if TYPE_CHECKING:
    from kgroup.group.metadata import GroupListing


class Cluster(Protocol):
    """What the look-up needs of kgroup.kafka.cluster's Cluster."""

    def list_every_group(self, types: list[str] | None = None) -> tuple[list[GroupListing], list[str]]: ...

# the groups the consumer-group commands answer for: classic groups of these protocol types
# (none: a group that only commits offsets) and consumer groups
CONSUMER_PROTOCOL_TYPES = (None, "", "consumer")


def group_types(cluster: Cluster, groups: Iterable[str]) -> dict[str, GroupListing]:
    """The listing (type, protocol type, state, the broker that listed it) of each of ``groups``
    the cluster's brokers list; a group not listed (unknown, or on a broker that could not be
    asked, or a cluster only librdkafka can ask, which lists consumer groups only) is left out."""
    wanted = set(groups)
    listed, _problems = cluster.list_every_group()
    return {g.group_id: g for g in listed if g.group_id in wanted}


def other_type_error(cluster: Cluster, group: str) -> GroupOfOtherType | None:
    """The error saying what ``group`` is, when the cluster lists it as a group the consumer-group
    commands do not answer for (share, streams, a classic group of another protocol type); None
    when it is not listed so, or the listing cannot be had."""
    try:
        listing = group_types(cluster, [group]).get(group)
    except ClusterError:
        return None
    if listing is None or listing.type is None:
        return None
    if listing.type in ("share", "streams") or (
            listing.type == "classic" and listing.protocol_type not in CONSUMER_PROTOCOL_TYPES):
        return GroupOfOtherType(group, listing.type, listing.protocol_type)
    return None
