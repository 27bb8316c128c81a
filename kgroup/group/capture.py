"""The group-state engine: what kgroup knows about groups, as GroupState, read live.

One engine for every read command. ``GroupStates`` hands out each group's GroupState in the order
asked, each as soon as it is complete, holding a bounded number of groups at once (``offsets``
streams it); ``describe_stream`` is the same engine without offsets, its descriptions read through
the cluster's sliding window (``describe --all-groups``); ``capture()`` collects it (describe,
snapshot, whatif, lag, report, ``offsets --time-lag``).

What the engine needs from a cluster is ``GroupSource`` (kgroup.kafka.cluster.Cluster answers it;
the unit tests use a cluster held in memory); it imports no client library. Requests: one
metadata; one describe for all groups (or the describes' sliding window); per group, OffsetFetch
of every committed partition, then of the partitions of its topics that did not come back (never
committed, or a broker that only answers explicit partitions), through the cluster's sliding
window; ListOffsets once per partition, sent as soon as a group needs it, read in the order sent.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Protocol

from kgroup.errors import ClusterError, UnknownGroup, UsageError
from kgroup.group.hashing import offsets_partition_for
from kgroup.group.model import OFFSETS_TOPIC, Broker, GroupDescription, GroupState, PartitionOffsets, TopicLayout

if TYPE_CHECKING:
    from kgroup.group.metadata import ClusterMetadata, GroupListing, TopicInfo

TopicPartition = tuple[str, int]
#: a committed offset as OffsetFetch answers it: (offset or None, metadata, leader epoch)
Committed = tuple[int | None, str | None, int | None]
#: an OffsetFetch to send: (key handed back with the answer, group, partitions or None for every committed one)
FetchRequest = tuple[Any, str, list[TopicPartition] | None]
Progress = Callable[[str, int, int], None]


class GroupSource(Protocol):
    """What the engine reads from a cluster (kgroup.kafka.cluster.Cluster's methods of these names)."""

    def metadata(self) -> ClusterMetadata: ...

    def list_groups(self) -> list[GroupListing]: ...

    def describe_groups(self, groups: list[str]) -> dict[str, GroupDescription]: ...

    def iter_describe_groups(self, groups: list[str], window: int = ...) -> Iterator[GroupDescription]:
        """The descriptions in the order of ``groups``, a bounded number held at once."""
        ...

    def iter_committed_offsets(self, next_request: Callable[[], FetchRequest | None], window: int = ...,
                               groups: int | None = ...) -> Iterator[tuple[Any, str, dict[TopicPartition, Any]]]:
        """OffsetFetch for each request ``next_request()`` hands out (asked again after every
        answer; None: nothing more for now), answered ``(key, group, {partition: Committed})``."""
        ...

    def start_log_offsets(self, partitions: list[TopicPartition]) -> Any:
        """Send ListOffsets earliest and latest for ``partitions``; finish_log_offsets reads the answer."""
        ...

    def finish_log_offsets(self, handle: Any
                           ) -> tuple[dict[TopicPartition, tuple[int | None, int | None]], list[str]]:
        """``({partition: (log start, log end)}, problems)`` for what start_log_offsets sent."""
        ...

    def brokers_with_racks(self) -> list[Broker]: ...

    def topic_ids(self, topics: list[str]) -> dict[str, str]: ...


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


def partitions_of(desc: GroupDescription, committed: Iterable[TopicPartition], topics: list[str] | None,
                  metadata: ClusterMetadata, also: Iterable[str] = ()) -> list[TopicPartition]:
    """The partitions a group's state holds, sorted: every partition of ``topics`` (when given) or
    of the group's topics and the topics it committed to, and every committed partition of those;
    and every partition of the topics ``also`` names (whatif: a topic an added member subscribes to)."""
    committed = list(committed)
    names = (set(topics) if topics else set(desc.topics) | {t for t, _ in committed}) | set(also)
    out: set[TopicPartition] = set()
    for t in names:
        info = metadata.topics.get(t)
        if info is not None:
            out.update([(t, p) for p in info.partitions])
    out.update([tp for tp in committed if tp[0] in names])
    return sorted(out)


def capture(cluster: GroupSource, group_ids: list[str], *, topics: list[str] | None = None, offsets: bool = True,
            racks: bool = False, drop_deleted: bool = False, progress: Progress = _no_progress,
            also_topics: Iterable[str] = (), other_types: bool = False) -> Capture:
    """Every group's state at once: the engine's stream collected. ``racks`` (snapshot, whatif):
    the brokers' racks, each partition's replica racks and the topic ids. With ``drop_deleted``
    (snapshot, whatif), topics a member is assigned that the metadata lacks (deleted) are set apart
    as the assignors do (drop_deleted_topics) and said in ``notes``, not reported as missing.
    ``other_types``: a group described as Dead that has commits is asked of ListGroups for its type
    (the commands that answer for streams groups; lag reads any committing group as one)."""
    stream = GroupStates(cluster, group_ids, topics=topics, offsets=offsets, racks=racks, drop_deleted=drop_deleted,
                         progress=progress, also_topics=also_topics, other_types=other_types)
    states = {s.group.group_id: s for s in stream}
    return Capture(states, stream.problems, stream.notes)


def describe_stream(cluster: GroupSource, group_ids: list[str], listed: set[str] | None,
                    window: int | None = None) -> GroupStates:
    """The engine without offsets, each description read through the cluster's sliding window of
    describes (``iter_describe_groups``): memory stays flat in the number of groups. ``listed``:
    the groups ListGroups named (an Empty group with no members that it did not name is unknown)."""
    return GroupStates(cluster, group_ids, offsets=False, listed=listed, window=window, flat=True)


class GroupStates:
    """The GroupState of each group of ``group_ids``, in that order, each handed out as soon as it
    is complete (iterate it once; ``problems`` and ``notes`` fill as it goes, each said once).

    With ``offsets`` (the default), every description is read first; a group that may be unknown
    (Dead, or Empty without members and not ``listed``) has its offsets fetched first and nothing
    is handed out before it is settled, so an unknown group fails before any output. The committed
    offsets of at most ``4 * window`` groups are asked ahead of the next group handed out.
    Without ``offsets`` and with ``flat``, descriptions come through the cluster's sliding window.
    ``listed``: the groups ListGroups named, when known (else asked when needed)."""

    def __init__(self, cluster: GroupSource, group_ids: list[str], *, topics: list[str] | None = None,
                 offsets: bool = True, listed: set[str] | None = None, racks: bool = False,
                 drop_deleted: bool = False, window: int | None = None, flat: bool = False,
                 progress: Progress = _no_progress, also_topics: Iterable[str] = (), other_types: bool = False
                 ) -> None:
        self.cluster, self.group_ids, self.topics, self.offsets = cluster, group_ids, topics, offsets
        self.also_topics = tuple(also_topics)
        self.other_types = other_types
        self.listed, self.racks, self.drop_deleted = listed, racks, drop_deleted
        self.window, self.flat, self.progress = window, flat, progress
        self.problems: list[str] = []
        self.notes: list[str] = []
        self._said: set[str] = set()
        self._asked_listing = False

    def problem(self, text: str) -> None:
        if text not in self._said:
            self._said.add(text)
            self.problems.append(text)

    def __iter__(self) -> Iterator[GroupState]:
        metadata = self.cluster.metadata()
        for t in self.topics or []:
            if t not in metadata.topics:
                raise UsageError(f"unknown topic {t}")
        self._builder = _StateBuilder(self, metadata)
        if not self.offsets:
            yield from self._without_offsets(metadata)
            return
        n = len(self.group_ids)
        self.progress("describe", 0, n)
        descriptions = self.cluster.describe_groups(self.group_ids)
        self.progress("describe", n, n)
        for g in self.group_ids:
            self._dropped(descriptions[g], metadata)
        yield from _OffsetsRun(self, metadata, descriptions)

    def _dropped(self, desc: GroupDescription, metadata: ClusterMetadata) -> None:
        if self.drop_deleted:
            dropped = drop_deleted_topics(desc, metadata.topics)
            if dropped:
                self.notes.append(_dropped_note(desc.group_id, dropped))

    def _without_offsets(self, metadata: ClusterMetadata) -> Iterator[GroupState]:
        ids = self.group_ids
        if self.flat:
            descriptions: Iterable[GroupDescription] = self.cluster.iter_describe_groups(
                ids, **({"window": self.window} if self.window else {}))
        else:
            n = len(ids)
            self.progress("describe", 0, n)
            described = self.cluster.describe_groups(ids)
            self.progress("describe", n, n)
            descriptions = [described[g] for g in ids]
            for d in descriptions:
                self._dropped(d, metadata)
        for desc in descriptions:
            self.check_known(desc, False)
            yield self._builder.state(desc, partitions_of(desc, (), self.topics, metadata, self.also_topics), None)

    def check_known(self, desc: GroupDescription, has_offsets: bool) -> None:
        """UsageError when the group is unknown (is_unknown); asks ListGroups once when that
        decides it and ``listed`` is not known (a cluster refusing it: not called unknown). A group
        described as Dead that has committed offsets is asked of ListGroups too: Kafka describes a
        streams group (which commits) as Dead to DescribeGroups; its type is then said (a
        GroupOfOtherType the command may answer for in its own way), where ``other_types`` asks for it."""
        if desc.state == "Dead" and has_offsets and self.other_types:
            other_type = getattr(self.cluster, "other_type_error", None)
            error = other_type(desc.group_id) if other_type is not None else None
            if error is not None:
                raise error
        if is_unknown(desc, has_offsets, set() if self.listed is None else self.listed):
            if self.listed is None and desc.state != "Dead" and not self._asked_listing:
                self._asked_listing = True
                try:
                    self.listed = {lg.group_id for lg in self.cluster.list_groups()}
                except ClusterError:
                    pass
            if is_unknown(desc, has_offsets, self.listed):
                # a share or streams group is described as Dead (not a consumer group): the cluster
                # may say what it is (a Cluster's other_type_error; a test double may have none)
                other_type = getattr(self.cluster, "other_type_error", None)
                error = other_type(desc.group_id) if other_type is not None else None
                raise error or UnknownGroup(f"unknown group {desc.group_id}")


class _StateBuilder:
    """A group's GroupState from its description, partitions and offsets, with what every group
    takes from the metadata read once: the topic layouts, the brokers, the leader of the group's
    ``__consumer_offsets`` partition and the moment."""

    def __init__(self, run: GroupStates, metadata: ClusterMetadata) -> None:
        self.run, self.metadata = run, metadata
        self._brokers: list[Broker] | None = None
        offsets_topic = metadata.topics.get(OFFSETS_TOPIC)
        self.offsets_topic = offsets_topic
        self.offsets_partitions = offsets_topic.partition_count if offsets_topic else None
        self.now = datetime.now(timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")

    @property
    def brokers(self) -> list[Broker]:
        """The metadata's brokers, or with ``racks`` the cluster's with their racks (asked once, when
        the first group is known to exist)."""
        if self._brokers is None:
            self._brokers = (self.run.cluster.brokers_with_racks() if self.run.racks
                             else sorted(self.metadata.brokers.values(), key=lambda b: b.id))
        return self._brokers

    def state(self, desc: GroupDescription, partitions: list[TopicPartition],
              offsets: dict[str, dict[int, PartitionOffsets]] | None) -> GroupState:
        brokers = self.brokers  # before the layout's topic ids: a cluster past --timeout fails here at once
        return GroupState(desc, self.layout(desc, partitions), brokers, self.offsets_partitions,
                          {} if offsets is None else offsets, self.now, self.leader(desc.group_id))

    def layout(self, desc: GroupDescription, partitions: list[TopicPartition]) -> dict[str, TopicLayout]:
        """The layout of each topic of the group's partitions and description; a topic the metadata
        lacks is a problem (or, with drop_deleted, was set apart and said already)."""
        run, known = self.run, self.metadata.topics
        names = sorted({t for t, _ in partitions} | set(desc.topics))
        ids: dict[str, str] = {}
        if run.racks:  # the full picture (snapshot, whatif): topic ids order KIP-848's uniform assignor
            wanted = sorted({t for t, _ in partitions} | {t for t in desc.topics if t in known})
            ids = run.cluster.topic_ids(wanted) if wanted else {}
        layout = {}
        for t in names:
            info = known.get(t)
            if info is None:
                if not run.drop_deleted:
                    run.problem(f"topic {t} of group {desc.group_id} is not in the metadata (deleted?)")
                continue
            layout[t] = TopicLayout(info.partition_count, self.replica_racks(info) if run.racks else {}, ids.get(t))
        return layout

    def replica_racks(self, info: TopicInfo) -> dict[int, list[str]]:
        rack_of = {b.id: b.rack for b in self.brokers}
        racks = {p.partition: sorted({rack for rack in map(rack_of.get, p.replicas) if rack})
                 for p in info.partitions.values()}
        return {p: rs for p, rs in racks.items() if rs}

    def leader(self, group: str) -> int | None:
        if not self.offsets_partitions or self.offsets_topic is None:
            return None
        info = self.offsets_topic.partitions.get(offsets_partition_for(group, self.offsets_partitions))
        return info.leader if info and info.leader >= 0 else None


class _LogOffsets:
    """ListOffsets for the partitions the groups need: each partition asked once, as soon as a
    group needs it; the answers read in the order asked."""

    def __init__(self, run: GroupStates) -> None:
        self.run = run
        self.asked: set[TopicPartition] = set()
        self.in_flight: deque[Any] = deque()
        self.sent = self.read = 0
        self.values: dict[TopicPartition, tuple[int | None, int | None]] = {}

    def ask(self, partitions: list[TopicPartition]) -> int:
        """Ask for those of ``partitions`` not asked yet; returns how many requests must have been
        read before all of ``partitions`` are known (``wait``'s argument)."""
        wanted = [tp for tp in partitions if tp not in self.asked]
        if wanted:
            self.asked.update(wanted)
            self.in_flight.append(self.run.cluster.start_log_offsets(wanted))
            self.sent += 1
        return self.sent

    def wait(self, requests: int) -> None:
        while self.read < requests:
            values, problems = self.run.cluster.finish_log_offsets(self.in_flight.popleft())
            self.read += 1
            self.values.update(values)
            for p in problems:
                self.run.problem(p)


class _Fetches:
    """The OffsetFetch to send next, asked for by the cluster's sliding window after every answer:
    follow-ups first (the partitions a group's first answer lacked), then the groups that may be
    unknown, then the next groups in order, at most ``bound`` ahead of the next one handed out
    (``head``). A request's key is ``(group's index, whether it is a follow-up)``."""

    def __init__(self, group_ids: list[str], first: list[int], bound: int) -> None:
        self.group_ids, self.bound = group_ids, bound
        self.follow_ups: deque[FetchRequest] = deque()
        self.first = deque(first)
        self.skip = set(first)
        self.next = self.head = 0

    def follow_up(self, index: int, partitions: list[TopicPartition]) -> None:
        self.follow_ups.append(((index, True), self.group_ids[index], partitions))

    def __call__(self) -> FetchRequest | None:
        if self.follow_ups:
            return self.follow_ups.popleft()
        if self.first:
            i = self.first.popleft()
            return (i, False), self.group_ids[i], None
        i, n = self.next, len(self.group_ids)
        while i < n and i in self.skip:
            i += 1
        self.next = i
        if i < n and i < self.head + self.bound:
            self.next = i + 1
            return (i, False), self.group_ids[i], None
        return None


class _OffsetsRun:
    """One pass of GroupStates with offsets (iterate once): committed offsets per group through the
    sliding window, then its log offsets, each group handed out in order once complete."""

    def __init__(self, run: GroupStates, metadata: ClusterMetadata, descriptions: dict[str, GroupDescription]):
        self.run, self.metadata, self.descriptions = run, metadata, descriptions
        self.log = _LogOffsets(run)
        self.partial: dict[int, dict[TopicPartition, Committed]] = {}  # first answers waiting for their follow-up
        self.committed: dict[int, dict[TopicPartition, Committed]] = {}  # complete, not handed out yet
        self.partitions: dict[int, tuple[list[TopicPartition], int]] = {}  # and the ListOffsets they wait for
        # groups that are unknown unless they have committed offsets: settled before any output
        ids = run.group_ids
        self.unsettled = {i for i, g in enumerate(ids) if is_unknown(descriptions[g], False, run.listed or set())}
        self.fetches = _Fetches(ids, sorted(self.unsettled), 4 * (run.window or 64))

    def __iter__(self) -> Iterator[GroupState]:
        run, fetches = self.run, self.fetches
        n = len(run.group_ids)
        run.progress("groups", 0, n)
        answers = run.cluster.iter_committed_offsets(fetches, groups=n, **({"window": run.window} if run.window else {}))
        for (i, follow_up), group, found in answers:
            if follow_up:
                found = {**self.partial.pop(i), **found}
            else:
                missing = self.missing(group, found)
                if missing:
                    self.partial[i] = found
                    fetches.follow_up(i, missing)
                    continue
            self.complete(i, found)
            while not self.unsettled and fetches.head in self.committed:
                yield self.state(fetches.head)
                fetches.head += 1
                run.progress("groups", fetches.head, n)
        self.settle()  # no group at all, or every group unsettled and answered (settled above otherwise)
        while fetches.head < n:
            yield self.state(fetches.head)
            fetches.head += 1

    def missing(self, group: str, found: Mapping[TopicPartition, Committed]) -> list[TopicPartition]:
        """The partitions of the group's topics (or of ``topics``) its first answer lacked."""
        topics, known = self.run.topics, self.metadata.topics
        names = set(topics or self.descriptions[group].topics) | ({t for t, _ in found} if not topics else set())
        return [(t, p) for t in sorted(names) if t in known for p in sorted(known[t].partitions) if (t, p) not in found]

    def complete(self, i: int, found: dict[TopicPartition, Committed]) -> None:
        self.committed[i] = found
        if i in self.unsettled:
            if all(j in self.committed for j in self.unsettled):
                self.settle()
        else:
            self.ask_log_offsets(i)

    def ask_log_offsets(self, i: int) -> None:
        group = self.run.group_ids[i]
        parts = partitions_of(self.descriptions[group], self.committed[i], self.run.topics, self.metadata,
                              self.run.also_topics)
        self.partitions[i] = parts, self.log.ask(parts)

    def settle(self) -> None:
        """Every group that may be unknown has its committed offsets: fail on an unknown one, else
        ask their log offsets as any group's."""
        for i in sorted(self.unsettled):
            group = self.run.group_ids[i]
            self.run.check_known(self.descriptions[group], any(c is not None for c, _, _ in self.committed[i].values()))
        for i in sorted(self.unsettled):
            self.ask_log_offsets(i)
        self.unsettled.clear()

    def state(self, i: int) -> GroupState:
        group = self.run.group_ids[i]
        found = self.committed.pop(i)
        parts, requests = self.partitions.pop(i)
        self.log.wait(requests)
        values = self.log.values
        by_topic: dict[str, dict[int, PartitionOffsets]] = {}
        none3: Committed = (None, None, None)
        unread = (None, None)
        new = tuple.__new__  # PartitionOffsets(...) without its keyword handling: many per group
        topic, of_topic = None, {}  # the partitions come sorted: one topic's together
        for tp in parts:
            c, meta, epoch = found.get(tp, none3)
            start, end = values.get(tp, unread)
            if tp[0] != topic:
                topic = tp[0]
                of_topic = by_topic[topic] = {}
            of_topic[tp[1]] = new(PartitionOffsets, (c, start, end, meta, epoch))
        return self.run._builder.state(self.descriptions.pop(group), parts, by_topic)
