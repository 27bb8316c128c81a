"""Reading the offsets log (``__consumer_offsets``): what ``log``, ``history``, ``lag``,
``snapshot --at`` and ``scan`` (on its Spark executors too) read of a live cluster.

Plain functions over ConnectionSettings (they run in Spark executors too, so they hold no
Cluster object). Read-only: the consumer only assign()s the partitions it reads; its group.id
is a throwaway that is never joined and never committed to.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from kgroup.errors import ClusterError, NotAuthorized, TopicMissing, UsageError
from kgroup.group.hashing import SHARE_STATE_TOPIC
from kgroup.group.model import ClusterMetadata, TopicInfo
from kgroup.kafka.client import NOT_AUTHORIZED, UNREACHABLE, Client, readonly_consumer
from kgroup.kafka.cluster import connect
from kgroup.kafka.settings import ConnectionSettings

# the records one read hands back at once, and what librdkafka is allowed to prefetch
_LOG_READ_CONF = {"enable.partition.eof": "true", "auto.offset.reset": "earliest",
                  "fetch.max.bytes": 64 * 1024 * 1024, "max.partition.fetch.bytes": 16 * 1024 * 1024,
                  "queued.max.messages.kbytes": 64 * 1024, "fetch.wait.max.ms": 100,
                  "check.crcs": "false"}


@dataclass(frozen=True)
class LogRange:
    """The offsets [start, end) of one partition of the offsets log."""

    partition: int
    start: int
    end: int

    @property
    def count(self) -> int:
        """How many offsets the range spans (records, unless the log is compacted)."""
        return max(0, self.end - self.start)


class _LogClient:
    """One throwaway, assign-only consumer with kgroup's client set-up and error reporting."""

    def __init__(self, settings: ConnectionSettings, **extra: object):
        self.settings = settings
        self.client = Client(settings, f"kgroup.librdkafka.log.{id(self)}")
        self.bootstrap = self.client.bootstrap
        try:
            self.consumer = readonly_consumer(self.client, _LOG_READ_CONF, **extra)
        except BaseException:
            self.client.close()
            raise

    def fail(self, what: str, error: KafkaError | Exception | None = None) -> ClusterError:
        # the first authorization failure the consumer met names the reason
        return self.client.fail(what, error, oldest_reason=True)

    def close(self) -> None:
        try:
            self.consumer.close()
        finally:
            self.client.close()


def _log_topic(client: _LogClient, topic: str) -> tuple[TopicInfo, ClusterMetadata]:
    """The metadata of the offsets-log topic (and of the cluster); expected failures as KgroupError.

    Read through the admin client, whose wait fails at once on a refusal, an unknown host or a
    listener that wants authentication (a consumer cannot be polled for its errors meanwhile)."""
    with connect(client.settings) as cluster:
        md = cluster.metadata()  # no topic is named: a broker with auto-creation on would create it
    return _offsets_topic_of(md, topic, client.bootstrap), md


def _offsets_topic_of(md: ClusterMetadata, topic: str, bootstrap: str) -> TopicInfo:
    t = md.topics.get(topic)
    if t is None or t.error == "UNKNOWN_TOPIC_OR_PART":
        if topic == SHARE_STATE_TOPIC:
            raise TopicMissing(f"topic {topic} does not exist on the cluster at {bootstrap} (no share "
                               "coordinator has written state yet, or it is under another name: see --share-state-topic)")
        raise TopicMissing(f"topic {topic} does not exist on the cluster at {bootstrap}"
                         " (is the offsets log under another name? see --offsets-topic)")
    if t.error is not None:
        if t.error == "TOPIC_AUTHORIZATION_FAILED":
            raise NotAuthorized(f"not authorized to read topic {topic} (this principal needs DESCRIBE and READ on it)")
        raise ClusterError(f"cannot read the metadata of topic {topic} ({t.error})")
    return t


