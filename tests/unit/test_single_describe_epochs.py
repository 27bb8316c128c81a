"""A describe of one KIP-848 consumer group: librdkafka describes it (errors read as always), and
kgroup's own client adds what librdkafka does not report, the group, assignment and member epochs
(ConsumerGroupDescribe), where it speaks the connection; -v says which client answered."""
from __future__ import annotations

from collections import deque

from kgroup.group.model import Broker, GroupDescription, Member
from kgroup.kafka.settings import ConnectionSettings
from kgroup.kafka.wire import coordinators
from kgroup.kmsg.messages import CONSUMER_GROUP_DESCRIBE, DESCRIBE_GROUPS, FIND_COORDINATOR

_RD = {  # librdkafka's descriptions: no epochs
    "new": GroupDescription("new", type="consumer", state="Stable", protocol_type="consumer", assignor="uniform",
                            coordinator=Broker(1, "b1", 9), members=[Member("m1", assignment={"t": [0]})]),
    "old": GroupDescription("old", type="classic", state="Stable", protocol_type="consumer"),
}


class _Cluster:
    brokers: dict = {}
    bootstrap = "boot:1"
    deadline = 1e18

    def rd_describe_groups(self, groups):
        return {g: _RD[g] for g in groups}


class _Connections:
    def __init__(self):
        self.asked = []
        fakes = self

        class Fake:
            def __init__(self, host, port, client_id, deadline, connect_within=None, security=None):
                self.pending = deque()

            def supports(self, api):
                return api in (FIND_COORDINATOR, CONSUMER_GROUP_DESCRIBE, DESCRIBE_GROUPS)

            def send(self, api, body):
                fakes.asked.append(api.key)
                self.pending.append((api, body))

            def receive(self):
                api, body = self.pending.popleft()
                if api is FIND_COORDINATOR:
                    return {"coordinators": [{"key": g, "nodeId": 1, "host": "b1", "port": 9, "errorCode": 0,
                                              "errorMessage": None} for g in body["coordinatorKeys"]]}
                assignment = {"topicPartitions": [{"topicId": "AAAAAAAAAAAAAAAAAAAAAA", "topicName": "t",
                                                   "partitions": [0]}]}
                return {"groups": [{"errorCode": 0, "errorMessage": None, "groupId": g, "groupState": "Stable",
                                    "groupEpoch": 7, "assignmentEpoch": 6, "assignorName": "uniform",
                                    "members": [{"memberId": "m1", "instanceId": None, "rackId": None,
                                                 "memberEpoch": 5, "clientId": "c", "clientHost": "/h",
                                                 "subscribedTopicNames": ["t"], "subscribedTopicRegex": None,
                                                 "assignment": assignment, "targetAssignment": assignment}],
                                    "authorizedOperations": 0} for g in body["groupIds"]]}

            def close(self):
                pass

        self.connection = Fake


def _routing(x=(), verbose=True):
    from kgroup.kafka.routing import Routing

    return Routing(ConnectionSettings.build("boot:1", list(x), None, 30.0, verbose))


def test_one_consumer_group_gets_its_epochs_from_the_own_client(monkeypatch, capsys):
    fakes = _Connections()
    monkeypatch.setattr(coordinators, "Connection", fakes.connection)
    described = _routing().describe_groups(_Cluster(), ["new", "old"])
    new = described["new"]
    assert (new.generation, new.assignment_epoch, [m.member_epoch for m in new.members]) == (7, 6, [5])
    assert described["old"] is _RD["old"]  # a classic group: librdkafka's description as it was
    assert fakes.asked == [FIND_COORDINATOR.key, CONSUMER_GROUP_DESCRIBE.key]  # only the consumer group asked
    assert capsys.readouterr().err.splitlines() == [
        "kgroup: describe of 2 groups: librdkafka, one group per request (fewer than 10 groups)",
        "kgroup: member epochs of consumer group new: kgroup's own client (ConsumerGroupDescribe)"]


def test_where_the_own_client_cannot_connect_librdkafkas_description_stands(monkeypatch, capsys):
    fakes = _Connections()
    monkeypatch.setattr(coordinators, "Connection", fakes.connection)
    described = _routing(["security.protocol=SASL_SSL", "sasl.mechanisms=GSSAPI"]).describe_groups(_Cluster(), ["new"])
    assert described["new"] is _RD["new"] and fakes.asked == []
    assert capsys.readouterr().err.splitlines()[-1] == (
        "kgroup: member epochs of consumer group new: not known (librdkafka does not report them; kgroup's own "
        "client: the connection settings ask for what kgroup's batched client does not speak: it does not speak "
        "SASL mechanism GSSAPI)")


def test_no_epochs_asked_with_the_own_client_switched_off(monkeypatch):
    fakes = _Connections()
    monkeypatch.setattr(coordinators, "Connection", fakes.connection)
    assert _routing(["kgroup.batched=false"]).describe_groups(_Cluster(), ["new"])["new"] is _RD["new"]
    assert fakes.asked == []
