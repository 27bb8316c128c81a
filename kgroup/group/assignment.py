"""A member's assignment: the partitions it owns, per topic (Kafka's ``Assignment`` of one member).

One shape everywhere a member's partitions are kept or shown: ``Member.assignment`` and
``target_assignment``, snapshots, every ``-o json`` document (``{"Order": [0, 1, 2]}``):
topics and partitions in ascending order. What an assignor returns for a whole group keeps the
order Kafka's assignor produced (``GroupAssignment``: member id -> topic-partitions), which the
sticky assignors' next run depends on; ``by_topic`` turns one member's list into an ``Assignment``.
Also the compact form on-call engineers read: ``Order:0-3,6 Stock:0-2``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from typing import Protocol

    class Owner(Protocol):
        """What owns partitions (the model's Member, which imports this module)."""

        @property
        def assignment(self) -> Mapping[str, Iterable[int]]: ...

TopicPartition = tuple[str, int]
#: one member's partitions per topic, topics and partitions ascending
Assignment = dict[str, list[int]]
#: member id -> its partitions, in the exact order the assignor produced them (Kafka's GroupAssignment)
GroupAssignment = dict[str, list[TopicPartition]]

K = TypeVar("K")
M = TypeVar("M", bound="Owner")


def by_topic(partitions: Iterable[TopicPartition]) -> Assignment:
    """``[("Stock", 1), ("Order", 2), ("Order", 0)]`` -> ``{"Order": [0, 2], "Stock": [1]}``."""
    out: Assignment = {}
    for topic, partition in sorted(partitions):  # one sort: by topic, then partition
        ps = out.get(topic)
        if ps is None:
            out[topic] = [partition]
        else:
            ps.append(partition)
    return out


def topic_partitions(assignment: Mapping[str, Iterable[int]]) -> list[TopicPartition]:
    """``{"Order": [2, 0], "Stock": [1]}`` -> ``[("Order", 0), ("Order", 2), ("Stock", 1)]``."""
    return [(t, p) for t, ps in sorted(assignment.items()) for p in sorted(ps)]


def normalized(assignment: Mapping[str, Iterable[int]] | None) -> Assignment:
    """The assignment with topics and partitions ascending and topics without partitions left out."""
    return {t: sorted(ps) for t, ps in sorted((assignment or {}).items()) if ps}


def partition_count(assignment: Mapping[str, list[int]] | None) -> int:
    """How many partitions the assignment holds."""
    return sum(map(len, (assignment or {}).values()))


def merged(pairs: Iterable[tuple[str, Iterable[int]]]) -> Assignment:
    """Per-topic partition lists as a record carries them, a topic possibly listed more than once
    -> an ``Assignment``: ``[("B", [1]), ("A", [2, 0]), ("A", [2])]`` -> ``{"A": [0, 2], "B": [1]}``
    (a topic listed without partitions stays, with ``[]``, as the record lists it)."""
    out: dict[str, set[int]] = {}
    for topic, partitions in pairs:
        out.setdefault(topic, set()).update(partitions)
    return {t: sorted(ps) for t, ps in sorted(out.items())}


def owners_of(assignments: Iterable[tuple[K, Mapping[str, Iterable[int]] | None]]) -> dict[TopicPartition, K]:
    """Each assigned partition's owner, from ``(owner, assignment)`` pairs (a partition listed
    twice: the later owner; ``None``: no partitions)."""
    out: dict[TopicPartition, K] = {}
    for owner, assignment in assignments:
        for topic, partitions in (assignment or {}).items():
            for p in partitions:
                out[(topic, p)] = owner
    return out


def owners(members: Iterable[M]) -> dict[TopicPartition, M]:
    """Each assigned partition's owning member (a partition listed by two members: the later one)."""
    return owners_of((m, m.assignment) for m in members)


def ranges(partitions: list[int]) -> str:
    """``[0, 1, 2, 3, 6]`` -> ``0-3,6``."""
    out: list[str] = []
    ps = sorted(set(partitions))
    i = 0
    while i < len(ps):
        j = i
        while j + 1 < len(ps) and ps[j + 1] == ps[j] + 1:
            j += 1
        out.append(str(ps[i]) if i == j else f"{ps[i]}-{ps[j]}")
        i = j + 1
    return ",".join(out)


def compact(assignment: Mapping[str, list[int]] | None) -> str:
    """``{"Order": [0, 1, 2, 3, 6], "Stock": [0, 1, 2]}`` -> ``Order:0-3,6 Stock:0-2`` ('' when empty)."""
    if not assignment:
        return ""
    return " ".join(f"{t}:{ranges(ps)}" for t, ps in sorted(assignment.items()) if ps)
