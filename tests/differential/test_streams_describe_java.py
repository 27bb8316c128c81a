"""A StreamsGroupDescribe answer written by Kafka's own generated class (kafka-clients 4.3.0,
StreamsGroupDescribeResponseData) reads, through kgroup's exchange, to the streams groups the
answer was built from: topology, members, endpoints, tags, tasks of each kind, task offsets and
the errors of groups (GROUP_ID_NOT_FOUND, a missing topology). The expected values are written
out by hand below, not computed by kgroup."""
from __future__ import annotations

import json

import pytest

import javadriver
from kgroup.group.broker import Broker
from kgroup.group.streams import StreamsGroup, StreamsMember, StreamsTopic, Subtopology, TaskOffset, Tasks, Topology
from kgroup.kafka.wire.coordinators import Node
from kgroup.kafka.wire.streams_describe import MISSING_TOPOLOGY, StreamsDescribe, StreamsDescribeError
from kgroup.kmsg import codec
from kgroup.kmsg.messages import STREAMS_GROUP_DESCRIBE

pytestmark = pytest.mark.java


def _tasks(active, standby, warmup):
    return {k: [{"subtopologyId": s, "partitions": ps} for s, ps in v.items()]
            for k, v in (("activeTasks", active), ("standbyTasks", standby), ("warmupTasks", warmup))}


ANSWER = {"throttleTimeMs": 0, "groups": [
    {"errorCode": 0, "errorMessage": None, "groupId": "wordcount", "groupState": "reconciling", "groupEpoch": 7,
     "assignmentEpoch": 6, "authorizedOperations": -2147483648,
     "topology": {"epoch": 3, "subtopologies": [
         {"subtopologyId": "0", "sourceTopics": ["words"], "repartitionSinkTopics": ["wc-repartition"],
          "stateChangelogTopics": [], "repartitionSourceTopics": []},
         {"subtopologyId": "1", "sourceTopics": [], "repartitionSinkTopics": [],
          "stateChangelogTopics": [{"name": "wc-store-changelog", "partitions": 0, "replicationFactor": 0,
                                    "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}]}],
          "repartitionSourceTopics": [{"name": "wc-repartition", "partitions": 4, "replicationFactor": 3,
                                       "topicConfigs": []}]}]},
     "members": [
         {"memberId": "m1", "memberEpoch": 6, "instanceId": None, "rackId": "r1", "clientId": "wc-1",
          "clientHost": "/10.0.0.1", "topologyEpoch": 3, "processId": "p1",
          "userEndpoint": {"host": "wc-a", "port": 65535}, "clientTags": [{"key": "zone", "value": "z1"}],
          "taskOffsets": [{"subtopologyId": "1", "partition": 2, "offset": 1234}],
          "taskEndOffsets": [{"subtopologyId": "1", "partition": 2, "offset": 2000}],
          "assignment": _tasks({"0": [0, 1], "1": [0]}, {"1": [2]}, {}),
          "targetAssignment": _tasks({"0": [0], "1": [0]}, {"1": [2]}, {"1": [3]}), "isClassic": False},
         {"memberId": "m2", "memberEpoch": 7, "instanceId": "i2", "rackId": None, "clientId": "", "clientHost": "",
          "topologyEpoch": 2, "processId": "p2", "userEndpoint": None, "clientTags": [],
          "taskOffsets": [], "taskEndOffsets": [],
          "assignment": _tasks({}, {}, {}), "targetAssignment": _tasks({"0": [1]}, {}, {}), "isClassic": True}]},
    {"errorCode": 69, "errorMessage": "Group orders is not a streams group.", "groupId": "orders", "groupState": "",
     "groupEpoch": -1, "assignmentEpoch": -1, "topology": None, "members": [], "authorizedOperations": -2147483648},
    {"errorCode": 0, "errorMessage": None, "groupId": "bare", "groupState": "NotReady", "groupEpoch": 1,
     "assignmentEpoch": 0, "topology": None, "members": [], "authorizedOperations": -2147483648},
]}

COORDINATOR = Broker(2, "broker2", 9093)
EXPECTED = {
    "wordcount": StreamsGroup(
        "wordcount", "Reconciling", 7, 6, Topology(3, [
            Subtopology("0", ["words"], ["wc-repartition"], [], []),
            Subtopology("1", [], [], [StreamsTopic("wc-store-changelog", 0, 0, {"cleanup.policy": "compact"})],
                        [StreamsTopic("wc-repartition", 4, 3, {})])]),
        [StreamsMember("m1", "p1", 6, 3, "wc-1", "/10.0.0.1", None, "r1", ("wc-a", 65535), {"zone": "z1"},
                       [TaskOffset("1", 2, 1234)], [TaskOffset("1", 2, 2000)],
                       Tasks({"0": [0, 1], "1": [0]}, {"1": [2]}, {}), Tasks({"0": [0], "1": [0]}, {"1": [2]}, {"1": [3]}),
                       False),
         StreamsMember("m2", "p2", 7, 2, "", "", "i2", None, None, {}, [], [], Tasks({}, {}, {}),
                       Tasks({"0": [1]}, {}, {}), True)],
        COORDINATOR),
    "orders": StreamsDescribeError(69, "Group orders is not a streams group."),
    "bare": StreamsDescribeError(MISSING_TOPOLOGY, "Topology information is missing"),
}


def test_an_answer_kafka_wrote_reads_to_the_groups_it_holds():
    javadriver.require_java("kafka-clients' message classes")
    line = f"StreamsGroupDescribeResponse 0 . {json.dumps(ANSWER)}\n"
    out = javadriver.compile_and_run("MessageDriver", line, jackson=True).decode("utf-8").split("\n")[0]
    assert out.startswith("OK "), out
    raw = bytes.fromhex(out.split(" ")[1][1:])
    answer, size = codec.read(STREAMS_GROUP_DESCRIBE.response, 0, raw)
    assert size == len(raw)
    requests = [(g, g, None) for g in ("wordcount", "orders", "bare", "absent")]
    done, failed, further = StreamsDescribe().read(STREAMS_GROUP_DESCRIBE, answer, requests,
                                                   Node(2, "broker2", 9093))
    assert further is None
    assert failed == [("absent", "absent", None)]  # not in the answer: handed back
    assert {r[1]: result for r, result in done} == EXPECTED
