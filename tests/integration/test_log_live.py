"""kgroup log / history / snapshot --at against a real broker (Tansu).

Tansu has no __consumer_offsets of its own (test-brokers.md): the records are built
by kgroup's writer, produced into an ordinary topic in multi-record batches (as
brokers store them) and read back with --offsets-topic. Reading live must give
exactly what reading the same records from a file gives, touch only the
partitions the named groups hash to, and leave nothing behind on the broker.
"""
from __future__ import annotations

import json
import uuid

import pytest
from conftest import ROOT, run_kgroup
from logbuilder import Log, produce
from unit.test_replay import scenario

from kgroup.offsets_log.raw import write_jsonl

pytestmark = pytest.mark.broker
PARTITIONS = 10


@pytest.fixture(scope="module")
def written(tansu, tmp_path_factory):
    log = scenario()
    # re-home the scenario onto a 10-partition log, plus noise in other partitions
    small = Log(partitions=PARTITIONS)
    from kgroup.offsets_log.records import decode

    for r in log.records:
        rec = decode(r.key, r.value)
        small.add(rec.group_id, r.timestamp, rec.type, rec.key, rec.version, rec.value)
    for i in range(300):
        small.commit(f"noise-{i}", "t", i % 3, i, 1763780000000 + i)
    topic = f"offsets-{uuid.uuid4().hex[:8]}"
    produce(tansu, topic, small)
    path = tmp_path_factory.mktemp("log") / "log.jsonl"
    with open(path, "w") as f:
        write_jsonl(small.records, f)
    return topic, path, small


def test_live_log_equals_the_same_records_from_a_file(tansu, written):
    topic, path, _ = written
    live = run_kgroup("log", "-b", tansu, "--offsets-topic", topic, "-o", "json")
    offline = run_kgroup("log", "--input", str(path), "-o", "json")
    assert live.returncode == 0 and offline.returncode == 0, live.stderr + offline.stderr
    key = lambda line: (json.loads(line)["partition"], json.loads(line)["offset"])  # noqa: E731
    assert sorted(live.stdout.splitlines(), key=key) == sorted(offline.stdout.splitlines(), key=key)
    assert len(live.stdout.splitlines()) == 315  # the 15 records of the scenario + 300 of noise


def test_a_group_reads_only_its_partition(tansu, written, tmp_path):
    topic, _, small = written
    saved = tmp_path / "saved.jsonl"
    r = run_kgroup("log", "G1", "-b", tansu, "--offsets-topic", topic, "--save", str(saved), "-o", "json")
    assert r.returncode == 0, r.stderr
    g1_partition = (71 * 31 + 49) % PARTITIONS  # "G1".hashCode() = 2250
    lines = [json.loads(x) for x in saved.read_text().splitlines()]
    assert {x["partition"] for x in lines} == {g1_partition}
    assert len(lines) == sum(1 for rec in small.records if rec.partition == g1_partition)
    shown = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(shown) == 14 and all(x["key"]["data"]["group"] == "G1" for x in shown)


def test_history_and_snapshot_at_live_equal_offline(tansu, written, tmp_path):
    topic, path, _ = written
    live = run_kgroup("history", "G1", "-b", tansu, "--offsets-topic", topic, "-o", "json")
    offline = run_kgroup("history", "G1", "--input", str(path), "-o", "json")
    assert live.returncode == 0, live.stderr
    assert json.loads(live.stdout) == json.loads(offline.stdout)
    at = str(1763780000000 + 61500)
    snap = run_kgroup("snapshot", "G1", "--at", at, "-b", tansu, "--offsets-topic", topic)
    assert snap.returncode == 0, snap.stderr
    doc = json.loads(snap.stdout)
    assert doc["group"]["generation"] == 2
    assert doc["cluster"]["offsets_partitions"] == PARTITIONS  # the partitions of the log read
    assert "today's, from the cluster" in snap.stderr


def test_reading_the_log_leaves_no_group_and_no_commit(tansu, written):
    from confluent_kafka.admin import AdminClient

    topic, path, _ = written
    admin = AdminClient({"bootstrap.servers": tansu})
    before = {g.group_id for g in admin.list_consumer_groups(request_timeout=10).result().valid}
    for args in (["log"], ["log", "G1"], ["history", "G1"], ["snapshot", "G1", "--at", "2h"]):
        r = run_kgroup(*args, "-b", tansu, "--offsets-topic", topic, "-o", "json")
        assert r.returncode == 0, (args, r.stderr)
        # the whole log was read: as many records (log) or documents as from the same records saved
        saved = run_kgroup(*args, "--input", str(path), "-o", "json")
        assert len(r.stdout.splitlines()) == len(saved.stdout.splitlines()) > 0, (args, r.stdout, saved.stdout)
    after = {g.group_id for g in admin.list_consumer_groups(request_timeout=10).result().valid}
    assert after == before and not any(g.startswith("kgroup") for g in after)


def test_missing_offsets_topic_is_one_line(tansu):
    r = run_kgroup("log", "-b", tansu, "--offsets-topic", "no-such-topic-here")
    assert r.returncode == 2 and "does not exist" in r.stderr and "Traceback" not in r.stderr


