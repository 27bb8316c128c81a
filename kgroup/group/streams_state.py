"""A streams group's offsets and the state behind its tasks: captured live, saved to and read
from a streams snapshot, and laid out as rows (pure but for ``capture``, which asks a cluster
through the methods named in StreamsSource).

Offsets: every partition of every input topic (source and repartition source) of every
subtopology, whether or not a member holds its task: committed offset, log start and end, lag,
and the task and member owning it (an empty group still has its lag). State: every changelog
partition of every stateful task (a task's changelog partition is its partition number, in each
changelog topic the topology names), with its log start and end: the offsets a new owner of the
task restores from scratch (end - start; on a compacted changelog, the records are at most that).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Protocol

from kgroup.errors import UsageError
from kgroup.group.model import PartitionOffsets
from kgroup.group.streams import (StreamsGroup, active_owners, changelog_partitions, explain, group_from_json, group_json,
                                  task_count)

if TYPE_CHECKING:  # kgroup.group.metadata is loaded only by commands that talk to a cluster
    from kgroup.group.metadata import ClusterMetadata

TP = tuple[str, int]
SNAPSHOT_KEY = "kgroup_streams_snapshot"
SNAPSHOT_VERSION = 1


@dataclass
class StreamsState:
    """A streams group with what the cluster says of its topics: each topic's partition count
    (input and changelog topics the metadata has), the input partitions' offsets and the changelog
    partitions' log start and end (None where not read)."""

    group: StreamsGroup
    partitions: dict[str, int] = field(default_factory=dict)
    offsets: dict[TP, PartitionOffsets] = field(default_factory=dict)
    changelogs: dict[TP, tuple[int | None, int | None]] = field(default_factory=dict)
    captured_at: str | None = None
    # the group's num.standby.replicas as its config says it (KIP-848 group config
    # streams.num.standby.replicas: its own or the brokers' default), and where from; None: not
    # read (``standby_source`` says why)
    num_standby_replicas: int | None = None
    standby_source: str | None = None

    def tasks(self) -> dict[str, int]:
        """subtopology id -> its number of tasks, where known."""
        out: dict[str, int] = {}
        for sub in self.group.topology.subtopologies if self.group.topology else ():
            n = task_count(sub, self.partitions)
            if n is not None:
                out[sub.subtopology_id] = n
        return out


class StreamsSource(Protocol):
    def metadata(self) -> ClusterMetadata: ...

    def committed_offsets(self, groups: dict[str, list[TP] | None]) -> dict[str, dict[TP, PartitionOffsets]]: ...

    def log_offsets(self, partitions: list[TP]) -> tuple[dict[TP, tuple[int | None, int | None]], list[str]]: ...


def capture(cluster: StreamsSource, group: StreamsGroup, metadata: ClusterMetadata | None = None
            ) -> tuple[StreamsState, list[str]]:
    """The group's offsets and state read from the cluster; (state, problems: what could not be read)."""
    metadata = metadata or cluster.metadata()
    problems: list[str] = []
    state = StreamsState(group, captured_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat()
                         .replace("+00:00", "Z"))
    subs = group.topology.subtopologies if group.topology else []
    for sub in subs:
        for t in [*sub.input_topics, *sub.changelog_topics]:
            info = metadata.topics.get(t)
            if info is not None and info.partition_count:
                state.partitions[t] = info.partition_count
            elif t in sub.input_topics:
                problems.append(f"input topic {t} of subtopology {sub.subtopology_id} of group {group.group_id} "
                                "is not in the metadata")
    inputs = sorted({tp for sub in subs for t in sub.input_topics for tp in
                     ((t, p) for p in range(state.partitions.get(t, 0)))})
    changelogs: list[TP] = []
    for sub in subs:
        n = task_count(sub, state.partitions)
        for t in sub.changelog_topics:
            if t not in state.partitions:
                problems.append(f"changelog topic {t} of subtopology {sub.subtopology_id} is not in the metadata "
                                "(not created yet, or deleted)")
        for p in range(n or 0):
            changelogs += [tp for tp in changelog_partitions(sub, p) if tp[1] < state.partitions.get(tp[0], 0)]
    committed = cluster.committed_offsets({group.group_id: inputs})[group.group_id] if inputs else {}
    bounds, more = cluster.log_offsets(sorted(set(inputs) | set(changelogs))) if inputs or changelogs else ({}, [])
    problems += more
    for tp in inputs:
        c = committed.get(tp, PartitionOffsets())
        start, end = bounds.get(tp, (None, None))
        state.offsets[tp] = c._replace(log_start=start, log_end=end)
    for tp in changelogs:
        state.changelogs[tp] = bounds.get(tp, (None, None))
    return state, problems


