"""One name per concept across the -o json documents: a name that is a list, a number or a flag in
one schema is none of the others in another (a count is named ..._count: member_count, group_count,
partition_count, rebalance_count, stale_count), a broker is the object {id, host, port} wherever it
is named (coordinator, offsets_partition_leader), and ``type`` is always the group's type. The schemas are the documents' shapes
(tests/cli/test_json_schemas.py validates kgroup's real output against them)."""
from __future__ import annotations

import json
from pathlib import Path

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"

# (schema, path) kept on purpose, each for a documented contract
KEPT = {
    # the snapshot file format (version 2): a topic's partition count, a required field
    ("snapshot", "oneOf/cluster/topics/*/partitions"),
    # report's series of the group's total lag over time, beside lag.total_lag (a number)
    ("report", "total_lag"),
}


def _kinds(types) -> set[str]:
    types = set(types if isinstance(types, list) else [types])
    named = {"array": "list", "integer": "number", "number": "number", "boolean": "flag"}
    return {named[t] for t in types if t in named}


def _properties(node, path: str, out: list[tuple[str, str, dict]]) -> None:
    if isinstance(node, list):
        for item in node:
            _properties(item, path, out)
        return
    if not isinstance(node, dict):
        return
    for name, sub in (node.get("properties") or {}).items():
        if isinstance(sub, dict):
            out.append((name, f"{path}/{name}".lstrip("/"), sub))
            _properties(sub, f"{path}/{name}", out)
    for key in ("items", "oneOf", "anyOf"):
        if key in node:
            _properties(node[key], path + ("/oneOf" if key == "oneOf" and not path else ""), out)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        _properties(extra, f"{path}/*", out)


def _all() -> list[tuple[str, str, str, dict]]:
    found: list[tuple[str, str, str, dict]] = []
    for file in sorted(SCHEMAS.glob("*.schema.json")):
        schema = file.name.removesuffix(".schema.json")
        props: list[tuple[str, str, dict]] = []
        _properties(json.loads(file.read_text()), "", props)
        found.extend((schema, name, path, sub) for name, path, sub in props)
    return found


def test_no_name_is_a_list_a_number_or_a_flag_in_two_documents():
    kinds: dict[str, dict[str, set[tuple[str, str]]]] = {}
    for schema, name, path, sub in _all():
        if (schema, path) in KEPT:
            continue
        for kind in _kinds(sub.get("type")):
            kinds.setdefault(name, {}).setdefault(kind, set()).add((schema, path))
    clashes = {name: by_kind for name, by_kind in kinds.items() if len(by_kind) > 1}
    assert clashes == {}


def test_a_count_is_named_count_where_the_list_has_the_plain_name():
    found = {(schema, path) for schema, name, path, _ in _all()}
    for schema, path in [("scan", "groups/rebalance_count"), ("scan", "groups/partition_count"),
                         ("scan", "coordinators/group_count"), ("scan", "brokers/group_count"),
                         ("scan", "brokers/partition_count"), ("scan", "summary/group_count"),
                         ("scan", "summary/rebalance_count"), ("find-coordinator", "oneOf/brokers/group_count"),
                         ("describe", "groups/members/partition_count"), ("list", "groups/member_count")]:
        assert (schema, path) in found, (schema, path)
    assert ("history", "rebalances") in found and ("lag", "oneOf/partitions") in found
    assert ("offsets", "groups/partitions") in found


def test_type_is_the_groups_type_and_a_broker_is_named_by_id():
    group_types = {"classic", "consumer", "share", "streams"}
    for schema, name, path, sub in _all():
        if name == "type" and schema != "log-record":  # log-record: Kafka's own key.type
            values = set(sub.get("enum", [])) - {None}
            # history's rebalances[]: the group's type at that generation, or deleted (docs/commands/history.md)
            allowed = group_types | ({"deleted"} if (schema, path) == ("history", "rebalances/type") else set())
            assert (values <= allowed if values else sub.get("type") == ["string", "null"]), (schema, path, sub)
        if name == "broker":
            raise AssertionError(f"{schema}: {path}: a broker's id is named id")


BROKER = {"type": "object", "additionalProperties": False, "required": ["id", "host", "port"],
          "properties": {"id": {"type": "integer"}, "host": {"type": "string"}, "port": {"type": "integer"}}}


def test_a_broker_is_an_object_with_id_host_and_port_in_every_document():
    """A snapshot file names a broker by id only (its brokers are listed in cluster.brokers)."""
    seen = set()
    for schema, name, path, sub in _all():
        if name in ("coordinator", "offsets_partition_leader", "state_partition_leader") and schema != "snapshot":
            assert sub.get("oneOf") == [BROKER, {"type": "null"}], (schema, path, sub)
            seen.add((schema, path))
    # find-coordinator's document is one of two (a top-level oneOf): groups, or --share-state's share partitions
    assert seen == {("describe", "groups/coordinator"), ("find-coordinator", "oneOf/groups/coordinator"),
                    ("find-coordinator", "oneOf/groups/offsets_partition_leader"),
                    ("describe-streams", "groups/coordinator"), ("streams-snapshot", "group/coordinator"),
                    ("find-coordinator", "oneOf/share_partitions/state_partition_leader"),
                    ("find-coordinator", "oneOf/share_partitions/coordinator"), ("list", "groups/coordinator"),
                    ("scan", "groups/offsets_partition_leader"), ("scan", "coordinators/offsets_partition_leader")}
