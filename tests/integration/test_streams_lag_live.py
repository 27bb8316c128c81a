"""kgroup lag, offsets and report of a streams group (KIP-1071) from its offsets log, with real log ends.

No broker here implements streams groups, so the protocol double (tests/protodouble.py, answers
written by Kafka 4.3's message classes) answers for the group (StreamsGroupDescribe, OffsetFetch,
FindCoordinator, Metadata) and passes Fetch and ListOffsets to a real broker (Tansu) holding the
input topics and the offsets log (an ordinary topic read with --offsets-topic: Tansu has no
__consumer_offsets). The input topics hold one record a second from BASE on (one record per batch,
CreateTime stamps set here), so each partition's log ended at BASE + t at offset ceil(t / 1 s).

The topology: one subtopology "0" reading the source topic W and the repartition topic R (two
partitions each), so task 0_0 reads W-0 and R-0, task 0_1 reads W-1 and R-1; m1 runs 0_0 as
active, m2 runs 0_1. Expected, by hand (Burrow's rules as kgroup lag applies them to consumer
groups): W-0 commits its end every 10 s (OK, lag 0), W-1 commits offset 20 again and again (STALL,
lag 130 - 20 = 110), R-0 commits its end for 50 s and then nothing (STOP, lag 130 - 50 = 80), R-1
is never committed (its end 130, no lag).
"""
from __future__ import annotations

import json
import math
import time
import uuid

import pytest
from conftest import run_kgroup
from logbuilder import Log, produce, streams_group, streams_member
from protodouble import Group, Scenario
from schemas import validate

pytestmark = [pytest.mark.java, pytest.mark.broker]

RECORDS = 130  # per partition, one a second
BASE = (int(time.time()) - 3600) * 1000  # an hour ago
UNTIL = BASE + 130_000
SUFFIX = uuid.uuid4().hex[:8]
G, W, R = f"wc-{SUFFIX}", f"words-{SUFFIX}", f"wc-{SUFFIX}-repartition"
IDLE = f"wc-idle-{SUFFIX}"  # an Empty streams group on the same topics: its one commit expires
IDLE_COMMIT_MS = BASE + 10_000
RETENTION_MS = 7 * 24 * 3600 * 1000  # offsets.retention.minutes' default: the double answers no DescribeConfigs
COMMITS = {(W, 0): [(10 * k, 10 * k) for k in range(1, 14)],
           (W, 1): [(10 * k, 20) for k in range(3, 14)],
           (R, 0): [(10 * k, 10 * k) for k in range(1, 6)]}


def end_at(ms: int) -> int:
    return min(RECORDS, max(0, math.ceil((ms - BASE) / 1000)))


def _tasks(active):
    return {"activeTasks": [{"subtopologyId": s, "partitions": ps} for s, ps in active.items()],
            "standbyTasks": [], "warmupTasks": []}


def _member(mid, process, active):
    return {"memberId": mid, "memberEpoch": 3, "instanceId": None, "rackId": None, "clientId": f"client-{mid}",
            "clientHost": f"/10.0.0.{mid[-1]}", "topologyEpoch": 1, "processId": process,
            "userEndpoint": None, "clientTags": [], "taskOffsets": [], "taskEndOffsets": [],
            "assignment": _tasks(active), "targetAssignment": _tasks(active), "isClassic": False}


@pytest.fixture(scope="module")
def double(tansu):
    from confluent_kafka import Producer
    from javadriver import require_java
    from protodouble import ProtoDouble

    require_java("the protocol test double")
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic(t, 2, 1) for t in (W, R)], request_timeout=10).values():
        f.result(15)
    producer = Producer({"bootstrap.servers": tansu, "linger.ms": 0, "batch.num.messages": 1})
    for topic in (W, R):
        for p in (0, 1):
            for i in range(RECORDS):
                producer.produce(topic, value=b"x", partition=p, timestamp=BASE + i * 1000)
                producer.flush(10)  # one record per batch: Tansu's latest offset is right only then
    log = Log(partitions=1)
    streams_member(log, G, BASE, "m1")
    streams_member(log, G, BASE, "m2")
    streams_group(log, G, BASE, [W], [R])
    for member, partition in (("m1", 0), ("m2", 1)):  # the epoch's target assignment: one task each
        log.add(G, BASE, 21, {"groupId": G, "memberId": member}, 0, {
            "activeTasks": [{"subtopologyId": "0", "partitions": [partition]}], "standbyTasks": [], "warmupTasks": []})
    log.add(G, BASE, 20, {"groupId": G}, 0, {"assignmentEpoch": 1})
    streams_member(log, IDLE, BASE, "i1")
    streams_group(log, IDLE, BASE, [W], [R])
    log.commit(IDLE, W, 0, 10, IDLE_COMMIT_MS)
    streams_member(log, IDLE, BASE + 20_000, "i1", joined=False)  # its last member left: Empty
    log.add(IDLE, BASE + 20_000, 17, {"groupId": IDLE}, 0, {"epoch": 2, "metadataHash": 0})
    for (topic, p), commits in COMMITS.items():
        for seconds, offset in commits:
            log.commit(G, topic, p, offset, BASE + seconds * 1000)
    log.records.sort(key=lambda r: r.timestamp)  # as the coordinator appends them (the broker numbers them)
    offsets_topic = f"offsets-{SUFFIX}"
    produce(tansu, offsets_topic, log)
    topology = {"epoch": 1, "subtopologies": [
        {"subtopologyId": "0", "sourceTopics": [W], "repartitionSinkTopics": [R], "stateChangelogTopics": [],
         "repartitionSourceTopics": [{"name": R, "partitions": 2, "replicationFactor": 1, "topicConfigs": []}]}]}
    host, port = tansu.rsplit(":", 1)
    d = ProtoDouble(Scenario(
        groups=[Group(G, "streams", "Stable", description={
            "groupState": "stable", "groupEpoch": 3, "assignmentEpoch": 3, "topology": topology,
            "members": [_member("m1", "p1", {"0": [0]}), _member("m2", "p2", {"0": [1]})]},
            offsets={(t, p): c[-1][1] for (t, p), c in COMMITS.items()}),
                Group(IDLE, "streams", "Empty", description={
                    "groupState": "empty", "groupEpoch": 2, "assignmentEpoch": 1, "topology": topology, "members": []},
                    offsets={(W, 0): 10})],
        topics={W: 2, R: 2, offsets_topic: 1},
        relay=(host, int(port)), relay_keys={0: (3, 9), 1: (4, 12), 2: (1, 7)}))
    try:
        yield d, offsets_topic
    finally:
        d.stop()


