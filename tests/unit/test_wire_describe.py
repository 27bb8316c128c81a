"""kgroup.kafka.wire.describe without a broker: which request asks, how an answer splits into
descriptions, follow-up DescribeGroups and groups handed back to librdkafka, and the state
names librdkafka reports. (Descriptions against librdkafka's own: integration/test_describe_batched.py.)"""
from __future__ import annotations

import pytest

from kgroup.kafka.wire.coordinators import Node
from kgroup.kafka.wire.describe import Describe, state_name
from kgroup.kmsg.messages import CONSUMER_GROUP_DESCRIBE, DESCRIBE_GROUPS

NODE = Node(3, "b3", 9092)


class _Conn:
    def __init__(self, apis):
        self.apis = apis

    def supports(self, api):
        return api.key in self.apis


@pytest.mark.parametrize("apis, api", [({69, 15}, CONSUMER_GROUP_DESCRIBE), ({15}, DESCRIBE_GROUPS)])
def test_consumer_group_describe_where_the_broker_has_it(apis, api):
    sent, body = Describe().request(_Conn(apis), [(0, "g1", None), (1, "g2", None)])
    assert sent is api
    assert body == ({"groupIds": ["g1", "g2"], "includeAuthorizedOperations": False} if api is CONSUMER_GROUP_DESCRIBE
                    else {"groups": ["g1", "g2"], "includeAuthorizedOperations": False})
    assert Describe().speaks(_Conn({15})) and not Describe().speaks(_Conn({69}))


def _cgd(group, error=0, **fields):
    return {"errorCode": error, "errorMessage": None, "groupId": group, "groupState": "Stable", "groupEpoch": 1,
            "assignmentEpoch": 1, "assignorName": "uniform", "members": [], "authorizedOperations": 0, **fields}


def test_a_consumer_group_answer_splits_three_ways():
    requests = [(0, "ok", None), (1, "classic", None), (2, "old", None), (3, "denied", None), (4, "missing", None)]
    answer = {"groups": [_cgd("ok"), _cgd("classic", 69), _cgd("old", 35), _cgd("denied", 30)]}
    done, failed, further = Describe().read(CONSUMER_GROUP_DESCRIBE, answer, requests, NODE)
    assert [(r[1], d.type, d.state, d.assignor, d.coordinator.id) for r, d in done] == [("ok", "consumer", "Stable", "uniform", 3)]
    assert failed == [(3, "denied", None), (4, "missing", None)]  # librdkafka reports these
    assert further == (DESCRIBE_GROUPS, {"groups": ["classic", "old"], "includeAuthorizedOperations": False},
                       [(1, "classic", None), (2, "old", None)])


def test_a_consumer_group_answer_carries_its_epochs():
    # what librdkafka does not hand on: the group and assignment epochs, and each member's epoch
    tps = {"topicPartitions": [{"topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "topicName": "T", "partitions": [1, 0]}]}
    member = {"memberId": "m1", "instanceId": None, "rackId": None, "memberEpoch": 6, "clientId": "c", "clientHost": "/h",
              "subscribedTopicNames": ["T"], "subscribedTopicRegex": None, "assignment": tps,
              "targetAssignment": {"topicPartitions": []}}
    answer = {"groups": [_cgd("k", groupEpoch=9, assignmentEpoch=8, members=[member])]}
    (_, d), = Describe().read(CONSUMER_GROUP_DESCRIBE, answer, [(0, "k", None)], NODE)[0]
    (m,) = d.members
    assert (d.generation, d.assignment_epoch, m.member_epoch) == (9, 8, 6)
    assert (m.assignment, m.target_assignment, m.pending_revocation) == ({"T": [0, 1]}, {}, None)


def test_a_classic_group_answer():
    requests = [(0, "c", None), (1, "connect", None), (2, "gone", None)]
    member = {"memberId": "m", "groupInstanceId": None, "clientId": "", "clientHost": "/h", "memberMetadata": b"",
              # ConsumerProtocolAssignment v0: [("B", [2, 0]), ("A", [1])], no user data
              "memberAssignment": bytes.fromhex("0000" "00000002" "0001" "42" "00000002" "00000002" "00000000"
                                                "0001" "41" "00000001" "00000001" "ffffffff")}
    group = {"errorCode": 0, "groupId": "c", "groupState": "completingrebalance", "protocolType": "consumer",
             "protocolData": "range", "members": [member], "authorizedOperations": 0}
    answer = {"groups": [group, {**group, "groupId": "connect", "protocolType": "connect"},
                         {**group, "groupId": "gone", "errorCode": 16}]}
    done, failed, further = Describe().read(DESCRIBE_GROUPS, answer, requests, NODE)
    (_, d), = done
    assert (d.type, d.state, d.protocol_type, d.assignor) == ("classic", "CompletingRebalance", "consumer", "range")
    m, = d.members
    assert (m.member_id, m.client_id, m.host, m.assignment, m.target_assignment) == ("m", None, "/h", {"A": [1], "B": [0, 2]}, None)
    assert (d.generation, d.assignment_epoch, m.member_epoch) == (None, None, None)
    assert failed == [(1, "connect", None), (2, "gone", None)] and further is None


@pytest.mark.parametrize("sent, reported", [
    ("Stable", "Stable"), ("STABLE", "Stable"), ("preparingrebalance", "PreparingRebalance"), ("Dead", "Dead"),
    ("Assigning", "Unknown"), ("Reconciling", "Unknown"), ("", "Unknown"), ("Stable ", "Unknown"),
    ("ſtable", "Unknown"),  # ASCII case only, as librdkafka's strcasecmp
])
def test_states_as_librdkafka_names_them(sent, reported):
    assert state_name(sent) == reported
