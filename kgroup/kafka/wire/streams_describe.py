"""Streams groups (KIP-1071) described, many per request: StreamsGroupDescribe v0 (Kafka 4.1+),
routed to each group's coordinator by coordinators.py. librdkafka has no call for it.

Each group of an answer becomes a kgroup.group.streams.StreamsGroup, read as Kafka's Admin client
reads it (``DescribeStreamsGroupsHandler``): the state matched without regard to case among
Kafka's group states, any other one ``Unknown``; strings, epochs and the task lists as sent (an
empty client id stays empty); client tags and topic configs as maps (a key listed twice: the
last value); a user endpoint, instance id or rack only where sent. A group whose answer has no
topology is refused as the Admin client refuses it (``missing_topology``); a null list of
subtopologies (no Kafka broker sends one) is read as none.

A group's error is a result too (a StreamsDescribeError with Kafka's code and message): the
caller decides what GROUP_ID_NOT_FOUND means (the group is not a streams group, or does not
exist). A group the answer leaves out, or answered with COORDINATOR_LOAD_IN_PROGRESS,
NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE, is handed back to be asked again (as the Admin
client retries them), ``retry`` remembering why, until the command's deadline.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from kgroup.group.broker import Broker
from kgroup.group.streams import StreamsGroup, StreamsMember, StreamsTopic, Subtopology, TaskOffset, Tasks, Topology
from kgroup.kafka.wire.connection import Connection
from kgroup.kafka.wire.coordinators import Node, Request, read_groups
from kgroup.kmsg.messages import STREAMS_GROUP_DESCRIBE, Api

# Kafka's GroupState names (clients' org.apache.kafka.common.GroupState), by their upper case
_STATES = {s.upper(): s for s in ("Unknown", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty",
                                  "Assigning", "Reconciling", "NotReady")}
MISSING_TOPOLOGY = -1  # not a Kafka code: the answer carried no topology


class StreamsDescribeError(NamedTuple):
    """A group the coordinator described with an error (``code``: Kafka's, or MISSING_TOPOLOGY)."""

    code: int
    message: str | None


def state_name(state: str) -> str:
    return _STATES.get(state.upper(), "Unknown")


def _tasks(assignment: dict[str, Any]) -> Tasks:
    def of(key: str) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for t in assignment[key]:
            out.setdefault(t["subtopologyId"], []).extend(t["partitions"])
        return out
    return Tasks(of("activeTasks"), of("standbyTasks"), of("warmupTasks"))


def _pairs(values: list[dict[str, Any]]) -> dict[str, str]:
    return {kv["key"]: kv["value"] for kv in values}


def _topic(t: dict[str, Any]) -> StreamsTopic:
    return StreamsTopic(t["name"], t["partitions"], t["replicationFactor"], _pairs(t["topicConfigs"]))


def _offsets(values: list[dict[str, Any]]) -> list[TaskOffset]:
    return [TaskOffset(o["subtopologyId"], o["partition"], o["offset"]) for o in values]


def streams_group(group: dict[str, Any], node: Node) -> StreamsGroup | StreamsDescribeError:
    """One group of a StreamsGroupDescribe answer."""
    if group["errorCode"]:
        return StreamsDescribeError(group["errorCode"], group["errorMessage"])
    t = group["topology"]
    if t is None:
        return StreamsDescribeError(MISSING_TOPOLOGY, "Topology information is missing")
    topology = Topology(t["epoch"], [Subtopology(
        s["subtopologyId"], list(s["sourceTopics"]), list(s["repartitionSinkTopics"]),
        [_topic(x) for x in s["stateChangelogTopics"]], [_topic(x) for x in s["repartitionSourceTopics"]])
        for s in t["subtopologies"] or ()])
    members = [StreamsMember(
        member_id=m["memberId"], process_id=m["processId"], member_epoch=m["memberEpoch"],
        topology_epoch=m["topologyEpoch"], client_id=m["clientId"], client_host=m["clientHost"],
        instance_id=m["instanceId"], rack_id=m["rackId"],
        user_endpoint=None if m["userEndpoint"] is None else (m["userEndpoint"]["host"], m["userEndpoint"]["port"]),
        client_tags=_pairs(m["clientTags"]), task_offsets=_offsets(m["taskOffsets"]),
        task_end_offsets=_offsets(m["taskEndOffsets"]), assignment=_tasks(m["assignment"]),
        target_assignment=_tasks(m["targetAssignment"]), is_classic=m["isClassic"],
    ) for m in group["members"]]
    return StreamsGroup(group["groupId"], state_name(group["groupState"]), group["groupEpoch"],
                        group["assignmentEpoch"], topology, members, Broker(node.id, node.host, node.port))


class StreamsDescribe:
    """The Exchange describing streams groups; a request's third item is unused."""

    def __init__(self) -> None:
        self.retry: dict[str, StreamsDescribeError] = {}  # group -> the error it was last handed back for

    def speaks(self, conn: Connection) -> bool:
        return conn.supports(STREAMS_GROUP_DESCRIBE)

    def request(self, conn: Connection, requests: list[Request]) -> tuple[Api, dict[str, Any]]:
        return STREAMS_GROUP_DESCRIBE, {"groupIds": [g for _, g, _ in requests], "includeAuthorizedOperations": False}

    def read(self, api: Api, answer: dict[str, Any], requests: list[Request], node: Node
             ) -> tuple[list[tuple[Request, Any]], list[Request], None]:
        return read_groups(answer, requests, self.retry, StreamsDescribeError, lambda g: streams_group(g, node))
