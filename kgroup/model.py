"""The project's own picture of a cluster and its groups.

The adapter fills these from confluent-kafka; snapshots load into them; every
pure module works on them. Nothing here talks to a cluster.
"""
from __future__ import annotations

from dataclasses import dataclass, field

OFFSETS_TOPIC = "__consumer_offsets"
# The most partitions kgroup examines in one group (snapshot files and whatif are refused
# beyond it: every partition costs memory and time in the assignors).
MAX_GROUP_PARTITIONS = 1_000_000


@dataclass(frozen=True)
class Broker:
    id: int
    host: str
    port: int
    rack: str | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def to_json(self) -> dict:
        return {"id": self.id, "host": self.host, "port": self.port}


@dataclass(frozen=True)
class PartitionInfo:
    partition: int
    leader: int  # -1 when the partition has no live leader
    replicas: tuple[int, ...] = ()
    error: str | None = None


@dataclass(frozen=True)
class TopicInfo:
    name: str
    partitions: dict[int, PartitionInfo]
    error: str | None = None

    @property
    def partition_count(self) -> int:
        return len(self.partitions)


@dataclass(frozen=True)
class ClusterMetadata:
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
    group_id: str
    type: str | None = None  # classic | consumer
    state: str | None = None
    protocol_type: str | None = None
    is_simple: bool | None = None


@dataclass
class Member:
    member_id: str
    client_id: str | None = None
    host: str | None = None
    group_instance_id: str | None = None
    rack: str | None = None
    subscription: list[str] | None = None
    protocols: list[str] | None = None
    assignment: dict[str, list[int]] = field(default_factory=dict)
    target_assignment: dict[str, list[int]] | None = None


@dataclass(frozen=True)
class PartitionOffsets:
    """Offsets of one partition as the group and the log see them."""

    committed: int | None = None
    log_start: int | None = None
    log_end: int | None = None
    metadata: str | None = None
    leader_epoch: int | None = None


@dataclass
class GroupDescription:
    """A group as DescribeGroups / ConsumerGroupDescribe (or a snapshot) tells it."""

    group_id: str
    type: str | None = None  # classic | consumer
    state: str | None = None
    protocol_type: str | None = None
    protocol: str | None = None  # the assignor in use
    generation: int | None = None
    coordinator: Broker | None = None
    members: list[Member] = field(default_factory=list)

    @property
    def topics(self) -> list[str]:
        """Every topic the members subscribe to or are assigned, sorted."""
        names: set[str] = set()
        for m in self.members:
            names.update(m.subscription or ())
            names.update(m.assignment)
            names.update(m.target_assignment or ())
        return sorted(names)


@dataclass
class TopicLayout:
    """What the assignors need of a topic: partition count, for KIP-881 replica racks, and for
    ``uniform`` the topic id."""

    partitions: int
    replica_racks: dict[int, list[str]] = field(default_factory=dict)
    topic_id: str | None = None  # as Kafka prints it (base64), when the cluster reported it


@dataclass
class GroupState:
    """Everything kgroup knows about one group: the contents of a snapshot."""

    group: GroupDescription
    topics: dict[str, TopicLayout]
    brokers: list[Broker] = field(default_factory=list)
    offsets_partitions: int | None = None
    offsets: dict[str, dict[int, PartitionOffsets]] = field(default_factory=dict)
    captured_at: str | None = None
    # leader of the group's __consumer_offsets partition when captured (kgroup's own addition)
    offsets_partition_leader: int | None = None
