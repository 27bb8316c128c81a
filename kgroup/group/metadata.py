"""What a live cluster answers: metadata, FindCoordinator and ListGroups, as the adapter reads them.

Part of the project's model (``kgroup.group.model`` names these classes too), kept apart because
only commands that talk to a cluster build them (and find-coordinator, which explains a
snapshot's coordinator in these terms): other offline commands never load this module.
"""
from __future__ import annotations

from dataclasses import dataclass

from kgroup.group.broker import Broker


@dataclass(frozen=True)
class PartitionInfo:
    """One partition of a topic in the metadata: its leader, replicas and error, if any."""

    partition: int
    leader: int  # -1 when the partition has no live leader
    replicas: tuple[int, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class TopicInfo:
    """A topic in the metadata: its partitions by number, or the error the cluster gave."""

    name: str
    partitions: dict[int, PartitionInfo]
    error: str | None = None

    @property
    def partition_count(self) -> int:
        return len(self.partitions)


@dataclass(frozen=True)
class ClusterMetadata:
    """The cluster's brokers and topics, as a metadata request returns them."""

    brokers: dict[int, Broker]
    topics: dict[str, TopicInfo]
    cluster_id: str | None = None

    def broker(self, broker_id: int | None) -> Broker | None:
        return None if broker_id is None else self.brokers.get(broker_id)


@dataclass(frozen=True)
class CoordinatorLookup:
    """What the cluster answered to FindCoordinator for one group."""

    group_id: str
    coordinator: Broker | None
    error_code: str | None = None  # Kafka error name, e.g. COORDINATOR_NOT_AVAILABLE
    error_message: str | None = None


@dataclass(frozen=True)
class GroupListing:
    """One group as ListGroups reports it."""

    group_id: str
    type: str | None = None  # classic | consumer | share | streams; None where the broker named none
    state: str | None = None
    protocol_type: str | None = None
    coordinator: Broker | None = None  # the broker that listed it (ListGroups answers for its coordinators)
