"""Share groups (KIP-932) through kgroup's own client: ShareGroupDescribe v1 (Kafka 4.1+) and
DescribeShareGroupOffsets v0/v1, many groups per request, each group asked of its coordinator
(routed by coordinators.py as every other question). librdkafka has no call for either, so
nothing is handed to it: every group gets an answer or an error.

How an answer reads follows Kafka's Admin client (DescribeShareGroupsHandler,
ListShareGroupOffsetsHandler):

- COORDINATOR_LOAD_IN_PROGRESS: asked again; NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE: the
  coordinator is looked up again and asked again (``RETRIED``), until the command's deadline;
- GROUP_ID_NOT_FOUND (no such group, or a group of another type: the broker says which in its
  message only) and any other error is the group's answer (``GroupError``);
- a partition's start offset below zero: the partition has no start offset (Admin: null); a
  leader epoch below zero: none; a lag below zero: not known (a v0 answer has no lag: -1);
- a partition with an error keeps it (Admin leaves such a partition out and logs it).

The description's strings are kept as the broker sent them, except that an empty rack is none.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from kgroup.group.model import Broker, GroupDescription, Member
from kgroup.group.share import SHARE, SharePartitionOffsets, ShareOffsets
from kgroup.kafka.wire.connection import Connection
from kgroup.kafka.wire.coordinators import Node, Request, read_groups
from kgroup.kmsg import errors, states
from kgroup.kmsg.messages import DESCRIBE_SHARE_GROUP_OFFSETS, DESCRIBE_SHARE_GROUP_OFFSETS_V0, SHARE_GROUP_DESCRIBE, Api

# Kafka's GroupState names (GroupState.parse: case-insensitive, anything else is Unknown)
_STATES = {s.upper(): s for s in (*states.ALL, "NotReady")}


class GroupError(NamedTuple):
    """A group's answer that carries an error: Kafka's code and the broker's message."""

    code: int
    message: str | None

    @property
    def text(self) -> str:
        return errors.name(self.code) + (f" ({self.message})" if self.message else "")


def state_name(state: str) -> str:
    """Kafka's name of the state a broker sent (as Admin's GroupState.parse reads it)."""
    return _STATES.get(state.upper(), states.UNKNOWN)


def share_group(group: dict[str, Any], node: Node) -> GroupDescription:
    """The description of one group of a ShareGroupDescribe answer without an error."""
    return GroupDescription(
        group_id=group["groupId"], type=SHARE, state=state_name(group["groupState"]), protocol_type=SHARE,
        assignor=group["assignorName"] or None, coordinator=Broker(node.id, node.host, node.port, None),
        generation=group["groupEpoch"], assignment_epoch=group["assignmentEpoch"],
        members=[Member(
            member_id=m["memberId"], client_id=m["clientId"], host=m["clientHost"], rack=m["rackId"] or None,
            subscription=list(m["subscribedTopicNames"]), member_epoch=m["memberEpoch"],
            # in the broker's order (its map's and sets' iteration order), which the simple assignor's
            # answer depends on: never sorted here
            assignment={t["topicName"]: list(t["partitions"]) for t in m["assignment"]["topicPartitions"]},
        ) for m in group["members"]])


def share_offsets(group: dict[str, Any], version: int) -> ShareOffsets:
    """The offsets of one group of a DescribeShareGroupOffsets answer without a group error."""
    found: dict[tuple[str, int], SharePartitionOffsets] = {}
    for topic in group["topics"]:
        for p in topic["partitions"]:
            error = None
            if p["errorCode"]:
                error = GroupError(p["errorCode"], p["errorMessage"]).text
            start = p["startOffset"]
            found[(topic["topicName"], p["partitionIndex"])] = SharePartitionOffsets(
                start_offset=start if start >= 0 and error is None else None,
                leader_epoch=p["leaderEpoch"] if p["leaderEpoch"] >= 0 and error is None and start >= 0 else None,
                lag=p["lag"] if p["lag"] >= 0 and error is None and start >= 0 else None,
                error=error)
    return ShareOffsets(found, version >= 1)


class _ShareExchange:
    """What both exchanges share: groups answered with an error to retry are handed back (and
    ``retry`` remembers why), any other error is the group's answer."""

    api: Api

    def __init__(self) -> None:
        self.retry: dict[str, GroupError] = {}  # group -> the error it was last handed back for

    def _read_groups(self, answer: dict[str, Any], requests: list[Request], node: Node, version: int
                     ) -> tuple[list[tuple[Request, Any]], list[Request], None]:
        return read_groups(answer, requests, self.retry, GroupError,
                           lambda g: GroupError(g["errorCode"], g["errorMessage"]) if g["errorCode"]
                           else self.result(g, node, version))

    def result(self, group: dict[str, Any], node: Node, version: int) -> Any:
        raise NotImplementedError


class ShareDescribe(_ShareExchange):
    """The Exchange describing share groups (ShareGroupDescribe v1); a request's third item is unused.
    Each group's result is a GroupDescription of type share, or a GroupError."""

    def speaks(self, conn: Connection) -> bool:
        return conn.supports(SHARE_GROUP_DESCRIBE)

    def request(self, conn: Connection, requests: list[Request]) -> tuple[Api, dict[str, Any]]:
        return SHARE_GROUP_DESCRIBE, {"groupIds": [g for _, g, _ in requests], "includeAuthorizedOperations": False}

    def read(self, api: Api, answer: dict[str, Any], requests: list[Request], node: Node
             ) -> tuple[list[tuple[Request, Any]], list[Request], None]:
        return self._read_groups(answer, requests, node, api.version)

    def result(self, group: dict[str, Any], node: Node, version: int) -> Any:
        return share_group(group, node)


class ShareOffsetsExchange(_ShareExchange):
    """The Exchange asking share groups' offsets (DescribeShareGroupOffsets v1, v0 where the broker
    speaks no other); a request's third item is its partitions as (topic, partition) pairs, or None
    for every partition the group has state for. Each group's result is a ShareOffsets, or a
    GroupError."""

    def speaks(self, conn: Connection) -> bool:
        return conn.supports(DESCRIBE_SHARE_GROUP_OFFSETS) or conn.supports(DESCRIBE_SHARE_GROUP_OFFSETS_V0)

    def request(self, conn: Connection, requests: list[Request]) -> tuple[Api, dict[str, Any]]:
        api = DESCRIBE_SHARE_GROUP_OFFSETS if conn.supports(DESCRIBE_SHARE_GROUP_OFFSETS) \
            else DESCRIBE_SHARE_GROUP_OFFSETS_V0
        return api, {"groups": [{"groupId": g, "topics": None if ps is None else _topics(ps)} for _, g, ps in requests]}

    def read(self, api: Api, answer: dict[str, Any], requests: list[Request], node: Node
             ) -> tuple[list[tuple[Request, Any]], list[Request], None]:
        return self._read_groups(answer, requests, node, api.version)

    def result(self, group: dict[str, Any], node: Node, version: int) -> Any:
        return share_offsets(group, version)


def _topics(partitions: list[tuple[str, int]]) -> list[dict[str, Any]]:
    grouped: dict[str, list[int]] = {}
    for topic, partition in partitions:
        grouped.setdefault(topic, []).append(partition)
    return [{"topicName": t, "partitions": ps} for t, ps in grouped.items()]