STANDBY_CONFIG = "streams.num.standby.replicas"


def described(cluster: Any, ids: list[str], capture_offsets: bool = True, configs: bool = False
              ) -> tuple[dict[str, StreamsState], list[str], list[str]]:
    """({group: StreamsState} of the streams groups among ``ids``, the other groups in order,
    problems), asked with StreamsGroupDescribe (``cluster.describe_streams_groups``; a cluster
    without it: none is a streams group). A group the coordinator does not know as a streams group
    is one of the others; an error answer raises (NotAuthorized where it is about rights, else
    ClusterError). ``capture_offsets``: with their offsets and changelog bounds; ``configs``: with
    their num.standby.replicas from their group config (kgroup.group.configs)."""
    from kgroup.errors import ClusterError, NotAuthorized
    from kgroup.kafka.wire.streams_describe import StreamsDescribeError
    from kgroup.kmsg import errors
    from kgroup.text import printable

    describe = getattr(cluster, "describe_streams_groups", None)
    answers = describe(ids) if ids and describe is not None else None
    if not answers:
        return {}, list(ids), []
    metadata = cluster.metadata() if capture_offsets else None
    out: dict[str, StreamsState] = {}
    problems: list[str] = []
    for g in ids:
        a = answers.get(g)
        if a is None:
            continue
        if isinstance(a, StreamsDescribeError):
            if a.code == errors.GROUP_ID_NOT_FOUND:
                continue  # not a streams group (or no group): the other groups' way
            name = next((k for k, v in vars(errors).items() if k.isupper() and v == a.code), f"error {a.code}")
            detail = name + (f": {printable(a.message)}" if a.message else "")
            if a.code in (errors.GROUP_AUTHORIZATION_FAILED, errors.TOPIC_AUTHORIZATION_FAILED):
                raise NotAuthorized(f"describe streams group {g}: {detail}")
            raise ClusterError(f"describe streams group {g}: {detail}")
        if capture_offsets:
            out[g], more = capture(cluster, a, metadata)
            problems += more
        else:
            out[g] = StreamsState(a)
    ask = getattr(cluster, "group_configs", None)
    if configs and out and ask is not None:  # ``configs``: with the num.standby.replicas each is assigned with
        from kgroup.group.configs import int_config

        found, why = ask(list(out), [STANDBY_CONFIG])
        for g, state in out.items():
            state.num_standby_replicas, state.standby_source = int_config(found, g, STANDBY_CONFIG, why)
    return out, [g for g in ids if g not in out], problems


# -- rows -------------------------------------------------------------------------------------

def time_lag_positions(state: StreamsState) -> dict[TP, int]:
    """Where the first unconsumed record of each input partition lies (its committed offset, where
    a record is there: 0 <= committed < log end), for the time lag."""
    return {tp: o.committed for tp, o in state.offsets.items()
            if o.committed is not None and o.log_end is not None and 0 <= o.committed < o.log_end}


def offsets_rows(state: StreamsState, topics: list[str] | None = None,
                 record_timestamps: Mapping[TP, int] | None = None, now_ms: int | None = None) -> list[dict[str, Any]]:
    """One row per input partition of every subtopology (of ``topics`` only, when given), by
    subtopology, topic and partition. With ``record_timestamps`` (the timestamp of the record at
    each committed offset) and ``now_ms``, each row's ``time_lag_ms``: how old the first record not
    consumed is (0 at lag 0; None where the lag or the record's timestamp is not known)."""
    g = state.group
    owners = active_owners(g)
    by_id = {m.member_id: m for m in g.members}
    rows = []
    for sub in g.topology.subtopologies if g.topology else ():
        for t in sub.input_topics:
            if topics is not None and t not in topics:
                continue
            for p in range(state.partitions.get(t, 0)):
                o = state.offsets.get((t, p), PartitionOffsets())
                owner = owners.get((sub.subtopology_id, p))
                m = by_id.get(owner) if owner else None
                lag = (None if o.log_end is None or o.committed is None else max(o.log_end - o.committed, 0))
                if o.committed is None and o.log_end is not None and o.log_start is not None:
                    lag = None  # never committed: what a new reader starts from depends on its reset policy
                rows.append({"subtopology": sub.subtopology_id, "task": f"{sub.subtopology_id}_{p}", "topic": t,
                             "partition": p, "committed": o.committed, "log_start": o.log_start,
                             "log_end": o.log_end, "lag": lag, "member_id": owner,
                             "process_id": m.process_id if m else None, "client_id": m.client_id if m else None,
                             "host": m.client_host if m else None})
                if record_timestamps is not None and now_ms is not None:
                    ts = record_timestamps.get((t, p))
                    rows[-1]["time_lag_ms"] = (0 if lag == 0 else None if lag is None or ts is None or ts < 0
                                               else max(0, now_ms - ts))
    return rows


