"""When Kafka will delete a group's committed offsets (offset expiry), from what the offsets log
holds: the commits' timestamps, the group's type, state and subscriptions.

Kafka 4.3's rule (group coordinator, ``OffsetMetadataManager.cleanupExpiredOffsets`` and each
group type's ``offsetExpirationCondition`` / ``isSubscribedToTopic``), checked every
``offsets.retention.check.interval.ms`` (default 10 minutes):

- only offsets of topics the group is not subscribed to are considered (an Empty group is
  subscribed to nothing);
- a considered offset whose commit set an explicit expire timestamp (OffsetCommit value v1, old
  clients) goes at that moment; any other goes ``offsets.retention.minutes`` (default 7 days)
  after its *base time*:

  - classic group with a protocol type, Empty: when it became Empty (``currentStateTimestamp`` of
    its GroupMetadata record, v2+), else the offset's commit time;
  - classic group of the consumer protocol, Stable, its subscriptions known: the commit time;
  - any other classic group (rebalancing, or Stable under another protocol): nothing expires;
  - a standalone consumer (offsets with no group record): the commit time;
  - KIP-848 consumer group and streams group: the commit time;
  - share groups have no committed offsets.

The coordinator deletes an offset at its first check at or after that moment. Pending
transactional offsets delay it; they are in open transactions, which kgroup's reader does not see
(it reads committed records). Pure: no client, no I/O.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from kgroup.kmsg.states import EMPTY, STABLE
from kgroup.offsets_log.replay import Commit, GroupReplay
from kgroup.timeutil import format_ms

DEFAULT_RETENTION_MS = 7 * 24 * 3_600_000  # offsets.retention.minutes = 10080
DEFAULT_CHECK_INTERVAL_MS = 600_000  # offsets.retention.check.interval.ms
NOT_WHILE_CONSUMED = "not while the group consumes it"


@dataclass(frozen=True)
class Retention:
    """The broker settings expiry follows, and where they come from (a broker, or Kafka's default
    because the broker's could not be read: ``source`` says why)."""

    retention_ms: int = DEFAULT_RETENTION_MS
    check_interval_ms: int = DEFAULT_CHECK_INTERVAL_MS
    source: str = "Kafka's default"

    @property
    def is_default(self) -> bool:
        return not self.source.startswith("broker")


@dataclass(frozen=True)
class GroupFacts:
    """What decides a group's offset expiry: its type (classic | consumer | streams | share |
    standalone), protocol type (classic), state, when it became Empty, and the topics it is
    subscribed to (None: not known, as Kafka's ``Optional.empty``)."""

    group: str
    kind: str
    state: str
    protocol_type: str | None = None
    empty_since_ms: int | None = None
    subscribed: frozenset[str] | None = frozenset()


@dataclass(frozen=True)
class Expiry:
    """When Kafka deletes one committed offset under the group's current state: ``expires_ms``
    (None: not under this state, ``reason`` says why) and why then."""

    expires_ms: int | None
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"expires_ms": self.expires_ms, "expiry": self.reason}


def _span(ms: int) -> str:
    """A retention as people say it: 7 d, 36 h, 90 min."""
    minutes = ms // 60_000
    if minutes and minutes % 1440 == 0:
        return f"{minutes // 1440} d"
    if minutes and minutes % 60 == 0:
        return f"{minutes // 60} h"
    return f"{minutes} min"


def facts(replay: GroupReplay, live_state: str | None = None) -> GroupFacts:
    """The group's expiry facts from its records (``replay``, finished), with its state as the
    cluster describes it now where known (``live_state``): the log records the states a group
    settles in (Empty, Stable), not the rebalances in between."""
    kind = replay.type
    if kind is None:  # commits and no group record: a standalone consumer (or simple admin commits)
        return GroupFacts(replay.group_id, "standalone", live_state or EMPTY)
    if kind == "classic":
        value = replay.classic or {}
        members = replay.classic_members
        state = live_state or (STABLE if members else EMPTY)
        protocol_type = value.get("protocolType")
        since = value.get("currentStateTimestamp", -1)
        subscribed: frozenset[str] | None = None
        if protocol_type == "consumer":
            if not members:
                subscribed = frozenset()
            elif all(m.subscription is not None for m in members):
                subscribed = frozenset(t for m in members for t in m.subscription or [])
        return GroupFacts(replay.group_id, "classic", state, protocol_type,
                          since if state == EMPTY and since is not None and since >= 0 else None, subscribed)
    if kind == "consumer":
        names: set[str] = set()
        for m in replay.members.values():
            names.update(m.get("subscribedTopicNames") or [])
            regex = m.get("subscribedTopicRegex")
            if regex:
                names.update(replay.regex_topics.get(regex, []))
        return GroupFacts(replay.group_id, "consumer", live_state or (STABLE if replay.members else EMPTY),
                          subscribed=frozenset(names))
    if kind == "streams":
        empty = not replay.streams_members
        state = live_state or (EMPTY if empty else STABLE)
        inputs = frozenset() if empty or replay.streams_input_topics is None else frozenset(replay.streams_input_topics)
        return GroupFacts(replay.group_id, "streams", state, subscribed=inputs)
    return GroupFacts(replay.group_id, kind, live_state or "")


