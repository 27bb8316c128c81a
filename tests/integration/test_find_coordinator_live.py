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
