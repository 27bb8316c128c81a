"""Documents for list, describe and offsets, built from GroupState (pure).

The JSON documents are the contract (README); tables render from them.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable

from kgroup.group.assignment import normalized, partition_count
from kgroup.lag.now import ROW_FIELDS, offset_table
from kgroup.group.model import GroupDescription, GroupState
from kgroup.kmsg.states import EMPTY, REBALANCING, STABLE

if TYPE_CHECKING:
    from kgroup.group.metadata import GroupListing


def listing_row(g: GroupListing, d: GroupDescription | None, states: list[str],
                type_: str | None) -> dict[str, Any] | None:
    """One group's row of the list document (ListGroups completed by its description), or None
    when ``states`` (any of them) or ``type_`` leave it out."""
    state = (d.state if d else None) or g.state
    gtype = g.type or (d.type if d else None)
    if states and (state or "").lower().replace("_", "") not in {s.lower().replace("_", "") for s in states}:
        return None
    if type_ and gtype != type_:
        return None
    return {"group": g.group_id, "type": gtype, "state": state,
            "protocol_type": (d.protocol_type if d else None) or g.protocol_type,
            "assignor": d.assignor if d else None, "member_count": len(d.members) if d else None,
            "coordinator": d.coordinator.to_json() if d and d.coordinator else None}


def describe_document(states: Iterable[GroupState]) -> dict[str, Any]:
    return {"groups": [describe_group(s) for s in states]}


def describe_group(s: GroupState) -> dict[str, Any]:
    """One group of the describe document: its members sorted static first (by instance id),
    then by member id, each with its assignment and, for KIP-848, its target; a KIP-848 member
    that is not reconciled (kgroup.group.reconciliation) is ``reconciling`` and says why in
    ``reconciliation``."""
    from kgroup.group.reconciliation import explain

    g = s.group
    why = explain(g)
    members = []
    for m in sorted(g.members, key=lambda m: (m.group_instance_id is None, m.group_instance_id or "",
                                              m.member_id)):
        target = normalized(m.target_assignment) if m.target_assignment is not None else None
        r = why.get(m.member_id)
        members.append({
            "member_id": m.member_id, "group_instance_id": m.group_instance_id, "client_id": m.client_id,
            "host": m.host, "partition_count": partition_count(m.assignment),
            "assignment": normalized(m.assignment), "target_assignment": target,
            "reconciling": r is not None,
            **({"reconciliation": r.to_json()} if r is not None else {}),
        })
    return {"group": g.group_id, "type": g.type, "state": g.state, "assignor": g.assignor,
            "coordinator": g.coordinator.to_json() if g.coordinator else None,
            "member_count": len(members),
            "members": members}


def describe_notes(g: dict[str, Any]) -> list[str]:
    """Plain statements about a group's condition, under its table."""
    state = g["state"]
    notes = []
    if state == EMPTY:
        notes.append(f"Group {g['group']} is empty: no active members (offsets may still be committed).")
    elif state in REBALANCING:
        notes.append(f"Group {g['group']} is rebalancing ({state}): assignments are in flux.")
    elif state == STABLE and not g["members"]:
        notes.append(f"Group {g['group']} is Stable but the broker returned no member details "
                     "(some Kafka-compatible brokers do not implement ConsumerGroupDescribe fully).")
    reconciling = [m for m in g["members"] if m["reconciling"]]
    if reconciling:
        from kgroup.group.reconciliation import describe_line

        notes.append(f"{len(reconciling)} member(s) still reconciling towards their target assignment:")
        notes.extend("  " + describe_line(m["member_id"], m["reconciliation"]) for m in reconciling)
        if any(m["reconciliation"]["member_epoch"] is None for m in reconciling):
            notes.append("Epochs shown as - are not known here: librdkafka does not report them (kgroup's own "
                         "describe of many groups per request and the offsets log do).")
    return notes


def offsets_document(states: Iterable[GroupState], topics: list[str] | None,
                     record_timestamps: dict[tuple[str, int], int] | None, now_ms: int, lag_above: int | None = None) -> dict[str, Any]:
    """The offsets document. Per group: ``complete`` is false when any value could not be
    known (``unknown`` lists those partitions and why; their lag and the totals over them are
    null); with ``lag_above``, ``over_threshold`` lists the partitions whose lag exceeds it."""
    return {"groups": [offsets_group(s, topics, record_timestamps, now_ms, lag_above) for s in states]}


def offsets_group(s: GroupState, topics: list[str] | None, record_timestamps: dict[tuple[str, int], int] | None,
                  now_ms: int, lag_above: int | None = None, row_tuples: bool = False) -> dict[str, Any]:
    """One group of the offsets document (see offsets_document), built on its own so that a
    command can write each group as soon as it is known. With
    ``row_tuples``, ``partitions`` holds each row as a tuple of the values of lag.ROW_FIELDS
    rather than as an object (stream.offsets_group_json writes the same JSON from them)."""
    rows, reasons, per_topic, total = offset_table(s, topics, record_timestamps, now_ms)
    g = {"group": s.group.group_id, "state": s.group.state,
         "partitions": rows if row_tuples else [dict(zip(ROW_FIELDS, r)) for r in rows],
         "total_lag": total, "topic_lag": per_topic,
         "incomplete": bool(reasons),
         "unknown": [{"topic": rows[i][0], "partition": rows[i][1], "reason": reason}
                     for i, reason in reasons.items()]}
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


_ROW_TEMPLATE = "{" + ", ".join(f'"{f}": %s' for f in ROW_FIELDS) + "}"


def offsets_group_json(g: dict[str, Any]) -> str:
    """``json.dumps(g, ensure_ascii=False)`` of a group from ``offsets_group(..., row_tuples=True)``,
    as if its rows were objects: the same text, without making an object per row. Row values
    are ints, strings or None, as offset_table makes them."""
    dumps = json.dumps
    memo: dict[str, str] = {}

    def text(v: str) -> str:
        encoded = memo[v] = dumps(v, ensure_ascii=False)
        return encoded

    template = _ROW_TEMPLATE
    rows: list[str] = []
    append = rows.append
    get = memo.get
    for t, p, c, s, e, lag_, mid, cid, host, meta, tl in g["partitions"]:
        append(template % (get(t) or text(t), p, "null" if c is None else c, "null" if s is None else s,
                           "null" if e is None else e, "null" if lag_ is None else lag_,
                           "null" if mid is None else get(mid) or text(mid),
                           "null" if cid is None else get(cid) or text(cid),
                           "null" if host is None else get(host) or text(host),
                           "null" if meta is None else get(meta) or text(meta),
                           "null" if tl is None else tl))
    head = {k: v for k, v in g.items() if k in ("group", "state")}
    tail = {k: v for k, v in g.items() if k not in ("group", "state", "partitions")}
    assert list(g)[:3] == ["group", "state", "partitions"] and tail
    return (dumps(head, ensure_ascii=False)[:-1] + ', "partitions": [' + ", ".join(rows) + "], "
            + dumps(tail, ensure_ascii=False)[1:])
