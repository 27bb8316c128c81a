"""What the data partitions of a cluster hold: their log start and end (ListOffsets earliest and
latest, and by time), the timestamps of their records (read by a consumer that is only assigned
partitions: it never joins a group and never commits), and whether their topics are compacted.
Functions of a Session (the Cluster), whose deadline, errors and admin client they share.

These are the primitive reads; the search for where a log ended at a past moment is an analysis
above this layer (kgroup.lag.ends), which asks them through its own interface: :func:`log_bounds`
and a :class:`RecordReader`.
"""
from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from confluent_kafka import Consumer, KafkaError, KafkaException

from kgroup.kafka.client import NOT_AUTHORIZED, SLICE, UNREACHABLE, Deadline, Session, readonly_consumer

from kgroup.group.model import LogBounds

if TYPE_CHECKING:
    import concurrent.futures

# what start_log_offsets hands to finish_log_offsets: the partitions, and the futures of each ask
LogOffsetsHandle = tuple[list[tuple[str, int]], list[tuple[int, Any]]]


def start_log_offsets(cluster: Session, partitions: list[tuple[str, int]]
                      ) -> LogOffsetsHandle:
    """Send ListOffsets earliest and latest for ``partitions`` without waiting; the answer
    is finish_log_offsets(what this returns)."""
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import OffsetSpec  # type: ignore[attr-defined]  # re-exported, untyped

    if not partitions:
        return partitions, []
    requests = [TopicPartition(t, p) for t, p in partitions]
    # the client answers each partition before the command's deadline, so that what did
    # come back is shown and what did not is named
    request_timeout = max(0.1, cluster.left("list offsets") - 0.3)
    # earliest and latest go out together; the client sends one request per leader broker
    specs = ((0, OffsetSpec.earliest()), (1, OffsetSpec.latest()))  # type: ignore[no-untyped-call]
    pending = [(index, cluster.admin.list_offsets({tp: spec for tp in requests}, request_timeout=request_timeout))
               for index, spec in specs]
    return partitions, pending


def finish_log_offsets(cluster: Session, handle: LogOffsetsHandle
                       ) -> tuple[dict[tuple[str, int], tuple[int | None, int | None]], list[str]]:
    """What start_log_offsets asked for: ({(topic, partition): (log_start, log_end)}, problems)."""
    partitions, pending = handle
    result: dict[tuple[str, int], list[int | None]] = {tp: [None, None] for tp in partitions}
    problems: list[str] = []
    if not partitions:
        return {}, problems
    for index, futures in pending:
        answers, failed = list_offsets_answers(cluster, futures, ("earliest", "latest")[index], may_fail=index == 0)
        problems += failed
        for tp, offset in answers.items():
            result[tp][index] = offset
    return {tp: (v[0], v[1]) for tp, v in result.items()}, problems


def list_offsets_answers(cluster: Session, futures: dict[Any, concurrent.futures.Future[Any]], which: str,
                          may_fail: bool = True, sentinel: bool = False
                          ) -> tuple[dict[tuple[str, int], int | None], list[str]]:
    """The offsets list_offsets' futures hand back, waited for until the deadline: ({(topic,
    partition): offset}, problems). A partition not answered is named in problems, never
    guessed; where the first answer already says the cluster cannot be reached or refused us,
    and ``may_fail``, the command fails. With ``sentinel``, -1 is an answer (None: the
    broker has no such offset); otherwise a negative offset is a problem."""
    import concurrent.futures

    what = "list offsets"
    out: dict[tuple[str, int], int | None] = {}
    problems: list[str] = []
    for tp, future in futures.items():
        # wait only for what is not answered yet, looking at the client's errors meanwhile
        while not future.done():
            left = cluster.deadline + 0.5 - time.monotonic()
            if left <= 0:
                break
            try:
                future.exception(timeout=min(SLICE, left))
            except concurrent.futures.TimeoutError:
                cluster.check_errors(what)
        if not future.done():  # the deadline passed: what is missing is named, never guessed
            future.cancel()
            problems.append(f"{tp.topic}-{tp.partition}: no {which} offset within {cluster.settings.timeout:g} s")
            continue
        try:
            info = future.result()
        except KafkaException as e:
            err = e.args[0]
            if err.code() in UNREACHABLE | NOT_AUTHORIZED and may_fail and not problems and not out:
                raise cluster.fail(what, e) from None
            problems.append(f"{tp.topic}-{tp.partition}: {err.str()}")
            continue
        except concurrent.futures.CancelledError:
            problems.append(f"{tp.topic}-{tp.partition}: no {which} offset within {cluster.settings.timeout:g} s")
            continue
        cluster.answered = True
        if info.offset < 0 and not (sentinel and info.offset == -1):
            # a client sentinel (-1001: no answer in time), not an offset
            problems.append(f"{tp.topic}-{tp.partition}: no valid {which} offset came back "
                            f"(the client returned {info.offset})")
            continue
        out[(tp.topic, tp.partition)] = None if info.offset < 0 else info.offset
    return out, problems