def test_follow_prints_new_records_until_interrupted(tansu, written):
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    from confluent_kafka import Producer

    from conftest import ROOT
    from kgroup.offsets_log.records import encode

    topic, _, small = written
    proc = subprocess.Popen([sys.executable, "-m", "kgroup", "log", "G1", "-b", tansu, "--offsets-topic", topic,
                             "--follow", "-o", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    received: list[str] = []
    threading.Thread(target=lambda: received.extend(iter(proc.stdout.readline, "")), daemon=True).start()

    def lines_until(n: int, deadline: float) -> list[str]:
        start = len(received)
        while len(received) - start < n and time.monotonic() < deadline:
            time.sleep(0.1)
        return received[start:]

    try:
        assert len(lines_until(14, time.monotonic() + 30)) == 14
        time.sleep(0.5)
        del received[:]
        key, value = encode(1, {"group": "G1", "topic": "Order", "partition": 5}, 3,
                            {"offset": 999, "leaderEpoch": -1, "metadata": "", "commitTimestamp": 1790000000000})
        p = Producer({"bootstrap.servers": tansu})
        p.produce(topic, key=key, value=value, partition=(71 * 31 + 49) % PARTITIONS)
        assert p.flush(10) == 0
        (line,) = lines_until(1, time.monotonic() + 20)
        assert json.loads(line)["value"]["data"]["offset"] == 999
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 130
        assert "kgroup: interrupted" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_follow_with_save_ended_by_ctrl_c_leaves_every_record_read_as_a_saved_log(tansu, written, tmp_path):
    """The way --follow ends is a Ctrl-C, which ends kgroup at once: the --save file still holds
    every record read (written each time the reader has caught up), in whole lines: the lines a
    --save without --follow writes (a process of its own: the signal)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from conftest import ROOT

    topic, _, _ = written
    saved, shown, whole = tmp_path / "saved.jsonl", tmp_path / "shown.jsonl", tmp_path / "whole.jsonl"
    r = run_kgroup("log", "-b", tansu, "--offsets-topic", topic, "--save", str(whole), "-o", "json")
    assert r.returncode == 0, r.stderr
    records = whole.read_text().count("\n")
    assert records >= 315  # the fixture's; a record more if the test that follows G1 ran first
    env = {k: v for k, v in os.environ.items() if k != "KGROUP_BOOTSTRAP_SERVERS"}
    with open(shown, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "kgroup", "log", "-b", tansu, "--offsets-topic", topic,
                                 "--follow", "--save", str(saved), "-o", "json"], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while shown.read_text().count("\n") < records and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.1)  # every record shown: the reader has caught up and follows
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130 and err == "kgroup: interrupted\n", err
    assert shown.read_text().count("\n") == records
    assert saved.read_text() == whole.read_text()


@pytest.mark.broker
def test_share_state_log_on_a_cluster_without_a_share_coordinator(tansu):
    """Tansu has no share coordinator: __share_group_state does not exist, and that is said in one line (exit 2)."""
    r = run_kgroup("log", "-b", tansu, "--type", "share-state")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == (f"kgroup: error: topic __share_group_state does not exist on the cluster at {tansu} "
                                "(no share coordinator has written state yet, or it is under another name: see "
                                "--share-state-topic)")


@pytest.mark.broker
def test_share_state_log_read_live_equals_the_saved_one(tansu, tmp_path):
    """examples/share-state-sg1.jsonl written into a topic of Tansu's (as the share coordinator would,
    partitions 13 and 14 of 50), read back live with --share-state-topic: the same records, the same
    replay as from the file; --save keeps them for --input."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from kgroup.offsets_log.saved import iter_saved

    topic = f"share-state-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic(topic, 50, 1)], request_timeout=10).values():
        f.result(15)
    example = str(ROOT / "examples" / "share-state-sg1.jsonl")
    p = Producer({"bootstrap.servers": tansu, "allow.auto.create.topics": False})
    for r in iter_saved(example, lambda *a: None, lambda m: None):
        p.produce(topic, key=r.key, value=r.value, partition=r.partition, timestamp=r.timestamp)
    assert p.flush(30) == 0
    saved = tmp_path / "state.jsonl"
    live = run_kgroup("log", "-b", tansu, "--type", "share-state", "--share-state-topic", topic, "-o", "json",
                      "--save", str(saved))
    assert live.returncode == 0, live.stderr
    offline = run_kgroup("log", "--input", example, "--type", "share-state", "-o", "json")
    assert live.stdout == offline.stdout and len(live.stdout.splitlines()) == 6
    replayed = run_kgroup("log", "--input", str(saved), "--type", "share-state", "--replay", "-o", "csv")
    assert replayed.stdout.splitlines()[1:] == ["SG1,0c2xzWoOQ7i7A7k2P3pqXA,0,105,105,1,archived,5,archived",
                                                "SG1,0c2xzWoOQ7i7A7k2P3pqXA,0,106,109,4,available,4,last-attempt"]
    # live, the limit is the brokers' group.share.delivery.count.limit where they report it; Tansu
    # reports no broker configuration, so Kafka's default is used and said
    live_replay = run_kgroup("log", "-b", tansu, "--type", "share-state", "--share-state-topic", topic, "--replay",
                             "-o", "csv")
    assert live_replay.returncode == 0, live_replay.stderr
    assert live_replay.stdout == replayed.stdout
    assert ("kgroup: delivery limit 5 (Kafka's default: the brokers report no group.share.delivery.count.limit)"
            in live_replay.stderr)
