"""The seed scenario, live: topics Order (7) and Stock (5), group G1 with consumers
C1, C2, C3 (client ids) subscribed to both with the range assignor, and known
committed offsets. Used by the integration tests and by scripts/demo.py.

Records are produced one per batch (Tansu's `latest` offset is right only then).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

TOPICS = {"Order": 7, "Stock": 5}
CLIENTS = ("C1", "C2", "C3")


def records(topic: str, partition: int) -> int:
    """How many records the seed puts in each partition (log-end offset)."""
    return (10 if topic == "Order" else 20) + partition


def committed(topic: str, partition: int) -> int:
    """The offset the seed commits for each partition: lag is partition + 1."""
    return records(topic, partition) - (partition + 1)


def create_topics(bootstrap: str, topics: dict[str, int] = TOPICS, conf: dict | None = None) -> None:
    """``conf``: more client settings (TLS, SASL) for a broker behind the test front."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap, **(conf or {})})
    futures = admin.create_topics([NewTopic(t, n, 1) for t, n in topics.items()], request_timeout=10)
    for f in futures.values():
        f.result(timeout=15)


def produce(bootstrap: str, topics: dict[str, int] = TOPICS, count=records, conf: dict | None = None) -> None:
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap, "batch.num.messages": 1, "linger.ms": 0,
                  "allow.auto.create.topics": False, **(conf or {})})
    for topic, partitions in topics.items():
        for partition in range(partitions):
            for i in range(count(topic, partition)):
                p.produce(topic, value=f"{topic}-{partition}-{i}".encode(), partition=partition,
                          timestamp=1_700_000_000_000 + i * 1000)
                p.flush(10)  # one record per batch


@dataclass
class LiveGroup:
    """Real consumers in a real group, polled by one background thread."""

    bootstrap: str
    group_id: str
    clients: tuple[str, ...] = CLIENTS
    topics: dict[str, int] = field(default_factory=lambda: dict(TOPICS))
    strategy: str = "range"
    conf: dict = field(default_factory=dict)  # more client settings (TLS, SASL) for a broker behind the test front
    consumers: dict = field(default_factory=dict)
    assignments: dict = field(default_factory=dict)
    rebalances: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self, timeout: float = 30.0) -> "LiveGroup":
        from confluent_kafka import Consumer

        for client in self.clients:
            c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": self.group_id, "client.id": client,
                          "partition.assignment.strategy": self.strategy, "enable.auto.commit": False,
                          "session.timeout.ms": 6000, "heartbeat.interval.ms": 500,
                          "auto.offset.reset": "earliest", "allow.auto.create.topics": False, **self.conf})
            c.subscribe(list(self.topics), on_assign=self._on_assign(client), on_revoke=self._on_revoke(client))
            self.consumers[client] = c
        self._thread = threading.Thread(target=self._poll_all, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                total = sum(len(a) for a in self.assignments.values())
                if len(self.assignments) == len(self.clients) and total == sum(self.topics.values()):
                    return self
            time.sleep(0.1)
        raise RuntimeError(f"group {self.group_id} did not stabilise: {self.assignments}")

    def _on_assign(self, client):
        def cb(consumer, partitions):
            with self._lock:
                self.rebalances += 1
                self.assignments[client] = sorted((p.topic, p.partition) for p in partitions)
        return cb

    def _on_revoke(self, client):
        def cb(consumer, partitions):
            with self._lock:
                self.assignments.pop(client, None)
        return cb

    def _poll_all(self) -> None:
        while not self._stop.is_set():
            for c in list(self.consumers.values()):
                c.poll(0.05)  # messages are fetched but never committed

    def commit_seed_offsets(self, offset=committed) -> None:
        from confluent_kafka import TopicPartition

        with self._lock:
            owned = {client: list(parts) for client, parts in self.assignments.items()}
        for client, parts in owned.items():
            tps = [TopicPartition(t, p, offset(t, p)) for t, p in parts]
            self.consumers[client].commit(offsets=tps, asynchronous=False)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        # librdkafka can deadlock closing a consumer whose close serves a rebalance callback
        # (seen: close -> rebalance_cb -> assign waiting forever); a close is given 15 s
        closers = [threading.Thread(target=c.close, daemon=True) for c in self.consumers.values()]
        for t in closers:
            t.start()
        for t in closers:
            t.join(15)
