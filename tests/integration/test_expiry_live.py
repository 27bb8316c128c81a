"""Offset expiry against a real broker (Tansu): `offsets` and `lag` say when Kafka will delete a
group's committed offsets, from the group's records in the offsets log.

Tansu keeps no offsets log of its own (test-brokers.md): the group's records, built by kgroup's
writer as Kafka's coordinator writes them, go into an ordinary topic read with --offsets-topic,
and the same committed offsets are committed to Tansu (a consumer that only assigns itself the
partition: no join). Tansu reports no broker configuration, so Kafka's default retention (7 days)
applies and is said. The expected moments are worked out by hand next to each case.
"""
from __future__ import annotations

import json
import time
import uuid

import pytest
from conftest import run_kgroup
from logbuilder import Log, produce
from schemas import validate

pytestmark = pytest.mark.broker
DAY = 86_400_000
WEEK = 7 * DAY


def _commit_on_the_broker(bootstrap: str, group: str, topic: str, offsets: dict[int, int]) -> None:
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        c.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    finally:
        c.close()


def _records(bootstrap: str, topic: str, count: int) -> None:
    """``count`` records in each of the topic's two partitions, one per batch (Tansu's log end is
    right only so: test-brokers.md)."""
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "batch.num.messages": 1})
    for partition in (0, 1):
        for _ in range(count):
            p.produce(topic, value=b"x", partition=partition)
            p.flush(10)


@pytest.fixture(scope="module")
def emptied(tansu):
    """Group G: a classic consumer group whose last member left 6 days 23 hours ago (its
    GroupMetadata's currentStateTimestamp), with offsets committed to data topic D (2 partitions)."""
    from confluent_kafka.admin import AdminClient, NewTopic

    suffix = uuid.uuid4().hex[:8]
    group, data, offsets_topic = f"expiring-{suffix}", f"data-{suffix}", f"offsets-{suffix}"
    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic(data, 2, 1)], request_timeout=10).values():
        f.result(15)
    _records(tansu, data, 50)
    now = int(time.time() * 1000)
    joined, emptied_at = now - 8 * DAY, now - WEEK + 3_600_000  # emptied 6 d 23 h ago: 1 h of retention left
    log = Log(partitions=5)
    log.generation(group, 1, joined, [{"id": "c1", "topics": [data], "assignment": {data: [0, 1]}}])
    log.commit(group, data, 0, 30, joined + 60_000)
    log.commit(group, data, 1, 40, joined + 60_000)
    log.generation(group, 2, emptied_at, [])
    produce(tansu, offsets_topic, log)
    _commit_on_the_broker(tansu, group, data, {0: 30, 1: 40})
    return group, data, offsets_topic, emptied_at


def test_offsets_of_an_empty_group_say_when_they_expire(tansu, emptied):
    group, data, offsets_topic, emptied_at = emptied
    r = run_kgroup("offsets", group, "-b", tansu, "--offsets-topic", offsets_topic, "-o", "json")
    doc = json.loads(r.stdout)
    validate("offsets", doc)
    g = doc["groups"][0]
    expected = emptied_at + WEEK  # retention (Kafka's default: 7 days) after the group became Empty
    assert g["expiry"]["first_expires_ms"] == expected
    assert g["expiry"]["retention_ms"] == WEEK
    assert g["expiry"]["retention_source"].startswith("Kafka's default (broker ")
    assert [(p["topic"], p["partition"], p["expires_ms"]) for p in g["expiry"]["partitions"]] == [
        (data, 0, expected), (data, 1, expected)]
    # one hour left: within the default 24 h of --expiry-warn
    assert f"committed offsets of group {group} expire within 24h: {data}-0 at " in r.stderr
    assert r.returncode == 0, r.stderr
    flagged = run_kgroup("offsets", group, "-b", tansu, "--offsets-topic", offsets_topic, "--fail-on", "expiry")
    assert flagged.returncode == 1
    assert "EXPIRES" in flagged.stdout.splitlines()[0].split()
    calm = run_kgroup("offsets", group, "-b", tansu, "--offsets-topic", offsets_topic, "--fail-on", "expiry",
                      "--expiry-warn", "30m")
    assert calm.returncode == 0 and "expire within" not in calm.stderr


def test_describe_of_an_empty_group_says_when_its_offsets_go(tansu, emptied):
    from kgroup.timeutil import format_ms

    group, _, offsets_topic, emptied_at = emptied
    r = run_kgroup("describe", group, "-b", tansu, "--offsets-topic", offsets_topic, "-o", "json")
    doc = json.loads(r.stdout)
    validate("describe", doc)
    assert doc["groups"][0]["offsets_expire_ms"] == emptied_at + WEEK
    table = run_kgroup("describe", group, "-b", tansu, "--offsets-topic", offsets_topic)
    assert table.returncode == 0, table.stderr
    note = [line for line in table.stdout.splitlines() if line.startswith("committed offsets:")]
    assert note == [f"committed offsets: expire from {format_ms(emptied_at + WEEK)} (offsets.retention.minutes "
                    f"10080: Kafka's default (broker {note[0].split('(broker ')[1].split()[0]} does not report "
                    f"offsets.retention.minutes); kgroup offsets {group} shows each)"]


