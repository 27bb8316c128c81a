"""Where a partition's log ended at past moments (kgroup.lag.ends.log_ends_at over a Cluster), against a real Tansu
broker behind the fault proxy.

Data topics are produced one record per batch (Tansu's ListOffsets `latest` is right only so)
with known CreateTime timestamps. Every expected end is worked out here by a linear scan of those
timestamps: the first offset whose timestamp is >= T, else the log end.

- These logs are short: kgroup reads each whole, in one ordered pass, and asks nothing by
  timestamp. With the passes off (``search_only``: as for a long log with few moments), the
  broker's answers are asked and checked:
- Tansu answers ListOffsets by timestamp with the log start for every timestamp, so on it the
  ends are found from the records (the fallback path), and after the first and the last
  moment nothing more is asked.
- The proxy then answers ListOffsets as Kafka does (computed from the same known timestamps,
  by tests/listoffsets.py for the version librdkafka sends): the answers pass the check and nothing is
  searched, one ListOffsets request per slot (one broker: one leader). Answering `earliest`
  past offset 0 shows retention: the moments before the first record left are unknown.
"""
from __future__ import annotations

import uuid

import pytest
from listoffsets import kafka_list_offsets, produce_one_per_batch

from kgroup.kafka.cluster import Cluster
from kgroup.lag.ends import NO_BOUNDS, RETENTION, EndAt, log_ends_at
from kgroup.kafka.settings import ConnectionSettings

pytestmark = pytest.mark.broker

BASE = 1_790_000_000_000
# per partition: CreateTime timestamps in offset order (equal ones, uneven steps), and an empty partition
TIMES = {
    0: [BASE + 1000 * i for i in range(25)],
    1: [BASE + 7, BASE + 7, BASE + 7, BASE + 500, BASE + 501, BASE + 501, BASE + 90_000, BASE + 90_001]
       + [BASE + 100_000 + 3 * i for i in range(20)],
    2: [],
    3: [BASE - 5_000 + 250 * i for i in range(40)],
}

JOIN_GROUP, HEARTBEAT, SYNC_GROUP, OFFSET_COMMIT, LEAVE_GROUP = 11, 12, 14, 8, 13


def linear_end(times: list[int], start: int, t: int) -> EndAt:
    """The end at t by a linear scan: the first offset at or after the log start whose timestamp >= t."""
    for offset in range(start, len(times)):
        if times[offset] >= t:
            return EndAt(None, RETENTION) if offset == start and start > 0 else EndAt(offset)
    return EndAt(None, RETENTION) if start == len(times) and start > 0 else EndAt(len(times))


def moments_of(times: list[int]) -> list[int]:
    """Before, at, just around and after every record; and far before and after all of them."""
    out = {BASE - 10**9, BASE + 10**9}
    for ts in times:
        out.update((ts - 1, ts, ts + 1))
    return sorted(out)


def no_passes(monkeypatch) -> None:
    """No ordered pass: every moment's end found from the broker's answer and the search."""
    import kgroup.lag.ends as ends

    monkeypatch.setattr(ends, "_PASS_MIN", 0)
    monkeypatch.setattr(ends, "_PER_MOMENT", 0)


@pytest.fixture
def search_only(monkeypatch):
    no_passes(monkeypatch)


def _cluster(proxy, timeout: float = 10.0) -> Cluster:
    return Cluster(ConnectionSettings.build(proxy.address, [], None, timeout))


@pytest.fixture(scope="module")
def broker():
    from brokers import stop_process
    from faultproxy import start_tansu_behind_proxy

    proc, proxy = start_tansu_behind_proxy()
    try:
        yield proxy
    finally:
        proxy.stop()
        stop_process(proc)


@pytest.fixture(scope="module")
def data(broker):
    topic = f"ends-{uuid.uuid4().hex[:8]}"
    produce_one_per_batch(broker.address, topic, TIMES)
    return topic


@pytest.fixture(autouse=True)
def _clean_proxy(broker):
    broker.reset()
    yield
    broker.reset()


def _expected(topic: str, start: dict[int, int] | None = None) -> dict[tuple[str, int, int], EndAt]:
    return {(topic, p, t): linear_end(ts, (start or {}).get(p, 0), t) for p, ts in TIMES.items() for t in moments_of(ts)}


def test_short_logs_are_read_whole_in_one_pass_and_nothing_is_asked_by_time(broker, data):
    from faultproxy import FETCH, LIST_OFFSETS

    topic = data
    moments = {(topic, p): moments_of(ts) for p, ts in TIMES.items()}
    answer = log_ends_at(_cluster(broker), moments)
    assert answer.ends == _expected(topic)
    assert answer.problems == []
    stats = answer.stats
    assert stats.list_offsets_calls == stats.checked == stats.searched == 0
    # one round of reads: every record of the three partitions that have any, once
    assert stats.record_reads == 1 and stats.records_read == sum(map(len, TIMES.values()))
    assert broker.seen(LIST_OFFSETS) == 2  # earliest and latest (the bounds) only
    assert broker.seen(FETCH) >= 1


