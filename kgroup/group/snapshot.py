"""The snapshot file format, version 2: a group captured once, examined offline later.

    {"kgroup_snapshot": 2, "captured_at": "...",
     "cluster": {"brokers": [...], "offsets_partitions": 50,
                 "topics": {"Order": {"partitions": 7, "topic_id": "...", "replica_racks": {"0": ["az1"]}}}},
     "group": {"group_id": "G1", "type": "classic", "state": "Stable", "assignor": "range",
               "generation": 3, "coordinator": 1, "offsets_partition_leader": 1,
               "members": [{"member_id": ..., "assignment": {"Order": [0, 1]}, ...}],
               "offsets": {"Order": {"0": {"committed": 120, "log_start": 0, "log_end": 130,
                                           "metadata": ""}}}}}

``offsets_partition_leader`` (the leader of the group's __consumer_offsets partition at
capture time) and ``topic_id`` (the topic's id as Kafka prints it, when the cluster reported
it) are optional. So are a member's ``dropped_assignment`` and ``dropped_target_assignment``
(``{topic: [partitions]}``): what the broker still assigned of topics missing from the
cluster's metadata (deleted) when captured, set apart from ``assignment`` because Kafka's
assignors skip such topics; only recorded, never computed with. A KIP-848 group's
``assignment_epoch`` and a member's ``member_epoch`` are optional too (written when known:
``generation`` holds the group epoch). So is a KIP-848 member's ``pending_revocation``
(``{topic: [partitions]}``): the partitions it was asked to give up and still holds, which the
offsets log records (``snapshot --at``) and ConsumerGroupDescribe does not; absent: not known
(files written before it was kept read so), ``{}``: none.

Version 1 differs only in naming the group's assignor ``protocol``; both versions are read, version 2
is written.

Required: kgroup_snapshot, cluster.topics.*.partitions, group.group_id, and per member
member_id and assignment. Unknown keys are ignored.

A file is read with bounded resources whatever it holds (size, nesting depth and integer
length are checked before or while parsing), and what it describes must be something a
real cluster can hold: legal topic names, 1 to 2^31-1 partitions per topic, assignments
naming existing topics and partitions in range, one owner per partition, unique member ids,
offsets >= 0 (an unknown offset is null). Every failure raises UsageError with one line
naming the JSON path, e.g. ``$.group.members[3].assignment.Order[2]``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal, NoReturn, overload

from kgroup.group.assignment import Assignment
from kgroup.errors import UsageError
from kgroup.group.model import MAX_GROUP_PARTITIONS, Broker, GroupDescription, GroupState, Member, PartitionOffsets, TopicLayout
from kgroup.text import printable

VERSION = 2  # written
READABLE_VERSIONS = (1, 2)  # 1: the group's assignor is named "protocol"
_MISSING = object()

# Resource bounds, checked before or while parsing.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 32          # the format itself needs 6 levels
MAX_INT_DIGITS = 19     # an int64 has at most 19 digits
# What a cluster can hold.
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MAX_TOPIC_PARTITIONS = INT32_MAX  # partition ids are int32
TOPIC_NAME_MAX = 249
_TOPIC_NAME = re.compile(r"[A-Za-z0-9._-]{1,249}")
_ASCII_NUMBER = re.compile(r"0|[1-9][0-9]{0,18}")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# The depth check keeps only brackets and quotes, braces read as brackets: then one replace of "[]"
# removes exactly one level (removing "[]" then "{}" would take "{[]}" whole in one pass).
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_AS_LISTS = bytes.maketrans(b"{}", b"[]")


class _BigInt:
    """An integer literal too long to convert: reported with its path by the validator."""

    def __init__(self, digits: int):
        self.digits = digits


class _Object(dict[str, Any]):
    """A JSON object; remembers the first key that appeared twice."""

    duplicate: str | None = None


def _pairs(pairs: list[Any]) -> _Object:
    obj = _Object()
    for key, value in pairs:
        if key in obj and obj.duplicate is None:
            obj.duplicate = key
        obj[key] = value
    return obj


def _parse_int(text: str) -> int | _BigInt:
    digits = len(text) - (text[0] == "-")
    return _BigInt(digits) if digits > MAX_INT_DIGITS else int(text)


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def _quote(text: str) -> str:
    """A string for an error line: ASCII-escaped and quoted (control characters visible)."""
    return json.dumps(text, ensure_ascii=True)


def key_path(path: str, key: str) -> str:
    return f"{path}.{key}" if _IDENTIFIER.fullmatch(key) else f"{path}[{_quote(key)}]"


def _nesting_problem(text: str | bytes) -> str | None:
    """Why the brackets of ``text`` cannot be handed to the parser, or None.

    Strings are skipped; innermost pairs are then removed one level per pass with C-speed
    replaces (a brace counts as a bracket: the parser refuses a mismatch), so any file costs at most MAX_DEPTH passes and Python's recursive parser only
    ever sees a document nested at most MAX_DEPTH deep. All of it runs on bytes with C-speed
    calls: escaped backslashes and quotes go first (pairs, left to right, as JSON reads them),
    then every byte but brackets and quotes, then what lies between each pair of quotes."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    kept = data.replace(b"\\\\", b"").replace(b'\\"', b"").translate(_AS_LISTS, _NOT_STRUCTURE)
    # two adjacent quotes are an empty string or the end of one and the start of the next with nothing
    # between them: dropping them keeps every other quote paired (and leaves few to split on)
    brackets = b"".join(kept.replace(b'""', b"").split(b'"')[::2])
    for _ in range(MAX_DEPTH):
        if not brackets:
            return None
        shorter = brackets.replace(b"[]", b"")
        if shorter == brackets:  # what is left never closes: harmless if short, the parser says where
            return None if len(shorter) <= MAX_DEPTH else "is not valid JSON: its brackets do not match"
        brackets = shorter
    return f"nests objects or lists deeper than {MAX_DEPTH} levels (a kgroup snapshot needs 6)" if brackets else None


