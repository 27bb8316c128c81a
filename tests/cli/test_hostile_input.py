"""Hostile and impossible input: snapshot files a real cluster cannot produce, files built to
exhaust the parser, option values in Unicode digits, and what a bug would look like.

Every case must end in one line on stderr and a documented exit code (2 for bad input, 4
for a bug), quickly, never a traceback."""
from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from conftest import ROOT, run_kgroup

SEED = json.loads((ROOT / "examples" / "seed-g1.json").read_text())
C1, C2, C3 = (m["member_id"] for m in SEED["group"]["members"])


def _doc(mutate):
    doc = copy.deepcopy(SEED)
    mutate(doc)
    return doc


def _members(doc):
    return doc["group"]["members"]


def _one_line_exit_2(r, needle):
    assert r.returncode == 2, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgroup: error: "), r.stderr
    assert needle in lines[0], lines[0]
    assert "Traceback" not in r.stderr and r.stdout == ""


IMPOSSIBLE = [
    ("unknown-topic", lambda d: _members(d)[0]["assignment"].update(Nope=[0]),
     "$.group.members[0].assignment.Nope: topic Nope is not in $.cluster.topics (known: Order, Stock)"),
    ("partition-99", lambda d: _members(d)[2]["assignment"]["Order"].append(99),
     "$.group.members[2].assignment.Order[2]: partition 99 is out of range (topic Order has 7)"),
    ("partition-minus-1", lambda d: _members(d)[1]["assignment"]["Stock"].insert(0, -1),
     "$.group.members[1].assignment.Stock[0]: partition -1 is out of range (topic Stock has 5)"),
    ("partition-twice", lambda d: _members(d)[0]["assignment"]["Stock"].append(1),
     "$.group.members[0].assignment.Stock[2]: partition 1 is listed twice"),
    ("two-owners", lambda d: _members(d)[2]["assignment"]["Stock"].append(0),
     f'$.group.members[2].assignment.Stock[1]: partition Stock-0 is also assigned to member "{C1}"'),
    ("two-owners-target", lambda d: [m.update(target_assignment={"Order": [6]}) for m in _members(d)[:2]],
     f'$.group.members[1].target_assignment.Order[0]: partition Order-6 is also assigned to member "{C1}"'),
    ("duplicate-member", lambda d: _members(d)[2].update(member_id=C2),
     f'$.group.members[2].member_id: "{C2}" is also the id of $.group.members[1]'),
    ("zero-partitions", lambda d: d["cluster"]["topics"]["Order"].update(partitions=0),
     "$.cluster.topics.Order.partitions: 0 is out of range: a topic has 1 to 2,147,483,647 partitions"),
    ("minus-5-partitions", lambda d: d["cluster"]["topics"]["Stock"].update(partitions=-5),
     "$.cluster.topics.Stock.partitions: -5 is out of range"),
    ("10^12-partitions", lambda d: d["cluster"]["topics"]["Order"].update(partitions=10**12),
     "$.cluster.topics.Order.partitions: 1000000000000 is out of range"),
    ("10^8-partitions", lambda d: d["cluster"]["topics"]["Order"].update(partitions=10**8),
     "$.cluster.topics.Order.partitions: the topics hold 100,000,000 partitions or more; kgroup examines at "
     "most 1,000,000 partitions per group"),
    ("empty-topic-name", lambda d: d["cluster"]["topics"].update({"": {"partitions": 1}}),
     '$.cluster.topics[""]: "" is not a Kafka topic name'),
    ("illegal-topic-name", lambda d: d["cluster"]["topics"].update({"a b": {"partitions": 1}}),
     '$.cluster.topics["a b"]: "a b" is not a Kafka topic name'),
    ("committed-minus-50", lambda d: d["group"]["offsets"]["Order"]["0"].update(committed=-50),
     '$.group.offsets.Order["0"].committed: -50 is out of range: an offset is 0 or more (null when unknown)'),
    ("offset-partition-out-of-range", lambda d: d["group"]["offsets"]["Stock"].update({"5": {"committed": 1}}),
     '$.group.offsets.Stock["5"]: partition 5 is out of range (topic Stock has 5)'),
    ("unicode-digit-partition", lambda d: d["group"]["offsets"]["Stock"].update({"\u00b2": {"committed": 1}}),
     '$.group.offsets.Stock["\\u00b2"]: "\\u00b2" is not a partition number'),
    ("arabic-digit-partition", lambda d: d["group"]["offsets"]["Stock"].update({"\u0663": {"committed": 1}}),
     '$.group.offsets.Stock["\\u0663"]: "\\u0663" is not a partition number'),
    ("broker-twice", lambda d: d["cluster"]["brokers"].append({"id": 1, "host": "b9", "port": 1}),
     "$.cluster.brokers[3].id: broker 1 is listed twice"),
    ("bad-topic-id", lambda d: d["cluster"]["topics"]["Order"].update(topic_id="not-an-id"),
     '$.cluster.topics.Order.topic_id: "not-an-id" is not a Kafka topic id'),
    ("zero-topic-id", lambda d: d["cluster"]["topics"]["Order"].update(topic_id="AAAAAAAAAAAAAAAAAAAAAA"),
     '$.cluster.topics.Order.topic_id: "AAAAAAAAAAAAAAAAAAAAAA" is not a Kafka topic id'),
    ("shared-topic-id", lambda d: [t.update(topic_id="vVr3wd5hQ9y7C1m1SGvBPg") for t in d["cluster"]["topics"].values()],
     "$.cluster.topics.Stock.topic_id is also the id of topic Order"),
    ("port-out-of-range", lambda d: d["cluster"]["brokers"][0].update(port=70000),
     "$.cluster.brokers[0].port: 70000 is out of range: 0..65535"),
    ("float-partition", lambda d: _members(d)[0]["assignment"].update(Order=[0.5]),
     "$.group.members[0].assignment.Order must be a list of partition numbers"),
]


