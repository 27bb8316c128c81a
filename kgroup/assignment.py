"""Assignments in the compact form on-call engineers read: ``Order:0-3,6 Stock:0-2``."""
from __future__ import annotations

from kgroup.errors import UsageError


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


def compact(assignment: dict[str, list[int]] | None) -> str:
    """``{"Order": [0, 1, 2, 3, 6], "Stock": [0, 1, 2]}`` -> ``Order:0-3,6 Stock:0-2`` ('' when empty)."""
    if not assignment:
        return ""
    return " ".join(f"{t}:{ranges(ps)}" for t, ps in sorted(assignment.items()) if ps)


def partition_count(assignment: dict[str, list[int]] | None) -> int:
    return sum(len(ps) for ps in (assignment or {}).values())


def normalized(assignment: dict[str, list[int]] | None) -> dict[str, list[int]]:
    return {t: sorted(ps) for t, ps in sorted((assignment or {}).items()) if ps}


def parse_topic_counts(items: list[str], option: str) -> dict[str, int]:
    """``["Order=12"]`` -> ``{"Order": 12}`` (for ``--partitions``)."""
    import re

    out = {}
    for item in items:
        topic, sep, count = item.rpartition("=")
        # ASCII digits only ('²' and other Unicode digits are not numbers here), at most int32
        if not sep or not topic or not re.fullmatch(r"[0-9]{1,10}", count) or not 1 <= int(count) <= 2**31 - 1:
            raise UsageError(f"{option} expects TOPIC=N with N from 1 to 2147483647 (a topic's partition "
                             f"count), got {item!r}")
        out[topic] = int(count)
    return out
