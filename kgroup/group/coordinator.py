"""Explain a group's coordinator: the offsets partition it hashes to, that
partition's leader, what FindCoordinator answered, and whether they agree.

Pure: works on the model's types, never on a client.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from kgroup.group.hashing import (DEFAULT_OFFSETS_PARTITIONS, DEFAULT_SHARE_STATE_PARTITIONS, OFFSETS_TOPIC,
                                  SHARE_STATE_TOPIC, canonical_topic_id, offsets_partition_for, share_coordinator_key,
                                  share_state_partition_for)

if TYPE_CHECKING:  # the model is loaded where its classes are built: an offline survey needs none of them
    from kgroup.group.metadata import ClusterMetadata, CoordinatorLookup, GroupListing, TopicInfo
    from kgroup.group.model import Broker, GroupState

AGREE, MISMATCH, UNVERIFIED, OFFLINE = "agree", "mismatch", "unverified", "offline"
LOCATED = "located"  # a share partition's state partition and its leader, from the metadata


class CoordinatorSource(Protocol):
    """What a survey asks of a cluster (the adapter's Cluster answers it)."""

    def metadata(self) -> ClusterMetadata: ...

    def list_every_group(self, types: list[str] | None = None) -> tuple[list[GroupListing], list[str]]: ...

    def find_coordinators(self, groups: Iterable[str], brokers: dict[int, Broker]) -> dict[str, CoordinatorLookup]: ...


@dataclass(frozen=True)
class PartitionCount:
    """How many partitions ``__consumer_offsets`` has, and where that number came from."""

    count: int
    source: str  # metadata | option | default (Kafka's, nothing better known) | snapshot
    ignored: int | None = None  # a count asked for that the metadata contradicts (the metadata wins)


@dataclass(frozen=True)
class CoordinatorReport:
    """One group's offsets partition, its leader, the coordinator reported and the verdict."""

    group: str
    offsets_partition: int
    offsets_partitions: int
    offsets_partition_leader: Broker | None
    coordinator: Broker | None
    verdict: str
    reason: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "offsets_partition": self.offsets_partition,
            "offsets_partitions": self.offsets_partitions,
            "offsets_partition_leader": self.offsets_partition_leader.to_json() if self.offsets_partition_leader else None,
            "coordinator": self.coordinator.to_json() if self.coordinator else None,
            "verdict": self.verdict,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class BrokerLoad:
    """How many groups a broker coordinates, how many offsets partitions it leads, whether it is hot."""

    broker: Broker
    group_count: int
    offsets_partitions_led: int | None  # None: unknown (no metadata of the offsets topic)
    hot: bool

    def to_json(self) -> dict[str, Any]:
        return {**self.broker.to_json(), "group_count": self.group_count,
                "offsets_partitions_led": self.offsets_partitions_led, "hot": self.hot}


def offsets_partition_count(metadata: ClusterMetadata | None, given: int | None, topic_name: str = OFFSETS_TOPIC,
                            default: int = DEFAULT_OFFSETS_PARTITIONS) -> PartitionCount:
    """Metadata first, then the count ``given``, then Kafka's default (``source`` says which;
    ``ignored`` holds a count given that the metadata contradicts); of ``__consumer_offsets``
    unless another internal topic is named."""
    topic = metadata.topics.get(topic_name) if metadata else None
    if topic is not None and topic.partition_count > 0:
        ignored = given if given is not None and given != topic.partition_count else None
        return PartitionCount(topic.partition_count, "metadata", ignored)
    if given is not None:
        return PartitionCount(given, "option")
    return PartitionCount(default, "default")


def offline_report(group: str, offsets_partitions: int) -> CoordinatorReport:
    partition = offsets_partition_for(group, offsets_partitions)
    return CoordinatorReport(group, partition, offsets_partitions, None, None, OFFLINE,
                             "computed without a cluster")


def explain(group: str, count: PartitionCount, metadata: ClusterMetadata,
            lookup: CoordinatorLookup) -> CoordinatorReport:
    """Compare the hash-derived partition leader with the coordinator the cluster reports."""
    partition = offsets_partition_for(group, count.count)
    topic = metadata.topics.get(OFFSETS_TOPIC)
    info = topic.partitions.get(partition) if topic else None
    leader = metadata.broker(info.leader) if info and info.leader >= 0 else None
    coordinator = lookup.coordinator

    def report(verdict: str, reason: str | None) -> CoordinatorReport:
        return CoordinatorReport(group, partition, count.count, leader, coordinator, verdict, reason)

    if topic is None:
        where = _missing_topic_reason(lookup)
        return report(UNVERIFIED, where)
    if info is None:
        return report(UNVERIFIED, f"{OFFSETS_TOPIC} partition {partition} is missing from the metadata")
    if coordinator is None:
        return report(UNVERIFIED, _lookup_failure_reason(lookup, partition, info.leader))
    if leader is None:
        if info.leader >= 0:
            return report(UNVERIFIED, f"{OFFSETS_TOPIC} partition {partition} is led by broker {info.leader}, "
                                      "which is not among the brokers in the metadata")
        return report(UNVERIFIED, f"{OFFSETS_TOPIC} partition {partition} has no live leader, yet the cluster "
                                  f"named broker {coordinator.id} as coordinator (metadata may be stale)")
    if leader.id == coordinator.id:
        return report(AGREE, None)
    return report(MISMATCH, f"the cluster reports broker {coordinator.id} as coordinator, but {OFFSETS_TOPIC} "
                            f"partition {partition} is led by broker {leader.id} (leadership moving, stale "
                            "metadata, or a broker that does not place groups by Kafka's hash)")


def _missing_topic_reason(lookup: CoordinatorLookup) -> str:
    base = (f"{OFFSETS_TOPIC} is not visible (not created yet, or no DESCRIBE ACL on it): "
            "partition leader unknown")
    if lookup.coordinator is None and lookup.error_code:
        return f"{base}; coordinator lookup failed: {_lookup_failure_reason(lookup, None, None)}"
    return base


def _lookup_failure_reason(lookup: CoordinatorLookup, partition: int | None, leader: int | None) -> str:
    code = lookup.error_code or "UNKNOWN"
    if code == "COORDINATOR_NOT_AVAILABLE":
        if partition is None:
            cause = f"the offsets topic {OFFSETS_TOPIC} has probably not been created yet"
        elif leader is not None and leader < 0:
            cause = f"{OFFSETS_TOPIC} partition {partition} has no live leader"
        else:
            cause = f"the coordinator for {OFFSETS_TOPIC} partition {partition} is still loading or just moved"
        return f"COORDINATOR_NOT_AVAILABLE: {cause}"
    if code == "GROUP_AUTHORIZATION_FAILED":
        return "GROUP_AUTHORIZATION_FAILED: this principal lacks DESCRIBE on the group"
    detail = f": {lookup.error_message}" if lookup.error_message else ""
    return f"coordinator lookup failed with {code}{detail}"


def broker_loads(reports: list[CoordinatorReport], metadata: ClusterMetadata | None) -> list[BrokerLoad]:
    """Groups coordinated per broker (reported coordinator, else the partition leader)."""
    counts: Counter[int] = Counter()
    known: dict[int, Broker] = dict(metadata.brokers) if metadata else {}
    for r in reports:
        owner = r.coordinator or r.offsets_partition_leader
        if owner is not None:
            counts[owner.id] += 1
            known.setdefault(owner.id, owner)
    # how many offsets partitions each broker leads is known only from the offsets topic's
    # metadata; without it (a snapshot, a cluster that shows no such topic) it is unknown, not 0
    led: Counter[int] | None = None
    topic = metadata.topics.get(OFFSETS_TOPIC) if metadata else None
    if topic:
        led = Counter(p.leader for p in topic.partitions.values() if p.leader >= 0)
    total = sum(counts.values())
    mean = total / len(known) if known else 0
    return [BrokerLoad(known[i], counts[i], None if led is None else led[i], hot=total >= 3 and counts[i] > 1.5 * mean)
            for i in sorted(known)]


@dataclass(frozen=True)
class CoordinatorSurvey:
    """Every group's report, the per-broker load, and the offsets-topic partition count used
    (with where it came from)."""

    reports: list[CoordinatorReport]
    brokers: list[BrokerLoad]
    count: PartitionCount
    problems: list[str] = field(default_factory=list)  # what --all-groups could not list

    def to_json(self) -> dict[str, Any]:
        return {"groups": [r.to_json() for r in self.reports], "brokers": [b.to_json() for b in self.brokers]}


def survey(cluster: CoordinatorSource, groups: list[str], all_groups: bool, offsets_partitions: int | None) -> CoordinatorSurvey:
    """Explain the coordinator of each group using ``cluster`` (the adapter's Cluster,
    or anything with the same ``metadata``/``list_groups``/``find_coordinators`` methods)."""
    metadata = cluster.metadata()
    problems: list[str] = []
    listed_by: dict[str, Broker] = {}
    if all_groups:  # every group of every type (share and streams groups too: librdkafka lists neither)
        listed, problems = cluster.list_every_group()
        groups = list(dict.fromkeys([*groups, *(g.group_id for g in listed)]))
        # a broker's ListGroups lists the groups its coordinator holds: the coordinator when listed
        listed_by = {g.group_id: g.coordinator for g in listed if g.coordinator is not None}
    count = offsets_partition_count(metadata, offsets_partitions)
    lookups = cluster.find_coordinators(groups, metadata.brokers)
    if listed_by:
        from kgroup.group.metadata import CoordinatorLookup

        for g, lookup in list(lookups.items()):
            if lookup.coordinator is None and g in listed_by:  # librdkafka's lookup refuses a Connect group
                lookups[g] = CoordinatorLookup(g, listed_by[g])
    reports = [explain(g, count, metadata, lookups[g]) for g in groups]
    return CoordinatorSurvey(reports, broker_loads(reports, metadata), count, problems)


def offline_survey(groups: list[str], offsets_partitions: int | None) -> CoordinatorSurvey:
    count = offsets_partition_count(None, offsets_partitions)
    return CoordinatorSurvey([offline_report(g, count.count) for g in groups], [], count)


def snapshot_survey(state: GroupState, offsets_partitions: int | None) -> CoordinatorSurvey:
    """The coordinator as a snapshot recorded it (kgroup.group.model.GroupState)."""
    brokers = {b.id: b for b in state.brokers}
    if state.offsets_partitions:
        count = PartitionCount(state.offsets_partitions, "snapshot")
    else:
        count = offsets_partition_count(None, offsets_partitions)
    from kgroup.group.metadata import ClusterMetadata, CoordinatorLookup

    group = state.group.group_id
    partition = offsets_partition_for(group, count.count)
    coordinator = state.group.coordinator
    leader = brokers.get(state.offsets_partition_leader) if state.offsets_partition_leader is not None else None
    if coordinator is None or leader is None:
        missing = "coordinator" if coordinator is None else "offsets partition leader"
        report = CoordinatorReport(group, partition, count.count, leader, coordinator, UNVERIFIED,
                                   f"the snapshot does not record the {missing}")
    else:
        report = explain(group, count, ClusterMetadata(brokers, {OFFSETS_TOPIC: _single_partition_topic(
            partition, leader.id)}), CoordinatorLookup(group, coordinator))
    return CoordinatorSurvey([report], broker_loads([report], None), count)


def _single_partition_topic(partition: int, leader: int) -> TopicInfo:
    from kgroup.group.metadata import PartitionInfo, TopicInfo

    return TopicInfo(OFFSETS_TOPIC, {partition: PartitionInfo(partition, leader)})


# --- the share coordinator of a share partition (KIP-932) ---------------------------------------


class ShareStateSource(Protocol):
    """What a share-state survey asks of a cluster (the adapter's Cluster answers it)."""

    def metadata(self) -> ClusterMetadata: ...

    def topic_ids(self, topics: list[str]) -> dict[str, str]: ...


@dataclass(frozen=True)
class SharePartition:
    """A share partition asked about: the group, the topic (its name, when known) and its id, the partition."""

    group: str
    topic: str | None
    topic_id: str
    partition: int


@dataclass(frozen=True)
class ShareStateReport:
    """Where a share partition's state lives: the ``__share_group_state`` partition its key
    hashes to, and that partition's leader (the share coordinator) when the metadata shows it."""

    share: SharePartition
    coordinator_key: str
    state_partition: int
    state_partitions: int
    state_partition_leader: Broker | None
    verdict: str  # located | agree | mismatch | unverified | offline
    reason: str | None
    # the share coordinator FindCoordinator (key type 2) names, when the cluster was asked
    coordinator: Broker | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.share.group,
            "topic": self.share.topic,
            "topic_id": self.share.topic_id,
            "partition": self.share.partition,
            "coordinator_key": self.coordinator_key,
            "state_partition": self.state_partition,
            "state_partitions": self.state_partitions,
            "state_partition_leader": self.state_partition_leader.to_json() if self.state_partition_leader else None,
            "coordinator": self.coordinator.to_json() if self.coordinator else None,
            "verdict": self.verdict,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ShareStateSurvey:
    """Every share partition's report, the state topic's partition count used (and where it came
    from), and whether the cluster shows ``__share_group_state`` (None: no cluster asked)."""

    reports: list[ShareStateReport]
    count: PartitionCount
    topic_present: bool | None

    def to_json(self) -> dict[str, Any]:
        return {"share_partitions": [r.to_json() for r in self.reports], "state_topic": SHARE_STATE_TOPIC,
                "state_topic_present": self.topic_present}


def share_state_count(metadata: ClusterMetadata | None, given: int | None) -> PartitionCount:
    """The partition count of ``__share_group_state``: metadata, else ``given``, else Kafka's default."""
    return offsets_partition_count(metadata, given, SHARE_STATE_TOPIC, DEFAULT_SHARE_STATE_PARTITIONS)


def offline_share_survey(shares: list[SharePartition], state_partitions: int | None) -> ShareStateSurvey:
    """The state partition of each share partition, with no cluster (topic ids given)."""
    count = share_state_count(None, state_partitions)
    reports = [_share_report(s, count.count, None, OFFLINE, "computed without a cluster") for s in shares]
    return ShareStateSurvey(reports, count, None)


def resolve_shares(requests: list[tuple[str, str, int]], topic_id: str | None, metadata: ClusterMetadata | None,
                   ids: dict[str, str]) -> list[SharePartition]:
    """The share partitions asked for as (group, TOPIC, partition): TOPIC is a topic's name in the
    ``metadata`` (its id from ``ids``, or ``topic_id`` when given), else a topic id itself. With no
    metadata (offline) TOPIC must be a topic id unless ``topic_id`` is given. UsageError when a
    topic cannot be resolved; kgroup.errors.ClusterError when the cluster hides a topic's id."""
    from kgroup.errors import ClusterError, TopicMissing, UsageError

    given = None
    if topic_id is not None:
        try:
            given = canonical_topic_id(topic_id)
        except ValueError as e:
            raise UsageError(f"--topic-id: {e}") from None
    out = []
    for group, topic, partition in requests:
        if metadata is not None and topic in metadata.topics:
            known = ids.get(topic)
            if given is not None and known is not None and known != given:
                raise UsageError(f"--topic-id {given}: the cluster says topic {topic} has id {known}")
            tid = given or known
            if tid is None:
                raise ClusterError(f"the cluster does not report the id of topic {topic}; pass --topic-id")
            info = metadata.topics[topic]
            if info.partitions and partition not in info.partitions:
                raise UsageError(f"--share-state {topic}:{partition}: {topic} has partitions "
                                 f"0-{info.partition_count - 1}")
            out.append(SharePartition(group, topic, tid, partition))
            continue
        if given is not None:
            if metadata is not None:
                raise TopicMissing(f"topic {topic} is not in the cluster's metadata")
            out.append(SharePartition(group, topic, given, partition))
            continue
        try:
            tid = canonical_topic_id(topic)
        except ValueError:
            if metadata is None:
                raise UsageError(f"--share-state {topic}:{partition}: --offline needs the topic's id "
                                 "(TOPIC_ID:PARTITION, or --topic-id ID)") from None
            raise TopicMissing(f"topic {topic} is not in the cluster's metadata") from None
        out.append(SharePartition(group, None, tid, partition))  # an id given: its name is not looked up
    return out


def share_survey(cluster: ShareStateSource, requests: list[tuple[str, str, int]], topic_id: str | None,
                 state_partitions: int | None) -> ShareStateSurvey:
    """Where the state of each share partition asked for lives, from the cluster's metadata:
    topic ids, the partition count of ``__share_group_state`` and its leaders."""
    metadata = cluster.metadata()
    names = sorted({t for _, t, _ in requests if t in metadata.topics})
    ids = cluster.topic_ids(names) if names else {}
    shares = resolve_shares(requests, topic_id, metadata, ids)
    count = share_state_count(metadata, state_partitions)
    ask = getattr(cluster, "find_share_coordinators", None)  # a cluster held in memory (tests) may have none
    lookups = None
    if ask is not None:
        from kgroup.errors import KgroupError

        try:
            lookups = ask([share_coordinator_key(s.group, s.topic_id, s.partition) for s in shares])
        except KgroupError:  # the cluster cannot be asked (kgroup's own client, FindCoordinator v6): the metadata's answer
            lookups = None
    topic = metadata.topics.get(SHARE_STATE_TOPIC)
    reports = []
    for s in shares:
        reason: str | None
        leader: Broker | None
        partition = share_state_partition_for(s.group, s.topic_id, s.partition, count.count)
        info = topic.partitions.get(partition) if topic else None
        if topic is None or topic.error == "UNKNOWN_TOPIC_OR_PART":
            verdict, reason, leader = UNVERIFIED, (f"{SHARE_STATE_TOPIC} is not visible (no share coordinator, "
                                                   "not created yet, or no DESCRIBE ACL on it): partition leader "
                                                   "unknown"), None
        elif info is None:
            verdict, reason, leader = UNVERIFIED, f"{SHARE_STATE_TOPIC} partition {partition} is missing from the metadata", None
        elif info.leader < 0:
            verdict, reason, leader = UNVERIFIED, f"{SHARE_STATE_TOPIC} partition {partition} has no live leader", None
        else:
            leader = metadata.broker(info.leader)
            verdict, reason = (LOCATED, None) if leader else (
                UNVERIFIED, f"{SHARE_STATE_TOPIC} partition {partition} is led by broker {info.leader}, "
                            "which is not among the brokers in the metadata")
        report = _share_report(s, count.count, leader, verdict, reason)
        if lookups is not None:
            report = _checked(report, lookups.get(report.coordinator_key, (None, "not asked")))
        reports.append(report)
    present = topic is not None and topic.error != "UNKNOWN_TOPIC_OR_PART"
    return ShareStateSurvey(reports, count, present)


def _checked(report: ShareStateReport, lookup: tuple[Broker | None, str | None]) -> ShareStateReport:
    """The report with what FindCoordinator (key type 2) answered for its key: the cluster's share
    coordinator agrees with the leader of the state partition kgroup's hash names, or not; an
    answer with an error, or a leader not known, leaves it unverified (with both said)."""
    from dataclasses import replace

    found, error = lookup
    leader = report.state_partition_leader
    where = f"{SHARE_STATE_TOPIC} partition {report.state_partition}"
    if found is None:
        return replace(report, verdict=UNVERIFIED if report.verdict == LOCATED else report.verdict,
                       reason="; ".join(r for r in (report.reason, f"FindCoordinator (share) answered {error}") if r))
    if leader is None:
        return replace(report, coordinator=found, reason=f"{report.reason}; the cluster names broker {found.id}")
    if found.id == leader.id:
        return replace(report, coordinator=found, verdict=AGREE, reason=None)
    return replace(report, coordinator=found, verdict=MISMATCH,
                   reason=f"the cluster reports broker {found.id} as share coordinator, but {where} (kgroup's hash "
                          f"of the key) is led by broker {leader.id}")


def _share_report(s: SharePartition, count: int, leader: Broker | None, verdict: str,
                  reason: str | None) -> ShareStateReport:
    return ShareStateReport(s, share_coordinator_key(s.group, s.topic_id, s.partition),
                            share_state_partition_for(s.group, s.topic_id, s.partition, count), count, leader,
                            verdict, reason)
