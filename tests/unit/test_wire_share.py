"""kgroup.kafka.wire.share without a broker: which request asks, how an answer reads (Kafka's
Admin handlers' rules, values worked out by hand), and what is asked again. (Against Kafka's own
Admin client on the protocol double: integration/test_share_groups_double.py.)"""
from __future__ import annotations

from kgroup.kafka.wire.coordinators import Node
from kgroup.kafka.wire.share import GroupError, ShareDescribe, ShareOffsetsExchange, state_name
from kgroup.kmsg.messages import DESCRIBE_SHARE_GROUP_OFFSETS, DESCRIBE_SHARE_GROUP_OFFSETS_V0, SHARE_GROUP_DESCRIBE

NODE = Node(2, "b2", 9093)


class _Conn:
    def __init__(self, apis):
        self.apis = apis  # {(key, version)}

    def supports(self, api):
        return (api.key, api.version) in self.apis


def _described(group, error=0, message=None, **fields):
    return {"errorCode": error, "errorMessage": message, "groupId": group, "groupState": "Stable", "groupEpoch": 4,
            "assignmentEpoch": 3, "assignorName": "simple", "members": [], "authorizedOperations": -2147483648,
            **fields}


def test_share_group_describe_request():
    ex = ShareDescribe()
    assert ex.speaks(_Conn({(77, 1)})) and not ex.speaks(_Conn({(77, 0)})) and not ex.speaks(_Conn(set()))
    api, body = ex.request(_Conn({(77, 1)}), [(0, "s1", None), (1, "s2", None)])
    assert api is SHARE_GROUP_DESCRIBE
    assert body == {"groupIds": ["s1", "s2"], "includeAuthorizedOperations": False}


def test_a_share_group_description():
    member = {"memberId": "m-2", "rackId": "", "memberEpoch": 7, "clientId": "c2", "clientHost": "/10.0.0.2",
              "subscribedTopicNames": ["T", "U"],
              "assignment": {"topicPartitions": [
                  {"topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "topicName": "T", "partitions": [2, 0]},
                  {"topicId": "AAAAAAAAAAAAAAAAAAAAAg", "topicName": "U", "partitions": [1]}]}}
    other = {**member, "memberId": "m-1", "rackId": "r1", "assignment": {"topicPartitions": []}}
    answer = {"groups": [_described("s", groupState="stable", members=[member, other])]}
    (request, d), = ShareDescribe().read(SHARE_GROUP_DESCRIBE, answer, [(0, "s", None)], NODE)[0]
    assert (d.group_id, d.type, d.protocol_type, d.state, d.assignor) == ("s", "share", "share", "Stable", "simple")
    assert (d.generation, d.assignment_epoch) == (4, 3)
    assert (d.coordinator.id, d.coordinator.host, d.coordinator.port) == (2, "b2", 9093)
    m2, m1 = d.members
    assert (m2.member_id, m2.client_id, m2.host, m2.rack, m2.member_epoch) == ("m-2", "c2", "/10.0.0.2", None, 7)
    # the partitions as the broker lists them (2 before 0): the simple assignor's answer depends on that order
    assert (m2.subscription, m2.assignment, m2.target_assignment) == (["T", "U"], {"T": [2, 0], "U": [1]}, None)
    assert (m1.rack, m1.assignment) == ("r1", {})


def test_errors_are_answers_except_those_asked_again():
    requests = [(0, "gone", None), (1, "denied", None), (2, "loading", None), (3, "moved", None), (4, "left-out", None)]
    answer = {"groups": [_described("gone", 69, "Group gone is not a share group."), _described("denied", 30),
                         _described("loading", 14), _described("moved", 16, "not me")]}
    ex = ShareDescribe()
    done, failed, further = ex.read(SHARE_GROUP_DESCRIBE, answer, requests, NODE)
    assert [(r[1], e) for r, e in done] == [("gone", GroupError(69, "Group gone is not a share group.")),
                                            ("denied", GroupError(30, None))]
    assert done[0][1].text == "GROUP_ID_NOT_FOUND (Group gone is not a share group.)"
    assert failed == requests[2:] and further is None
    assert ex.retry["loading"] == GroupError(14, None) and ex.retry["moved"] == GroupError(16, "not me")
    assert ex.retry["left-out"].code == -1


def test_states_as_kafkas_group_state_reads_them():
    assert [state_name(s) for s in ("Stable", "EMPTY", "dead", "NotReady", "Assigning", "Balancing", "")] == [
        "Stable", "Empty", "Dead", "NotReady", "Assigning", "Unknown", "Unknown"]


def test_offsets_request_v1_where_spoken_else_v0():
    ex = ShareOffsetsExchange()
    assert ex.speaks(_Conn({(90, 0)})) and ex.speaks(_Conn({(90, 1)})) and not ex.speaks(_Conn({(77, 1)}))
    api, body = ex.request(_Conn({(90, 0), (90, 1)}), [(0, "s", None), (1, "t", [("A", 1), ("B", 0), ("A", 3)])])
    assert api is DESCRIBE_SHARE_GROUP_OFFSETS
    assert body == {"groups": [{"groupId": "s", "topics": None},
                               {"groupId": "t", "topics": [{"topicName": "A", "partitions": [1, 3]},
                                                           {"topicName": "B", "partitions": [0]}]}]}
    assert ex.request(_Conn({(90, 0)}), [(0, "s", None)])[0] is DESCRIBE_SHARE_GROUP_OFFSETS_V0


def _p(index, start, epoch, lag=-1, error=0, message=None):
    return {"partitionIndex": index, "startOffset": start, "leaderEpoch": epoch, "lag": lag, "errorCode": error,
            "errorMessage": message}


def test_offsets_read_as_admin_reads_them():
    group = {"groupId": "s", "errorCode": 0, "errorMessage": None, "topics": [
        {"topicName": "T", "topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "partitions": [
            _p(0, 120, 3, 7), _p(1, -1, 0, -1), _p(2, 40, -1, -1), _p(3, 0, 0, -1, 6, "not leader")]}]}
    (_, offsets), = ShareOffsetsExchange().read(DESCRIBE_SHARE_GROUP_OFFSETS, {"groups": [group]}, [(0, "s", None)],
                                                 NODE)[0]
    assert offsets.lag_reported
    p = offsets.partitions
    assert p[("T", 0)][:4] == (120, 3, 7, None)
    assert p[("T", 1)][:4] == (None, None, None, None)  # no start offset: Admin's null
    assert p[("T", 2)][:4] == (40, None, None, None)  # no leader epoch, lag not known
    assert p[("T", 3)][:4] == (None, None, None, "NOT_LEADER_OR_FOLLOWER (not leader)")
    (_, v0), = ShareOffsetsExchange().read(DESCRIBE_SHARE_GROUP_OFFSETS_V0, {"groups": [group]}, [(0, "s", None)],
                                           NODE)[0]
    assert not v0.lag_reported


def test_an_offsets_group_error():
    group = {"groupId": "s", "errorCode": 69, "errorMessage": "Group s not found.", "topics": []}
    (_, e), = ShareOffsetsExchange().read(DESCRIBE_SHARE_GROUP_OFFSETS, {"groups": [group]}, [(0, "s", None)], NODE)[0]
    assert e == GroupError(69, "Group s not found.")
