"""Where a partition's log ended at a past moment T: the first offset whose record timestamp is
at or after T (Kafka's ListOffsets by timestamp), checked against the records themselves.

Pure: the questions go to a :class:`RecordSource` (kgroup.kafka.records.RecordReader implements it
over a cluster; tests use an in-memory log). No confluent_kafka here, and nothing of the cluster
layer: :func:`log_ends_at` and :func:`record_timestamps` ask a :class:`LogSource` (kgroup.kafka's
Cluster is one) for the primitive reads (the partitions' bounds, a record reader) and search here.

The answer for (partition, T) is an :class:`EndAt`: the offset, or unknown with the reason.
- Where a partition's moments lie close together in its log, one ordered pass (a read of every
  record between them, in offset order) answers them all: nothing is asked by timestamp.
- Elsewhere (a log too long to read whole for its moments) ListOffsets is asked, first for each
  partition's first and last moment, for its other moments only where those answers proved
  right. Every answer ListOffsets gives is checked: the record at the answer has a timestamp >= T
  and the record before it < T (at the log end: the last record < T). Where the check fails (Tansu
  answers the log start for every timestamp, librdkafka's mock cluster answers -1), the offset
  is found by a binary search over record timestamps between the log start and the log end.
- No record at or after T: every record is older than T, so the end at T is the log end now.
- T before the log start, when retention removed records (log start > 0 and the first record
  left is already at or after T): unknown, never guessed. On a compacted topic (or one whose
  cleanup.policy cannot be read) an end is a fact only where the record just before it is there:
  where offsets before it hold no record now, compaction may have removed records of that moment,
  and the end is unknown (the offsets gone are said).
- Requests are batched: one ListOffsets per slot (one moment of every partition asked) carries
  every partition with its own timestamp; the source sends one request per leader broker.

How the search reads. "Records" are the records a consumer sees: offsets may skip (control
records of transactions, compaction). Every record read is kept, with what is known to hold no
other record (a read from position p that returned records up to offset q leaves none unseen in
[p, q]; fewer than asked: none unseen up to the log end). For (partition, T) that knowledge
gives an interval of positions where the answer lies: just after the last known record older
than T, up to the first known record at or after T (or the log end). The check of a broker's
answer ``a`` is the first read of that search, the records around it (from a - 2, so that a
control record just before it does not hide the record before it); when they show the answer,
it is confirmed. Otherwise each round reads, for every partition, one stretch: a pass over a
group of moments whose intervals overlap or touch, where it is short enough (:func:`_pass`); else
the middle of its widest interval, or every record of an interval of at most ``_SCAN`` positions
at once, so every moment of a partition narrows with every read and the moments' searches share
reads. Each round is one ``records_at`` call over all partitions.

Timestamps in offset order are assumed by the search (Kafka assumes it too: its time index
keeps the largest timestamp so far). Where the records read show a record at or after T at a
lower offset than a record older than T, that moment is unknown ("out of order"), not guessed,
unless the broker, asked about it, answers an offset the records around it confirm.
"""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple, Protocol

from kgroup.group.model import LogBounds

TopicPartition = tuple[str, int]
Progress = Callable[[str, int, int], None]  # (stage, done, total), as kgroup.output.progress shows it

# why an end is unknown (EndAt.reason)
RETENTION = "retention removed the records of that time (the log now starts after it)"
COMPACTED = "compacted topic: whether records of that moment were removed could not be read"
NO_POLICY = "whether the topic is compacted could not be read (its cleanup.policy), nor the record before that end"
NO_BOUNDS = "the partition's log start and end could not be read"
NO_RECORDS = "the partition's records could not be read"
OUT_OF_ORDER = "record timestamps are out of offset order around that moment"

