"""A group's lag over time, rebuilt after the fact: its commits from the offsets log, the log
end of each partition at each commit moment, the status of each partition by Burrow's rules
(kgroup.lag.status) and when the lag will be gone.

Pure. The steps, each a function:

1. :func:`commits_from_log`: the group's commits per partition, in log order, up to ``until``.
2. :func:`moments`: the moments whose log end is needed (commit moments in the window with the
   newest commit before it, the commits of the status window, and, after the last commit, the
   log-end poll moments and the ends of the sparkline's slots).
3. the cluster answers them (kgroup.lag.ends), or a live sampler does (``lag --watch``);
4. :func:`evaluate`: points, lags, statuses, rates and catch-up time, as a :class:`LagReport`.

For a commit at moment T: committed(T) is its offset, end(T) where the partition's log ended at
T, lag(T) = end(T) - committed(T); an unknown end makes the point unknown (None), never guessed,
and so does a committed offset that is not one: a negative value (a client's sentinel, such as
-1) or one beyond end(T) (the log never held that offset then). A commit record of the group
that cannot be decoded (its key names the partition, its value cannot be read) makes what was
committed then unknown: the partition's lag and status from it on are unknown, and the partition
says where the record lies. A status is stated only from a known lag: at --until, and at some
commit of the status window.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from kgroup.lag import status as lag_status
from kgroup.lag.status import Sample
from kgroup.output.sparkline import slot_ends

TopicPartition = tuple[str, int]

RECENT_INTERVALS = 3  # the catch-up's rates: over the last 3 intervals of the status window
CAUGHT_UP, CAUGHT_UP_AT_LAST_COMMIT, CATCHING_UP, NOT_CATCHING_UP = (
    "caught up", "caught up at last commit", "catching up", "not catching up")
NO_CATCH_UP = (lag_status.STOP, lag_status.STALL, lag_status.REWIND)  # a consumer not moving: no estimate


class Commit(NamedTuple):
    """One offset commit of a partition: when (the record's commit timestamp, ms) and what."""

    time_ms: int
    offset: int


class Point(NamedTuple):
    """The partition at one commit moment."""

    time_ms: int
    committed: int
    end: int | None  # where the log ended at time_ms; None: unknown
    lag: int | None
    time_lag_ms: int | None = None  # how old the next record to consume was (asked for only)


class PartitionLag(NamedTuple):
    topic: str
    partition: int
    status: str | None  # OK WARN STOP STALL REWIND; None: the lag at --until is unknown
    complete: float  # known commits of the status window / 10
    lag: int | None  # at --until
    end: int | None  # the log end at --until
    committed: int | None  # the last committed offset at or before --until; None: unknown (an undecodable record)
    consume_per_s: float | None  # over the last RECENT_INTERVALS intervals of the status window
    produce_per_s: float | None
    eta_s: float | None  # when the lag will be 0 at these rates; None: no estimate (catch_up says why)
    catching_up: bool | None  # None: the rates are unknown
    points: list[Point]
    problems: list[str]  # why something of this partition is unknown
    catch_up: str | None = None  # the words of :func:`catch_up`; None: unknown
    time_lag_ms: int | None = None  # --time-lag: at --until, the age of the first record not consumed
    # the lag at the moments after the last commit whose log end was asked (None: unknown), in time order
    after_last: tuple[tuple[int, int | None], ...] = ()
    # at --until: how many offsets between committed and end hold no record a consumer of committed
    # records gets (transaction markers, aborted records), where they are the whole lag (then 0)
    transaction_markers: int | None = None


class LagReport(NamedTuple):
    group: str
    status: str  # OK WARN ERR, from the partitions whose status is known
    complete: float  # partitions whose window is complete / partitions
    since_ms: int
    until_ms: int
    partitions: list[PartitionLag]
    drawn_from_ms: int | None = None  # where the sparklines start (--watch: the watched period); None: since_ms
    others: list[str] = []  # what is unknown of partitions with no readable commit ("topic-partition: why")

    @property
    def problems(self) -> list[str]:
        return [f"{p.topic}-{p.partition}: {why}" for p in self.partitions for why in p.problems] + list(self.others)

    @property
    def incomplete(self) -> bool:
        return bool(self.others) or any(p.problems for p in self.partitions)

    def by_status(self) -> dict[str, list[str]]:
        """``{status: ["topic-partition", ...]}`` for every status some partition has."""
        out: dict[str, list[str]] = {}
        for p in self.partitions:
            out.setdefault(p.status or "UNKNOWN", []).append(f"{p.topic}-{p.partition}")
        return out

    @property
    def total_lag(self) -> int | None:
        lags = [p.lag for p in self.partitions]
        return None if any(v is None for v in lags) else sum(v for v in lags if v is not None)


class Unreadable(NamedTuple):
    """An offset-commit record of the group that cannot be decoded: its key names the partition,
    its value cannot be read. Where it lies in the offsets log, why, and how many of the
    partition's commits came before it (in log order): from it on, what was committed is unknown
    until the next readable commit."""

    log_partition: int
    log_offset: int
    error: str
    after: int
    what: str = "cannot be decoded"  # or why a record that decodes is still no fact

    def reason(self, last: bool) -> str:
        then = ("the committed offset since then is unknown, so are the lag and the status" if last
                else "one commit of its history is unknown")
        return (f"the commit record at offsets-log partition {self.log_partition} offset {self.log_offset} "
                f"{self.what} ({self.error}): {then}")


class CommitLog(dict[TopicPartition, list[Commit]]):
    """:func:`commits_from_log`'s answer: the commits per partition, and ``unreadable``: the
    group's commit records that could not be decoded, per partition they name."""

    def __init__(self, commits: Mapping[TopicPartition, list[Commit]] | None = None,
                 unreadable: Mapping[TopicPartition, list[Unreadable]] | None = None):
        super().__init__(commits or {})
        self.unreadable: dict[TopicPartition, list[Unreadable]] = dict(unreadable or {})


def commits_from_log(entries: Iterable[Any], group: str, until_ms: int,
                     topics: Iterable[str] | None = None) -> CommitLog:
    """Every offset commit of ``group`` at or before ``until_ms``, per partition in log order, from
    offsets-log entries (kgroup.offsets_log.selection.Entry). An offset deletion (a tombstone)
    ends a partition's history: what was committed before it is gone. A commit record of the group
    whose value cannot be decoded (its key can: an entry with an error) is kept in ``unreadable``."""
    from kgroup.offsets_log.records import decode_key

    wanted = set(topics) if topics else None
    out: dict[TopicPartition, list[Commit]] = {}
    unreadable: dict[TopicPartition, list[Unreadable]] = {}
    for e in entries:
        rec = e.record
        if rec is None:
            key_only = decode_key(e.raw.key) if e.error is not None and e.raw.timestamp <= until_ms else None
            if key_only is None or key_only[0] not in (0, 1) or key_only[1].get("group") != group:
                continue
            tp = (key_only[1]["topic"], key_only[1]["partition"])
            if wanted is None or tp[0] in wanted:
                unreadable.setdefault(tp, []).append(
                    Unreadable(e.raw.partition, e.raw.offset, e.error, len(out.get(tp, ()))))
            continue
        if rec.type not in (0, 1) or rec.group_id != group:
            continue
        key = rec.key
        tp = (key["topic"], key["partition"])
        if wanted is not None and tp[0] not in wanted:
            continue
        if rec.value is None:
            out.pop(tp, None)
            unreadable.pop(tp, None)  # gone with what it committed
            continue
        at = rec.value["commitTimestamp"]
        if at < 0:  # a moment before 1970 no coordinator writes: a bad record, not a time to take rates from
            if e.raw.timestamp <= until_ms:
                unreadable.setdefault(tp, []).append(Unreadable(
                    e.raw.partition, e.raw.offset, f"commit timestamp {at} is not a time", len(out.get(tp, ())),
                    "is not a commit"))
            continue
        if at > until_ms:
            continue
        out.setdefault(tp, []).append(Commit(at, rec.value["offset"]))
    return CommitLog({tp: cs for tp, cs in out.items() if cs}, unreadable)


def shown(commits: list[Commit], since_ms: int) -> list[Commit]:
    """The commits at or after ``since_ms``, with the newest one before it as the starting point."""
    first = next((i for i, c in enumerate(commits) if c.time_ms >= since_ms), len(commits))
    return commits[max(0, first - 1):]


def _window_runs(commits: list[Commit]) -> list[tuple[int, Commit]]:
    """The status window as (kept time, the commit whose offset and lag stand there): the last
    WINDOW runs of commits each within MIN_DISTANCE_MS of its run's first commit."""
    runs: list[tuple[int, Commit]] = []
    for c in commits:
        if runs and c.time_ms - runs[-1][0] < lag_status.MIN_DISTANCE_MS:
            runs[-1] = (runs[-1][0], c)
        else:
            runs.append((c.time_ms, c))
    return runs[-lag_status.WINDOW:]


def tail_start(times: Sequence[int]) -> int:
    """Where the shortest end of a partition's commits (at ``times``, in log order) that gives
    the same status window starts: at the WINDOW-th last commit that comes MIN_DISTANCE_MS or
    more after the one before it. Such a commit starts a run whatever came before (the run before
    it started no later than the commit before it), so the runs from it on depend on nothing
    earlier. For a reader that cannot keep a partition's every commit (``kgroup scan``); the first
    commit of all counts as such a start."""
    starts = 0
    for i in range(len(times) - 1, 0, -1):
        if times[i] - times[i - 1] >= lag_status.MIN_DISTANCE_MS:
            starts += 1
            if starts == lag_status.WINDOW:
                return i
    return 0


def after_last_moments(last_ms: int, since_ms: int, until_ms: int) -> list[int]:
    """The moments after a partition's last commit (at ``last_ms``) and before --until where its
    lag is drawn: the ends of the sparkline's slots over [since, until] and Burrow's log-end polls."""
    slots = slot_ends(since_ms, until_ms) if until_ms > since_ms else []
    return sorted({t for t in (*slots, *lag_status.sample_moments(until_ms, last_ms)) if last_ms < t < until_ms})


def moments(commits: Mapping[TopicPartition, list[Commit]], since_ms: int, until_ms: int,
            until_is_now: bool = False) -> dict[TopicPartition, list[int]]:
    """Every moment whose log end :func:`evaluate` needs, per partition, sorted. With
    ``until_is_now`` the end at ``until`` is the log end now, not asked. After the last commit, the
    ends of the sparkline's slots too (kgroup.output.sparkline): the lag there is the log end then
    minus the last committed offset, so a consumer that stopped is drawn with its lag growing."""
    out: dict[TopicPartition, list[int]] = {}
    for tp, cs in commits.items():
        wanted = {c.time_ms for c in shown(cs, since_ms)}
        wanted.update(c.time_ms for _, c in _window_runs(cs))
        wanted.update(lag_status.sample_moments(until_ms, cs[-1].time_ms))
        wanted.update(after_last_moments(cs[-1].time_ms, since_ms, until_ms))
        if until_is_now:
            wanted.discard(until_ms)
        out[tp] = sorted(wanted)
    return out


class EndsAt(NamedTuple):
    """The answers :func:`evaluate` works from: per partition, the log end at each moment (None:
    unknown) and the reason of each unknown; and the log end now per partition (None: unknown).
    Kept per partition (see :func:`by_partition`): a fleet's scan looks up millions of moments,
    and small dicts keyed by the moment alone are several times faster to search than one keyed
    by (topic, partition, moment)."""

    ends: Mapping[TopicPartition, Mapping[int, int | None]]
    reasons: Mapping[TopicPartition, Mapping[int, str]]
    now: Mapping[TopicPartition, int | None]

    @classmethod
    def found(cls, answers: Mapping[tuple[str, int, int], Any], now: Mapping[TopicPartition, int | None]) -> EndsAt:
        """From kgroup.lag.ends' answers (``{(topic, partition, T): EndAt}``) and the log ends now:
        the ends and the reasons in one pass (two :func:`by_partition` passes over generators took
        1.2-1.4 s where this takes 0.8 s, on 2,450,000 answers)."""
        ends: dict[TopicPartition, dict[int, int | None]] = {}
        reasons: dict[TopicPartition, dict[int, str]] = {}
        for (topic, partition, t), e in answers.items():
            tp = (topic, partition)
            at = ends.get(tp)
            if at is None:
                at = ends[tp] = {}
            at[t] = e.offset
            if e.offset is None and e.reason:
                reasons.setdefault(tp, {})[t] = e.reason
        return cls(ends, reasons, now)


def by_partition(flat: Mapping[tuple[str, int, int], Any]) -> dict[TopicPartition, dict[int, Any]]:
    """``{(topic, partition, T): v}`` as :class:`EndsAt` keeps it: ``{(topic, partition): {T: v}}``."""
    out: dict[TopicPartition, dict[int, Any]] = {}
    for (topic, partition, t), v in flat.items():
        out.setdefault((topic, partition), {})[t] = v
    return out


def _rate(delta: int, ms: int) -> float | None:
    return None if ms <= 0 else delta * 1000 / ms


def catch_up(status: str | None, lag: int | None, lag_at_last_commit: int | None, consume_per_s: float | None,
             produce_per_s: float | None) -> tuple[str | None, float | None, bool | None]:
    """(what CATCH-UP says, the seconds until the lag is 0, catching up?) of a partition with
    ``lag`` at --until. A consumer that is STOP, STALL or REWIND is not moving: no estimate
    (``none: STOP``). One whose lag was 0 at its last commit is ``caught up at last commit``
    (the lag since is what came after it). Otherwise, when consumption outpaces production at
    the recent rates, the lag over the difference. None: unknown."""
    if lag is None:
        return None, None, None
    if lag == 0:
        return CAUGHT_UP, 0.0, True
    if status in NO_CATCH_UP:
        return f"none: {status}", None, False
    if lag_at_last_commit == 0:
        return CAUGHT_UP_AT_LAST_COMMIT, None, True
    if consume_per_s is None or produce_per_s is None:
        return None, None, None
    if consume_per_s > produce_per_s:
        return CATCHING_UP, lag / (consume_per_s - produce_per_s), True
    return NOT_CATCHING_UP, None, False


def evaluate(group: str, commits: Mapping[TopicPartition, list[Commit]], ends: EndsAt, since_ms: int,
             until_ms: int, until_is_now: bool = False, allowed_lag: int = 0,
             record_times: Mapping[tuple[str, int, int], int] | None = None,
             unreadable: Mapping[TopicPartition, list[Unreadable]] | None = None,
             undeliverable: Mapping[TopicPartition, int] | None = None) -> LagReport:
    """The report: for each partition its points in the window, status and catch-up.

    ``record_times``, when the time lag was asked for: the timestamp of the record at each
    committed offset of a point with lag, ``{(topic, partition, offset): ms}``. ``unreadable``:
    the group's commit records that could not be decoded, per partition (by default those of a
    :class:`CommitLog`). ``undeliverable``: per partition, how many offsets after its last
    committed offset hold no record a consumer of committed records gets (transaction markers,
    aborted records; kgroup.lag.collect.markers_at_until): where that is the whole lag at
    --until, the lag there is 0 (``transaction_markers``), and the status and catch-up follow."""
    if unreadable is None:
        unreadable = commits.unreadable if isinstance(commits, CommitLog) else {}
    skipped = undeliverable or {}
    partitions = [_partition(tp, commits[tp], ends, since_ms, until_ms, until_is_now, allowed_lag, record_times,
                             unreadable.get(tp, ()), skipped.get(tp)) for tp in sorted(commits)]
    partitions = [_at_until(p, commits[(p.topic, p.partition)][-1], ends, since_ms, until_ms, record_times)
                  for p in partitions]
    others = [f"{t}-{p}: {u.reason(True)}" for (t, p), us in sorted(unreadable.items()) if (t, p) not in commits
              for u in us]
    known = [p.status for p in partitions if p.status is not None]
    complete = sum(1 for p in partitions if p.complete == 1.0) / len(partitions) if partitions else 0.0
    return LagReport(group, lag_status.group_status(known), complete, since_ms, until_ms, partitions, others=others)


def point_lag(committed: int, end: int | None) -> tuple[int | None, str | None]:
    """The lag of a commit against the log end at its moment, or why it is unknown (None when it
    is known, or when only the end is unknown: the caller says why)."""
    if end is None:
        return None, None
    if committed < 0:
        return None, f"committed offset {committed} is not an offset"
    if committed > end:
        return None, f"committed {committed} is beyond the log end {end}"
    return end - committed, None


def _partition(tp: TopicPartition, cs: list[Commit], ends: EndsAt, since_ms: int, until_ms: int, until_is_now: bool,
               allowed_lag: int, record_times: Mapping[tuple[str, int, int], int] | None,
               unreadable: Sequence[Unreadable] = (), undeliverable: int | None = None) -> PartitionLag:
    topic, partition = tp
    problems: list[str] = []
    unknown: dict[str, int] = {}
    # per kind of committed offset that is not one (negative, beyond the end): the commits, the latest why
    wrong: dict[bool, tuple[set[Commit], str]] = {}

    def said(c: Commit, why: str) -> None:
        seen = wrong.get(c.offset < 0, (set(), why))[0]
        seen.add(c)
        wrong[c.offset < 0] = (seen, why)
    known_ends = ends.ends.get(tp, {})

    def end_at(t: int) -> int | None:
        if until_is_now and t == until_ms:
            return ends.now.get(tp)
        return known_ends.get(t)

    def lag_at(c: Commit) -> int | None:
        return point_lag(c.offset, end_at(c.time_ms))[0]

    points = []
    for c in shown(cs, since_ms):
        end = end_at(c.time_ms)
        lag, wrong_why = point_lag(c.offset, end)
        if end is None:
            why = ends.reasons.get(tp, {}).get(c.time_ms, "the log end at that moment is unknown")
            unknown[why] = unknown.get(why, 0) + 1
        elif wrong_why is not None:
            said(c, wrong_why)
        time_lag = None
        if record_times is not None and lag is not None:
            if lag == 0:
                time_lag = 0
            else:
                ts = record_times.get((topic, partition, c.offset))
                if ts is None:
                    why = "time lag unknown: the record at the committed offset was not read"
                    unknown[why] = unknown.get(why, 0) + 1
                else:
                    time_lag = max(0, c.time_ms - ts)
        points.append(Point(c.time_ms, c.offset, end, lag, time_lag))
    for why, n in unknown.items():
        problems.append(f"{n} of {len(points)} points unknown: {why}")

    last = cs[-1]
    last_unreadable = any(u.after == len(cs) for u in unreadable)  # after the last readable commit
    end_now = end_at(until_ms)
    lag_now, wrong_why = point_lag(last.offset, end_now)
    if wrong_why is not None:
        said(last, wrong_why)
    markers = None
    if lag_now and lag_now == undeliverable and not last_unreadable:
        lag_now, markers = 0, undeliverable  # nothing there will ever be consumed: caught up
    # one line per kind, the latest commit's (at --until when it is the last), and how many more
    problems.extend(why if len(cs_) == 1 else f"{why} (and {len(cs_) - 1} more such commits)"
                    for cs_, why in wrong.values())
    problems.extend(u.reason(u.after == len(cs)) for u in unreadable)
    samples = [Sample(t, c.offset, lag_at(c)) for t, c in _window_runs(cs)]
    complete = min(1.0, sum(1 for s in samples if s.lag is not None) / lag_status.WINDOW)
    status: str | None = None
    if last_unreadable:
        lag_now = None
    elif end_now is None:
        problems.append("the log end at --until is unknown, so are the lag and the status")
    elif lag_now is not None and lag_now > allowed_lag and all(s.lag is None for s in samples):
        problems.append("no commit of the status window has a known lag, so the status is unknown")
    elif lag_now is not None:
        # read only if the rules get to them (a partition caught up is OK at once, as most of a fleet's are)
        polls = (e for e in map(end_at, lag_status.sample_moments(until_ms, last.time_ms)) if e is not None)
        status = lag_status.partition_status(samples, polls, lag_now, until_ms, allowed_lag)

    # the recent rates: from the commit RECENT_INTERVALS runs before the last to the last (one run: to --until)
    runs = _window_runs(cs)
    start = runs[-min(len(runs), RECENT_INTERVALS + 1)][1]
    to_ms, to_end = (until_ms, end_now) if len(runs) == 1 else (last.time_ms, end_at(last.time_ms))
    start_end = end_at(start.time_ms)
    # a rate from an offset that is not one, or past a commit that cannot be read, is no fact
    consume = None if last_unreadable or min(start.offset, last.offset) < 0 else _rate(
        last.offset - start.offset, to_ms - start.time_ms)
    produce = None if start_end is None or to_end is None else _rate(to_end - start_end, to_ms - start.time_ms)
    words, eta, catching_up = catch_up(status, lag_now, None if last_unreadable else lag_at(last), consume, produce)
    return PartitionLag(topic, partition, status, complete, lag_now, end_now, None if last_unreadable else last.offset,
                        consume, produce, eta, catching_up, points, problems, words, transaction_markers=markers)


def _at_until(p: PartitionLag, last: Commit, ends: EndsAt, since_ms: int, until_ms: int,
              record_times: Mapping[tuple[str, int, int], int] | None) -> PartitionLag:
    """The partition's lag at the moments after its last commit (:func:`after_last_moments`, those
    answered), and with ``record_times`` its time lag at --until: --until minus the timestamp of
    the first record not consumed (the one at the last committed offset), 0 when the lag is 0."""
    at = ends.ends.get((p.topic, p.partition), {})
    found = ((t, at[t]) for t in after_last_moments(last.time_ms, since_ms, until_ms) if t in at)
    after = tuple((t, None if e is None else max(0, e - last.offset)) for t, e in found)
    time_lag: int | None = None
    problems = p.problems
    if record_times is not None and p.lag is not None and p.committed is not None:
        ts = record_times.get((p.topic, p.partition, p.committed))
        if p.lag == 0:
            time_lag = 0
        elif ts is None:
            problems = [*problems, "time lag at --until unknown: the record at the committed offset was not read"]
        else:
            time_lag = max(0, until_ms - ts)
    return p._replace(after_last=after, time_lag_ms=time_lag, problems=problems)


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def document(report: LagReport, time_lag: bool = False, expiries: Mapping[TopicPartition, Any] | None = None,
             retention: Any = None) -> dict[str, Any]:
    """The ``kgroup lag -o json`` document (docs/schemas/lag.schema.json). With ``expiries``
    (kgroup.offsets_log.expiry.Expiry per partition) and their ``retention``: when each committed
    offset expires (``expires_ms``, ``expiry``) and the group's ``expiry`` summary."""
    parts = []
    for p in report.partitions:
        points = []
        for pt in p.points:
            point: dict[str, Any] = {"time_ms": pt.time_ms, "committed": pt.committed, "end": pt.end, "lag": pt.lag}
            if time_lag:
                point["time_lag_ms"] = pt.time_lag_ms
            points.append(point)
        parts.append({"topic": p.topic, "partition": p.partition, "status": p.status,
                      "complete": round(p.complete, 3), "lag": p.lag, "end": p.end, "committed": p.committed,
                      "consume_per_s": _round(p.consume_per_s), "produce_per_s": _round(p.produce_per_s),
                      "eta_s": _round(p.eta_s, 1), "catching_up": p.catching_up, "catch_up": p.catch_up,
                      "points": points, "unknown": list(p.problems), "transaction_markers": p.transaction_markers})
        if time_lag:
            parts[-1]["time_lag_ms"] = p.time_lag_ms
        if expiries is not None:
            e = expiries.get((p.topic, p.partition))
            parts[-1].update({"expires_ms": None, "expiry": None} if e is None else e.to_json())
    doc = {"group": report.group, "status": report.status, "complete": round(report.complete, 3),
           "incomplete": report.incomplete, "since_ms": report.since_ms, "until_ms": report.until_ms,
           "total_lag": report.total_lag, "partitions_by_status": report.by_status(), "partitions": parts}
    if expiries is not None and retention is not None:
        from kgroup.offsets_log.expiry import summary

        wanted = {(p.topic, p.partition) for p in report.partitions}
        doc["expiry"] = summary({tp: e for tp, e in expiries.items() if tp in wanted}, retention)
    return doc


class Watch:
    """``lag --watch``: the group sampled live (committed offsets and log ends every few
    seconds), on top of its history from the offsets log when that could be read.

    OffsetFetch does not say when an offset was committed, so a sample whose committed offset
    differs from the last one known counts as a commit at the sample's moment; the log ends
    sampled stand for the log end from their moment until the next sample.

    Until a partition's window holds enough for Burrow's rules (kgroup.lag.status.warming_up),
    it is WARMING UP: not evaluated, not counted in the group's status. The sparklines span what
    is known: from the first sample, or the history read, at the latest since --since."""

    def __init__(self, group: str, commits: Mapping[TopicPartition, list[Commit]] | None = None,
                 history: EndsAt | None = None):
        self.group = group
        self.commits: dict[TopicPartition, list[Commit]] = {tp: list(cs) for tp, cs in (commits or {}).items()}
        self.history = history
        self.samples: dict[TopicPartition, list[tuple[int, int | None]]] = {}
        self.last_ms: int | None = None
        self.first_ms: int | None = None
        self.count = 0  # samples taken

    def add(self, time_ms: int, committed: Mapping[TopicPartition, int | None],
            ends: Mapping[TopicPartition, int | None]) -> None:
        """One sample: the committed offset (None: none) and log end (None: unknown) of each partition."""
        self.last_ms = time_ms
        self.first_ms = time_ms if self.first_ms is None else self.first_ms
        self.count += 1
        for tp, offset in committed.items():
            if offset is None:
                continue
            cs = self.commits.setdefault(tp, [])
            if not cs or cs[-1].offset != offset:
                cs.append(Commit(time_ms, offset))
        for tp, end in ends.items():
            self.samples.setdefault(tp, []).append((time_ms, end))

    def _sampled(self, tp: TopicPartition, t: int) -> tuple[bool, int | None]:
        """(was a sample taken at or before t, the log end it saw)."""
        found: tuple[bool, int | None] = (False, None)
        for at, end in self.samples.get(tp, ()):
            if at > t:
                break
            found = (True, end)
        return found

    def report(self, since_ms: int, allowed_lag: int = 0,
               undeliverable: Mapping[TopicPartition, int] | None = None) -> LagReport:
        """The report at the last sample; ``undeliverable`` as :func:`evaluate` takes it (read at
        that sample: the offsets after each committed offset that hold no record a consumer gets)."""
        until = self.last_ms if self.last_ms is not None else since_ms
        ends: dict[TopicPartition, dict[int, int | None]] = {}
        reasons: dict[TopicPartition, dict[int, str]] = {}
        for tp, ts in moments(self.commits, since_ms, until).items():
            at, why = ends.setdefault(tp, {}), reasons.setdefault(tp, {})
            read = {} if self.history is None else self.history.ends.get(tp, {})
            read_why = {} if self.history is None else self.history.reasons.get(tp, {})
            committed_at = {c.time_ms for c in self.commits[tp]}
            for t in ts:
                if t in read:
                    at[t] = read[t]
                    if t in read_why:
                        why[t] = read_why[t]
                    continue
                seen, end = self._sampled(tp, t)
                if not seen and t not in committed_at:
                    continue  # a slot end or a poll before watching began: not known, and no point needs it
                at[t] = end
                if end is None:
                    why[t] = ("the log end could not be read at that sample" if seen else
                              "before watching began (the offsets log was not read)")
        now = {tp: self._sampled(tp, until)[1] for tp in self.commits}
        report = evaluate(self.group, self.commits, EndsAt(ends, reasons, now), since_ms, until, True, allowed_lag,
                          undeliverable=undeliverable)
        parts = [self._warming(p) for p in report.partitions]
        known = [p.status for p in parts if p.status is not None and p.status != lag_status.WARMING_UP]
        begun = [pt.time_ms for p in parts for pt in p.points[:1]] + ([] if self.first_ms is None else [self.first_ms])
        drawn_from = max(since_ms, min(begun)) if begun else since_ms
        return report._replace(partitions=parts, status=lag_status.group_status(known), drawn_from_ms=drawn_from)

    def _warming(self, p: PartitionLag) -> PartitionLag:
        """``p`` WARMING UP while its window holds too little for the rules (its catch-up
        follows: a status that was not evaluated stops no estimate)."""
        if p.status is None or not lag_status.warming_up(len(_window_runs(self.commits[(p.topic, p.partition)])),
                                                          self.count):
            return p
        last_lag = p.points[-1].lag if p.points else None
        words, eta, catching_up = catch_up(lag_status.WARMING_UP, p.lag, last_lag, p.consume_per_s, p.produce_per_s)
        return p._replace(status=lag_status.WARMING_UP, catch_up=words, eta_s=eta, catching_up=catching_up)


def time_lag_positions(report: LagReport) -> dict[TopicPartition, list[int]]:
    """For ``--time-lag``: the committed offsets whose record's timestamp is needed (points with
    a lag, and the last committed offset when there is a lag at --until), per partition, sorted."""
    out: dict[TopicPartition, set[int]] = {}
    for p in report.partitions:
        for pt in p.points:
            if pt.lag:
                out.setdefault((p.topic, p.partition), set()).add(pt.committed)
        if p.lag and p.committed is not None:  # a lag is known only with the committed offset
            out.setdefault((p.topic, p.partition), set()).add(p.committed)
    return {tp: sorted(offsets) for tp, offsets in out.items()}