def first_record_timestamps(cluster: Session, positions: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
    """Timestamp (ms) of the record at each position, read by a consumer that is
    assigned partitions directly: it never joins a group and never commits."""
    from confluent_kafka import TopicPartition

    out: dict[tuple[str, int], int] = {}
    if not positions:
        return out
    consumer = readonly_consumer(cluster.client)
    try:
        consumer.assign([TopicPartition(t, p, o) for (t, p), o in positions.items()])
        pending = set(positions)
        deadline = cluster.deadline - 0.2
        while pending and time.monotonic() < deadline:
            # consume() waits for num_messages or the timeout: ask for what lets it return as
            # soon as each pending partition may have answered (a record or its end)
            for msg in consumer.consume(num_messages=len(pending), timeout=0.2):
                key = (msg.topic(), msg.partition())
                if key not in pending:
                    continue
                if msg.error() is None:
                    out[key] = msg.timestamp()[1]
                pending.discard(key)
                consumer.incremental_unassign([TopicPartition(*key)])
    finally:
        consumer.close()
    return out


def deliverable(cluster: Session, partitions: Mapping[tuple[str, int], tuple[int, int]]
                ) -> dict[tuple[str, int], bool | None]:
    """Whether a consumer reading committed records (isolation.level=read_committed, as
    transactional applications do) would get any record at an offset between each partition's
    ``(committed, end)``: read by a consumer that is only assigned the partitions, from the
    committed offset to the first record or the partition's end. librdkafka delivers no control
    record (a transaction marker) and, where the broker names the aborted transactions, no record
    of one. True: a record was delivered below ``end``. False: none was, and the read reached
    ``end`` (every offset between holds a marker or an aborted record: they will never be
    consumed). None: unknown: the read stopped short of ``end`` at the last stable offset (a
    transaction still open: what follows is not decided yet), failed, or did not end within
    what is left of --timeout (a refinement of an answer already read: it never extends the
    command's --timeout)."""
    from confluent_kafka import TopicPartition

    out: dict[tuple[str, int], bool | None] = {tp: None for tp in partitions}
    wanted = {tp: (committed, end) for tp, (committed, end) in partitions.items() if 0 <= committed < end}
    if not wanted or cluster.deadline - time.monotonic() <= 0.2:
        return out
    consumer = readonly_consumer(
        cluster.client, {"fetch.max.bytes": 1024 * 1024, "max.partition.fetch.bytes": 64 * 1024,
                         "queued.max.messages.kbytes": 1024, "fetch.wait.max.ms": 10},
        **{"isolation.level": "read_committed", "auto.offset.reset": "error"})
    try:
        consumer.assign([TopicPartition(t, p, committed) for (t, p), (committed, _) in wanted.items()])
        deadline = cluster.deadline - 0.2
        while wanted and time.monotonic() < deadline:
            done = []
            for msg in consumer.consume(num_messages=len(wanted), timeout=SLICE):
                tp = (msg.topic() or "", msg.partition() or 0)
                if tp not in wanted:
                    continue
                err, offset, end = msg.error(), msg.offset(), wanted[tp][1]
                if err is None:
                    # the first record delivered: below the end, the lag holds it; at or past
                    # the end, every offset before it was skipped
                    out[tp] = offset is not None and offset < end
                elif err.code() == KafkaError._PARTITION_EOF:
                    # a read_committed consumer's end is the last stable offset
                    out[tp] = False if offset is not None and offset >= end else None
                done.append(tp)
                del wanted[tp]
            if done:
                cluster.answered = True
                consumer.incremental_unassign([TopicPartition(t, p) for t, p in done])
    finally:
        consumer.close()
    return out


def log_bounds(cluster: Session, partitions: list[tuple[str, int]]
               ) -> tuple[dict[tuple[str, int], LogBounds], list[str]]:
    """Each partition's log start and end now (ListOffsets earliest and latest, one request per
    leader broker) and whether its topic is compacted (DescribeConfigs), each read with a fresh
    --timeout: ({(topic, partition): LogBounds} of the partitions whose offsets were read,
    problems), a partition or topic that could not be read named in the problems."""
    cluster.renew_deadline()
    offsets, problems = finish_log_offsets(cluster, start_log_offsets(cluster, partitions))
    cluster.renew_deadline()
    policies, failed = _compacted(cluster, {t for t, _ in partitions})
    problems += failed
    bounds = {tp: LogBounds(start, end, policies.get(tp[0]))
              for tp, (start, end) in offsets.items() if start is not None and end is not None}
    return bounds, problems


def _compacted(cluster: Session, topics: Iterable[str]) -> tuple[dict[str, bool | None], list[str]]:
    """Whether each topic is compacted (its cleanup.policy names compact), from
    DescribeConfigs: ({topic: bool, or None where it could not be read}, problems)."""
    from confluent_kafka.admin import ConfigResource, ResourceType  # type: ignore[attr-defined]  # re-exported, untyped

    out: dict[str, bool | None] = {}
    problems: list[str] = []
    names = sorted(topics)
    if not names:
        return out, problems
    what = "describe topic configs"
    futures = cluster.admin.describe_configs([ConfigResource(ResourceType.TOPIC, t) for t in names],
                                           request_timeout=max(0.1, cluster.left(what) - 0.3))
    for resource, future in futures.items():
        topic = resource.name
        try:
            configs = cluster.wait(what, future)
        except Deadline:
            out[topic] = None
            problems.append(f"{topic}: its cleanup.policy did not come back within {cluster.settings.timeout:g} s")
            continue
        except KafkaException as e:  # the offsets were read just before: the cluster is there
            err = e.args[0]
            out[topic] = None
            problems.append(f"{topic}: its cleanup.policy could not be read ({err.str()}), so whether "
                            f"it is compacted is not known")
            continue
        entry = configs.get("cleanup.policy")
        # not named: Kafka's default, delete (a broker that returns only what was set, as Tansu)
        policy = (entry.value or "") if entry is not None else "delete"
        out[topic] = "compact" in {p.strip() for p in policy.split(",")}
    return out, problems


class RecordReader:
    """A partition's records as a search by time reads them (kgroup.lag.ends' RecordReading):
    ListOffsets by timestamp through the admin client (one request per leader broker per call),
    records read by a consumer that is only assigned partitions, nothing committed: small fetches
    for a read of a few records per partition, large ones (another consumer) for a read of many
    (an ordered pass over a stretch of a log). Each call is one wait for the cluster, bounded by
    --timeout. What could not be read is named in ``problems``; ``close()`` closes the consumers."""

    # a read wants a few records per partition: fetch little at a time
    _CONF = {"fetch.max.bytes": 1024 * 1024, "max.partition.fetch.bytes": 64 * 1024,
             "queued.max.messages.kbytes": 1024, "fetch.wait.max.ms": 10, "auto.offset.reset": "error",
             "isolation.level": "read_uncommitted", "check.crcs": "false"}
    # a pass reads thousands of records per partition: few large fetches (each fetch costs a
    # broker round trip; Tansu took about 65 ms a fetch however small, and with 64 KiB fetches
    # a pass over 80,000 records took 6 s where 1 MiB fetches took 1.2 s)
    _PASS_CONF = {**_CONF, "fetch.max.bytes": 50 * 1024 * 1024, "max.partition.fetch.bytes": 1024 * 1024,
                  "queued.max.messages.kbytes": 64 * 1024, "fetch.wait.max.ms": 500}
    _PASS_COUNT = 256  # a read of more records than this (of any partition) goes through the pass consumer
    _BATCH = 1_000  # messages handed over by one consume() call at most, in a pass

    def __init__(self, cluster: Session):
        self.cluster = cluster
        self.problems: list[str] = []
        self._consumer: Consumer | None = None
        self._pass_consumer: Consumer | None = None

    def close(self) -> None:
        for consumer in (self._consumer, self._pass_consumer):
            if consumer is not None:
                consumer.close()
        self._consumer = self._pass_consumer = None

    def offsets_for_times(self, timestamps: Mapping[tuple[str, int], int]) -> dict[tuple[str, int], int | None]:
        from confluent_kafka import TopicPartition
        from confluent_kafka.admin import OffsetSpec  # type: ignore[attr-defined]  # re-exported, untyped

        cluster = self.cluster
        cluster.renew_deadline()
        request_timeout = max(0.1, cluster.left("list offsets by time") - 0.3)
        futures = cluster.admin.list_offsets(
            {TopicPartition(t, p): OffsetSpec.for_timestamp(ts)
             for (t, p), ts in timestamps.items()}, request_timeout=request_timeout)
        # what is not answered is found from the records: no problem to name
        answers, _ = list_offsets_answers(cluster, futures, "by-time", sentinel=True)
        return answers

    def records_at(self, reads: Mapping[tuple[str, int], tuple[int, int]]
                   ) -> dict[tuple[str, int], list[tuple[int, int]]]:
        from confluent_kafka import TopicPartition

        cluster = self.cluster
        what = "read records"
        large = any(count > self._PASS_COUNT for _, count in reads.values())
        if large:
            if self._pass_consumer is None:
                self._pass_consumer = readonly_consumer(cluster.client, **self._PASS_CONF)
            consumer = self._pass_consumer
        else:
            if self._consumer is None:
                self._consumer = readonly_consumer(cluster.client, **self._CONF)
            consumer = self._consumer
        cluster.renew_deadline()
        out: dict[tuple[str, int], list[tuple[int, int]]] = {tp: [] for tp in reads}
        wanted = {tp: (position, count) for tp, (position, count) in reads.items() if count > 0}
        consumer.assign([TopicPartition(t, p, position) for (t, p), (position, _) in wanted.items()])
        failed: dict[tuple[str, int], str] = {}
        while wanted:
            if time.monotonic() >= cluster.deadline:
                for tp in wanted:
                    failed[tp] = f"no records within {cluster.settings.timeout:g} s"
                break
            cluster.check_errors(what)
            done = []
            # at least one message (a record or the partition's end) comes for each wanted
            # partition: ask for no more, as consume() waits for them all or the timeout; in a
            # pass, for up to the records still wanted (fewer only where a log ends early: one
            # wait of at most SLICE)
            n = len(wanted)
            if large:
                n = max(n, min(self._BATCH, sum(count - len(out[tp]) for tp, (_, count) in wanted.items())))
            for msg in consumer.consume(num_messages=n, timeout=SLICE):
                tp = (msg.topic() or "", msg.partition() or 0)
                if tp not in wanted:  # one already read, or of an earlier assignment
                    continue
                err = msg.error()
                if err is not None:
                    if err.code() != KafkaError._PARTITION_EOF:
                        failed[tp] = err.str()
                    done.append(tp)
                    del wanted[tp]
                    continue
                position, count = wanted[tp]
                offset = msg.offset()
                if offset is None or offset < position or (out[tp] and offset <= out[tp][-1][0]):
                    continue
                out[tp].append((offset, msg.timestamp()[1]))
                if len(out[tp]) >= count:
                    done.append(tp)
                    del wanted[tp]
            if done:
                consumer.incremental_unassign([TopicPartition(t, p) for t, p in done])
        consumer.unassign()
        for (t, p), why in failed.items():
            del out[(t, p)]
            self.problems.append(f"{t}-{p}: its records could not be read ({why})")
        if out:
            cluster.answered = True
        return out
