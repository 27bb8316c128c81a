"""Share groups (KIP-932) read by kgroup's own client from the protocol double (tests/protodouble.py,
answers written by Kafka 4.3's message classes), held to Kafka's own Java Admin client
(describeShareGroups, listShareGroupOffsets) asked the same question of the same double: every
field both carry is equal, on every scenario, errors included. Then the commands on it."""
from __future__ import annotations

import json

import pytest
from protodouble import COORDINATOR_LOAD_IN_PROGRESS, Group, Scenario, admin_probe
from schemas import validate

from kgroup.errors import CoordinatorNotAvailable, KgroupError, NotSupported, UnknownGroup
from kgroup.kafka.cluster import Cluster
from kgroup.kafka.settings import ConnectionSettings

pytestmark = [pytest.mark.java, pytest.mark.broker]


def _assignment(topics):
    return {"topicPartitions": [{"topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "topicName": t, "partitions": ps}
                                for t, ps in topics.items()]}


MEMBERS = [
    {"memberId": "m-b", "rackId": "rack-1", "memberEpoch": 7, "clientId": "worker-b", "clientHost": "/10.0.0.2",
     "subscribedTopicNames": ["orders"], "assignment": _assignment({"orders": [2, 0, 1]})},
    {"memberId": "m-a", "rackId": None, "memberEpoch": 6, "clientId": "worker-a", "clientHost": "/10.0.0.1",
     "subscribedTopicNames": ["orders", "refunds"], "assignment": _assignment({"orders": [0], "refunds": [0]})},
]
SHARE_OFFSETS = {
    ("orders", 0): {"startOffset": 120, "leaderEpoch": 3, "lag": 15},
    ("orders", 1): {"startOffset": 40, "leaderEpoch": 3, "lag": 0},
    ("orders", 2): {"startOffset": -1, "leaderEpoch": 0, "lag": -1},  # no state yet
    ("refunds", 0): {"startOffset": 9, "leaderEpoch": -1, "lag": -1},  # lag not known to the broker
}


def scenario(brokers=2, **versions):
    groups = [
        Group("orders-share", "share", "Stable", coordinator=1,
              description={"groupEpoch": 12, "assignmentEpoch": 11, "members": MEMBERS},
              share_offsets=dict(SHARE_OFFSETS)),
        Group("idle-share", "share", "Empty", coordinator=0, description={"groupEpoch": 3, "assignmentEpoch": 3}),
        Group("kip848-app", "consumer", "Stable", coordinator=0),
        Group("loading-once", "share", "Stable", coordinator=0, description={"groupEpoch": 2, "assignmentEpoch": 2},
              errors={"ShareGroupDescribe": COORDINATOR_LOAD_IN_PROGRESS,
                      "DescribeShareGroupOffsets": COORDINATOR_LOAD_IN_PROGRESS}, errors_times=2,
              share_offsets={("orders", 1): {"startOffset": 5, "leaderEpoch": 1, "lag": 2}}),
        Group("loading", "share", "Stable", coordinator=1,
              errors={"ShareGroupDescribe": COORDINATOR_LOAD_IN_PROGRESS,
                      "DescribeShareGroupOffsets": COORDINATOR_LOAD_IN_PROGRESS}),
    ]
    return Scenario(groups=groups, brokers=brokers, topics={"orders": 3, "refunds": 1},
                    versions={int(k[1:]): v for k, v in versions.items()})


def _cluster(double, timeout=8.0):
    return Cluster(ConnectionSettings({"bootstrap.servers": double.bootstrap}, timeout=timeout))


def _as_java_describes(d):
    """kgroup's description, in the Java probe's terms (what both carry)."""
    return {"groupId": d.group_id, "state": d.state, "groupEpoch": d.generation, "assignmentEpoch": d.assignment_epoch,
            "coordinator": {"id": d.coordinator.id, "host": d.coordinator.host, "port": d.coordinator.port},
            "members": [{"memberId": m.member_id, "rack": m.rack, "clientId": m.client_id, "host": m.host,
                         # Admin holds a member's partitions in a Set: their order is not something both carry
                         "memberEpoch": m.member_epoch, "assignment": {t: sorted(ps) for t, ps in m.assignment.items()}}
                        for m in sorted(d.members, key=lambda m: m.member_id)]}


def _as_java_offsets(o):
    """kgroup's offsets in the probe's terms: Admin leaves a partition with an error out."""
    return {"partitions": [{"topic": t, "partition": p, "startOffset": v.start_offset, "leaderEpoch": v.leader_epoch,
                            "lag": v.lag} for (t, p), v in sorted(o.partitions.items()) if v.error is None]}


def test_descriptions_equal_the_java_admins(protodouble):
    double = protodouble(scenario())
    groups = ["orders-share", "idle-share", "loading-once"]
    java = admin_probe(double.bootstrap, "describeShareGroups", *groups)["groups"]
    double.scenario.groups[3].errors_times = 2  # the same once more for kgroup
    with _cluster(double) as cluster:
        ours = cluster.describe_share_groups(groups)
    assert {g: _as_java_describes(d) for g, d in ours.items()} == java
    # and the values, worked out by hand from the scenario
    d = ours["orders-share"]
    assert (d.type, d.assignor, d.state, d.generation, d.assignment_epoch, d.coordinator.id) == (
        "share", "simple", "Stable", 12, 11, 1)
    assert [(m.member_id, m.rack, m.subscription, m.assignment) for m in d.members] == [
        ("m-b", "rack-1", ["orders"], {"orders": [2, 0, 1]}),  # as the broker lists them
        ("m-a", None, ["orders", "refunds"], {"orders": [0], "refunds": [0]})]
    assert double.codec_errors == []


def test_a_group_of_another_type_or_none_is_not_a_share_group(protodouble):
    double = protodouble(scenario())
    java = admin_probe(double.bootstrap, "describeShareGroups", "kip848-app", "nobody")["groups"]
    assert {g: e["error"]["class"] for g, e in java.items()} == {"kip848-app": "GroupIdNotFoundException",
                                                                 "nobody": "GroupIdNotFoundException"}
    with _cluster(double) as cluster:
        assert cluster.describe_share_groups(["kip848-app", "nobody"]) == {"kip848-app": None, "nobody": None}
        assert cluster.share_groups_among(["kip848-app", "orders-share"])[0].keys() == {"orders-share"}


def test_a_coordinator_loading_until_the_timeout(protodouble):
    double = protodouble(scenario())
    java = admin_probe(double.bootstrap, "describeShareGroups", "loading", timeout_ms=3000)["groups"]
    assert java["loading"]["error"]["class"] == "TimeoutException"
    with _cluster(double, timeout=2.0) as cluster:
        with pytest.raises(CoordinatorNotAvailable) as e:
            cluster.describe_share_groups(["loading"])
    assert "COORDINATOR_LOAD_IN_PROGRESS" in e.value.message and e.value.exit_code == 3


def test_offsets_equal_the_java_admins(protodouble):
    double = protodouble(scenario())
    groups = ["orders-share", "idle-share", "loading-once", "nobody"]
    java = admin_probe(double.bootstrap, "listShareGroupOffsets", *groups)["groups"]
    double.scenario.groups[3].errors_times = 2
    with _cluster(double) as cluster:
        ours = cluster.share_group_offsets({g: None for g in groups})
    assert {g: _as_java_offsets(o) for g, o in ours.items()} == java
    p = ours["orders-share"].partitions
    assert ours["orders-share"].lag_reported
    assert [tuple(p[tp])[:4] for tp in sorted(p)] == [(120, 3, 15, None), (40, 3, 0, None), (None, None, None, None),
                                                   (9, None, None, None)]
    assert ours["nobody"].partitions == {}  # no state, no error: as Kafka answers


def test_a_v0_broker_reports_no_lag(protodouble):
    double = protodouble(scenario(v90=(0, 0)))
    java = admin_probe(double.bootstrap, "listShareGroupOffsets", "orders-share")["groups"]
    with _cluster(double) as cluster:
        ours = cluster.share_group_offsets({"orders-share": None})
    assert {g: _as_java_offsets(o) for g, o in ours.items()} == java
    assert not ours["orders-share"].lag_reported
    assert {tp: v.lag for tp, v in ours["orders-share"].partitions.items()} == {tp: None for tp in SHARE_OFFSETS}
    assert {r.api_version for _, r in double.asked(90)} == {0}


def test_a_cluster_without_share_groups(protodouble):
    double = protodouble(scenario(v77=None, v90=None))
    java = admin_probe(double.bootstrap, "describeShareGroups", "orders-share")["groups"]
    assert java["orders-share"]["error"]["class"] == "UnsupportedVersionException"
    with _cluster(double) as cluster:
        with pytest.raises(NotSupported) as e:
            cluster.describe_share_groups(["orders-share"])
        assert "ShareGroupDescribe" in e.value.message and e.value.exit_code == 3
        assert cluster.share_groups_among(["orders-share"]) == ({}, None)


def test_own_client_turned_off_is_said():
    cluster = Cluster(ConnectionSettings({"bootstrap.servers": "127.0.0.1:1"}, batched=False))
    with pytest.raises(KgroupError) as e:
        cluster.describe_share_groups(["s"])
    assert e.value.exit_code == 2 and "kgroup.batched=false" in e.value.message
    assert not isinstance(e.value, UnknownGroup)


# -- the commands ---------------------------------------------------------------

def _kgroup(*args):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "kgroup", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_describe_a_share_group(protodouble):
    double = protodouble(scenario())
    out = _kgroup("describe", "-b", double.bootstrap, "orders-share", "-o", "json")
    assert out.returncode == 0, out.stderr
    validate("describe", json.loads(out.stdout))
    (g,) = json.loads(out.stdout)["groups"]
    assert (g["type"], g["state"], g["assignor"], g["group_epoch"], g["assignment_epoch"], g["member_count"]) == (
        "share", "Stable", "simple", 12, 11, 2)
    assert [(m["member_id"], m["rack"], m["member_epoch"], m["subscription"], m["assignment"]) for m in g["members"]] == [
        ("m-a", None, 6, ["orders", "refunds"], {"orders": [0], "refunds": [0]}),
        ("m-b", "rack-1", 7, ["orders"], {"orders": [0, 1, 2]})]
    table = _kgroup("describe", "-b", double.bootstrap, "orders-share")
    assert table.returncode == 0, table.stderr
    assert "type=share" in table.stdout and "group-epoch=12  assignment-epoch=11" in table.stdout
    assert "MEMBER-EPOCH" in table.stdout and "rack-1" in table.stdout


def test_offsets_of_a_share_group(protodouble):
    double = protodouble(scenario())
    out = _kgroup("offsets", "-b", double.bootstrap, "orders-share", "-o", "json")
    # orders-2 has no start offset and refunds-0 no lag: unknown, so INCOMPLETE
    assert out.returncode == 3, out.stderr
    validate("offsets", json.loads(out.stdout))
    (g,) = json.loads(out.stdout)["groups"]
    assert [(p["topic"], p["partition"], p["start_offset"], p["leader_epoch"], p["lag"], p["members"])
            for p in g["partitions"]] == [
        ("orders", 0, 120, 3, 15, ["m-a", "m-b"]), ("orders", 1, 40, 3, 0, ["m-b"]),
        ("orders", 2, None, None, None, ["m-b"]), ("refunds", 0, 9, None, None, ["m-a"])]
    assert g["total_lag"] is None and "INCOMPLETE" in out.stderr and "refunds-0" in out.stderr


def test_offsets_lag_above_on_a_share_group(protodouble):
    double = protodouble(scenario())
    double.scenario.groups[0].share_offsets = {("orders", 0): {"startOffset": 120, "leaderEpoch": 3, "lag": 15},
                                               ("orders", 1): {"startOffset": 40, "leaderEpoch": 3, "lag": 0}}
    over = _kgroup("offsets", "-b", double.bootstrap, "orders-share", "--lag-above", "10")
    assert over.returncode == 1, over.stderr
    assert "lag above 10 on 1 partition(s): orders-share orders-0 (15)" in over.stderr
    assert "total lag 15" in over.stdout
    ok = _kgroup("offsets", "-b", double.bootstrap, "orders-share", "--lag-above", "15")
    assert ok.returncode == 0, ok.stderr


def test_offsets_on_a_v0_broker_without_a_readable_state_topic_is_incomplete(protodouble):
    """A 4.1 broker reports no lag; kgroup's own needs __share_group_state, which this cluster does
    not have: every lag unknown, said why, INCOMPLETE (exit 3) also with --lag-above."""
    double = protodouble(scenario(v90=(0, 0)))
    out = _kgroup("offsets", "-b", double.bootstrap, "orders-share", "--lag-above", "1000")
    assert out.returncode == 3
    assert ("orders-share orders-0: the broker reports no lag (Kafka 4.1) and the share coordinator's state topic "
            "__share_group_state is not in the metadata, so kgroup cannot compute it") in out.stderr


def test_lag_of_a_share_group_is_the_now_table(protodouble):
    double = protodouble(scenario())
    double.scenario.groups[0].share_offsets = {("orders", 0): {"startOffset": 120, "leaderEpoch": 3, "lag": 15}}
    out = _kgroup("lag", "-b", double.bootstrap, "orders-share", "-o", "json")
    assert out.returncode == 0, out.stderr
    validate("lag", json.loads(out.stdout))
    (g,) = json.loads(out.stdout)["groups"]
    assert (g["type"], g["total_lag"], [(p["topic"], p["partition"], p["lag"]) for p in g["partitions"]]) == (
        "share", 15, [("orders", 0, 15)])
    assert "share groups commit nothing to the offsets log" in out.stderr
    refused = _kgroup("lag", "-b", double.bootstrap, "orders-share", "--watch", "5")
    assert refused.returncode == 2 and "--watch does not apply" in refused.stderr


@pytest.mark.parametrize("coordinator", [0, 1])
def test_find_coordinator_share_state_online(protodouble, coordinator):
    from kgroup.group.hashing import share_state_partition_for
    from protodouble import topic_id

    s = scenario()
    s.topics["__share_group_state"] = 50  # the double's leaders go round robin: partition p on broker p % 2
    s.groups[0].coordinator = coordinator
    double = protodouble(s)
    out = _kgroup("find-coordinator", "-b", double.bootstrap, "orders-share", "--share-state", "orders:2", "-o", "json")
    partition = share_state_partition_for("orders-share", topic_id("orders"), 2, 50)
    validate("find-coordinator", json.loads(out.stdout))
    (r,) = json.loads(out.stdout)["share_partitions"]
    assert (r["state_partition"], r["state_partition_leader"]["id"], r["coordinator"]["id"]) == (
        partition, partition % 2, coordinator)
    assert r["verdict"] == ("agree" if partition % 2 == coordinator else "mismatch"), r
    assert out.returncode == 0, out.stderr
    # the key sent, as Kafka's SharePartitionKey spells it, with key type 2 (v6)
    (key,) = [k for _, req in double.asked(10) if req.body.get("keyType") == 2 for k in req.body["coordinatorKeys"]]
    assert key == f"orders-share:{topic_id('orders')}:2"
    assert {req.api_version for _, req in double.asked(10) if req.body.get("keyType") == 2} == {6}


def test_find_coordinator_of_a_share_group(protodouble):
    double = protodouble(scenario())
    out = _kgroup("find-coordinator", "-b", double.bootstrap, "orders-share", "-o", "json")
    assert out.returncode == 0, out.stderr
    (g,) = json.loads(out.stdout)["groups"]
    assert g["coordinator"]["id"] == 1  # the scenario's coordinator of orders-share


def test_whatif_of_a_share_group(protodouble):
    """whatif on the live group: members, subscriptions and current assignment from ShareGroupDescribe,
    topic ids from the metadata. Removing m-b leaves m-a alone on orders (3 partitions) and refunds (1):
    a heterogeneous group (m-b subscribed to less), so topic by topic each of the one subscriber's
    partitions goes to it: m-a keeps orders-0 and refunds-0 and takes orders-1 and orders-2 from m-b."""
    double = protodouble(scenario())
    out = _kgroup("whatif", "-b", double.bootstrap, "orders-share", "--remove", "m-b", "-o", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    validate("whatif", doc)
    (s,) = doc["strategies"]
    assert s["strategy"] == "simple" and s["completes"] is True
    assert s["assignment"] == {"m-a": {"orders": [0, 1, 2], "refunds": [0]}}
    assert doc["current"] == {"m-a": {"orders": [0], "refunds": [0]}, "m-b": {"orders": [0, 1, 2]}}
    # orders-0 was shared by both: m-b's share of it goes to nobody; 1 and 2 go from m-b to m-a
    assert s["moves"] == [{"topic": "orders", "partition": 0, "from": "m-b", "to": None},
                          {"topic": "orders", "partition": 1, "from": "m-b", "to": "m-a"},
                          {"topic": "orders", "partition": 2, "from": "m-b", "to": "m-a"}]
    table = _kgroup("whatif", "-b", double.bootstrap, "orders-share", "--remove", "m-b")
    assert table.returncode == 0, table.stderr
    assert "[simple] 2 partition(s) move" in table.stdout
    refused = _kgroup("whatif", "-b", double.bootstrap, "orders-share", "-s", "uniform")
    assert refused.returncode == 2 and "does not assign group orders-share (a share group)" in refused.stderr


def test_whatif_from_a_snapshot_of_a_share_group_answers_as_live(protodouble, tmp_path):
    """kgroup snapshot SG keeps what the share group's assignor depends on (members in order, their
    subscriptions, assignments in the broker's order, topic ids): whatif on the file answers as live."""
    double = protodouble(scenario())
    snap = tmp_path / "sg.json"
    out = _kgroup("snapshot", "-b", double.bootstrap, "orders-share", "--out", str(snap))
    assert out.returncode == 0, out.stderr
    doc = json.loads(snap.read_text())
    assert doc["group"]["type"] == "share"
    assert [m["assignment"] for m in doc["group"]["members"]] == [{"orders": [2, 0, 1]},
                                                                  {"orders": [0], "refunds": [0]}]
    assert all(t.get("topic_id") for t in doc["cluster"]["topics"].values())
    for change in (["--remove", "m-a"], ["--add", "m-c"], ["--partitions", "refunds=4"]):
        live = _kgroup("whatif", "-b", double.bootstrap, "orders-share", *change, "-o", "json")
        offline = _kgroup("whatif", "--snapshot", str(snap), *change, "-o", "json")
        assert live.returncode == offline.returncode == 0, (live.stderr, offline.stderr)
        assert json.loads(live.stdout)["strategies"] == json.loads(offline.stdout)["strategies"]


def test_other_groups_cost_no_share_request(protodouble):
    """offsets and describe of a consumer group ask nothing of share groups (no ShareGroupDescribe,
    no DescribeShareGroupOffsets): share groups are looked for only where librdkafka does not know
    the group. A share group named is answered through them."""
    double = protodouble(scenario())
    for args in (["offsets", "kip848-app"], ["describe", "kip848-app"]):
        out = _kgroup(*args, "-b", double.bootstrap)
        assert out.returncode == 0, out.stderr
    assert double.asked(77) == [] and double.asked(90) == []
    out = _kgroup("offsets", "orders-share", "-b", double.bootstrap, "-o", "json")
    assert out.returncode == 3 and json.loads(out.stdout)["groups"][0]["type"] == "share"
    assert len(double.asked(77)) == 1 and len(double.asked(90)) == 1
    out = _kgroup("lag", "orders-share", "-b", double.bootstrap, "-o", "json")
    assert out.returncode == 3 and json.loads(out.stdout)["groups"][0]["partitions"][0]["lag"] == 15


def test_report_of_a_share_group(protodouble, tmp_path):
    """kgroup report SG: the share group's records from a saved offsets log (it commits nothing, so
    there is no lag over time, and the page says why), the group now from the cluster: its members
    and the broker's lag per partition (orders-0: 15, orders-1: 0; the others unknown: INCOMPLETE)."""
    import time

    from logbuilder import Log

    from kgroup.offsets_log.raw import write_jsonl

    double = protodouble(scenario())
    now = int(time.time() * 1000)
    log = Log()
    log.add("orders-share", now - 3_600_000, 10, {"groupId": "orders-share", "memberId": "m-a"}, 0,
            {"clientId": "worker-a", "clientHost": "/10.0.0.1", "subscribedTopicNames": ["orders", "refunds"]})
    log.add("orders-share", now - 3_600_000, 11, {"groupId": "orders-share"}, 0, {"epoch": 12, "metadataHash": 0})
    saved = tmp_path / "log.jsonl"
    with open(saved, "w") as f:
        write_jsonl(log.records, f)
    page = tmp_path / "sg.html"
    out = _kgroup("report", "orders-share", "--input", str(saved), "-b", double.bootstrap, "--since", "2h",
                  "--out", str(page), "-o", "json")
    assert out.returncode == 3, out.stderr  # two partitions' lag unknown
    doc = json.loads(out.stdout)
    validate("report", doc)
    assert doc["lag"] is None and "is a share group: it commits nothing" in doc["lag_unavailable"]
    now_doc = doc["now"]
    assert now_doc["describe"]["type"] == "share" and now_doc["describe"]["member_count"] == 2
    assert [(p["topic"], p["partition"], p["lag"]) for p in now_doc["offsets"]["partitions"]] == [
        ("orders", 0, 15), ("orders", 1, 0), ("orders", 2, None), ("refunds", 0, None)]
    assert "Traceback" not in out.stderr
    from browser import assert_reads_at, open_page

    with open_page(page) as shown:  # in headless Chromium, the network off
        assert shown.errors == []
        text = shown.js("return document.body.innerText")
        assert "No lag: group orders-share is a share group: it commits nothing to the offsets log" in text
        rows = shown.js("return Array.from(document.querySelectorAll('#kgroup-offsets tbody tr'))"
                        ".map(r => Array.from(r.cells).map(c => c.innerText))")
        assert [r[:5] for r in rows] == [["orders", "0", "120", "3", "15"], ["orders", "1", "40", "3", "0"],
                                         ["orders", "2", "-", "-", "-"], ["refunds", "0", "9", "-", "-"]]
        assert "never committed" not in text  # a share group commits nothing: nothing to say "not known" of
        assert_reads_at(shown, 390)


@pytest.fixture
def own_tansu():
    """A Tansu of this test's own: it gets a __share_group_state topic, which the other tests' broker
    must not have."""
    from brokers import start_tansu, stop_process

    proc, bootstrap = start_tansu()
    try:
        yield bootstrap
    finally:
        stop_process(proc)


def test_a_41_brokers_lag_is_computed_from_the_share_state(protodouble, own_tansu):
    """A Kafka 4.1 broker answers DescribeShareGroupOffsets at v0 (no lag). kgroup finds each share
    partition's state in __share_group_state (Kafka's hash of group, topic id, partition), replays it
    and computes the lag as Kafka 4.2+ does. The double answers for the group; its Fetch and
    ListOffsets are passed to a real broker (Tansu) holding the topics and the state records.
    Expected, by hand: T-0 ends at 200; its snapshot starts at 120 with 120-129 acknowledged,
    130-139 available, 140-149 archived; an update acknowledges 130-134 (it wins those offsets: a
    higher state at the same delivery count), so 25 records past the start are delivered to the end:
    lag 200 - 120 - 25 = 55. T-1 ends at 50, starts at 40 with nothing delivered: 10. T-2 has no start
    offset: unknown. U-0 ends at 20 but its state is at another start offset than the broker's (the
    state moved between the reads): unknown, said."""
    import uuid

    from confluent_kafka import Producer
    from protodouble import topic_id
    from seed import create_topics

    from kgroup.group.hashing import share_state_partition_for
    from kgroup.offsets_log.records import encode_share_state
    from kgroup.offsets_log.share_state import ACKNOWLEDGED, ARCHIVED, AVAILABLE

    suffix = uuid.uuid4().hex[:8]
    t, u, state_topic, group = f"sg-t-{suffix}", f"sg-u-{suffix}", "__share_group_state", f"sg-{suffix}"
    state_partitions = 5
    create_topics(own_tansu, {t: 3, u: 1, state_topic: state_partitions})
    # one record per batch: Tansu answers ListOffsets latest with a batch's base offset + 1
    producer = Producer({"bootstrap.servers": own_tansu, "linger.ms": 0, "batch.num.messages": 1})
    for topic, partition, n in ((t, 0, 200), (t, 1, 50), (u, 0, 20)):
        for _ in range(n):
            producer.produce(topic, value=b"x", partition=partition)

    def state(type_id, partition_topic, p, value):
        tid = topic_id(partition_topic)
        k, v = encode_share_state(type_id, {"groupId": group, "topicId": tid, "partition": p}, 0, value)
        producer.produce(state_topic, key=k, value=v,
                         partition=share_state_partition_for(group, tid, p, state_partitions))

    def batch(first, last, count, st):
        return {"firstOffset": first, "lastOffset": last, "deliveryState": st, "deliveryCount": count}

    state(0, t, 0, {"snapshotEpoch": 1, "stateEpoch": 1, "leaderEpoch": 3, "startOffset": 120,
                    "createTimestamp": 1, "writeTimestamp": 1,
                    "stateBatches": [batch(120, 129, 1, ACKNOWLEDGED), batch(130, 139, 2, AVAILABLE),
                                     batch(140, 149, 5, ARCHIVED)]})
    state(1, t, 0, {"snapshotEpoch": 1, "leaderEpoch": -1, "startOffset": -1,
                    "stateBatches": [batch(130, 134, 2, ACKNOWLEDGED)]})
    state(0, t, 1, {"snapshotEpoch": 1, "stateEpoch": 1, "leaderEpoch": 3, "startOffset": 40,
                    "createTimestamp": 1, "writeTimestamp": 1, "stateBatches": []})
    state(0, u, 0, {"snapshotEpoch": 1, "stateEpoch": 1, "leaderEpoch": 0, "startOffset": 7,
                    "createTimestamp": 1, "writeTimestamp": 1, "stateBatches": []})
    assert producer.flush(30) == 0

    members = [{"memberId": "m-a", "memberEpoch": 2, "clientId": "w", "clientHost": "/10.0.0.1",
                "subscribedTopicNames": [t, u],
                "assignment": {"topicPartitions": [{"topicId": topic_id(t), "topicName": t, "partitions": [0, 1, 2]},
                                                   {"topicId": topic_id(u), "topicName": u, "partitions": [0]}]}}]
    offsets = {(t, 0): {"startOffset": 120, "leaderEpoch": 3}, (t, 1): {"startOffset": 40, "leaderEpoch": 3},
               (t, 2): {"startOffset": -1, "leaderEpoch": 0}, (u, 0): {"startOffset": 9, "leaderEpoch": 0}}
    host, port = own_tansu.rsplit(":", 1)
    double = protodouble(Scenario(
        groups=[Group(group, "share", "Stable", description={"groupEpoch": 2, "assignmentEpoch": 2, "members": members},
                      share_offsets=offsets)],
        topics={t: 3, u: 1, state_topic: state_partitions}, versions={90: (0, 0)},
        relay=(host, int(port)), relay_keys={0: (3, 9), 1: (4, 12), 2: (1, 7)}))
    out = _kgroup("offsets", group, "-b", double.bootstrap, "-o", "json")
    assert out.returncode == 3, out.stderr  # T-2 and U-0 unknown: INCOMPLETE
    doc = json.loads(out.stdout)
    validate("offsets", doc)
    (g,) = doc["groups"]
    assert g["lag_reported"] is False
    assert [(p["topic"], p["partition"], p["start_offset"], p["lag"], p["lag_source"]) for p in g["partitions"]] == [
        (t, 0, 120, 55, "share-state"), (t, 1, 40, 10, "share-state"), (t, 2, None, None, None),
        (u, 0, 9, None, None)]
    assert f"{group} {u}-0: the broker reports no lag (Kafka 4.1); its start offset 9 is not the one of " \
           f"__share_group_state (7)" in out.stderr
    table = _kgroup("offsets", group, "-b", double.bootstrap)
    assert "kgroup's own from __share_group_state" in table.stdout


def test_all_groups_include_the_share_groups(protodouble):
    """--all-groups: librdkafka lists no share group; kgroup asks ListGroups v5 for them (type filter
    share) and answers for them as when named: offsets (start offsets and the broker's lag) and
    describe. -o csv leaves them out and says so (their columns differ)."""
    sc = scenario()
    sc.groups = [g for g in sc.groups if g.group_id != "loading"]  # one that never loads fails the describe
    double = protodouble(sc)
    out = _kgroup("offsets", "--all-groups", "-b", double.bootstrap, "-o", "json")
    assert out.returncode == 3, out.stderr  # orders-share has unknown lags
    doc = json.loads(out.stdout)
    validate("offsets", doc)
    assert sorted((g["group"], g.get("type")) for g in doc["groups"]) == [
        ("idle-share", "share"), ("kip848-app", None), ("loading-once", "share"), ("orders-share", "share")]
    lags = {g["group"]: g["total_lag"] for g in doc["groups"]}
    assert lags["loading-once"] == 2 and lags["idle-share"] == 0 and lags["orders-share"] is None
    described = _kgroup("describe", "--all-groups", "-b", double.bootstrap, "-o", "json")
    assert described.returncode == 0, described.stderr
    types = {g["group"]: g["type"] for g in json.loads(described.stdout)["groups"]}
    assert types == {"idle-share": "share", "kip848-app": "consumer", "loading-once": "share", "orders-share": "share"}
    csv = _kgroup("offsets", "--all-groups", "-b", double.bootstrap, "-o", "csv")
    assert csv.returncode == 0 and "share groups are left out" in csv.stderr
    assert "orders-share" not in csv.stdout


def test_all_groups_with_a_share_group_that_cannot_be_described_is_incomplete(protodouble):
    """A listed share group whose coordinator stays loading until --timeout: the share groups that
    could not be described are named and the answer is INCOMPLETE (exit 3); the other groups are
    still answered."""
    double = protodouble(scenario())
    out = _kgroup("offsets", "--all-groups", "-b", double.bootstrap, "--timeout", "3", "-o", "json")
    assert out.returncode == 3, out.stderr
    assert [g["group"] for g in json.loads(out.stdout)["groups"]] == ["kip848-app"]
    assert "could not be described" in out.stderr and "loading" in out.stderr and "INCOMPLETE" in out.stderr
    described = _kgroup("describe", "--all-groups", "-b", double.bootstrap, "--timeout", "3")
    assert described.returncode == 3 and "could not be described" in described.stderr