@pytest.mark.parametrize("mutate,needle", [c[1:] for c in IMPOSSIBLE], ids=[c[0] for c in IMPOSSIBLE])
def test_impossible_snapshot_is_refused_naming_the_path(tmp_path, mutate, needle):
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(_doc(mutate)))
    for command in ("describe", "whatif"):
        _one_line_exit_2(run_kgroup(command, "--snapshot", str(path)), f"snapshot {path}: {needle}")


def _seed_text() -> str:
    return json.dumps(SEED)


HOSTILE_BYTES = [
    ("utf-16", lambda: _seed_text().encode("utf-16"), "is not UTF-8 (UTF-16?)"),
    ("utf-16-be-no-bom", lambda: _seed_text().encode("utf-16-be"), "is not UTF-8 (UTF-16?)"),
    ("invalid-utf-8", lambda: b'{"kgroup_snapshot": 1, "x": "\xc3\x28"}', "is not UTF-8: invalid byte 0xc3 at offset 29"),
    ("nested-10000-lists", lambda: b"[" * 10000 + b"]" * 10000, "nests objects or lists deeper than 32 levels"),
    ("nested-10000-objects", lambda: b'{"a":' * 10000 + b"1" + b"}" * 10000, "deeper than 32 levels"),
    ("nested-unclosed", lambda: b"[" * 100000, "is not valid JSON: its brackets do not match"),
    ("5000-digit-integer", lambda: _seed_text().replace('"generation": 3', '"generation": ' + "7" * 5000).encode(),
     "$.group.generation is an integer of 5000 digits; Kafka's numbers have at most 19"),
    ("20-digit-partition", lambda: _seed_text().replace('"Stock": [4]', '"Stock": [12345678901234567890]').encode(),
     "$.group.members[2].assignment.Stock must be a list of partition numbers"),
    ("lone-surrogate-value", lambda: _seed_text().replace('"C2"', '"C\\udc00"').encode(),
     "$.group.members[1].client_id: holds a lone surrogate"),
    ("lone-surrogate-key", lambda: _seed_text().replace('"Stock": {', '"St\\ud800ck": {').encode(),
     '$.cluster.topics["St\\ud800ck"]: holds a lone surrogate'),
    ("duplicate-key", lambda: _seed_text().replace('"generation": 3', '"generation": 3, "generation": 4').encode(),
     "$.group.generation: appears twice in one object"),
    ("nan", lambda: _seed_text().replace('"generation": 3', '"generation": NaN').encode(),
     "is not valid JSON: NaN is not a JSON number"),
    ("not-an-object", lambda: b"[1, 2]", "$ must be an object, not a list"),
    ("truncated", lambda: _seed_text()[:-40].encode(), "is not valid JSON"),
]


@pytest.mark.parametrize("make,needle", [c[1:] for c in HOSTILE_BYTES], ids=[c[0] for c in HOSTILE_BYTES])
def test_hostile_file_is_refused_quickly(tmp_path, make, needle):
    path = tmp_path / "snapshot.json"
    path.write_bytes(make())
    r = run_kgroup("describe", "--snapshot", str(path))
    _one_line_exit_2(r, needle)
    assert r.seconds < 10


def test_big_file_is_refused_without_reading_it_all(tmp_path):
    from kgroup.group.snapshot import MAX_FILE_BYTES

    path = tmp_path / "huge.json"
    with open(path, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 10)
    r = run_kgroup("offsets", "--snapshot", str(path))
    _one_line_exit_2(r, f"is {MAX_FILE_BYTES + 1:,} bytes; kgroup reads snapshots of at most {MAX_FILE_BYTES:,} bytes")