_SCAN = 16  # an interval of at most this many positions is read whole, in one read
# One ordered pass (a read of every record between two positions) answers every moment whose
# answer lies there. A round of reads costs about what a pass over a few thousand records costs
# (Tansu: about 0.1 s a round; a pass reads some 50,000 records a second), so a span of at most
# _PASS_MIN positions is read whole, and so is a span of at most _PER_MOMENT positions per
# moment in it when its moments are spread over it (one read per moment would cost more).
_PASS_MIN = 4_096
_PER_MOMENT = 1_024


class EndAt(NamedTuple):
    """The log end of a partition at a moment: an offset, or None with the reason it is unknown."""

    offset: int | None
    reason: str | None = None


class EndsAtStats(NamedTuple):
    """How the answers were found, for ``-v`` and the benchmark."""

    list_offsets_calls: int  # calls of RecordSource.offsets_for_times (each: one request per leader)
    checked: int  # answers checked against the records (moments asked of ListOffsets)
    searched: int  # answers that failed the check (or none came) and were found from the records
    record_reads: int  # calls of RecordSource.records_at
    positions_read: int = 0  # (partition, position) reads over all records_at calls
    records_read: int = 0  # records handed back by records_at
    unknown: int = 0  # (partition, moment) answers that are unknown


class LogEndsAt(NamedTuple):
    """What :func:`log_ends_at` answers: the ends ``{(topic, partition, T): EndAt}``, how they
    were found, each partition's bounds as read, and what could not be read (one line each)."""

    ends: dict[tuple[str, int, int], EndAt]
    stats: EndsAtStats
    bounds: dict[TopicPartition, LogBounds]
    problems: list[str]


class RecordSource(Protocol):
    """What finding log ends by time needs of a cluster."""

    def offsets_for_times(self, timestamps: Mapping[TopicPartition, int]) -> dict[TopicPartition, int | None]:
        """ListOffsets by timestamp, one timestamp per partition (one request per leader broker):
        the broker's answer per partition (-1, no answer or an error: None). Every answer is
        checked against the records, so a wrong one costs reads, never a wrong end."""
        ...

    def records_at(self, reads: Mapping[TopicPartition, tuple[int, int]]
                   ) -> dict[TopicPartition, list[tuple[int, int]]]:
        """For each partition, ``(position, count)``: ``(offset, timestamp)`` of up to ``count``
        records from the position on, in offset order (fewer only where the log ends; offsets may
        skip where a log is compacted or holds control records), read by assignment only: no
        group, no commit. A partition left out of the answer could not be read."""
        ...


class RecordReading(RecordSource, Protocol):
    """A RecordSource that holds a client until closed, and names what it could not read."""

    problems: list[str]  # one line per partition whose records could not be read

    def close(self) -> None:
        ...


class LogSource(Protocol):
    """What :func:`log_ends_at` and :func:`record_timestamps` ask of a cluster (kgroup.kafka.cluster's
    Cluster provides it): primitive reads only; the search is this module's."""

    def log_bounds(self, partitions: list[TopicPartition]) -> tuple[dict[TopicPartition, LogBounds], list[str]]:
        """Each partition's log start and end now (ListOffsets earliest and latest) and whether its
        topic is compacted: the bounds of those whose offsets could be read, and one line for each
        thing that could not be read."""
        ...

    def record_reader(self) -> RecordReading:
        """A new record source (ListOffsets by time, records at offsets, read by assignment only),
        closed by the caller."""
        ...


_UNKNOWN = -2  # _Known.next_at: nothing known about the position
_END = -1  # _Known.next_at: no record from the position to the log end