def test_tansu_answers_wrongly_and_the_ends_are_found_from_the_records(broker, data, search_only):
    from faultproxy import LIST_OFFSETS

    topic = data
    moments = {(topic, p): moments_of(ts) for p, ts in TIMES.items()}
    answer = log_ends_at(_cluster(broker), moments)
    assert answer.ends == _expected(topic)
    assert answer.problems == []
    assert answer.bounds[(topic, 2)].start == answer.bounds[(topic, 2)].end == 0
    stats = answer.stats
    # the first and the last moment of each partition with records (the empty one is not asked);
    # Tansu's answer (the log start, 0) is right for the first (long before every record), wrong
    # for the last (long after them): its other moments are not asked
    assert stats.list_offsets_calls == 2
    assert stats.checked == 2 * sum(1 for ts in TIMES.values() if ts)
    assert stats.searched == sum(1 for ts in TIMES.values() if ts)
    # earliest and latest (the bounds), then one request per slot: one broker leads every partition
    assert broker.seen(LIST_OFFSETS) == 2 + 2


def test_answers_given_as_kafka_gives_them_are_checked_and_none_is_searched(broker, data, search_only):
    from faultproxy import LIST_OFFSETS

    topic = data
    broker.answer_with(LIST_OFFSETS, kafka_list_offsets({(topic, p): ts for p, ts in TIMES.items()}, {}))
    moments = {(topic, p): moments_of(ts) for p, ts in TIMES.items()}
    answer = log_ends_at(_cluster(broker), moments)
    assert answer.ends == _expected(topic)
    stats = answer.stats
    slots = max(len(v) for p, v in moments.items() if TIMES[p[1]])
    assert stats.searched == 0
    # the first and the last moments, then (both right) the others not yet found: one request per slot
    assert stats.list_offsets_calls <= slots and broker.seen(LIST_OFFSETS) == 2 + stats.list_offsets_calls
    # only the checks read records: at most one read per slot, a few records each
    assert stats.record_reads <= slots
    assert stats.records_read <= 3 * stats.checked


@pytest.mark.parametrize("strategy", ["pass", "search"])
def test_moments_before_the_log_start_are_unknown(broker, data, strategy, monkeypatch):
    from faultproxy import LIST_OFFSETS

    topic = data
    # retention removed offsets before 5 of partition 0 and before 12 of partition 3 (the log start answered so)
    start = {0: 5, 3: 12}
    if strategy == "search":
        no_passes(monkeypatch)
    broker.answer_with(LIST_OFFSETS, kafka_list_offsets({(topic, p): ts for p, ts in TIMES.items()},
                                                        {(topic, p): o for p, o in start.items()}))
    moments = {(topic, p): moments_of(TIMES[p]) for p in (0, 3)}
    answer = log_ends_at(_cluster(broker), moments)
    expected = {k: v for k, v in _expected(topic, start).items() if k[1] in (0, 3)}
    assert answer.ends == expected
    # worked by hand: partition 0's first record left is offset 5, written at BASE + 5000
    assert answer.ends[(topic, 0, BASE + 5000)] == EndAt(None, RETENTION)
    assert answer.ends[(topic, 0, BASE + 5001)] == EndAt(6)
    assert answer.ends[(topic, 0, BASE - 10**9)] == EndAt(None, RETENTION)
    assert answer.stats.unknown == sum(1 for e in expected.values() if e.offset is None) > 0


def test_a_compacted_topic_is_read_and_a_missing_partition_is_unknown(broker, data):
    """A topic whose cleanup.policy is compact, every record still there (Tansu does not compact):
    the record before each end is read, so the ends are facts, as on any topic."""
    from faultproxy import LIST_OFFSETS

    compacted = f"compacted-{uuid.uuid4().hex[:8]}"
    produce_one_per_batch(broker.address, compacted, {0: [BASE + i for i in range(6)]},
                          config={"cleanup.policy": "compact"})
    broker.reset()
    moments = {(compacted, 0): [BASE - 1, BASE + 3, BASE + 99], (data, 0): [BASE + 2500], (data, 9): [BASE]}
    answer = log_ends_at(_cluster(broker, timeout=5), moments)
    assert answer.ends == {(compacted, 0, BASE - 1): EndAt(0), (compacted, 0, BASE + 3): EndAt(3),
                           (compacted, 0, BASE + 99): EndAt(6), (data, 0, BASE + 2500): EndAt(3),
                           (data, 9, BASE): EndAt(None, NO_BOUNDS)}
    assert answer.bounds[(compacted, 0)].compacted is True and answer.bounds[(data, 0)].compacted is False
    assert [line.split(":")[0] for line in answer.problems] == [f"{data}-9"] * len(answer.problems) != []
    # neither the compacted topic nor data-0 is asked by timestamp (each read whole): earliest and latest only
    assert broker.seen(LIST_OFFSETS) == 2


