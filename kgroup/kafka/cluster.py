"""The one module that talks to Kafka: every confluent-kafka call lives here.

It returns the project's own dataclasses (kgroup.group.model) and turns client
errors into KgroupError with the documented exit codes. It never joins a
group, never commits, and never names a topic in a metadata request (a
broker with auto-creation on would create it).
"""
from __future__ import annotations

import base64
import json
import logging
import struct
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from kgroup.group.assignment import Assignment, by_topic
from kgroup.errors import ClusterError, UsageError
from kgroup.group.model import (Broker, ClusterMetadata, CoordinatorLookup, GroupDescription, GroupListing, Member,
                          PartitionInfo, PartitionOffsets, TopicInfo)
from kgroup.output.render import printable
from kgroup.kafka.settings import ConnectionSettings
from kgroup.kmsg import states

if TYPE_CHECKING:  # imported where used: a command that needs neither does not load them
    import concurrent.futures
    import queue

    from kgroup.lag.ends import LogEndsAt

_UNREACHABLE = {KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._TIMED_OUT,
                KafkaError._RESOLVE, KafkaError.REQUEST_TIMED_OUT}
_NOT_AUTHORIZED = {KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED,
                   KafkaError.CLUSTER_AUTHORIZATION_FAILED, KafkaError.TOPIC_AUTHORIZATION_FAILED,
                   KafkaError.GROUP_AUTHORIZATION_FAILED, KafkaError._SSL}
# OffsetFetch requests in flight at once when many groups are read (--all-groups)
_GROUP_WINDOW = 64
_BATCHED_FROM = 10  # groups from which committed offsets are fetched many groups per request
_DESCRIBE_WINDOW = 256  # describes in flight (iter_describe_groups)
_DESCRIBE_BATCH = 64  # groups asked for per call once that many answers are handed out
# librdkafka refuses a connection set-up timeout under 1 s; --timeout may be shorter.
_MIN_SETUP_MS = 1000
# How often a wait on the cluster looks at the client's own errors.
_SLICE = 0.05
# Properties kgroup forces so that the clients it makes stay read-only.
_READ_ONLY = {"enable.auto.commit": "false", "enable.auto.offset.store": "false",
              "allow.auto.create.topics": "false"}


def uuid_text(uuid: Any) -> str:  # a confluent_kafka Uuid
    """A client Uuid as Kafka prints it: URL-safe base64, unpadded (the client's str() uses the
    standard alphabet, so an id holding '+' or '/' would not be the id Kafka shows)."""
    raw = struct.pack(">qq", uuid.get_most_significant_bits(), uuid.get_least_significant_bits())
    return base64.urlsafe_b64encode(raw).decode("ascii")[:22]


class _Deadline(ClusterError):
    """--timeout ran out while waiting for an answer."""


class _RedactingHandler(logging.Handler):
    def __init__(self, settings: ConnectionSettings):
        super().__init__()
        self.settings = settings

    def emit(self, record: logging.LogRecord) -> None:
        # a client log line quotes what brokers sent (hosts, topic and group names): escaped too
        sys.stderr.write(printable(self.settings.redact(f"librdkafka: {record.getMessage()}")) + "\n")