def expiry(f: GroupFacts, topic: str, commit: Commit, retention: Retention) -> Expiry:
    """When Kafka deletes the committed offset of ``topic`` last committed as ``commit``."""
    after = f"offsets.retention.minutes ({_span(retention.retention_ms)})"
    if f.kind == "share":
        return Expiry(None, "share groups have no committed offsets to expire")
    if f.kind == "classic":
        if f.state == EMPTY:
            if f.empty_since_ms is not None:
                base, why = f.empty_since_ms, f"{after} after the group became Empty ({format_ms(f.empty_since_ms)})"
            else:
                base, why = commit.timestamp, f"{after} after its last commit (the group's record has no state time)"
        elif f.protocol_type == "consumer" and f.subscribed is not None and f.state == STABLE:
            if topic in f.subscribed:
                return Expiry(None, NOT_WHILE_CONSUMED)
            base, why = commit.timestamp, f"{after} after its last commit (no member subscribes to {topic})"
        elif f.state == STABLE and f.protocol_type == "consumer":
            return Expiry(None, "not while the group is Stable (its members' subscriptions cannot be read)")
        else:
            return Expiry(None, f"not while the group is {f.state}" + (
                f" (protocol type {f.protocol_type})" if f.state == STABLE and f.protocol_type else ""))
    elif f.kind == "standalone":
        base, why = commit.timestamp, f"{after} after its last commit (a standalone consumer: no group record)"
    else:  # consumer, streams: the commit time, for every topic the group does not consume
        if f.subscribed is not None and topic in f.subscribed and f.state != EMPTY:
            return Expiry(None, NOT_WHILE_CONSUMED)
        empty = " (the group is Empty)" if f.state == EMPTY else f" (the group does not consume {topic})"
        base, why = commit.timestamp, f"{after} after its last commit{empty}"
    if commit.expire_timestamp is not None:
        return Expiry(commit.expire_timestamp, "the expire timestamp its commit set (an old client's retention time)")
    return Expiry(base + retention.retention_ms, why)


def group_expiries(replay: GroupReplay, retention: Retention, live_state: str | None = None
                   ) -> dict[tuple[str, int], Expiry]:
    """The expiry of every committed offset the log holds for the group."""
    f = facts(replay, live_state)
    return {(topic, p): expiry(f, topic, c, retention)
            for topic, parts in replay.offsets.items() for p, c in parts.items()}


def first_expiry(expiries: Mapping[tuple[str, int], Expiry]) -> int | None:
    """The earliest moment any of these offsets goes (None: none goes under the current state)."""
    moments = [e.expires_ms for e in expiries.values() if e.expires_ms is not None]
    return min(moments) if moments else None


def summary(expiries: Mapping[tuple[str, int], Expiry], retention: Retention) -> dict[str, Any]:
    """The retention these expiries follow and their earliest moment, as the JSON documents say them."""
    return {"retention_ms": retention.retention_ms, "check_interval_ms": retention.check_interval_ms,
            "retention_source": retention.source, "first_expires_ms": first_expiry(expiries)}


def document(expiries: Mapping[tuple[str, int], Expiry], retention: Retention) -> dict[str, Any]:
    """:func:`summary` and each partition's expiry: a group's ``expiry`` in the offsets and report
    documents."""
    return {**summary(expiries, retention),
            "partitions": [{"topic": t, "partition": p, **e.to_json()} for (t, p), e in sorted(expiries.items())]}


class BrokerConfigs(Protocol):
    """What :func:`retention_of` asks of a cluster (kgroup.kafka.cluster.Cluster has it)."""

    def broker_configs(self, broker_id: int, names: Iterable[str]) -> dict[str, str]: ...


RETENTION = "offsets.retention.minutes"
CHECK_INTERVAL = "offsets.retention.check.interval.ms"


def retention_of(cluster: BrokerConfigs, broker_id: int | None) -> Retention:
    """The offset retention settings of broker ``broker_id`` (the group's coordinator), or
    Kafka's defaults with the reason they are used (never a guess passed off as the broker's)."""
    from kgroup.errors import ClusterError

    if broker_id is None:
        return Retention(source="Kafka's default (the group's coordinator is not known)")
    try:
        found = cluster.broker_configs(broker_id, [RETENTION, CHECK_INTERVAL])
    except ClusterError as e:
        return Retention(source=f"Kafka's default (broker {broker_id}'s configuration cannot be read: {e.message})")
    try:
        minutes = int(found[RETENTION]) if RETENTION in found else None
        interval = int(found[CHECK_INTERVAL]) if CHECK_INTERVAL in found else DEFAULT_CHECK_INTERVAL_MS
    except ValueError:
        return Retention(source=f"Kafka's default (broker {broker_id} reports {RETENTION}={found.get(RETENTION)!r})")
    if minutes is None or minutes < 1:
        return Retention(source=f"Kafka's default (broker {broker_id} does not report {RETENTION})")
    return Retention(minutes * 60_000, interval, f"broker {broker_id}")


NO_CLUSTER = Retention(source="Kafka's default (no cluster named)")


def coordinator_retention(cluster: Any, group: str) -> Retention:
    """The offset retention settings of the group's coordinator (:func:`retention_of` of the broker
    FindCoordinator names), Kafka's defaults with the reason where they cannot be read."""
    from kgroup.errors import ClusterError

    try:
        lookup = cluster.find_coordinators([group], cluster.metadata().brokers).get(group)
    except ClusterError as e:
        return Retention(source=f"Kafka's default (the group's coordinator cannot be found: {e.message})")
    broker = lookup.coordinator.id if lookup is not None and lookup.coordinator is not None else None
    return retention_of(cluster, broker)
