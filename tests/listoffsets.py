"""ListOffsets answered as Apache Kafka answers it, and data topics whose record timestamps are known.

Used by the tests of log ends at past moments (tests/integration/test_log_ends_live.py) and by
bench/lag_bench.py:

- :func:`kafka_list_offsets` makes a fault-proxy answer (``proxy.answer_with(LIST_OFFSETS, ...)``)
  that answers ListOffsets from known record timestamps as Kafka does (earliest, latest, and the
  first offset whose timestamp is at or after the one asked), where Tansu answers the log start
  for every timestamp;
- :func:`produce_one_per_batch` writes a data topic one record per batch (Tansu's `latest` is
  right only so) with the CreateTime timestamps given, and checks that they were kept.
"""
from __future__ import annotations

import struct
import uuid

from kgroup.kmsg import codec
from kgroup.kmsg.schema import F, Layout

# ListOffsets v7 as librdkafka sends it (Kafka's ListOffsetsRequest/Response, flexible from v6)
LIST_OFFSETS_VERSION = 7
LIST_OFFSETS_REQUEST = Layout("ListOffsetsRequest", versions="7", flexible="6+", fields=(
    F("replicaId", "int32", "0+"),
    F("isolationLevel", "int8", "2+"),
    F("topics", "[]struct", "0+", fields=(
        F("name", "string", "0+"),
        F("partitions", "[]struct", "0+", fields=(
            F("partitionIndex", "int32", "0+"),
            F("currentLeaderEpoch", "int32", "4+"),
            F("timestamp", "int64", "0+"),
        )),
    )),
))
LIST_OFFSETS_RESPONSE = Layout("ListOffsetsResponse", versions="7", flexible="6+", fields=(
    F("throttleTimeMs", "int32", "2+"),
    F("topics", "[]struct", "0+", fields=(
        F("name", "string", "0+"),
        F("partitions", "[]struct", "0+", fields=(
            F("partitionIndex", "int32", "0+"),
            F("errorCode", "int16", "0+"),
            F("timestamp", "int64", "1+"),
            F("offset", "int64", "1+"),
            F("leaderEpoch", "int32", "4+"),
        )),
    )),
))
EARLIEST, LATEST = -2, -1


def kafka_list_offsets(times: dict[tuple[str, int], list[int]], start: dict[tuple[str, int], int]):
    """A proxy answer maker: ListOffsets answered as Apache Kafka answers it, from the known records
    (``times``: every partition's record timestamps in offset order; ``start``: a log start above 0,
    where retention removed records). Every partition asked must be in ``times``."""
    def make(version: int, frame: bytes) -> bytes:
        assert version == LIST_OFFSETS_VERSION
        (length,) = struct.unpack_from(">h", frame, 12)
        body = codec.skip_tagged_fields(frame, 14 + max(length, 0))
        asked, _ = codec.read(LIST_OFFSETS_REQUEST, version, frame, body)
        topics = []
        for topic in asked["topics"]:
            partitions = []
            for p in topic["partitions"]:
                key = (topic["name"], p["partitionIndex"])
                ts, first = times[key], start.get(key, 0)
                t = p["timestamp"]
                if t == EARLIEST:
                    found = (-1, first)
                elif t == LATEST:
                    found = (-1, len(ts))
                else:  # the first record at or after t; none: -1 (Kafka's "no such offset")
                    found = next(((ts[o], o) for o in range(first, len(ts)) if ts[o] >= t), (-1, -1))
                partitions.append({"partitionIndex": p["partitionIndex"], "errorCode": 0, "timestamp": found[0],
                                   "offset": found[1], "leaderEpoch": 0})
            topics.append({"name": topic["name"], "partitions": partitions})
        # the response header's tagged fields (flexible), then the body
        return b"\x00" + codec.write(LIST_OFFSETS_RESPONSE, version, {"throttleTimeMs": 0, "topics": topics})
    return make


def produce_one_per_batch(bootstrap: str, topic: str, times: dict[int, list[int]], config: dict | None = None) -> None:
    """Create ``topic`` with one partition per key of ``times`` and write each partition's records
    with those CreateTime timestamps, one record per batch: round by round, the i-th record of
    every partition, then a flush (so a partition never has two records waiting). Then reads them
    back and checks every timestamp was kept."""
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(topic, len(times), 1, config=config or {})], request_timeout=30).values():
        f.result(60)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "batch.num.messages": 1,
                         "allow.auto.create.topics": False})
    for i in range(max(map(len, times.values()), default=0)):
        for partition, stamps in times.items():
            if i < len(stamps):
                producer.produce(topic, key=f"k{i % 3}".encode(), value=f"v{i}".encode(), partition=partition,
                                 timestamp=stamps[i])
        assert producer.flush(60) == 0  # one record per batch
    # CreateTime kept as produced: the expectations stand on it
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"unused-{uuid.uuid4().hex}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p, stamps in times.items() if stamps])
    seen: dict[int, list[int]] = {p: [] for p in times}
    while sum(map(len, seen.values())) < sum(map(len, times.values())):
        msg = consumer.poll(10)
        assert msg is not None and msg.error() is None
        seen[msg.partition()].append(msg.timestamp()[1])
    consumer.close()
    assert seen == times
