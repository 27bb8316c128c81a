"""find-coordinator (and describe) against a real broker process (Tansu) and librdkafka's mock cluster."""
from __future__ import annotations

import json

import pytest
from conftest import run_kgroup


@pytest.mark.broker
def test_tansu_reports_coordinator_unverified(tansu):
    r = run_kgroup("find-coordinator", "-b", tansu, "-o", "json", "G1")
    assert r.returncode == 0, r.stderr
    g = json.loads(r.stdout)["groups"][0]
    host, port = tansu.split(":")
    # Tansu is one broker, node id 111, and answers FindCoordinator with itself
    assert g["coordinator"] == {"id": 111, "host": host, "port": int(port)}
    assert g["offsets_partition"] == 0 and g["offsets_partitions"] == 50
    # Tansu has no __consumer_offsets topic: the leader cannot be checked
    assert g["verdict"] == "unverified"
    assert g["offsets_partition_leader"] is None
    assert "__consumer_offsets is not visible" in g["reason"]
    assert "assuming offsets.topic.num.partitions=50" in r.stderr


@pytest.mark.broker
def test_tansu_offsets_partitions_option_is_used(tansu):
    r = run_kgroup("find-coordinator", "-b", tansu, "--offsets-partitions", "7", "-o", "json", "GROUPS")
    g = json.loads(r.stdout)["groups"][0]
    assert (g["offsets_partition"], g["offsets_partitions"]) == (5, 7)
    assert r.stderr == ""


@pytest.mark.broker
def test_env_bootstrap(tansu):
    r = run_kgroup("find-coordinator", "-o", "json", "G1", env={"KGROUP_BOOTSTRAP_SERVERS": tansu})
    assert r.returncode == 0 and json.loads(r.stdout)["groups"][0]["coordinator"]["id"] == 111


@pytest.mark.broker
def test_mock_cluster_verdicts_per_group(mock_cluster):
    groups = [f"group-{i}" for i in range(12)] + ["G1", "polygenelubricants"]
    r = run_kgroup("find-coordinator", "-b", mock_cluster.bootstrap, "-o", "json", "--", *groups)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    md = mock_cluster.metadata()
    offsets = md.topics["__consumer_offsets"]
    assert len(offsets.partitions) == 4
    by_group = {g["group"]: g for g in doc["groups"]}
    # independent: the Java hash values (see test_hashing) modulo the mock's 4 partitions
    assert by_group["G1"]["offsets_partition"] == 2250 % 4
    assert by_group["polygenelubricants"]["offsets_partition"] == 0
    coordinators = set()
    for g in doc["groups"]:
        leader_id = offsets.partitions[g["offsets_partition"]].leader
        host, port = mock_cluster.brokers[leader_id]
        assert g["offsets_partition_leader"] == {"id": leader_id, "host": host, "port": port}
        assert g["coordinator"]["id"] in mock_cluster.brokers
        coordinators.add(g["coordinator"]["id"])
        if g["coordinator"]["id"] == leader_id:
            assert g["verdict"] == "agree" and g["reason"] is None
        else:
            assert g["verdict"] == "mismatch"
            assert f"reports broker {g['coordinator']['id']}" in g["reason"]
            assert f"led by broker {leader_id}" in g["reason"]
    # the mock spreads groups over brokers, so coordinators differ per group
    assert len(coordinators) > 1
    assert {"agree", "mismatch"} <= {g["verdict"] for g in doc["groups"]}
    counts = {b["id"]: b["group_count"] for b in doc["brokers"]}
    assert sum(counts.values()) == len(groups)


@pytest.mark.broker
def test_fail_on_mismatch_exits_1(mock_cluster):
    groups = [f"group-{i}" for i in range(12)]
    r = run_kgroup("find-coordinator", "-b", mock_cluster.bootstrap, "--fail-on-mismatch", "--", *groups)
    assert r.returncode == 1
    assert "mismatch" in r.stdout


@pytest.mark.broker
def test_mock_cluster_without_offsets_topic_is_unverified():
    from brokers import MockCluster

    cluster = MockCluster(brokers=2, offsets_topic=False)
    try:
        r = run_kgroup("find-coordinator", "-b", cluster.bootstrap, "-o", "json", "G1")
        g = json.loads(r.stdout)["groups"][0]
        assert g["verdict"] == "unverified" and g["coordinator"]["id"] in cluster.brokers
        assert "not created yet" in g["reason"]
    finally:
        cluster.close()


