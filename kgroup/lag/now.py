"""Lag arithmetic: one row per partition of the group's topics, with its owner.

Pure: works on GroupState (live capture or snapshot alike). Every number it hands
on is a fact: an offset that is not one (a client sentinel such as -1001, a log
start past the log end, a commit past the log end) or a value that could not be
read makes the row *unknown*, with the reason, and an unknown row makes the whole
answer incomplete: no total is summed over it and no threshold can pass on it.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
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


# A lag of at most this many offsets is read for records a consumer of committed records would get
# (:func:`marker_positions`): a few batches, one small read. A transactional topic's log ends with a
# commit marker, so a consumer that committed "last processed + 1" keeps a lag of 1 that will never
# be consumed; a larger lag of nothing but markers and aborted records is rare.
MARKER_CHECK_MAX = 1000


def marker_positions(states: Iterable[GroupState]) -> dict[tuple[str, int], tuple[int, int]]:
    """The partitions whose lag may be nothing but transaction markers or aborted records, to be
    read (kgroup.lag.collect.never_consumed): ``{(topic, partition): (committed, log end)}`` of
    those with 0 < lag <= MARKER_CHECK_MAX. A partition committed by several groups keeps the
    last one's."""
    return {(t, p): (o.committed, o.log_end) for s in states for t, parts in s.offsets.items()
            for p, o in parts.items() if o.committed is not None and o.log_end is not None
            and 0 <= o.committed < o.log_end <= o.committed + MARKER_CHECK_MAX}


def markers_notes(caught: Iterable[tuple[str, int, int]], shown: int = 5) -> list[str]:
    """What the table says of the partitions caught up although their log end is past their
    committed offset (``(topic, partition, offsets between)``): one line each, the first ``shown``."""
    caught = list(caught)
    lines = [f"{t}-{p}: caught up; " + ("1 offset is a transaction marker or an aborted record" if n == 1 else
                                         f"{n} offsets are transaction markers or aborted records")
             + ", never consumed" for t, p, n in caught[:shown]]
    if len(caught) > shown:
        lines.append(f"... and {len(caught) - shown} more partitions caught up so")
    return lines


# the fields of a row of offset_table, in the order of its JSON form
ROW_FIELDS = ("topic", "partition", "committed", "log_start", "log_end", "lag", "member_id", "client_id", "host",
              "metadata", "time_lag_ms")


def offset_table(state: GroupState, topics: list[str] | None = None,
                 record_timestamps: dict[tuple[str, int], int] | None = None,
                 now_ms: int | None = None, undeliverable: Mapping[tuple[str, int], int] | None = None
                 ) -> tuple[list[tuple[Any, ...]], dict[int, str], dict[str, int | None], int | None]:
    """Every partition of the group's topics (assigned, subscribed or committed), or of ``topics``
    when given, as plain tuples (the fields of ROW_FIELDS; never-committed partitions have
    committed None), built in one pass with no other object per row: ``(rows, {row index: why
    unknown}, lag per topic, group lag)``; a topic's lag is unknown (None) when one of its rows
    is, the group's when a topic's is. ``undeliverable``: the partitions whose offsets between
    committed and log end hold no record a consumer would get (transaction markers, aborted
    records), with how many they are: where that is the row's whole lag, the lag is 0."""
    skipped = undeliverable or {}
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
                if row_lag and skipped and skipped.get((topic, p)) == row_lag:
                    row_lag = 0  # nothing there will ever be consumed
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


def offsets_document(states: Iterable[GroupState], topics: list[str] | None,
                     record_timestamps: dict[tuple[str, int], int] | None, now_ms: int, lag_above: int | None = None,
                     undeliverable: Mapping[tuple[str, int], int] | None = None) -> dict[str, Any]:
    """The offsets document. Per group: ``complete`` is false when any value could not be
    known (``unknown`` lists those partitions and why; their lag and the totals over them are
    null); with ``lag_above``, ``over_threshold`` lists the partitions whose lag exceeds it;
    ``caught_up_by_markers`` (only where there are some) the partitions whose lag is 0 because
    nothing between committed and log end will ever be consumed (see offset_table)."""
    return {"groups": [offsets_group(s, topics, record_timestamps, now_ms, lag_above, undeliverable=undeliverable)
                       for s in states]}


