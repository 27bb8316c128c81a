"""Why a KIP-848 member is still reconciling (pure).

In a KIP-848 (``consumer``) group the coordinator computes a target assignment for every
member, stamped with the assignment epoch, and each member converges to its target one
heartbeat at a time (Kafka's ``CurrentAssignmentBuilder``): it first gives up the partitions
its target no longer holds, staying in its old member epoch until it has; then it moves to
the assignment epoch and is given each partition of its target as soon as no other member
holds it any more. A member is reconciled when its assignment is its target, it has nothing
left to give up, and (where the epochs are known) its member epoch has reached the assignment
epoch (one ahead of it is not behind: the member has moved to a newer target assignment epoch
than the one known).

For a member that is not, :func:`explain` says why, from the group's members alone:

- ``to_revoke``: partitions it still holds that its target does not (its assignment minus
  its target, and its partitions pending revocation where known: the offsets log records them,
  ConsumerGroupDescribe does not);
- ``waiting_for``: partitions of its target it does not hold yet, each with the member that
  still holds it (in its assignment or pending revocation), or none when no member's does:
  then it is free and the member gets it at its next heartbeat; from a describe answer, which
  lists no pending revocations, it may also still be pending revocation by a member in an
  older epoch;
- the member's epoch beside the group epoch and the assignment epoch, each None where not known.

Nothing here guesses: what the members do not say is left None.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from kgroup.group.assignment import Assignment, by_topic, normalized, topic_partitions
from kgroup.group.model import GroupDescription, Member


class Waiting(NamedTuple):
    """A partition of a member's target it does not hold yet, and who holds it (None: nobody)."""

    topic: str
    partition: int
    held_by: str | None

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "partition": self.partition, "held_by": self.held_by}


class Reconciliation(NamedTuple):
    """Why one member is not reconciled (see the module text)."""

    member_id: str
    member_epoch: int | None
    group_epoch: int | None
    assignment_epoch: int | None
    to_revoke: Assignment
    waiting_for: list[Waiting]

    def to_json(self) -> dict[str, Any]:
        return {"member_epoch": self.member_epoch, "group_epoch": self.group_epoch,
                "assignment_epoch": self.assignment_epoch, "to_revoke": self.to_revoke,
                "waiting_for": [w.to_json() for w in self.waiting_for]}


def reconciled(m: Member, assignment_epoch: int | None) -> bool:
    """Whether ``m`` has converged to its target: its assignment is its target, nothing is
    pending revocation, and its epoch is not behind the assignment epoch where both are known. A
    member without a target (a classic group's) is."""
    if m.target_assignment is None:
        return True
    if normalized(m.assignment) != normalized(m.target_assignment) or normalized(m.pending_revocation):
        return False
    return m.member_epoch is None or assignment_epoch is None or m.member_epoch >= assignment_epoch


def _holders(members: list[Member]) -> dict[tuple[str, int], str]:
    """Each partition some member holds (assigned or pending revocation) -> the first such member
    by id (Kafka lets one member hold a partition at a time)."""
    out: dict[tuple[str, int], str] = {}
    for m in sorted(members, key=lambda m: m.member_id, reverse=True):
        for a in (m.assignment, m.pending_revocation):
            for tp in topic_partitions(a or {}):
                out[tp] = m.member_id
    return out


def explain(group: GroupDescription) -> dict[str, Reconciliation]:
    """For each member of ``group`` that is not :func:`reconciled`, why (by member id, in the
    group's member order)."""
    epoch = group.assignment_epoch
    pending = [m for m in group.members if not reconciled(m, epoch)]
    if not pending:
        return {}
    holders = _holders(group.members)
    out = {}
    for m in pending:
        target = set(topic_partitions(m.target_assignment or {}))
        held = set(topic_partitions(m.assignment))
        to_revoke = (held - target) | set(topic_partitions(m.pending_revocation or {}))
        waiting = [Waiting(t, p, holders.get((t, p))) for t, p in sorted(target - held)]
        out[m.member_id] = Reconciliation(m.member_id, m.member_epoch, group.generation, epoch,
                                          by_topic(to_revoke), waiting)
    return out


def _epoch(value: int | None) -> str:
    return "-" if value is None else str(value)


def waiting_text(waiting: list[tuple[str, str | None]], shown_at_most: int) -> str:
    """``waiting for A (held by m2), B (held by no member) (+N more)``: what a member waits for
    (a partition or task, its holder; None: nobody), at most ``shown_at_most`` named."""
    shown = waiting[:shown_at_most]
    return ("waiting for " + ", ".join(f"{what} (held by {holder if holder is not None else 'no member'})"
                                       for what, holder in shown)
            + (f" (+{len(waiting) - len(shown)} more)" if len(shown) < len(waiting) else ""))


def describe_line(member_id: str, r: dict[str, Any], shown_at_most: int = 20) -> str:
    """One line for a table's notes from a member's ``reconciliation`` (:meth:`Reconciliation.to_json`):
    ``m1: epoch 4 (group epoch 5, assignment epoch 5); to revoke T:2; waiting for T:3 (held by
    m2), T:4 (held by no member)`` (at most ``shown_at_most`` partitions waited for, then how
    many more; ``-``: an epoch not known)."""
    from kgroup.group.assignment import compact

    parts = [f"{member_id}: epoch {_epoch(r['member_epoch'])} (group epoch {_epoch(r['group_epoch'])}, "
             f"assignment epoch {_epoch(r['assignment_epoch'])})"]
    if r["to_revoke"]:
        parts.append(f"to revoke {compact(r['to_revoke'])}")
    waiting = r["waiting_for"]
    if waiting:
        parts.append(waiting_text([(f"{w['topic']}:{w['partition']}", w["held_by"]) for w in waiting], shown_at_most))
    if not r["to_revoke"] and not waiting:
        behind = r["member_epoch"] is None or r["assignment_epoch"] is None or r["member_epoch"] < r["assignment_epoch"]
        parts.append("holds its target; its epoch has not reached the assignment epoch yet" if behind else
                     "holds its target; its epoch is ahead of the assignment epoch known")
    return "; ".join(parts)
