"""The second half of kgroup scan: the read tasks' partial rows (fold.py) merged into facts.

Spark sends every partial row of a group to one merge task (rows without a group, such as
undecodable records and the records-read counts, all go to one task); the task gives:

- ``fact``: one row per group, the fields of report.GroupFacts;
- ``part``: per offsets-log partition, the task's share of ``records``, ``commits``,
  ``bytes_total``, ``first_ms``/``last_ms``, ``bad`` and ``groups`` (exact sums: a group is
  in one task);
- ``read``: the records read;
- ``committed``: with ``want_committed``, the committed offset of every (group, topic,
  partition) whose newest offset record has a value (for the lag of a live scan);
- ``commit``, ``event``: the newest ``latest`` offset and group-state records (decoded rows);
- ``error``: the first ``fold.ERROR_SAMPLE`` undecodable records;
- ``tail``: per (group, topic, partition), the commits its status needs (``tail_ms``,
  ``tail_offsets``): the tasks' tails in log order, each cut where an offset was deleted;
- ``cut``: the tasks' commit records that are no commit to read (fold.py), but those before the
  newest record of their key when that is an offset deletion; ``cut_last`` when it comes after
  every readable offset record of its key (what is committed now is then unknown: no
  ``committed`` row for that key).

``expires_ms`` on a fact is the earliest moment Kafka deletes one of the group's committed offsets
under the state the group is in at its last record (kgroup.offsets_log.expiry, with the
``retention`` the merge is given), None when none goes.

``overlaps`` on a fact counts segments of one key that interleave: the answer is then
unknown and the caller folds again from records sorted by log position.

No Spark here: plain Python over columns, unit-testable on its own; the driver merges the
tasks' outputs with :func:`combine`.
"""
from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kgroup.lag.history import Commit, tail_start
from kgroup.kmsg.states import EMPTY, STABLE
from kgroup.offsets_log import expiry as offset_expiry
from kgroup.offsets_log.replay import Commit as ReplayCommit
from kgroup.offsets_log.rebalance import GENERATION_TYPES, FirstSeen
from kgroup.scan.decode import DECODED_FIELDS, MEMBER_METADATA_TYPES, Fields, arrow_schema, ddl
from kgroup.scan.fold import ERROR_SAMPLE, PARTIAL_FIELDS, collector_paused
from kgroup.scan.report import GroupFacts

FACT_FIELDS = (
    ("offsets_partition", "int32"), ("partitions", "int64"), ("groups", "int64"), ("overlaps", "int64"),
    ("last_kind", "string"), ("last_meta_type", "int32"), ("last_meta_tombstone", "bool"),
    ("classic_protocol", "string"), ("classic_members", "int32"), ("live_members", "int32"),
    ("member_protocol", "string"), ("rebalance_times", "list<int64>"), ("expires_ms", "int64"),
    ("cut_last", "bool"),
)
MERGED_FIELDS = PARTIAL_FIELDS + FACT_FIELDS
MERGED_DDL = ddl(MERGED_FIELDS)
DECODED_NAMES = tuple(n for n, _ in DECODED_FIELDS)


class _Columns:
    """Output columns filled row by row (absent values are null)."""

    def __init__(self, fields: Fields) -> None:
        self.cols: dict[str, list[Any]] = {n: [] for n, _ in fields}
        self.n = 0

    def add(self, row: str, values: dict[str, Any]) -> None:
        self.n += 1
        self.cols["row"].append(row)
        for name, x in values.items():
            self.cols[name].append(x)
        for col in self.cols.values():
            if len(col) < self.n:
                col.append(None)


def _decoded(cols: dict[str, list[Any]], i: int) -> dict[str, Any]:
    return {n: cols[n][i] for n in DECODED_NAMES}


