"""Against a real Apache Kafka cluster, when KGROUP_TEST_BOOTSTRAP=host:port is set (CI skips).

Asserts what only a real Kafka answers: the coordinator is the leader of the hashed
__consumer_offsets partition, describe shows real members with client ids and hosts.
Topics and groups get unique names; the topics are deleted afterwards.
"""
from __future__ import annotations

import json
import os
import uuid

import pytest
from conftest import run_kgroup

BOOTSTRAP = os.environ.get("KGROUP_TEST_BOOTSTRAP")
pytestmark = [pytest.mark.realkafka,
              pytest.mark.skipif(not BOOTSTRAP, reason="set KGROUP_TEST_BOOTSTRAP to run against real Kafka")]


@pytest.fixture(scope="module")
def live():
    import seed

    suffix = uuid.uuid4().hex[:8]
    topics = {f"Order-{suffix}": 7, f"Stock-{suffix}": 5}
    seed.create_topics(BOOTSTRAP, topics)
    seed.produce(BOOTSTRAP, topics, count=lambda t, p: 3 + p)
    group = seed.LiveGroup(BOOTSTRAP, f"G1-{suffix}", topics=topics).start(60)
    group.commit_seed_offsets(offset=lambda t, p: 1)
    try:
        yield group, topics
    finally:
        group.stop()
        from confluent_kafka.admin import AdminClient

        AdminClient({"bootstrap.servers": BOOTSTRAP}).delete_topics(list(topics))


def test_coordinator_agrees_with_hash(live):
    group, _ = live
    r = run_kgroup("find-coordinator", "-b", BOOTSTRAP, "-o", "json", group.group_id)
    g = json.loads(r.stdout)["groups"][0]
    assert g["verdict"] == "agree", g


def test_describe_and_offsets_show_members(live):
    group, topics = live
    doc = json.loads(run_kgroup("describe", "-b", BOOTSTRAP, "-o", "json", group.group_id).stdout)
    members = doc["groups"][0]["members"]
    assert sorted(m["client_id"] for m in members) == ["C1", "C2", "C3"]
    assert sum(m["partition_count"] for m in members) == 12
    doc = json.loads(run_kgroup("offsets", "-b", BOOTSTRAP, "-o", "json", group.group_id).stdout)
    rows = doc["groups"][0]["partitions"]
    assert {(r["topic"], r["partition"]): r["lag"] for r in rows} == {
        (t, p): 3 + p - 1 for t, n in topics.items() for p in range(n)}
    assert all(r["client_id"] in ("C1", "C2", "C3") for r in rows)


def test_offsets_log_holds_the_groups_commits_and_generation(live):
    """The real __consumer_offsets: the group's commits and its classic GroupMetadata, decoded."""
    group, topics = live
    r = run_kgroup("log", group.group_id, "-b", BOOTSTRAP, "-o", "json", timeout=120)
    assert r.returncode == 0, r.stderr
    records = [json.loads(x) for x in r.stdout.splitlines()]
    commits = {(x["key"]["data"]["topic"], x["key"]["data"]["partition"]): x["value"]["data"]["offset"]
               for x in records if x["key"]["type"] == 1 and x["value"] is not None}
    assert commits == {(t, p): 1 for t, n in topics.items() for p in range(n)}
    generations = [x for x in records if x["key"]["type"] == 2 and x["value"] is not None]
    assert generations and generations[-1]["value"]["data"]["protocolType"] == "consumer"
    history = json.loads(run_kgroup("history", group.group_id, "-b", BOOTSTRAP, "-o", "json", timeout=120).stdout)
    last = history["rebalances"][-1]
    assert sorted(m["client_id"] for m in last["members"]) == ["C1", "C2", "C3"]
    assert sum(len(ps) for m in last["members"] for ps in m["assignment"].values()) == 12


def test_many_groups_read_the_same_batched_or_one_by_one(live):
    """Ten groups or more are described and their offsets fetched many per request
    (kgroup/kafka/wire/); any -X property other than client.id keeps every request on librdkafka's
    one-group path. On a real cluster (a live classic group among groups that only commit)
    both give the same documents."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    group, topics = live
    admin = AdminClient({"bootstrap.servers": BOOTSTRAP})
    extra = [f"{group.group_id}-c{i}" for i in range(10)]
    (topic, count), = list(topics.items())[:1]
    for i, g in enumerate(extra):
        tps = [TopicPartition(topic, p, i % 3) for p in range(count)]
        admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(g, tps)])[g].result(timeout=30)
    try:
        names = [group.group_id, *extra]
        for command in ("describe", "offsets"):
            batched = run_kgroup(command, *names, "-b", BOOTSTRAP, "-o", "json")
            one_by_one = run_kgroup(command, *names, "-b", BOOTSTRAP, "-o", "json", "-X", "socket.nagle.disable=true")
            assert batched.returncode == one_by_one.returncode == 0, (batched.stderr, one_by_one.stderr)
            assert json.loads(batched.stdout) == json.loads(one_by_one.stdout), command
    finally:
        for f in admin.delete_consumer_groups(extra).values():
            f.result(timeout=30)


STREAMS_GROUP = os.environ.get("KGROUP_TEST_STREAMS_GROUP")  # a running Kafka Streams app's group (4.2+)


@pytest.mark.java
@pytest.mark.skipif(not STREAMS_GROUP, reason="set KGROUP_TEST_STREAMS_GROUP to a streams group of that cluster")
def test_a_streams_group_reads_as_kafkas_admin_reads_it():
    """A streams group of a real Kafka 4.2+ cluster (KGROUP_TEST_STREAMS_GROUP, run by a Kafka Streams
    application with group.protocol=streams): kgroup's describe names the same members, processes
    and active tasks as Kafka's Java Admin (describeStreamsGroups), its config the same
    num.standby.replicas as describeConfigs."""
    from protodouble import admin_probe

    java = admin_probe(BOOTSTRAP, "describeStreamsGroups", STREAMS_GROUP)["groups"][STREAMS_GROUP]
    r = run_kgroup("describe", "-b", BOOTSTRAP, "-o", "json", STREAMS_GROUP)
    assert r.returncode == 0, r.stderr
    (g,) = json.loads(r.stdout)["groups"]
    assert g["type"] == "streams" and g["state"] == java["state"]
    assert [(m["member_id"], m["process_id"], {s: sorted(ps) for s, ps in m["assignment"]["active"].items() if ps})
            for m in sorted(g["members"], key=lambda m: m["member_id"])] == [
        (m["memberId"], m["processId"], m["assignment"]["active"]) for m in java["members"]]
    configs = admin_probe(BOOTSTRAP, "describeGroupConfigs", STREAMS_GROUP)["groups"][STREAMS_GROUP]["configs"]
    assert str(g["num_standby_replicas"]["value"]) == configs["streams.num.standby.replicas"]["value"]
