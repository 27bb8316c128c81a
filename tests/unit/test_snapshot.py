"""kgroup.group.snapshot in process: a small document parsed to the group it describes, written back, and
refused where a real cluster could not hold it, each refusal naming its JSON path."""
from __future__ import annotations

import copy

import pytest

from kgroup.errors import UsageError
from kgroup.group.snapshot import decode, dump, parse

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
    assert doc["kgroup_snapshot"] == 2  # kgroup writes version 2; it reads 1 and 2
    assert doc["cluster"]["topics"] == {"T": {"partitions": 3}}
    assert [(m["member_id"], m["assignment"]) for m in doc["group"]["members"]] == [("m1", {"T": [0, 2]}),
                                                                                    ("m2", {"T": [1]})]
    assert doc["group"]["offsets"] == {"T": {"0": {"committed": 5, "log_start": 0, "log_end": 9, "metadata": ""}}}
    again = parse(doc)
    assert again.group.members == parse(copy.deepcopy(DOC)).group.members


def test_a_committed_offsets_leader_epoch_is_written_back():
    doc = copy.deepcopy(DOC)
    doc["group"]["offsets"]["T"]["1"] = {"committed": 4, "log_start": 0, "log_end": 4, "metadata": "m",
                                         "leader_epoch": 7}
    state = parse(doc)
    assert state.offsets["T"][1].leader_epoch == 7 and state.offsets["T"][0].leader_epoch is None
    written = dump(state)["group"]["offsets"]["T"]
    assert written["1"] == {"committed": 4, "log_start": 0, "log_end": 4, "metadata": "m", "leader_epoch": 7}
    assert "leader_epoch" not in written["0"]  # unknown: left out, as the format allows
    assert parse(dump(state)).offsets == state.offsets


def test_kip848_epochs_are_optional_and_written_back_when_known():
    doc = copy.deepcopy(DOC)
    doc["group"].update(type="consumer", generation=9, assignment_epoch=8)
    doc["group"]["members"][0]["member_epoch"] = 7
    state = parse(doc)
    assert (state.group.generation, state.group.assignment_epoch) == (9, 8)
    assert [m.member_epoch for m in state.group.members] == [7, None]
    written = dump(state)["group"]
    assert (written["generation"], written["assignment_epoch"]) == (9, 8)
    assert written["members"][0]["member_epoch"] == 7 and "member_epoch" not in written["members"][1]
    assert parse(dump(state)).group == state.group
    # a file without them (every file written before them) reads as before: epochs not known
    plain = parse(copy.deepcopy(DOC))
    assert plain.group.assignment_epoch is None and {m.member_epoch for m in plain.group.members} == {None}
    assert "assignment_epoch" not in dump(plain)["group"]
    assert all("member_epoch" not in m for m in dump(plain)["group"]["members"])


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
    (lambda d: d["group"]["members"][0].update(subscription=["T", "U\ud800"]),  # checked a list at a time
     "$.group.members[0].subscription[1]", "lone surrogate"),
    (lambda d: d["group"]["members"][0].update(subscription=["T", 7]),
     "$.group.members[0].subscription[1]", "must be a string, not an integer"),
    (lambda d: d["cluster"]["topics"]["T"].update(partitions=0),
     "$.cluster.topics.T.partitions", "0 is out of range"),
    (lambda d: d["group"]["members"][0].update(member_epoch=-1),  # ConsumerGroupDescribe's epochs are >= 0
     "$.group.members[0].member_epoch", "-1 is out of range"),
    (lambda d: d["group"].update(assignment_epoch="3"),
     "$.group.assignment_epoch", "must be an integer"),
    (lambda d: d.pop("kgroup_snapshot"), "$.kgroup_snapshot", "missing"),
    (lambda d: d.update(kgroup_snapshot=3), "$.kgroup_snapshot", "reads versions 1, 2"),
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


def test_depth_check_agrees_with_the_parsed_depth_on_random_documents():
    """The depth check reads bytes without parsing; on random valid JSON whose strings hold
    brackets, quotes and backslashes it refuses exactly the documents nested deeper than
    MAX_DEPTH, as measured on what json.loads returns."""
    import json
    import random

    from kgroup.group.snapshot import MAX_DEPTH, _nesting_problem

    rng = random.Random(7)
    leaves = [1, None, "a[", '\\"]{', "\\", '"', 'x\\"[[', "\u00e9]", "\n[", "\\\\\\", "}{", '""']

    def document(depth: int):
        if depth <= 0 or rng.random() < 0.25:
            return rng.choice(leaves)
        if rng.random() < 0.5:
            return [document(depth - 1) for _ in range(rng.randint(0, 3))]
        return {rng.choice(["k", "[", '\\"', "}", ""]) + str(i): document(depth - 1) for i in range(rng.randint(0, 3))}

    def depth(value) -> int:
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        return 0 if children is None else 1 + max((depth(c) for c in children), default=0)

    seen = set()
    for _ in range(3000):
        value = document(rng.randint(1, 45))
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
        deep = depth(value) > MAX_DEPTH
        seen.add(deep)
        assert (_nesting_problem(text.encode()) is not None) == deep, text[:200]
    assert seen == {True, False}


def test_version_1_names_the_assignor_protocol_and_still_loads():
    """Version 2 calls the group's assignor ``assignor`` (as every -o json document does);
    version 1 files, which call it ``protocol``, load the same; kgroup writes version 2."""
    v1 = copy.deepcopy(DOC)
    v1["group"]["protocol"] = "range"
    assert v1["kgroup_snapshot"] == 1 and v1["group"]["protocol"] == "range"
    state = parse(v1)
    assert state.group.assignor == "range"
    written = dump(state)
    assert written["kgroup_snapshot"] == 2
    assert written["group"]["assignor"] == "range" and "protocol" not in written["group"]
    assert parse(written).group.assignor == "range"
    # in version 2 the old name is not read: a file says its version and is read by it
    v2_old_key = {**v1, "kgroup_snapshot": 2}
    assert parse(v2_old_key).group.assignor is None


def test_the_example_snapshot_is_version_2_and_loads():
    import json
    from pathlib import Path

    from kgroup.group.snapshot import load

    path = Path(__file__).resolve().parents[2] / "examples" / "seed-g1.json"
    doc = json.loads(path.read_text())
    assert doc["kgroup_snapshot"] == 2 and doc["group"]["assignor"] == "range"
    assert load(path).group.assignor == "range"
