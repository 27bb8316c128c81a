"""The snapshot file format, version 1: a group captured once, examined offline later.

    {"kgroup_snapshot": 1, "captured_at": "...",
     "cluster": {"brokers": [...], "offsets_partitions": 50,
                 "topics": {"Order": {"partitions": 7, "replica_racks": {"0": ["az1"]}}}},
     "group": {"group_id": "G1", "type": "classic", "state": "Stable", "protocol": "range",
               "generation": 3, "coordinator": 1, "offsets_partition_leader": 1,
               "members": [{"member_id": ..., "assignment": {"Order": [0, 1]}, ...}],
               "offsets": {"Order": {"0": {"committed": 120, "log_start": 0, "log_end": 130,
                                           "metadata": ""}}}}}

``offsets_partition_leader`` (the leader of the group's __consumer_offsets partition at
capture time) is kgroup's own optional addition to the format.

Required: kgroup_snapshot, cluster.topics.*.partitions, group.group_id, and per member
member_id and assignment. Unknown keys are ignored. A missing required key or a wrong
type raises UsageError naming the key.
"""
from __future__ import annotations

import json
from itertools import repeat
from pathlib import Path
from typing import Any

from kgroup.errors import UsageError
from kgroup.model import Broker, GroupDescription, GroupState, Member, PartitionOffsets, TopicLayout

VERSION = 1
_MISSING = object()


def _all_strings(values: list) -> bool:
    """Every item a string (checked in C: a big group's subscriptions hold 100,000 topic names)."""
    return all(map(isinstance, values, repeat(str)))