def offsets_log_ranges(settings: ConnectionSettings, topic: str, partitions: list[int] | None = None) -> list[LogRange]:
    """Every partition of ``topic`` (or those listed) with its first and its true end offset.

    The end is found by reading: the consumer is placed just before the reported
    high watermark and reads to the partition-EOF event, so a broker whose
    ListOffsets answer is off (Tansu reports the base offset of the last batch + 1)
    still yields the offset after the last record. Never less than the reported end.
    """
    client = _LogClient(settings)
    try:
        return _log_ranges(client, topic, len(_log_topic(client, topic)[0].partitions), partitions)
    finally:
        client.close()


def _log_ranges(client: _LogClient, topic: str, count: int, partitions: list[int] | None) -> list[LogRange]:
    """offsets_log_ranges, the partition count known."""
    from confluent_kafka import TopicPartition

    settings = client.settings
    c = client.consumer
    wanted = sorted(set(range(count) if partitions is None else partitions))
    bad = [p for p in wanted if not 0 <= p < count]
    if bad:
        raise UsageError(f"partition {bad[0]}: topic {topic} has partitions 0-{count - 1}")
    reported: dict[int, tuple[int, int]] = {}
    deadline = time.monotonic() + settings.timeout  # for all of them together
    for p in wanted:
        try:
            left = deadline - time.monotonic()
            if left <= 0:
                raise client.fail(f"list the offsets of {topic}-{p}", KafkaError(KafkaError._TIMED_OUT))
            low, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=left, cached=False)
        except KafkaException as e:
            raise client.fail(f"list the offsets of {topic}-{p}", e) from None
        reported[p] = (max(0, low), max(0, high, low))
    ends = {p: high for p, (low, high) in reported.items()}
    probe = {p: max(low, high - 1) for p, (low, high) in reported.items() if high > low}
    if probe:
        c.assign([TopicPartition(topic, p, o) for p, o in probe.items()])
        pending = set(probe)
        deadline = time.monotonic() + settings.timeout
        while pending:
            if time.monotonic() > deadline:
                raise client.fail(f"find the end of {topic} partitions {sorted(pending)}")
            # consume() waits for num_messages or the timeout: one message per pending
            # partition at least (its last record, then its end) lets it return early
            for msg in c.consume(num_messages=len(pending), timeout=0.2):
                p = msg.partition()  # type: ignore[assignment]  # a record's: never None
                err = msg.error()
                if err is None:
                    ends[p] = max(ends[p], msg.offset() + 1)  # type: ignore[operator]  # a record's: never None
                    deadline = time.monotonic() + settings.timeout
                elif err.code() == KafkaError._PARTITION_EOF:
                    ends[p] = max(ends[p], msg.offset())  # type: ignore[assignment, type-var]  # a record's: never None
                    pending.discard(p)
                elif err.code() in NOT_AUTHORIZED or err.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED:
                    raise NotAuthorized(f"not authorized to read topic {topic} ({err.str()})")
                elif err.code() not in UNREACHABLE:
                    raise client.fail(f"read {topic}-{p}", err)
    return [LogRange(p, reported[p][0], ends[p]) for p in wanted]


def read_log_range_columns(settings: ConnectionSettings, topic: str, rng: LogRange, max_batch: int = 50_000
                           ) -> Iterator[tuple[list[Any], list[Any], list[Any], list[Any], list[Any]]]:
    """The records of ``rng`` as columns ``(partitions, offsets, timestamps, keys, values)``,
    at most ``max_batch`` records per yield; exactly the offsets in [start, end)."""
    from confluent_kafka import TopicPartition

    if rng.end <= rng.start:
        return
    client = _LogClient(settings)
    c = client.consumer
    try:
        c.assign([TopicPartition(topic, rng.partition, rng.start)])
        start, end = rng.start, rng.end
        position = start
        deadline = time.monotonic() + settings.timeout
        while position < end:
            # ask for no more than what is left: consume() waits for a full batch or the timeout
            msgs = c.consume(num_messages=max(1, min(max_batch, end - position)), timeout=0.5)
            if not msgs:
                if time.monotonic() > deadline:
                    raise client.fail(f"read {topic}-{rng.partition} (stopped at offset {position} of "
                                      f"[{start}, {end}))")
                continue
            deadline = time.monotonic() + settings.timeout
            offsets: list[int] = []
            timestamps: list[int] = []
            keys: list[Any] = []
            values: list[Any] = []
            for msg in msgs:
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        position = max(position, msg.offset())  # type: ignore[assignment, type-var]  # a record's: never None
                        continue
                    if err.code() in UNREACHABLE:
                        continue
                    if err.code() in NOT_AUTHORIZED or err.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED:
                        raise NotAuthorized(f"not authorized to read topic {topic} ({err.str()})")
                    raise client.fail(f"read {topic}-{rng.partition}", err)
                o = msg.offset()
                if o < start:  # type: ignore[operator]  # a record's: never None
                    continue
                if o >= end:  # type: ignore[operator]  # a record's: never None
                    position = end
                    break
                offsets.append(o)  # type: ignore[arg-type]  # a record's: never None
                timestamps.append(msg.timestamp()[1])
                keys.append(msg.key())
                values.append(msg.value())
                position = o + 1  # type: ignore[operator]  # a record's: never None
            if offsets:
                yield [rng.partition] * len(offsets), offsets, timestamps, keys, values
    finally:
        client.close()