class _Known:
    """What the reads showed of one partition's log, below its end."""

    def __init__(self, start: int, end: int):
        self.start, self.end = start, end
        self.offsets: list[int] = []  # every record read, by offset
        self.times: list[int] = []  # their timestamps, same order
        self.at: dict[int, int] = {}  # offset -> timestamp of every record read
        self.ordered = True  # the timestamps read are in offset order
        self.covered: list[tuple[int, int]] = []  # [p, q]: no record in it but those read; sorted, disjoint

    def add(self, position: int, count: int, records: list[tuple[int, int]]) -> tuple[int, int]:
        """Keeps what a read of ``count`` records from ``position`` returned; the positions it covered."""
        last = position - 1
        to_end = len(records) < count
        for offset, timestamp in records:
            if offset < last + 1:  # not after the previous one: the source misbehaves; keep what is sound
                continue
            if offset >= self.end:  # written after the end was read: not part of the log of then
                to_end = True
                break
            last = offset
            i = bisect_left(self.offsets, offset)
            if i < len(self.offsets) and self.offsets[i] == offset:
                continue
            self.offsets.insert(i, offset)
            self.times.insert(i, timestamp)
            self.at[offset] = timestamp
            if (i > 0 and self.times[i - 1] > timestamp) or (i + 1 < len(self.times) and self.times[i + 1] < timestamp):
                self.ordered = False
        covered = (position, self.end - 1 if to_end else last)
        self._cover(*covered)
        return covered

    def _cover(self, p: int, q: int) -> None:
        if q < p:
            return
        i = bisect_left(self.covered, (p,))
        if i > 0 and self.covered[i - 1][1] + 1 >= p:  # touches the one before
            i -= 1
        j = i
        while j < len(self.covered) and self.covered[j][0] <= q + 1:  # and those it reaches
            j += 1
        if j > i:
            p, q = min(p, self.covered[i][0]), max(q, self.covered[j - 1][1])
        self.covered[i:j] = [(p, q)]

    def next_at(self, position: int) -> int:
        """The first record at or after ``position``: its offset, _END, or _UNKNOWN."""
        if position >= self.end:
            return _END
        i = bisect_left(self.covered, (position + 1,)) - 1
        if i < 0 or self.covered[i][1] < position:
            return _UNKNOWN
        q = self.covered[i][1]
        j = bisect_left(self.offsets, position)
        if j < len(self.offsets) and self.offsets[j] <= q:
            return self.offsets[j]
        return _END if q >= self.end - 1 else _UNKNOWN

    def last_before(self, position: int) -> int:
        """The last record before ``position``: its offset, _END where there is none from the log
        start on, or _UNKNOWN."""
        i = bisect_left(self.covered, (position,)) - 1
        if i < 0 or self.covered[i][1] < position - 1:
            return _UNKNOWN
        j = bisect_left(self.offsets, position) - 1
        if j >= 0 and self.offsets[j] >= self.covered[i][0]:
            return self.offsets[j]
        return _END if self.covered[i][0] <= self.start else _UNKNOWN

    def around(self, t: int) -> tuple[int | None, int | None]:
        """(offset of the last record read older than t, offset of the first at or after t)."""
        if self.ordered:
            i = bisect_left(self.times, t)
            return (self.offsets[i - 1] if i else None), (self.offsets[i] if i < len(self.offsets) else None)
        older = [o for o, ts in zip(self.offsets, self.times) if ts < t]
        newer = [o for o, ts in zip(self.offsets, self.times) if ts >= t]
        return (older[-1] if older else None), (newer[0] if newer else None)


class _Resolved(NamedTuple):
    end: EndAt


class _Read(NamedTuple):
    position: int
    size: int  # records asked for
    lo: int  # the interval of positions it narrows (a check's read: none)
    hi: int


def _plan(known: _Known, t: int) -> _Resolved | _Read:
    """The end at t if the reads so far show it, else the next read that narrows it."""
    older, newer = known.around(t)
    if older is not None and newer is not None and newer < older:
        return _Resolved(EndAt(None, OUT_OF_ORDER))
    lo = known.start if older is None else older + 1  # the answer is at or after lo ...
    hi = known.end if newer is None else newer  # ... and the first record from hi on is at or after t (or the end)
    while True:
        first = known.next_at(lo)
        if first != _UNKNOWN:  # the first record from lo on: at or after t (no record older than t is after `older`)
            if lo == known.start and known.start > 0:
                return _Resolved(EndAt(None, RETENTION))
            return _Resolved(EndAt(known.end if first == _END else first))
        if hi - lo <= _SCAN:
            return _Read(lo, min(hi, known.end - 1) - lo + 1, lo, hi)
        mid = (lo + hi) // 2
        if known.next_at(mid) == _UNKNOWN:
            return _Read(mid, 1, lo, hi)
        hi = mid  # what is known from mid on is at or after t: every record older than t is before lo