def test_an_unreadable_offsets_log_makes_the_expiry_unknown_said_once(tansu, emptied):
    group, data, _, _ = emptied
    missing = f"no-such-log-{uuid.uuid4().hex[:8]}"
    r = run_kgroup("offsets", group, "-b", tansu, "--offsets-topic", missing)
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if "expire" in line]
    assert lines == [f"kgroup: warning: when the committed offsets expire is unknown: cannot read the offsets log "
                     f"{missing}: topic {missing} does not exist on the cluster at {tansu} (is the offsets log under "
                     f"another name? see --offsets-topic)"]
    # --fail-on expiry cannot pass on an unknown: INCOMPLETE, exit 3
    assert run_kgroup("offsets", group, "-b", tansu, "--offsets-topic", missing, "--fail-on", "expiry").returncode == 3


@pytest.fixture(scope="module")
def scenarios(tansu):
    """One offsets log (an ordinary topic) holding a group for each of Kafka's expiry cases, all
    committing to data topics D1 and D2 (50 records a partition, written before the commits)."""
    from confluent_kafka.admin import AdminClient, NewTopic
    from logbuilder import kip848_epoch, kip848_member

    suffix = uuid.uuid4().hex[:8]
    d1, d2, offsets_topic = f"d1-{suffix}", f"d2-{suffix}", f"offsets-{suffix}"
    admin = AdminClient({"bootstrap.servers": tansu})
    for f in admin.create_topics([NewTopic(d1, 2, 1), NewTopic(d2, 2, 1)], request_timeout=10).values():
        f.result(15)
    _records(tansu, d1, 50)
    _records(tansu, d2, 50)
    t = int(time.time() * 1000)  # the commits come after every record: their log ends are known
    log = Log(partitions=5)
    member = {"id": "c1", "topics": [d1], "assignment": {d1: [0]}}
    # classic, Empty since t+30 (GroupMetadata v3 carries currentStateTimestamp)
    log.generation("classic-empty", 1, t + 1, [member])
    log.commit("classic-empty", d1, 0, 10, t + 10)
    log.generation("classic-empty", 2, t + 30, [])
    # classic, Empty, GroupMetadata v1: no state time, each offset's own commit time
    log.commit("classic-v1", d1, 0, 10, t + 12)
    log.generation("classic-v1", 2, t + 31, [], version=1)
    # classic, Stable, subscribed to D1 only: D2's offset goes, D1's stays
    log.generation("classic-stable", 1, t + 1, [member])
    log.commit("classic-stable", d1, 0, 10, t + 14)
    log.commit("classic-stable", d2, 0, 10, t + 15)
    # a standalone consumer: commits, no group record
    log.commit("standalone", d1, 0, 10, t + 16)
    # KIP-848, Stable, subscribed to D1
    kip848_member(log, "kip848-stable", t + 1, "m1", [d1])
    kip848_epoch(log, "kip848-stable", t + 1, 1, {})
    log.commit("kip848-stable", d1, 0, 10, t + 17)
    log.commit("kip848-stable", d2, 0, 10, t + 18)
    # KIP-848, Empty: its member left; the base stays the commit time
    kip848_member(log, "kip848-empty", t + 1, "m1", [d1])
    kip848_epoch(log, "kip848-empty", t + 1, 1, {})
    log.commit("kip848-empty", d1, 0, 10, t + 19)
    log.add("kip848-empty", t + 40, 5, {"groupId": "kip848-empty", "memberId": "m1"}, None, None)
    log.add("kip848-empty", t + 40, 3, {"groupId": "kip848-empty"}, 0, {"epoch": 2})
    # streams, Empty (a group record, no member)
    log.add("streams-empty", t + 1, 17, {"groupId": "streams-empty"}, 0, {"epoch": 1, "metadataHash": 0})
    log.commit("streams-empty", d1, 0, 10, t + 20)
    produce(tansu, offsets_topic, log)
    time.sleep(0.05)  # every commit moment is in the past
    return t, d1, d2, offsets_topic


@pytest.mark.parametrize("group, expected", [
    ("classic-empty", {("d1", 0): 30 + WEEK}),  # when it became Empty + 7 d
    ("classic-v1", {("d1", 0): 12 + WEEK}),  # its commit + 7 d
    ("classic-stable", {("d1", 0): None, ("d2", 0): 15 + WEEK}),  # consumed: never; D2: its commit + 7 d
    ("standalone", {("d1", 0): 16 + WEEK}),
    ("kip848-stable", {("d1", 0): None, ("d2", 0): 18 + WEEK}),
    ("kip848-empty", {("d1", 0): 19 + WEEK}),  # the commit time, not when the group emptied (t + 40)
    ("streams-empty", {("d1", 0): 20 + WEEK}),
])
def test_each_of_kafkas_cases_as_lag_says_it(tansu, scenarios, group, expected):
    t, d1, d2, offsets_topic = scenarios
    names = {"d1": d1, "d2": d2}
    r = run_kgroup("lag", group, "-b", tansu, "--offsets-topic", offsets_topic, "--since", "10m", "-o", "json",
                   timeout=120)
    doc = json.loads(r.stdout)
    got = {(p["topic"], p["partition"]): p["expires_ms"] for p in doc["partitions"]}
    assert got == {(names[topic], p): None if ms is None else t + ms for (topic, p), ms in expected.items()}, r.stderr
    assert doc["expiry"]["retention_ms"] == WEEK