def test_finding_ends_joins_no_group_and_commits_nothing(broker, data, monkeypatch):
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    topic = data
    fixed = uuid.UUID(int=0x6B67726F7570)
    monkeypatch.setattr(uuid, "uuid4", lambda: fixed)
    answer = log_ends_at(_cluster(broker), {(topic, p): moments_of(ts) for p, ts in TIMES.items()})
    assert answer.stats.record_reads > 0  # the records were read
    kinds = {api for api, _, _ in broker.requests}
    assert not kinds & {JOIN_GROUP, HEARTBEAT, SYNC_GROUP, OFFSET_COMMIT, LEAVE_GROUP}, kinds
    group = f"kgroup-readonly-{fixed}"
    admin = AdminClient({"bootstrap.servers": broker.address})
    listed = {g.group_id for g in admin.list_consumer_groups(request_timeout=10).result().valid}
    assert not any(g.startswith("kgroup-readonly-") for g in listed), listed
    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in TIMES])
    result = admin.list_consumer_group_offsets([request], request_timeout=10)[group].result()
    assert [tp.offset for tp in result.topic_partitions] == [-1001] * len(TIMES)  # nothing committed


def test_on_three_brokers_one_request_per_leader_per_slot(mock_cluster, search_only):
    """librdkafka's mock cluster answers -1 to every timestamp (and has no DescribeConfigs: whether
    a topic is compacted cannot be read there, so bounds are built here as for a topic that is
    not). The adapter's record source under ends_at, with the bounds as read: the ends equal the
    linear scan, and each slot sends one ListOffsets request to each leader broker."""
    import logging
    import re

    from confluent_kafka import Producer

    from kgroup.kafka.records import RecordReader
    from kgroup.group.model import LogBounds
    from kgroup.lag.ends import ends_at

    producer = Producer({"bootstrap.servers": mock_cluster.bootstrap})
    for _ in range(20):  # the mock creates a topic it is asked about (4 partitions), each partition's
        # leader drawn at random: one of 27 topics has a single leader, which would prove nothing here
        topic = f"ends-mock-{uuid.uuid4().hex[:8]}"
        leaders = {p.id: p.leader for p in producer.list_topics(topic, timeout=10).topics[topic].partitions.values()}
        if len(set(leaders.values())) > 1:
            break
    times = {p: [BASE + 100 * i + p for i in range(12 + p)] for p in range(4)}
    for p, stamps in times.items():
        for ts in stamps:
            producer.produce(topic, b"v", partition=p, timestamp=ts)
            producer.flush(10)
    assert leaders == {p.id: p.leader for p in producer.list_topics(topic, timeout=10).topics[topic].partitions.values()}

    cluster = Cluster(ConnectionSettings.build(mock_cluster.bootstrap, ["debug=protocol"], None, 10.0))
    sent: list[str] = []

    class Sends(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            message = record.getMessage()
            if "Sent ListOffsetsRequest" in message:
                sent.append(re.search(r"/(\d+): Sent", message).group(1))

    cluster.client.logger.handlers[0].setLevel(logging.CRITICAL + 1)  # not on stderr
    cluster.client.logger.addHandler(Sends())
    partitions = [(topic, p) for p in times]
    offsets, problems = cluster.log_offsets(partitions)
    assert problems == []
    bounds = {tp: LogBounds(*offsets[tp]) for tp in partitions}
    moments = {(topic, p): moments_of(ts) for p, ts in times.items()}
    reader = RecordReader(cluster)
    cluster.admin.poll(0.5)  # the admin client's log lines are handed over on poll: those of earliest and latest
    sent.clear()
    try:
        ends, stats = ends_at(reader, moments, bounds)
    finally:
        reader.close()
    cluster.admin.poll(0.5)
    assert ends == {(topic, p, t): linear_end(ts, 0, t) for p, ts in times.items() for t in moments_of(ts)}
    assert reader.problems == []
    # -1 (the log end) is wrong for each partition's first moment (before every record), right for
    # its last: nothing more is asked
    assert stats.list_offsets_calls == 2 and stats.searched == len(times)
    # slot k asks the partitions with a k-th moment: one request to each broker leading one of them
    expected = 0
    for k in range(stats.list_offsets_calls):
        expected += len({leaders[p] for p, ts in times.items() if len(moments_of(ts)) > k})
    assert len(set(leaders.values())) > 1, leaders
    assert len(sent) == expected, (len(sent), expected)
