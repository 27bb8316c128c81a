"""Groups' configs (KIP-848 group configs: DescribeConfigs of a GROUP resource) read by kgroup's own
client (librdkafka cannot name a group resource) from the protocol double, whose answers Kafka 4.3's
message classes write, held to Kafka's Java Admin (describeConfigs) asked the same of the same
double, errors included; then whatif and snapshot of a streams group take num.standby.replicas
from the group's config instead of inferring it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from protodouble import Group, Scenario, admin_probe
from schemas import validate

from kgroup.kafka.cluster import Cluster
from kgroup.kafka.settings import ConnectionSettings
from kgroup.kafka.wire.describe_configs import ConfigsError

pytestmark = [pytest.mark.java, pytest.mark.broker]

DEFAULTS = {"streams.num.standby.replicas": "0", "share.delivery.count.limit": "5",
            "consumer.session.timeout.ms": "45000"}
GROUP_AUTHORIZATION_FAILED = 30
SOURCES = {8: "DYNAMIC_GROUP_CONFIG", 5: "DEFAULT_CONFIG"}  # ConfigSource ids, as the Admin client names them


def _tasks(active, standby=None):
    return {"activeTasks": [{"subtopologyId": s, "partitions": ps} for s, ps in active.items()],
            "standbyTasks": [{"subtopologyId": s, "partitions": ps} for s, ps in (standby or {}).items()],
            "warmupTasks": []}


def _member(mid, process, active):
    return {"memberId": mid, "memberEpoch": 4, "instanceId": None, "rackId": None, "clientId": f"c-{mid}",
            "clientHost": "/10.0.0.1", "topologyEpoch": 0, "processId": process, "userEndpoint": None,
            "clientTags": [], "taskOffsets": [], "taskEndOffsets": [], "assignment": _tasks(active),
            "targetAssignment": _tasks(active), "isClassic": False}


TOPOLOGY = {"epoch": 0, "subtopologies": [
    {"subtopologyId": "0", "sourceTopics": ["words"], "repartitionSinkTopics": [], "stateChangelogTopics": [
        {"name": "app-store-changelog", "partitions": 0, "replicationFactor": 0, "topicConfigs": []}],
     "repartitionSourceTopics": []}]}


def scenario():
    described = {"groupState": "stable", "groupEpoch": 4, "assignmentEpoch": 4, "topology": TOPOLOGY,
                 "members": [_member("m1", "p1", {"0": [0, 1]}), _member("m2", "p2", {"0": [2, 3]}),
                             _member("m3", "p3", {})]}
    return Scenario(groups=[
        Group("app", "streams", "Stable", description=described, configs={"streams.num.standby.replicas": "1"},
              offsets={("words", p): 10 for p in range(4)}),
        Group("plain-app", "streams", "Stable", description=described, offsets={("words", p): 10 for p in range(4)}),
        Group("denied", "streams", "Stable", description=described, errors={"DescribeConfigs": GROUP_AUTHORIZATION_FAILED}),
        Group("sg", "share", "Stable", configs={"share.delivery.count.limit": "3"}),
    ], topics={"words": 4, "app-store-changelog": 4}, group_config_defaults=DEFAULTS,
        log_offsets={**{("words", p): (0, 100) for p in range(4)},
                     **{("app-store-changelog", p): (0, 1000) for p in range(4)}})


def _kgroup(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "kgroup", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_configs_equal_the_java_admins(protodouble):
    double = protodouble(scenario())
    names = ["app", "plain-app", "denied", "sg", "no-such-group"]
    with Cluster(ConnectionSettings({"bootstrap.servers": double.bootstrap}, timeout=20)) as cluster:
        found, why = cluster.group_configs(names)
    assert why == "" and sorted(found) == sorted(names)
    java = admin_probe(double.bootstrap, "describeGroupConfigs", *names)["groups"]
    for g in names:
        if isinstance(found[g], ConfigsError):
            assert found[g].code == GROUP_AUTHORIZATION_FAILED and g == "denied"
            assert java[g]["error"]["class"] == "GroupAuthorizationException"
            continue
        assert {n: {"value": c.value, "source": SOURCES[c.source]} for n, c in found[g].items()} == java[g]["configs"]
    # by hand: a group's own value wins over the brokers' default; any group name is answered
    assert found["app"]["streams.num.standby.replicas"] == ("1", 8)
    assert found["plain-app"]["streams.num.standby.replicas"] == ("0", 5)
    assert found["sg"]["share.delivery.count.limit"] == ("3", 8)
    assert found["no-such-group"]["consumer.session.timeout.ms"] == ("45000", 5)
    # the own client turned off: not asked, and why
    with Cluster(ConnectionSettings({"bootstrap.servers": double.bootstrap}, timeout=20, batched=False)) as cluster:
        assert cluster.group_configs(["app"]) == (None, "-X kgroup.batched=false")


def test_whatif_takes_the_groups_num_standby_replicas(protodouble, tmp_path):
    double = protodouble(scenario())
    r = _kgroup("whatif", "app", "-b", double.bootstrap, "--remove", "m3", "-o", "json")
    assert r.returncode == 0, r.stderr
    assert "num.standby.replicas 1: the group's own streams.num.standby.replicas" in r.stderr
    assert "taken as" not in r.stderr
    doc = json.loads(r.stdout)
    assert doc["num_standby_replicas"] == 1
    # one standby per stateful task (subtopology 0 has a changelog), on the other process
    after = {m["member_id"]: m["after"] for m in doc["members"] if m["after"] is not None}
    standby = {(s, p): mid for mid, a in after.items() for s, ps in a["standby"].items() for p in ps}
    active = {(s, p): mid for mid, a in after.items() for s, ps in a["active"].items() for p in ps}
    assert sorted(standby) == sorted(active) == [("0", p) for p in range(4)]
    assert all(standby[t] != active[t] for t in active)
    plain = _kgroup("whatif", "plain-app", "-b", double.bootstrap, "--remove", "m3", "-o", "json")
    assert plain.returncode == 0, plain.stderr
    assert ("num.standby.replicas 0: the brokers' default group.streams.num.standby.replicas (the group sets none)"
            in plain.stderr)
    assert json.loads(plain.stdout)["num_standby_replicas"] == 0
    denied = _kgroup("whatif", "denied", "-b", double.bootstrap, "--remove", "m3", "-o", "json")
    assert denied.returncode == 0, denied.stderr
    assert "the group's streams.num.standby.replicas was not answered: error 30" in denied.stderr
    assert "num.standby.replicas taken as 0" in denied.stderr
    # describe shows it
    described = _kgroup("describe", "app", "-b", double.bootstrap, "-o", "json")
    assert described.returncode == 0, described.stderr
    validate("describe-streams", json.loads(described.stdout))
    (g,) = json.loads(described.stdout)["groups"]
    assert g["num_standby_replicas"] == {"value": 1, "source": "the group's own streams.num.standby.replicas"}
    table = _kgroup("describe", "app", "-b", double.bootstrap)
    assert "num.standby.replicas=1" in table.stdout.splitlines()[0]
    # a snapshot keeps it: whatif offline says where it came from
    snap = tmp_path / "app.json"
    r = _kgroup("snapshot", "app", "-b", double.bootstrap, "--out", str(snap))
    assert r.returncode == 0, r.stderr
    saved = json.loads(snap.read_text())
    assert saved["num_standby_replicas"] == {"value": 1, "source": "the group's own streams.num.standby.replicas"}
    offline = _kgroup("whatif", "--snapshot", str(snap), "--remove", "m3", "-o", "json")
    assert offline.returncode == 0, offline.stderr
    assert json.loads(offline.stdout) == doc
    assert "num.standby.replicas 1: the group's own streams.num.standby.replicas, when the snapshot was taken" \
        in offline.stderr


def test_share_state_replay_takes_each_groups_delivery_limit(protodouble, tansu):
    """log --type share-state --replay, live: SG1's own share.delivery.count.limit (4, a group config)
    instead of the brokers' (which this double does not report: Kafka's default 5). The records
    (examples/share-state-sg1.jsonl) sit in a topic of Tansu's, read through the double's relay;
    expected: what --delivery-limit 4 gives offline (105 archived at 5 deliveries; 106-109 available
    at 4: at the limit)."""
    import uuid

    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from kgroup.offsets_log.saved import iter_saved

    topic = f"share-state-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic(topic, 50, 1)], request_timeout=10).values():
        f.result(15)
    example = "examples/share-state-sg1.jsonl"
    p = Producer({"bootstrap.servers": tansu, "allow.auto.create.topics": False})
    for r in iter_saved(example, lambda *a: None, lambda m: None):
        p.produce(topic, key=r.key, value=r.value, partition=r.partition, timestamp=r.timestamp)
    assert p.flush(30) == 0
    host, port = tansu.rsplit(":", 1)
    double = protodouble(Scenario(
        groups=[Group("SG1", "share", "Stable", configs={"share.delivery.count.limit": "4"})],
        topics={topic: 50}, group_config_defaults={"share.delivery.count.limit": "5"},
        relay=(host, int(port)), relay_keys={0: (3, 9), 1: (4, 12), 2: (1, 7)}))
    live = _kgroup("log", "-b", double.bootstrap, "--type", "share-state", "--share-state-topic", topic, "--replay",
                   "-o", "json")
    assert live.returncode == 0, live.stderr
    assert "kgroup: group SG1: delivery limit 4 (the group's own share.delivery.count.limit)" in live.stderr
    doc = json.loads(live.stdout)
    assert doc["delivery_limits"] == {"SG1": {"limit": 4, "source": "the group's own share.delivery.count.limit"}}
    offline = _kgroup("log", "--input", example, "--type", "share-state", "--replay", "--delivery-limit", "4",
                      "-o", "json")
    assert offline.returncode == 0, offline.stderr
    assert doc["share_partitions"] == json.loads(offline.stdout)["share_partitions"]
    assert [(a["first_offset"], a["status"]) for a in doc["share_partitions"][0]["at_risk"]] == [
        (105, "archived"), (106, "at-limit")]
