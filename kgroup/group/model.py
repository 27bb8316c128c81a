"""The project's own picture of a cluster and its groups.

The adapter fills these from confluent-kafka; snapshots load into them; every
pure module works on them. Nothing here talks to a cluster.

The project's convention, here and in every module: an immutable value is a NamedTuple, a
record that is filled in or changed is a dataclass. Every command pays at start-up for the
classes it imports, and on Python 3.11 a NamedTuple costs a third to a half of what a
dataclass does to define (docs/benchmarks.md, start-up).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from kgroup.group.assignment import Assignment
from kgroup.group.broker import Broker as Broker  # the model's name for it
from kgroup.group.hashing import OFFSETS_TOPIC as OFFSETS_TOPIC  # the model's name for it

# what a live cluster answers (metadata, FindCoordinator, ListGroups) lives in kgroup.group.metadata,
# which only commands talking to a cluster need (it imports kgroup.group.broker, never this module);
# the model names those classes too, for the modules of kgroup.kafka that import them from here
_METADATA = ("PartitionInfo", "TopicInfo", "ClusterMetadata", "CoordinatorLookup", "GroupListing")


def __getattr__(name: str) -> Any:
    if name in _METADATA:
        from kgroup.group import metadata

        return getattr(metadata, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The most partitions kgroup examines in one group (snapshot files and whatif are refused
# beyond it: every partition costs memory and time in the assignors).
MAX_GROUP_PARTITIONS = 1_000_000


@dataclass
class Member:
    """A member of a group: ids, host, rack, subscription, protocols and assignment.

    KIP-848 only: ``member_epoch`` (ConsumerGroupDescribe's MemberEpoch, or the offsets log's
    current-assignment record; None where not read: librdkafka does not report it) and
    ``pending_revocation``, the partitions it was asked to give up and has not yet (the offsets
    log's partitionsPendingRevocation; None where not known: ConsumerGroupDescribe does not
    carry them)."""

    member_id: str
    client_id: str | None = None
    host: str | None = None
    group_instance_id: str | None = None
    rack: str | None = None
    subscription: list[str] | None = None
    protocols: list[str] | None = None
    assignment: Assignment = field(default_factory=dict)
    target_assignment: Assignment | None = None
    # what the broker still listed in ``assignment`` / ``target_assignment`` for topics missing
    # from the cluster's metadata (deleted) when captured: kept apart, out of every computation
    dropped_assignment: Assignment | None = None
    dropped_target_assignment: Assignment | None = None
    member_epoch: int | None = None
    pending_revocation: Assignment | None = None


class PartitionOffsets(NamedTuple):
    """Offsets of one partition as the group and the log see them."""

    committed: int | None = None
    log_start: int | None = None
    log_end: int | None = None
    metadata: str | None = None
    leader_epoch: int | None = None


class LogBounds(NamedTuple):
    """A partition's log now, as the cluster layer reads it: first offset, offset after the last
    record, and whether the topic is compacted (``cleanup.policy`` names compact; None: that
    could not be read)."""

    start: int
    end: int
    compacted: bool | None = False


@dataclass
class GroupDescription:
    """A group as DescribeGroups / ConsumerGroupDescribe (or a snapshot) tells it.

    ``generation`` is a classic group's generation or a KIP-848 group's group epoch (the names
    table of docs/snapshot-format.md). KIP-848 only: ``assignment_epoch``, the epoch of the
    group's target assignment. Either is None where not read (librdkafka reports neither)."""

    group_id: str
    type: str | None = None  # classic | consumer
    state: str | None = None
    protocol_type: str | None = None
    assignor: str | None = None  # the partition assignor in use (a classic group: the protocol its vote selected)
    generation: int | None = None
    coordinator: Broker | None = None
    members: list[Member] = field(default_factory=list)
    assignment_epoch: int | None = None

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
