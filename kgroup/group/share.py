"""Share groups (KIP-932): their offsets as kgroup holds them, and the documents and verdicts
``describe``, ``offsets`` and ``lag`` make of them. Pure: nothing here talks to a cluster.

A share group's description is a GroupDescription of type ``share`` (kgroup.group.model): its
group epoch as ``generation``, its assignment epoch, its assignor (the broker's, ``simple``
unless configured), and per member the member id, client id, host, rack, member epoch, subscribed
topics and assignment. It has no target assignment and no instance ids.

A share group commits no offsets: each of its partitions has a *start offset* (the first record
not yet delivered and acknowledged to the end), kept by the share coordinator in
``__share_group_state``, and from Kafka 4.2 (DescribeShareGroupOffsets v1) the broker's *lag*:
the partition's end minus the start offset minus the records past it already delivered to the
end. A 4.1 broker (v0) reports no lag: it is unknown, never guessed.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from kgroup.group.model import GroupDescription

SHARE = "share"  # the group type, and the protocol type ListGroups reports for a share group


class SharePartitionOffsets(NamedTuple):
    """One partition of a share group's DescribeShareGroupOffsets answer: its start offset and
    leader epoch (None: the partition has no state yet, or it could not be read), the broker's lag
    (None: not reported, as by a v0 broker, or not known to it) and the partition's error (Kafka's
    name, with its message when one came) or None."""

    start_offset: int | None
    leader_epoch: int | None
    lag: int | None
    error: str | None = None
    # where ``lag`` comes from: "broker" (DescribeShareGroupOffsets v1), "share-state" (kgroup's own
    # from __share_group_state, where the broker reports none); and why it is unknown when it is
    lag_source: str | None = None
    unknown_because: str | None = None


class ShareOffsets(NamedTuple):
    """A share group's offsets: per (topic, partition), and whether the broker reports lag at all
    (DescribeShareGroupOffsets v1, Kafka 4.2+)."""

    partitions: dict[tuple[str, int], SharePartitionOffsets]
    lag_reported: bool


def is_share(group: GroupDescription) -> bool:
    return group.type == SHARE


def owners(group: GroupDescription) -> dict[tuple[str, int], Any]:
    """(topic, partition) -> the member assigned it (a share partition may be assigned to several
    members: the first by member id is kept here, the others are in ``shared_with``)."""
    out: dict[tuple[str, int], Any] = {}
    for m in sorted(group.members, key=lambda m: m.member_id):
        for topic, partitions in m.assignment.items():
            for p in partitions:
                out.setdefault((topic, p), m)
    return out


def assignees(group: GroupDescription) -> dict[tuple[str, int], list[str]]:
    """(topic, partition) -> the ids of every member assigned it, sorted (SimpleAssignor may
    assign one partition to several members of a share group)."""
    out: dict[tuple[str, int], list[str]] = {}
    for m in sorted(group.members, key=lambda m: m.member_id):
        for topic, partitions in m.assignment.items():
            for p in partitions:
                out.setdefault((topic, p), []).append(m.member_id)
    return out


ROW_FIELDS = ("topic", "partition", "start_offset", "leader_epoch", "lag", "lag_source", "members", "error")


def offsets_document(group: GroupDescription, offsets: ShareOffsets, topics: list[str] | None,
                     lag_above: int | None) -> dict[str, Any]:
    """The offsets document of one share group: a row per partition of the answer (sorted; only
    ``topics`` when given), the total lag, and what LagVerdict reads (``incomplete``, ``unknown``,
    ``over_threshold``). A partition's lag is unknown where the broker reports none (v0), where it
    answered with an error, or where the partition has no start offset: each is said as such in
    ``unknown``, and any unknown lag leaves the total unknown and the answer incomplete."""
    who = assignees(group)
    rows, unknown, over = [], [], []
    total: int | None = 0
    per_topic: dict[str, int | None] = {}
    for (topic, partition), o in sorted(offsets.partitions.items()):
        if topics and topic not in topics:
            continue
        reason = None
        if o.error is not None:
            reason = f"the broker answered {o.error}"
        elif o.start_offset is None:
            reason = "no start offset: the share partition has no state yet (or it could not be read)"
        elif o.lag is None:
            reason = o.unknown_because or (
                "the broker reports no lag (DescribeShareGroupOffsets v0, Kafka 4.1)" if not offsets.lag_reported
                else "the broker does not know this partition's lag")
        rows.append({"topic": topic, "partition": partition, "start_offset": o.start_offset,
                     "leader_epoch": o.leader_epoch, "lag": None if reason else o.lag,
                     "lag_source": None if reason else (o.lag_source or "broker"),
                     "members": who.get((topic, partition), []), "error": o.error})
        if reason:
            unknown.append({"topic": topic, "partition": partition, "reason": reason})
            total = None
            per_topic[topic] = None
        else:
            assert o.lag is not None
            if total is not None:
                total += o.lag
            if per_topic.get(topic, 0) is not None:
                per_topic[topic] = per_topic.get(topic, 0) + o.lag  # type: ignore[operator]
            if lag_above is not None and o.lag > lag_above:
                over.append({"topic": topic, "partition": partition, "lag": o.lag})
    return {"group": group.group_id, "type": SHARE, "state": group.state, "lag_reported": offsets.lag_reported,
            "partitions": rows, "topic_lag": per_topic, "total_lag": total, "incomplete": bool(unknown),
            "unknown": unknown, "over_threshold": over}


class WithShareGroups:
    """A GroupSource (kgroup.group.capture) that answers for the share groups ``shares`` (described
    already, through kgroup's own client) and asks ``cluster`` about every other group: so the
    group-state engine captures a share group as any group (its topics' layouts and log offsets).
    A share group commits no offsets (OffsetFetch does not know it): its committed offsets are
    answered as none, without asking. ListGroups names the share groups (librdkafka's lists none)."""

    def __init__(self, cluster: Any, shares: dict[str, GroupDescription]) -> None:
        self.cluster, self.shares = cluster, shares

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cluster, name)

    def list_groups(self) -> list[Any]:
        from kgroup.group.metadata import GroupListing

        listed: list[Any] = self.cluster.list_groups()
        known = {g.group_id for g in listed}
        return listed + [GroupListing(g, SHARE, d.state, SHARE) for g, d in self.shares.items() if g not in known]

    def describe_groups(self, groups: list[str]) -> dict[str, GroupDescription]:
        rest = [g for g in groups if g not in self.shares]
        out = self.cluster.describe_groups(rest) if rest else {}
        return {g: self.shares[g] if g in self.shares else out[g] for g in groups}

    def iter_describe_groups(self, groups: list[str], window: int = 256) -> Iterator[GroupDescription]:
        rest = [g for g in groups if g not in self.shares]
        others = iter(self.cluster.iter_describe_groups(rest, window) if rest else ())
        for g in groups:
            yield self.shares[g] if g in self.shares else next(others)

    def iter_committed_offsets(self, next_request: Callable[[], Any], window: int = 64, groups: int | None = None
                               ) -> Iterator[tuple[Any, str, dict[tuple[str, int], Any]]]:
        from collections import deque

        local: deque[Any] = deque()

        def others() -> Any:
            while True:
                request = next_request()
                if request is None or request[1] not in self.shares:
                    return request
                local.append(request)

        while True:
            for answer in self.cluster.iter_committed_offsets(others, window, groups):
                yield answer
                while local:
                    request = local.popleft()
                    yield request[0], request[1], {}
            if not local:
                return
            while local:  # asked again after these: follow-ups may come
                request = local.popleft()
                yield request[0], request[1], {}


SHARE_DESCRIBE_HEADERS = ["MEMBER-ID", "CLIENT-ID", "HOST", "RACK", "MEMBER-EPOCH", "SUBSCRIPTION", "#PARTITIONS",
                          "ASSIGNMENT"]


def describe_rows(g: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """The members table of a share group's describe document (kgroup.group.documents.describe_group)."""
    from kgroup.group.assignment import compact

    return SHARE_DESCRIBE_HEADERS, [
        [m["member_id"], m["client_id"], m["host"], m["rack"], m["member_epoch"], ",".join(m["subscription"]) or None,
         m["partition_count"], compact(m["assignment"])] for m in g["members"]]
