"""Gather everything kgroup knows about groups into GroupState, from a live cluster.

Works through the adapter's Cluster (duck-typed: metadata, describe_groups,
committed_offsets, log_offsets, list_groups, brokers_with_racks) and imports no
client library itself. Requests are batched: one describe for all groups, one
OffsetFetch per group issued concurrently, and one ListOffsets per leader broker
for the union of all partitions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from kgroup.errors import ClusterError, UsageError
from kgroup.hashing import offsets_partition_for
from kgroup.model import OFFSETS_TOPIC, GroupDescription, GroupState, PartitionOffsets, TopicLayout

Progress = Callable[[str, int, int], None]


@dataclass
class Capture:
    states: dict[str, GroupState]
    problems: list[str] = field(default_factory=list)  # what could not be read: results are incomplete

    @property
    def complete(self) -> bool:
        return not self.problems


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


def is_unknown(group: GroupDescription, has_offsets: bool, listed: set[str] | None) -> bool:
    """Kafka describes an unknown group as Dead; some brokers say Empty instead, so an
    Empty group with no members, no offsets and absent from ListGroups is unknown too."""
    if group.state == "Dead":
        return not has_offsets
    if group.members or has_offsets:
        return False
    return group.state in ("Empty", "Unknown", None) and listed is not None and group.group_id not in listed


def capture(cluster, group_ids: list[str], *, topics: list[str] | None = None, offsets: bool = True,
            racks: bool = False, progress: Progress = _no_progress) -> Capture:
    metadata = cluster.metadata()
    for t in topics or []:
        if t not in metadata.topics:
            raise UsageError(f"unknown topic {t}")
    progress("describe", 0, len(group_ids))
    descriptions = cluster.describe_groups(group_ids)
    progress("describe", len(group_ids), len(group_ids))
    problems: list[str] = []
    committed: dict[str, dict[tuple[str, int], PartitionOffsets]] = {g: {} for g in group_ids}
    if offsets:
        # every committed partition first (real Kafka answers this), then the partitions
        # of the group's topics that did not come back (never committed, or a broker
        # that only answers explicit partitions)
        committed = cluster.committed_offsets({g: None for g in group_ids})
        explicit: dict[str, list[tuple[str, int]]] = {}
        for g in group_ids:
            names = set(topics or descriptions[g].topics) | ({t for t, _ in committed[g]} if not topics else set())
            wanted = [(t, p) for t in sorted(names) if t in metadata.topics
                      for p in sorted(metadata.topics[t].partitions) if (t, p) not in committed[g]]
            if wanted:
                explicit[g] = wanted
        for g, found in cluster.committed_offsets(explicit).items():
            committed[g].update(found)
        progress("committed offsets", len(group_ids), len(group_ids))
    listed = None
    suspects = [g for g in group_ids if not descriptions[g].members and descriptions[g].state != "Dead"
                and not any(o.committed is not None for o in committed[g].values())]
    if suspects:
        try:
            listed = {lg.group_id for lg in cluster.list_groups()}
        except ClusterError:
            listed = None
    for g in group_ids:
        has = any(o.committed is not None for o in committed[g].values())
        if is_unknown(descriptions[g], has, listed):
            raise UsageError(f"unknown group {g}")

    log: dict[tuple[str, int], tuple[int | None, int | None]] = {}
    if offsets:
        union = sorted({tp for g in group_ids for tp in _partitions_of(descriptions[g], committed[g], topics, metadata)})
        progress("log offsets", 0, len(union))
        log, problems = cluster.log_offsets(union)
        progress("log offsets", len(union), len(union))
    brokers = cluster.brokers_with_racks() if racks else sorted(metadata.brokers.values(), key=lambda b: b.id)
    topic_ids: dict[str, str] = {}
    if racks:  # the full picture (snapshot, whatif): topic ids order KIP-848's uniform assignor
        wanted = sorted({t for g in group_ids for t, _ in _partitions_of(descriptions[g], committed[g], topics, metadata)}
                        | {t for g in group_ids for t in descriptions[g].topics if t in metadata.topics})
        topic_ids = cluster.topic_ids(wanted) if wanted and hasattr(cluster, "topic_ids") else {}
    rack_of = {b.id: b.rack for b in brokers}
    offsets_topic = metadata.topics.get(OFFSETS_TOPIC)
    now = datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    states = {}
    for g in group_ids:
        desc = descriptions[g]
        parts = _partitions_of(desc, committed[g], topics, metadata)
        layout = {}
        for t in sorted({t for t, _ in parts} | set(desc.topics)):
            info = metadata.topics.get(t)
            if info is None:
                problems.append(f"topic {t} of group {g} is not in the metadata (deleted?)")
                continue
            replica_racks = {}
            if racks:
                replica_racks = {p.partition: sorted({rack_of[r] for r in p.replicas if rack_of.get(r)})
                                 for p in info.partitions.values()}
                replica_racks = {p: rs for p, rs in replica_racks.items() if rs}
            layout[t] = TopicLayout(info.partition_count, replica_racks, topic_ids.get(t))
        by_topic: dict[str, dict[int, PartitionOffsets]] = {}
        for (t, p) in parts:
            c = committed[g].get((t, p)) or PartitionOffsets()
            start, end = log.get((t, p), (None, None))
            by_topic.setdefault(t, {})[p] = PartitionOffsets(c.committed, start, end, c.metadata, c.leader_epoch)
        leader = None
        if offsets_topic and offsets_topic.partition_count:
            info = offsets_topic.partitions.get(offsets_partition_for(g, offsets_topic.partition_count))
            leader = info.leader if info and info.leader >= 0 else None
        states[g] = GroupState(desc, layout, brokers, offsets_topic.partition_count if offsets_topic else None,
                               by_topic if offsets else {}, now, leader)
    return Capture(states, problems)


def _partitions_of(desc: GroupDescription, committed: dict, topics: list[str] | None, metadata) -> list[tuple[str, int]]:
    names = set(topics) if topics else set(desc.topics) | {t for t, _ in committed}
    out = set()
    for t in names:
        info = metadata.topics.get(t)
        out.update((t, p) for p in (info.partitions if info else ()))
        out.update(tp for tp in committed if tp[0] == t)
    return sorted(out)
