"""kgroup.snapshot in process: a small document parsed to the group it describes, written back, and
refused where a real cluster could not hold it, each refusal naming its JSON path."""
from __future__ import annotations

import copy

import pytest

from kgroup.errors import UsageError
from kgroup.snapshot import decode, dump, parse

DOC = {"kgroup_snapshot": 1, "cluster": {"topics": {"T": {"partitions": 3}}},
       "group": {"group_id": "G", "members": [{"member_id": "m1", "assignment": {"T": [0, 2]}},
                                              {"member_id": "m2", "assignment": {"T": [1]}}],
                 "offsets": {"T": {"0": {"committed": 5, "log_start": 0, "log_end": 9, "metadata": ""}}}}}


def test_a_minimal_document_is_the_group_it_describes():
    state = parse(copy.deepcopy(DOC))
    assert state.group.group_id == "G"
    assert state.topics["T"].partitions == 3 and state.topics["T"].topic_id is None
    assert [(m.member_id, m.assignment) for m in state.group.members] == [("m1", {"T": [0, 2]}), ("m2", {"T": [1]})]
    (offsets,) = state.offsets["T"].values()
    assert list(state.offsets["T"]) == [0]  # partition keys become ints
    assert (offsets.committed, offsets.log_start, offsets.log_end, offsets.metadata) == (5, 0, 9, "")


def test_dump_writes_what_parse_reads():
    doc = dump(parse(copy.deepcopy(DOC)))
    assert doc["kgroup_snapshot"] == 1
    assert doc["cluster"]["topics"] == {"T": {"partitions": 3}}
    assert [(m["member_id"], m["assignment"]) for m in doc["group"]["members"]] == [("m1", {"T": [0, 2]}),
                                                                                    ("m2", {"T": [1]})]
    assert doc["group"]["offsets"] == {"T": {"0": {"committed": 5, "log_start": 0, "log_end": 9, "metadata": ""}}}
    again = parse(doc)
    assert again.group.members == parse(copy.deepcopy(DOC)).group.members


def _refusal(mutate) -> str:
    doc = copy.deepcopy(DOC)
    mutate(doc)
    with pytest.raises(UsageError) as err:
        parse(doc)
    return str(err.value)


@pytest.mark.parametrize("mutate,path,fact", [
    (lambda d: d["group"]["members"][1]["assignment"].update(T=[3]),  # T has partitions 0-2
     "$.group.members[1].assignment.T[0]", "partition 3 is out of range"),
    (lambda d: d["group"]["members"][1]["assignment"].update(T=[0]),  # m1 owns T-0 already
     "$.group.members[1].assignment.T[0]", "one owner"),
    (lambda d: d["group"]["members"][1].update(member_id="m1"),
     "$.group.members[1].member_id", "unique"),
    (lambda d: d["cluster"]["topics"].update({"bad name": {"partitions": 1}}),  # a blank is not legal
     '$.cluster.topics["bad name"]', "not a Kafka topic name"),
    (lambda d: d["group"]["offsets"]["T"]["0"].update(committed=-1),
     '$.group.offsets.T["0"].committed', "-1 is out of range"),
    (lambda d: d["cluster"]["topics"]["T"].update(partitions=0),
     "$.cluster.topics.T.partitions", "0 is out of range"),
    (lambda d: d.pop("kgroup_snapshot"), "$.kgroup_snapshot", "missing"),
    (lambda d: d.update(kgroup_snapshot=2), "$.kgroup_snapshot", "version 1"),
])
def test_what_no_cluster_can_hold_is_refused_naming_the_path(mutate, path, fact):
    message = _refusal(mutate)
    assert f": {path}" in message and fact in message, message


def test_decode_bounds_nesting_and_refuses_non_json_numbers():
    with pytest.raises(UsageError, match="deeper than 32 levels"):
        decode(b"[" * 40 + b"]" * 40, "f.json")
    with pytest.raises(UsageError, match="NaN"):
        decode(b'{"a": NaN}', "f.json")
    assert decode(b'{"a": [1, {"b": null}]}', "f.json") == {"a": [1, {"b": None}]}