@pytest.mark.broker
def test_describe_on_a_cluster_without_describe_apis_exits_3(mock_cluster):
    # the mock cluster implements neither ConsumerGroupDescribe nor DescribeGroups
    r = run_kgroup("describe", "-b", mock_cluster.bootstrap, "G1")
    assert r.returncode == 3
    assert r.stderr.strip() == ("kgroup: error: cannot describe group G1: the cluster supports neither "
                                "ConsumerGroupDescribe nor DescribeGroups")


def _topic_id(bootstrap: str, topic: str) -> str:
    """The topic's id as the cluster reports it to confluent-kafka's own DescribeTopics, in Kafka's text form."""
    import base64

    from confluent_kafka import TopicCollection
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap})
    (future,) = admin.describe_topics(TopicCollection([topic]), request_timeout=10).values()
    uuid = future.result(timeout=20).topic_id
    raw = uuid.get_most_significant_bits().to_bytes(8, "big", signed=True) + \
        uuid.get_least_significant_bits().to_bytes(8, "big", signed=True)
    return base64.urlsafe_b64encode(raw).decode()[:22]


@pytest.mark.broker
def test_tansu_share_state_without_the_state_topic(tansu):
    """Tansu has no share coordinator and no __share_group_state: the partition is computed over
    Kafka's default 50, the leader is unknown, and that is said (exit 0, as for __consumer_offsets)."""
    from confluent_kafka.admin import AdminClient, NewTopic

    from kgroup.group.hashing import share_state_partition_for

    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic("share-orders-38", 3, 1)], request_timeout=10).values():
        f.result(timeout=20)
    topic_id = _topic_id(tansu, "share-orders-38")
    r = run_kgroup("find-coordinator", "-b", tansu, "-o", "json", "SG1", "--share-state", "share-orders-38:2")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["state_topic_present"] is False
    (s,) = doc["share_partitions"]
    assert (s["group"], s["topic"], s["topic_id"], s["partition"]) == ("SG1", "share-orders-38", topic_id, 2)
    assert s["coordinator_key"] == f"SG1:{topic_id}:2"
    assert (s["state_partition"], s["state_partitions"]) == (share_state_partition_for("SG1", topic_id, 2, 50), 50)
    assert s["verdict"] == "unverified" and s["state_partition_leader"] is None
    assert "__share_group_state is not visible" in s["reason"]
    assert "assuming share.coordinator.state.topic.num.partitions=50" in r.stderr
    r = run_kgroup("find-coordinator", "-b", tansu, "SG1", "--share-state", "share-orders-38:3")
    assert r.returncode == 2 and r.stderr.strip() == \
        "kgroup: error: --share-state share-orders-38:3: share-orders-38 has partitions 0-2"
    r = run_kgroup("find-coordinator", "-b", tansu, "SG1", "--share-state", "no-such-topic-38:0")
    assert r.returncode == 2 and "no-such-topic-38 is not in the cluster's metadata" in r.stderr


@pytest.mark.broker
def test_mock_cluster_share_state_leader_from_metadata():
    """librdkafka's mock cluster with a 4-partition __share_group_state: the partition count and the
    leader come from its metadata. (The mock answers no DescribeTopics: the id is given.)"""
    from brokers import MockCluster

    from kgroup.group.hashing import share_state_partition_for

    cluster = MockCluster(brokers=3, offsets_topic=False)
    try:
        cluster._producer.list_topics("__share_group_state", timeout=10)  # the mock creates it, 4 partitions
        cluster._producer.list_topics("orders", timeout=10)
        md = cluster.metadata()
        topic_id = "0c2xzWoOQ7i7A7k2P3pqXA"
        expected = share_state_partition_for("SG1", topic_id, 1, 4)
        leader = md.topics["__share_group_state"].partitions[expected].leader
        r = run_kgroup("find-coordinator", "-b", cluster.bootstrap, "-o", "json", "SG1", "--share-state", "orders:1",
                       "--topic-id", topic_id, "--share-state-partitions", "50")
        assert r.returncode == 0, r.stderr
        (s,) = json.loads(r.stdout)["share_partitions"]
        assert (s["state_partition"], s["state_partitions"], s["verdict"]) == (expected, 4, "located")
        host, port = cluster.brokers[leader]
        assert s["state_partition_leader"] == {"id": leader, "host": host, "port": port}
        assert r.stderr.strip() == ("kgroup: warning: --share-state-partitions 50 ignored: the cluster's "
                                    "__share_group_state has 4 partitions")
    finally:
        cluster.close()
