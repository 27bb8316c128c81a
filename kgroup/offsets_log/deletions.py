"""Why a group's committed offset was deleted, told from its offsets log where it can be: removed by
retention (offset expiry, kgroup.offsets_log.expiry), or deleted (an admin's
DeleteConsumerGroupOffsets, the group's deletion).

Both write the same record, an offset-commit tombstone; the log does not say which. The moment
tells them apart: the coordinator removes an expired offset at its first retention check (every
``offsets.retention.check.interval.ms``) at or after the moment Kafka's rule gives it under the
group's state then, or later if it was down; an admin deletes at any time. So the rule is applied
to the commit the tombstone deletes, under the group's state just before the tombstone (its
records up to there), with the retention the command uses:

- the rule expires the offset at E and the tombstone's timestamp is at or after E: ``retention``,
  ``expired_ms`` E;
- the tombstone is before E, or the rule does not expire the offset in that state (a classic
  group Stable and subscribed to its topic, a rebalance in progress, ...): ``deleted``;
- the records read hold no commit of it (written before them, or compacted away): ``unknown``.

An admin deleting an offset after its moment and before the coordinator's next check reads as
retention: the log cannot tell the two apart (the check comes within one interval). Pure.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kgroup.offsets_log.expiry import GroupFacts, Retention, expiry, facts
from kgroup.offsets_log.replay import Commit, GroupReplay
from kgroup.timeutil import format_ms

RETENTION, DELETED, UNKNOWN = "retention", "deleted", "unknown"


@dataclass(frozen=True)
class Deletion:
    """One offset-commit tombstone of the group: where and when, the commit it deleted (None: none
    in the records read) and the group's expiry facts just before it."""

    topic: str
    partition: int
    position: tuple[int, int]
    timestamp: int
    commit: Commit | None
    facts: GroupFacts


@dataclass(frozen=True)
class Cause:
    """Why an offset was deleted: ``cause`` (retention | deleted | unknown), the moment it expired
    (retention only) and, for people, why so."""

    cause: str
    expired_ms: int | None
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"cause": self.cause, "expired_ms": self.expired_ms}

    def line(self) -> str:
        """The cause as history's table says it."""
        if self.cause == RETENTION:
            return f"removed by retention: expired at {format_ms(self.expired_ms or 0)} ({self.why})"
        return f"{'deleted' if self.cause == DELETED else 'cause unknown'}: {self.why}"


def cause(d: Deletion, retention: Retention) -> Cause:
    """Why ``d``'s offset was deleted, under ``retention`` (the rules of the module's docstring)."""
    if d.commit is None:
        return Cause(UNKNOWN, None, "no commit of it in the records read")
    e = expiry(d.facts, d.topic, d.commit, retention)
    if e.expires_ms is None:
        return Cause(DELETED, None, f"Kafka would not expire it then ({e.reason})")
    if d.timestamp >= e.expires_ms:
        return Cause(RETENTION, e.expires_ms, e.reason)
    return Cause(DELETED, None, f"before it would have expired, at {format_ms(e.expires_ms)}")


class Deletions:
    """Every offset deletion of a group's replay, with the group's expiry facts at each: made
    before the replay's records are applied (it watches them)."""

    def __init__(self, replay: GroupReplay):
        self.items: list[Deletion] = []
        self._facts: tuple[int, GroupFacts] | None = None  # the facts, by the group records applied
        replay.on_offset_deleted = self._seen

    def _seen(self, replay: GroupReplay, topic: str, partition: int, position: tuple[int, int], timestamp: int,
              commit: Commit | None) -> None:
        if self._facts is None or self._facts[0] != replay.group_records:
            self._facts = (replay.group_records, facts(replay))
        self.items.append(Deletion(topic, partition, position, timestamp, commit, self._facts[1]))

    def causes(self, retention: Retention) -> dict[tuple[int, int], Cause]:
        """Each deletion's cause, by its tombstone's log position."""
        return {d.position: cause(d, retention) for d in self.items}

    def causes_json(self, retention: Retention) -> dict[tuple[int, int], dict[str, Any]]:
        """:meth:`causes` as ``Rebalance.to_json`` takes them."""
        return {at: c.to_json() for at, c in self.causes(retention).items()}


def removed_by_retention(deletions: Iterable[Deletion], retention: Retention,
                         offsets: dict[str, dict[int, Commit]]) -> list[tuple[Deletion, Cause]]:
    """The deletions by retention of offsets that have no commit in ``offsets`` (the group's
    committed offsets after them: not committed again), in log order."""
    out = []
    for d in deletions:
        c = cause(d, retention)
        if c.cause == RETENTION and d.partition not in offsets.get(d.topic, {}):
            out.append((d, c))
    return out