def _confirmed(known: _Known, t: int, answer: int | None) -> EndAt | None:
    """The broker's answer, where the records read confirm it: the record before it is older
    than t (none before the log start) and the first record from it on is at or after t (or
    there is none: the answer is the log end)."""
    a = known.end if answer is None or answer < 0 else answer
    if a < known.start or a > known.end:
        return None
    first = known.next_at(a)
    if first == _UNKNOWN or (first != _END and known.at[first] < t):
        return None
    if a == known.start:
        return EndAt(None, RETENTION) if known.start > 0 else EndAt(a)
    before = known.last_before(a)
    return EndAt(a) if before >= 0 and known.at[before] < t else None


def _hint_read(known: _Known, answer: int | None) -> _Read | None:
    """The read that checks a broker's answer: the record before it and the one at it (from two
    before it: a control record of a transaction just before the answer is common)."""
    a = known.end if answer is None or answer < 0 else answer
    if a < known.start or a > known.end:
        return None
    if a == known.start:
        return None if known.next_at(a) != _UNKNOWN else _Read(a, 1, a, a)
    if known.last_before(a) != _UNKNOWN and known.next_at(a) != _UNKNOWN:
        return None
    position = max(known.start, a - 2)
    return _Read(position, a - position + 1, a, a)


def _whole_before(known: _Known, e: EndAt, policy_unknown: bool) -> EndAt:
    """An end found on a topic that may be compacted, where it is a fact: the record just before
    it was read (at the log start: the record at the start). Where offsets before it hold no record
    now, compaction may have removed records of that moment, so the end lies somewhere from the
    first of them to the end found: unknown, said with the offsets that are gone."""
    a = e.offset
    if a is None:
        return e
    if a == known.start:
        first = known.next_at(a)
        if first == a:
            return e
        gone, to = a, known.end if first == _END else first
    else:
        before = known.last_before(a)
        if before == a - 1:
            return e
        gone, to = known.start if before == _END else before + 1, a
        first = before
    if first == _UNKNOWN:
        return EndAt(None, NO_POLICY if policy_unknown else COMPACTED)
    offsets = f"offset {gone} holds" if gone == to - 1 else f"offsets {gone}-{to - 1} hold"
    why = "whether the topic is compacted could not be read" if policy_unknown else "compacted topic"
    return EndAt(None, f"{why}: {offsets} no record now, so where the log ended then (from {gone} to {to}) "
                       "is unknown")


def _pass(known: _Known, planned: Iterable[_Read]) -> _Read | None:
    """One ordered pass: a read of every position where the answers of a group of moments lie,
    the first group worth it, else None. The moments' intervals that overlap or touch form a group; a
    group is read whole where it spans at most _PASS_MIN positions, or at most _PER_MOMENT per
    moment in it and its moments are spread over it (not all in one interval: a read in the
    middle of that one narrows it first, so that a window at the end of a long log is found by a
    few reads rather than read from far before it)."""
    ordered = sorted((r.lo, r.hi) for r in planned)
    i = 0
    while i < len(ordered):
        lo, hi = ordered[i]
        j, intervals = i + 1, 1
        while j < len(ordered) and ordered[j][0] <= hi + 1:  # overlapping or next to each other
            intervals += ordered[j] != ordered[j - 1]
            hi = max(hi, ordered[j][1])
            j += 1
        if hi - lo <= _PASS_MIN or (intervals > 1 and hi - lo <= (j - i) * _PER_MOMENT):
            last = min(hi, known.end - 1)
            return _Read(lo, last - lo + 1, lo, hi)
        i = j
    return None


