"""Descriptions of many groups per request: ConsumerGroupDescribe v0 (Kafka 4.0+), then
DescribeGroups v5 for the groups it does not know, routed by coordinators.py.

Each answer becomes the GroupDescription kgroup.kafka.answers builds from librdkafka's (2.16) answer
to the same question, field by field:

- librdkafka asks ConsumerGroupDescribe first (a cluster without it: DescribeGroups only),
  and asks DescribeGroups for a group it answers with GROUP_ID_NOT_FOUND (a classic group)
  or UNSUPPORTED_VERSION;
- a consumer group's type is ``consumer``, its protocol type ``consumer``, its assignor the
  answer's; each member's assignment and target assignment are by topic name ("" when the
  broker names none), and an empty target assignment is an empty one, not none;
- a classic group's type is ``classic``, its protocol type ``consumer`` or none (a group
  that only commits offsets: the empty protocol type), its assignor the protocol data; each
  member's assignment is read from its ConsumerProtocol assignment bytes, and it has no
  target assignment;
- the state is one of librdkafka's six names, matched without regard to ASCII case, and
  ``Unknown`` for any other (Assigning, Reconciling, ...), as librdkafka reports them;
- the coordinator is the broker asked (its id, host and port; no rack);
- an empty client id, host, instance id or assignor is none.

One thing more than librdkafka: a consumer group's group epoch (as its ``generation``, the
model's name for it) and assignment epoch, and each member's member epoch, which the answer
carries and librdkafka (2.16) does not hand on (its descriptions leave them none); a negative
epoch, which no group or member in a description has, is none too.

Anything librdkafka would report or read differently is handed back for librdkafka to
describe: an error in the answer, a group of another protocol type ("not a consumer group"),
assignment bytes that do not read, a string with a NUL (a C string ends there) or with bytes
that are not UTF-8.
"""
from __future__ import annotations

from typing import Any

from kgroup.group.assignment import by_topic
from kgroup.group.model import Broker, GroupDescription, Member
from kgroup.kmsg.consumer_protocol import DecodeError, decode_assignment
from kgroup.kafka.wire.connection import Connection
from kgroup.kafka.wire.coordinators import Node, Request
from kgroup.kmsg import states
from kgroup.kmsg.errors import GROUP_ID_NOT_FOUND, UNSUPPORTED_VERSION
from kgroup.kmsg.messages import CONSUMER_GROUP_DESCRIBE, DESCRIBE_GROUPS, Api

CONSUMER_PROTOCOL_TYPE = "consumer"
# the states librdkafka reports, by their lower-case UTF-8 bytes
_STATE_OF = {name.lower().encode(): name for name in states.LIBRDKAFKA}


class _Unreadable(Exception):
    """librdkafka would read this answer differently: it describes the group instead."""


def state_name(state: str) -> str:
    """The state librdkafka reports for the state string a broker sent."""
    return _STATE_OF.get(state.encode("utf-8", "surrogatepass").lower(), states.UNKNOWN)


def _text(value: str | None) -> str | None:
    """A string as librdkafka hands it on: None when empty or null."""
    if value and ("\x00" in value or "\ufffd" in value):
        raise _Unreadable(value)
    return value or None


def _partitions(assignment: dict[str, Any]) -> dict[str, list[int]]:
    return by_topic((_text(t["topicName"]) or "", p) for t in assignment["topicPartitions"] for p in t["partitions"])


def _epoch(value: int) -> int | None:
    return value if value >= 0 else None


def _coordinator(node: Node) -> Broker:
    return Broker(node.id, _text(node.host) or "", node.port, None)


def consumer_group(group: dict[str, Any], node: Node) -> GroupDescription:
    """The description of one group of a ConsumerGroupDescribe answer without an error."""
    return GroupDescription(
        group_id=_text(group["groupId"]) or "", type="consumer", state=state_name(group["groupState"]),
        protocol_type=CONSUMER_PROTOCOL_TYPE, assignor=_text(group["assignorName"]), coordinator=_coordinator(node),
        generation=_epoch(group["groupEpoch"]), assignment_epoch=_epoch(group["assignmentEpoch"]),
        members=[Member(
            member_id=_text(m["memberId"]) or "", client_id=_text(m["clientId"]), host=_text(m["clientHost"]),
            group_instance_id=_text(m["instanceId"]), assignment=_partitions(m["assignment"]),
            target_assignment=_partitions(m["targetAssignment"]), member_epoch=_epoch(m["memberEpoch"]),
        ) for m in group["members"]])


def classic_group(group: dict[str, Any], node: Node) -> GroupDescription:
    """The description of one group of a DescribeGroups answer without an error, of the
    consumer protocol type or of none."""
    if group["protocolType"] not in ("", CONSUMER_PROTOCOL_TYPE):
        raise _Unreadable(group["protocolType"])
    members = []
    for m in group["members"]:
        assignment: dict[str, list[int]] = {}
        if m["memberAssignment"]:
            try:
                read = decode_assignment(m["memberAssignment"])
            except DecodeError:
                raise _Unreadable(m["memberId"]) from None
            if read["version"] < 0:
                raise _Unreadable(m["memberId"])
            assignment = by_topic((_text(t["topic"]) or "", p) for t in read["assignedPartitions"] for p in t["partitions"])
        members.append(Member(
            member_id=_text(m["memberId"]) or "", client_id=_text(m["clientId"]), host=_text(m["clientHost"]),
            group_instance_id=_text(m["groupInstanceId"]), assignment=assignment))
    return GroupDescription(
        group_id=_text(group["groupId"]) or "", type="classic", state=state_name(group["groupState"]),
        protocol_type=_text(group["protocolType"]), assignor=_text(group["protocolData"]),
        coordinator=_coordinator(node), members=members)


class Describe:
    """The Exchange describing groups; a request's third item is unused."""

    def speaks(self, conn: Connection) -> bool:
        return conn.supports(DESCRIBE_GROUPS)

    def request(self, conn: Connection, requests: list[Request]) -> tuple[Api, dict[str, Any]]:
        names = [group for _, group, _ in requests]
        if conn.supports(CONSUMER_GROUP_DESCRIBE):
            return CONSUMER_GROUP_DESCRIBE, {"groupIds": names, "includeAuthorizedOperations": False}
        return DESCRIBE_GROUPS, {"groups": names, "includeAuthorizedOperations": False}

    def read(self, api: Api, answer: dict[str, Any], requests: list[Request], node: Node
             ) -> tuple[list[tuple[Request, Any]], list[Request], tuple[Api, dict[str, Any], list[Request]] | None]:
        groups = {g["groupId"]: g for g in answer["groups"]}
        done: list[tuple[Request, Any]] = []
        failed: list[Request] = []
        classic: list[Request] = []
        for request in requests:
            group = groups.get(request[1])
            if group is None:
                failed.append(request)
            elif group["errorCode"]:
                if api is CONSUMER_GROUP_DESCRIBE and group["errorCode"] in (GROUP_ID_NOT_FOUND, UNSUPPORTED_VERSION):
                    classic.append(request)
                else:
                    failed.append(request)
            else:
                try:
                    done.append((request, (consumer_group if api is CONSUMER_GROUP_DESCRIBE else classic_group)(group, node)))
                except _Unreadable:
                    failed.append(request)
        further = None
        if classic:
            further = DESCRIBE_GROUPS, {"groups": [r[1] for r in classic], "includeAuthorizedOperations": False}, classic
        return done, failed, further
