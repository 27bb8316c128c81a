"""A cluster held in memory that answers the group-state engine (kgroup.group.capture.GroupSource)
as kgroup.kafka.cluster.Cluster does: Kafka's rules, written out here by hand, not kgroup's code.

- DescribeGroups of a group the cluster does not know answers it Dead, with no members (as Kafka
  does); ``empty_unknown`` makes it answer Empty instead (as some Kafka-compatible brokers do).
- OffsetFetch without partitions answers every committed partition of the group; with
  ``answers_all=False`` it answers nothing (as Tansu does), so only explicit partitions come back.
  Explicit partitions never committed come back without an offset.
- ListOffsets answers ``(log start, log end)`` from ``log``; a partition listed in ``unreadable``
  comes back as a problem (``"<topic>-<partition>: <why>"``), once for earliest and once for
  latest, as the adapter reports each.

Every request is recorded in ``requests`` (in the order made), so tests can say what was asked.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from kgroup.errors import ClusterError
from kgroup.group.metadata import ClusterMetadata, GroupListing, PartitionInfo, TopicInfo
from kgroup.group.model import Broker, GroupDescription, PartitionOffsets

TP = tuple[str, int]


def topic(name: str, partitions: int, leader: int = 1, replicas: tuple[int, ...] | None = None) -> TopicInfo:
    return TopicInfo(name, {p: PartitionInfo(p, leader, replicas or (leader,)) for p in range(partitions)})


class MemoryCluster:
    def __init__(self, topics: Mapping[str, int], groups: Mapping[str, GroupDescription], *,
                 committed: Mapping[str, Mapping[TP, PartitionOffsets]] | None = None,
                 log: Mapping[TP, tuple[int | None, int | None]] | None = None,
                 listed: list[str] | None = None, answers_all: bool = True, empty_unknown: bool = False,
                 unreadable: Mapping[TP, str] | None = None, list_fails: bool = False,
                 brokers: list[Broker] | None = None, racks: Mapping[int, str] | None = None,
                 topic_ids: Mapping[str, str] | None = None, offsets_partitions: int = 50,
                 offsets_leader: int = 1, replicas: Mapping[str, tuple[int, ...]] | None = None):
        self.brokers = brokers or [Broker(1, "b1", 9092)]
        self.topics = {name: topic(name, n, replicas=(replicas or {}).get(name)) for name, n in topics.items()}
        if offsets_partitions:
            self.topics["__consumer_offsets"] = topic("__consumer_offsets", offsets_partitions, offsets_leader)
        self.groups = dict(groups)
        self.committed = {g: dict(c) for g, c in (committed or {}).items()}
        self.log = dict(log or {})
        self.listed = list(self.groups) if listed is None else listed
        self.answers_all = answers_all
        self.empty_unknown = empty_unknown
        self.unreadable = dict(unreadable or {})
        self.list_fails = list_fails
        self.racks = dict(racks or {})
        self.ids = dict(topic_ids or {})
        self.requests: list[tuple[Any, ...]] = []

    # -- metadata, groups ---------------------------------------------------------------------

    def metadata(self) -> ClusterMetadata:
        self.requests.append(("Metadata",))
        return ClusterMetadata({b.id: b for b in self.brokers}, dict(self.topics))

    def brokers_with_racks(self) -> list[Broker]:
        self.requests.append(("DescribeCluster",))
        return [b._replace(rack=self.racks.get(b.id)) for b in sorted(self.brokers, key=lambda b: b.id)]

    def topic_ids(self, topics: list[str]) -> dict[str, str]:
        self.requests.append(("DescribeTopics", tuple(topics)))
        return {t: self.ids[t] for t in topics if t in self.ids}

    def list_groups(self) -> list[GroupListing]:
        self.requests.append(("ListGroups",))
        if self.list_fails:
            raise ClusterError("list groups: not authorized")
        return [GroupListing(g) for g in self.listed]

    def _describe(self, group: str) -> GroupDescription:
        d = self.groups.get(group)
        if d is None:
            return GroupDescription(group, state="Empty" if self.empty_unknown else "Dead")
        return d

    def describe_groups(self, groups: list[str]) -> dict[str, GroupDescription]:
        self.requests.append(("DescribeGroups", tuple(groups)))
        return {g: self._describe(g) for g in groups}

    def iter_describe_groups(self, groups: list[str], window: int = 256) -> Iterator[GroupDescription]:
        self.requests.append(("DescribeGroups one by one", tuple(groups)))
        for g in groups:
            yield self._describe(g)

    # -- committed offsets --------------------------------------------------------------------

    def _fetch(self, group: str, partitions: list[TP] | None) -> dict[TP, tuple[int | None, str | None, int | None]]:
        self.requests.append(("OffsetFetch", group, None if partitions is None else tuple(partitions)))
        committed = self.committed.get(group, {})
        if partitions is None:
            chosen = list(committed) if self.answers_all else []
        else:
            chosen = partitions
        out = {}
        for tp in chosen:
            o = committed.get(tp)
            out[tp] = (None, None, None) if o is None else (o.committed, o.metadata, o.leader_epoch)
        return out

    def iter_committed_offsets(self, next_request: Callable[[], tuple[Any, str, list[TP] | None] | None],
                               window: int = 64, groups: int | None = None
                               ) -> Iterator[tuple[Any, str, dict[TP, Any]]]:
        """Up to ``window`` requests in flight, answered oldest first; ``next_request`` is asked
        again after every answer handed out, as the adapter's sliding window does."""
        in_flight: deque[tuple[Any, str, list[TP] | None]] = deque()
        while True:
            while len(in_flight) < window:
                request = next_request()
                if request is None:
                    break
                in_flight.append(request)
            if not in_flight:
                return
            key, group, partitions = in_flight.popleft()
            yield key, group, self._fetch(group, partitions)

    # -- log offsets --------------------------------------------------------------------------

    def start_log_offsets(self, partitions: list[TP]) -> list[TP]:
        self.requests.append(("ListOffsets", tuple(partitions)))
        return list(partitions)

    def finish_log_offsets(self, handle: list[TP]) -> tuple[dict[TP, tuple[int | None, int | None]], list[str]]:
        values: dict[TP, tuple[int | None, int | None]] = {}
        problems = []
        for _ in ("earliest", "latest"):
            problems += [f"{t}-{p}: {self.unreadable[(t, p)]}" for t, p in handle if (t, p) in self.unreadable]
        for tp in handle:
            start, end = self.log.get(tp, (None, None))
            values[tp] = (None, None) if tp in self.unreadable else (start, end)
        return values, problems

    def log_offsets(self, partitions: list[TP]) -> tuple[dict[TP, tuple[int | None, int | None]], list[str]]:
        return self.finish_log_offsets(self.start_log_offsets(partitions))

    # the batch form the engine no longer uses (kept for measuring the engine before it)
    def committed_offsets(self, groups: dict[str, list[TP] | None]) -> dict[str, dict[TP, PartitionOffsets]]:
        return {g: {tp: PartitionOffsets(c, metadata=m, leader_epoch=e) for tp, (c, m, e) in self._fetch(g, ps).items()}
                for g, ps in groups.items()}
