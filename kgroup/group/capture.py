"""Gather everything kgroup knows about groups into GroupState, from a live cluster.

Works through the adapter's Cluster (duck-typed: metadata, describe_groups,
committed_offsets, log_offsets, list_groups, brokers_with_racks) and imports no
client library itself. Requests are batched: one describe for all groups, one
OffsetFetch per group issued concurrently, and one ListOffsets per leader broker
for the union of all partitions.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from kgroup.errors import ClusterError, UsageError
from kgroup.group.hashing import offsets_partition_for
from kgroup.group.model import OFFSETS_TOPIC, GroupDescription, GroupState, PartitionOffsets, TopicLayout

if TYPE_CHECKING:
    from kgroup.group.metadata import ClusterMetadata, TopicInfo

Progress = Callable[[str, int, int], None]


@dataclass
class Capture:
    states: dict[str, GroupState]
    problems: list[str] = field(default_factory=list)  # what could not be read: results are incomplete
    notes: list[str] = field(default_factory=list)  # what the user should know; nothing is missing

    @property
    def complete(self) -> bool:
        return not self.problems


def drop_deleted_topics(group: GroupDescription, known: Mapping[str, TopicInfo]) -> list[str]:
    """Move each member's assigned (and target) partitions of topics not in ``known`` (the
    cluster's metadata) to ``dropped_assignment`` / ``dropped_target_assignment``: Kafka's
    assignors only see topics in the metadata, and a snapshot's assignment names only topics
    it describes. Subscriptions stay as they are (whatif skips topics it does not know, and
    says so). Returns the topics dropped."""
    dropped: set[str] = set()
    for m in group.members:
        for key in ("assignment", "target_assignment"):
            current = getattr(m, key)
            gone = {t: ps for t, ps in (current or {}).items() if t not in known}
            if gone:
                setattr(m, key, {t: ps for t, ps in current.items() if t in known})
                setattr(m, f"dropped_{key}", gone)
                dropped.update(gone)
    return sorted(dropped)


def _dropped_note(group_id: str, dropped: list[str]) -> str:
    many = len(dropped) > 1
    return (f"group {group_id}: assigned topic{'s' if many else ''} {', '.join(dropped)} {'are' if many else 'is'} "
            "not in the cluster's metadata (deleted?): left out of the assignment, as Kafka's assignors skip "
            "such topics (kept per member as dropped_assignment)")


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


def capture(cluster: Any, group_ids: list[str], *, topics: list[str] | None = None, offsets: bool = True,
            racks: bool = False, drop_deleted: bool = False, progress: Progress = _no_progress) -> Capture:
    """With ``drop_deleted`` (snapshot, whatif), topics a member is assigned or subscribes to
    that the metadata lacks (deleted) are set apart as the assignors do (drop_deleted_topics)
    and said in ``notes``, not reported as missing values."""
    metadata = cluster.metadata()
    for t in topics or []:
        if t not in metadata.topics:
            raise UsageError(f"unknown topic {t}")
    progress("describe", 0, len(group_ids))
    descriptions = cluster.describe_groups(group_ids)
    progress("describe", len(group_ids), len(group_ids))
    problems: list[str] = []
    notes: list[str] = []
    if drop_deleted:
        for g in group_ids:
            dropped = drop_deleted_topics(descriptions[g], metadata.topics)
            if dropped:
                notes.append(_dropped_note(g, dropped))
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
        wanted_topics = sorted({tp[0] for g in group_ids for tp in _partitions_of(descriptions[g], committed[g], topics, metadata)}
                              | {name for g in group_ids for name in descriptions[g].topics if name in metadata.topics})
        topic_ids = cluster.topic_ids(wanted_topics) if wanted_topics and hasattr(cluster, "topic_ids") else {}
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
                if not drop_deleted:  # else set apart and said above
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
            by_topic.setdefault(t, {})[p] = c._replace(log_start=start, log_end=end)
        leader = None
        if offsets_topic and offsets_topic.partition_count:
            info = offsets_topic.partitions.get(offsets_partition_for(g, offsets_topic.partition_count))
            leader = info.leader if info and info.leader >= 0 else None
        states[g] = GroupState(desc, layout, brokers, offsets_topic.partition_count if offsets_topic else None,
                               by_topic if offsets else {}, now, leader)
    return Capture(states, problems, notes)


def _partitions_of(desc: GroupDescription, committed: Mapping[tuple[str, int], Any], topics: list[str] | None,
                   metadata: ClusterMetadata) -> list[tuple[str, int]]:
    names = set(topics) if topics else set(desc.topics) | {t for t, _ in committed}
    out: set[tuple[str, int]] = set()
    for t in names:
        info = metadata.topics.get(t)
        if info is not None:
            out.update([(t, p) for p in info.partitions])
    out.update([tp for tp in committed if tp[0] in names])
    return sorted(out)


def describe_stream(cluster: Any, group_ids: list[str], listed: set[str] | None, problems: list[str],
                    window: int | None = None) -> Iterator[GroupState]:
    """GroupState of each group without offsets (what describe needs), handed out in the order
    of ``group_ids`` as its description arrives through the adapter's sliding window of
    describes (``iter_describe_groups``): memory stays flat in the number of groups. The states
    are those ``capture(..., offsets=False)`` builds; what cannot be read is added to
    ``problems`` as it is met. ``listed``: the groups ListGroups named (an Empty group with no
    members that it did not name is unknown)."""
    metadata = cluster.metadata()
    brokers = sorted(metadata.brokers.values(), key=lambda b: b.id)
    offsets_topic = metadata.topics.get(OFFSETS_TOPIC)
    count = offsets_topic.partition_count if offsets_topic else None
    now = datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    for desc in cluster.iter_describe_groups(group_ids, **({"window": window} if window else {})):
        g = desc.group_id
        if is_unknown(desc, False, listed):
            raise UsageError(f"unknown group {g}")
        layout = {}
        for t in sorted({tp[0] for tp in _partitions_of(desc, {}, None, metadata)} | set(desc.topics)):
            info = metadata.topics.get(t)
            if info is None:
                problems.append(f"topic {t} of group {g} is not in the metadata (deleted?)")
                continue
            layout[t] = TopicLayout(info.partition_count)
        leader = None
        if offsets_topic and count:
            partition = offsets_topic.partitions.get(offsets_partition_for(g, count))
            leader = partition.leader if partition and partition.leader >= 0 else None
        yield GroupState(desc, layout, brokers, count, {}, now, leader)


class CaptureStream:
    """GroupState of each group, live, handed out in the order of ``group_ids`` as soon as each
    is complete, holding only a bounded number of groups at once (iterate it; ``problems``
    fills as it goes).

    Needs a cluster with iter_committed_offsets / start_log_offsets / finish_log_offsets (the
    adapter's sliding window). One describe for all groups; then OffsetFetch per group through
    the window (every committed partition, then the partitions of its topics that did not come
    back, as ``capture`` does); ListOffsets once per topic, sent as soon as a group needs it.
    A group that may be unknown (Dead, or Empty without members) is fetched first and nothing is
    handed out before it is settled, so an unknown group fails before any output, as before.

    With ``raw``, each item is ``(state, offsets)``: the state's own ``offsets`` are left empty
    and ``offsets`` holds them as plain tuples ``{topic: {partition: (committed, log_start,
    log_end, metadata)}}`` (lag.offset_table reads them; no object per partition)."""

    def __init__(self, cluster: Any, group_ids: list[str], *, topics: list[str] | None = None,
                 listed: set[str] | None = None, window: int | None = None, progress: Progress = _no_progress,
                 raw: bool = False) -> None:
        self.raw = raw
        self.cluster = cluster
        self.group_ids = group_ids
        self.topics = topics
        self.listed = listed
        self.window = window
        self.progress = progress
        self.problems: list[str] = []
        self._seen_problems: set[str] = set()

    def _problem(self, text: str) -> None:
        if text not in self._seen_problems:
            self._seen_problems.add(text)
            self.problems.append(text)

    def __iter__(self) -> Iterator[Any]:
        from collections import deque

        cluster, ids, topics = self.cluster, self.group_ids, self.topics
        metadata = cluster.metadata()
        for t in topics or []:
            if t not in metadata.topics:
                raise UsageError(f"unknown topic {t}")
        n = len(ids)
        self.progress("describe", 0, n)
        descriptions = cluster.describe_groups(ids)
        self.progress("describe", n, n)
        brokers = sorted(metadata.brokers.values(), key=lambda b: b.id)
        offsets_topic = metadata.topics.get(OFFSETS_TOPIC)
        offsets_count = offsets_topic.partition_count if offsets_topic else None
        now = datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        mtopics = metadata.topics

        # groups that are unknown unless they have committed offsets: settled before any output
        may_be_unknown = set() if self.listed is None else self.listed
        suspects = [i for i, g in enumerate(ids) if is_unknown(descriptions[g], False, may_be_unknown)]
        unsettled = set(suspects)
        bound = 4 * (self.window or 64)  # groups asked for ahead of the next one handed out
        state = {"next": 0, "head": 0}
        first = deque(suspects)
        followups: deque[Any] = deque()
        skip = set(suspects)

        def next_request() -> Any:  # (index, group, partitions or None) or None
            if followups:
                return followups.popleft()
            if first:
                i = first.popleft()
                return i, ids[i], None
            i = state["next"]
            while i < n and i in skip:
                i += 1
            if i < n and i < state["head"] + bound:
                state["next"] = i + 1
                return i, ids[i], None
            state["next"] = i
            return None

        stage1: dict[int, dict[str, Any]] = {}  # committed, waiting for the follow-up request
        ready: dict[int, dict[tuple[str, int], Any]] = {}   # committed offsets complete
        requested: set[tuple[str, int]] = set()
        handles: deque[Any] = deque()  # ListOffsets sent and not read yet
        parts_of: dict[int, list[tuple[str, int]]] = {}
        needs: dict[int, int] = {}  # group -> how many ListOffsets must be read before it is complete
        counted = {"sent": 0, "read": 0}
        log: dict[tuple[str, int], tuple[int | None, int | None]] = {}

        def partitions_of(i: int, found: dict[tuple[str, int], Any]) -> list[tuple[str, int]]:
            return _partitions_of(descriptions[ids[i]], found, topics, metadata)

        def committed_done(i: int, found: dict[tuple[str, int], Any]) -> None:
            ready[i] = found
            if i in unsettled:
                return
            parts_of[i] = parts = partitions_of(i, found)
            wanted = [tp for tp in parts if tp not in requested]
            if wanted:
                requested.update(wanted)
                handles.append(cluster.start_log_offsets(wanted))
                counted["sent"] += 1
            needs[i] = counted["sent"]

        def settle() -> None:
            def has(i: int) -> bool:
                return any(c is not None for c, _, _ in ready[i].values())

            listed = self.listed
            if listed is None and any(descriptions[ids[i]].state != "Dead" and not has(i) for i in unsettled):
                try:
                    listed = {lg.group_id for lg in cluster.list_groups()}
                except ClusterError:
                    listed = None
            for i in sorted(unsettled):
                if is_unknown(descriptions[ids[i]], has(i), listed):
                    raise UsageError(f"unknown group {ids[i]}")
            for i in sorted(unsettled):
                unsettled.discard(i)
                committed_done(i, ready[i])

        def build(i: int) -> GroupState | tuple[GroupState, dict[str, dict[int, Any]]]:
            g = ids[i]
            found = ready.pop(i)
            parts = parts_of.pop(i)
            need = needs.pop(i)
            while counted["read"] < need:  # read the ListOffsets this group needs, in the order sent
                values, problems = cluster.finish_log_offsets(handles.popleft())
                counted["read"] += 1
                log.update(values)
                for p in problems:
                    self._problem(p)
            desc = descriptions.pop(g)
            layout = {}
            for t in sorted({t for t, _ in parts} | set(desc.topics)):
                info = mtopics.get(t)
                if info is None:
                    self._problem(f"topic {t} of group {g} is not in the metadata (deleted?)")
                    continue
                layout[t] = TopicLayout(info.partition_count)
            by_topic: dict[str, dict[int, Any]] = {}  # PartitionOffsets, or their values as tuples (raw)
            none, unread = (None, None, None), (None, None)
            raw = self.raw
            for tp in parts:
                c, meta, epoch = found.get(tp, none)
                start, end = log.get(tp, unread)
                by_topic.setdefault(tp[0], {})[tp[1]] = (c, start, end, meta) if raw else \
                    PartitionOffsets(c, start, end, meta, epoch)
            leader = None
            if offsets_count:
                info = offsets_topic.partitions.get(offsets_partition_for(g, offsets_count))
                leader = info.leader if info and info.leader >= 0 else None
            if raw:
                return GroupState(desc, layout, brokers, offsets_count, {}, now, leader), by_topic
            return GroupState(desc, layout, brokers, offsets_count, by_topic, now, leader)

        def explicit(i: int, found: dict[tuple[str, int], Any]) -> list[tuple[str, int]]:
            desc = descriptions[ids[i]]
            names = set(topics or desc.topics) | ({t for t, _ in found} if not topics else set())
            return [(t, p) for t in sorted(names) if t in mtopics
                    for p in sorted(mtopics[t].partitions) if (t, p) not in found]

        self.progress("groups", 0, n)
        for key, group, found in cluster.iter_committed_offsets(next_request, groups=n, **(
                {"window": self.window} if self.window else {})):
            if key >= 0:
                wanted = explicit(key, found)
                if wanted:
                    stage1[key] = found
                    followups.append((-1 - key, group, wanted))
                    continue
            else:
                key = -1 - key
                merged = stage1.pop(key)
                merged.update(found)
                found = merged
            committed_done(key, found)
            if unsettled and all(i in ready for i in unsettled):
                settle()
            while not unsettled and state["head"] in ready:
                i = state["head"]
                state["head"] += 1
                yield build(i)
                self.progress("groups", state["head"], n)
        if unsettled:
            settle()
        while state["head"] < n:  # the suspects at the end, or no groups at all
            i = state["head"]
            state["head"] += 1
            yield build(i)