def _lag(double, *extra):
    d, offsets_topic = double
    return run_kgroup("lag", G, "-b", d.bootstrap, "--offsets-topic", offsets_topic, "--since", str(BASE),
                      "--until", str(UNTIL), *extra, timeout=120)


def test_lag_over_time_status_and_owner_task_of_every_input_partition(double):
    r = _lag(double, "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate("lag", doc)
    got = {(p["topic"], p["partition"]): p for p in doc["partitions"]}
    assert sorted(got) == sorted(COMMITS)
    assert {tp: p["status"] for tp, p in got.items()} == {(W, 0): "OK", (W, 1): "STALL", (R, 0): "STOP"}
    assert {tp: p["lag"] for tp, p in got.items()} == {(W, 0): 0, (W, 1): 110, (R, 0): 80}
    for tp, commits in COMMITS.items():
        assert got[tp]["points"] == [{"time_ms": BASE + s * 1000, "committed": o, "end": end_at(BASE + s * 1000),
                                      "lag": max(0, end_at(BASE + s * 1000) - o)} for s, o in commits]
    assert {tp: p["owner"] for tp, p in got.items()} == {
        (W, 0): {"member_id": "m1", "client_id": "client-m1", "host": "/10.0.0.1", "task": "0_0"},
        (W, 1): {"member_id": "m2", "client_id": "client-m2", "host": "/10.0.0.2", "task": "0_1"},
        (R, 0): {"member_id": "m1", "client_id": "client-m1", "host": "/10.0.0.1", "task": "0_0"}}
    assert doc["owners_unknown"] is None
    assert doc["never_committed"] == [{"topic": R, "partition": 1, "end": 130, "lag": None, "committed": None,
                                       "owner": {"member_id": "m2", "client_id": "client-m2", "host": "/10.0.0.2",
                                                 "task": "0_1"}}]
    assert doc["status"] == "ERR" and doc["total_lag"] == 190


def test_fail_on_and_the_table(double):
    r = _lag(double, "--fail-on", "err", "-o", "json")
    # (the double answers no DescribeConfigs: whether a topic is compacted is said to be unknown)
    assert r.returncode == 1 and r.stderr.endswith(f"kgroup: warning: group {G} is ERR\n"), r.stderr
    r = _lag(double)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:4] == ["TOPIC", "PARTITION", "STATUS", "COMPLETE"] and "TASK" in lines[0].split()
    rows = {tuple(line.split()[:3]): line.split() for line in lines[2:6]}
    assert rows[(W, "1", "STALL")][-4:-1] == ["0_1", "client-m2", "/10.0.0.2"]
    assert rows[(R, "0", "STOP")][-4:-1] == ["0_0", "client-m1", "/10.0.0.1"]
    assert any(line.split()[:2] == [R, "1"] and "0_1" in line.split() and "130" in line.split() for line in lines)
    assert "TASK, CLIENT-ID, HOST: the streams task reading the partition" in r.stdout