def read_log_range(settings: ConnectionSettings, topic: str, rng: LogRange, max_batch: int = 50_000
                   ) -> Iterator[list[Any]]:
    """The records of ``rng`` (exactly [start, end) of one partition) as lists of RawRecord."""
    from kgroup.offsets_log.raw import RawRecord

    for parts, offsets, timestamps, keys, values in read_log_range_columns(settings, topic, rng, max_batch):
        yield [RawRecord(p, o, t, k, v) for p, o, t, k, v in zip(parts, offsets, timestamps, keys, values)]


def offsets_log_leaders(settings: ConnectionSettings, topic: str) -> tuple[dict[int, int | None], dict[int, tuple[str, int]]]:
    """The leader broker of every partition of ``topic``, and every broker's (host, port)."""
    client = _LogClient(settings)
    try:
        t, md = _log_topic(client, topic)
        brokers = {b.id: (b.host, b.port) for b in md.brokers.values()}
        return {p.partition: (p.leader if p.leader >= 0 else None) for p in t.partitions.values()}, brokers
    finally:
        client.close()


@dataclass(frozen=True)
class ScanPlan:
    """What kgroup scan reads of a live cluster before it starts, from one metadata read: the
    offsets log's ranges, its partitions' leaders, the brokers, and the log end of every other
    topic's partitions (for lag) taken at the same moment."""

    ranges: list[LogRange]
    leaders: dict[int, int | None]
    brokers: dict[int, tuple[str, int]]
    ends: dict[tuple[str, int], int | None]  # every partition of every other topic; None: unknown
    unknown: dict[tuple[str, int], str]      # why an end in ``ends`` is unknown


def scan_plan(settings: ConnectionSettings, topic: str) -> ScanPlan:
    """The ScanPlan, through one admin client (one metadata read, one batched ListOffsets per
    leader broker) and one assign-only consumer (the offsets log's true ends)."""
    cluster = connect(settings)
    try:
        md = cluster.metadata()
        t = _offsets_topic_of(md, topic, settings.require_bootstrap())
        client = _LogClient(settings)
        try:
            ranges = _log_ranges(client, topic, len(t.partitions), None)
        finally:
            client.close()
        leaders = {p.partition: (p.leader if p.leader >= 0 else None) for p in t.partitions.values()}
        brokers = {b.id: (b.host, b.port) for b in md.brokers.values()}
        data = sorted((name, p) for name, info in md.topics.items() if name != topic and info.error is None
                      for p in info.partitions)
        offsets, problems = cluster.log_offsets(data)
        ends = {tp: v[1] for tp, v in offsets.items()}
        unknown: dict[tuple[str, int], str] = {}
        for tp, end in ends.items():
            if end is None:
                prefix = f"{tp[0]}-{tp[1]}: "
                unknown[tp] = next((pr[len(prefix):] for pr in problems if pr.startswith(prefix)), "log end not answered")
    finally:
        cluster.close()
    return ScanPlan(ranges, leaders, brokers, ends, unknown)