def test_depth_check_is_linear_and_exact():
    from kgroup.group.snapshot import MAX_DEPTH, _nesting_problem

    assert _nesting_problem("[" * MAX_DEPTH + "]" * MAX_DEPTH) is None
    assert "deeper than 32" in _nesting_problem("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    # brackets inside strings do not count, escaped quotes do not end a string
    assert _nesting_problem('["' + "[" * 100 + '\\"[[[", {"a": []}]') is None


def test_old_snapshot_without_topic_ids_loads_and_ids_round_trip(tmp_path):
    from kgroup.group import snapshot

    state = snapshot.parse(copy.deepcopy(SEED), "seed")
    assert all(t.topic_id is None for t in state.topics.values())
    doc = _doc(lambda d: d["cluster"]["topics"]["Order"].update(topic_id="vVr3wd5hQ9y7C1m1SGvBPg"))
    state = snapshot.parse(doc, "seed")
    assert state.topics["Order"].topic_id == "vVr3wd5hQ9y7C1m1SGvBPg" and state.topics["Stock"].topic_id is None
    again = snapshot.dump(state)
    assert again["cluster"]["topics"]["Order"] == {"partitions": 7, "topic_id": "vVr3wd5hQ9y7C1m1SGvBPg"}
    assert "topic_id" not in again["cluster"]["topics"]["Stock"]


@pytest.mark.parametrize("args,needle", [
    (["--partitions", "Order=\u00b2"], "--partitions expects TOPIC=N with N from 1 to 2147483647"),
    (["--partitions", "Order=\u0667"], "--partitions expects TOPIC=N"),
    (["--partitions", "Order=99999999999"], "--partitions expects TOPIC=N"),
    (["--partitions", "Order=100000000"], "the group's topics would hold 100,000,005 partitions; kgroup examines "
                                          "at most 1,000,000 partitions per group"),
    (["--partitions", "Order=1000000000000"], "--partitions expects TOPIC=N"),
    (["--protocols", "range"], "--protocols gives the protocols of members added with --add"),
    (["--add", "N", "--protocols", ","], "--protocols needs at least one protocol name"),
])
def test_whatif_option_values_exit_2(args, needle):
    r = run_kgroup("whatif", "--snapshot", "examples/seed-g1.json", *args)
    _one_line_exit_2(r, needle)
    assert r.seconds < 10


def test_whatif_removing_every_member():
    r = run_kgroup("whatif", "--snapshot", "examples/seed-g1.json", "--remove", "C1", "--remove", "C2",
                   "--remove", "C3", "-s", "range", "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["strategies"][0]["assignment"] == {}
    assert doc["strategies"][0]["unassigned"] == {"Order": list(range(7)), "Stock": list(range(5))}
    assert doc["protocol_vote"]["selected"] is None and "no member is left" in doc["protocol_vote"]["explanation"]


def test_whatif_added_member_refused_by_the_vote_is_left_out():
    # N supports only roundrobin; every member supports only range: Kafka's JoinGroup refuses N
    r = run_kgroup("whatif", "--snapshot", "examples/seed-g1.json", "--add", "N", "--protocols", "roundrobin",
                   "-s", "range", "-o", "json")
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert doc["refused"] == ["N"] and "N" not in doc["strategies"][0]["assignment"]
    assert doc["strategies"][0]["moved_partitions"] == 0
    assert "N would be refused at JoinGroup with INCONSISTENT_GROUP_PROTOCOL" in r.stderr
    table = run_kgroup("whatif", "--snapshot", "examples/seed-g1.json", "--add", "N", "--protocols", "roundrobin",
                       "-s", "range").stdout
    assert table.startswith("What if G1: add N (refused: INCONSISTENT_GROUP_PROTOCOL)\n")
    assert "\nN " not in table
    # with range among its protocols N joins and gets partitions; the vote keeps range
    doc = json.loads(run_kgroup("whatif", "--snapshot", "examples/seed-g1.json", "--add", "N", "--protocols",
                                "roundrobin,range", "-s", "range", "-o", "json").stdout)
    assert doc["refused"] == [] and doc["strategies"][0]["assignment"]["N"] == {"Order": [6], "Stock": [4]}


def _run_main_with(patch: str, *args: str):
    code = ("import sys; sys.argv = ['kgroup', *%r]\n%s\nfrom kgroup.cli import main\nmain()\n" % (list(args), patch))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_unexpected_exception_is_one_line_exit_4():
    patch = ("import kgroup.group.snapshot as s\n"
             "def boom(path):\n    raise KeyError('sasl.password=hunter22 \\x1b[2J')\n"
             "s.load = boom")
    r = _run_main_with(patch, "describe", "--snapshot", "examples/seed-g1.json")
    assert r.returncode == 4
    assert r.stderr == ("kgroup: internal error: KeyError: 'sasl.password=[redacted] \\x1b[2J' (a bug in kgroup: "
                        "please report it with the command line; -v prints the trace)\n")
    assert "hunter22" not in r.stderr and "\x1b" not in r.stderr and "Traceback" not in r.stderr
    r = _run_main_with(patch, "describe", "--snapshot", "examples/seed-g1.json", "-v")
    assert r.returncode == 4 and "Traceback" in r.stderr and "in boom" in r.stderr
    assert r.stderr.splitlines()[-1].startswith("kgroup: internal error: KeyError")
    assert "hunter22" not in r.stderr


def test_memory_error_is_bad_input():
    patch = ("import kgroup.whatif.vote as p\n"
             "def boom(members):\n    raise MemoryError()\n"
             "p.select_protocol = boom")
    r = _run_main_with(patch, "vote", "-m", "A=range")
    assert r.returncode == 2
    assert r.stderr == "kgroup: error: out of memory: the input is larger than this machine can examine\n"