def _hint(known: _Known, tp: TopicPartition, hints: list[int], planned: Mapping[int, _Read],
          answers: Mapping[tuple[TopicPartition, int], int | None]) -> _Read | None:
    """The next read that checks the broker's answers (taken from ``hints``, in order): the
    records around one answer, and around the next ones where the same read reaches them."""
    hint = None
    while hints and hint is None:
        t = hints.pop(0)
        if t in planned:
            hint = _hint_read(known, answers[(tp, t)])
    while hint is not None and hints:  # the next answers, where one read checks them too
        t = hints[0]
        after = _hint_read(known, answers[(tp, t)]) if t in planned else None
        if after is not None and not hint.position <= after.position <= hint.position + _SCAN - after.size:
            break
        hints.pop(0)
        if after is not None:
            hint = _Read(hint.position, max(hint.size, after.position + after.size - hint.position), hint.lo, hint.hi)
    return hint


def _budget(moments: int) -> int:
    """The longest log read whole, without asking the broker, for ``moments`` moments."""
    return max(_PASS_MIN, moments * _PER_MOMENT)


def ends_at(source: RecordSource, moments: Mapping[TopicPartition, Iterable[int]],
            bounds: Mapping[TopicPartition, LogBounds], progress: Progress | None = None
            ) -> tuple[dict[tuple[str, int, int], EndAt], EndsAtStats]:
    """The log end of each partition at each of its moments (ms): ``{(topic, partition, T): EndAt}``.
    ``progress`` hears ("log ends", moments answered, moments) after each call to the source."""
    out: dict[tuple[str, int, int], EndAt] = {}
    asking: dict[TopicPartition, list[int]] = {}
    known: dict[TopicPartition, _Known] = {}
    for tp, ts in moments.items():
        wanted = sorted(set(ts))
        b = bounds.get(tp)
        reason = NO_BOUNDS if b is None or b.start < 0 or b.end < b.start else None
        if b is not None and reason is None and b.start == b.end:  # no record: the end was the end at every moment
            reason, offset = (RETENTION, None) if b.start > 0 else (None, b.end)
            out.update({(tp[0], tp[1], t): EndAt(offset, reason) for t in wanted})
            continue
        if reason is not None or b is None:
            out.update({(tp[0], tp[1], t): EndAt(None, reason) for t in wanted})
            continue
        if wanted:
            asking[tp] = wanted
            known[tp] = _Known(b.start, b.end)
    total = len(out) + sum(len(v) for v in asking.values())

    def said() -> None:
        if progress is not None:
            progress("log ends", len(out), total)

    # ListOffsets by timestamp, one call per slot (the k-th moment of every partition asked), only
    # where one pass over the whole log would read more than the budget: first the first and the
    # last moments; the others only where the broker's answers for those proved right
    answers: dict[tuple[TopicPartition, int], int | None] = {}
    calls = 0

    def ask(asked: Mapping[TopicPartition, list[int]]) -> None:
        nonlocal calls
        for k in range(max((len(v) for v in asked.values()), default=0)):
            slot = {tp: ts[k] for tp, ts in asked.items() if len(ts) > k}
            calls += 1
            answered = source.offsets_for_times(slot)
            for tp, t in slot.items():
                answers[(tp, t)] = answered.get(tp)
            said()

    long = {tp: ts for tp, ts in asking.items() if known[tp].end - known[tp].start > _budget(len(ts))}
    hints = {tp: ts[:1] + ts[-1:] if len(ts) > 1 else list(ts) for tp, ts in long.items()}
    ask(hints)
    middle = {tp for tp, ts in long.items() if len(ts) > 2}  # its other moments may be asked, once the ends are known

    # the checks, the searches and the passes: one records_at call per round, one read per partition
    pending = {tp: list(ts) for tp, ts in asking.items()}
    hints = {tp: list(hints.get(tp, ())) for tp in asking}  # moments whose answer is not checked yet
    plans: dict[TopicPartition, dict[int, _Read]] = {tp: {} for tp in asking}  # the last plan of each moment
    fresh: dict[TopicPartition, tuple[int, int] | None] = {tp: None for tp in asking}  # what the last read covered
    confirmed: set[tuple[TopicPartition, int]] = set()  # the broker's answers the records confirmed
    searched = reads = positions = records = 0
    while pending:
        round_reads: dict[TopicPartition, _Read] = {}
        for tp in list(pending):
            kp, planned, covered = known[tp], plans[tp], fresh[tp]
            for t in pending[tp]:
                before = planned.get(t)
                # a plan changes only where the last read covered part of its interval, or checked its answer
                if before is not None and covered is not None and not (
                        covered[0] <= before.hi and covered[1] >= before.lo) and before.position != covered[0]:
                    continue
                asked = (tp, t) in answers
                end = _confirmed(kp, t, answers[(tp, t)]) if asked else None
                plan = _plan(kp, t) if end is None else _Resolved(end)
                if isinstance(plan, _Resolved):
                    out[(tp[0], tp[1], t)] = plan.end
                    if end is not None:
                        confirmed.add((tp, t))
                    else:
                        searched += asked
                    planned.pop(t, None)
                else:
                    planned[t] = plan
            pending[tp] = [t for t in pending[tp] if t in planned]
            if not pending[tp]:
                del pending[tp]
                continue
            read = _pass(kp, planned.values())
            if read is None:
                read = _hint(kp, tp, hints[tp], planned, answers)
            round_reads[tp] = read or max(planned.values(), key=lambda r: r.hi - r.lo)
        said()
        # the other moments of a partition whose first and last the broker answered right, where
        # no pass reads them: asked now, their answers checked as the first ones were
        rest: dict[TopicPartition, list[int]] = {}
        for tp in list(middle):
            first, last = asking[tp][0], asking[tp][-1]
            if tp in pending and (first in plans[tp] or last in plans[tp]):
                continue  # not both found yet
            middle.discard(tp)
            if (tp in pending and (tp, first) in confirmed and (tp, last) in confirmed
                    and _pass(known[tp], plans[tp].values()) is None):
                rest[tp] = [t for t in pending[tp] if (tp, t) not in answers]
        if rest:
            ask(rest)
            for tp, ts in rest.items():
                hints[tp] = list(ts)
                plans[tp] = {}  # every moment planned again, its answer checked first
                fresh[tp] = None
            continue
        if not round_reads:
            break
        reads += 1
        positions += len(round_reads)
        got_records = source.records_at({tp: (r.position, r.size) for tp, r in round_reads.items()})
        for tp, r in round_reads.items():
            if tp not in got_records:  # could not be read: its moments left are unknown
                for t in pending.pop(tp):
                    out[(tp[0], tp[1], t)] = EndAt(None, NO_RECORDS)
                continue
            records += len(got_records[tp])
            fresh[tp] = known[tp].add(r.position, r.size, got_records[tp])

    # out of order around a moment no broker was asked about: its answer, where the records around it confirm it
    unsure = {tp: [t for t in ts if out[(tp[0], tp[1], t)].reason == OUT_OF_ORDER and (tp, t) not in answers]
              for tp, ts in asking.items()}
    unsure = {tp: ts for tp, ts in unsure.items() if ts}
    ask(unsure)
    checking = {tp: list(ts) for tp, ts in unsure.items()}
    while checking:
        round_reads = {}
        for tp, ts in list(checking.items()):
            while ts and (read := _hint_read(known[tp], answers[(tp, ts[0])])) is None:
                ts.pop(0)
            if ts and read is not None:
                round_reads[tp] = read
                ts.pop(0)
            else:
                del checking[tp]
        if not round_reads:
            break
        reads += 1
        positions += len(round_reads)
        got_records = source.records_at({tp: (r.position, r.size) for tp, r in round_reads.items()})
        for tp, r in round_reads.items():
            if tp in got_records:
                records += len(got_records[tp])
                known[tp].add(r.position, r.size, got_records[tp])
            else:
                checking.pop(tp, None)
    for tp, ts in unsure.items():
        for t in ts:
            end = _confirmed(known[tp], t, answers[(tp, t)])
            if end is not None:
                out[(tp[0], tp[1], t)] = end
            else:
                searched += 1
    said()

    for tp, ts in asking.items():  # maybe compacted: an end is a fact only where no record before it is gone
        if bounds[tp].compacted is not False:
            for t in ts:
                e = out.get((tp[0], tp[1], t))
                if e is not None and e.offset is not None:
                    out[(tp[0], tp[1], t)] = _whole_before(known[tp], e, bounds[tp].compacted is None)
    unknown = sum(1 for e in out.values() if e.offset is None)
    return out, EndsAtStats(calls, len(answers), searched, reads, positions, records, unknown)