def holders(g: StreamsGroup) -> dict[tuple[str, int], dict[str, list[str]]]:
    """Each task -> the members holding it now, per kind."""
    out: dict[tuple[str, int], dict[str, list[str]]] = {}
    for m in g.members:
        for kind in ("active", "standby", "warmup"):
            for sub, ps in m.assignment.of(kind).items():
                for p in sorted(set(ps)):
                    out.setdefault((sub, p), {}).setdefault(kind, []).append(m.member_id)
    return out


def reported_offsets(g: StreamsGroup, task: tuple[str, int]) -> dict[str, dict[str, int | None]]:
    """The task's changelog offsets (cumulative) and end offsets each member reports: member ->
    {"offset", "end_offset"}; members reporting neither are left out (Kafka 4.3 reports none)."""
    out: dict[str, dict[str, int | None]] = {}
    for m in g.members:
        mine = [o.offset for o in m.task_offsets if (o.subtopology_id, o.partition) == task]
        ends = [o.offset for o in m.task_end_offsets if (o.subtopology_id, o.partition) == task]
        if mine or ends:
            out[m.member_id] = {"offset": mine[-1] if mine else None, "end_offset": ends[-1] if ends else None}
    return out


def state_rows(state: StreamsState) -> list[dict[str, Any]]:
    """One row per stateful task: its changelog partitions with their log start and end, the
    offsets a new owner restores (their sum; None where one is not known), who holds it now, and
    the task offsets members report (``not reported`` where none does)."""
    g = state.group
    held = holders(g)
    rows = []
    tasks = state.tasks()
    for sub in g.topology.subtopologies if g.topology else ():
        if not sub.stateful:
            continue
        for p in range(tasks.get(sub.subtopology_id, 0)):
            parts = []
            total: int | None = 0
            for t, cp in changelog_partitions(sub, p):
                start, end = state.changelogs.get((t, cp), (None, None))
                n = None if start is None or end is None else max(end - start, 0)
                parts.append({"topic": t, "partition": cp, "log_start": start, "log_end": end, "to_restore": n})
                total = None if total is None or n is None else total + n
            h = held.get((sub.subtopology_id, p), {})
            rows.append({"task": f"{sub.subtopology_id}_{p}", "subtopology": sub.subtopology_id, "partition": p,
                         "changelogs": parts, "to_restore": total, "active": h.get("active", []),
                         "standby": h.get("standby", []), "warmup": h.get("warmup", []),
                         "reported": reported_offsets(g, (sub.subtopology_id, p))})
    return rows


def restore_of(state: StreamsState) -> dict[tuple[str, int], int | None]:
    """Each stateful task -> the offsets a new owner restores from scratch (None: not known)."""
    return {(r["subtopology"], r["partition"]): r["to_restore"] for r in state_rows(state)}

# -- the documents of describe and offsets ------------------------------------------------------

def describe_document(state: StreamsState) -> dict[str, Any]:
    """describe's document of a streams group (docs/schemas/describe-streams.schema.json)."""
    g = state.group
    doc = {"group": g.group_id, "type": "streams", **group_json(g)}
    doc.pop("group_id")
    if state.num_standby_replicas is not None:  # read from the group's config (described with configs)
        doc["num_standby_replicas"] = {"value": state.num_standby_replicas, "source": state.standby_source}
    why = explain(g)
    for m in doc["members"]:
        m["reconciling"] = m["member_id"] in why
        if m["member_id"] in why:
            m["reconciliation"] = why[m["member_id"]]
    return doc


def offsets_document(state: StreamsState, topics: list[str] | None = None,
                     record_timestamps: Mapping[TP, int] | None = None, now_ms: int | None = None) -> dict[str, Any]:
    """offsets' document of a streams group (docs/schemas/offsets-streams.schema.json): of ``topics``
    only when given (the tasks' state of the tasks reading them), with the time lag when
    ``record_timestamps`` are given (:func:`offsets_rows`)."""
    rows = offsets_rows(state, topics, record_timestamps, now_ms)
    known = [r["lag"] for r in rows]
    never = [f"{r['topic']}:{r['partition']}" for r in rows if r["committed"] is None]
    total = None if any(r["lag"] is None and r["committed"] is not None for r in rows) else sum(
        x for x in known if x is not None)
    tasks = {r["task"] for r in rows}
    return {"group": state.group.group_id, "type": "streams", "state": state.group.state, "partitions": rows,
            "never_committed": never, "total_lag": total,
            "tasks_state": [t for t in state_rows(state) if topics is None or t["task"] in tasks]}


