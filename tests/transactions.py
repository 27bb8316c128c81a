"""A topic whose partitions end as transactional applications leave them, produced on a real
broker (Tansu supports transactions): what ``kgroup offsets`` and ``kgroup lag`` read to tell a
lag that will never be consumed from one that will.

Partition by partition (records at ``timestamp_ms`` when given):

- 0: a committed transaction of 3 records (offsets 0-2), its commit marker at 3: end 4;
- 1: 3 ordinary records (0-2): end 3;
- 2: a committed transaction of 3 (0-2, marker 3), then an aborted one of 2 (4-5, marker 6): end 7;
- 3: a committed transaction of 3 (0-2, marker 3), then one still open of 2 (4-5): end 6, last
  stable offset 4. The producer holding it open is returned: abort it when done.
"""
from __future__ import annotations

import uuid

PARTITIONS = 4
END = {0: 4, 1: 3, 2: 7, 3: 6}


def transactional_topic(bootstrap: str, timestamp_ms: int | None = None):
    """Create and fill the topic: (its name, the producer whose transaction is still open)."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    topic = f"txn-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(topic, PARTITIONS, 1)], request_timeout=10).values():
        f.result(15)
    stamp = {} if timestamp_ms is None else {"timestamp": timestamp_ms}

    def transactional(partition: int, count: int, producer) -> None:
        producer.begin_transaction()
        for i in range(count):
            producer.produce(topic, value=b"t%d" % i, partition=partition, **stamp)
            producer.flush(10)  # one record per batch (see below)

    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"{topic}-a", "linger.ms": 0})
    producer.init_transactions(20)
    for p in (0, 2, 3):
        transactional(p, 3, producer)
        producer.commit_transaction(20)
    transactional(2, 2, producer)
    producer.abort_transaction(20)
    plain = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    for _ in range(3):
        plain.produce(topic, value=b"x", partition=1, **stamp)
        plain.flush(10)  # one record per batch: Tansu's latest offset is right only then
    open_ = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"{topic}-b", "linger.ms": 0})
    open_.init_transactions(20)
    transactional(3, 2, open_)
    return topic, open_


def commit(bootstrap: str, group: str, topic: str, offsets: dict[int, int]) -> None:
    """Commit ``{partition: offset}`` for ``group`` (the admin client's offset commit: it never joins)."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(
        group, [TopicPartition(topic, p, o) for p, o in sorted(offsets.items())])])[group].result(15)