class _Reader:
    """Typed access to a JSON document that names the offending key on error."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, path: str, problem: str) -> UsageError:
        return UsageError(f"snapshot {self.source}: {path} {problem}")

    def get(self, obj: dict, key: str, path: str, kind, required: bool = False, default=None):
        value = obj.get(key, _MISSING) if isinstance(obj, dict) else _MISSING
        where = f"{path}.{key}" if path else key
        if value is _MISSING or (value is None and not required):
            if required:
                raise self.fail(where, "is missing")
            return default
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            names = " or ".join(_json_name(k) for k in kinds)
            raise self.fail(where, f"must be {names}, not {_json_name(type(value))}")
        return value

    def partitions(self, value: Any, where: str) -> list[int]:
        if not isinstance(value, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in value):
            raise self.fail(where, "must be a list of partition numbers")
        return sorted(value)

    def assignment(self, value: Any, where: str) -> dict[str, list[int]]:
        if not isinstance(value, dict):
            raise self.fail(where, f"must be an object of topic -> [partition, ...], not {_json_name(type(value))}")
        return {t: self.partitions(ps, f"{where}.{t}") for t, ps in sorted(value.items())}


def _json_name(kind) -> str:
    return {dict: "an object", list: "a list", str: "a string", int: "an integer", float: "a number",
            bool: "true/false", type(None): "null"}.get(kind, kind.__name__)


def load(path: Path | str) -> GroupState:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot read snapshot {path}: {e.strerror or e}") from None
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise UsageError(f"snapshot {path} is not valid JSON: {e}") from None
    return parse(doc, str(path))


def parse(doc: Any, source: str = "<snapshot>") -> GroupState:
    r = _Reader(source)
    if not isinstance(doc, dict):
        raise r.fail("the document", "must be a JSON object")
    version = r.get(doc, "kgroup_snapshot", "", int, required=True)
    if version != VERSION:
        raise r.fail("kgroup_snapshot", f"is {version}; this kgroup reads version {VERSION}")
    cluster = r.get(doc, "cluster", "", dict, required=True)
    group = r.get(doc, "group", "", dict, required=True)

    brokers = []
    for i, b in enumerate(r.get(cluster, "brokers", "cluster", list, default=[])):
        where = f"cluster.brokers[{i}]"
        if not isinstance(b, dict):
            raise r.fail(where, "must be an object")
        brokers.append(Broker(r.get(b, "id", where, int, required=True), r.get(b, "host", where, str, default=""),
                              r.get(b, "port", where, int, default=0), r.get(b, "rack", where, str)))
    topics = {}
    for name, t in r.get(cluster, "topics", "cluster", dict, required=True).items():
        where = f"cluster.topics.{name}"
        if not isinstance(t, dict):
            raise r.fail(where, "must be an object")
        count = r.get(t, "partitions", where, int, required=True)
        racks = {}
        for p, rs in r.get(t, "replica_racks", where, dict, default={}).items():
            if not p.isdigit() or not isinstance(rs, list) or not _all_strings(rs):
                raise r.fail(f"{where}.replica_racks.{p}", "must map a partition number to a list of racks")
            racks[int(p)] = list(rs)
        topics[name] = TopicLayout(count, racks)

    gw = "group"
    members = []
    for i, m in enumerate(r.get(group, "members", gw, list, default=[])):
        where = f"group.members[{i}]"
        if not isinstance(m, dict):
            raise r.fail(where, "must be an object")
        target = r.get(m, "target_assignment", where, dict)
        subscription = r.get(m, "subscription", where, list)
        protocols = r.get(m, "protocols", where, list)
        for key, value in (("subscription", subscription), ("protocols", protocols)):
            if value is not None and not _all_strings(value):
                raise r.fail(f"{where}.{key}", "must be a list of strings")
        members.append(Member(
            member_id=r.get(m, "member_id", where, str, required=True),
            client_id=r.get(m, "client_id", where, str),
            host=r.get(m, "host", where, str),
            group_instance_id=r.get(m, "group_instance_id", where, str),
            rack=r.get(m, "rack", where, str),
            subscription=subscription,
            protocols=protocols,
            assignment=r.assignment(r.get(m, "assignment", where, dict, required=True), f"{where}.assignment"),
            target_assignment=None if target is None else r.assignment(target, f"{where}.target_assignment"),
        ))
    coordinator_id = r.get(group, "coordinator", gw, int)
    description = GroupDescription(
        group_id=r.get(group, "group_id", gw, str, required=True),
        type=r.get(group, "type", gw, str),
        state=r.get(group, "state", gw, str),
        protocol_type=r.get(group, "protocol_type", gw, str),
        protocol=r.get(group, "protocol", gw, str),
        generation=r.get(group, "generation", gw, int),
        coordinator=next((b for b in brokers if b.id == coordinator_id), None) if coordinator_id is not None else None,
        members=members,
    )
    if coordinator_id is not None and description.coordinator is None:
        description.coordinator = Broker(coordinator_id, "", 0)
    offsets: dict[str, dict[int, PartitionOffsets]] = {}
    for topic, parts in r.get(group, "offsets", gw, dict, default={}).items():
        if not isinstance(parts, dict):
            raise r.fail(f"group.offsets.{topic}", "must be an object")
        for p, o in parts.items():
            where = f"group.offsets.{topic}.{p}"
            if not str(p).isdigit() or not isinstance(o, dict):
                raise r.fail(where, "must map a partition number to an object")
            offsets.setdefault(topic, {})[int(p)] = PartitionOffsets(
                committed=r.get(o, "committed", where, int), log_start=r.get(o, "log_start", where, int),
                log_end=r.get(o, "log_end", where, int), metadata=r.get(o, "metadata", where, str),
                leader_epoch=r.get(o, "leader_epoch", where, int))
    return GroupState(description, topics, brokers, r.get(cluster, "offsets_partitions", "cluster", int),
                      offsets, r.get(doc, "captured_at", "", str),
                      r.get(group, "offsets_partition_leader", gw, int))


def dump(state: GroupState) -> dict:
    """The snapshot document for ``state`` (inverse of ``parse``)."""
    g = state.group
    return {
        "kgroup_snapshot": VERSION,
        "captured_at": state.captured_at,
        "cluster": {
            "brokers": [{"id": b.id, "host": b.host, "port": b.port, "rack": b.rack} for b in state.brokers],
            "offsets_partitions": state.offsets_partitions,
            "topics": {name: {"partitions": t.partitions,
                              **({"replica_racks": {str(p): rs for p, rs in sorted(t.replica_racks.items())}}
                                 if t.replica_racks else {})}
                       for name, t in sorted(state.topics.items())},
        },
        "group": {
            "group_id": g.group_id, "type": g.type, "state": g.state, "protocol_type": g.protocol_type,
            "protocol": g.protocol, "generation": g.generation,
            "coordinator": g.coordinator.id if g.coordinator else None,
            "offsets_partition_leader": state.offsets_partition_leader,
            "members": [{"member_id": m.member_id, "group_instance_id": m.group_instance_id,
                         "client_id": m.client_id, "host": m.host, "rack": m.rack,
                         "subscription": m.subscription, "protocols": m.protocols,
                         "assignment": m.assignment, "target_assignment": m.target_assignment}
                        for m in g.members],
            "offsets": {t: {str(p): {"committed": o.committed, "log_start": o.log_start, "log_end": o.log_end,
                                     "metadata": o.metadata,
                                     **({"leader_epoch": o.leader_epoch} if o.leader_epoch is not None else {})}
                            for p, o in sorted(parts.items())}
                        for t, parts in sorted(state.offsets.items())},
        },
    }