def offsets_problems(doc: dict[str, Any]) -> list[str]:
    """What an offsets document lacks (its answer is INCOMPLETE)."""
    out = []
    for r in doc["partitions"]:
        if r["log_end"] is None:
            out.append(f"group {doc['group']}: the log end of {r['topic']}:{r['partition']} was not read")
        elif "time_lag_ms" in r and r["time_lag_ms"] is None and r["lag"] is not None:
            out.append(f"group {doc['group']}: time lag of {r['topic']}:{r['partition']} unknown: the record at "
                       f"offset {r['committed']} was not read")
    for t in doc["tasks_state"]:
        for c in t["changelogs"]:
            if c["log_end"] is None or c["log_start"] is None:
                out.append(f"group {doc['group']}: the log start and end of changelog {c['topic']}:{c['partition']} "
                           "were not read")
    return out


# -- the streams snapshot -----------------------------------------------------------------------

def _tp_key(tp: TP) -> str:
    return f"{tp[0]}:{tp[1]}"


def dump(state: StreamsState) -> dict[str, Any]:
    """The streams snapshot document (docs/schemas/streams-snapshot.schema.json)."""
    return {
        SNAPSHOT_KEY: SNAPSHOT_VERSION, "captured_at": state.captured_at,
        "group": group_json(state.group),
        "partition_counts": dict(sorted(state.partitions.items())),
        "offsets": {_tp_key(tp): {"committed": o.committed, "log_start": o.log_start, "log_end": o.log_end,
                                  "metadata": o.metadata}
                    for tp, o in sorted(state.offsets.items())},
        "changelogs": {_tp_key(tp): {"log_start": s, "log_end": e} for tp, (s, e) in sorted(state.changelogs.items())},
        **({"num_standby_replicas": {"value": state.num_standby_replicas, "source": state.standby_source}}
           if state.num_standby_replicas is not None else {}),
    }


def load(path: Any, groups: list[str]) -> StreamsState | None:
    """The streams snapshot in file ``path``, or None when it is a group snapshot of another kind;
    UsageError where it cannot be read, is damaged, or holds another group than ``groups`` name."""
    from kgroup.group import snapshot as snapshot_format
    from kgroup.text import printable

    source = printable(str(path))
    try:
        with open(path, "rb") as f:
            data = f.read(snapshot_format.MAX_FILE_BYTES + 1)
    except OSError as e:
        raise UsageError(f"cannot read snapshot {source}: {e.strerror or e}") from None
    doc = snapshot_format.decode(data, source)
    if not is_streams_snapshot(doc):
        return None
    state = parse(doc, source)
    missing = [g for g in groups if g != state.group.group_id]
    if missing:
        raise UsageError(f"snapshot {source} holds group {state.group.group_id}, not {', '.join(missing)}")
    return state


def is_streams_snapshot(doc: Any) -> bool:
    return isinstance(doc, dict) and SNAPSHOT_KEY in doc


_TP = re.compile(r"(.+):(0|[1-9][0-9]{0,9})")


def parse(doc: Mapping[str, Any], source: str) -> StreamsState:
    """A streams snapshot document read back; UsageError naming the first thing wrong in it."""
    def fail(where: str, problem: str) -> UsageError:
        return UsageError(f"streams snapshot {source}: {where} {problem}")

    if doc.get(SNAPSHOT_KEY) != SNAPSHOT_VERSION:
        raise fail(f"$.{SNAPSHOT_KEY}", f"is {doc.get(SNAPSHOT_KEY)!r}; this kgroup reads version {SNAPSHOT_VERSION}")
    problem = _check(doc, _SNAPSHOT, "$")
    if problem is not None:
        raise fail(*problem)
    group = group_from_json(doc["group"])

    def tp(key: str, where: str) -> TP:
        m = _TP.fullmatch(key)
        if m is None:
            raise fail(where, f"key {key!r} is not TOPIC:PARTITION")
        return m.group(1), int(m.group(2))

    offsets = {tp(k, "$.offsets"): PartitionOffsets(v.get("committed"), v.get("log_start"), v.get("log_end"),
                                                    v.get("metadata"))
               for k, v in doc.get("offsets", {}).items()}
    changelogs = {tp(k, "$.changelogs"): (v.get("log_start"), v.get("log_end"))
                  for k, v in doc.get("changelogs", {}).items()}
    standby = doc.get("num_standby_replicas")
    if standby and standby["value"] < 0:
        raise fail("$.num_standby_replicas.value", f"is {standby['value']}; it must be 0 or more")
    return StreamsState(group, dict(doc.get("partition_counts", {})), offsets, changelogs, doc.get("captured_at"),
                        standby["value"] if standby else None,
                        f"{standby['source']}, when the snapshot was taken" if standby else
                        "the snapshot holds no num.standby.replicas")


