"""find-coordinator as a user runs it without a cluster: offline, from a snapshot, usage errors and
an unreachable bootstrap (against Tansu and the mock cluster: tests/integration/test_find_coordinator_live.py)."""
from __future__ import annotations

import json

import pytest
from conftest import ROOT, run_kgroup

from cli.test_describe import SEED, _write


def test_offline_json_matches_java_partitions():
    r = run_kgroup("find-coordinator", "--offline", "--offsets-partitions", "50", "-o", "json", "--",
                   "G1", "polygenelubricants", "订单消费组", "🚀-group")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    # partitions printed by Java: Utils.abs(s.hashCode()) % 50
    assert [(g["group"], g["offsets_partition"]) for g in doc["groups"]] == [
        ("G1", 0), ("polygenelubricants", 0), ("订单消费组", 14), ("🚀-group", 29)]
    assert all(g["verdict"] == "offline" and g["offsets_partitions"] == 50 for g in doc["groups"])
    assert all(g["offsets_partition_leader"] is None and g["coordinator"] is None for g in doc["groups"])
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


def test_find_coordinator_from_snapshot(tmp_path):
    doc = json.loads(json.dumps(SEED))
    doc["cluster"]["brokers"].append({"id": 2, "host": "b2", "port": 9092})
    doc["group"]["offsets_partition_leader"] = 2
    r = run_kgroup("find-coordinator", "--snapshot", _write(tmp_path, doc), "-o", "json")
    (g,) = json.loads(r.stdout)["groups"]
    # "G1".hashCode() = 2250 -> partition 0 of 50; coordinator 1 but leader 2 was recorded
    assert (g["offsets_partition"], g["verdict"], g["coordinator"]["id"], g["offsets_partition_leader"]["id"]) == \
        (0, "mismatch", 1, 2)
    r = run_kgroup("find-coordinator", "--snapshot", _write(tmp_path, SEED), "-o", "json")
    (g,) = json.loads(r.stdout)["groups"]
    assert g["verdict"] == "unverified" and "offsets partition leader" in g["reason"]


def test_find_coordinator_from_a_snapshot_does_not_claim_zero_partitions_led():
    r = run_kgroup("find-coordinator", "--snapshot", "examples/seed-g1.json", "-o", "json")
    doc = json.loads(r.stdout)
    assert doc["groups"][0]["offsets_partition_leader"]["id"] == 1
    assert doc["brokers"] == [{"id": 1, "host": "b1", "port": 9092, "group_count": 1, "offsets_partitions_led": None,
                               "hot": False}]


def test_offsets_partitions_led_is_unknown_without_the_offsets_topic():
    r = run_kgroup("find-coordinator", "--snapshot", str(ROOT / "examples" / "seed-g1.json"), "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    (report,) = doc["groups"]
    (broker,) = doc["brokers"]
    # the snapshot records that broker 1 leads G1's offsets partition, not how many it leads
    assert report["offsets_partition_leader"]["id"] == broker["id"] == 1
    assert broker["offsets_partitions_led"] is None


def test_share_state_offline_by_topic_id_and_by_name_with_topic_id():
    """Values printed by tests/java/HashDriver.java (kafka-clients' Uuid, String.hashCode, Utils.abs):
    SG1:AAAAAAAAAAAAAAAAAAAAAQ:3 hashes to -1881214682, partition 32 of 50, 9 of 13."""
    r = run_kgroup("find-coordinator", "--offline", "--share-state-partitions", "13", "-o", "json", "SG1",
                   "--share-state", "AAAAAAAAAAAAAAAAAAAAAQ==:3")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert json.loads(r.stdout) == {"share_partitions": [{
        "group": "SG1", "topic": None, "topic_id": "AAAAAAAAAAAAAAAAAAAAAQ", "partition": 3,
        "coordinator_key": "SG1:AAAAAAAAAAAAAAAAAAAAAQ:3", "state_partition": 9, "state_partitions": 13,
        "state_partition_leader": None, "coordinator": None, "verdict": "offline", "reason": "computed without a cluster"}],
        "state_topic": "__share_group_state", "state_topic_present": None}
    r = run_kgroup("find-coordinator", "--offline", "-o", "csv", "SG1", "share-orders",
                   "--share-state", "orders:3", "--topic-id", "AAAAAAAAAAAAAAAAAAAAAQ")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ["SG1,orders,AAAAAAAAAAAAAAAAAAAAAQ,3,32/50,,,offline,computed without a cluster",
                                         "share-orders,orders,AAAAAAAAAAAAAAAAAAAAAQ,3,"
                                         f"{_p('share-orders', 'AAAAAAAAAAAAAAAAAAAAAQ', 3)}/50,,,offline,"
                                         "computed without a cluster"]
    assert r.stderr.strip() == "kgroup: warning: --offline without --share-state-partitions: assuming 50 (Kafka's default)"


def _p(group: str, topic_id: str, partition: int) -> int:
    # by hand from the key's String.hashCode (h = 31*h + c over UTF-16 units, 32-bit): independent of kgroup
    h = 0
    units = f"{group}:{topic_id}:{partition}".encode("utf-16-be")
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i:i + 2], "big")) & 0xFFFFFFFF
    h = h - 2**32 if h >= 2**31 else h
    return (0 if h == -2**31 else abs(h)) % 50


@pytest.mark.parametrize("args,needle", [
    (["--offline", "SG1", "--share-state", "orders:1"], "--offline needs the topic's id"),
    (["--offline", "SG1", "--share-state", "orders"], "expected TOPIC:PARTITION"),
    (["--offline", "SG1", "--share-state", "orders:-1"], "expected TOPIC:PARTITION"),
    (["--offline", "SG1", "--share-state", "orders:2147483648"], "expected TOPIC:PARTITION"),
    (["--offline", "--share-state", "AAAAAAAAAAAAAAAAAAAAAQ:1"], "needs the share group"),
    (["--offline", "SG1", "--share-state", "a:1", "--topic-id", "nope"], "--topic-id: not a Kafka topic id"),
    (["--offline", "SG1", "--share-state", "a:1", "--share-state", "b:1", "--topic-id", "AAAAAAAAAAAAAAAAAAAAAQ"],
     "--topic-id names the topic of one"),
    (["--offline", "SG1", "--topic-id", "AAAAAAAAAAAAAAAAAAAAAQ"], "go with --share-state"),
    (["--offline", "SG1", "--share-state", "AAAAAAAAAAAAAAAAAAAAAQ:1", "--offsets-partitions", "3"],
     "cannot be combined"),
    (["--offline", "SG1", "--share-state", "AAAAAAAAAAAAAAAAAAAAAQ:1", "--share-state-partitions", "0"],
     "--share-state-partitions"),
])
def test_share_state_bad_usage_exits_2_with_one_line(args, needle):
    r = run_kgroup("find-coordinator", *args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert needle in r.stderr and "Traceback" not in r.stderr and r.stdout == ""
