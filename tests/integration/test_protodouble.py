"""The protocol test double (tests/protodouble.py) answers as Kafka 4.3 would: Kafka's own Java
Admin client and librdkafka, asked about its groups, read what a Kafka 4.3 cluster holding them
gives. These are the double's own checks; the commands' tests use it as a cluster."""
from __future__ import annotations

import pytest
from protodouble import (COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, Group, Scenario,
                         admin_probe, six_groups)

pytestmark = [pytest.mark.java, pytest.mark.broker]

# the six groups as Kafka's GroupListing names them (type, protocol type, state)
SIX = {
    "classic-app": ("Classic", "consumer", "Stable"),
    "connect-cluster": ("Classic", "connect", "Stable"),
    "offsets-only": ("Classic", "", "Empty"),
    "kip848-app": ("Consumer", "consumer", "Reconciling"),
    "orders-share": ("Share", "share", "Stable"),
    "wordcount-streams": ("Streams", "streams", "NotReady"),
}


def _listed(answer):
    return {g["groupId"]: (g["type"], g["protocolType"], g["state"]) for g in answer["listings"]}


def test_java_admin_lists_every_group_of_every_broker(protodouble):
    double = protodouble(six_groups(brokers=3))
    answer = admin_probe(double.bootstrap, "listGroups")
    assert _listed(answer) == SIX and answer["errors"] == []
    # one ListGroups v5 per broker, each answering for the groups it coordinates
    assert sorted(b for b, r in double.asked(16)) == [0, 1, 2]
    assert {r.api_version for _, r in double.asked(16)} == {5}
    assert double.codec_errors == []


@pytest.mark.parametrize("types, expected", [
    (["share"], ["orders-share"]),
    (["classic", "streams"], ["classic-app", "connect-cluster", "offsets-only", "wordcount-streams"]),
    (["consumer"], ["kip848-app"]),
])
def test_java_admin_type_filter(protodouble, types, expected):
    double = protodouble(six_groups(brokers=2))
    answer = admin_probe(double.bootstrap, "listGroups", *types)
    assert sorted(_listed(answer)) == expected and answer["errors"] == []
    # Java sends the names as its GroupType prints them ("Share"); the broker reads them without case
    assert {tuple(sorted(t.lower() for t in r.body["typesFilter"])) for _, r in double.asked(16)} == {tuple(types)}


def test_broker_without_v5_lists_without_types(protodouble):
    double = protodouble(Scenario(groups=six_groups().groups, versions={16: (0, 4)}))
    answer = admin_probe(double.bootstrap, "listGroups")
    # v4 carries no group type: Kafka's GroupListing has none
    assert _listed(answer) == {g: (None, p, s) for g, (_, p, s) in SIX.items()}
    # and a share filter cannot be sent to it: Java's request builder refuses (UnsupportedVersion)
    refused = admin_probe(double.bootstrap, "listGroups", "share")
    assert refused["listings"] == [] and [e["class"] for e in refused["errors"]] == ["UnsupportedVersionException"]


def test_broker_list_error_is_an_error_of_that_broker(protodouble):
    scenario = six_groups(brokers=2)
    scenario.list_errors = {1: 31}  # CLUSTER_AUTHORIZATION_FAILED on broker 1
    answer = admin_probe(protodouble(scenario).bootstrap, "listGroups")
    assert sorted(_listed(answer)) == ["classic-app", "offsets-only", "orders-share"]  # broker 0's
    assert [e["class"] for e in answer["errors"]] == ["ClusterAuthorizationException"]


def test_librdkafka_lists_only_consumer_protocol_groups(protodouble):
    """What kgroup saw before: librdkafka keeps classic groups of protocol type consumer or none,
    and consumer groups; never connect, share or streams groups."""
    from confluent_kafka.admin import AdminClient

    double = protodouble(six_groups(brokers=2))
    admin = AdminClient({"bootstrap.servers": double.bootstrap, "log_level": 0})
    result = admin.list_consumer_groups(request_timeout=20).result()
    assert (sorted(g.group_id for g in result.valid), result.errors) == (["classic-app", "kip848-app", "offsets-only"], [])
    assert result.errors == []


def test_describe_errors_per_group(protodouble):
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    scenario = six_groups(brokers=2)
    scenario.groups.append(Group("loading", "consumer", "Stable", errors={"FindCoordinator": COORDINATOR_LOAD_IN_PROGRESS}))
    double = protodouble(scenario)
    admin = AdminClient({"bootstrap.servers": double.bootstrap, "log_level": 0})
    futures = admin.describe_consumer_groups(["orders-share", "classic-app", "kip848-app"], request_timeout=20)
    # ConsumerGroupDescribe says GROUP_ID_NOT_FOUND ("not a consumer group"), then DescribeGroups v5
    # says Dead without an error, as Kafka 4.3 does: librdkafka reports a Dead group with no members
    share = futures["orders-share"].result()
    assert share.state.name == "DEAD" and share.members == []
    assert [r.body["groupIds"] for b, r in double.asked(69) if "orders-share" in r.body["groupIds"]] == [["orders-share"]]
    loading = admin.describe_consumer_groups(["loading"], request_timeout=3)["loading"]
    with pytest.raises(KafkaException):
        loading.result()
    assert futures["classic-app"].result().state.name == "STABLE"
    assert futures["kip848-app"].result().coordinator.id == 1  # the fourth group: broker 3 % 2
    # a describe sent to a broker that is not the group's coordinator is NOT_COORDINATOR there
    assert double.group_for(0, "kip848-app", "consumer", "ConsumerGroupDescribe")[1]["errorCode"] == NOT_COORDINATOR
    assert double.codec_errors == []
