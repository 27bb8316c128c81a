"""find-coordinator as a user runs it: offline, against Tansu, against the mock cluster."""
from __future__ import annotations

import json

import pytest
from conftest import run_kgroup


def test_offline_json_matches_java_partitions():
    r = run_kgroup("find-coordinator", "--offline", "--offsets-partitions", "50", "-o", "json", "--",
                   "G1", "polygenelubricants", "订单消费组", "🚀-group")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    # partitions printed by Java: Utils.abs(s.hashCode()) % 50
    assert [(g["group"], g["offsets_partition"]) for g in doc["groups"]] == [
        ("G1", 0), ("polygenelubricants", 0), ("订单消费组", 14), ("🚀-group", 29)]
    assert all(g["verdict"] == "offline" and g["offsets_partitions"] == 50 for g in doc["groups"])
    assert all(g["partition_leader"] is None and g["coordinator"] is None for g in doc["groups"])
    assert doc["brokers"] == []
    assert r.stderr == ""


def test_offline_csv_and_table():
    r = run_kgroup("find-coordinator", "--offline", "--offsets-partitions", "7", "-o", "csv", "GROUPS")
    assert r.stdout.splitlines() == [
        "group,partition,leader,coordinator,verdict,reason",
        "GROUPS,5/7,,,offline,computed without a cluster"]
    r = run_kgroup("find-coordinator", "--offline", "--offsets-partitions", "7", "GROUPS")
    assert "GROUPS" in r.stdout and "5/7" in r.stdout and "offline" in r.stdout


def test_offline_without_partition_count_warns_on_stderr():
    r = run_kgroup("find-coordinator", "--offline", "-o", "json", "G1")
    assert r.returncode == 0
    assert json.loads(r.stdout)["groups"][0]["offsets_partitions"] == 50
    assert "assuming 50" in r.stderr


@pytest.mark.parametrize("args,needle", [
    (["find-coordinator", "--no-such-option", "G1"], "No such option"),
    (["find-coordinator", "-b", "127.0.0.1:9", "--command-config", "/nonexistent/file.properties", "G1"],
     "cannot read --command-config"),
    (["find-coordinator", "--offline", "--offsets-partitions", "0", "G1"], "--offsets-partitions"),
    (["find-coordinator"], "name at least one GROUP"),
    (["find-coordinator", "G1"], "no bootstrap server"),
    (["find-coordinator", "-b", "127.0.0.1:9", "-X", "no.such.property=1", "G1"], "no.such.property"),
    (["find-coordinator", "-b", "127.0.0.1:9", "-X", "novalue", "G1"], "key=value"),
])
def test_bad_usage_exits_2_with_one_line(args, needle):
    r = run_kgroup(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert needle in r.stderr
    assert "Traceback" not in r.stderr
    assert r.stdout == ""


def test_unreachable_exits_3_within_timeout(tmp_path):
    from conftest import free_port

    port = free_port()  # nothing listens there
    r = run_kgroup("find-coordinator", "-b", f"127.0.0.1:{port}", "--timeout", "2", "G1")
    assert r.returncode == 3
    assert r.seconds < 2 + 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgroup: error: cannot reach the cluster")
    assert r.stdout == ""


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
    assert g["partition_leader"] is None
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
        assert g["partition_leader"] == {"id": leader_id, "host": host, "port": port}
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
    counts = {b["id"]: b["groups"] for b in doc["brokers"]}
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


def test_help_and_offline_commands_do_not_import_confluent_kafka():
    import subprocess
    import sys

    code = ("import sys\nfrom kgroup.cli import app\n"
            "for argv in (['--help'], ['find-coordinator', '--help'], "
            "['find-coordinator', '--offline', '--offsets-partitions', '3', 'G1'], "
            "['describe', '--snapshot', 'examples/seed-g1.json'], ['offsets', '--snapshot', 'examples/seed-g1.json'], "
            "['whatif', '--snapshot', 'examples/seed-g1.json', '--remove', 'C3'], "
            "['find-coordinator', '--snapshot', 'examples/seed-g1.json'], ['vote', '-m', 'a=range'], "
            "['log', '--input', 'examples/offsets-log-g1.jsonl'], "
            "['history', 'G1', '--input', 'examples/offsets-log-g1.jsonl'], "
            "['snapshot', 'G1', '--at', '1763780061500', '--input', 'examples/offsets-log-g1.jsonl']):\n"
            "    sys.argv = ['kgroup', *argv]\n"
            "    try:\n        app()\n    except SystemExit:\n        pass\n"
            "print('LOADED' if 'confluent_kafka' in sys.modules else 'CLEAN', file=sys.stderr)\n")
    from conftest import ROOT

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.stderr.strip().endswith("CLEAN"), r.stderr


@pytest.mark.broker
def test_describe_on_a_cluster_without_describe_apis_exits_3(mock_cluster):
    # the mock cluster implements neither ConsumerGroupDescribe nor DescribeGroups
    r = run_kgroup("describe", "-b", mock_cluster.bootstrap, "G1")
    assert r.returncode == 3
    assert r.stderr.strip() == ("kgroup: error: cannot describe group G1: the cluster supports neither "
                                "ConsumerGroupDescribe nor DescribeGroups")
