"""Streams groups (KIP-1071) read by kgroup's own client from the protocol double (tests/protodouble.py,
answers written by Kafka 4.3's message classes), held to Kafka's own Java Admin client
(describeStreamsGroups) asked the same question of the same double, errors included; then the
commands on it, with values worked out by hand from the scenario."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from protodouble import Group, admin_probe, six_groups

from kgroup.kafka.cluster import Cluster
from kgroup.kafka.settings import ConnectionSettings
from kgroup.kafka.wire.streams_describe import StreamsDescribeError

pytestmark = [pytest.mark.java, pytest.mark.broker]


def _tasks(active, standby=None, warmup=None):
    return {k: [{"subtopologyId": s, "partitions": ps} for s, ps in (v or {}).items()]
            for k, v in (("activeTasks", active), ("standbyTasks", standby), ("warmupTasks", warmup))}


def _member(mid, process, active, standby=None, host="wc-a"):
    return {"memberId": mid, "memberEpoch": 5, "instanceId": None, "rackId": None, "clientId": f"client-{mid}",
            "clientHost": f"/10.0.0.{mid[-1]}", "topologyEpoch": 1, "processId": process,
            "userEndpoint": {"host": host, "port": 8080}, "clientTags": [{"key": "zone", "value": f"z{mid[-1]}"}],
            "taskOffsets": [], "taskEndOffsets": [],
            "assignment": _tasks(active, standby), "targetAssignment": _tasks(active, standby), "isClassic": False}


TOPOLOGY = {"epoch": 1, "subtopologies": [
    {"subtopologyId": "0", "sourceTopics": ["words"], "repartitionSinkTopics": ["wc-repartition"],
     "stateChangelogTopics": [], "repartitionSourceTopics": []},
    {"subtopologyId": "1", "sourceTopics": [], "repartitionSinkTopics": [],
     "stateChangelogTopics": [{"name": "wc-store-changelog", "partitions": 0, "replicationFactor": 0,
                               "topicConfigs": [{"key": "cleanup.policy", "value": "compact"}]}],
     "repartitionSourceTopics": [{"name": "wc-repartition", "partitions": 4, "replicationFactor": 1,
                                  "topicConfigs": []}]}]}
MEMBERS = [_member("m1", "p1", {"0": [0, 1], "1": [0, 1]}), _member("m2", "p2", {"0": [2, 3], "1": [2, 3]}, host="wc-b")]


def scenario():
    s = six_groups(brokers=2)
    s.groups = [g for g in s.groups if g.type != "streams"] + [
        Group("wordcount", "streams", "Stable", coordinator=1,
              description={"groupState": "stable", "groupEpoch": 5, "assignmentEpoch": 5, "topology": TOPOLOGY,
                           "members": MEMBERS},
              offsets={**{("words", p): 10 * (p + 1) for p in range(4)}, **{("wc-repartition", p): 5 for p in range(4)}})]
    s.topics = {"orders": 3, "words": 4, "wc-repartition": 4, "wc-store-changelog": 4}
    s.log_offsets = {**{("words", p): (0, 100) for p in range(4)}, **{("wc-repartition", p): (0, 50) for p in range(4)},
                     **{("wc-store-changelog", p): (10 * p, 1000) for p in range(4)}}
    return s


def _kgroup(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "kgroup", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def _as_java(d):
    """kgroup's description in the Java probe's terms (what both carry)."""
    def tasks(t):
        return {k: {s: sorted(ps) for s, ps in sorted(v.items()) if ps}
                for k, v in (("active", t.active), ("standby", t.standby), ("warmup", t.warmup))}
    return {"groupId": d.group_id, "state": d.state, "groupEpoch": d.group_epoch, "assignmentEpoch": d.assignment_epoch,
            "topologyEpoch": d.topology.epoch,
            "coordinator": {"id": d.coordinator.id, "host": d.coordinator.host, "port": d.coordinator.port},
            "subtopologies": [{"subtopologyId": s.subtopology_id, "sourceTopics": sorted(s.source_topics),
                               "repartitionSinkTopics": sorted(s.repartition_sink_topics),
                               "repartitionSourceTopics": {t.name: t.partitions for t in s.repartition_source_topics},
                               "stateChangelogTopics": {t.name: t.partitions for t in s.state_changelog_topics}}
                              for s in sorted(d.topology.subtopologies, key=lambda s: s.subtopology_id)],
            "members": [{"memberId": m.member_id, "memberEpoch": m.member_epoch, "instanceId": m.instance_id,
                         "rackId": m.rack_id, "clientId": m.client_id, "clientHost": m.client_host,
                         "processId": m.process_id,
                         "userEndpoint": None if m.user_endpoint is None else f"{m.user_endpoint[0]}:{m.user_endpoint[1]}",
                         "clientTags": dict(sorted(m.client_tags.items())), "assignment": tasks(m.assignment),
                         "targetAssignment": tasks(m.target_assignment)}
                        for m in sorted(d.members, key=lambda m: m.member_id)]}


def test_descriptions_equal_the_java_admins(protodouble):
    double = protodouble(scenario())
    groups = ["wordcount", "kip848-app", "nosuch"]
    java = admin_probe(double.bootstrap, "describeStreamsGroups", *groups)["groups"]
    with Cluster(ConnectionSettings({"bootstrap.servers": double.bootstrap}, timeout=8.0)) as cluster:
        ours = cluster.describe_streams_groups(groups)
    assert _as_java(ours["wordcount"]) == java["wordcount"]
    # a group of another type, and none: GROUP_ID_NOT_FOUND for both (Admin: GroupIdNotFoundException)
    for g in ("kip848-app", "nosuch"):
        assert isinstance(ours[g], StreamsDescribeError) and ours[g].code == 69
        assert java[g]["error"]["class"] == "GroupIdNotFoundException"
    # and by hand: the coordinator the scenario names, the topology as given
    d = ours["wordcount"]
    assert (d.state, d.group_epoch, d.coordinator.id, [s.subtopology_id for s in d.topology.subtopologies]) == (
        "Stable", 5, 1, ["0", "1"])
    assert double.codec_errors == []


def test_describe_offsets_whatif_and_snapshot_of_a_streams_group(protodouble, tmp_path):
    double = protodouble(scenario())
    described = _kgroup("describe", "wordcount", "-b", double.bootstrap, "-o", "json")
    assert described.returncode == 0, described.stderr
    (g,) = json.loads(described.stdout)["groups"]
    assert (g["group"], g["type"], g["state"]) == ("wordcount", "streams", "Stable")
    assert sorted(m["process_id"] for m in g["members"]) == ["p1", "p2"]
    offsets = _kgroup("offsets", "wordcount", "-b", double.bootstrap, "-o", "json")
    assert offsets.returncode == 0, offsets.stderr
    doc = json.loads(offsets.stdout)
    (og,) = doc["groups"]
    # the committed offsets are the ones Kafka's Admin reads (listStreamsGroupOffsets) on the same double
    java = admin_probe(double.bootstrap, "listStreamsGroupOffsets", "wordcount")["groups"]["wordcount"]
    assert sorted((p["topic"], p["partition"], p["committed"]) for p in og["partitions"]) == [
        (r["topic"], r["partition"], r["offset"]) for r in java["partitions"]]
    lags = {(p["topic"], p["partition"]): p["lag"] for p in og["partitions"]}
    # words-p committed 10(p+1) of 100; wc-repartition-p committed 5 of 50
    assert lags == {**{("words", p): 100 - 10 * (p + 1) for p in range(4)},
                    **{("wc-repartition", p): 45 for p in range(4)}}
    whatif = _kgroup("whatif", "wordcount", "-b", double.bootstrap, "--remove-process", "p2", "-o", "json")
    assert whatif.returncode == 0, whatif.stderr
    w = json.loads(whatif.stdout)
    # p2 (m2) gone: m1 takes every task; of the moved ones, 1_2 and 1_3 are stateful and restored from
    # scratch: their changelog partitions hold 1000 - 20 and 1000 - 30 offsets
    assert w["removed"] == ["m2"]
    assert [(t["task"], t["from"], t["to"], t["to_restore"]) for t in w["moved_active_tasks"]] == [
        ("0_2", ["m2"], "m1", 0), ("0_3", ["m2"], "m1", 0), ("1_2", ["m2"], "m1", 980), ("1_3", ["m2"], "m1", 970)]
    assert w["to_restore_from_scratch"] == 1950
    snap = tmp_path / "wc.json"
    saved = _kgroup("snapshot", "wordcount", "-b", double.bootstrap, "--out", str(snap))
    assert saved.returncode == 0, saved.stderr
    offline = _kgroup("offsets", "--snapshot", str(snap), "-o", "json")
    assert offline.returncode == 0 and json.loads(offline.stdout)["groups"][0]["partitions"] == og["partitions"]


def test_other_groups_cost_no_streams_request(protodouble):
    """describe, offsets, snapshot and whatif of a consumer group send no StreamsGroupDescribe: streams
    groups are asked for only where the other groups' path does not know the group."""
    double = protodouble(scenario())
    for args in (["describe", "kip848-app"], ["offsets", "kip848-app"]):
        out = _kgroup(*args, "-b", double.bootstrap)
        assert out.returncode == 0, out.stderr
    assert double.asked(89) == []
    out = _kgroup("describe", "wordcount", "-b", double.bootstrap)
    assert out.returncode == 0, out.stderr
    assert len(double.asked(89)) >= 1
    unknown = _kgroup("describe", "nosuch", "-b", double.bootstrap)
    assert unknown.returncode == 2 and unknown.stderr.strip().splitlines()[-1].startswith("kgroup: error: unknown group nosuch")


