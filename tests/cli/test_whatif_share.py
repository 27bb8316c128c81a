"""whatif of a share group (KIP-932): the answer of Kafka 4.3's SimpleAssignor, as kgroup shows it.

The expected assignments are Kafka's own: each scenario of the committed vectors
(tests/differential/data/simple-assignor-jdk17.json.gz, made by Kafka's SimpleAssignor class, see
tests/differential/test_simple_assignor.py) is written out here as a share-group snapshot with one
more member, which ``whatif --remove`` takes out again: what kgroup prints for the strategy must be
what Kafka's class returned for the scenario. Moves, unassigned partitions and refusals are worked
out by hand on small groups.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from conftest import ROOT, run_kgroup

VECTORS = ROOT / "tests" / "differential" / "data" / "simple-assignor-jdk17.json.gz"
EXTRA = "zz-extra-member"


def _clean(scenario: dict) -> bool:
    """A scenario a snapshot can hold: every partition assignable, a member's current assignment
    naming existing topics and partitions in range, at least one member."""
    if scenario["assignable"] is not None or not scenario["members"]:
        return False
    counts = {tid: n for tid, _, n in scenario["topics"]}
    return all(tid in counts and all(0 <= p < counts[tid] for p in ps)
               for _, _, current in scenario["members"] for tid, ps in current)


def _snapshot(scenario: dict, path: Path, extra: bool = True) -> Path:
    names = {tid: name for tid, name, _ in scenario["topics"]}
    members = [{"member_id": mid, "subscription": list(subscribed),
                "assignment": {names[tid]: list(ps) for tid, ps in current}}
               for mid, subscribed, current in scenario["members"]]
    if extra:
        members.append({"member_id": EXTRA, "subscription": [], "assignment": {}})
    doc = {"kgroup_snapshot": 2, "captured_at": "2026-11-28T00:00:00Z",
           "cluster": {"brokers": [{"id": 1, "host": "b1", "port": 9092}],
                       "topics": {name: {"partitions": n, "topic_id": tid} for tid, name, n in scenario["topics"]}},
           "group": {"group_id": "SG", "type": "share", "state": "Stable", "assignor": "simple",
                     "members": members}}
    path.write_text(json.dumps(doc))
    return path


def _kafka(scenario: dict) -> dict:
    names = {tid: name for tid, name, _ in scenario["topics"]}
    out = {mid: {names[tid]: sorted(ps) for tid, ps in topics if ps} for mid, topics in scenario["result"]}
    return {mid: a for mid, a in out.items() if a}


def _scenarios() -> list[dict]:
    with gzip.open(VECTORS, "rt", encoding="utf-8") as f:
        return [s for s in json.load(f)["scenarios"] if _clean(s)]


def test_whatif_answers_what_kafkas_simple_assignor_answers(tmp_path):
    scenarios = _scenarios()
    answered = thrown = 0
    for i, scenario in enumerate(scenarios[:60]):
        snap = _snapshot(scenario, tmp_path / f"s{i}.json")
        r = run_kgroup("whatif", "--snapshot", str(snap), "--remove", EXTRA, "-o", "json")
        assert r.returncode == 0, (i, r.stderr)
        (result,) = json.loads(r.stdout)["strategies"]
        assert result["strategy"] == "simple"
        if "error" in scenario:
            assert result["completes"] is False and scenario["error"] in result["reason"], i
            thrown += 1
            continue
        assert result["completes"] is True, (i, result)
        got = {m: a for m, a in result["assignment"].items() if a}
        assert got == _kafka(scenario), i
        answered += 1
    assert answered >= 40


def _two_members(tmp_path: Path) -> Path:
    topic = {"partitions": 4, "topic_id": "kV3cN1sYQ4GqUoGZ8m2bWw"}
    doc = {"kgroup_snapshot": 2, "captured_at": "2026-11-28T00:00:00Z",
           "cluster": {"brokers": [{"id": 1, "host": "b1", "port": 9092}], "topics": {"Q": topic}},
           "group": {"group_id": "SG", "type": "share", "state": "Stable", "assignor": "simple",
                     "members": [{"member_id": "m1", "subscription": ["Q"], "assignment": {"Q": [0, 1]}},
                                 {"member_id": "m2", "subscription": ["Q"], "assignment": {"Q": [2, 3]}}]}}
    path = tmp_path / "two.json"
    path.write_text(json.dumps(doc))
    return path


def test_remove_one_of_two_the_other_takes_every_partition(tmp_path):
    r = run_kgroup("whatif", "--snapshot", str(_two_members(tmp_path)), "--remove", "m2", "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    (s,) = doc["strategies"]
    # one member, 4 partitions: sharing ceil(1/4) = 1, m1 wants 4 and keeps 0, 1, then gets 2, 3
    assert s["assignment"] == {"m1": {"Q": [0, 1, 2, 3]}}
    assert s["moves"] == [{"topic": "Q", "partition": 2, "from": "m2", "to": "m1"},
                          {"topic": "Q", "partition": 3, "from": "m2", "to": "m1"}]
    assert s["moved_partitions"] == 2 and s["unassigned"] == {}
    table = run_kgroup("whatif", "--snapshot", str(_two_members(tmp_path)), "--remove", "m2")
    assert "[simple] 2 partition(s) move" in table.stdout


def test_adding_members_shares_partitions(tmp_path):
    """Six members on 4 partitions: each partition is shared by (6 + 4 - 1) // 4 = 2 members, 8 slots.
    The members' order is their ids' HashMap order: "m1".."m6" hash to 3428..3433, buckets 4..9 of
    16, so m1..m6 are members 0..5; with q = 2 * 4 / 6, member i wants ceil(q(i+1)) - ceil(qi):
    2, 1, 1, 2, 1, 1. m1 keeps its two; m2 holds two and wants one, so it gives one up."""
    r = run_kgroup("whatif", "--snapshot", str(_two_members(tmp_path)), *[a for n in range(3, 7)
                                                                          for a in ("--add", f"m{n}")],
                   "-o", "json")
    assert r.returncode == 0, r.stderr
    (s,) = json.loads(r.stdout)["strategies"]
    holders: dict[int, list[str]] = {}
    for member, a in s["assignment"].items():
        for p in a.get("Q", []):
            holders.setdefault(p, []).append(member)
    assert sorted(holders) == [0, 1, 2, 3] and all(len(ms) == 2 for ms in holders.values())
    assert {m: len(a["Q"]) for m, a in s["assignment"].items()} == {"m1": 2, "m2": 1, "m3": 1, "m4": 2, "m5": 1,
                                                                    "m6": 1}
    assert s["assignment"]["m1"] == {"Q": [0, 1]}
    (kept,) = s["assignment"]["m2"]["Q"]
    given_up = 5 - kept  # the other of 2 and 3
    assert kept in (2, 3)
    # m2's partition is one move (to a new member); the other 7 - 2 - 1 = 4 new slots come from nobody
    from_m2 = [m for m in s["moves"] if m["from"] == "m2"]
    assert len(from_m2) == 1 and from_m2[0]["partition"] == given_up and from_m2[0]["to"] in {"m3", "m4", "m5", "m6"}
    assert sum(1 for m in s["moves"] if m["from"] is None) == 4 and len(s["moves"]) == 5
    assert s["moved_partitions"] == 1
    assert "initialized" in r.stderr  # the caveat on new members' partitions is said


def test_refusals(tmp_path):
    snap = str(_two_members(tmp_path))
    r = run_kgroup("whatif", "--snapshot", snap, "--strategy", "range")
    assert r.returncode == 2 and r.stderr.strip() == (
        "kgroup: error: --strategy range does not assign group SG (a share group): one of simple or all")
    r = run_kgroup("whatif", "--snapshot", str(ROOT / "examples" / "seed-g1.json"), "--strategy", "simple")
    assert r.returncode == 2 and "--strategy simple does not assign group G1 (not a share group)" in r.stderr
    r = run_kgroup("whatif", "--snapshot", snap, "--add", "m3", "--protocols", "range")
    assert r.returncode == 2 and "--protocols is for classic groups" in r.stderr
    r = run_kgroup("whatif", "--snapshot", snap, "--remove", "nobody")
    assert r.returncode == 2 and "no member matches 'nobody'" in r.stderr
    doc = json.loads(Path(snap).read_text())
    del doc["cluster"]["topics"]["Q"]["topic_id"]
    Path(snap).write_text(json.dumps(doc))
    r = run_kgroup("whatif", "--snapshot", snap, "--remove", "m2")
    assert r.returncode == 2 and "the ids of topics Q are not known" in r.stderr
    assert "Traceback" not in r.stderr


def test_where_kafkas_class_throws_the_rebalance_never_completes():
    """Kafka's class throws on some current assignments holding partitions beyond a topic's count
    (a snapshot refuses those, so the group is built here as a capture would hand it over): for each
    such vector, whatif's answer for the strategy is that the rebalance never completes, naming the
    exception Kafka's class threw."""
    from kgroup.group.model import GroupDescription, GroupState, Member, TopicLayout
    from kgroup.whatif.compare import Change, run

    with gzip.open(VECTORS, "rt", encoding="utf-8") as f:
        throwing = [s for s in json.load(f)["scenarios"] if "error" in s and s["assignable"] is None]
    assert len(throwing) >= 20
    for scenario in throwing:
        names = {tid: name for tid, name, _ in scenario["topics"]}
        members = [Member(member_id=mid, subscription=list(subscribed),
                          assignment={names[tid]: list(ps) for tid, ps in current if tid in names})
                   for mid, subscribed, current in scenario["members"]]
        state = GroupState(group=GroupDescription(group_id="SG", type="share", members=members),
                           topics={name: TopicLayout(n, {}, tid) for tid, name, n in scenario["topics"]})
        (result,) = run(state, Change(), ["simple"]).results
        assert result.completes is False, scenario["seed"]
        assert result.reason.startswith(f"Kafka's SimpleAssignor throws {scenario['error']}")