def record_times(source: RecordSource, positions: Mapping[TopicPartition, Iterable[int]]
                 ) -> dict[tuple[str, int, int], int]:
    """The timestamp of the record at each position (``lag --time-lag``: the record at a committed
    offset), ``{(topic, partition, offset): ms}``: one read per slot (the k-th position of every
    partition), one record each. Where the log has no record at a position (compaction, a
    control record), the next record stands for it; a position that could not be read is left
    out (its time lag is unknown)."""
    wanted = {tp: sorted(set(offsets)) for tp, offsets in positions.items()}
    out: dict[tuple[str, int, int], int] = {}
    for k in range(max((len(v) for v in wanted.values()), default=0)):
        slot = {tp: (offsets[k], 1) for tp, offsets in wanted.items() if k < len(offsets)}
        for tp, found in source.records_at(slot).items():
            if found:
                out[(tp[0], tp[1], slot[tp][0])] = found[0][1]
    return out


def log_ends_at(cluster: LogSource, moments: Mapping[TopicPartition, Iterable[int]],
                progress: Progress | None = None) -> LogEndsAt:
    """Where each partition's log ended at each of its moments (ms): its bounds asked of the
    cluster, then :func:`ends_at` over a record reader of it (ListOffsets by timestamp, one call
    per slot, one request per leader broker; every answer checked against the records and,
    where it is wrong, found from them). Unknown where retention removed the records of a moment,
    compaction may have (offsets just before the end hold no record on a compacted topic, or one
    whose cleanup.policy cannot be read), or the partition's offsets or records cannot be read;
    each partition whose offsets or records cannot be read is named in the problems.

    As reading the offsets log, this may rightly take longer than --timeout: it bounds each
    wait for the cluster (a slot, a round of reads), not the whole answer. ``progress`` hears how
    many moments are answered (:func:`ends_at`).
    """
    if progress is not None:
        progress("log ends", 0, sum(len(set(ts)) for ts in moments.values()))
    bounds, problems = cluster.log_bounds(sorted(moments))
    reader = cluster.record_reader()
    try:
        ends, stats = ends_at(reader, moments, bounds, progress)
    finally:
        reader.close()
    return LogEndsAt(ends, stats, bounds, problems + reader.problems)


def record_timestamps(cluster: LogSource, positions: Mapping[TopicPartition, Iterable[int]]
                      ) -> dict[tuple[str, int, int], int]:
    """The timestamp of the record at each offset of each partition (:func:`record_times` over a
    record reader of the cluster): ``{(topic, partition, offset): ms}``; what could not be read is
    left out."""
    reader = cluster.record_reader()
    try:
        return record_times(reader, positions)
    finally:
        reader.close()