def test_errors_as_the_java_admin_meets_them(protodouble):
    """A coordinator loading twice then answering: both retry and read the group; loading until the
    timeout: Admin times out, kgroup names the error (exit 3); a cluster without StreamsGroupDescribe:
    Admin's UnsupportedVersionException, kgroup asks nothing (no streams group there)."""
    from protodouble import COORDINATOR_LOAD_IN_PROGRESS

    from kgroup.errors import KgroupError

    s = scenario()
    (wc,) = [g for g in s.groups if g.group_id == "wordcount"]
    wc.errors, wc.errors_times = {"StreamsGroupDescribe": COORDINATOR_LOAD_IN_PROGRESS}, 2
    double = protodouble(s)
    java = admin_probe(double.bootstrap, "describeStreamsGroups", "wordcount")["groups"]
    wc.errors_times = 2  # the same once more for kgroup
    with Cluster(ConnectionSettings({"bootstrap.servers": double.bootstrap}, timeout=8.0)) as cluster:
        ours = cluster.describe_streams_groups(["wordcount"])
    assert _as_java(ours["wordcount"]) == java["wordcount"]

    wc.errors_times = None  # loading for good
    java = admin_probe(double.bootstrap, "describeStreamsGroups", "wordcount", timeout_ms=3000)["groups"]
    assert java["wordcount"]["error"]["class"] == "TimeoutException"
    out = _kgroup("describe", "wordcount", "-b", double.bootstrap, "--timeout", "3")
    assert out.returncode == 3 and "COORDINATOR_LOAD_IN_PROGRESS" in out.stderr, out.stderr

    s = scenario()
    s.versions = {89: None}
    bare = protodouble(s)
    java = admin_probe(bare.bootstrap, "describeStreamsGroups", "wordcount")["groups"]
    assert java["wordcount"]["error"]["class"] == "UnsupportedVersionException"
    with Cluster(ConnectionSettings({"bootstrap.servers": bare.bootstrap}, timeout=8.0)) as cluster:
        try:
            answer = cluster.describe_streams_groups(["wordcount"])
        except KgroupError as e:  # said, never a traceback
            answer = e.message
    assert not answer or "StreamsGroupDescribe" in str(answer)
    assert bare.asked(89) == []


