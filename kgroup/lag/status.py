"""Is a partition's consumer healthy? Burrow's evaluation rules, over commits and log ends.

The rules are those of LinkedIn's Burrow (its caching evaluator, ``core/internal/evaluator``),
which on-call engineers already know; docs/commands/lag.md states them. Pure: plain values in,
a status out.

A partition is evaluated on its *window*: its last :data:`WINDOW` commits up to the moment
asked about, a commit less than :data:`MIN_DISTANCE_MS` after the previous one replacing it
while keeping the earlier time (Burrow's ``min-distance``; kgroup.lag.history builds the
window). Each commit carries the lag the partition had at that moment (unknown: None). Burrow also keeps the log end of the partition
polled every 10 s, the last 10 polls; kgroup takes the same moments after the fact
(:func:`sample_moments`).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

WINDOW = 10  # commits per partition evaluated (Burrow's intervals)
MIN_DISTANCE_MS = 1000  # a commit closer than this to the previous one replaces it (Burrow's min-distance)
SAMPLE_INTERVAL_MS = 10_000  # Burrow polls the log end every 10 s ...
SAMPLES = 10  # ... and keeps the last 10

OK, WARN, STOP, STALL, REWIND = "OK", "WARN", "STOP", "STALL", "REWIND"
PARTITION_STATUSES = (OK, WARN, STOP, STALL, REWIND)
# ``lag --watch`` only: too few samples yet for the rules (:func:`warming_up`); never a problem
WARMING_UP = "WARMING UP"
ERR = "ERR"
GROUP_STATUSES = (OK, WARN, ERR)


class Sample(NamedTuple):
    """One commit of a partition as the rules see it (Burrow's ConsumerOffset)."""

    time_ms: int
    offset: int
    lag: int | None  # the lag at that commit; None: unknown


def sample_moments(until_ms: int, after_ms: int, count: int = SAMPLES, interval_ms: int = SAMPLE_INTERVAL_MS) -> list[int]:
    """The log-end poll moments Burrow would hold at ``until_ms`` (``until``, ``until - 10 s``,
    ...), newest first, keeping only those after ``after_ms`` (the last commit)."""
    return [t for t in (until_ms - k * interval_ms for k in range(count)) if t > after_ms]


# -- the rules, one function each, named as Burrow names them --------------------------------

def lag_always_not_zero(offsets: Sequence[Sample], allowed_lag: int) -> bool:
    """No commit of the window had a lag within the allowed lag (an unknown lag is not within it)."""
    return not any(o.lag is not None and o.lag <= allowed_lag for o in offsets)


def offsets_rewind(offsets: Sequence[Sample]) -> int:
    """The index of the first commit lower than the one before it; -1 if none."""
    for i in range(1, len(offsets)):
        if offsets[i].offset < offsets[i - 1].offset:
            return i
    return -1


def rewind_recovered(offsets: Sequence[Sample], index: int) -> bool:
    """Did a commit from ``index`` on climb back to the offset before the rewind?"""
    previous = offsets[index - 1].offset
    return any(o.offset >= previous for o in offsets[index:])


def offsets_stopped(offsets: Sequence[Sample], now_ms: int) -> bool:
    """The time since the last commit is longer than the window's span (strictly)."""
    first, last = offsets[0].time_ms, offsets[-1].time_ms
    return now_ms - last > last - first


def offsets_stalled(offsets: Sequence[Sample]) -> bool:
    """Every commit of the window has the same offset."""
    return all(offsets[i].offset == offsets[i - 1].offset for i in range(1, len(offsets)))


def lag_not_decreasing(offsets: Sequence[Sample]) -> bool:
    """The known lags never go down from one commit to the next."""
    last: int | None = None
    for o in offsets:
        if o.lag is not None:
            if last is not None and o.lag < last:
                return False
            last = o.lag
    return True


def recent_lag_zero(offsets: Sequence[Sample], log_ends: Iterable[int]) -> bool:
    """At one of the recent log-end polls the log ended at or before the last committed offset
    (the consumer was caught up then)."""
    last = offsets[-1].offset
    return any(end <= last for end in log_ends)


def partition_status(offsets: Sequence[Sample], log_ends: Iterable[int], current_lag: int, now_ms: int,
                     allowed_lag: int = 0) -> str:
    """Burrow's status of one partition: ``offsets`` its window (non-empty, in order),
    ``log_ends`` the log end at the recent polls, ``current_lag`` its lag now."""
    if current_lag <= allowed_lag:
        return OK
    if offsets_stopped(offsets, now_ms) and not recent_lag_zero(offsets, log_ends):
        return STOP
    index = offsets_rewind(offsets)
    if index > 0 and not rewind_recovered(offsets, index):
        return REWIND
    if lag_always_not_zero(offsets, allowed_lag):
        if offsets_stalled(offsets):
            return STALL
        if lag_not_decreasing(offsets):
            return WARN
    return OK


def warming_up(window_commits: int, samples: int) -> bool:
    """Has a watched partition too little yet for the rules? Its window holds fewer than
    :data:`WINDOW` commits and the watch has taken fewer than :data:`SAMPLES` samples (the log-end
    polls Burrow keeps). With one sample, a consumer that commits at every poll has one commit:
    its offsets look stalled and its window spans nothing, and the rules would call it STALL."""
    return window_commits < WINDOW and samples < SAMPLES


def group_status(statuses: Iterable[str]) -> str:
    """ERR when a partition is STOP, STALL or REWIND; else WARN when one is WARN; else OK (a
    partition WARMING UP counts for nothing)."""
    seen = set(statuses)
    if seen & {STOP, STALL, REWIND}:
        return ERR
    return WARN if WARN in seen else OK
