"""Partial aggregates of one read task, computed where the records are decoded.

Every group lives in one offsets-log partition, and a read task holds a range of one (or,
from a saved dataset, a few) of them: nearly all the work of the report can be done in the
task, in one pass over its records, and what leaves the task is a few rows per group and
per committed partition instead of a decoded row per record. Spark then only merges those
partials (``pipeline.py``).

The rows a task gives (``row`` says which; the other columns are null):

- ``read``: ``records`` read by the task, inside the window or not;
- ``pg``: per (offsets-log ``partition``, ``group``) in the window: ``records``, ``commits``
  (offset-commit values), ``bytes_total``, ``first_ms``/``last_ms`` (record timestamps), ``bad``
  (undecodable records, whose ``group`` is null);
- ``key``: a *segment* of the offset records of one (``group``, ``topic``, ``topic_partition``):
  records in increasing log position from ``first_partition``/``first_offset`` to
  ``last_partition``/``last_offset``, with ``commits``, ``first_commit_ms``/``last_commit_ms``,
  ``rewinds`` inside the segment, ``first_value``/``last_value`` (its first and last committed
  offsets, null when it holds only tombstones), and the last record's ``last_tombstone`` and
  ``last_committed``, and the commit time and expire timestamp (OffsetCommit value v1, -1: none)
  of the last commit (``newest_commit_ms``, ``newest_expire_ms``: what offset expiry reads). A task whose records of a key arrive out of log order (a saved dataset
  read in another order) starts a new segment there; segments that interleave are found by
  the merge, which then sorts the input and folds again;
- ``event``: every group-state record (not an offset commit), decoded;
- ``commit``: the newest ``latest`` offset records of the task, decoded (all of them with
  ``keep_commits``, for the ``commits`` table under ``--out``);
- ``error``: the first ``ERROR_SAMPLE`` undecodable records of the task (position, type, why);
- ``cut``: every offset-commit record of a group in the window that is no commit to read: its
  key decodes (``group``, ``topic``, ``topic_partition``) but its value cannot be decoded, or its
  value says a negative commit time (``partition``/``offset`` its position, ``error`` why,
  ``detail`` "cannot be decoded" or "is not a commit"; kgroup.lag.history.Unreadable); one that
  an offset deletion of its key later in the task removed is left out;
- ``tail``: per (``group``, ``topic``, ``topic_partition``), the commits the status of that
  partition needs (kgroup.lag.history.tail_start): ``tail_ms``/``tail_offsets`` from the
  task's first record of the key at ``first_partition``/``first_offset`` on, read up to
  ``--until`` but also before ``--since`` (the status window does not depend on it);
  ``tail_cut`` when an offset deletion in the task ends what came before. Only with
  ``keep_tails`` (a live scan: a saved log has no log ends, so no status, and the tails of a
  big log cost more than the rest of the fold).

No Spark here: plain Python over columns, unit-testable on its own.
"""
from __future__ import annotations

import gc
import heapq
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from kgroup.lag.history import tail_start
from kgroup.scan.decode import DECODED_FIELDS, arrow_schema, ddl, decode_columns

ERROR_SAMPLE = 10
_OFFSET_KEY_TYPES = (b"\x00\x00", b"\x00\x01")  # a key's record type: an offset commit
SEGMENT_FIELDS = (
    ("row", "string"), ("records", "int64"), ("commits", "int64"), ("bad", "int64"), ("bytes_total", "int64"),
    ("first_ms", "int64"), ("last_ms", "int64"),
    ("first_partition", "int32"), ("first_offset", "int64"), ("last_partition", "int32"), ("last_offset", "int64"),
    ("first_commit_ms", "int64"), ("last_commit_ms", "int64"), ("rewinds", "int64"),
    ("first_value", "int64"), ("last_value", "int64"), ("last_tombstone", "bool"), ("last_committed", "int64"),
    ("tail_cut", "bool"), ("tail_ms", "list<int64>"), ("tail_offsets", "list<int64>"),
    ("newest_commit_ms", "int64"), ("newest_expire_ms", "int64"),
)
TAIL_TRIM = 64  # a key's tail is first trimmed to its window's commits when it grows past this
PARTIAL_FIELDS = SEGMENT_FIELDS + DECODED_FIELDS
PARTIAL_DDL = ddl(PARTIAL_FIELDS)

