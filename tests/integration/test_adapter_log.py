"""Reading the offsets log with the adapter, against a real Tansu broker.

Records are produced in multi-record batches (as real brokers store them), where
Tansu's ListOffsets `latest` is the base offset of the last batch + 1: the adapter
must still find the true end, and read exactly the offsets asked for.
"""
from __future__ import annotations

import uuid

import pytest

from kgroup.kafka.logreader import LogRange, offsets_log_ranges, read_log_range, read_log_range_columns
from kgroup.errors import ClusterError, UsageError
from kgroup.kafka.settings import ConnectionSettings

pytestmark = pytest.mark.broker

PARTITIONS = 4
PER_PARTITION = {0: 0, 1: 1, 2: 777, 3: 2500}  # an empty partition, a single record, and batched ones


def _settings(bootstrap: str, timeout: float = 10.0) -> ConnectionSettings:
    return ConnectionSettings.build(bootstrap, [], None, timeout)


def produce_batched(bootstrap: str, topic: str, per_partition: dict[int, int]) -> dict[int, list[tuple]]:
    """Create ``topic`` and write records in batches of many; returns what was written."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(topic, len(per_partition), 1)], request_timeout=10).values():
        f.result(15)
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 100, "batch.num.messages": 500, "log.connection.close": False,
                  "allow.auto.create.topics": False})
    written: dict[int, list[tuple]] = {q: [] for q in per_partition}
    for q, n in per_partition.items():
        for i in range(n):
            key = f"k-{q}-{i}".encode()
            value = None if i % 97 == 5 else f"v-{q}-{i}".encode() * (1 + i % 3)
            ts = 1_790_000_000_000 + i * 10
            p.produce(topic, key=key, value=value, partition=q, timestamp=ts)
            written[q].append((i, ts, key, value))
            if i % 1000 == 999:
                p.poll(0)
    assert p.flush(15) == 0
    return written


@pytest.fixture(scope="module")
def batched_topic(tansu):
    topic = f"log-{uuid.uuid4().hex[:8]}"
    return topic, produce_batched(tansu, topic, PER_PARTITION)


def test_ranges_find_the_true_end_of_batched_partitions(tansu, batched_topic):
    from confluent_kafka import Consumer, TopicPartition

    topic, written = batched_topic
    ranges = offsets_log_ranges(_settings(tansu), topic)
    assert ranges == [LogRange(q, 0, len(written[q])) for q in range(PARTITIONS)]
    # The case this guards against (Tansu-specific): ListOffsets `latest` short of the true end.
    c = Consumer({"bootstrap.servers": tansu, "group.id": "unused-" + uuid.uuid4().hex})
    reported = {q: c.get_watermark_offsets(TopicPartition(topic, q), timeout=10)[1] for q in range(PARTITIONS)}
    c.close()
    assert any(reported[q] < len(written[q]) for q in range(PARTITIONS)), reported
    assert offsets_log_ranges(_settings(tansu), topic, [3, 1]) == [LogRange(1, 0, 1), LogRange(3, 0, 2500)]


def test_read_exact_ranges(tansu, batched_topic):
    topic, written = batched_topic
    settings = _settings(tansu)
    for rng in offsets_log_ranges(settings, topic):
        got = [r for batch in read_log_range(settings, topic, rng, max_batch=300) for r in batch]
        assert [(r.offset, r.timestamp, r.key, r.value) for r in got] == written[rng.partition]
        assert all(r.partition == rng.partition for r in got)
    # sub-ranges starting and ending inside batches
    for start, end in [(0, 1), (1, 2), (123, 1500), (2499, 2500), (1000, 1000)]:
        got = [r for batch in read_log_range(settings, topic, LogRange(3, start, end)) for r in batch]
        assert [(r.offset, r.key, r.value) for r in got] == [(o, k, v) for o, _, k, v in written[3][start:end]]
    cols = list(read_log_range_columns(settings, topic, LogRange(2, 10, 700), max_batch=100))
    assert all(len(c[1]) <= 100 for c in cols)
    assert [o for c in cols for o in c[1]] == list(range(10, 700))
    assert {p for c in cols for p in c[0]} == {2}


def test_reading_leaves_no_group_and_commits_nothing(tansu, batched_topic, monkeypatch):
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    topic, written = batched_topic
    fixed = uuid.UUID(int=0x6B67726F7570)
    monkeypatch.setattr(uuid, "uuid4", lambda: fixed)
    settings = _settings(tansu)
    for rng in offsets_log_ranges(settings, topic):
        for _ in read_log_range(settings, topic, rng):
            pass
    group = f"kgroup-readonly-{fixed}"
    admin = AdminClient({"bootstrap.servers": tansu})
    listed = {g.group_id for g in admin.list_consumer_groups(request_timeout=10).result().valid}
    assert group not in listed and not any(g.startswith("kgroup-readonly-") for g in listed)
    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, q) for q in range(PARTITIONS)])
    result = admin.list_consumer_group_offsets([request], request_timeout=10)[group].result()
    assert [tp.offset for tp in result.topic_partitions] == [-1001] * PARTITIONS  # nothing committed


def test_missing_topic_and_unreachable_cluster(tansu):
    from brokers import free_port

    with pytest.raises(UsageError, match="topic no-such-topic does not exist"):
        offsets_log_ranges(_settings(tansu), "no-such-topic")
    with pytest.raises(UsageError, match="partition 9"):
        offsets_log_ranges(_settings(tansu), batched_topic_name(tansu), [9])
    with pytest.raises(ClusterError, match="cannot reach the cluster"):
        offsets_log_ranges(_settings(f"127.0.0.1:{free_port()}", timeout=1.5), "__consumer_offsets")


def batched_topic_name(bootstrap: str) -> str:
    topic = f"small-{uuid.uuid4().hex[:8]}"
    produce_batched(bootstrap, topic, {0: 3})
    return topic
