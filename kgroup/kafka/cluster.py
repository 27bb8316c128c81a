"""The cluster reads: metadata, groups, their descriptions and committed offsets, the log
offsets and records of data partitions; every one read-only.

It returns the project's own dataclasses (kgroup.group.model) and turns client errors into
KgroupError with the documented exit codes (kgroup.kafka.client). It never joins a group, never
commits, and never names a topic in a metadata request (a broker with auto-creation on would
create it). Questions about many groups go through kgroup.kafka.routing (the batched client or
librdkafka); the offsets and records of data partitions are kgroup.kafka.records'; the offsets
log is read by kgroup.kafka.logreader.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from confluent_kafka import Consumer, KafkaError, KafkaException

from kgroup.errors import GroupOfOtherType, KgroupError, NotSupported, UnknownGroup
from kgroup.group.model import (Broker, ClusterMetadata, CoordinatorLookup, GroupDescription, GroupListing,
                                LogBounds, PartitionInfo, PartitionOffsets, TopicInfo)
from kgroup.kafka import answers, records
from kgroup.kafka.client import READ_ONLY, SLICE, UNREACHABLE, Deadline, Session, invalid_configuration
from kgroup.kafka.routing import Routing
from kgroup.kafka.settings import ConnectionSettings
from kgroup.kmsg.errors import GROUP_ID_NOT_FOUND

if TYPE_CHECKING:
    from kgroup.group.share import ShareOffsets

if TYPE_CHECKING:  # imported where used: a command that needs neither does not load them
    import concurrent.futures
    import queue

# OffsetFetch requests in flight at once when many groups are read through librdkafka (--all-groups)
GROUP_WINDOW = 64
DESCRIBE_WINDOW = 256  # describes in flight (iter_describe_groups)
DESCRIBE_BATCH = 64  # groups asked for per call once that many answers are handed out
GROUP_TYPES = ("classic", "consumer", "share", "streams")


class Cluster(Session):
    """A read-only view of one cluster, built from connection settings. ``close()`` (or leaving
    a ``with`` block) closes the batched client's connections; librdkafka's close themselves.

    ``admin`` may be given instead of the AdminClient the settings make (tests)."""

    def __init__(self, settings: ConnectionSettings, admin: Any = None):
        super().__init__(settings, f"kgroup.librdkafka.{id(self)}", admin)
        self.brokers: dict[int, Broker] = {}  # as the last metadata() saw them
        self._routing = Routing(settings)

    def close(self) -> None:
        self._routing.close()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- metadata -------------------------------------------------------------

    def metadata(self) -> ClusterMetadata:
        """Brokers and every topic visible to this client (no topic is named)."""
        import concurrent.futures
        import threading

        what = "read cluster metadata"
        while True:
            future: concurrent.futures.Future[Any] = concurrent.futures.Future()
            left = self.left(what)

            # list_topics blocks: it runs aside so that the wait can fail early and Ctrl-C works
            def call(future: concurrent.futures.Future[Any] = future, left: float = left) -> None:
                try:
                    future.set_result(self.admin.list_topics(timeout=left))
                except BaseException as e:  # handed over to the waiting thread
                    future.set_exception(e)

            threading.Thread(target=call, daemon=True, name="kgroup-metadata").start()
            try:
                md = self.wait(what, future, grace=0.5)
                break
            except KafkaException as e:
                # a connection dropped under the request: the client reconnects, ask again
                if e.args and e.args[0].code() == KafkaError._TRANSPORT and self.deadline - time.monotonic() > 0.2:
                    self.check_errors(what)
                    time.sleep(0.1)
                    continue
                raise self.fail(what, e) from None
        brokers = {b.id: Broker(b.id, b.host, b.port) for b in md.brokers.values()}
        topics = {}
        for name, t in md.topics.items():
            partitions = {p.id: PartitionInfo(p.id, p.leader, tuple(p.replicas),
                                              p.error.name() if p.error else None)
                          for p in t.partitions.values()}
            topics[name] = TopicInfo(name, partitions, t.error.name() if t.error else None)
        self.brokers = brokers
        return ClusterMetadata(brokers, topics, md.cluster_id)

    # -- groups ---------------------------------------------------------------

    def list_groups(self) -> list[GroupListing]:
        future = self.admin.list_consumer_groups(request_timeout=self.left("list groups"))
        try:
            result = self.wait("list groups", future)
        except KafkaException as e:
            err = e.args[0]
            if err.code() == KafkaError._UNSUPPORTED_FEATURE:
                raise NotSupported("the cluster does not support listing groups (ListGroups)") from None
            raise self.fail("list groups", e) from None
        if result.errors and not result.valid:
            raise self.fail("list groups", result.errors[0])
        out = []
        for g in result.valid:
            out.append(GroupListing(
                group_id=g.group_id,
                type=answers.enum_name(getattr(g, "type", None)),
                state=answers.state_name(g.state),
            ))
        return sorted(out, key=lambda g: g.group_id)

    def list_every_group(self, types: list[str] | None = None) -> tuple[list[GroupListing], list[str]]:
        """Every group of ``types`` (classic, consumer, share, streams; None or empty: every type),
        of every type and protocol type, sorted by id, and what could not be listed (empty: the
        answer is complete). Asked of every broker through kgroup's own client (ListGroups v5, or
        v4 where a broker answers no more: see kgroup.kafka.wire.list_groups); where that client
        cannot be used, through librdkafka, which lists only groups of the consumer protocol type
        (or none): the others are then said to be missing, unless only consumer groups were asked."""
        wanted = sorted({t.lower() for t in types or []})
        listing, why = self._routing.list_every_group(self, wanted)
        if listing is None:
            # librdkafka's "unknown" type (a broker that names none) is no type: the description tells
            groups = [g if g.type in GROUP_TYPES else dataclasses.replace(g, type=None) for g in self.list_groups()]
            groups = [g for g in groups if not wanted or g.type is None or g.type in wanted]
            problems = []
            if wanted != ["consumer"]:
                problems.append(
                    "groups of another protocol type than consumer (Kafka Connect's, share and streams groups) "
                    f"could not be listed: librdkafka lists consumer groups only, and kgroup's own client could "
                    f"not be used ({why})")
            return groups, problems
        out = []
        for g in listing.groups:
            if wanted and g.type is not None and g.type not in wanted:
                continue  # a v4 broker's group, filtered here (its type known from its protocol type)
            host, port = listing.brokers.get(g.broker, ("", -1))
            out.append(GroupListing(group_id=g.group_id, type=g.type, state=g.state, protocol_type=g.protocol_type,
                                    coordinator=Broker(g.broker, host, port) if g.broker >= 0 else None))
        return sorted(out, key=lambda g: g.group_id), listing.problems

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
        futures = self.admin.describe_consumer_groups(groups, request_timeout=self.left("find coordinators"))
        for group, future in futures.items():
            try:
                desc = self.wait(f"find the coordinator of group {group}", future)
            except KafkaException as e:
                err: KafkaError = e.args[0]
                if err.code() == KafkaError._UNSUPPORTED_FEATURE:
                    unsupported.append(group)
                    continue
                if err.code() in UNREACHABLE and not self._any_answer(out):
                    raise self.fail(f"find the coordinator of group {group}", e) from None
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
            conf = self.client.config(**READ_ONLY, **{
                "group.id": group, "statistics.interval.ms": 100,
                "stats_cb": lambda stats, h=holder: h.__setitem__("stats", stats)})
            consumers[group] = (Consumer(conf), holder)
        deadline = self.deadline
        try:
            while consumers and time.monotonic() < deadline:
                for group, (consumer, holder) in list(consumers.items()):
                    consumer.poll(0.05)
                    address = answers.coordinator_address(holder.get("stats"))
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
            desc = self.wait("describe the cluster", self.admin.describe_cluster(
                request_timeout=self.left("describe the cluster")))
        except KafkaException as e:
            raise self.fail("describe the cluster", e) from None
        return sorted((Broker(n.id, n.host, n.port, n.rack or None) for n in desc.nodes), key=lambda b: b.id)

    def broker_configs(self, broker_id: int, names: Iterable[str]) -> dict[str, str]:
        """DescribeConfigs of broker ``broker_id``: the value of each of ``names`` it reports (a
        broker that reports none, or a secret it hides, leaves the name out). Raises the command's
        cluster error when the broker cannot be asked."""
        from confluent_kafka.admin import ConfigResource  # type: ignore[attr-defined]
        from confluent_kafka.admin import ResourceType  # type: ignore[attr-defined]

        what = f"describe the configuration of broker {broker_id}"
        resource = ConfigResource(ResourceType.BROKER, str(broker_id))
        try:
            futures = self.admin.describe_configs([resource], request_timeout=self.left(what))
            entries = self.wait(what, next(iter(futures.values())))
        except KafkaException as e:
            raise self.fail(what, e) from None
        wanted = set(names)
        return {name: entry.value for name, entry in entries.items()
                if name in wanted and entry.value is not None and not entry.is_sensitive}

    def group_configs(self, groups: list[str], names: list[str] | None = None) -> tuple[Any, str]:
        """Each group's configs ``names`` (KIP-848 group configs: its own value or the brokers'
        default, kgroup.kafka.wire.describe_configs), by group: {name: ConfigValue} or a
        ConfigsError; (None, why) where they cannot be asked (librdkafka cannot name a group
        resource: kgroup's own client asks)."""
        return self._routing.group_configs(self, list(dict.fromkeys(groups)), names)

    def share_delivery_limit(self) -> tuple[int | None, str]:
        """The brokers' group.share.delivery.count.limit (DescribeConfigs of one broker) and where the
        value comes from; (None, why) where it cannot be read (Kafka's default then applies)."""
        from kgroup.errors import KgroupError

        name = "group.share.delivery.count.limit"
        try:
            brokers = sorted(self.metadata().brokers)
            value = self.broker_configs(brokers[0], [name]).get(name) if brokers else None
        except KgroupError as e:
            return None, f"Kafka's default: the brokers' {name} could not be read ({e.message})"
        if value is None or not value.isdigit() or int(value) < 1:
            return None, f"Kafka's default: the brokers report no {name}"
        return int(value), f"the brokers' {name}"

    def topic_ids(self, topics: list[str]) -> dict[str, str]:
        """DescribeTopics: each topic's id as Kafka prints it, for the topics whose id the
        cluster reports. Best effort: ids only refine the ``uniform`` what-if, so a broker
        that cannot describe topics yields none (and whatif says it assumes name order)."""
        from confluent_kafka import TopicCollection

        try:
            futures = self.admin.describe_topics(TopicCollection(list(topics)), request_timeout=self.settings.timeout)
        except (KafkaException, ValueError, TypeError):
            return {}
        out = {}
        for name, future in futures.items():
            try:
                topic_id = future.result().topic_id
            except KafkaException:
                continue
            text = "" if topic_id is None else answers.uuid_text(topic_id)
            if text and text != "AAAAAAAAAAAAAAAAAAAAAA":  # Kafka's zero id: unknown
                out[name] = text
        return out

    def describe_groups(self, groups: list[str]) -> dict[str, GroupDescription]:
        """DescribeGroups / ConsumerGroupDescribe for each group: many groups per request through
        kgroup.kafka.wire where the cluster and the connection settings allow (kgroup.kafka.routing),
        else one request per group through librdkafka."""
        return self._routing.describe_groups(self, list(dict.fromkeys(groups)))

    def iter_describe_groups(self, groups: list[str], window: int = DESCRIBE_WINDOW,
                             batch: int = DESCRIBE_BATCH) -> Iterator[GroupDescription]:
        """The descriptions of ``groups`` one by one, in the order given, holding a bounded number
        at once, so memory stays flat in the number of groups: many groups per request through
        kgroup.kafka.wire where it can be used (kgroup.kafka.routing), else through librdkafka's."""
        return self._routing.iter_describe_groups(self, groups, window, batch)

    def describe_streams_groups(self, groups: list[str]) -> dict[str, Any] | None:
        """StreamsGroupDescribe (KIP-1071) of ``groups`` through kgroup's own client: per group a
        kgroup.group.streams.StreamsGroup, or a StreamsDescribeError (GROUP_ID_NOT_FOUND: not a
        streams group); a group no answer covered is left out. None where the question cannot be
        asked (connection settings the own client does not speak, a cluster without the API)."""
        return self._routing.describe_streams_groups(self, list(dict.fromkeys(groups)))

    def rd_describe_groups(self, groups: list[str]) -> dict[str, GroupDescription]:
        out: dict[str, GroupDescription] = {}
        if not groups:
            return out
        futures = self.admin.describe_consumer_groups(groups, request_timeout=self.left("describe groups"))
        for group, future in futures.items():
            out[group] = self._description(group, future)
        return out

    def rd_iter_describe_groups(self, groups: Iterable[str], window: int = DESCRIBE_WINDOW,
                              batch: int = DESCRIBE_BATCH) -> Iterator[GroupDescription]:
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
                    futures = self.admin.describe_consumer_groups(list(dict.fromkeys(asked)),
                                                                   request_timeout=self.left("describe groups"))
                    pending.extend((g, futures[g]) for g in asked)
            if not pending:
                return
            group, future = pending.popleft()
            yield self._description(group, future)

    def _description(self, group: str, future: concurrent.futures.Future[Any]) -> GroupDescription:
        try:
            d = self.wait(f"describe group {group}", future)
        except KafkaException as e:
            error = self.group_error(group, "describe", e)
            # librdkafka's "not a consumer group (connect)" (_INVALID_ARG) or GROUP_ID_NOT_FOUND: say
            # what the group is, where the cluster lists it as another type
            if isinstance(error, UnknownGroup) or e.args[0].code() == KafkaError._INVALID_ARG:
                error = self.other_type_error(group) or error
            raise error from None
        return answers.description(d)

    def other_type_error(self, group: str) -> GroupOfOtherType | None:
        """The error naming ``group``'s type when the cluster lists it as a group the consumer-group
        commands cannot answer for (share, streams, Kafka Connect's): kgroup.kafka.group_types."""
        from kgroup.kafka.group_types import other_type_error

        return other_type_error(self, group)

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
                               window: int = GROUP_WINDOW, groups: int | None = None
                               ) -> Iterator[tuple[Any, str, dict[tuple[str, int], Any]]]:
        """OffsetFetch for each request ``next_request()`` hands out, as rd_iter_committed_offsets
        says; many groups per request through kgroup.kafka.wire where the cluster and the connection
        settings allow (kgroup.kafka.routing), the rest one group per request through librdkafka.
        ``groups``: how many groups will be asked about, when known; for fewer than
        routing.BATCHED_FROM the connections the batched path opens would cost more than they save."""
        return self._routing.iter_committed_offsets(self, next_request, window, groups)

    def rd_iter_committed_offsets(self, next_request: Callable[[], tuple[Any, str, list[tuple[str, int]] | None] | None],
                                window: int = GROUP_WINDOW) -> Iterator[tuple[Any, str, dict[tuple[str, int], Any]]]:
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
                future = self.admin.list_consumer_group_offsets(
                    [spec], request_timeout=self.left(what), require_stable=False)[group]
                in_flight[future] = (key, group)
                future.add_done_callback(answered.put)
            if not in_flight:
                return
            left = self.deadline - time.monotonic()
            if left <= 0:
                key, group = next(iter(in_flight.values()))
                raise Deadline(self.fail(f"fetch the committed offsets of group {group}",
                                           KafkaError(KafkaError._TIMED_OUT)).message)
            try:
                done = [answered.get(timeout=min(SLICE, left))]
            except queue.Empty:
                self.check_errors(what)
                continue
            while True:  # and whatever else has come back meanwhile
                try:
                    done.append(answered.get_nowait())
                except queue.Empty:
                    break
            self.answered = True
            for future in done:
                key, group = in_flight.pop(future)
                try:
                    result = future.result()
                except KafkaException as e:
                    raise self.group_error(group, "fetch the committed offsets of", e) from None
                found = {}
                for tp in result.topic_partitions or ():
                    if tp.error is not None and tp.error.code() != unknown_topic:
                        raise self.group_error(group, "fetch the committed offsets of", KafkaException(tp.error))
                    committed = tp.offset if tp.offset >= 0 else None
                    epoch = getattr(tp, "leader_epoch", None)
                    found[(tp.topic, tp.partition)] = (committed, tp.metadata if committed is not None else None,
                                                       epoch if epoch is not None and epoch >= 0 else None)
                yield key, group, found

    # -- share groups (KIP-932): kgroup's own client only ------------------------

    def describe_share_groups(self, groups: list[str]) -> dict[str, GroupDescription | None]:
        """ShareGroupDescribe v1 of each group, through kgroup's own client (librdkafka has no such
        call): its description (type ``share``), or None where the cluster knows no share group of
        that name (GROUP_ID_NOT_FOUND: no such group, or a group of another type). Raises the
        command's error (kgroup.kafka.routing.Routing.own_client) where the own client cannot ask,
        and for a group answered with any other error (share_error)."""
        from kgroup.kafka.wire.share import GroupError, ShareDescribe

        groups = list(dict.fromkeys(groups))
        question = f"describe share group{'' if len(groups) == 1 else 's'} {', '.join(groups)}"
        exchange = ShareDescribe()
        coordinators = self._routing.own_client(self, question, exchange, "ShareGroupDescribe v1, Kafka 4.1+")
        answers_ = self._routing.ask_own(self, coordinators, exchange, [(g, g, None) for g in groups])
        out: dict[str, GroupDescription | None] = {}
        for g in groups:
            answer = answers_[g]
            if isinstance(answer, GroupError):
                if answer.code == GROUP_ID_NOT_FOUND:
                    out[g] = None
                    continue
                raise share_error(g, "describe share group", answer)
            out[g] = answer
        return out

    def share_groups_among(self, groups: list[str]) -> tuple[dict[str, GroupDescription], str | None]:
        """The share groups among ``groups`` with their descriptions, as far as kgroup's own client
        can tell, and why it could not where it could not (None: it could; a cluster without
        ShareGroupDescribe has no share group). A group answered with an error is not called a
        share group here: the command's usual path meets the same error."""
        from kgroup.errors import KgroupError, NotSupported

        try:
            found = self.describe_share_groups(groups)
        except NotSupported:
            return {}, None
        except KgroupError as e:
            return {}, e.message
        return {g: d for g, d in found.items() if d is not None}, None

    def share_group_offsets(self, groups: dict[str, list[tuple[str, int]] | None]) -> dict[str, ShareOffsets]:
        """DescribeShareGroupOffsets (v1, v0 on a 4.1 broker) of each group, through kgroup's own
        client: the listed partitions, or every partition the group has state for when None.
        Raises as describe_share_groups does; an unknown group is UnknownGroup."""
        from kgroup.kafka.wire.share import GroupError, ShareOffsetsExchange

        question = f"read the offsets of share group{'' if len(groups) == 1 else 's'} {', '.join(groups)}"
        exchange = ShareOffsetsExchange()
        coordinators = self._routing.own_client(self, question, exchange, "DescribeShareGroupOffsets, Kafka 4.1+")
        answers_ = self._routing.ask_own(self, coordinators, exchange, [(g, g, ps) for g, ps in groups.items()])
        out: dict[str, ShareOffsets] = {}
        for g in groups:
            answer = answers_[g]
            if isinstance(answer, GroupError):
                raise share_error(g, "read the offsets of share group", answer)
            out[g] = answer
        return out

    def find_share_coordinators(self, keys: list[str]) -> dict[str, tuple[Broker | None, str | None]]:
        """FindCoordinator v6 key type 2 (SHARE) through kgroup's own client: for each share
        coordinator key ("groupId:topicId:partition") the broker the cluster names, or None and
        the error it answered. Raises as describe_share_groups does where it cannot be asked."""
        from kgroup.errors import NotSupported
        from kgroup.kafka.wire.connection import WireError
        from kgroup.kafka.wire.coordinators import Node
        from kgroup.kafka.wire.share import GroupError

        question = "find the share coordinators"
        coordinators = self._routing.own_client(self, question, _FindCoordinator(), "FindCoordinator v6")
        try:
            found = coordinators.find_share_coordinators(keys)
        except WireError as e:
            raise NotSupported(f"cannot {question}: {e}") from None
        out: dict[str, tuple[Broker | None, str | None]] = {}
        for key in keys:
            answer = found.get(key)
            if isinstance(answer, Node):
                out[key] = (self.brokers.get(answer.id) or Broker(answer.id, answer.host, answer.port), None)
            else:
                out[key] = (None, "the answer left the key out" if answer is None else GroupError(*answer).text)
        return out

    # -- data partitions: their offsets and records (kgroup.kafka.records) ---------

    def log_offsets(self, partitions: list[tuple[str, int]]) -> tuple[dict[tuple[str, int], tuple[int | None, int | None]], list[str]]:
        """ListOffsets earliest and latest for every partition, one request per leader broker.

        Returns ({(topic, partition): (log_start, log_end)}, problems); a partition
        whose offsets could not be read is reported in problems, never guessed.
        """
        return records.finish_log_offsets(self, records.start_log_offsets(self, partitions))

    def start_log_offsets(self, partitions: list[tuple[str, int]]) -> records.LogOffsetsHandle:
        """Send ListOffsets earliest and latest for ``partitions`` without waiting; the answer
        is finish_log_offsets(what this returns)."""
        return records.start_log_offsets(self, partitions)

    def finish_log_offsets(self, handle: records.LogOffsetsHandle
                           ) -> tuple[dict[tuple[str, int], tuple[int | None, int | None]], list[str]]:
        """What start_log_offsets asked for: ({(topic, partition): (log_start, log_end)}, problems)."""
        return records.finish_log_offsets(self, handle)

    def first_record_timestamps(self, positions: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
        """Timestamp (ms) of the record at each position (records.first_record_timestamps)."""
        return records.first_record_timestamps(self, positions)

    def deliverable(self, partitions: Mapping[tuple[str, int], tuple[int, int]]) -> dict[tuple[str, int], bool | None]:
        """Whether a read_committed consumer would get a record between each (committed, end)
        (records.deliverable)."""
        return records.deliverable(self, partitions)

    def log_bounds(self, partitions: list[tuple[str, int]]) -> tuple[dict[tuple[str, int], LogBounds], list[str]]:
        """Each partition's log start and end now and whether its topic is compacted (records.log_bounds)."""
        return records.log_bounds(self, partitions)

    def record_reader(self) -> records.RecordReader:
        """ListOffsets by timestamp and records at offsets, read by assignment only (records.RecordReader);
        the caller closes it. With log_bounds, what kgroup.lag.ends asks of a cluster."""
        return records.RecordReader(self)


class _FindCoordinator:
    """What own_client asks of the cluster for find_share_coordinators: FindCoordinator v6."""

    def speaks(self, conn: Any) -> bool:
        from kgroup.kmsg.messages import FIND_COORDINATOR_V6

        return bool(conn.supports(FIND_COORDINATOR_V6))


def share_error(group: str, what: str, error: Any) -> KgroupError:
    """The command's error for a share group's answer carrying ``error`` (a wire.share.GroupError),
    typed by Kafka's code: an unknown group (exit 2), not authorized, the coordinator not
    available or still loading after --timeout, any other (exit 3)."""
    from kgroup.errors import ClusterError, CoordinatorNotAvailable, NotAuthorized, UnknownGroup
    from kgroup.kmsg import errors

    text = f"cannot {what} {group}: {error.text}"
    if error.code == errors.GROUP_ID_NOT_FOUND:
        return UnknownGroup(f"unknown share group {group}: {error.text}")
    if error.code in (errors.GROUP_AUTHORIZATION_FAILED, errors.TOPIC_AUTHORIZATION_FAILED,
                      errors.CLUSTER_AUTHORIZATION_FAILED):
        return NotAuthorized(text)
    if error.code in (errors.COORDINATOR_LOAD_IN_PROGRESS, errors.COORDINATOR_NOT_AVAILABLE, errors.NOT_COORDINATOR):
        return CoordinatorNotAvailable(text + " (still so at --timeout)")
    return ClusterError(text)


def connect(settings: ConnectionSettings) -> Cluster:
    """The read-only Cluster of ``settings``; properties librdkafka refuses are a usage error (exit 2),
    and so is an OAUTHBEARER configuration kgroup cannot make tokens with."""
    source = settings.token_source()
    if source is not None:
        # an OAuth token first (kgroup's own client keeps it): a token endpoint that is down or
        # answers no token, or no AWS credentials, is said as such at once, not after --timeout
        source.token(settings.timeout)
    try:
        return Cluster(settings)
    except (KafkaException, TypeError, ValueError) as e:
        raise invalid_configuration(settings, e) from None