class _DisconnectCounter(logging.Handler):
    """Counts connections the broker closed or reset as soon as they were up: the sign of a
    listener that wants authentication (SASL) or TLS from a client that offers neither."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if "Disconnected" in message and "after 0ms" in message:
            self.count += 1


# Connections closed at once, before any answer, that make kgroup say authentication is the likely cause
_CLOSED_AT_ONCE = 5


class Cluster:
    """A read-only view of one cluster, built from connection settings."""

    def __init__(self, settings: ConnectionSettings):
        self.settings = settings
        self.bootstrap = settings.require_bootstrap()
        self._errors: list[KafkaError] = []
        self._logger = logging.getLogger(f"kgroup.librdkafka.{id(self)}")
        self._logger.propagate = False
        noisy = settings.verbose or "debug" in settings.properties
        printer = _RedactingHandler(settings)
        printer.setLevel(logging.DEBUG if noisy else logging.CRITICAL + 1)
        self._closed = _DisconnectCounter()
        self._logger.addHandler(printer)
        self._logger.addHandler(self._closed)
        self._logger.setLevel(logging.DEBUG)
        # --timeout bounds the whole command: every request gets what is left of it
        self._deadline = time.monotonic() + settings.timeout
        self._answered = False  # has any broker answered yet?
        self._admin = AdminClient(self._config())
        self._brokers: dict[int, Broker] = {}  # as the last metadata() saw them
        self._coordinators: Any = None  # kgroup.kafka.wire's Coordinators, once opened; False: not usable

    # -- plumbing -------------------------------------------------------------

    def _config(self, **extra: object) -> dict[str, Any]:
        conf: dict[str, Any] = {"socket.connection.setup.timeout.ms": max(_MIN_SETUP_MS, int(self.settings.timeout * 1000)),
                      **self.settings.properties, **extra}
        conf["logger"] = self._logger
        conf["error_cb"] = self._errors.append
        return conf

    def _fail(self, what: str, error: KafkaError | Exception) -> ClusterError:
        err = error if isinstance(error, KafkaError) else (
            error.args[0] if isinstance(error, KafkaException) and error.args else None)
        detail = self._detail(err)
        if any(e.code() in _NOT_AUTHORIZED for e in [*self._errors, err] if isinstance(e, KafkaError)):
            return ClusterError(self.settings.redact(f"not authorized or authentication failed: could not {what} ({detail})"))
        return ClusterError(self.settings.redact(
            f"cannot reach the cluster at {self.bootstrap} within {self.settings.timeout:g} s "
            f"while trying to {what} ({detail})"))

    def _left(self, what: str) -> float:
        """Seconds left of --timeout; the command fails (exit 3) when none are."""
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise self._fail(what, KafkaError(KafkaError._TIMED_OUT))
        return left

    def _check_errors(self, what: str) -> None:
        """Fail now on what the client already knows to be final (see _final_error)."""
        self._admin.poll(0)
        error = _final_error(self.settings, self.bootstrap, what, self._errors, self._closed.count, self._answered)
        if error is not None:
            raise error

    def _wait(self, what: str, future: concurrent.futures.Future[Any], grace: float = 0.0) -> Any:
        """The result of ``future`` (KafkaException as raised), waited for no longer than what is
        left of --timeout (plus ``grace``), failing early on final client errors."""
        import concurrent.futures

        while True:
            left = self._deadline + grace - time.monotonic()
            if left <= 0:
                raise _Deadline(self._fail(what, KafkaError(KafkaError._TIMED_OUT)).message)
            try:
                result = future.result(timeout=min(_SLICE, left))
            except concurrent.futures.TimeoutError:
                self._check_errors(what)
                continue
            self._answered = True
            return result

    def _detail(self, err: KafkaError | None) -> str:
        # The client's own errors (error_cb) say why better than the final timeout does.
        self._admin.poll(0)
        for e in reversed(self._errors):
            if e.code() in _NOT_AUTHORIZED:
                return e.str()
        if self._errors:
            return self._errors[-1].str()
        return err.str() if isinstance(err, KafkaError) else "no answer"

    # -- metadata -------------------------------------------------------------

    def metadata(self) -> ClusterMetadata:
        """Brokers and every topic visible to this client (no topic is named)."""
        import concurrent.futures
        import threading

        what = "read cluster metadata"
        while True:
            future: concurrent.futures.Future[Any] = concurrent.futures.Future()
            left = self._left(what)

            # list_topics blocks: it runs aside so that the wait can fail early and Ctrl-C works
            def call(future: concurrent.futures.Future[Any] = future, left: float = left) -> None:
                try:
                    future.set_result(self._admin.list_topics(timeout=left))
                except BaseException as e:  # handed over to the waiting thread
                    future.set_exception(e)

            threading.Thread(target=call, daemon=True, name="kgroup-metadata").start()
            try:
                md = self._wait(what, future, grace=0.5)
                break
            except KafkaException as e:
                # a connection dropped under the request: the client reconnects, ask again
                if e.args and e.args[0].code() == KafkaError._TRANSPORT and self._deadline - time.monotonic() > 0.2:
                    self._check_errors(what)
                    time.sleep(0.1)
                    continue
                raise self._fail(what, e) from None
        brokers = {b.id: Broker(b.id, b.host, b.port) for b in md.brokers.values()}
        topics = {}
        for name, t in md.topics.items():
            partitions = {p.id: PartitionInfo(p.id, p.leader, tuple(p.replicas),
                                              p.error.name() if p.error else None)
                          for p in t.partitions.values()}
            topics[name] = TopicInfo(name, partitions, t.error.name() if t.error else None)
        self._brokers = brokers
        return ClusterMetadata(brokers, topics, md.cluster_id)

    # -- groups ---------------------------------------------------------------

    def list_groups(self) -> list[GroupListing]:
        future = self._admin.list_consumer_groups(request_timeout=self._left("list groups"))
        try:
            result = self._wait("list groups", future)
        except KafkaException as e:
            err = e.args[0]
            if err.code() == KafkaError._UNSUPPORTED_FEATURE:
                raise ClusterError("the cluster does not support listing groups (ListGroups)") from None
            raise self._fail("list groups", e) from None
        if result.errors and not result.valid:
            raise self._fail("list groups", result.errors[0])
        out = []
        for g in result.valid:
            out.append(GroupListing(
                group_id=g.group_id,
                type=_enum_name(getattr(g, "type", None)),
                state=_state_name(g.state),
            ))
        return sorted(out, key=lambda g: g.group_id)

    def find_coordinators(self, groups: Iterable[str], brokers: dict[int, Broker]) -> dict[str, CoordinatorLookup]:
        """What FindCoordinator answers for each group.

        Uses DescribeGroups/ConsumerGroupDescribe (which start with FindCoordinator and
        report the coordinator). Where the cluster supports neither, a group-less
        lookup falls back to a consumer that only locates the coordinator and never
        subscribes, joins or commits.
        """
        groups = list(dict.fromkeys(groups))
        out: dict[str, CoordinatorLookup] = {}
        unsupported: list[str] = []
        if not groups:
            return out
        futures = self._admin.describe_consumer_groups(groups, request_timeout=self._left("find coordinators"))
        for group, future in futures.items():
            try:
                desc = self._wait(f"find the coordinator of group {group}", future)
            except KafkaException as e:
                err: KafkaError = e.args[0]
                if err.code() == KafkaError._UNSUPPORTED_FEATURE:
                    unsupported.append(group)
                    continue
                if err.code() in _UNREACHABLE and not self._any_answer(out):
                    raise self._fail(f"find the coordinator of group {group}", e) from None
                out[group] = CoordinatorLookup(group, None, err.name(), err.str())
                continue
            node = desc.coordinator
            out[group] = CoordinatorLookup(group, brokers.get(node.id) or Broker(node.id, node.host, node.port))
        if unsupported:
            out.update(self._probe_coordinators(unsupported, brokers))
        return {g: out[g] for g in groups}

    @staticmethod
    def _any_answer(out: dict[str, CoordinatorLookup]) -> bool:
        return any(lookup.coordinator for lookup in out.values())

    def _probe_coordinators(self, groups: list[str], brokers: dict[int, Broker]) -> dict[str, CoordinatorLookup]:
        """FindCoordinator through librdkafka's group client, read from its statistics.

        The consumer is never subscribed nor assigned, so it sends no JoinGroup,
        no OffsetCommit and no LeaveGroup; auto-commit is off besides.
        """
        by_address = {b.address: b for b in brokers.values()}
        found: dict[str, CoordinatorLookup] = {}
        consumers = {}
        for group in groups:
            holder: dict[str, str] = {}
            conf = self._config(**_READ_ONLY, **{
                "group.id": group, "statistics.interval.ms": 100,
                "stats_cb": lambda stats, h=holder: h.__setitem__("stats", stats)})
            consumers[group] = (Consumer(conf), holder)
        deadline = self._deadline
        try:
            while consumers and time.monotonic() < deadline:
                for group, (consumer, holder) in list(consumers.items()):
                    consumer.poll(0.05)
                    address = _coordinator_address(holder.get("stats"))
                    if address:
                        broker = by_address.get(address)
                        if broker is None:
                            host, _, port = address.rpartition(":")
                            broker = Broker(-1, host, int(port))
                        found[group] = CoordinatorLookup(group, broker)
                        consumers.pop(group)
                        consumer.close()
        finally:
            for consumer, _ in consumers.values():
                consumer.close()
        for group in groups:
            found.setdefault(group, CoordinatorLookup(group, None, "COORDINATOR_NOT_AVAILABLE",
                                                      "no coordinator found within the timeout"))
        return found


    # -- group contents ------------------------------------------------------

    def brokers_with_racks(self) -> list[Broker]:
        """DescribeCluster: brokers with their racks (KIP-881 rack-aware assignment)."""
        try:
            desc = self._wait("describe the cluster", self._admin.describe_cluster(
                request_timeout=self._left("describe the cluster")))
        except KafkaException as e:
            raise self._fail("describe the cluster", e) from None
        return sorted((Broker(n.id, n.host, n.port, n.rack or None) for n in desc.nodes), key=lambda b: b.id)

    def topic_ids(self, topics: list[str]) -> dict[str, str]:
        """DescribeTopics: each topic's id as Kafka prints it, for the topics whose id the
        cluster reports. Best effort: ids only refine the ``uniform`` what-if, so a broker
        that cannot describe topics yields none (and whatif says it assumes name order)."""
        from confluent_kafka import TopicCollection

        try:
            futures = self._admin.describe_topics(TopicCollection(list(topics)), request_timeout=self.settings.timeout)
        except (KafkaException, ValueError, TypeError):
            return {}
        out = {}
        for name, future in futures.items():
            try:
                topic_id = future.result().topic_id
            except KafkaException:
                continue
            text = "" if topic_id is None else uuid_text(topic_id)
            if text and text != "AAAAAAAAAAAAAAAAAAAAAA":  # Kafka's zero id: unknown
                out[name] = text
        return out

    def describe_groups(self, groups: list[str]) -> dict[str, GroupDescription]:
        """DescribeGroups / ConsumerGroupDescribe for each group: many groups per request through
        kgroup.kafka.wire where the cluster and the connection settings allow (see _batched_describe),
        else one request per group through librdkafka."""
        names = list(dict.fromkeys(groups))
        if len(names) >= _BATCHED_FROM:
            from kgroup.kafka.wire.describe import Describe

            coordinators = self._coordinators_for(Describe())
            if coordinators is not None:
                return dict(zip(names, self._batched_describe(names, coordinators)))
        return self._describe_groups(names)

    def _describe_groups(self, groups: list[str]) -> dict[str, GroupDescription]:
        out: dict[str, GroupDescription] = {}
        if not groups:
            return out
        futures = self._admin.describe_consumer_groups(groups, request_timeout=self._left("describe groups"))
        for group, future in futures.items():
            out[group] = self._description(group, future)
        return out

    def iter_describe_groups(self, groups: list[str], window: int = _DESCRIBE_WINDOW,
                             batch: int = _DESCRIBE_BATCH) -> Iterator[GroupDescription]:
        """The descriptions of ``groups`` one by one, in the order given, holding a bounded number
        at once, so memory stays flat in the number of groups: many groups per request through
        kgroup.kafka.wire where it can be used (see _batched_describe), else through librdkafka's."""
        if len(groups) >= _BATCHED_FROM:
            from kgroup.kafka.wire.describe import Describe

            coordinators = self._coordinators_for(Describe())
            if coordinators is not None:
                yield from self._batched_describe(groups, coordinators)
                return
        yield from self._iter_describe_groups(groups, window, batch)

    def _batched_describe(self, groups: list[str], coordinators: Any) -> Iterator[GroupDescription]:
        """The descriptions of ``groups``, in the order given, asked through kgroup.kafka.wire's
        Coordinators (ConsumerGroupDescribe, then DescribeGroups for classic groups, up to 100
        groups per request); a group it hands back is described through librdkafka (so errors
        read as they always have), and after a connection of it failed, every group not yet
        described is. At most a few hundred descriptions are held at once."""
        from collections import deque

        from kgroup.kafka.wire.coordinators import GROUPS_PER_REQUEST, REQUESTS_IN_FLIGHT
        from kgroup.kafka.wire.describe import Describe

        names = iter(enumerate(groups))
        exhausted = False
        failed: deque[Any] = deque()
        ready: dict[int, GroupDescription] = {}
        head = 0
        bound = 2 * GROUPS_PER_REQUEST * REQUESTS_IN_FLIGHT  # held, handed back or answered, before pausing

        def next_request() -> tuple[int, str, None] | None:
            nonlocal exhausted
            if len(failed) + len(ready) >= bound:
                return None  # let iterate end, settle what was handed back, hand out, go on
            item = next(names, None)
            if item is None:
                exhausted = True
                return None
            return item[0], item[1], None

        def settle() -> None:
            if failed:
                asked = list(failed)
                failed.clear()
                described = self._describe_groups(list(dict.fromkeys(g for _, g, _ in asked)))
                for i, g, _ in asked:
                    ready[i] = described[g]

        exchange = Describe()
        while True:
            for i, _, description in coordinators.iterate(exchange, next_request, failed):
                ready[i] = description
                while head in ready:
                    yield ready.pop(head)
                    head += 1
            settle()
            while head in ready:
                yield ready.pop(head)
                head += 1
            if coordinators.broken:
                yield from self._iter_describe_groups([g for _, g in names])
                return
            if exhausted:
                return

    def _iter_describe_groups(self, groups: Iterable[str], window: int = _DESCRIBE_WINDOW,
                              batch: int = _DESCRIBE_BATCH) -> Iterator[GroupDescription]:
        """Through librdkafka: at most ``window`` describes in flight. A sliding window: as soon
        as ``batch`` answers have been handed out, as many more groups are asked for, in one call
        (the client sends one request per group either way; fewer calls cost less)."""
        from collections import deque

        pending: deque[tuple[str, concurrent.futures.Future[Any]]] = deque()
        names = iter(groups)
        batch = max(1, min(batch, window))
        exhausted = False
        while True:
            free = window - len(pending)
            if not exhausted and free >= batch:
                asked = [g for _, g in zip(range(free), names)]
                exhausted = len(asked) < free
                if asked:
                    futures = self._admin.describe_consumer_groups(list(dict.fromkeys(asked)),
                                                                   request_timeout=self._left("describe groups"))
                    pending.extend((g, futures[g]) for g in asked)
            if not pending:
                return
            group, future = pending.popleft()
            yield self._description(group, future)

    def _description(self, group: str, future: concurrent.futures.Future[Any]) -> GroupDescription:
        try:
            d = self._wait(f"describe group {group}", future)
        except KafkaException as e:
            raise self._group_error(group, "describe", e) from None
        members = [Member(
            member_id=m.member_id, client_id=m.client_id or None, host=m.host or None,
            group_instance_id=m.group_instance_id or None,
            assignment=_by_topic(m.assignment.topic_partitions if m.assignment else []),
            target_assignment=(_by_topic(m.target_assignment.topic_partitions)
                               if getattr(m, "target_assignment", None) else None),
        ) for m in d.members]
        node = d.coordinator
        return GroupDescription(
            group_id=d.group_id, type=_enum_name(getattr(d, "type", None)), state=_state_name(d.state),
            assignor=d.partition_assignor or None, members=members,
            coordinator=Broker(node.id, node.host, node.port, getattr(node, "rack", None) or None) if node else None,
            protocol_type="consumer" if not d.is_simple_consumer_group else None,
        )

    def _group_error(self, group: str, what: str, e: KafkaException) -> Exception:
        err: KafkaError = e.args[0]
        code = err.code()
        if code == KafkaError.GROUP_AUTHORIZATION_FAILED:
            return ClusterError(f"not authorized to {what} group {group} (this principal needs DESCRIBE on it)")
        if code == KafkaError.COORDINATOR_NOT_AVAILABLE:
            return ClusterError(f"cannot {what} group {group}: COORDINATOR_NOT_AVAILABLE (offsets topic not created "
                                "yet, or its partition for this group has no live leader; see kgroup find-coordinator)")
        if code == KafkaError._UNSUPPORTED_FEATURE:
            return ClusterError(f"cannot {what} group {group}: the cluster supports neither ConsumerGroupDescribe "
                                "nor DescribeGroups")
        if code == KafkaError.GROUP_ID_NOT_FOUND:
            return UsageError(f"unknown group {group}")
        return self._fail(f"{what} group {group}", e)

    def committed_offsets(self, groups: dict[str, list[tuple[str, int]] | None]) -> dict[str, dict[tuple[str, int], PartitionOffsets]]:
        """OffsetFetch per group: the listed partitions, or every committed one when None.

        One request per group (the protocol's unit), through the sliding window of
        iter_committed_offsets."""
        items = iter(groups.items())

        def next_request() -> tuple[str, str, list[tuple[str, int]] | None] | None:
            item = next(items, None)
            return None if item is None else (item[0], item[0], item[1])

        out: dict[str, dict[tuple[str, int], PartitionOffsets]] = {}
        for _, group, found in self.iter_committed_offsets(next_request, groups=len(groups)):
            out[group] = {tp: PartitionOffsets(committed=c, metadata=m, leader_epoch=e)
                          for tp, (c, m, e) in found.items()}
        return {g: out[g] for g in groups}

    def iter_committed_offsets(self, next_request: Callable[[], tuple[Any, str, list[tuple[str, int]] | None] | None],
                               window: int = _GROUP_WINDOW, groups: int | None = None
                               ) -> Iterator[tuple[Any, str, dict[tuple[str, int], Any]]]:
        """OffsetFetch for each request ``next_request()`` hands out, as _iter_committed_offsets
        says; many groups per request through kgroup.kafka.wire where the cluster and the connection
        settings allow (see kgroup.kafka.wire.offset_fetch), the rest one group per request through
        librdkafka. ``groups``: how many groups will be asked about, when known; for fewer than
        _BATCHED_FROM the connections the batched path opens would cost more than they save."""
        from collections import deque

        from kgroup.kafka.wire.offset_fetch import OffsetFetch

        exchange = OffsetFetch()
        coordinators = None if groups is not None and groups < _BATCHED_FROM else self._coordinators_for(exchange)
        if coordinators is None:
            yield from self._iter_committed_offsets(next_request, window)
            return
        failed: deque[Any] = deque()
        while True:
            yield from coordinators.iterate(exchange, next_request, failed)
            if coordinators.broken:  # the rest through librdkafka
                yield from self._iter_committed_offsets(lambda: failed.popleft() if failed else next_request(), window)
                return
            if not failed:
                return
            yield from self._iter_committed_offsets(lambda: failed.popleft() if failed else None, window)

    def _coordinators_for(self, exchange: Any) -> Any:
        """kgroup.kafka.wire's Coordinators, to ask ``exchange`` (a kgroup.kafka.wire Exchange) about many
        groups per request, or None where it cannot be used (then librdkafka asks): connection
        settings it does not speak, no broker answering it, a cluster that does not speak the
        exchange, or a connection of it failed earlier. Opened once, on the brokers the metadata
        named (else the bootstrap servers), and shared by every exchange."""
        if self._coordinators is None:
            self._coordinators = False
            from kgroup.kafka.wire.coordinators import bootstrap_addresses, eligible

            addresses = ([(b.host, b.port) for b in sorted(self._brokers.values(), key=lambda b: b.id)]
                         or bootstrap_addresses(self.bootstrap))
            if eligible(self.settings.properties) and addresses:
                from kgroup.kafka.wire.connection import WireError
                from kgroup.kafka.wire.coordinators import Coordinators

                # a third of the time left is kept for librdkafka, should a batched answer never come
                now = time.monotonic()
                try:
                    self._coordinators = Coordinators(addresses, self.settings.properties.get("client.id", "rdkafka"),
                                                      now + (self._deadline - now) * 2 / 3)
                except WireError:
                    pass
        coordinators = self._coordinators
        if not coordinators or coordinators.broken or not coordinators.speaks(exchange):
            return None
        return coordinators

    def _iter_committed_offsets(self, next_request: Callable[[], tuple[Any, str, list[tuple[str, int]] | None] | None],
                                window: int = _GROUP_WINDOW) -> Iterator[tuple[Any, str, dict[tuple[str, int], Any]]]:
        """OffsetFetch for each request ``next_request()`` hands out: ``(key, group, partitions)``,
        partitions None for every committed one; None when it has nothing (more) to ask for now.

        A sliding window: at most ``window`` requests in flight, and a new one goes out as soon
        as any answer comes back (never lock-step batches; never unbounded, which lets answers
        time out on a loaded coordinator). Yields ``(key, group, {(topic, partition): (committed,
        metadata, leader_epoch)})`` in the order answers arrive; ends when nothing is in flight
        and ``next_request`` has nothing. ``next_request`` is asked again after every yield, so
        the caller may queue follow-up requests while iterating."""
        import queue

        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

        what = "fetch committed offsets"
        in_flight: dict[concurrent.futures.Future[Any], tuple[Any, str]] = {}  # future -> (key, group)
        # each answer puts its future here as it completes (in the client's thread): waiting for
        # the next one costs the same whatever the window, where a wait over every future in
        # flight would lock and unlock each of them every time
        answered: queue.SimpleQueue[concurrent.futures.Future[Any]] = queue.SimpleQueue()
        unknown_topic = KafkaError.UNKNOWN_TOPIC_OR_PART
        while True:
            while len(in_flight) < window:
                request = next_request()
                if request is None:
                    break
                key, group, partitions = request
                spec = ConsumerGroupTopicPartitions(
                    group, None if partitions is None else [TopicPartition(t, p) for t, p in partitions])
                future = self._admin.list_consumer_group_offsets(
                    [spec], request_timeout=self._left(what), require_stable=False)[group]
                in_flight[future] = (key, group)
                future.add_done_callback(answered.put)
            if not in_flight:
                return
            left = self._deadline - time.monotonic()
            if left <= 0:
                key, group = next(iter(in_flight.values()))
                raise _Deadline(self._fail(f"fetch the committed offsets of group {group}",
                                           KafkaError(KafkaError._TIMED_OUT)).message)
            try:
                done = [answered.get(timeout=min(_SLICE, left))]
            except queue.Empty:
                self._check_errors(what)
                continue
            while True:  # and whatever else has come back meanwhile
                try:
                    done.append(answered.get_nowait())
                except queue.Empty:
                    break
            self._answered = True
            for future in done:
                key, group = in_flight.pop(future)
                try:
                    result = future.result()
                except KafkaException as e:
                    raise self._group_error(group, "fetch the committed offsets of", e) from None
                found = {}
                for tp in result.topic_partitions or ():
                    if tp.error is not None and tp.error.code() != unknown_topic:
                        raise self._group_error(group, "fetch the committed offsets of", KafkaException(tp.error))
                    committed = tp.offset if tp.offset >= 0 else None
                    epoch = getattr(tp, "leader_epoch", None)
                    found[(tp.topic, tp.partition)] = (committed, tp.metadata if committed is not None else None,
                                                       epoch if epoch is not None and epoch >= 0 else None)
                yield key, group, found

    def log_offsets(self, partitions: list[tuple[str, int]]) -> tuple[dict[tuple[str, int], tuple[int | None, int | None]], list[str]]:
        """ListOffsets earliest and latest for every partition, one request per leader broker.

        Returns ({(topic, partition): (log_start, log_end)}, problems); a partition
        whose offsets could not be read is reported in problems, never guessed.
        """
        return self.finish_log_offsets(self.start_log_offsets(partitions))

    def start_log_offsets(self, partitions: list[tuple[str, int]]
                          ) -> tuple[list[tuple[str, int]], list[tuple[int, Any]]]:
        """Send ListOffsets earliest and latest for ``partitions`` without waiting; the answer
        is finish_log_offsets(what this returns)."""
        from confluent_kafka import TopicPartition
        from confluent_kafka.admin import OffsetSpec  # type: ignore[attr-defined]  # re-exported, untyped

        if not partitions:
            return partitions, []
        requests = [TopicPartition(t, p) for t, p in partitions]
        # the client answers each partition before the command's deadline, so that what did
        # come back is shown and what did not is named
        request_timeout = max(0.1, self._left("list offsets") - 0.3)
        # earliest and latest go out together; the client sends one request per leader broker
        specs = ((0, OffsetSpec.earliest()), (1, OffsetSpec.latest()))  # type: ignore[no-untyped-call]
        pending = [(index, self._admin.list_offsets({tp: spec for tp in requests}, request_timeout=request_timeout))
                   for index, spec in specs]
        return partitions, pending

    def finish_log_offsets(self, handle: tuple[list[tuple[str, int]], list[tuple[int, Any]]]
                           ) -> tuple[dict[tuple[str, int], tuple[int | None, int | None]], list[str]]:
        """What start_log_offsets asked for: ({(topic, partition): (log_start, log_end)}, problems)."""
        partitions, pending = handle
        result: dict[tuple[str, int], list[int | None]] = {tp: [None, None] for tp in partitions}
        problems: list[str] = []
        if not partitions:
            return {}, problems
        for index, futures in pending:
            answers, failed = self._list_offsets_answers(futures, ("earliest", "latest")[index], may_fail=index == 0)
            problems += failed
            for tp, offset in answers.items():
                result[tp][index] = offset
        return {tp: (v[0], v[1]) for tp, v in result.items()}, problems

    def _list_offsets_answers(self, futures: dict[Any, concurrent.futures.Future[Any]], which: str,
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
                left = self._deadline + 0.5 - time.monotonic()
                if left <= 0:
                    break
                try:
                    future.exception(timeout=min(_SLICE, left))
                except concurrent.futures.TimeoutError:
                    self._check_errors(what)
            if not future.done():  # the deadline passed: what is missing is named, never guessed
                future.cancel()
                problems.append(f"{tp.topic}-{tp.partition}: no {which} offset within {self.settings.timeout:g} s")
                continue
            try:
                info = future.result()
            except KafkaException as e:
                err = e.args[0]
                if err.code() in _UNREACHABLE | _NOT_AUTHORIZED and may_fail and not problems and not out:
                    raise self._fail(what, e) from None
                problems.append(f"{tp.topic}-{tp.partition}: {err.str()}")
                continue
            except concurrent.futures.CancelledError:
                problems.append(f"{tp.topic}-{tp.partition}: no {which} offset within {self.settings.timeout:g} s")
                continue
            self._answered = True
            if info.offset < 0 and not (sentinel and info.offset == -1):
                # a client sentinel (-1001: no answer in time), not an offset
                problems.append(f"{tp.topic}-{tp.partition}: no valid {which} offset came back "
                                f"(the client returned {info.offset})")
                continue
            out[(tp.topic, tp.partition)] = None if info.offset < 0 else info.offset
        return out, problems

    def first_record_timestamps(self, positions: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
        """Timestamp (ms) of the record at each position, read by a consumer that is
        assigned partitions directly: it never joins a group and never commits."""
        from confluent_kafka import TopicPartition

        out: dict[tuple[str, int], int] = {}
        if not positions:
            return out
        consumer = self._assigning_consumer()
        try:
            consumer.assign([TopicPartition(t, p, o) for (t, p), o in positions.items()])
            pending = set(positions)
            deadline = self._deadline - 0.2
            while pending and time.monotonic() < deadline:
                for msg in consumer.consume(num_messages=500, timeout=0.2):
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

    def _assigning_consumer(self, **extra: object) -> Consumer:
        """A consumer that only reads partitions it is assigned: librdkafka insists on a
        group.id; a throwaway one is never joined (assign(), not subscribe()) and nothing is
        committed to it."""
        import uuid

        return Consumer(self._config(**_READ_ONLY, **{"group.id": f"kgroup-readonly-{uuid.uuid4()}",
                                                      "enable.partition.eof": "true", **extra}))

    # -- log ends at past moments (kgroup.lag.ends) --------------------------------

    def log_ends_at(self, moments: Mapping[tuple[str, int], Iterable[int]]) -> LogEndsAt:
        """Where each partition's log ended at each of its moments (ms): ListOffsets by
        timestamp, one call per slot (the k-th moment of every partition; one request per
        leader broker), every answer checked against the records and, where it is wrong, found
        from them (kgroup.lag.ends). Unknown where retention removed the records of a moment,
        the topic is compacted (or its cleanup.policy cannot be read), or the partition's
        offsets or records cannot be read; each such partition is named in the problems.

        As reading the offsets log, this may rightly take longer than --timeout: it bounds each
        wait for the cluster (a slot, a round of reads), not the whole answer.
        """
        from kgroup.lag.ends import LogBounds, LogEndsAt, ends_at

        partitions = sorted(moments)
        self._renew_deadline()
        offsets, problems = self.log_offsets(partitions)
        self._renew_deadline()
        policies, failed = self._compacted({t for t, _ in partitions})
        problems += failed
        bounds = {tp: LogBounds(start, end, policies.get(tp[0]))
                  for tp, (start, end) in offsets.items() if start is not None and end is not None}
        reader = _RecordReader(self)
        try:
            ends, stats = ends_at(reader, moments, bounds)
        finally:
            reader.close()
        return LogEndsAt(ends, stats, bounds, problems + reader.problems)

    def record_timestamps(self, positions: Mapping[tuple[str, int], Iterable[int]]) -> dict[tuple[str, int, int], int]:
        """The timestamp of the record at each offset of each partition, read by assignment only
        (kgroup.lag.ends.record_times): ``{(topic, partition, offset): ms}``; what could not be
        read is left out."""
        from kgroup.lag.ends import record_times

        reader = _RecordReader(self)
        try:
            return record_times(reader, positions)
        finally:
            reader.close()

    def _renew_deadline(self) -> None:
        self._deadline = max(self._deadline, time.monotonic() + self.settings.timeout)

    def _compacted(self, topics: Iterable[str]) -> tuple[dict[str, bool | None], list[str]]:
        """Whether each topic is compacted (its cleanup.policy names compact), from
        DescribeConfigs: ({topic: bool, or None where it could not be read}, problems)."""
        from confluent_kafka.admin import ConfigResource, ResourceType  # type: ignore[attr-defined]  # re-exported, untyped

        out: dict[str, bool | None] = {}
        problems: list[str] = []
        names = sorted(topics)
        if not names:
            return out, problems
        what = "describe topic configs"
        futures = self._admin.describe_configs([ConfigResource(ResourceType.TOPIC, t) for t in names],
                                               request_timeout=max(0.1, self._left(what) - 0.3))
        for resource, future in futures.items():
            topic = resource.name
            try:
                configs = self._wait(what, future)
            except _Deadline:
                out[topic] = None
                problems.append(f"{topic}: its cleanup.policy did not come back within {self.settings.timeout:g} s")
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


class _RecordReader:
    """kgroup.lag.ends' RecordSource over a Cluster: ListOffsets by timestamp through the
    admin client (one request per leader broker per call), records read by a consumer that is
    only assigned partitions, small fetches, nothing committed. Each call is one wait for the
    cluster, bounded by --timeout."""

    # a read wants a few records per partition: fetch little at a time
    _CONF = {"fetch.max.bytes": 1024 * 1024, "max.partition.fetch.bytes": 64 * 1024,
             "queued.max.messages.kbytes": 1024, "fetch.wait.max.ms": 10, "auto.offset.reset": "error",
             "isolation.level": "read_uncommitted", "check.crcs": "false"}

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.problems: list[str] = []
        self._consumer: Consumer | None = None

    def close(self) -> None:
        if self._consumer is not None:
            self._consumer.close()
            self._consumer = None

    def offsets_for_times(self, timestamps: Mapping[tuple[str, int], int]) -> dict[tuple[str, int], int | None]:
        from confluent_kafka import TopicPartition
        from confluent_kafka.admin import OffsetSpec  # type: ignore[attr-defined]  # re-exported, untyped

        cluster = self.cluster
        cluster._renew_deadline()
        request_timeout = max(0.1, cluster._left("list offsets by time") - 0.3)
        futures = cluster._admin.list_offsets(
            {TopicPartition(t, p): OffsetSpec.for_timestamp(ts)
             for (t, p), ts in timestamps.items()}, request_timeout=request_timeout)
        # what is not answered is found from the records: no problem to name
        answers, _ = cluster._list_offsets_answers(futures, "by-time", sentinel=True)
        return answers

    def records_at(self, reads: Mapping[tuple[str, int], tuple[int, int]]
                   ) -> dict[tuple[str, int], list[tuple[int, int]]]:
        from confluent_kafka import TopicPartition

        cluster = self.cluster
        what = "read records"
        if self._consumer is None:
            self._consumer = cluster._assigning_consumer(**self._CONF)
        consumer = self._consumer
        cluster._renew_deadline()
        out: dict[tuple[str, int], list[tuple[int, int]]] = {tp: [] for tp in reads}
        wanted = {tp: (position, count) for tp, (position, count) in reads.items() if count > 0}
        consumer.assign([TopicPartition(t, p, position) for (t, p), (position, _) in wanted.items()])
        failed: dict[tuple[str, int], str] = {}
        while wanted:
            if time.monotonic() >= cluster._deadline:
                for tp in wanted:
                    failed[tp] = f"no records within {cluster.settings.timeout:g} s"
                break
            cluster._check_errors(what)
            done = []
            for msg in consumer.consume(num_messages=1000, timeout=_SLICE):
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
            cluster._answered = True
        return out


def _final_error(settings: ConnectionSettings, bootstrap: str, what: str, errors: list[KafkaError],
                 closed_at_once: int, answered: bool) -> ClusterError | None:
    """What the client already knows to be final, so the command need not wait out --timeout:
    an authentication failure; before any broker answered, every broker down with a reason (a
    refused connection, a name that does not resolve); or connections closed as soon as they
    were open (a listener that wants SASL or TLS). A broker that dropped a connection is
    reconnected by the client and reported as down without such a reason: that waits."""
    for e in errors:
        if e.code() in (KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED):
            return ClusterError(settings.redact(f"authentication failed: could not {what} ({e.str()})"))
    if answered:
        return None
    if any(e.code() == KafkaError._ALL_BROKERS_DOWN for e in errors):
        for e in errors:
            if e.code() == KafkaError._RESOLVE or (e.code() == KafkaError._TRANSPORT and "Disconnected" not in e.str()):
                return ClusterError(settings.redact(f"cannot reach the cluster at {bootstrap} "
                                                    f"while trying to {what} ({e.str()})"))
    if closed_at_once >= _CLOSED_AT_ONCE:
        protocol = settings.properties.get("security.protocol", "plaintext").upper()
        if protocol.startswith("SASL"):
            hint = (f"the broker at {bootstrap} closed {closed_at_once} connections as soon as they were open "
                    f"(security.protocol={protocol}): check sasl.mechanisms and the credentials")
        else:
            hint = (f"the broker at {bootstrap} closed {closed_at_once} connections as soon as they were open: "
                    f"it probably requires authentication (SASL) or TLS, and none was configured "
                    f"(-X security.protocol=SASL_PLAINTEXT|SASL_SSL|SSL with -X sasl.mechanisms, -X sasl.username, "
                    f"-X sasl.password, or --command-config)")
        return ClusterError(settings.redact(f"cannot {what}: {hint}"))
    return None


def _by_topic(partitions: Iterable[Any]) -> Assignment:  # confluent_kafka TopicPartitions
    # a topic the broker no longer names (deleted) keys as ""
    return by_topic((tp.topic or "", tp.partition) for tp in partitions)


def _state_name(state: Any) -> str | None:  # a ConsumerGroupState
    """A confluent-kafka ConsumerGroupState (PREPARING_REBALANCING, ...) in Kafka's spelling."""
    if state is None:
        return None
    name = getattr(state, "name", str(state))
    return states.BY_CLIENT_NAME.get(name, name)


def _coordinator_address(stats: str | None) -> str | None:
    if not stats:
        return None
    for broker in json.loads(stats).get("brokers", {}).values():
        if broker.get("source") == "logical" and broker.get("name") == "GroupCoordinator":
            if broker.get("state") == "UP" and broker.get("nodename"):
                return str(broker["nodename"])
    return None


def _enum_name(value: object) -> str | None:
    if value is None:
        return None
    name = getattr(value, "name", str(value))
    return name.lower() if name in ("CLASSIC", "CONSUMER", "UNKNOWN") else name


def connect(settings: ConnectionSettings) -> Cluster:
    try:
        return Cluster(settings)
    except KafkaException as e:
        raise UsageError(settings.redact(f"invalid client configuration: {e.args[0].str()}")) from None
    except (TypeError, ValueError) as e:
        raise UsageError(settings.redact(f"invalid client configuration: {e}")) from None


# =============================================================================
# offsets-log reading
#
# Plain functions over ConnectionSettings (they run in Spark executors too, so
# they hold no Cluster object). Read-only: the consumer only assign()s the
# partitions it reads; its group.id is a throwaway that is never joined and
# never committed to.
# =============================================================================

from dataclasses import dataclass as _dataclass  # noqa: E402
from typing import Iterator as _Iterator  # noqa: E402

# the records one read hands back at once, and what librdkafka is allowed to prefetch
_LOG_READ_CONF = {"enable.partition.eof": "true", "auto.offset.reset": "earliest",
                  "fetch.max.bytes": 64 * 1024 * 1024, "max.partition.fetch.bytes": 16 * 1024 * 1024,
                  "queued.max.messages.kbytes": 64 * 1024, "fetch.wait.max.ms": 100,
                  "check.crcs": "false", "api.version.request": "true"}


@_dataclass(frozen=True)
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
    """One throwaway, assign-only consumer with kgroup's error reporting."""

    def __init__(self, settings: ConnectionSettings, **extra: object):
        import uuid

        self.settings = settings
        self.bootstrap = settings.require_bootstrap()
        self.errors: list[KafkaError] = []
        logger = logging.getLogger(f"kgroup.librdkafka.log.{id(self)}")
        logger.propagate = False
        logger.addHandler(_RedactingHandler(settings))
        logger.setLevel(logging.DEBUG if settings.verbose or "debug" in settings.properties else logging.CRITICAL + 1)
        self._logger = logger
        conf: dict[str, Any] = {"socket.connection.setup.timeout.ms": max(_MIN_SETUP_MS, int(settings.timeout * 1000)),
                      **_LOG_READ_CONF, **settings.properties, **extra, **_READ_ONLY,
                      "group.id": f"kgroup-readonly-{uuid.uuid4()}", "enable.partition.eof": "true",
                      "logger": logger, "error_cb": self.errors.append}
        try:
            self.consumer = Consumer(conf)
        except KafkaException as e:
            raise UsageError(settings.redact(f"invalid client configuration: {e.args[0].str()}")) from None
        except (TypeError, ValueError) as e:
            raise UsageError(settings.redact(f"invalid client configuration: {e}")) from None

    def fail(self, what: str, error: KafkaError | Exception | None = None) -> ClusterError:
        err = error if isinstance(error, KafkaError) else (
            error.args[0] if isinstance(error, KafkaException) and error.args else None)
        every = [e for e in [*self.errors, err] if isinstance(e, KafkaError)]
        if any(e.code() in _NOT_AUTHORIZED for e in every):
            detail = next(e.str() for e in every if e.code() in _NOT_AUTHORIZED)
            return ClusterError(self.settings.redact(f"not authorized or authentication failed: could not {what} ({detail})"))
        detail = self.errors[-1].str() if self.errors else (err.str() if isinstance(err, KafkaError) else "no answer")
        return ClusterError(self.settings.redact(
            f"cannot reach the cluster at {self.bootstrap} within {self.settings.timeout:g} s "
            f"while trying to {what} ({detail})"))

    def close(self) -> None:
        try:
            self.consumer.close()
        finally:
            self._logger.handlers.clear()


def _log_topic(client: "_LogClient", topic: str) -> tuple[TopicInfo, ClusterMetadata]:
    """The metadata of the offsets-log topic (and of the cluster); expected failures as KgroupError.

    Read through the admin client, whose wait fails at once on a refusal, an unknown host or a
    listener that wants authentication (a consumer cannot be polled for its errors meanwhile)."""
    md = connect(client.settings).metadata()  # no topic is named: a broker with auto-creation on would create it
    return _offsets_topic_of(md, topic, client.bootstrap), md


def _offsets_topic_of(md: ClusterMetadata, topic: str, bootstrap: str) -> TopicInfo:
    t = md.topics.get(topic)
    if t is None or t.error == "UNKNOWN_TOPIC_OR_PART":
        raise UsageError(f"topic {topic} does not exist on the cluster at {bootstrap}"
                         " (is the offsets log under another name? see --offsets-topic)")
    if t.error is not None:
        if t.error == "TOPIC_AUTHORIZATION_FAILED":
            raise ClusterError(f"not authorized to read topic {topic} (this principal needs DESCRIBE and READ on it)")
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


def _log_ranges(client: "_LogClient", topic: str, count: int, partitions: list[int] | None) -> list[LogRange]:
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
            for msg in c.consume(num_messages=10_000, timeout=0.2):
                p = msg.partition()  # type: ignore[assignment]  # a record's: never None
                err = msg.error()
                if err is None:
                    ends[p] = max(ends[p], msg.offset() + 1)  # type: ignore[operator]  # a record's: never None
                    deadline = time.monotonic() + settings.timeout
                elif err.code() == KafkaError._PARTITION_EOF:
                    ends[p] = max(ends[p], msg.offset())  # type: ignore[assignment, type-var]  # a record's: never None
                    pending.discard(p)
                elif err.code() in _NOT_AUTHORIZED or err.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED:
                    raise ClusterError(f"not authorized to read topic {topic} ({err.str()})")
                elif err.code() not in _UNREACHABLE:
                    raise client.fail(f"read {topic}-{p}", err)
    return [LogRange(p, reported[p][0], ends[p]) for p in wanted]


def read_log_range_columns(settings: ConnectionSettings, topic: str, rng: LogRange, max_batch: int = 50_000
                           ) -> _Iterator[tuple[list[Any], list[Any], list[Any], list[Any], list[Any]]]:
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
                    if err.code() in _UNREACHABLE:
                        continue
                    if err.code() in _NOT_AUTHORIZED or err.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED:
                        raise ClusterError(f"not authorized to read topic {topic} ({err.str()})")
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
                   ) -> _Iterator[list[Any]]:
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


@_dataclass(frozen=True)
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
    return ScanPlan(ranges, leaders, brokers, ends, unknown)
