"""Build offsets logs with kgroup's own writer (records as Kafka's coordinator writes them).

Used by the log/history/snapshot tests, the Spark tests and the benchmarks. Every
helper returns RawRecord values; ``Log`` hands out offsets per partition.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kgroup.group.hashing import offsets_partition_for
from kgroup.kmsg.consumer_protocol import encode_assignment, encode_subscription
from kgroup.offsets_log.raw import RawRecord
from kgroup.offsets_log.records import encode


@dataclass
class Log:
    partitions: int = 50
    records: list[RawRecord] = field(default_factory=list)
    _next: dict[int, int] = field(default_factory=dict)

    def add(self, group: str, ts: int, type_id: int, key: dict, version: int | None, value: dict | None,
            partition: int | None = None) -> RawRecord:
        p = offsets_partition_for(group, self.partitions) if partition is None else partition
        k, v = encode(type_id, key, version, value)
        return self._place(RawRecord(p, 0, ts, k, v))

    def again(self, rec: RawRecord, ts: int) -> RawRecord:
        """The same key and value written again: at the next offset of its partition, at ``ts``."""
        return self._place(RawRecord(rec.partition, 0, ts, rec.key, rec.value))

    def _place(self, rec: RawRecord) -> RawRecord:
        placed = RawRecord(rec.partition, self._next.get(rec.partition, 0), rec.timestamp, rec.key, rec.value)
        self._next[rec.partition] = placed.offset + 1
        self.records.append(placed)
        return placed

    def commit(self, group: str, topic: str, partition: int, offset: int, ts: int, version: int = 3,
               leader_epoch: int = -1, metadata: str = "") -> RawRecord:
        return self.add(group, ts, 1, {"group": group, "topic": topic, "partition": partition}, version,
                        {"offset": offset, "leaderEpoch": leader_epoch, "metadata": metadata,
                         "commitTimestamp": ts, "expireTimestamp": -1})

    def cut_commit(self, group: str, topic: str, partition: int, offset: int, ts: int) -> RawRecord:
        """A commit whose value is cut short: its key decodes (the group, topic and partition), its
        value cannot be decoded."""
        rec = self.commit(group, topic, partition, offset, ts)
        assert rec.value is not None
        cut = RawRecord(rec.partition, rec.offset, rec.timestamp, rec.key, rec.value[:len(rec.value) // 2])
        self.records[-1] = cut
        return cut

    def delete_commit(self, group: str, topic: str, partition: int, ts: int) -> RawRecord:
        return self.add(group, ts, 1, {"group": group, "topic": topic, "partition": partition}, None, None)

    def generation(self, group: str, generation: int, ts: int, members: list[dict], protocol: str = "range",
                   leader: str | None = None, version: int = 3) -> RawRecord:
        """members: {"id", "client", "host", "topics", "assignment": {topic: [p]}, "instance", "rack"}"""
        value = {"protocolType": "consumer", "generation": generation,
                 "protocol": protocol if members else None,
                 "leader": (leader or members[0]["id"]) if members else None,
                 "currentStateTimestamp": ts, "members": [
                     {"memberId": m["id"], "groupInstanceId": m.get("instance"), "clientId": m.get("client", "app"),
                      "clientHost": m.get("host", "/127.0.0.1"), "rebalanceTimeout": 300000, "sessionTimeout": 45000,
                      "subscription": encode_subscription({"topics": m["topics"], "rackId": m.get("rack"),
                                                           "generationId": generation - 1, "ownedPartitions": []}, 3),
                      "assignment": encode_assignment({"assignedPartitions": [
                          {"topic": t, "partitions": ps} for t, ps in sorted(m["assignment"].items())]}, 3)}
                     for m in members]}
        return self.add(group, ts, 2, {"group": group}, version, value)

    def delete_group(self, group: str, ts: int) -> RawRecord:
        return self.add(group, ts, 2, {"group": group}, None, None)


ORDER_ID = "AAAAAAAAAAAAAAAAAAAAAQ"  # Uuid(0, 1) as Kafka prints it


def kip848_member(log: Log, group: str, ts: int, member: str, topics: list[str], client: str = "app",
                  host: str = "/127.0.0.1", assignor: str | None = "uniform", rack: str | None = None) -> RawRecord:
    return log.add(group, ts, 5, {"groupId": group, "memberId": member}, 0, {
        "instanceId": None, "rackId": rack, "clientId": client, "clientHost": host,
        "subscribedTopicNames": topics, "subscribedTopicRegex": None, "rebalanceTimeoutMs": 300000,
        "serverAssignor": assignor})


def kip848_epoch(log: Log, group: str, ts: int, epoch: int, targets: dict[str, dict[str, list[int]]]) -> None:
    """Group epoch, then each member's target assignment (topic id -> partitions), then the
    target-assignment epoch and each member's current assignment, as the coordinator writes them."""
    log.add(group, ts, 3, {"groupId": group}, 0, {"epoch": epoch})
    for member, tps in targets.items():
        log.add(group, ts, 7, {"groupId": group, "memberId": member}, 0, {"topicPartitions": [
            {"topicId": t, "partitions": ps} for t, ps in tps.items()]})
    log.add(group, ts, 6, {"groupId": group}, 0, {"assignmentEpoch": epoch, "assignmentTimestamp": ts})
    for member, tps in targets.items():
        log.add(group, ts + 1, 8, {"groupId": group, "memberId": member}, 0, {
            "memberEpoch": epoch, "previousMemberEpoch": epoch - 1, "state": 0,
            "assignedPartitions": [{"topicId": t, "partitions": ps} for t, ps in tps.items()],
            "partitionsPendingRevocation": []})