# the snapshot's structure, checked before it is read: a dict of key -> (spec, required); a
# 1-list is a list of that spec; ("map", spec) a JSON object of any keys to that spec; a type or
# a tuple of types a value of that type (None in the tuple: may be null)
_STR, _INT, _NSTR, _NINT = str, int, (str, type(None)), (int, type(None))
_TASKS = {"active": (("map", [_INT]), True), "standby": (("map", [_INT]), True), "warmup": (("map", [_INT]), True)}
_TOPIC = {"name": (_STR, True), "partition_count": (_INT, True), "replication_factor": (_INT, True),
          "configs": (("map", _STR), False)}
_OFFSET = {"subtopology": (_STR, True), "partition": (_INT, True), "offset": (_INT, True)}
_MEMBER = {"member_id": (_STR, True), "process_id": (_STR, True), "member_epoch": (_INT, True),
           "topology_epoch": (_INT, True), "client_id": (_STR, True), "host": (_STR, True),
           "instance_id": (_NSTR, False), "rack_id": (_NSTR, False),
           "user_endpoint": (({"host": (_STR, True), "port": (_INT, True)}, None), False),
           "client_tags": (("map", _STR), False), "task_offsets": ([_OFFSET], False),
           "task_end_offsets": ([_OFFSET], False), "assignment": (_TASKS, True),
           "target_assignment": (_TASKS, True), "is_classic": (bool, False)}
_SUBTOPOLOGY = {"subtopology_id": (_STR, True), "source_topics": ([_STR], True),
                "repartition_sink_topics": ([_STR], True), "state_changelog_topics": ([_TOPIC], True),
                "repartition_source_topics": ([_TOPIC], True)}
_GROUP = {"group_id": (_STR, True), "state": (_STR, True), "group_epoch": (_INT, True),
          "assignment_epoch": (_INT, True),
          "topology": (({"epoch": (_INT, True), "subtopologies": ([_SUBTOPOLOGY], True)}, None), True),
          "members": ([_MEMBER], True),
          "coordinator": (({"id": (_INT, True), "host": (_STR, True), "port": (_INT, True)}, None), False)}
_BOUNDS = {"committed": (_NINT, False), "log_start": (_NINT, False), "log_end": (_NINT, False),
           "metadata": (_NSTR, False)}
_SNAPSHOT = {SNAPSHOT_KEY: (_INT, True), "captured_at": (_NSTR, False), "group": (_GROUP, True),
             "partition_counts": (("map", _INT), False), "offsets": (("map", _BOUNDS), False),
             "changelogs": (("map", _BOUNDS), False),
             "num_standby_replicas": ({"value": (_INT, True), "source": (_STR, True)}, False)}


def _check(value: Any, spec: Any, where: str) -> tuple[str, str] | None:
    """(where, what is wrong) for the first value of ``value`` not as ``spec`` says, else None."""
    if isinstance(spec, tuple) and len(spec) == 2 and spec[0] == "map":
        if not isinstance(value, dict):
            return where, "must be an object"
        for k, v in value.items():
            problem = _check(v, spec[1], f"{where}[{k!r}]")
            if problem:
                return problem
        return None
    if isinstance(spec, tuple) and spec and isinstance(spec[0], dict):  # an object or null
        return None if value is None else _check(value, spec[0], where)
    if isinstance(spec, list):
        if not isinstance(value, list):
            return where, "must be a list"
        for i, v in enumerate(value):
            problem = _check(v, spec[0], f"{where}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(spec, dict):
        if not isinstance(value, dict):
            return where, "must be an object"
        for key, (sub, required) in spec.items():
            if key not in value:
                if required:
                    return f"{where}.{key}", "is missing"
                continue
            problem = _check(value[key], sub, f"{where}.{key}")
            if problem:
                return problem
        return None
    kinds = spec if isinstance(spec, tuple) else (spec,)
    if isinstance(value, bool) and bool not in kinds:
        return where, "must not be true or false"
    if not isinstance(value, kinds):
        return where, f"has the wrong type ({type(value).__name__})"
    return None
