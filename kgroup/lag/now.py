"""Lag arithmetic: one row per partition of the group's topics, with its owner.

Pure: works on GroupState (live capture or snapshot alike). Every number it hands
on is a fact: an offset that is not one (a client sentinel such as -1001, a log
start past the log end, a commit past the log end) or a value that could not be
read makes the row *unknown*, with the reason, and an unknown row makes the whole
answer incomplete: no total is summed over it and no threshold can pass on it.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kgroup.group.assignment import owners
from kgroup.group.model import GroupState, PartitionOffsets


def lag(committed: int | None, log_end: int | None) -> int | None:
    """Log-end minus committed; unknown when either is unknown or not an offset,
    or when the commit lies past the log end (never a negative lag)."""
    if committed is None or log_end is None or committed < 0 or log_end < committed:
        return None
    return log_end - committed


def _offset(value: int | None) -> int | None:
    """An offset as a fact: negative values are client sentinels (-1 latest, -2 earliest,
    -1001 invalid: no answer), never offsets."""
    return value if value is None or value >= 0 else None


def unknown_reason(committed: int | None, log_start: int | None, log_end: int | None) -> str | None:
    """Why the lag of a partition with these raw offsets cannot be stated, or None when it can
    (or when there is no commit, so no lag to state)."""
    for name, value in (("committed", committed), ("log-start", log_start), ("log-end", log_end)):
        if value is not None and value < 0:
            return f"{name} offset {value} is not an offset (a client sentinel for no valid answer)"
    if log_start is not None and log_end is not None and log_start > log_end:
        return f"log-start offset {log_start} is past the log-end offset {log_end}"
    if committed is None:
        return None
    if log_end is None:
        return "log-end offset unknown"
    if committed > log_end:
        return f"committed offset {committed} is past the log-end offset {log_end}"
    return None


# the fields of a row of offset_table, in the order of its JSON form
ROW_FIELDS = ("topic", "partition", "committed", "log_start", "log_end", "lag", "member_id", "client_id", "host",
              "metadata", "time_lag_ms")


def offset_table(state: GroupState, topics: list[str] | None = None,
                 record_timestamps: dict[tuple[str, int], int] | None = None,
                 now_ms: int | None = None) -> tuple[list[tuple[Any, ...]], dict[int, str], dict[str, int | None], int | None]:
    """Every partition of the group's topics (assigned, subscribed or committed), or of ``topics``
    when given, as plain tuples (the fields of ROW_FIELDS; never-committed partitions have
    committed None), built in one pass with no other object per row: ``(rows, {row index: why
    unknown}, lag per topic, group lag)``; a topic's lag is unknown (None) when one of its rows
    is, the group's when a topic's is."""
    owner = owners(state.group.members)
    offsets = state.offsets
    none = PartitionOffsets()
    names = set(topics) if topics else set(state.group.topics) | set(offsets)
    rows: list[tuple[Any, ...]] = []
    reasons: dict[int, str] = {}
    per_topic: dict[str, int | None] = {}
    stamps = record_timestamps if record_timestamps is not None else {}
    timed_at = now_ms if record_timestamps is not None else None  # the time lag's "now"; None: not asked
    for topic in sorted(names):
        layout = state.topics.get(topic)
        by_partition = offsets.get(topic, {})
        known = set(by_partition)
        if owner:
            known |= {p for (t, p) in owner if t == topic}
        count = layout.partitions if layout else (max(known) + 1 if known else 0)
        topic_lag: int | None = 0
        partitions = range(count) if not known or (min(known) >= 0 and max(known) < count) \
            else sorted(set(range(count)) | known)
        for p in partitions:
            o = by_partition.get(p)
            m = owner.get((topic, p)) if owner else None
            committed, log_start, log_end, metadata, _ = o or none  # a PartitionOffsets: unpacked as the tuple it is
            if committed is not None and log_start is not None and log_end is not None and \
                    0 <= committed <= log_end and 0 <= log_start <= log_end:
                reason = None  # the common case: every value a fact (unknown_reason says None)
                row_lag: int | None = log_end - committed
            else:
                values = (committed, log_start, log_end)
                reason = unknown_reason(*values)
                committed, log_start, log_end = (_offset(v) for v in values)
                if reason is not None and not reason.startswith("committed"):
                    log_start = log_end = None  # one of them is wrong: neither is shown as a fact
                row_lag = None if reason else lag(committed, log_end)
            time_lag = None
            if timed_at is not None and row_lag is not None:
                ts = stamps.get((topic, p))
                if row_lag == 0:
                    time_lag = 0
                elif ts is not None and ts >= 0:
                    time_lag = max(0, timed_at - ts)
                else:
                    reason = f"time lag unknown: the record at offset {committed} was not read"
            if reason is not None:
                reasons[len(rows)] = reason
                if row_lag is None:
                    topic_lag = None
            if row_lag is not None and topic_lag is not None:
                topic_lag += row_lag
            if m is None:
                rows.append((topic, p, committed, log_start, log_end, row_lag, None, None, None, metadata, time_lag))
            else:
                rows.append((topic, p, committed, log_start, log_end, row_lag, m.member_id, m.client_id, m.host,
                             metadata, time_lag))
        if count or known:
            per_topic[topic] = topic_lag
    known_lags = [v for v in per_topic.values() if v is not None]
    return rows, reasons, per_topic, None if len(known_lags) < len(per_topic) else sum(known_lags)


def time_lag_positions(states: Iterable[GroupState]) -> dict[tuple[str, int], int]:
    """Where the first unconsumed record of each partition lies, for the time lag: the committed
    offset of every partition with a record there (committed and log-end offsets known,
    0 <= committed < log end). A partition committed by several groups keeps the last one's."""
    return {(t, p): o.committed for s in states for t, parts in s.offsets.items() for p, o in parts.items()
            if o.committed is not None and o.log_end is not None and 0 <= o.committed < o.log_end}