# a segment's state, a list for speed (its key holds the partition): indexes
(_FO, _LO, _N, _C0, _C1, _RW, _V0, _V1, _TOMB, _LAST, _RECORDS, _BYTES, _T0, _T1, _VALUE) = range(15)
# _VALUE: the last record's decoded value (None: a tombstone), read at the end for offset expiry


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a fold or a merge (then as it was): they build
    hundreds of thousands of small lists and dicts, none in a reference cycle (reference counting
    frees them all), and each collection pass walks every one of them (measured on 1,000,000
    commits: a live scan's status tails added 5.1 s to the fold with the collector on, 1.2 s with
    it off; the driver's combine took 2.9 s, 0.35 s with it off)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _reason(decode: Callable[[bytes | None, bytes | None], object], k: bytes | None, v: bytes | None) -> str:
    """Why a record cannot be decoded, from the generic decoder (which raises DecodeError)."""
    from kgroup.offsets_log.records import DecodeError

    try:
        decode(k, v)
    except DecodeError as e:
        return str(e)
    raise AssertionError("the compiled and generic decoders disagree on a record")


def _trim(tail: list[Any]) -> None:
    """A status tail ([first offset, cut, [commit ms], [offset], trim point]) that reached its
    trim point, cut to its window; the trim point then doubles past what was kept: commits closer
    than the window's spacing cannot be trimmed, and trimming such a tail at every commit made a
    big scan quadratic."""
    times = tail[2]
    start = tail_start(times)
    if start:
        del times[:start], tail[3][:start]
    tail[4] = max(TAIL_TRIM, 2 * len(times))


class TaskFold:
    """The partials of one task: feed it columns (``add``), then take the rows (``rows``)."""

    def __init__(self, since_ms: int | None = None, until_ms: int | None = None, latest: int = 0,
                 keep_commits: bool = False, keep_tails: bool = True):
        self.since_ms, self.until_ms = since_ms, until_ms
        self.latest, self.keep_commits, self.keep_tails = latest, keep_commits, keep_tails
        self.read = 0
        self.open: dict[tuple[Any, ...], list[Any]] = {}     # (partition, group, topic, topic partition) -> current segment
        self.closed: list[tuple[tuple[Any, ...], list[Any]]] = []
        self.pg: dict[tuple[Any, ...], list[Any]] = {}       # (partition, group) -> [records, commits, bytes, first, last, bad]
        self.newest: list[tuple[Any, ...]] = []         # heap of (timestamp, partition, offset, key, value)
        self.errors: list[tuple[Any, ...]] = []         # heap of (-partition, -offset, ...) keeping the first ones
        self.tails: dict[tuple[Any, ...], list[Any]] = {}    # key -> [first offset, cut, [commit ms], [offset], trim point]
        self.cuts: dict[tuple[Any, ...], list[tuple[int, str, str]]] = {}  # key -> [(offset, why, what)]: no commit
        self.out: dict[str, list[Any]] = {name: [] for name, _ in PARTIAL_FIELDS}
        self.out_rows = 0
        from kgroup.offsets_log import records

        # the compiled walker's entry itself when there is one (its failures are diagnosed
        # by the generic path, which raises DecodeError with the reason)
        self.generic = records.decode
        self.decode = records._decode_record or records.decode

    # -- input ---------------------------------------------------------------------------
    def add(self, partitions: list[int], offsets: list[int], timestamps: list[int], keys: list[bytes | None],
            values: list[bytes | None]) -> None:
        """One batch of raw records (equal-length sequences)."""
        from kgroup.offsets_log.records import DecodeError

        decode, generic = self.decode, self.generic
        since, until = self.since_ms, self.until_ms
        windowed = since is not None or until is not None
        tails = self.keep_tails
        opened = self.open
        state_at: list[int] = []      # indexes of group-state records (decoded again as rows)
        commit_at: list[int] = []     # indexes of offset records (candidates for the newest)
        self.read += len(offsets)
        for i, (p, o, ts, k, v) in enumerate(zip(partitions, offsets, timestamps, keys, values)):
            if windowed and ((since is not None and ts < since) or (until is not None and ts > until)):
                if tails and since is not None and ts < since and (until is None or ts <= until) and k is not None \
                        and k[:2] in _OFFSET_KEY_TYPES:
                    self._before_since(p, o, k, v)
                continue
            try:
                t, key, _, value = decode(k, v)
            except (DecodeError, TypeError):
                self._count(p, None, ts, (len(k) if k is not None else 0) + (len(v) if v is not None else 0), 1)
                why = _reason(generic, k, v)
                self._error(p, o, k, why)
                if k is not None and k[:2] in _OFFSET_KEY_TYPES:
                    self._cut(p, o, k, why)
                continue
            if t > 1:
                self._count(p, key.get("group", key.get("groupId")), ts,
                            len(k) + (len(v) if v is not None else 0), 0)  # type: ignore[arg-type]  # decoded: bytes
                state_at.append(i)
                continue
            group, topic, tp = key.values()  # OffsetCommitKey: group, topic, partition
            kk = (p, group, topic, tp)
            if value is not None and value["commitTimestamp"] < 0:  # before 1970: no coordinator writes it
                self._count(p, group, ts, len(k) + len(v), 0)  # type: ignore[arg-type]  # decoded: bytes
                self.cuts.setdefault(kk, []).append(
                    (o, f"commit timestamp {value['commitTimestamp']} is not a time", "is not a commit"))
                continue
            if value is None and kk in self.cuts:
                del self.cuts[kk]  # gone with what they committed
            commit_at.append(i)
            if tails:
                self._tail(kk, o, value)
            seg = opened.get(kk)
            if seg is not None and o > seg[_LO]:
                seg[_LO] = o
                seg[_RECORDS] += 1
                if ts < seg[_T0]:
                    seg[_T0] = ts
                elif ts > seg[_T1]:
                    seg[_T1] = ts
                if value is None:
                    seg[_BYTES] += len(k)  # type: ignore[arg-type]  # decoded: bytes
                    seg[_TOMB], seg[_LAST], seg[_VALUE] = True, None, None
                    continue
                seg[_BYTES] += len(k) + len(v)  # type: ignore[arg-type]  # decoded: bytes
                off, cts = value["offset"], value["commitTimestamp"]
                seg[_N] += 1
                if seg[_C0] is None or cts < seg[_C0]:
                    seg[_C0] = cts
                if seg[_C1] is None or cts > seg[_C1]:
                    seg[_C1] = cts
                if seg[_V1] is not None and off < seg[_V1]:
                    seg[_RW] += 1
                if seg[_V0] is None:
                    seg[_V0] = off
                seg[_V1] = seg[_LAST] = off
                seg[_TOMB], seg[_VALUE] = False, value
                continue
            if seg is not None:  # out of log order: this key's next segment starts here
                self.closed.append((kk, seg))
            if value is None:
                opened[kk] = [o, o, 0, None, None, 0, None, None, True, None, 1, len(k), ts, ts, None]  # type: ignore[arg-type]  # decoded: bytes
            else:
                off, cts = value["offset"], value["commitTimestamp"]
                opened[kk] = [o, o, 1, cts, cts, 0, off, off, False, off, 1, len(k) + len(v), ts, ts,  # type: ignore[arg-type]  # decoded: bytes
                              value]
        if state_at:
            self._decoded("event", state_at, partitions, offsets, timestamps, keys, values)
        if commit_at:
            if self.keep_commits:
                self._decoded("commit", commit_at, partitions, offsets, timestamps, keys, values)
            elif self.latest:
                self._keep_newest(commit_at, partitions, offsets, timestamps, keys, values)

    def _cut(self, p: int, o: int, k: bytes, why: str) -> None:
        """An offset-commit record whose value cannot be decoded, kept for its key when the key decodes."""
        from kgroup.offsets_log.records import decode_key

        found = decode_key(k)
        if found is None or found[0] not in (0, 1):
            return
        key = found[1]
        self.cuts.setdefault((p, key["group"], key["topic"], key["partition"]), []).append((o, why, "cannot be decoded"))

    def _tail(self, kk: tuple[Any, ...], o: int, value: dict[str, Any] | None) -> None:
        """An offset record into its key's status tail (a tombstone cuts what came before)."""
        tail = self.tails.get(kk)
        if value is None:
            self.tails[kk] = [o if tail is None else tail[0], True, [], [], TAIL_TRIM]
        elif tail is None:
            self.tails[kk] = [o, False, [value["commitTimestamp"]], [value["offset"]], TAIL_TRIM]
        else:
            tail[2].append(value["commitTimestamp"])
            tail[3].append(value["offset"])
            if len(tail[2]) > tail[4]:
                _trim(tail)

    def _before_since(self, p: int, o: int, k: bytes, v: bytes | None) -> None:
        """An offset record before --since: only its key's status tail takes it (an undecodable
        one is outside the window, so not counted)."""
        from kgroup.offsets_log.records import DecodeError

        try:
            _, key, _, value = self.decode(k, v)
        except (DecodeError, TypeError):
            return
        group, topic, tp = key.values()
        self._tail((p, group, topic, tp), o, value)

    def _keep_newest(self, at: list[int], partitions: list[int], offsets: list[int], timestamps: list[int],
                     keys: list[bytes | None], values: list[bytes | None]) -> None:
        """The newest ``latest`` offset records so far, by (timestamp, partition, offset). A
        log is nearly in time order, so sorting the batch by timestamp is about linear."""
        n = self.latest
        by_time = sorted(at, key=timestamps.__getitem__)
        if len(by_time) > n:  # every record as new as the n-th newest, ties included
            edge = timestamps[by_time[-n]]
            start = len(by_time) - n
            while start > 0 and timestamps[by_time[start - 1]] >= edge:
                start -= 1
            by_time = by_time[start:]
        for j in by_time:
            item = (timestamps[j], partitions[j], offsets[j], keys[j], values[j])
            if len(self.newest) < n:
                heapq.heappush(self.newest, item)
            elif item[:3] > self.newest[0][:3]:
                heapq.heapreplace(self.newest, item)

    def _count(self, p: int, group: str | None, ts: int, size: int, bad: int) -> None:
        """A record that is not an offset commit, into its (partition, group) totals."""
        c = self.pg.get((p, group))
        if c is None:
            self.pg[(p, group)] = [1, 0, size, ts, ts, bad]
            return
        c[0] += 1
        c[2] += size
        c[3] = min(c[3], ts)
        c[4] = max(c[4], ts)
        c[5] += bad

    def _error(self, p: int, o: int, k: bytes | None, why: str) -> None:
        t = int.from_bytes(k[:2], "big", signed=True) if k is not None and len(k) >= 2 else None
        item = (-p, -o, t, why)
        if len(self.errors) < ERROR_SAMPLE:
            heapq.heappush(self.errors, item)
        elif item > self.errors[0]:
            heapq.heapreplace(self.errors, item)

    def _decoded(self, row: str, at: list[int], partitions: Sequence[int], offsets: Sequence[int],
                 timestamps: Sequence[int], keys: Sequence[bytes | None], values: Sequence[bytes | None]) -> None:
        cols = decode_columns([partitions[j] for j in at], [offsets[j] for j in at], [timestamps[j] for j in at],
                              [keys[j] for j in at], [values[j] for j in at])
        n = len(at)
        for name, col in cols.items():
            self.out[name].extend(col)
        self._pad(row, n)

    def _pad(self, row: str, n: int) -> None:
        """Close ``n`` rows just added to some columns: every other column gets nulls."""
        self.out["row"].extend([row] * n)
        self.out_rows += n
        for col in self.out.values():
            if len(col) < self.out_rows:
                col.extend([None] * (self.out_rows - len(col)))

    # -- output --------------------------------------------------------------------------
    def rows(self) -> dict[str, list[Any]]:
        """Every partial row of the task, as columns (PARTIAL_FIELDS); call once, at the end."""
        out = self.out
        out["records"].append(self.read)
        self._pad("read", 1)
        if self.newest:
            ts, p, o, k, v = zip(*sorted(self.newest))
            self._decoded("commit", list(range(len(ts))), p, o, ts, k, v)
        if self.errors:
            first = sorted((-p, -o, t, why) for p, o, t, why in self.errors)
            for name, values in zip(("partition", "offset", "type", "error"), zip(*first)):
                out[name].extend(values)
            self._pad("error", len(first))
        segments = self.closed + list(self.open.items())
        for (p, group, _, _), seg in segments:  # offset records, into their (partition, group) totals
            c = self.pg.get((p, group))
            if c is None:
                self.pg[(p, group)] = [seg[_RECORDS], seg[_N], seg[_BYTES], seg[_T0], seg[_T1], 0]
            else:
                c[0] += seg[_RECORDS]
                c[1] += seg[_N]
                c[2] += seg[_BYTES]
                c[3] = min(c[3], seg[_T0])
                c[4] = max(c[4], seg[_T1])
        if self.pg:
            for (p, group), (records, commits, size, first, last, bad) in self.pg.items():
                out["partition"].append(p)
                out["group"].append(group)
                out["records"].append(records)
                out["commits"].append(commits)
                out["bytes_total"].append(size)
                out["first_ms"].append(first)
                out["last_ms"].append(last)
                out["bad"].append(bad)
            self._pad("pg", len(self.pg))
        if segments:
            names = ("first_offset", "last_offset", "commits", "first_commit_ms", "last_commit_ms", "rewinds",
                     "first_value", "last_value", "last_tombstone", "last_committed")
            cols = [out[n] for n in names]
            fp_c, lp_c = out["first_partition"], out["last_partition"]
            group_c, topic_c, tp_c = out["group"], out["topic"], out["topic_partition"]
            newest_c, expire_c = out["newest_commit_ms"], out["newest_expire_ms"]
            for (p, group, topic, tp), seg in segments:
                value = seg[_VALUE]
                newest_c.append(None if value is None else value["commitTimestamp"])
                expire_c.append(None if value is None else value.get("expireTimestamp", -1))
                fp_c.append(p)
                lp_c.append(p)
                group_c.append(group)
                topic_c.append(topic)
                tp_c.append(tp)
                for col, x in zip(cols, seg):
                    col.append(x)
            self._pad("key", len(segments))
        if self.cuts:
            n = 0
            for (log_partition, group, topic, tp), found in self.cuts.items():
                for log_offset, why, what in found:
                    for name, x in (("partition", log_partition), ("offset", log_offset), ("group", group), ("topic", topic),
                                    ("topic_partition", tp), ("error", why), ("detail", what)):
                        out[name].append(x)
                    n += 1
            self._pad("cut", n)
        if self.tails:
            for (p, group, topic, tp), (first, cut, times, commits, _) in self.tails.items():
                out["first_partition"].append(p)
                out["first_offset"].append(first)
                out["group"].append(group)
                out["topic"].append(topic)
                out["topic_partition"].append(tp)
                out["tail_cut"].append(cut)
                out["tail_ms"].append(times)
                out["tail_offsets"].append(commits)
            self._pad("tail", len(self.tails))
        return out


def fold_columns(batches: Iterable[Sequence[list[Any]]], since_ms: int | None = None, until_ms: int | None = None,
                 latest: int = 0,
                 keep_commits: bool = False, keep_tails: bool = True) -> dict[str, list[Any]]:
    """The partial rows of one task over its batches of raw columns."""
    fold = TaskFold(since_ms, until_ms, latest, keep_commits, keep_tails)
    for columns in batches:
        fold.add(*columns)
    return fold.rows()


def fold_task(batches: Iterable[Sequence[list[Any]]], since_ms: int | None = None, until_ms: int | None = None,
              latest: int = 0, keep_commits: bool = False, keep_tails: bool = True) -> Iterator[Any]:
    """What one read task gives Spark: the partial rows of its batches of raw columns, as Arrow
    RecordBatches, folded with the cyclic collector paused."""
    with collector_paused():
        rows = fold_columns(batches, since_ms, until_ms, latest, keep_commits, keep_tails)
    yield from to_batches(rows)


def to_batches(cols: dict[str, list[Any]], size: int = 100_000) -> Iterator[Any]:
    """Arrow RecordBatches of partial rows (several when there are many)."""
    import pyarrow as pa

    schema = arrow_schema(PARTIAL_FIELDS)
    n = len(cols["row"])
    for start in range(0, n, size):
        yield pa.RecordBatch.from_arrays([pa.array(cols[f.name][start:start + size], f.type) for f in schema],
                                         schema=schema)


def fold_batches(since_ms: int | None = None, until_ms: int | None = None, latest: int = 0,
                 keep_commits: bool = False, keep_tails: bool = True) -> Callable[[Iterable[Any]], Iterator[Any]]:
    """A mapInArrow body: the raw RecordBatches of one Spark task in, its partial rows out."""
    def run(batches: Iterable[Any]) -> Iterator[Any]:
        def columns() -> Iterator[list[list[Any]]]:
            for batch in batches:
                if batch.num_rows:
                    yield [batch.column(n).to_pylist() for n in ("partition", "offset", "timestamp", "key", "value")]

        yield from fold_task(columns(), since_ms, until_ms, latest, keep_commits, keep_tails)
    return run