def decode(data: bytes, source: str) -> Any:
    """The JSON document in ``data``, parsed with bounded resources."""
    if len(data) > MAX_FILE_BYTES:
        raise UsageError(f"snapshot {source} is {len(data):,} bytes; kgroup reads snapshots of at most "
                         f"{MAX_FILE_BYTES:,} bytes")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) >= 2 and (data[0] == 0) != (data[1] == 0)):
        raise UsageError(f"snapshot {source} is not UTF-8 (UTF-16?); snapshots are UTF-8 JSON")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"snapshot {source} is not UTF-8: invalid byte 0x{data[e.start]:02x} at offset "
                         f"{e.start}") from None
    problem = _nesting_problem(data)
    if problem:
        raise UsageError(f"snapshot {source} {problem}")
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_int=_parse_int, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise UsageError(f"snapshot {source} is not valid JSON: {e.msg} (line {e.lineno} column {e.colno})") from None
    except (ValueError, RecursionError) as e:
        raise UsageError(f"snapshot {source} is not valid JSON: {e}") from None


def load(path: Path | str) -> GroupState:
    source = printable(str(path))
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise UsageError(f"cannot read snapshot {source}: {e.strerror or e}") from None
    return parse(decode(data, source), source)


# ---------------------------------------------------------------------------------------
# Structure: every value checked where it is read, with its path
# ---------------------------------------------------------------------------------------