def produce(bootstrap: str, topic: str, log: Log, batch: int = 1000, conf: dict | None = None) -> None:
    """Create ``topic`` with the log's partition count and write its records, batched as a
    broker stores them (many records per batch), keeping partitions and order. ``conf``: more
    client settings (TLS, SASL) for a broker behind the test front."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    conf = dict(conf or {})
    admin = AdminClient({"bootstrap.servers": bootstrap, **conf})
    for f in admin.create_topics([NewTopic(topic, log.partitions, 1)], request_timeout=10).values():
        f.result(15)
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.num.messages": batch,
                  "allow.auto.create.topics": False, **conf})
    for i, r in enumerate(log.records):
        p.produce(topic, key=r.key, value=r.value, partition=r.partition, timestamp=r.timestamp)
        if i % 10_000 == 9_999:
            p.poll(0)
    if p.flush(30) != 0:
        raise RuntimeError(f"could not write the log into {topic}")


def kip848_regex_member(log: Log, group: str, ts: int, member: str, regex: str, topics: list[str]) -> None:
    """A KIP-848 member subscribed by regular expression, then the coordinator's resolution of it."""
    log.add(group, ts, 5, {"groupId": group, "memberId": member}, 0, {
        "instanceId": None, "rackId": None, "clientId": "app", "clientHost": "/h", "subscribedTopicNames": [],
        "subscribedTopicRegex": regex, "rebalanceTimeoutMs": 300000, "serverAssignor": "uniform"})
    log.add(group, ts, 16, {"groupId": group, "regularExpression": regex}, 0,
            {"topics": topics, "version": 1, "timestamp": ts})


def streams_group(log: Log, group: str, ts: int, source_topics: list[str], repartition_topics: list[str] = ()) -> None:
    """A streams group's metadata (epoch 1) and its topology: one subtopology reading these topics."""
    log.add(group, ts, 17, {"groupId": group}, 0, {"epoch": 1, "metadataHash": 0})
    log.add(group, ts, 23, {"groupId": group}, 0, {"epoch": 1, "subtopologies": [{
        "subtopologyId": "0", "sourceTopics": list(source_topics), "sourceTopicRegex": [], "stateChangelogTopics": [],
        "repartitionSinkTopics": list(repartition_topics), "repartitionSourceTopics": [
            {"name": t, "partitions": 4, "replicationFactor": 1, "topicConfigs": []} for t in repartition_topics],
        "copartitionGroups": []}]})


def streams_member(log: Log, group: str, ts: int, member: str, joined: bool = True) -> None:
    """A streams group member's metadata record (``joined``), or its tombstone (it left)."""
    log.add(group, ts, 19, {"groupId": group, "memberId": member}, 0, None if not joined else {
        "instanceId": None, "rackId": None, "clientId": "app", "clientHost": "/h", "rebalanceTimeoutMs": 1000,
        "topologyEpoch": 1, "processId": "p1", "userEndpoint": None, "clientTags": []})
