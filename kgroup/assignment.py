"""Assignments in the compact form on-call engineers read: ``Order:0-3,6 Stock:0-2``."""
from __future__ import annotations


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