def test_report_of_a_streams_group(double, tmp_path):
    d, offsets_topic = double
    page = tmp_path / "wc.html"
    r = run_kgroup("report", G, "-b", d.bootstrap, "--offsets-topic", offsets_topic, "--since", str(BASE),
                   "--until", str(UNTIL), "--out", str(page), "-o", "json", timeout=180)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate("report", doc)
    assert doc["lag"]["status"] == "ERR" and doc["lag"]["total_lag"] == 190
    # the commits per member: m1 runs task 0_0 (W-0: 13 commits, R-0: 5), m2 task 0_1 (W-1: 11)
    assert [(x["member"], x["commits"]) for x in doc["commit_rate"]["series"]] == [("m1", 18), ("m2", 11)]
    (epoch,) = doc["history"]["rebalances"]
    assert [(m["member_id"], m["active"]) for m in epoch["member_tasks"]] == [("m1", ["0_0"]), ("m2", ["0_1"])]
    now = doc["now"]
    assert now["describe"]["type"] == "streams" and now["describe"]["state"] == "Stable"
    assert [(m["member_id"], m["process_id"]) for m in now["describe"]["members"]] == [("m1", "p1"), ("m2", "p2")]
    assert [(p["topic"], p["partition"], p["task"], p["committed"], p["log_end"], p["lag"], p["member_id"])
            for p in now["offsets"]["partitions"]] == [
        (W, 0, "0_0", 130, 130, 0, "m1"), (W, 1, "0_1", 20, 130, 110, "m2"),
        (R, 0, "0_0", 50, 130, 80, "m1"), (R, 1, "0_1", None, 130, None, "m2")]
    from browser import assert_reads_at, open_page

    with open_page(page) as shown:  # in headless Chromium, the network off
        assert shown.errors == []
        text = shown.js("return document.body.innerText")
        assert "cannot answer for streams groups" not in text
        rows = shown.js("return Array.from(document.querySelectorAll('#kgroup-streams-members tbody tr'))"
                        ".map(r => Array.from(r.cells).map(c => c.innerText))")
        assert [r[:2] for r in rows] == [["m1", "p1"], ["m2", "p2"]]
        rebalances = shown.js("return Array.from(document.querySelectorAll('#kgroup-rebalances tbody tr'))"
                              ".map(r => Array.from(r.cells).map(c => c.innerText))")
        assert [(r[1], r[2], r[5], r[6], r[8]) for r in rebalances] == [("streams", "1", "2", "m1, m2", "2")]
        state = shown.js("return Array.from(document.querySelectorAll('#kgroup-offsets tbody tr'))"
                         ".map(r => Array.from(r.cells).map(c => c.innerText))")
        assert [r[:7] for r in state] == [["0_0", W, "0", "130", "0", "130", "0"], ["0_1", W, "1", "20", "0", "130", "110"],
                                          ["0_0", R, "0", "50", "0", "130", "80"], ["0_1", R, "1", "-", "0", "130", "-"]]
        assert_reads_at(shown, 390)


def _offsets(double, *args):
    d, offsets_topic = double
    return run_kgroup("offsets", *args, "-b", d.bootstrap, "--offsets-topic", offsets_topic, timeout=120)


def test_offsets_of_one_topic_with_the_time_lag(double):
    """--topic keeps W's partitions; --time-lag: W-1's first record not consumed is offset 20, stamped
    BASE + 20 s, so its time lag is now - (BASE + 20 s); W-0 is caught up (0)."""
    before = int(time.time() * 1000)
    r = _offsets(double, G, "--topic", W, "--time-lag", "-o", "json")
    after = int(time.time() * 1000)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate("offsets-streams", doc)
    (g,) = doc["groups"]
    assert [(p["topic"], p["partition"], p["lag"]) for p in g["partitions"]] == [(W, 0, 0), (W, 1, 110)]
    w0, w1 = g["partitions"]
    assert w0["time_lag_ms"] == 0
    assert before - (BASE + 20_000) <= w1["time_lag_ms"] <= after - (BASE + 20_000)
    table = _offsets(double, G, "--topic", W, "--time-lag")
    assert table.returncode == 0, table.stderr
    assert "TIME-LAG" in table.stdout.splitlines()[0] and R not in table.stdout


def test_offsets_expiry_of_an_empty_streams_group(double):
    """An Empty streams group's committed offsets expire at their commit + offsets.retention.minutes
    (Kafka's default 7 days here); a Stable one's, of topics it reads, do not while it consumes them."""
    r = _offsets(double, IDLE, "-o", "json")
    assert r.returncode == 0, r.stderr
    (g,) = json.loads(r.stdout)["groups"]
    assert g["expiry"]["retention_ms"] == RETENTION_MS
    assert [(p["topic"], p["partition"], p["expires_ms"]) for p in g["expiry"]["partitions"]] == [
        (W, 0, IDLE_COMMIT_MS + RETENTION_MS)]
    flagged = _offsets(double, IDLE, "--fail-on", "expiry", "--expiry-warn", "8d")
    assert flagged.returncode == 1, flagged.stderr
    assert f"{IDLE}" in flagged.stderr and "expire" in flagged.stderr
    assert "EXPIRES" in flagged.stdout.splitlines()[0]
    calm = _offsets(double, IDLE, "--fail-on", "expiry", "--expiry-warn", "1d")
    assert calm.returncode == 0, calm.stderr
    busy = _offsets(double, G, "--expiry", "-o", "json")
    assert busy.returncode == 0, busy.stderr
    (g,) = json.loads(busy.stdout)["groups"]
    assert {(p["topic"], p["partition"]): p["expires_ms"] for p in g["expiry"]["partitions"]} == {
        (W, 0): None, (W, 1): None, (R, 0): None}