def _newest(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """The ``n`` newest rows, oldest first."""
    best = heapq.nlargest(n, rows, key=lambda r: (r["timestamp"], r["partition"], r["offset"]))
    return best[::-1]


def _first_errors(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return heapq.nsmallest(ERROR_SAMPLE, rows, key=lambda r: (r["partition"], r["offset"]))


def merge_columns(cols: dict[str, list[Any]], want_committed: bool = False, latest: int = 0,
                  retention: offset_expiry.Retention | None = None) -> dict[str, list[Any]]:
    """One merge task: partial rows in (columns of fold.PARTIAL_FIELDS), merged rows out
    (columns of MERGED_FIELDS); offset expiry under ``retention`` (default: Kafka's)."""
    retention = retention or offset_expiry.Retention()
    rows = cols["row"]
    read = 0
    parts: dict[int, list[Any]] = {}           # partition -> [records, commits, bytes, first, last, bad, groups]
    home: dict[str, int] = {}             # group -> smallest offsets-log partition
    segments: dict[tuple[Any, ...], list[Any]] = {}      # (group, topic, partition) -> [segment index, ...]
    events: dict[str, list[int]] = {}     # group -> event row indexes
    tails: dict[tuple[Any, ...], list[int]] = {}     # (group, topic, partition) -> tail row indexes
    cuts: dict[tuple[Any, ...], list[int]] = {}      # (group, topic, partition) -> cut row indexes
    errors, commits, newest_events = [], [], []
    for i, kind in enumerate(rows):
        if kind == "key":
            segments.setdefault((cols["group"][i], cols["topic"][i], cols["topic_partition"][i]), []).append(i)
        elif kind == "pg":
            p, g = cols["partition"][i], cols["group"][i]
            first, last = cols["first_ms"][i], cols["last_ms"][i]
            agg = parts.get(p)
            if agg is None:
                parts[p] = [cols["records"][i], cols["commits"][i], cols["bytes_total"][i], first, last,
                            cols["bad"][i], set()]
                agg = parts[p]
            else:
                agg[0] += cols["records"][i]
                agg[1] += cols["commits"][i]
                agg[2] += cols["bytes_total"][i]
                agg[3] = min(agg[3], first)
                agg[4] = max(agg[4], last)
                agg[5] += cols["bad"][i]
            if g is not None:
                agg[6].add(g)
                if g not in home or p < home[g]:
                    home[g] = p
        elif kind == "event":
            events.setdefault(cols["group"][i], []).append(i)
            if latest:
                newest_events.append(i)
        elif kind == "read":
            read += cols["records"][i]
        elif kind == "commit":
            if latest:
                commits.append(i)
        elif kind == "error":
            errors.append({n: cols[n][i] for n in ("partition", "offset", "type", "error")})
        elif kind == "tail":
            tails.setdefault((cols["group"][i], cols["topic"][i], cols["topic_partition"][i]), []).append(i)
        elif kind == "cut":
            cuts.setdefault((cols["group"][i], cols["topic"][i], cols["topic_partition"][i]), []).append(i)

    out = _Columns(MERGED_FIELDS)
    for (g, topic, tp), at in tails.items():
        tail = _tail(cols, at)
        if tail:
            out.add("tail", {"group": g, "topic": topic, "topic_partition": tp,
                             "tail_ms": [c.time_ms for c in tail], "tail_offsets": [c.offset for c in tail]})
    out.add("read", {"records": read})
    for p, (records, n_commits, size, first, last, bad, groups) in parts.items():
        out.add("part", {"partition": p, "records": records, "commits": n_commits, "bytes_total": size,
                         "first_ms": first, "last_ms": last, "bad": bad, "groups": len(groups)})
    by_group: dict[str, list[Any]] = {}
    for key in cuts.keys() - segments.keys():  # a key with no readable record: its cuts are the last
        home.setdefault(key[0], min(cols["partition"][i] for i in cuts[key]))
    for key, at in cuts.items():
        end = _key_stats(cols, segments[key]) if key in segments else None
        for i in at:
            position = (cols["partition"][i], cols["offset"][i])
            if end is not None and position < end["end"] and end["gone"]:
                continue  # deleted with what it committed
            out.add("cut", {n: cols[n][i] for n in ("group", "topic", "topic_partition", "partition", "offset",
                                                   "error", "detail")}
                    | {"cut_last": end is None or position > end["end"]})
    for key, at in segments.items():
        stats = _key_stats(cols, at)
        stats["topic"] = key[1]
        by_group.setdefault(key[0], []).append(stats)
        last_cut = key in cuts and any((cols["partition"][i], cols["offset"][i]) > stats["end"] for i in cuts[key])
        if want_committed and not stats["gone"] and stats["committed"] is not None and not last_cut:
            out.add("committed", {"group": key[0], "topic": key[1], "topic_partition": key[2],
                                  "committed_offset": stats["committed"]})
    for g, p in home.items():
        facts = GroupFacts(group=g, offsets_partition=p)
        keys = by_group.get(g, [])
        overlaps = sum(k["overlaps"] for k in keys)
        with_commits = [k for k in keys if k["commits"]]
        facts.commits = sum(k["commits"] for k in with_commits)
        facts.partitions = len(with_commits)
        facts.rewinds = sum(k["rewinds"] for k in with_commits)
        if with_commits:
            facts.first_commit_ms = min(k["first"] for k in with_commits)
            facts.last_commit_ms = max(k["last"] for k in with_commits)
        expiry_facts, reset_at = _state(facts, cols, events.get(g, []))
        facts.expires_ms = _first_expiry(expiry_facts, reset_at, keys, retention)
        out.add("fact", {"group": g, "offsets_partition": p, "commits": facts.commits,
                         "first_commit_ms": facts.first_commit_ms, "last_commit_ms": facts.last_commit_ms,
                         "partitions": facts.partitions, "rewinds": facts.rewinds, "overlaps": overlaps,
                         "last_kind": facts.last_kind, "last_meta_type": facts.last_meta_type,
                         "last_meta_tombstone": facts.last_meta_tombstone, "generation": facts.generation,
                         "classic_protocol": facts.classic_protocol, "classic_members": facts.classic_members,
                         "live_members": facts.live_members, "member_protocol": facts.member_protocol,
                         "rebalance_times": facts.rebalance_times, "expires_ms": facts.expires_ms})
    if latest:
        when, part, off = cols["timestamp"], cols["partition"], cols["offset"]
        for row, at in (("commit", commits), ("event", newest_events)):
            for i in heapq.nlargest(latest, at, key=lambda j: (when[j], part[j], off[j])):
                out.add(row, _decoded(cols, i))
    for r in _first_errors(errors):
        out.add("error", r)
    return out.cols


def _key_stats(cols: dict[str, list[Any]], at: list[int]) -> dict[str, Any]:
    """The segments of one key, in log order: commits, commit times, rewinds (inside each
    segment, and where a segment starts below the last committed offset before it), what
    the newest record says, and how many segments interleave with the one before."""
    fp, fo, lp, lo = cols["first_partition"], cols["first_offset"], cols["last_partition"], cols["last_offset"]
    at = sorted(at, key=lambda i: (fp[i], fo[i]))
    commits = rewinds = overlaps = 0
    first = last = previous_value = end = None
    for i in at:
        if end is not None and end >= (fp[i], fo[i]):
            overlaps += 1
        end = (lp[i], lo[i])
        commits += cols["commits"][i]
        rewinds += cols["rewinds"][i]
        v0, v1 = cols["first_value"][i], cols["last_value"][i]
        if v0 is not None:
            if previous_value is not None and v0 < previous_value:
                rewinds += 1
            previous_value = v1
        c0, c1 = cols["first_commit_ms"][i], cols["last_commit_ms"][i]
        if c0 is not None:
            first = c0 if first is None else min(first, c0)
            last = c1 if last is None else max(last, c1)
    newest = at[-1]
    return {"commits": commits, "first": first, "last": last, "rewinds": rewinds, "overlaps": overlaps,
            "gone": cols["last_tombstone"][newest], "committed": cols["last_committed"][newest],
            "commit_ms": cols["newest_commit_ms"][newest], "expire_ms": cols["newest_expire_ms"][newest],
            "end": end}


def _tail(cols: dict[str, list[Any]], at: list[int]) -> list[Commit]:
    """A key's status tail from its tasks' tails, in log order (a cut drops what came before)."""
    fp, fo = cols["first_partition"], cols["first_offset"]
    times: list[int] = []
    offsets: list[int] = []
    for i in sorted(at, key=lambda j: (fp[j], fo[j])):
        if cols["tail_cut"][i]:
            times, offsets = [], []
        times.extend(cols["tail_ms"][i] or ())
        offsets.extend(cols["tail_offsets"][i] or ())
    start = tail_start(times)
    return [Commit(t, o) for t, o in zip(times[start:], offsets[start:])]


def _state(facts: GroupFacts, cols: dict[str, list[Any]], at: list[int]
           ) -> tuple[offset_expiry.GroupFacts, tuple[int, int] | None]:
    """The group-state fields of ``facts`` from the group's state records (decoded rows); and
    what offset expiry reads of them: the group's expiry facts at its last record, and the log
    position of the last record that deleted the group with its offsets (a classic GroupMetadata or
    streams group tombstone: offsets committed before it are gone)."""
    if not at:
        return offset_expiry.GroupFacts(facts.group, "standalone", EMPTY), None
    from kgroup.offsets_log.records import kind_of

    part, off, types, tomb = cols["partition"], cols["offset"], cols["type"], cols["tombstone"]
    at = sorted(at, key=lambda i: (part[i], off[i]))
    facts.last_kind = kind_of(types[at[-1]])
    rebalances = FirstSeen()  # what a rebalance is: kgroup.offsets_log.rebalance
    members: dict[str, int] = {}
    seen = _ExpiryState()
    for i in at:
        t = types[i]
        if t in GENERATION_TYPES:
            facts.last_meta_type, facts.last_meta_tombstone = t, tomb[i]
            if not tomb[i]:
                facts.generation = cols["generation"][i]
                rebalances.add(t, facts.generation, cols["timestamp"][i])
                if t == 2:
                    facts.classic_protocol, facts.classic_members = cols["protocol"][i], cols["members"][i]
        elif t in MEMBER_METADATA_TYPES:
            members[cols["member"][i]] = i
        seen.add(cols, i)
    facts.rebalance_times = rebalances.times()
    if members:
        live = [i for i in members.values() if not tomb[i]]
        facts.live_members = len(live)
        names = [cols["protocol"][i] for i in live if cols["protocol"][i] is not None]
        facts.member_protocol = max(names) if names else None
    return seen.facts(facts.group, cols), seen.reset_at


class _ExpiryState:
    """A group's state records in log order, kept as offset expiry reads them: what
    kgroup.offsets_log.replay.GroupReplay keeps of them for kgroup.offsets_log.expiry.facts (row
    indexes of the records that count, read once at the end)."""

    def __init__(self) -> None:
        self.kind: str | None = None
        self.classic: int | None = None           # the last GroupMetadata value
        self.members: dict[str, int] = {}         # KIP-848 member -> its member metadata value
        self.regexes: dict[str, int] = {}         # regular expression -> its resolution
        self.streams_members: set[str] = set()
        self.topology: int | None = None          # the streams group's topology
        self.reset_at: tuple[int, int] | None = None

    def add(self, cols: dict[str, list[Any]], i: int) -> None:
        t, gone = cols["type"][i], cols["tombstone"][i]
        if t == 2:
            if gone:
                self.classic, self.reset_at = None, (cols["partition"][i], cols["offset"][i])
            else:
                self.kind, self.classic = "classic", i
        elif t == 3:
            if gone:
                self.members = {}
            else:
                self.kind = "consumer"
        elif t == 5:
            if gone:
                self.members.pop(cols["member"][i], None)
            else:
                self.members[cols["member"][i]] = i
        elif t == 16:
            if gone:
                self.regexes.pop(cols["regex"][i], None)
            else:
                self.regexes[cols["regex"][i]] = i
        elif t == 17:
            if gone:
                self.streams_members, self.topology = set(), None
                self.reset_at = (cols["partition"][i], cols["offset"][i])
            else:
                self.kind = "streams"
        elif t == 19:
            (self.streams_members.discard if gone else self.streams_members.add)(cols["member"][i])
        elif t == 23:
            self.topology = None if gone else i
        elif t == 11 and not gone:
            self.kind = "share"

    def facts(self, group: str, cols: dict[str, list[Any]]) -> offset_expiry.GroupFacts:
        """As kgroup.offsets_log.expiry.facts builds them from a replay (no live state: the log's)."""
        def topics(i: int) -> list[str]:
            text = cols["topics"][i]
            return json.loads(text) if text is not None else []

        if self.kind is None:
            return offset_expiry.GroupFacts(group, "standalone", EMPTY)
        if self.kind == "classic":
            i = self.classic
            protocol_type = cols["protocol_type"][i] if i is not None else None
            state = STABLE if i is not None and cols["members"][i] else EMPTY
            since = cols["state_ms"][i] if i is not None else None
            subscribed: frozenset[str] | None = None
            if protocol_type == "consumer":
                subscribed = (frozenset() if state == EMPTY else
                              None if i is None or cols["topics"][i] is None else frozenset(topics(i)))
            return offset_expiry.GroupFacts(group, "classic", state, protocol_type,
                                            since if state == EMPTY else None, subscribed)
        if self.kind == "consumer":
            names: set[str] = set()
            for i in self.members.values():
                names.update(topics(i))
                regex = cols["regex"][i]
                if regex and regex in self.regexes:
                    names.update(topics(self.regexes[regex]))
            return offset_expiry.GroupFacts(group, "consumer", STABLE if self.members else EMPTY,
                                            subscribed=frozenset(names))
        if self.kind == "streams":
            empty = not self.streams_members
            inputs = frozenset() if empty or self.topology is None else frozenset(topics(self.topology))
            return offset_expiry.GroupFacts(group, "streams", EMPTY if empty else STABLE, subscribed=inputs)
        return offset_expiry.GroupFacts(group, self.kind, "")


def _first_expiry(f: offset_expiry.GroupFacts, reset_at: tuple[int, int] | None, keys: list[dict[str, Any]],
                  retention: offset_expiry.Retention) -> int | None:
    """The earliest moment one of the group's committed offsets goes (kgroup.offsets_log.expiry),
    over the keys whose newest record is a commit made after the group was last deleted."""
    first: int | None = None
    for k in keys:
        if k["gone"] or k["commit_ms"] is None or (reset_at is not None and k["end"] <= reset_at):
            continue
        expire = k["expire_ms"]
        commit = ReplayCommit(k["committed"], None, "", k["commit_ms"], k["end"],
                              expire if expire is not None and expire >= 0 else None)
        moment = offset_expiry.expiry(f, k["topic"], commit, retention).expires_ms
        if moment is not None and (first is None or moment < first):
            first = moment
    return first


def merge_batches(want_committed: bool, latest: int, retention: offset_expiry.Retention | None = None
                  ) -> Callable[[Iterable[Any]], Iterator[Any]]:
    """A mapInArrow body: the partial rows of some groups in, their merged rows out."""
    def run(batches: Iterable[Any]) -> Iterator[Any]:
        import pyarrow as pa

        names = [n for n, _ in PARTIAL_FIELDS]
        cols: dict[str, list[Any]] = {n: [] for n in names}
        with collector_paused():
            for batch in batches:
                for n in names:
                    cols[n].extend(batch.column(n).to_pylist())
            merged = merge_columns(cols, want_committed, latest, retention)
        schema = arrow_schema(MERGED_FIELDS)
        yield pa.RecordBatch.from_arrays([pa.array(merged[f.name], f.type) for f in schema], schema=schema)
    return run


@dataclass
class Merged:
    """Every merge task's rows, combined on the driver."""

    read: int = 0
    per_partition: dict[int, dict[str, Any]] = field(default_factory=dict)
    first_ms: int | None = None
    last_ms: int | None = None
    bad: int = 0
    facts: list[GroupFacts] = field(default_factory=list)
    overlaps: int = 0
    committed: list[tuple[str, str, int, int]] = field(default_factory=list)
    tails: dict[str, dict[tuple[str, int], list[Commit]]] = field(default_factory=dict)  # group -> its status tails
    # commit records that are no commit to read: group, topic, topic_partition, partition, offset, error, detail, last
    cuts: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    latest_commits: list[dict[str, Any]] = field(default_factory=list)
    latest_events: list[dict[str, Any]] = field(default_factory=list)


def combine(cols: dict[str, list[Any]], latest: int = 0) -> Merged:
    """The merge tasks' output (columns of MERGED_FIELDS) as one answer."""
    m = Merged()
    commits, events, errors = [], [], []
    fact_names = [n for n in GroupFacts.__dataclass_fields__]
    for i, kind in enumerate(cols["row"]):
        if kind == "fact":
            f = GroupFacts(**{n: cols[n][i] for n in fact_names})
            f.rebalance_times = list(f.rebalance_times or [])
            m.overlaps += cols["overlaps"][i]
            m.facts.append(f)
        elif kind == "tail":
            m.tails.setdefault(cols["group"][i], {})[(cols["topic"][i], cols["topic_partition"][i])] = [
                Commit(t, o) for t, o in zip(cols["tail_ms"][i], cols["tail_offsets"][i])]
        elif kind == "cut":
            m.cuts.append({n: cols[n][i] for n in ("group", "topic", "topic_partition", "partition", "offset",
                                                   "error", "detail")} | {"last": bool(cols["cut_last"][i])})
        elif kind == "committed":
            m.committed.append((cols["group"][i], cols["topic"][i], cols["topic_partition"][i],
                                cols["committed_offset"][i]))
        elif kind == "part":
            p = cols["partition"][i]
            d = m.per_partition.setdefault(p, {"groups": 0, "records": 0, "commits": 0, "bytes": 0})
            d["groups"] += cols["groups"][i]
            d["records"] += cols["records"][i]
            d["commits"] += cols["commits"][i]
            d["bytes"] += cols["bytes_total"][i]
            m.bad += cols["bad"][i]
            first, last = cols["first_ms"][i], cols["last_ms"][i]
            m.first_ms = first if m.first_ms is None else min(m.first_ms, first)
            m.last_ms = last if m.last_ms is None else max(m.last_ms, last)
        elif kind == "read":
            m.read += cols["records"][i]
        elif kind == "commit":
            commits.append(_decoded(cols, i))
        elif kind == "event":
            events.append(_decoded(cols, i))
        elif kind == "error":
            errors.append({n: cols[n][i] for n in ("partition", "offset", "type", "error")})
    m.latest_commits, m.latest_events = _newest(commits, latest), _newest(events, latest)
    m.errors = sorted(_first_errors(errors), key=lambda r: (r["partition"], r["offset"]))
    return m
