"""A group as it stood at a past moment, rebuilt from its records (``snapshot --at``).

What the log holds: members, their subscriptions and assignments (classic:
ConsumerProtocol bytes of the last GroupMetadata; KIP-848: member metadata,
current and target assignments), committed offsets. What it does not hold:
log-start and log-end offsets, brokers, topic partition counts. Those are left
out, or taken from the live cluster when the caller has one; every such
substitution comes back as a note.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kgroup.group.broker import Broker
from kgroup.group.metadata import CoordinatorLookup
from kgroup.group.model import ClusterMetadata, GroupDescription, GroupState, PartitionOffsets, TopicLayout
from kgroup.kmsg.states import ASSIGNING, EMPTY, RECONCILING, STABLE
from kgroup.offsets_log.deletions import Deletions, removed_by_retention
from kgroup.offsets_log.expiry import NO_CLUSTER, BrokerConfigs, Retention, coordinator_retention
from kgroup.offsets_log.replay import GroupReplay
from kgroup.timeutil import format_ms
from kgroup.group.reconciliation import explain


if TYPE_CHECKING:
    from kgroup.kafka.settings import ConnectionSettings
    from kgroup.offsets_log.read import Progress, Warn


class GroupNotInLog(LookupError):
    """The log holds no record of the group at or before that moment."""


class Metadata(BrokerConfigs, Protocol):
    """What :func:`group_at` asks of a live cluster: its topics' partition counts; the group's
    coordinator and its offset retention settings when an offset was deleted (why: retention or
    not, kgroup.offsets_log.deletions)."""

    def metadata(self) -> ClusterMetadata: ...

    def find_coordinators(self, groups: Iterable[str], brokers: dict[int, Broker]) -> dict[str, CoordinatorLookup]: ...


def group_at(group: str, at_ms: int, input_: Path | None, offsets_topic: str, settings: ConnectionSettings | None,
             cluster: Metadata | None, progress: Progress, warn: Warn) -> tuple[GroupState, list[str]]:
    """``snapshot --at``: the group as it stood at ``at_ms``, from the saved log ``input_`` or the
    live one (``settings``), with the live cluster's partition counts where one is given, and
    notes on what the log could not tell (raises :class:`GroupNotInLog`)."""
    from kgroup.offsets_log.read import group_entries

    replay = GroupReplay(group)
    deletions = Deletions(replay)
    for e in group_entries(group, input_, offsets_topic, settings, at_ms, progress, warn):
        replay.apply(e)
    retention = NO_CLUSTER
    if cluster is not None and deletions.items:  # the coordinator's, to tell the deletions' causes
        retention = coordinator_retention(cluster, group)
    counts = offsets_partitions = None
    if cluster is not None:
        md = cluster.metadata()
        counts = {name: t.partition_count for name, t in md.topics.items()}
        topic = md.topics.get(offsets_topic)
        offsets_partitions = topic.partition_count if topic else None
    return state_at(replay, at_ms, counts, offsets_partitions, deletions, retention)


def state_at(replay: GroupReplay, at_ms: int, partition_counts: dict[str, int] | None = None,
             offsets_partitions: int | None = None, deletions: Deletions | None = None,
             retention: Retention | None = None) -> tuple[GroupState, list[str]]:
    """The snapshot of ``replay``'s group (records folded up to ``at_ms``) and notes on what
    the log could not tell; with ``deletions`` (watching the replay from its first record), a note
    on the committed offsets retention removed before the moment (under ``retention``, Kafka's
    default if None) and not committed again."""
    replay.finish()
    notes: list[str] = []
    if replay.type is None and not replay.offsets:
        raise GroupNotInLog(replay.group_id)
    if replay.type == "classic" and replay.classic is not None:
        v = replay.classic
        members = list(replay.classic_members)
        desc = GroupDescription(replay.group_id, "classic", STABLE if members else EMPTY, v["protocolType"],
                                v["protocol"], v["generation"], None, members)
        notes.append("state is that of the last completed rebalance before the moment (the log does not "
                     "record rebalances in progress)")
    elif replay.type == "consumer" and not replay.deleted:
        members = replay.consumer_members()
        assignors = sorted({a for md in replay.members.values() if (a := md.get("serverAssignor"))})
        target_epoch = replay.target_epoch if replay.target_epoch is not None and replay.target_epoch >= 0 else None
        desc = GroupDescription(replay.group_id, "consumer", None, "consumer", ",".join(assignors) or None,
                                replay.epoch, None, members, target_epoch)
        # Kafka's consumer group states: no member, a group epoch its target assignment has not
        # reached yet, a member not reconciled to the target, or none of these
        desc.state = (EMPTY if not members else
                      ASSIGNING if target_epoch is None or (replay.epoch or 0) > target_epoch else
                      RECONCILING if explain(desc) else STABLE)
        unresolved = replay.unresolved_topic_ids()
        if unresolved:
            notes.append(f"{len(unresolved)} topic id(s) have no name in the log and are shown as ids: "
                         + ", ".join(unresolved[:5]))
    else:
        desc = GroupDescription(replay.group_id, None, "Dead" if replay.deleted else "Empty", None, None, None,
                                None, [])
        notes.append("the log holds only offset commits for this group at that moment" if not replay.deleted
                     else "the group had been deleted at that moment")
    offsets = {t: {p: PartitionOffsets(committed=c.offset, metadata=c.metadata, leader_epoch=c.leader_epoch)
                   for p, c in sorted(ps.items())}
               for t, ps in sorted(replay.offsets.items()) if ps}
    notes.append("log-start and log-end offsets (so lag) are not in the offsets log: left out")
    # topic partition counts: from the live cluster when known, else the highest partition seen + 1
    seen: dict[str, int] = {}
    for m in desc.members:
        for a in (m.assignment, m.target_assignment or {}):
            for t, ps in a.items():
                seen[t] = max(seen.get(t, 0), max(ps, default=-1) + 1)
        for t in m.subscription or ():
            seen.setdefault(t, 0)
    for t, committed in offsets.items():
        seen[t] = max(seen.get(t, 0), max(committed, default=-1) + 1)
    topics: dict[str, TopicLayout] = {}
    inferred, unknown = [], []
    for t, n in sorted(seen.items()):
        live = (partition_counts or {}).get(t)
        if live is not None and live >= n:
            topics[t] = TopicLayout(live)
        elif n > 0:
            topics[t] = TopicLayout(n)
            inferred.append(t)
        else:
            unknown.append(t)
    if partition_counts is not None:
        notes.append("topic partition counts are today's, from the cluster" + (
            f" (inferred from the log for {', '.join(inferred)})" if inferred else ""))
    elif inferred:
        notes.append("topic partition counts inferred from the log (highest partition seen + 1): "
                     + ", ".join(inferred))
    if unknown:
        notes.append("partition counts unknown (left out) for subscribed topics: " + ", ".join(unknown))
    notes.append("brokers and the coordinator are not in the offsets log: left out")
    if deletions is not None:
        notes.extend(_expired_note(deletions, retention or Retention(), replay, at_ms))
    state = GroupState(desc, topics, [], offsets_partitions, offsets, format_ms(at_ms))
    return state, notes


MAX_NAMED = 20  # expired offsets named in the note


def _expired_note(deletions: Deletions, retention: Retention, replay: GroupReplay, at_ms: int) -> list[str]:
    """The note on the offsets retention removed before ``at_ms`` (none: no note)."""
    removed = removed_by_retention(deletions.items, retention, replay.offsets)
    if not removed:
        return []
    named = "; ".join(f"{d.topic}-{d.partition} (expired at {format_ms(c.expired_ms or 0)}, removed at "
                      f"{format_ms(d.timestamp)})" for d, c in removed[:MAX_NAMED])
    more = f" (+{len(removed) - MAX_NAMED} more)" if len(removed) > MAX_NAMED else ""
    n = len(removed)
    return [f"{n} committed offset{'s' * (n != 1)} removed by retention before {format_ms(at_ms)}, so not in "
            f"the snapshot (offsets.retention.minutes {retention.retention_ms // 60_000}, "
            f"{retention.source}): {named}{more}"]