def test_lag_names_the_member_running_each_partitions_task(protodouble):
    """lag --watch of a streams group: the lag of every committed input partition, and its owner the
    member holding the partition's task as active (words-0 and -1: tasks 0_0 and 0_1 of m1; the
    repartition topic's partitions: subtopology 1's tasks), not "nobody" as a group described Dead
    would read."""
    import signal

    double = protodouble(scenario())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-m", "kgroup", "lag", "wordcount", "--watch", "1", "-b", double.bootstrap],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        doc = json.loads(proc.stdout.readline())
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    assert doc["owners_unknown"] is None and doc["never_committed"] == []
    got = {(p["topic"], p["partition"]): (p["lag"], p["owner"]["member_id"]) for p in doc["partitions"]}
    assert got == {**{("words", p): (100 - 10 * (p + 1), "m1" if p < 2 else "m2") for p in range(4)},
                   **{("wc-repartition", p): (45, "m1" if p < 2 else "m2") for p in range(4)}}


def test_all_groups_include_the_streams_groups(protodouble):
    """--all-groups: librdkafka lists no streams group; kgroup lists them with ListGroups v5 (type
    filter streams) and shows their own tables after the others' (offsets: every input partition,
    lag 480 in all; describe: the topology and members); with -o json they are left out and said
    (their documents differ), never silently."""
    double = protodouble(scenario())
    r = _kgroup("offsets", "--all-groups", "-b", double.bootstrap)
    assert r.returncode == 0, r.stderr
    assert "group wordcount (Stable, streams): total lag 480" in r.stdout
    assert "group classic-app" in r.stdout  # the other groups are still there
    over = _kgroup("offsets", "--all-groups", "-b", double.bootstrap, "--lag-above", "50")
    assert over.returncode == 1, over.stderr
    assert "lag above 50 on 4 partition(s): wordcount words-0 (90)" in over.stderr
    described = _kgroup("describe", "--all-groups", "-b", double.bootstrap)
    assert described.returncode == 0, described.stderr
    assert "GROUP wordcount  type=streams  state=Stable" in described.stdout
    as_json = _kgroup("offsets", "--all-groups", "-b", double.bootstrap, "-o", "json")
    assert as_json.returncode == 0, as_json.stderr
    assert "wordcount" not in {g["group"] for g in json.loads(as_json.stdout)["groups"]}
    assert "streams group(s) wordcount left out" in as_json.stderr


def test_find_coordinator_all_groups_covers_every_type(protodouble):
    """find-coordinator --all-groups lists every group of every type (ListGroups v5): the streams,
    share and Kafka Connect groups librdkafka does not list too, each with the coordinator the
    scenario gives it (FindCoordinator; for the Connect group, which librdkafka's lookup refuses,
    the broker whose ListGroups listed it: the one coordinating it)."""
    s = scenario()
    double = protodouble(s)
    r = _kgroup("find-coordinator", "--all-groups", "-b", double.bootstrap, "-o", "json")
    assert r.returncode == 0, r.stderr
    got = {g["group"]: g["coordinator"]["id"] for g in json.loads(r.stdout)["groups"]}
    assert got == {g.group_id: g.coordinator for g in s.groups}
    assert {"wordcount", "orders-share", "connect-cluster"} <= set(got)