def offsets_group(s: GroupState, topics: list[str] | None, record_timestamps: dict[tuple[str, int], int] | None,
                  now_ms: int, lag_above: int | None = None, row_tuples: bool = False,
                  undeliverable: Mapping[tuple[str, int], int] | None = None) -> dict[str, Any]:
    """One group of the offsets document (see offsets_document), built on its own so that a
    command can write each group as soon as it is known. With
    ``row_tuples``, ``partitions`` holds each row as a tuple of the values of ROW_FIELDS
    rather than as an object (kgroup.output.stream.offsets_group_json writes the same JSON from them)."""
    rows, reasons, per_topic, total = offset_table(s, topics, record_timestamps, now_ms, undeliverable)
    g = {"group": s.group.group_id, "state": s.group.state,
         "partitions": rows if row_tuples else [dict(zip(ROW_FIELDS, r)) for r in rows],
         "total_lag": total, "topic_lag": per_topic,
         "incomplete": bool(reasons),
         "unknown": [{"topic": rows[i][0], "partition": rows[i][1], "reason": reason}
                     for i, reason in reasons.items()]}
    if undeliverable:
        # the rows whose whole lag (log end - committed) was such offsets
        markers = [{"topic": r[0], "partition": r[1], "transaction_markers": r[4] - r[2]} for r in rows
                   if r[5] == 0 and r[2] is not None and r[4] is not None and r[4] > r[2]
                   and undeliverable.get((r[0], r[1])) == r[4] - r[2]]
        if markers:
            g["caught_up_by_markers"] = markers
    if lag_above is not None:
        g["over_threshold"] = [{"topic": r[0], "partition": r[1], "lag": r[5]}
                               for r in rows if r[5] is not None and r[5] > lag_above]
    return g


class LagVerdict:
    """The verdict over an offsets answer, taken group by group as the groups are written
    (each a group of the offsets document): ``incomplete`` when any value is unknown (nothing
    can pass on it), else ``over`` when a partition's lag exceeds ``lag_above``, else ``ok``.

    ``over`` holds the first ``shown`` partitions over the threshold as (group, topic,
    partition, lag), ``over_count`` counts them all; ``unknown`` holds every unknown partition
    as (group, its entry of the group's ``unknown`` list)."""

    def __init__(self, lag_above: int | None, shown: int = 20):
        self.lag_above, self.shown = lag_above, shown
        self.incomplete = False
        self.over: list[tuple[str, str, int, int]] = []
        self.over_count = 0
        self.unknown: list[tuple[str, dict[str, Any]]] = []

    def add(self, g: dict[str, Any]) -> None:
        self.incomplete = self.incomplete or g["incomplete"]
        self.unknown.extend((g["group"], u) for u in g["unknown"])
        if self.lag_above is not None and g["over_threshold"]:
            self.over_count += len(g["over_threshold"])
            self.over.extend((g["group"], o["topic"], o["partition"], o["lag"])
                             for o in g["over_threshold"][:max(0, self.shown - len(self.over))])

    @property
    def verdict(self) -> str:
        return "incomplete" if self.incomplete else "over" if self.over_count else "ok"

    def problems(self, reported: list[str]) -> list[str]:
        """What makes the answer incomplete: the problems ``reported`` while reading (each
        starting with what it is about, then ':'), then every unknown partition none of them
        names; never empty when the verdict is ``incomplete``."""
        named = {p.split(":", 1)[0] for p in reported}
        problems = reported + [f"{group} {u['topic']}-{u['partition']}: {u['reason']}"
                               for group, u in self.unknown if f"{u['topic']}-{u['partition']}" not in named]
        if not problems and self.incomplete:
            return ["some values are unknown"]
        return problems


def lag_verdict(doc: dict[str, Any], lag_above: int | None) -> str:
    """LagVerdict's verdict over a whole offsets document."""
    verdict = LagVerdict(lag_above)
    for g in doc["groups"]:
        verdict.add(g)
    return verdict.verdict