class _Reader:
    """Typed access to a JSON document that names the offending path on error."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, path: str, problem: str) -> UsageError:
        sep = " " if problem.startswith(("is ", "must ")) else ": "
        return UsageError(f"snapshot {self.source}: {path}{sep}{problem}")

    def get(self, obj: dict[str, Any], key: str, path: str, kind: type | tuple[type, ...], required: bool = False,
            default: Any = None) -> Any:
        value = obj.get(key, _MISSING) if isinstance(obj, dict) else _MISSING
        where = key_path(path, key)
        if value is _MISSING or (value is None and not required):
            if required:
                raise self.fail(where, "is missing")
            return default
        return self.check(value, where, kind)

    def check(self, value: Any, where: str, kind: type | tuple[type, ...]) -> Any:
        if isinstance(value, _BigInt):
            raise self.fail(where, f"is an integer of {value.digits} digits; Kafka's numbers have at most "
                                   f"{MAX_INT_DIGITS}")
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            names = " or ".join(_json_name(k) for k in kinds)
            raise self.fail(where, f"must be {names}, not {_json_name(type(value))}")
        if isinstance(value, str):
            self.text(value, where)
        elif isinstance(value, _Object) and value.duplicate is not None:
            raise self.fail(key_path(where, value.duplicate), "appears twice in one object")
        return value

    def strings(self, values: list[Any], where: str) -> list[str]:
        """A list of strings, each checked as :meth:`check` would (``where[j]`` on error); a list of
        plain, encodable strings (the usual case) is checked at once."""
        if all(type(x) is str for x in values):
            try:
                "".join(values).encode("utf-8")  # a lone surrogate stays one when joined
                return list(values)  # the model's own list, not the document's
            except UnicodeEncodeError:
                pass
        return [self.check(x, f"{where}[{j}]", str) for j, x in enumerate(values)]

    def text(self, value: str, where: str) -> str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise self.fail(where, "holds a lone surrogate (\\ud800-\\udfff): not a string Kafka can send") from None
        return value

    @overload
    def int_in(self, obj: dict[str, Any], key: str, path: str, low: int, high: int, required: Literal[True],
               what: str = "") -> int: ...

    @overload
    def int_in(self, obj: dict[str, Any], key: str, path: str, low: int, high: int, required: bool = False,
               what: str = "") -> int | None: ...

    def int_in(self, obj: dict[str, Any], key: str, path: str, low: int, high: int, required: bool = False,
               what: str = "") -> int | None:
        value: int | None = self.get(obj, key, path, int, required=required)
        if value is not None and not low <= value <= high:
            raise self.fail(key_path(path, key), f"{value} is out of range: {what or f'{low}..{high}'}")
        return value

    def key(self, key: str, where: str) -> str:
        return self.text(key, where)

    def topic_name(self, name: str, where: str) -> str:
        self.text(name, where)
        if not _TOPIC_NAME.fullmatch(name) or name in (".", ".."):
            raise self.fail(where, f"{_quote(name)} is not a Kafka topic name (1 to {TOPIC_NAME_MAX} of "
                                   "a-z A-Z 0-9 . _ -)")
        return name

    def partition_key(self, key: str, where: str) -> int:
        self.text(key, where)
        if not _ASCII_NUMBER.fullmatch(key) or int(key) > INT32_MAX:
            raise self.fail(where, f"{_quote(key)} is not a partition number (0..{INT32_MAX} in ASCII digits)")
        return int(key)


def _json_name(kind: type) -> str:
    return {dict: "an object", _Object: "an object", list: "a list", str: "a string", int: "an integer",
            float: "a number", bool: "true/false", type(None): "null", _BigInt: "an integer"
            }.get(kind, kind.__name__)


def valid_topic_id(text: str) -> bool:
    """Whether ``text`` is a Kafka topic id as Kafka prints it (URL-safe base64 of 16 bytes,
    not one of the two ids Kafka reserves: all zeros and the metadata topic's 1)."""
    if len(text) != 22 or not re.fullmatch(r"[A-Za-z0-9_-]{22}", text):
        return False
    import base64

    raw = base64.urlsafe_b64decode(text + "==")
    return base64.urlsafe_b64encode(raw).decode().rstrip("=") == text and int.from_bytes(raw, "big") > 1


def parse(doc: Any, source: str = "<snapshot>") -> GroupState:
    r = _Reader(source)
    if not isinstance(doc, dict):
        raise r.fail("$", f"must be an object, not {_json_name(type(doc))}")
    r.check(doc, "$", dict)
    version = r.get(doc, "kgroup_snapshot", "$", int, required=True)
    if version not in READABLE_VERSIONS:
        raise r.fail("$.kgroup_snapshot", f"is {version}; this kgroup reads versions "
                                          f"{', '.join(map(str, READABLE_VERSIONS))}")
    cluster = r.get(doc, "cluster", "$", dict, required=True)
    group = r.get(doc, "group", "$", dict, required=True)

    brokers = []
    seen_brokers: set[int] = set()
    for i, b in enumerate(r.get(cluster, "brokers", "$.cluster", list, default=[])):
        where = f"$.cluster.brokers[{i}]"
        r.check(b, where, dict)
        broker_id = r.int_in(b, "id", where, -1, INT32_MAX, required=True)
        if broker_id in seen_brokers:
            raise r.fail(f"{where}.id", f"broker {broker_id} is listed twice")
        seen_brokers.add(broker_id)
        brokers.append(Broker(broker_id, r.get(b, "host", where, str, default=""),
                              r.int_in(b, "port", where, 0, 65535) or 0, r.get(b, "rack", where, str)))
    topics: dict[str, TopicLayout] = {}
    total = 0
    ids: dict[str, str] = {}
    for name, t in r.get(cluster, "topics", "$.cluster", dict, required=True).items():
        where = key_path("$.cluster.topics", name)
        r.topic_name(name, where)
        r.check(t, where, dict)
        count = r.int_in(t, "partitions", where, 1, MAX_TOPIC_PARTITIONS, required=True,
                         what=f"a topic has 1 to {MAX_TOPIC_PARTITIONS:,} partitions")
        total += count
        if total > MAX_GROUP_PARTITIONS:
            raise r.fail(f"{where}.partitions", f"the topics hold {total:,} partitions or more; kgroup examines "
                                                f"at most {MAX_GROUP_PARTITIONS:,} partitions per group")
        topic_id = r.get(t, "topic_id", where, str)
        if topic_id is not None:
            if not valid_topic_id(topic_id):
                raise r.fail(f"{where}.topic_id", f"{_quote(topic_id)} is not a Kafka topic id "
                                                  "(22 characters of URL-safe base64)")
            if topic_id in ids:
                raise r.fail(f"{where}.topic_id", f"is also the id of topic {ids[topic_id]}")
            ids[topic_id] = name
        racks = {}
        for p, rs in r.get(t, "replica_racks", where, dict, default={}).items():
            pw = key_path(f"{where}.replica_racks", p)
            partition = r.partition_key(p, pw)
            if partition >= count:
                raise r.fail(pw, f"partition {partition} is out of range (topic {name} has {count})")
            r.check(rs, pw, list)
            racks[partition] = r.strings(rs, pw)
        topics[name] = TopicLayout(count, racks, topic_id)

    gw = "$.group"
    members = []
    seen_members: dict[str, int] = {}
    owners: dict[str, dict[tuple[str, int], str]] = {"assignment": {}, "target_assignment": {},
                                                     "pending_revocation": {}}
    # a share group's partition may be assigned to several members (SimpleAssignor does so)
    shared = r.get(group, "type", gw, str) == "share"
    for i, m in enumerate(r.get(group, "members", gw, list, default=[])):
        where = f"$.group.members[{i}]"
        r.check(m, where, dict)
        member_id = r.get(m, "member_id", where, str, required=True)
        if member_id in seen_members:
            raise r.fail(f"{where}.member_id", f"{_quote(member_id)} is also the id of "
                                               f"$.group.members[{seen_members[member_id]}]: member ids are unique")
        seen_members[member_id] = i
        lists = {}
        for key in ("subscription", "protocols"):
            value = r.get(m, key, where, list)
            if value is not None:
                value = r.strings(value, f"{where}.{key}")
            lists[key] = value
        assignments: dict[str, Assignment | None] = {}
        for key in ("assignment", "target_assignment", "pending_revocation"):
            value = r.get(m, key, where, dict, required=key == "assignment")
            assignments[key] = None if value is None else _assignment(r, value, f"{where}.{key}", topics,
                                                                     None if shared else owners[key], member_id)
        dropped = {key: _dropped(r, value, f"{where}.{key}")
                   for key in ("dropped_assignment", "dropped_target_assignment")
                   if (value := r.get(m, key, where, dict)) is not None}
        members.append(Member(
            member_id=member_id,
            client_id=r.get(m, "client_id", where, str),
            host=r.get(m, "host", where, str),
            group_instance_id=r.get(m, "group_instance_id", where, str),
            rack=r.get(m, "rack", where, str),
            subscription=lists["subscription"],
            protocols=lists["protocols"],
            assignment=assignments["assignment"] or {},  # required: never None here
            target_assignment=assignments["target_assignment"],
            pending_revocation=assignments["pending_revocation"],
            member_epoch=r.int_in(m, "member_epoch", where, 0, INT32_MAX),
            **dropped,
        ))
    coordinator_id = r.int_in(group, "coordinator", gw, -1, INT32_MAX)
    description = GroupDescription(
        group_id=r.get(group, "group_id", gw, str, required=True),
        type=r.get(group, "type", gw, str),
        state=r.get(group, "state", gw, str),
        protocol_type=r.get(group, "protocol_type", gw, str),
        assignor=r.get(group, "assignor" if version >= 2 else "protocol", gw, str),
        generation=r.int_in(group, "generation", gw, -1, INT32_MAX),
        coordinator=next((b for b in brokers if b.id == coordinator_id), None) if coordinator_id is not None else None,
        members=members,
        assignment_epoch=r.int_in(group, "assignment_epoch", gw, 0, INT32_MAX),
    )
    if coordinator_id is not None and description.coordinator is None:
        description.coordinator = Broker(coordinator_id, "", 0)
    offsets: dict[str, dict[int, PartitionOffsets]] = {}
    for topic, parts in r.get(group, "offsets", gw, dict, default={}).items():
        tw = key_path("$.group.offsets", topic)
        r.topic_name(topic, tw)  # a topic no longer in the metadata may still have offsets
        r.check(parts, tw, dict)
        for p, o in parts.items():
            where = key_path(tw, p)
            partition = r.partition_key(p, where)
            if topic in topics and partition >= topics[topic].partitions:
                raise r.fail(where, f"partition {partition} is out of range (topic {topic} has "
                                    f"{topics[topic].partitions})")
            r.check(o, where, dict)
            numbers = {key: r.int_in(o, key, where, 0, INT64_MAX,
                                     what="an offset is 0 or more (null when unknown)")
                       for key in ("committed", "log_start", "log_end")}
            offsets.setdefault(topic, {})[partition] = PartitionOffsets(
                **numbers, metadata=r.get(o, "metadata", where, str),
                leader_epoch=r.int_in(o, "leader_epoch", where, -1, INT32_MAX))
    return GroupState(description, topics, brokers, r.int_in(cluster, "offsets_partitions", "$.cluster", 1, INT32_MAX),
                      offsets, r.get(doc, "captured_at", "$", str),
                      r.int_in(group, "offsets_partition_leader", gw, -1, INT32_MAX))


def _assignment(r: _Reader, value: dict[str, Any], where: str, topics: dict[str, TopicLayout],
                owner: dict[tuple[str, int], str] | None, member_id: str) -> Assignment:
    out = {}
    # a share group's (owner None) in the file's order: the simple assignor's answer depends on it
    for topic, ps in (value.items() if owner is None else sorted(value.items())):
        tw = key_path(where, topic)
        r.topic_name(topic, tw)
        if topic not in topics:
            raise r.fail(tw, f"topic {topic} is not in $.cluster.topics"
                             + (f" (known: {', '.join(sorted(topics)[:10])})" if topics else ""))
        if not isinstance(ps, list):
            raise r.fail(tw, "must be a list of partition numbers")
        count = topics[topic].partitions
        seen = set()
        for j, p in enumerate(ps):
            pw = f"{tw}[{j}]"
            if isinstance(p, _BigInt) or not isinstance(p, int) or isinstance(p, bool):
                raise r.fail(tw, "must be a list of partition numbers")
            if not 0 <= p < count:
                raise r.fail(pw, f"partition {p} is out of range (topic {topic} has {count})")
            if p in seen:
                raise r.fail(pw, f"partition {p} is listed twice")
            seen.add(p)
            if owner is None:
                continue
            other = owner.get((topic, p))
            if other is not None:
                raise r.fail(pw, f"partition {topic}-{p} is also assigned to member {_quote(other)}: "
                                 "a partition has one owner")
            owner[(topic, p)] = member_id
        out[topic] = list(ps) if owner is None else sorted(ps)
    return out


def _dropped(r: _Reader, value: dict[str, Any], where: str) -> Assignment:
    """A member's record of partitions of topics missing from the metadata: topic names as the
    broker gave them, each with distinct partition numbers (no range or owner to check)."""
    out = {}
    for topic, ps in sorted(value.items()):
        tw = key_path(where, r.key(topic, where))
        if not isinstance(ps, list):
            raise r.fail(tw, "must be a list of partition numbers")
        for j, p in enumerate(ps):
            if isinstance(p, _BigInt) or not isinstance(p, int) or isinstance(p, bool):
                raise r.fail(tw, "must be a list of partition numbers")
            if not 0 <= p <= INT32_MAX:
                raise r.fail(f"{tw}[{j}]", f"partition {p} is out of range (0..{INT32_MAX})")
        if len(set(ps)) != len(ps):
            raise r.fail(tw, "lists a partition twice")
        out[topic] = sorted(ps)
    return out


def dump(state: GroupState) -> dict[str, Any]:
    """The snapshot document for ``state`` (inverse of ``parse``)."""
    g = state.group
    return {
        "kgroup_snapshot": VERSION,
        "captured_at": state.captured_at,
        "cluster": {
            "brokers": [{"id": b.id, "host": b.host, "port": b.port, "rack": b.rack} for b in state.brokers],
            "offsets_partitions": state.offsets_partitions,
            "topics": {name: {"partitions": t.partitions,
                              **({"topic_id": t.topic_id} if t.topic_id else {}),
                              **({"replica_racks": {str(p): rs for p, rs in sorted(t.replica_racks.items())}}
                                 if t.replica_racks else {})}
                       for name, t in sorted(state.topics.items())},
        },
        "group": {
            "group_id": g.group_id, "type": g.type, "state": g.state, "protocol_type": g.protocol_type,
            "assignor": g.assignor, "generation": g.generation,
            **({"assignment_epoch": g.assignment_epoch} if g.assignment_epoch is not None else {}),
            "coordinator": g.coordinator.id if g.coordinator else None,
            "offsets_partition_leader": state.offsets_partition_leader,
            "members": [{"member_id": m.member_id, "group_instance_id": m.group_instance_id,
                         "client_id": m.client_id, "host": m.host, "rack": m.rack,
                         "subscription": m.subscription, "protocols": m.protocols,
                         "assignment": m.assignment, "target_assignment": m.target_assignment,
                         **({"member_epoch": m.member_epoch} if m.member_epoch is not None else {}),
                         **({"pending_revocation": m.pending_revocation} if m.pending_revocation is not None
                            else {}),
                         **({"dropped_assignment": m.dropped_assignment} if m.dropped_assignment else {}),
                         **({"dropped_target_assignment": m.dropped_target_assignment}
                            if m.dropped_target_assignment else {})}
                        for m in g.members],
            "offsets": {t: {str(p): {"committed": o.committed, "log_start": o.log_start, "log_end": o.log_end,
                                     "metadata": o.metadata,
                                     **({"leader_epoch": o.leader_epoch} if o.leader_epoch is not None else {})}
                            for p, o in sorted(parts.items())}
                        for t, parts in sorted(state.offsets.items())},
        },
    }
