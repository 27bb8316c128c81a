"""The one module that talks to Kafka: every confluent-kafka call lives here.

It returns the project's own dataclasses (kgroup.model) and turns client
errors into KgroupError with the documented exit codes. It never joins a
group, never commits, and never names a topic in a metadata request (a
broker with auto-creation on would create it).
"""
from __future__ import annotations

import json
import logging
import sys
import time
from typing import Iterable

from confluent_kafka import Consumer, KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from kgroup.errors import ClusterError, UsageError
from kgroup.model import Broker, ClusterMetadata, CoordinatorLookup, GroupListing, PartitionInfo, TopicInfo
from kgroup.settings import ConnectionSettings

_UNREACHABLE = {KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._TIMED_OUT,
                KafkaError._RESOLVE, KafkaError.REQUEST_TIMED_OUT}
_NOT_AUTHORIZED = {KafkaError._AUTHENTICATION, KafkaError.SASL_AUTHENTICATION_FAILED,
                   KafkaError.CLUSTER_AUTHORIZATION_FAILED, KafkaError.TOPIC_AUTHORIZATION_FAILED,
                   KafkaError.GROUP_AUTHORIZATION_FAILED, KafkaError._SSL}
# Properties kgroup forces so that the clients it makes stay read-only.
_READ_ONLY = {"enable.auto.commit": "false", "enable.auto.offset.store": "false",
              "allow.auto.create.topics": "false"}


class _RedactingHandler(logging.Handler):
    def __init__(self, settings: ConnectionSettings):
        super().__init__()
        self.settings = settings

    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(self.settings.redact(f"librdkafka: {record.getMessage()}") + "\n")


class Cluster:
    """A read-only view of one cluster, built from connection settings."""

    def __init__(self, settings: ConnectionSettings):
        self.settings = settings
        self.bootstrap = settings.require_bootstrap()
        self._errors: list[KafkaError] = []
        self._logger = logging.getLogger(f"kgroup.librdkafka.{id(self)}")
        self._logger.propagate = False
        self._logger.addHandler(_RedactingHandler(settings))
        noisy = settings.verbose or "debug" in settings.properties
        self._logger.setLevel(logging.DEBUG if noisy else logging.CRITICAL + 1)
        self._admin = AdminClient(self._config())

    # -- plumbing -------------------------------------------------------------

    def _config(self, **extra: object) -> dict:
        conf: dict = {"socket.connection.setup.timeout.ms": int(self.settings.timeout * 1000),
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
        try:
            md = self._admin.list_topics(timeout=self.settings.timeout)
        except KafkaException as e:
            raise self._fail("read cluster metadata", e) from None
        brokers = {b.id: Broker(b.id, b.host, b.port) for b in md.brokers.values()}
        topics = {}
        for name, t in md.topics.items():
            partitions = {p.id: PartitionInfo(p.id, p.leader, tuple(p.replicas),
                                              p.error.name() if p.error else None)
                          for p in t.partitions.values()}
            topics[name] = TopicInfo(name, partitions, t.error.name() if t.error else None)
        return ClusterMetadata(brokers, topics, md.cluster_id)

    # -- groups ---------------------------------------------------------------

    def list_groups(self) -> list[GroupListing]:
        future = self._admin.list_consumer_groups(request_timeout=self.settings.timeout)
        try:
            result = future.result()
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
                state=_enum_name(g.state),
                is_simple=g.is_simple_consumer_group,
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
        futures = self._admin.describe_consumer_groups(groups, request_timeout=self.settings.timeout)
        deadline = time.monotonic() + self.settings.timeout + 1
        for group, future in futures.items():
            try:
                desc = future.result(timeout=max(0.1, deadline - time.monotonic()))
            except KafkaException as e:
                err: KafkaError = e.args[0]
                if err.code() == KafkaError._UNSUPPORTED_FEATURE:
                    unsupported.append(group)
                    continue
                if err.code() in _UNREACHABLE and not self._any_answer(out):
                    raise self._fail(f"find the coordinator of group {group}", e) from None
                out[group] = CoordinatorLookup(group, None, err.name(), err.str())
                continue
            except Exception as e:  # concurrent.futures.TimeoutError
                raise self._fail(f"find the coordinator of group {group}", KafkaError(KafkaError._TIMED_OUT)) from e
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
        deadline = time.monotonic() + self.settings.timeout
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


def _coordinator_address(stats: str | None) -> str | None:
    if not stats:
        return None
    for broker in json.loads(stats).get("brokers", {}).values():
        if broker.get("source") == "logical" and broker.get("name") == "GroupCoordinator":
            if broker.get("state") == "UP" and broker.get("nodename"):
                return broker["nodename"]
    return None


def _enum_name(value: object) -> str | None:
    if value is None:
        return None
    name = getattr(value, "name", str(value))
    return name.lower() if name.isupper() and name in ("CLASSIC", "CONSUMER", "UNKNOWN") else name


def connect(settings: ConnectionSettings) -> Cluster:
    try:
        return Cluster(settings)
    except KafkaException as e:
        raise UsageError(settings.redact(f"invalid client configuration: {e.args[0].str()}")) from None
    except (TypeError, ValueError) as e:
        raise UsageError(settings.redact(f"invalid client configuration: {e}")) from None
