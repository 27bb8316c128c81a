"""Lag arithmetic: one row per partition of the group's topics, with its owner.

Pure: works on GroupState (live capture or snapshot alike).
"""
from __future__ import annotations

from dataclasses import dataclass

from kgroup.model import GroupState, Member


@dataclass(frozen=True)
class OffsetRow:
    topic: str
    partition: int
    committed: int | None
    log_start: int | None
    log_end: int | None
    lag: int | None
    member_id: str | None
    client_id: str | None
    host: str | None
    metadata: str | None
    time_lag_ms: int | None = None

    def to_json(self) -> dict:
        return {"topic": self.topic, "partition": self.partition, "committed": self.committed,
                "log_start": self.log_start, "log_end": self.log_end, "lag": self.lag, "member_id": self.member_id,
                "client_id": self.client_id, "host": self.host, "metadata": self.metadata,
                "time_lag_ms": self.time_lag_ms}


def lag(committed: int | None, log_end: int | None) -> int | None:
    """Log-end minus committed; unknown when either is unknown."""
    if committed is None or log_end is None:
        return None
    return log_end - committed


def owners(members: list[Member]) -> dict[tuple[str, int], Member]:
    out = {}
    for m in members:
        for topic, partitions in m.assignment.items():
            for p in partitions:
                out[(topic, p)] = m
    return out


def offset_rows(state: GroupState, topics: list[str] | None = None,
                record_timestamps: dict[tuple[str, int], int] | None = None,
                now_ms: int | None = None) -> list[OffsetRow]:
    """Every partition of the group's topics (assigned, subscribed or committed), or of
    ``topics`` when given; never-committed partitions have ``committed=None``."""
    owner = owners(state.group.members)
    names = set(topics) if topics else set(state.group.topics) | set(state.offsets)
    rows = []
    for topic in sorted(names):
        layout = state.topics.get(topic)
        known = set(state.offsets.get(topic, {})) | {p for (t, p) in owner if t == topic}
        count = layout.partitions if layout else (max(known) + 1 if known else 0)
        for p in sorted(set(range(count)) | known):
            o = state.offsets.get(topic, {}).get(p)
            m = owner.get((topic, p))
            committed = o.committed if o else None
            ts = (record_timestamps or {}).get((topic, p))
            time_lag = None
            if record_timestamps is not None and now_ms is not None and committed is not None and o.log_end is not None:
                time_lag = 0 if committed >= o.log_end else (max(0, now_ms - ts) if ts is not None else None)
            rows.append(OffsetRow(topic, p, committed, o.log_start if o else None, o.log_end if o else None,
                                  lag(committed, o.log_end if o else None), m.member_id if m else None,
                                  m.client_id if m else None, m.host if m else None,
                                  o.metadata if o else None, time_lag))
    return rows


def totals(rows: list[OffsetRow]) -> tuple[dict[str, int], int]:
    """Lag per topic and for the group (known lags only)."""
    per_topic: dict[str, int] = {}
    for r in rows:
        per_topic.setdefault(r.topic, 0)
        if r.lag is not None:
            per_topic[r.topic] += r.lag
    return per_topic, sum(per_topic.values())
